// Row softmax, y = exp(x - max(x)) / sum(exp(x - max(x))) over each row, written by hand
// in CUDA C++: the counterpart of softmax_kernel in kernels/softmax.py (the whole-row
// kernel of lesson 10), for the line-by-line comparison in lesson 02. One thread block
// per row; the row is kept in registers, reduced with warp shuffles and, across the
// block's warps, through shared memory.
//
// status: compiled with nvcc (CUDA 13.0, sm_90) and checked against torch.softmax by tests/kernels/test_softmax_cuda.py on an H100, 2026-11-26
//
// Build (a shared library the tests load with ctypes):
//     nvcc -O3 -arch=native -shared -Xcompiler -fPIC -o softmax_rows.so softmax_rows.cu
// tests/kernels/test_softmax_cuda.py compiles it and checks it against torch.softmax.
//
// Markers, read by lesson 02's widget (docs/assets/js/widgets/cuda-lines.js) and checked
// by tests/site/test_widget_cuda_lines.py: "// triton: TEXT" starts the CUDA that stands
// for the line of softmax_kernel that begins with TEXT (a marker may repeat); "// cuda-only:
// WHY" starts CUDA with no line in the Triton kernel. Each part runs to the next marker.

// cuda-only: headers (the Triton file imports torch and triton instead)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

// triton: m = tl.max(
// tl.max(x, axis=1), first within a warp: each of five butterfly steps swaps values
// between lanes 16, 8, 4, 2 and 1 apart, after which every lane holds the warp's maximum.
__device__ __forceinline__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}

// ... then across the block: lane 0 of each warp writes its warp's maximum to shared
// memory, a barrier makes the writes visible, and each warp reduces those WARPS values.
template <int WARPS>
__device__ float block_max(float v, float* scratch) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = warp_max(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < WARPS ? scratch[lane] : -INFINITY;
  v = warp_max(v);
  __syncthreads();  // every warp has read scratch: it may be written again
  return v;
}

// triton: y = e / tl.sum(
// tl.sum(e, axis=1): the same two levels as the maximum, adding instead.
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  }
  return v;
}

template <int WARPS>
__device__ float block_sum(float v, float* scratch) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < WARPS ? scratch[lane] : 0.0f;
  v = warp_sum(v);
  __syncthreads();
  return v;
}

// triton: @triton.jit
// A __global__ function runs on the GPU, launched by the host over a grid of blocks.
// THREADS (Triton: num_warps * 32) and PER_THREAD (how many of the row's values each
// thread keeps; Triton derives that from BLOCK_N and its layout) are compile-time
// constants, as BLOCK_N is in Triton; T is the storage type (float, __half, bfloat16).
template <typename T, int THREADS, int PER_THREAD>
__global__ void __launch_bounds__(THREADS)
// triton: def softmax_kernel(
softmax_rows_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n_rows, int n_cols,
                    int64_t x_stride, int64_t y_stride) {
  // triton: rows = tl.program_id(0)
  // One block per row (Triton's program takes BLOCK_M rows; this is BLOCK_M = 1). int64,
  // as in Triton: row * x_stride passes 2**31 on large tensors.
  const int64_t row = blockIdx.x;
  // triton: cols = tl.arange(0, BLOCK_N)
  // Thread t owns columns t, t + THREADS, t + 2 * THREADS, ...: at each step neighbouring
  // threads touch neighbouring addresses, so a warp's loads coalesce.
  const int tid = threadIdx.x;
  // triton: mask = (rows
  // The row half of the mask. The whole block leaves together, so no thread is left
  // waiting at a barrier. (The column half, col < n_cols, is tested at each load/store.)
  if (row >= n_rows) return;
  // triton: x = tl.load(
  // Masked columns read as -inf, Triton's other=-inf; the arithmetic is fp32 (.to(tl.float32)).
  const T* x_row = x + row * x_stride;
  float v[PER_THREAD];
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i) {
    const int col = tid + i * THREADS;
    v[i] = col < n_cols ? static_cast<float>(x_row[col]) : -INFINITY;
  }
  // triton: m = tl.max(
  // Each thread's own maximum first, then the warp and block levels above.
  __shared__ float scratch[THREADS / 32];
  float m = -INFINITY;
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i) m = fmaxf(m, v[i]);
  m = block_max<THREADS / 32>(m, scratch);
  // triton: e = tl.exp(
  // m is now in every thread's register: Triton's broadcast m[:, None] is free here.
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i) v[i] = expf(v[i] - m);
  // triton: y = e / tl.sum(
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i) s += v[i];
  s = block_sum<THREADS / 32>(s, scratch);
  // triton: tl.store(
  // The column half of the mask again, and the cast back to the storage type.
  T* y_row = y + row * y_stride;
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i) {
    const int col = tid + i * THREADS;
    if (col < n_cols) y_row[col] = static_cast<T>(v[i] / s);
  }
}

