"""17 · Decoding attention: a paged KV cache. One sequence's block table row lists the
pages of a shared pool that hold its keys, in any order."""

from scripts.book.diagrams.svg import Drawing

TABLE = (7, 2, 9, 4)  # the pages of sequence b, in the order of its keys
POOL = 10
PAGE = 4  # keys per page in the picture


def draw() -> Drawing:
    n_keys = PAGE * (len(TABLE) - 1) + 1
    d = Drawing(
        "paged-kv",
        300,
        "A paged KV cache: one sequence's keys found through its block table",
        f"""The keys and values of every sequence live in one pool of fixed-size pages, here
        {POOL} pages of {PAGE} keys (the benchmark uses 16). Sequence b's row of the block
        table lists its pages in the order of its keys: {", ".join(map(str, TABLE))}. Key n
        of the sequence is row n mod {PAGE} of page block_table[b, n div {PAGE}]. Its
        {n_keys} keys fill three pages and one key of the fourth; the other pages of the
        pool belong to other sequences. The pages need not be next to each other or in
        order, so a sequence can grow a page at a time without moving anything.""",
    )
    d.text(8, 18, "A paged KV cache: sequence b's block table", 13, "d-b")
    d.text(8, 36, f"pages of {PAGE} keys (16 in the benchmark)", 12, "d-t2")
    # The block table row.
    tx, ty, tw, th = 120, 62, 68, 26
    d.text(tx - 10, ty + 18, "block_table[b]", 12, "d-b", "end", mono=True)
    for i, page in enumerate(TABLE):
        d.rect(tx + i * tw, ty, tw - 2, th, "d-blue-s", rx=0)
        d.text(tx + i * tw + (tw - 2) / 2, ty + 18, str(page), 12, "d-ti d-b", "middle")
        d.text(
            tx + i * tw + (tw - 2) / 2,
            ty - 6,
            f"keys {i * PAGE}–{i * PAGE + PAGE - 1}" if i < len(TABLE) - 1 else f"key {i * PAGE}",
            12,
            "d-t2",
            "middle",
            room=tw + 2,
        )
    # The pool.
    px, py, pw, ph = 8, 180, 38.4, 34
    for p in range(POOL):
        mine = p in TABLE
        d.rect(px + p * pw + 1, py, pw - 2, ph, "d-orange-s" if mine else "d-surf", rx=0)
        d.text(px + p * pw + pw / 2, py + ph + 16, str(p), 12, "d-t2", "middle")
    for i, page in enumerate(TABLE):
        x0 = tx + i * tw + (tw - 2) / 2
        d.arrow(x0, ty + th + 2, px + page * pw + pw / 2, py - 3, "d-ln-o", "d-head-o")
    d.text(8, py + ph + 38, "the pool of pages, k and v alike; unshaded pages", 12, "d-b")
    d.text(8, py + ph + 56, "belong to other sequences", 12, "d-b")
    d.text(8, py + ph + 80, "key n: row n % page of page block_table[b, n // page]", 12)
    d.height = py + ph + 90
    return d
