// ForceAtlas2's forces (Jacomy, Venturini, Heymann and Bastian 2014), one thread per vertex, as
// backends/cpu/layout.py computes them: attraction along the vertex's out-arcs, exact repulsion
// from every vertex (tiles of positions, masses and sizes staged in shared memory), and gravity.
// flags: 1 linlog, 2 distributed action, 4 strong gravity, 8 size adjustment.
#include "common.cuh"

template <int DIM>
__global__ void gravel_forceatlas2_forces(const double *__restrict__ pos, const double *__restrict__ mass,
                                          const double *__restrict__ size, const offset_t *__restrict__ offsets,
                                          const vid_t *__restrict__ indices, const double *__restrict__ weights,
                                          const double *__restrict__ center, int n, double scaling, double gravity,
                                          int flags, double *__restrict__ update) {
    extern __shared__ double tile[];  // blockDim.x positions (DIM each), then masses, then sizes
    double *tile_pos = tile, *tile_mass = tile + blockDim.x * DIM, *tile_size = tile_mass + blockDim.x;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const bool live = i < n;
    double p[DIM], f[DIM], d[DIM];
    double mi = 0.0, si = 0.0;
    for (int k = 0; k < DIM; ++k) {
        p[k] = live ? pos[(long long)i * DIM + k] : 0.0;
        f[k] = 0.0;
    }
    if (live) {
        mi = mass[i];
        si = size[i];
        for (offset_t e = offsets[i]; e < offsets[i + 1]; ++e) {
            const int j = indices[e];
            if (j == i) continue;
            double r2 = 0.0;
            for (int k = 0; k < DIM; ++k) {
                d[k] = p[k] - pos[(long long)j * DIM + k];
                r2 += d[k] * d[k];
            }
            double c = -weights[e];
            if (flags & 1) {
                const double r = sqrt(r2);
                c = r > 0.0 ? c * log(1.0 + r) / r : 0.0;
            }
            for (int k = 0; k < DIM; ++k) f[k] += c * d[k];
        }
        if (flags & 2)
            for (int k = 0; k < DIM; ++k) f[k] /= mi;
    }
    for (int start = 0; start < n; start += blockDim.x) {
        const int j = start + threadIdx.x;
        if (j < n) {
            for (int k = 0; k < DIM; ++k) tile_pos[threadIdx.x * DIM + k] = pos[(long long)j * DIM + k];
            tile_mass[threadIdx.x] = mass[j];
            tile_size[threadIdx.x] = size[j];
        }
        __syncthreads();
        const int count = min((int)blockDim.x, n - start);
        if (live) {
            for (int t = 0; t < count; ++t) {
                if (start + t == i) continue;
                double r2 = 0.0;
                for (int k = 0; k < DIM; ++k) {
                    d[k] = p[k] - tile_pos[t * DIM + k];
                    r2 += d[k] * d[k];
                }
                double r = sqrt(r2);
                if (flags & 8) r -= si + tile_size[t];
                if (r != 0.0) {
                    const double c = scaling * mi * tile_mass[t] / (r * r);
                    for (int k = 0; k < DIM; ++k) f[k] += c * d[k];
                }
            }
        }
        __syncthreads();
    }
    if (!live) return;
    double norm = 0.0;
    for (int k = 0; k < DIM; ++k) {
        d[k] = p[k] - center[k];
        norm += d[k] * d[k];
    }
    norm = sqrt(norm);
    for (int k = 0; k < DIM; ++k) {
        if (flags & 4)
            f[k] -= gravity * mi * d[k];
        else if (norm > 0.0)
            f[k] -= gravity * mi * d[k] / norm;
        update[(long long)i * DIM + k] = f[k];
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_forceatlas2_forces<1>, (void*)gravel_forceatlas2_forces<2>,
                            (void*)gravel_forceatlas2_forces<3>};
#endif
