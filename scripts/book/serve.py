"""Serve the book while editing: what `make serve` runs.

    python scripts/book/serve.py [PORT]      # `make serve`, `make serve PORT=8001`

Checks first that 127.0.0.1:PORT (8000 unless told) is free, so that a second `make serve`
or any other server on that port gets one line saying what to do instead of MkDocs'
traceback; then hands over to `mkdocs serve` on that port. Standard library only.
"""

from __future__ import annotations

import errno
import os
import socket
import sys

HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def port_is_free(port: int, host: str = HOST) -> bool:
    """Whether a server could listen on ``host:port`` now (as mkdocs serve will)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


def busy_message(port: int) -> str:
    return (
        f"make serve: port {port} is already in use (another `make serve`, or another "
        f"server); run `make serve PORT={port + 1}` to use another port."
    )


def command(port: int) -> list[str]:
    """The mkdocs serve command line for ``port``, in this Python."""
    return [sys.executable, "-m", "mkdocs", "serve", "-a", f"{HOST}:{port}"]


def main(argv: list[str]) -> int:
    text = argv[0] if argv and argv[0] else str(DEFAULT_PORT)
    if not text.isdigit() or not 0 < int(text) < 65536:
        print(f"make serve: PORT must be a port number (1-65535), got {text!r}", file=sys.stderr)
        return 2
    port = int(text)
    if not port_is_free(port):
        print(busy_message(port), file=sys.stderr)
        return 1
    print(f"Building the book, then serving it at http://{HOST}:{port}/ (Ctrl-C stops).")
    sys.stdout.flush()
    os.execv(sys.executable, command(port))
    return 0  # not reached: execv replaces this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
