// The bus ceiling of kernel reads: every 16-byte word of `words` (pinned host memory mapped into the
// GPU, for the ceiling) read once by a grid-stride loop, their 32-bit xor folded into *out, so that no
// load can be dropped and the result can be checked.
// The map of gravel's reads over the bus (EMOGI): the docstring of gravel/placement/__init__.py.
#include "common.cuh"

__global__ void gravel_bus_read(const uint4 *__restrict__ words, long long n, unsigned int *__restrict__ out) {
    unsigned int x = 0;
    GRAVEL_GRID_STRIDE(i, n) {
        const uint4 w = words[i];
        x ^= w.x ^ w.y ^ w.z ^ w.w;
    }
    for (int d = 16; d > 0; d >>= 1) x ^= __shfl_xor_sync(0xffffffffu, x, d);
    if ((threadIdx.x & 31) == 0) atomicXor(out, x);
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_bus_read};
#endif
