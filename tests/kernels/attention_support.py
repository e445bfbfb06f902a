"""What the attention test files share (test_attention.py, test_attention_tma.py,
test_attention_gluon.py, test_decode_attention.py): the dtypes and masks they sweep, the
tolerance of an attention output and of its gradients, inputs, the float64 reference,
the causal mask written out, and inputs whose memory runs on past the last row in NaN.

Tolerances. u is the unit roundoff of the result's dtype (fp16 2**-11, bf16 2**-8; the
CPU interpreter truncates to bf16, which is within 2u). The output is a weighted mean of
rows of v, rounded once, after the probabilities were rounded to the dtype for the second
product (within u each): so |o - ref| <= 2u |ref| + 4u. The gradients are sums over a
whole sequence of products rounded to the dtype (P and dS before their product), so their
error is measured against the largest element of the reference gradient: 8u of it, and 4u
relative; or, where the reference carries a ``bound`` (test_attention.py's dq and dk),
each element within 4u of the size of the terms summed into it. A masking or indexing bug
moves elements by far more."""

import torch

from tests.support import DEVICE, rand

DTYPES = [torch.float16, torch.bfloat16]
CAUSAL = [False, True, "bottom_right"]
CAUSAL_IDS = ["full", "causal", "bottom_right"]
UNIT = {torch.float16: 2**-11, torch.bfloat16: 2**-8}


def check(got, ref, what, seed, gradient=False):
    """``got`` against the float64 reference; NaN (an unwritten element) never passes."""
    assert got.dtype in UNIT and got.shape == ref.shape, (what, got.dtype, got.shape)
    assert not torch.isnan(got).any(), f"{what} has NaN (unwritten or wrong), seed={seed}"
    u = UNIT[got.dtype]
    bound = getattr(ref, "bound", None)
    if bound is not None:  # each element within 4u of the size of its own terms
        err = (got.double() - ref).abs()
        allowed = 4 * u * (bound + ref.abs() + 1e-3)
        bad = err > allowed
        if bad.any():
            i = tuple(bad.nonzero()[0].tolist())
            raise AssertionError(
                f"{what}, seed={seed}: {int(bad.sum())} of {bad.numel()} elements off; at {i}"
                f" got {got[i].item():.6g}, want {ref[i].item():.6g}, allowed error"
                f" {allowed[i].item():.3g} (4u of the terms summed there)"
            )
        return
    if gradient:
        biggest = ref.abs().max().item() if ref.numel() else 0.0
        rtol, atol = 4 * u, 8 * u * max(biggest, 1e-3)
    else:
        rtol, atol = 2 * u, 4 * u
    torch.testing.assert_close(
        got.double(),
        ref.double(),
        rtol=rtol,
        atol=atol,
        msg=lambda m: f"{what}, seed={seed}\n{m}",
    )


def qkv(batch, heads, n_q, n_k, d, dtype, kv_heads=None, device=DEVICE):
    """Random q (batch, heads, n_q, d), k and v (batch, kv_heads, n_k, d); kv_heads
    defaults to heads."""
    kv_heads = heads if kv_heads is None else kv_heads
    return (
        rand((batch, heads, n_q, d), dtype, device),
        rand((batch, kv_heads, n_k, d), dtype, device),
        rand((batch, kv_heads, n_k, d), dtype, device),
    )


def reference64(reference, q, k, v, *args, **kwargs):
    """The float64 result, unrounded: a kernel file's ``reference`` on float64 copies."""
    return reference(q.double(), k.double(), v.double(), *args, **kwargs)


def diag_of(causal, n_q, n_k):
    """Query i sees keys j <= i + diag: 0 top-left (causal=True), n_k - n_q bottom-right."""
    return n_k - n_q if causal == "bottom_right" else 0


def causal_mask(causal, n_q, n_k):
    """The boolean mask each alignment means, written out: query i sees key j where True."""
    return torch.ones(n_q, n_k, dtype=torch.bool, device=DEVICE).tril(diag_of(causal, n_q, n_k))


def hide_keys_from(k, v, first_hidden):
    """Copies of k and v whose keys from ``first_hidden`` on are large (30) and whose values
    there are larger still (1000): a query that must not see those keys keeps its output to
    the bit (its probability there is exactly 0); one that sees them changes."""
    k2, v2 = k.clone(), v.clone()
    k2[:, :, first_hidden:] = 30.0
    v2[:, :, first_hidden:] = 1000.0
    return k2, v2


def nan_padded(t, extra=5):
    """A view of ``t`` whose storage continues, past the last row, with ``extra`` NaN rows:
    a kernel that reads one row too many (a missing mask, a descriptor of the wrong shape)
    picks them up."""
    b, h, n, d = t.shape
    big = torch.full((b, h, n + extra, d), float("nan"), dtype=t.dtype, device=t.device)
    big[:, :, :n] = t
    return big[:, :, :n]