// cuda-only: the launch (in Triton, the Python wrapper's softmax_kernel[grid](...))
// One block of 256 threads per row, with the fewest values per thread that cover the row:
// 1 to 64, so rows of up to 16,384 columns (kernels/softmax.py's MAX_WHOLE_ROW). Returns
// 0, a cudaError_t from the launch, or -1 for a shape this kernel does not take.
template <typename T, int PER_THREAD>
static int launch_with(const void* x, void* y, int64_t n_rows, int n_cols, int64_t x_stride,
                       int64_t y_stride, cudaStream_t stream) {
  constexpr int THREADS = 256;
  softmax_rows_kernel<T, THREADS, PER_THREAD><<<static_cast<unsigned>(n_rows), THREADS, 0, stream>>>(
      static_cast<const T*>(x), static_cast<T*>(y), n_rows, n_cols, x_stride, y_stride);
  return static_cast<int>(cudaGetLastError());
}

template <typename T>
static int launch(const void* x, void* y, int64_t n_rows, int n_cols, int64_t x_stride,
                  int64_t y_stride, cudaStream_t stream) {
  if (n_rows == 0 || n_cols == 0) return 0;
  if (n_rows < 0 || n_cols < 0 || n_rows > 2147483647) return -1;
  const int per_thread = (n_cols + 255) / 256;
  if (per_thread <= 1) return launch_with<T, 1>(x, y, n_rows, n_cols, x_stride, y_stride, stream);
  if (per_thread <= 2) return launch_with<T, 2>(x, y, n_rows, n_cols, x_stride, y_stride, stream);
  if (per_thread <= 4) return launch_with<T, 4>(x, y, n_rows, n_cols, x_stride, y_stride, stream);
  if (per_thread <= 8) return launch_with<T, 8>(x, y, n_rows, n_cols, x_stride, y_stride, stream);
  if (per_thread <= 16) return launch_with<T, 16>(x, y, n_rows, n_cols, x_stride, y_stride, stream);
  if (per_thread <= 32) return launch_with<T, 32>(x, y, n_rows, n_cols, x_stride, y_stride, stream);
  if (per_thread <= 64) return launch_with<T, 64>(x, y, n_rows, n_cols, x_stride, y_stride, stream);
  return -1;  // wider rows need two passes over the row: softmax_online_kernel's method
}

extern "C" int softmax_rows_f32(const void* x, void* y, int64_t n_rows, int n_cols,
                                int64_t x_stride, int64_t y_stride, cudaStream_t stream) {
  return launch<float>(x, y, n_rows, n_cols, x_stride, y_stride, stream);
}

extern "C" int softmax_rows_f16(const void* x, void* y, int64_t n_rows, int n_cols,
                                int64_t x_stride, int64_t y_stride, cudaStream_t stream) {
  return launch<__half>(x, y, n_rows, n_cols, x_stride, y_stride, stream);
}

extern "C" int softmax_rows_bf16(const void* x, void* y, int64_t n_rows, int n_cols,
                                 int64_t x_stride, int64_t y_stride, cudaStream_t stream) {
  return launch<__nv_bfloat16>(x, y, n_rows, n_cols, x_stride, y_stride, stream);
}
