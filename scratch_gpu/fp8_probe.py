"""fp8 accumulation on this GPU: dot() as it is, and tl.dot with each max_num_imprecise_acc."""
import inspect, math, os, re, sys
sys.path.insert(0, os.getcwd())
import torch, triton, triton.language as tl
print("torch", torch.__version__, "triton", triton.__version__, torch.cuda.get_device_name(), torch.cuda.get_device_capability())
src = inspect.getsource(__import__("triton.language.semantic", fromlist=["x"]))
i = src.find("max_num_imprecise_acc is None")
print("semantic.py:", src[i - 200:i + 600])
try:
    from triton.backends.nvidia import compiler as nc
    csrc = inspect.getsource(nc)
    for line in csrc.splitlines():
        if "imprecise" in line:
            print("nvidia compiler.py:", line.strip())
except Exception as e:
    print("no nvidia compiler", e)
from kernels import dot as kd

@triton.jit
def probe_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                 IMPRECISE: tl.constexpr, USE_DEFAULT: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * sam + offs_k[None, :] * sak
    b_ptrs = b_ptr + offs_k[:, None] * sbk + offs_n[None, :] * sbn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        if USE_DEFAULT:
            acc = tl.dot(a, b, acc)
        else:
            acc = tl.dot(a, b, acc, max_num_imprecise_acc=IMPRECISE)
        a_ptrs += BLOCK_K * sak
        b_ptrs += BLOCK_K * sbk
    c_ptrs = c_ptr + offs_m[:, None] * scm + offs_n[None, :] * scn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

def probe(a, b, imprecise, bm=64, bn=64, bk=32):
    M, K = a.shape; N = b.shape[1]
    c = torch.empty(M, N, device="cuda", dtype=torch.float32)
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
    probe_kernel[grid](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(),
                       IMPRECISE=0 if imprecise is None else imprecise, USE_DEFAULT=imprecise is None,
                       BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=4, num_stages=3)
    return c

def stats(name, out, ref, scale, K):
    err = (out.double() - ref).abs()
    rel = (err / scale).max().item()
    old = 2 * math.ceil(K / 32) * 2**-13
    f32 = 2 * (K + 4) * 2**-24
    print(f"{name:28s} max|err| {err.max().item():.4g}  max err/scale {rel:.3g}  "
          f"(2^{math.log2(rel) if rel > 0 else -99:.2f}); over f32 bound: {int((err > f32 * scale + 2 * 2**-8 * ref.abs() + 2**-24).sum())}, "
          f"over old fp8 bound: {int((err > old * scale + 2 * 2**-8 * ref.abs() + 2**-24).sum())}")

for (M, K, N) in ((300, 500, 200), (64, 4096, 64), (128, 8192, 96)):
    for seed in (0, 1, 2):
        torch.manual_seed(seed)
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(K, N, device="cuda").to(torch.float8_e4m3fn)
        ref = a.double() @ b.double()
        scale = a.double().abs() @ b.double().abs()
        print(f"--- {M}x{K} @ {K}x{N} seed {seed}")
        stats("dot() bf16 out", kd.dot(a, b), ref, scale, K)
        for imp in (None, 0, 32, 64, 128):
            try:
                stats(f"probe fp32 out imprecise={imp}", probe(a, b, imp), ref, scale, K)
            except Exception as e:
                print("imprecise", imp, "failed:", type(e).__name__, str(e)[:200])
# Does max_num_imprecise_acc=0 compile for every dtype of dot()?
for name, (dtype, prec) in kd.PRECISIONS.items():
    a = torch.randn(70, 65, device="cuda").to(dtype); b = torch.randn(65, 33, device="cuda").to(dtype)
    out = kd.dot(a, b, input_precision=prec)
    print(name, "ok", (out.double() - a.double() @ b.double()).abs().max().item())
# the PTX: is there an add per wgmma for fp8?
a = torch.randn(128, 512, device="cuda").to(torch.float8_e4m3fn); b = torch.randn(512, 128, device="cuda").to(torch.float8_e4m3fn)
for imp in (None, 0):
    c = torch.empty(128, 128, device="cuda")
    k = probe_kernel[(2, 2)](a, b, c, 128, 128, 512, *a.stride(), *b.stride(), *c.stride(), IMPRECISE=0, USE_DEFAULT=imp is None, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=3)
    ptx = k.asm["ptx"]
    print("imprecise", imp, "wgmma:", len(re.findall(r"wgmma.mma_async", ptx)), "mma.sync:", len(re.findall(r"mma.sync", ptx)), "add.f32:", len(re.findall(r"add.(rn.)?f32", ptx)))
