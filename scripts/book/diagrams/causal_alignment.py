"""12 · Flash Attention: what causal means when n_q != n_k. Top-left alignment (query i
sees keys j <= i) is torch.tril(ones(n_q, n_k)), SDPA's is_causal=True
(torch.nn.attention.bias.causal_upper_left); bottom-right alignment (j <= i + n_k - n_q,
causal_lower_right) lines the last query up with the last key, as decoding with a KV
cache needs."""

from scripts.book.diagrams.svg import Drawing

NK = 7


def top_left(i: int, j: int, nq: int) -> bool:
    return j <= i


def bottom_right(i: int, j: int, nq: int) -> bool:
    return j <= i + NK - nq


def draw() -> Drawing:
    d = Drawing(
        "causal-alignment",
        330,
        "Causal masks when there are fewer queries than keys: top-left and bottom-right",
        f"""Two grids per case, queries down and keys across, filled where a query may
        attend to a key. With 3 queries and {NK} keys, top-left alignment (query i sees
        keys j up to i, SDPA's is_causal=True) lets query 0 see key 0 only and query 2
        keys 0 to 2; bottom-right alignment (j up to i + n_k - n_q) lines the last query up
        with the last key, so query 0 sees keys 0 to 4 and query 2 all {NK}. With one query
        and {NK} keys, as when decoding one token against a KV cache, top-left lets it see
        key 0 only, so the output is exactly v[0]; bottom-right lets it see all {NK}
        keys, which is what decoding needs.""",
    )
    d.text(8, 18, f"Causal attention with n_q < n_k (here n_k = {NK})", 13, "d-b")
    cols = [
        (40, "top-left", "j ≤ i", "SDPA's is_causal=True", top_left),
        (228, "bottom-right", "j ≤ i + n_k − n_q", "causal_lower_right", bottom_right),
    ]
    cell = 20
    for x, title, rule, who, _ in cols:
        d.text(x, 44, title, 13, "d-b", room=170)
        d.text(x, 62, rule, 12, "d-mono", room=170)
        d.text(x, 80, who, 12, "d-t2", room=170)

    def grid(y, nq, label):
        d.text(8, y - 2, label, 12, "d-b")
        top = y + 26
        for x, *_, rule in cols:
            for j in range(NK):
                d.text(x + (j + 0.5) * cell, top - 5, str(j), 12, "d-t2", "middle")
            for i in range(nq):
                for j in range(NK):
                    cls = "d-blue-s" if rule(i, j, nq) else "d-box"
                    d.rect(x + j * cell, top + i * cell, cell, cell, cls, rx=0)
        for i in range(nq):
            d.text(32, top + i * cell + 15, f"q{i}", 12, "d-t2", "end")
        return top + nq * cell

    end = grid(112, 3, "n_q = 3 queries, keys 0–6 across")
    end = grid(end + 34, 1, "n_q = 1: decoding one token with a KV cache")
    d.text(cols[0][0], end + 20, "sees key 0 only:", 12, "d-to d-b", room=180)
    d.text(cols[0][0], end + 38, "the output is v[0]", 12, "d-to", room=180)
    d.text(cols[1][0], end + 20, "sees all 7 keys:", 12, "d-tg d-b", room=170)
    d.text(cols[1][0], end + 38, "what decoding needs", 12, "d-tg", room=170)
    d.height = end + 46
    return d
