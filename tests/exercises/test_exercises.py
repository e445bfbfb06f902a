"""The exercises cannot rot: every solution passes its checker, every untouched starter
fails with the message its page promises, the command line answers with the right exit
status, and every page shows what its exercises need (the command, the starter and the
solution by include, the hints word for word, the cited report of a bug hunt)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types

import pytest

from exercises import all_exercises, checking
from exercises.__main__ import main
from tests.site.support import DOCS, ROOT

EXERCISES = all_exercises()
IDS = list(EXERCISES)


def test_there_are_exercises_of_every_kind():
    assert EXERCISES, "no exercises found under exercises/"
    assert {ex.kind for ex in EXERCISES.values()} == set(checking.KINDS)


@pytest.mark.parametrize("ex_id", IDS)
def test_the_solution_passes(ex_id):
    outcome = checking.run(EXERCISES[ex_id], solution=True)
    assert outcome.passed, outcome.message
    assert outcome.message.startswith(f"PASS {ex_id} ")


@pytest.mark.parametrize("ex_id", IDS)
def test_the_untouched_starter_fails_with_its_message(ex_id):
    ex = EXERCISES[ex_id]
    assert ex.untouched, f"{ex_id}: say which message the untouched starter fails with"
    outcome = checking.run(ex)
    assert not outcome.passed, f"{ex_id}: the untouched starter passes: {outcome.message}"
    assert ex.untouched in outcome.message, outcome.message
    if outcome.hint is not None:
        assert 1 <= outcome.hint <= len(ex.hints), f"{ex_id} points at a hint it lacks"
        assert f"python -m exercises hint {ex_id} {outcome.hint}" in outcome.message


@pytest.mark.parametrize("ex_id", IDS)
def test_files_and_names(ex_id):
    ex = EXERCISES[ex_id]
    assert ex.starter.is_file() and ex.solution.is_file(), ex_id
    assert ex.hints, f"{ex_id} has no hints"
    for url in ex.cites:
        assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+", url), url


def test_a_wrapper_that_returns_torchs_answer_cannot_pass():
    # A "kernel" that is a plain Python function (say, one that calls torch) is refused
    # before it is run: the checks launch the reader's @triton.jit kernel themselves.
    ex = EXERCISES["04.1"]
    fake = types.ModuleType("fake")
    fake.transpose_kernel = lambda *args, **meta: None
    with pytest.raises(checking.Wrong, match="not a Triton kernel"):
        ex.check(fake)


def test_writing_outside_the_output_is_caught():
    out = checking.guarded((3, 5))
    out.buffer[out.guard + 15] = 1.0  # one element past the end
    with pytest.raises(checking.Wrong, match="wrote outside out.*flat index 15"):
        out.check()


def test_compare_names_the_first_wrong_element():
    want = checking.rand((4, 6))
    got = want.clone()
    got[2, 3] += 1
    with pytest.raises(checking.Wrong, match=r"wrong value at out\[2, 3\]"):
        checking.compare(got, want)
    with pytest.raises(checking.Wrong, match="wrong dtype"):
        checking.compare(got.half(), want.to(checking.torch.int32))


# ---- the pages -----------------------------------------------------------------------------


def flat(text: str) -> str:
    """Page text with Markdown's code marks removed and whitespace collapsed."""
    return " ".join(text.replace("`", "").split())


@pytest.mark.parametrize("ex_id", IDS)
def test_the_page_shows_the_exercise(ex_id):
    ex = EXERCISES[ex_id]
    page = (DOCS / ex.page).read_text()
    section = page.split("## Exercises", 1)[1]
    assert f"python -m exercises check {ex_id}" in section
    starter = ex.starter.relative_to(ROOT)
    solution = ex.solution.relative_to(ROOT)
    assert f'--8<-- "{starter}:starter"' in section or ex.kind == "predict", ex_id
    if ex.kind != "predict":
        assert f'--8<-- "{solution}:solution"' in section, ex_id
    for n, hint in enumerate(ex.hints, 1):
        assert flat(hint) in flat(section), f"{ex_id}: hint {n} is not on the page word for word"
    for url in ex.cites:
        assert url in section, f"{ex_id}: the page does not cite {url}"


def test_readme_and_contributing_name_the_commands():
    for doc in ("README.md", "CONTRIBUTING.md"):
        text = (ROOT / doc).read_text()
        assert "python -m exercises check" in text and "make check EX=" in text, doc
    assert re.search(r"^check:", (ROOT / "Makefile").read_text(), re.M)


# ---- the command line ------------------------------------------------------------------------


def test_cli_exit_status_in_a_fresh_process():
    # One real run of the command a page prints: it starts the interpreter by itself.
    done = subprocess.run(
        [sys.executable, "-m", "exercises", "check", "04.3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL 04.3" in done.stdout and "no prediction yet" in done.stdout


def test_cli_commands(capsys):
    assert main(["list"]) == 0 and "04.1" in capsys.readouterr().out
    assert main(["check", "04.3", "--solution"]) == 0
    assert "PASS 04.3" in capsys.readouterr().out
    assert main(["hint", "04.3", "2"]) == 0 and "C / (12 R)" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="no exercise"):
        main(["check", "99.9"])


def test_check_and_hint_from_python(capsys, monkeypatch):
    """The labs' cells call the checker from Python: it prints what the command prints,
    returns True or False, and never raises or exits (a notebook's kernel keeps running)."""
    import exercises

    assert exercises.check("04.3") is False
    out = capsys.readouterr().out
    assert "checking exercises/lesson04/ex3_break_even.py on" in out
    assert "FAIL 04.3 " in out and "python -m exercises hint 04.3 1" in out
    # A prediction given in the cell stands in for the file's; one left at None does not.
    assert exercises.check("04.3", ANSWER=256) is True
    assert "with ANSWER = 256" in capsys.readouterr().out
    assert exercises.check("04.3", ANSWER=32) is False
    assert "FAIL 04.3 " in capsys.readouterr().out
    assert exercises.check("04.3", ANSWER=None) is False
    assert "no prediction yet" in capsys.readouterr().out
    assert exercises.check("04.3", NO_SUCH_NAME=1) is False
    assert "has no name NO_SUCH_NAME" in capsys.readouterr().out
    assert exercises.check("04.1", solution=True) is True
    assert "PASS 04.1 " in capsys.readouterr().out
    assert exercises.check("99.9") is False
    assert "no exercise '99.9'" in capsys.readouterr().out
    exercises.hint("04.3", 2)
    assert "C / (12 R)" in capsys.readouterr().out
    exercises.hint("04.3", 9)
    assert "hints 1 to" in capsys.readouterr().out

    def stops(*args, **kwargs):
        raise RuntimeError("the GPU went away")

    monkeypatch.setattr(checking, "run", stops)
    assert exercises.check("04.1") is False
    assert "the check itself stopped: RuntimeError: the GPU went away" in capsys.readouterr().out
    module = exercises.reader_module("04.1", solution=True)
    assert hasattr(module, "transpose_kernel")
