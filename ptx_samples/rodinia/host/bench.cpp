// Measurement driver of the Rodinia occupancy suite.
//
// Loads the suite kernels from cubins assembled from the committed PTX (so
// the timed machine code is exactly the PTX in ptx_samples/rodinia), builds
// the synthetic inputs on the GPU, checks every kernel once against a host
// reference, and sweeps occupancy: resident blocks per SM are limited to
// b = 1 .. max by padding the launch with dynamic shared memory, and each
// point is verified with cuOccupancyMaxActiveBlocksPerMultiprocessor.
//
//   bench time    <cubin_dir> <suite_dir> [kernel_id...]
//       check + timing sweep; writes <suite_dir>/suite.toml (the manifest),
//       <suite_dir>/data/timings.csv and <suite_dir>/data/checks.csv
//   bench repeat  <cubin_dir> <suite_dir> [kernel_id...]
//       the same sweep again into <suite_dir>/data/timings_repeat.csv, to
//       show the run-to-run spread (no manifest)
//   bench samples <cubin_dir> <suite_dir> [kernel_id...]
//       check, then per occupancy point the launch truncated to 2 and 3 Psat
//       work groups (Psat = blocks_per_sm * SMs) and the full grid, with the
//       timing method below; writes <suite_dir>/data/samples.csv only (bench
//       time writes it too). ../common/samples.h says how a grid is truncated
//   bench profile <cubin_dir> <kernel_id>
//       one launch per occupancy point, ascending blocks_per_sm, no flush
//       and no check launch (for ncu, which flushes caches itself)
//   bench list
//       prints "<kernel_id> <mangled entry>" per line
//
// Every timed launch is preceded by an L2 flush (a read of 2x the L2 size):
// the timings then start from the same cold L2 as Nsight Compute's default
// --cache-control all, so DRAM/L2 counters and times describe the same runs.
// The shared-memory carveout is pinned to the maximum for every point, so the
// L1 size does not change along the sweep.

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../../common/samples.h"

namespace {

void check_cu(CUresult r, const char* what, int line)
{
    if (r != CUDA_SUCCESS) {
        const char* name = nullptr;
        const char* desc = nullptr;
        cuGetErrorName(r, &name);
        cuGetErrorString(r, &desc);
        std::fprintf(stderr, "bench.cpp:%d: %s failed: %s (%s)\n", line, what,
                     name ? name : "?", desc ? desc : "?");
        std::exit(2);
    }
}
#define CK(x) check_cu((x), #x, __LINE__)

constexpr int kWarmup = 2;
constexpr int kRuns = 9;

// ---------------------------------------------------------------- params

enum class PType { Ptr, S32, F32 };

struct Param {
    PType type;
    std::string buffer;  // PTR: buffer name
    int32_t s32 = 0;
    float f32 = 0.0f;
    std::string note;  // meaning, for the manifest
};

Param ptr(const std::string& b, const std::string& note = "")
{
    return Param{PType::Ptr, b, 0, 0.0f, note};
}
Param s32(int32_t v, const std::string& note)
{
    return Param{PType::S32, "", v, 0.0f, note};
}
Param f32(float v, const std::string& note)
{
    return Param{PType::F32, "", 0, v, note};
}

struct BufferSpec {
    std::string name;
    size_t bytes;
    std::string elem;  // "f32" or "s32"
    std::string init;  // description of the synthetic contents
};

struct Ctx;

struct Kernel {
    std::string id;
    std::string app;
    std::string entry;
    std::string paper_name;  // name in Table 9 of the paper
    unsigned grid[3];
    unsigned block[3];
    std::vector<BufferSpec> buffers;
    std::vector<Param> params;
    std::function<void(Ctx&)> init;
    // runs the kernel once (via ctx.launch_once) and compares with a host
    // reference; returns an empty string when correct
    std::function<std::string(Ctx&)> check;
    std::string notes;
};

// ---------------------------------------------------------------- context

struct Ctx {
    CUmodule support = nullptr;
    std::map<std::string, CUmodule> modules;
    std::map<std::string, CUdeviceptr> buf;
    std::map<std::string, size_t> buf_bytes;
    const Kernel* k = nullptr;
    CUfunction f = nullptr;

    CUfunction sup(const char* name)
    {
        CUfunction fn;
        CK(cuModuleGetFunction(&fn, support, name));
        return fn;
    }
    void grid_stride(CUfunction fn, void** args)
    {
        CK(cuLaunchKernel(fn, 132 * 16, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    }
    void fill_f32(const std::string& b, uint32_t seed, float lo, float hi)
    {
        CUdeviceptr p = buf.at(b);
        uint64_t n = buf_bytes.at(b) / 4;
        void* a[] = {&p, &n, &seed, &lo, &hi};
        grid_stride(sup("sup_fill_f32"), a);
    }
    void fill_i32(const std::string& b, uint32_t seed, int lo, int hi)
    {
        CUdeviceptr p = buf.at(b);
        uint64_t n = buf_bytes.at(b) / 4;
        void* a[] = {&p, &n, &seed, &lo, &hi};
        grid_stride(sup("sup_fill_i32"), a);
    }
    template <class T>
    std::vector<T> get(const std::string& b, size_t offset_elems = 0,
                       size_t count = SIZE_MAX)
    {
        size_t n = buf_bytes.at(b) / sizeof(T);
        if (count == SIZE_MAX)
            count = n - offset_elems;
        std::vector<T> h(count);
        CK(cuCtxSynchronize());
        CK(cuMemcpyDtoH(h.data(), buf.at(b) + offset_elems * sizeof(T),
                        count * sizeof(T)));
        return h;
    }
    // launch the kernel under test once at full occupancy and wait
    void launch_once();
};

std::vector<uint64_t> param_slots;
std::vector<void*> param_ptrs;

void build_params(Ctx& c)
{
    param_slots.assign(c.k->params.size(), 0);
    param_ptrs.assign(c.k->params.size(), nullptr);
    for (size_t i = 0; i < c.k->params.size(); ++i) {
        const Param& p = c.k->params[i];
        switch (p.type) {
        case PType::Ptr: {
            CUdeviceptr d = c.buf.at(p.buffer);
            std::memcpy(&param_slots[i], &d, sizeof d);
            break;
        }
        case PType::S32:
            std::memcpy(&param_slots[i], &p.s32, 4);
            break;
        case PType::F32:
            std::memcpy(&param_slots[i], &p.f32, 4);
            break;
        }
        param_ptrs[i] = &param_slots[i];
    }
}

// the kernel's launch at padding `dyn`, on `grid` (a sample's, samples::box) or its own
void launch(Ctx& c, unsigned dyn, const unsigned* grid = nullptr)
{
    const Kernel& k = *c.k;
    const unsigned* g = grid ? grid : k.grid;
    CK(cuLaunchKernel(c.f, g[0], g[1], g[2], k.block[0], k.block[1],
                      k.block[2], dyn, nullptr, param_ptrs.data(), nullptr));
}

void Ctx::launch_once()
{
    launch(*this, 0);
    CK(cuCtxSynchronize());
}

// ---------------------------------------------------------------- checking

struct Sampler {
    uint64_t s;
    explicit Sampler(uint64_t seed) : s(seed) {}
    uint64_t next()
    {
        s += 0x9E3779B97F4A7C15ull;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return next() % n; }
};

struct Tally {
    double worst = 0.0;
    size_t bad = 0;
    size_t n = 0;
    std::string first;
    // |got - want| <= tol * (|want| + scale)
    void cmp(double got, double want, double scale, double tol, const char* what,
             size_t where)
    {
        ++n;
        double err = std::fabs(got - want) / (std::fabs(want) + scale);
        if (!(err <= tol)) {
            if (bad == 0) {
                char m[256];
                std::snprintf(m, sizeof m, "%s[%zu]: got %.8g want %.8g", what, where,
                              got, want);
                first = m;
            }
            ++bad;
        }
        if (std::isfinite(err))
            worst = std::max(worst, err);
        else
            worst = INFINITY;
    }
    std::string result() const
    {
        if (bad == 0)
            return "";
        return std::to_string(bad) + "/" + std::to_string(n) + " mismatches, first " +
               first;
    }
};

// ---------------------------------------------------------------- the suite

constexpr size_t MiB = 1u << 20;

std::vector<Kernel> make_suite()
{
    std::vector<Kernel> s;

    // ---------------- gaussian_fan2
    {
        const int n = 4096, t = 0;
        Kernel k;
        k.id = "gaussian_fan2";
        k.app = "gaussian";
        k.entry = "_Z13gaussian_fan2PfS_PKfii";
        k.paper_name = "Fan2";
        k.grid[0] = n / 8; k.grid[1] = n / 8; k.grid[2] = 1;
        k.block[0] = 8; k.block[1] = 8; k.block[2] = 1;
        k.buffers = {{"a", (size_t)n * n * 4, "f32", "uniform [-1, 1)"},
                     {"b", (size_t)n * 4, "f32", "uniform [-1, 1)"},
                     {"m", (size_t)n * n * 4, "f32", "uniform [-0.05, 0.05)"}};
        k.params = {ptr("a", "matrix, updated in place"), ptr("b", "right-hand side, updated in place"),
                    ptr("m", "multipliers"), s32(n, "matrix order n"),
                    s32(t, "elimination step t")};
        k.init = [](Ctx& c) {
            c.fill_f32("a", 1, -1.0f, 1.0f);
            c.fill_f32("b", 2, -1.0f, 1.0f);
            c.fill_f32("m", 3, -0.05f, 0.05f);
        };
        k.check = [n, t](Ctx& c) {
            auto a = c.get<float>("a");
            auto b = c.get<float>("b");
            auto m = c.get<float>("m");
            c.launch_once();
            auto a2 = c.get<float>("a");
            auto b2 = c.get<float>("b");
            Tally tl;
            Sampler r(1);
            for (int q = 0; q < 200000; ++q) {
                int i = (int)r.below(n), j = (int)r.below(n);
                double want = a[(size_t)i * n + j];
                if (i > t && j >= t)
                    want -= (double)m[(size_t)i * n + t] * a[(size_t)t * n + j];
                tl.cmp(a2[(size_t)i * n + j], want, 1.0, 1e-5, "a", (size_t)i * n + j);
            }
            for (int i = 0; i < n; ++i) {
                double want = b[i];
                if (i > t)
                    want -= (double)m[(size_t)i * n + t] * b[t];
                tl.cmp(b2[i], want, 1.0, 1e-5, "b", i);
            }
            return tl.result();
        };
        k.notes = "one elimination step t = 0 of an n = 4096 system; grid covers the whole matrix";
        s.push_back(k);
    }

    // ---------------- nw_kernel1
    {
        const int T = 64, cols = 16 * T + 1, penalty = 10, batch = 1024;
        const int inst = cols * cols;
        Kernel k;
        k.id = "nw_kernel1";
        k.app = "nw";
        k.entry = "_Z10nw_kernel1PiPKiiiii";
        k.paper_name = "nw_kernel1";
        k.grid[0] = T; k.grid[1] = batch; k.grid[2] = 1;
        k.block[0] = 16; k.block[1] = 1; k.block[2] = 1;
        k.buffers = {{"score", (size_t)inst * batch * 4, "s32",
                      "borders -penalty*index, other cells uniform [-199, 0]"},
                     {"ref", (size_t)inst * batch * 4, "s32", "uniform [-10, 10]"}};
        k.params = {ptr("score", "score matrices, updated in place"),
                    ptr("ref", "substitution scores"),
                    s32(cols, "matrix width (16*64+1)"), s32(penalty, "gap penalty"),
                    s32(T, "block anti-diagonal (64 tiles: the longest)"),
                    s32(inst, "elements between batch instances")};
        k.init = [cols, inst, penalty](Ctx& c) {
            CUdeviceptr p = c.buf.at("score");
            uint64_t n = c.buf_bytes.at("score") / 4;
            int cl = cols, in = inst, pen = penalty;
            void* a[] = {&p, &n, &cl, &in, &pen};
            c.grid_stride(c.sup("sup_nw_score"), a);
            c.fill_i32("ref", 5, -10, 10);
        };
        k.check = [T, cols, inst, penalty, batch](Ctx& c) {
            Tally tl;
            const int which[2] = {0, batch - 1};
            std::vector<int> before[2];
            for (int q = 0; q < 2; ++q)
                before[q] = c.get<int>("score", (size_t)which[q] * inst, inst);
            c.launch_once();
            for (int q = 0; q < 2; ++q) {
                int b = which[q];
                auto& sc = before[q];
                auto rf = c.get<int>("ref", (size_t)b * inst, inst);
                auto out = c.get<int>("score", (size_t)b * inst, inst);
                for (int tr = 0; tr < T; ++tr) {
                    int tc = T - 1 - tr;
                    for (int y = 1; y <= 16; ++y)
                        for (int x = 1; x <= 16; ++x) {
                            size_t g = (size_t)(16 * tr + y) * cols + 16 * tc + x;
                            int v = std::max({sc[g - cols - 1] + rf[g],
                                              sc[g - 1] - penalty,
                                              sc[g - cols] - penalty});
                            sc[g] = v;
                        }
                }
                for (int q = 0; q < inst; ++q)
                    tl.cmp(out[q], sc[q], 1.0, 0.0, "score", q);
            }
            return tl.result();
        };
        k.notes = "batch of 1024 independent 1025x1025 problems (grid y), longest block anti-diagonal";
        s.push_back(k);
    }

    // ---------------- kmeans
    {
        const int np = 1 << 22, nf = 34, nc = 5;
        Kernel k;
        k.id = "kmeans_assign";
        k.app = "kmeans";
        k.entry = "_Z13kmeans_assignPKfS0_Piiii";
        k.paper_name = "kmeans_kernel_c";
        k.grid[0] = np / 256; k.grid[1] = 1; k.grid[2] = 1;
        k.block[0] = 256; k.block[1] = 1; k.block[2] = 1;
        k.buffers = {{"features", (size_t)np * nf * 4, "f32", "uniform [0, 1), [nfeatures][npoints]"},
                     {"clusters", (size_t)nc * nf * 4, "f32", "uniform [0, 1), [nclusters][nfeatures]"},
                     {"membership", (size_t)np * 4, "s32", "output"}};
        k.params = {ptr("features"), ptr("clusters"), ptr("membership", "output"),
                    s32(np, "npoints"), s32(nc, "nclusters"), s32(nf, "nfeatures")};
        k.init = [](Ctx& c) {
            c.fill_f32("features", 8, 0.0f, 1.0f);
            c.fill_f32("clusters", 9, 0.0f, 1.0f);
            c.fill_i32("membership", 10, -1, -1);
        };
        k.check = [np, nf, nc](Ctx& c) {
            auto fe = c.get<float>("features");
            auto cl = c.get<float>("clusters");
            c.launch_once();
            auto mb = c.get<int>("membership");
            Tally tl;
            Sampler r(2);
            for (int q = 0; q < 50000; ++q) {
                int p = (int)r.below(np);
                double d[8];
                for (int ci = 0; ci < nc; ++ci) {
                    d[ci] = 0;
                    for (int f = 0; f < nf; ++f) {
                        double x = (double)fe[(size_t)f * np + p] - cl[ci * nf + f];
                        d[ci] += x * x;
                    }
                }
                int best = 0;
                for (int ci = 1; ci < nc; ++ci)
                    if (d[ci] < d[best])
                        best = ci;
                int got = mb[p];
                // accept a near tie decided differently in float
                bool ok = got == best ||
                          (got >= 0 && got < nc && std::fabs(d[got] - d[best]) < 1e-4 * d[best]);
                tl.cmp(ok ? 0.0 : 1.0, 0.0, 1.0, 0.0, "membership", p);
            }
            return tl.result();
        };
        k.notes = "4M points, 34 features (the kdd_cup width), 5 clusters";
        s.push_back(k);

        Kernel w;
        w.id = "kmeans_swap";
        w.app = "kmeans";
        w.entry = "_Z11kmeans_swapPKfPfii";
        w.paper_name = "kmeans_swap";
        w.grid[0] = np / 64; w.grid[1] = 1; w.grid[2] = 1;
        w.block[0] = 64; w.block[1] = 1; w.block[2] = 1;
        w.buffers = {{"in", (size_t)np * nf * 4, "f32", "uniform [0, 1), [npoints][nfeatures]"},
                     {"out", (size_t)np * nf * 4, "f32", "output, [nfeatures][npoints]"}};
        w.params = {ptr("in"), ptr("out", "output"), s32(np, "npoints"), s32(nf, "nfeatures")};
        w.init = [](Ctx& c) {
            c.fill_f32("in", 12, 0.0f, 1.0f);
            c.fill_f32("out", 13, -1.0f, -1.0f);
        };
        w.check = [np, nf](Ctx& c) {
            auto in = c.get<float>("in");
            c.launch_once();
            auto out = c.get<float>("out");
            Tally tl;
            Sampler r(3);
            for (int q = 0; q < 200000; ++q) {
                int p = (int)r.below(np), f = (int)r.below(nf);
                tl.cmp(out[(size_t)f * np + p], in[(size_t)p * nf + f], 1.0, 0.0, "out",
                       (size_t)f * np + p);
            }
            return tl.result();
        };
        w.notes = "4M points, 34 features";
        s.push_back(w);
    }

    // ---------------- lud
    {
        const int dim = 1024, batch = 1024, offset = 0;
        const int inst = dim * dim;
        Kernel k;
        k.id = "lud_perimeter";
        k.app = "lud";
        k.entry = "_Z13lud_perimeterPfiii";
        k.paper_name = "lud_perimeter";
        k.grid[0] = (dim - offset) / 16 - 1; k.grid[1] = batch; k.grid[2] = 1;
        k.block[0] = 32; k.block[1] = 1; k.block[2] = 1;
        k.buffers = {{"m", (size_t)inst * batch * 4, "f32",
                      "unit diagonal, off-diagonal uniform [-0.01, 0.01)"}};
        k.params = {ptr("m", "matrices, updated in place"), s32(dim, "matrix order"),
                    s32(offset, "offset of the diagonal tile (outer step 0)"),
                    s32(inst, "elements between batch instances")};
        k.init = [dim, inst](Ctx& c) {
            CUdeviceptr p = c.buf.at("m");
            uint64_t n = c.buf_bytes.at("m") / 4;
            int d = dim, in = inst;
            void* a[] = {&p, &n, &d, &in};
            c.grid_stride(c.sup("sup_lud"), a);
        };
        k.check = [dim, inst, batch](Ctx& c) {
            Tally tl;
            const int which[2] = {0, batch - 1};
            std::vector<float> before[2];
            for (int q = 0; q < 2; ++q)
                before[q] = c.get<float>("m", (size_t)which[q] * inst, inst);
            c.launch_once();
            for (int q = 0; q < 2; ++q) {
                const auto& m = before[q];
                auto out = c.get<float>("m", (size_t)which[q] * inst, inst);
                std::vector<double> w(m.begin(), m.end());
                for (int t = 16; t < dim; t += 16) {
                    for (int col = 0; col < 16; ++col)  // R <- L^-1 R
                        for (int i = 1; i < 16; ++i)
                            for (int j = 0; j < i; ++j)
                                w[(size_t)i * dim + t + col] -=
                                    w[(size_t)i * dim + j] * w[(size_t)j * dim + t + col];
                    for (int row = 0; row < 16; ++row)  // C <- C U^-1
                        for (int i = 0; i < 16; ++i) {
                            for (int j = 0; j < i; ++j)
                                w[(size_t)(t + row) * dim + i] -=
                                    w[(size_t)(t + row) * dim + j] * w[(size_t)j * dim + i];
                            w[(size_t)(t + row) * dim + i] /= w[(size_t)i * dim + i];
                        }
                }
                for (int q = 0; q < inst; ++q)
                    tl.cmp(out[q], w[q], 1e-3, 1e-4, "m", q);
            }
            return tl.result();
        };
        k.notes = "batch of 1024 independent 1024x1024 matrices (grid y), outer step 0";
        s.push_back(k);
    }
    {
        const int dim = 4096, offset = 0;
        Kernel k;
        k.id = "lud_internal";
        k.app = "lud";
        k.entry = "_Z12lud_internalPfii";
        k.paper_name = "lud_internal";
        k.grid[0] = (dim - offset) / 16 - 1; k.grid[1] = (dim - offset) / 16 - 1; k.grid[2] = 1;
        k.block[0] = 16; k.block[1] = 16; k.block[2] = 1;
        k.buffers = {{"m", (size_t)dim * dim * 4, "f32",
                      "unit diagonal, off-diagonal uniform [-0.01, 0.01)"}};
        k.params = {ptr("m", "matrix, updated in place"), s32(dim, "matrix order"),
                    s32(offset, "offset of the diagonal tile (outer step 0)")};
        k.init = [dim](Ctx& c) {
            CUdeviceptr p = c.buf.at("m");
            uint64_t n = c.buf_bytes.at("m") / 4;
            int d = dim, in = dim * dim;
            void* a[] = {&p, &n, &d, &in};
            c.grid_stride(c.sup("sup_lud"), a);
        };
        k.check = [dim](Ctx& c) {
            auto m = c.get<float>("m");
            c.launch_once();
            auto out = c.get<float>("m");
            Tally tl;
            Sampler r(4);
            for (int q = 0; q < 100000; ++q) {
                int i = (int)r.below(dim), j = (int)r.below(dim);
                double want = m[(size_t)i * dim + j];
                if (i >= 16 && j >= 16)
                    for (int k2 = 0; k2 < 16; ++k2)
                        want -= (double)m[(size_t)i * dim + k2] * m[(size_t)k2 * dim + j];
                tl.cmp(out[(size_t)i * dim + j], want, 1e-3, 1e-5, "m", (size_t)i * dim + j);
            }
            return tl.result();
        };
        k.notes = "one 4096x4096 matrix, outer step 0";
        s.push_back(k);
    }

    // ---------------- hotspot 2D
    {
        const int n = 4096, it = 2;
        const float cap = 0.5f, rx = 0.8f, ry = 0.8f, rz = 4.0f, step = 0.002f;
        const int inner = 16 - 2 * it;
        const int nb = (n + inner - 1) / inner;
        Kernel k;
        k.id = "hotspot";
        k.app = "hotspot";
        k.entry = "_Z10hotspot_2diPKfS0_Pfiiiifffff";
        k.paper_name = "hotspot";
        k.grid[0] = nb; k.grid[1] = nb; k.grid[2] = 1;
        k.block[0] = 16; k.block[1] = 16; k.block[2] = 1;
        k.buffers = {{"power", (size_t)n * n * 4, "f32", "uniform [0, 0.5)"},
                     {"temp_src", (size_t)n * n * 4, "f32", "uniform [320, 340)"},
                     {"temp_dst", (size_t)n * n * 4, "f32", "output"}};
        k.params = {s32(it, "time steps per launch (pyramid height)"), ptr("power"),
                    ptr("temp_src"), ptr("temp_dst", "output"), s32(n, "grid columns"),
                    s32(n, "grid rows"), s32(it, "halo columns (= pyramid height)"),
                    s32(it, "halo rows (= pyramid height)"), f32(cap, "Cap"),
                    f32(rx, "Rx"), f32(ry, "Ry"), f32(rz, "Rz"), f32(step, "time step")};
        k.init = [](Ctx& c) {
            c.fill_f32("power", 14, 0.0f, 0.5f);
            c.fill_f32("temp_src", 15, 320.0f, 340.0f);
            c.fill_f32("temp_dst", 16, NAN, NAN);
        };
        k.check = [n, it, cap, rx, ry, rz, step](Ctx& c) {
            auto p = c.get<float>("power");
            auto t0 = c.get<float>("temp_src");
            c.launch_once();
            auto out = c.get<float>("temp_dst");
            auto stepf = [&](const std::function<double(int, int)>& t, int y, int x) {
                auto at = [&](int yy, int xx) {
                    if (yy < 0 || yy >= n || xx < 0 || xx >= n)
                        return t(y, x);
                    return t(yy, xx);
                };
                double tc = t(y, x);
                return tc + (double)step / cap *
                                (p[(size_t)y * n + x] +
                                 (at(y + 1, x) + at(y - 1, x) - 2 * tc) / ry +
                                 (at(y, x + 1) + at(y, x - 1) - 2 * tc) / rx +
                                 (80.0 - tc) / rz);
            };
            auto t0f = [&](int y, int x) { return (double)t0[(size_t)y * n + x]; };
            Tally tl;
            Sampler r(5);
            for (int q = 0; q < 50000; ++q) {
                int y = (int)r.below(n), x = (int)r.below(n);
                double want;
                if (it == 2) {
                    auto t1f = [&](int yy, int xx) { return stepf(t0f, yy, xx); };
                    want = stepf(t1f, y, x);
                } else {
                    want = stepf(t0f, y, x);
                }
                tl.cmp(out[(size_t)y * n + x], want, 1.0, 1e-5, "temp_dst", (size_t)y * n + x);
            }
            return tl.result();
        };
        k.notes = "4096x4096 chip, 2 time steps per launch (pyramid height 2, 12x12 output cells per block)";
        s.push_back(k);
    }

    // ---------------- hotspot 3D
    {
        const int nx = 2048, ny = 2048, nz = 8;
        const float sdc = 0.001f, ce = 0.1f, cw = 0.1f, cn = 0.1f, cs = 0.1f, ct = 0.05f,
                    cb = 0.05f, cc = 0.5f;
        Kernel k;
        k.id = "hotspot3d";
        k.app = "hotspot3d";
        k.entry = "_Z9hotspot3dPKfS0_Pffiiifffffff";
        k.paper_name = "hotspot (Hotspot3D)";
        k.grid[0] = nx / 64; k.grid[1] = ny / 4; k.grid[2] = 1;
        k.block[0] = 64; k.block[1] = 4; k.block[2] = 1;
        size_t cells = (size_t)nx * ny * nz;
        k.buffers = {{"power", cells * 4, "f32", "uniform [0, 0.5)"},
                     {"tin", cells * 4, "f32", "uniform [320, 340)"},
                     {"tout", cells * 4, "f32", "output"}};
        k.params = {ptr("power"), ptr("tin"), ptr("tout", "output"), f32(sdc, "step/Cap"),
                    s32(nx, "nx"), s32(ny, "ny"), s32(nz, "nz (layers)"), f32(ce, "ce"),
                    f32(cw, "cw"), f32(cn, "cn"), f32(cs, "cs"), f32(ct, "ct"),
                    f32(cb, "cb"), f32(cc, "cc")};
        k.init = [](Ctx& c) {
            c.fill_f32("power", 17, 0.0f, 0.5f);
            c.fill_f32("tin", 18, 320.0f, 340.0f);
            c.fill_f32("tout", 19, NAN, NAN);
        };
        k.check = [nx, ny, nz, sdc, ce, cw, cn, cs, ct, cb, cc](Ctx& c) {
            auto p = c.get<float>("power");
            auto t = c.get<float>("tin");
            c.launch_once();
            auto out = c.get<float>("tout");
            Tally tl;
            Sampler r(6);
            for (int q = 0; q < 100000; ++q) {
                int i = (int)r.below(nx), j = (int)r.below(ny), z = (int)r.below(nz);
                auto at = [&](int ii, int jj, int zz) {
                    ii = std::min(std::max(ii, 0), nx - 1);
                    jj = std::min(std::max(jj, 0), ny - 1);
                    zz = std::min(std::max(zz, 0), nz - 1);
                    return (double)t[(size_t)zz * nx * ny + (size_t)jj * nx + ii];
                };
                size_t g = (size_t)z * nx * ny + (size_t)j * nx + i;
                double want = cc * at(i, j, z) + cw * at(i - 1, j, z) + ce * at(i + 1, j, z) +
                              cs * at(i, j + 1, z) + cn * at(i, j - 1, z) +
                              cb * at(i, j, z - 1) + ct * at(i, j, z + 1) +
                              (double)sdc * p[g] + ct * 80.0;
                tl.cmp(out[g], want, 1.0, 1e-5, "tout", g);
            }
            return tl.result();
        };
        k.notes = "2048x2048x8 cells";
        s.push_back(k);
    }

    // ---------------- srad
    {
        const int n = 4096;
        const float q0sqr = 0.05f, lambda = 0.5f;
        size_t bytes = (size_t)n * n * 4;
        Kernel k;
        k.id = "srad1";
        k.app = "srad";
        k.entry = "_Z5srad1PfS_S_S_PKfS_iif";
        k.paper_name = "opt_srad1";
        k.grid[0] = n / 16; k.grid[1] = n / 16; k.grid[2] = 1;
        k.block[0] = 16; k.block[1] = 16; k.block[2] = 1;
        k.buffers = {{"dn", bytes, "f32", "output"}, {"ds", bytes, "f32", "output"},
                     {"dw", bytes, "f32", "output"}, {"de", bytes, "f32", "output"},
                     {"j", bytes, "f32", "uniform [0.5, 1.5)"},
                     {"c", bytes, "f32", "output"}};
        k.params = {ptr("dn", "output"), ptr("ds", "output"), ptr("dw", "output"),
                    ptr("de", "output"), ptr("j", "image"), ptr("c", "output"),
                    s32(n, "columns"), s32(n, "rows"), f32(q0sqr, "q0^2")};
        k.init = [](Ctx& c) {
            for (auto b : {"dn", "ds", "dw", "de", "c"})
                c.fill_f32(b, 20, NAN, NAN);
            c.fill_f32("j", 21, 0.5f, 1.5f);
        };
        k.check = [n, q0sqr](Ctx& c) {
            auto j = c.get<float>("j");
            c.launch_once();
            auto dn = c.get<float>("dn");
            auto de = c.get<float>("de");
            auto cc = c.get<float>("c");
            Tally tl;
            Sampler r(7);
            for (int q = 0; q < 100000; ++q) {
                int y = (int)r.below(n), x = (int)r.below(n);
                auto at = [&](int yy, int xx) {
                    yy = std::min(std::max(yy, 0), n - 1);
                    xx = std::min(std::max(xx, 0), n - 1);
                    return (double)j[(size_t)yy * n + xx];
                };
                double jc = at(y, x), dN = at(y - 1, x) - jc, dS = at(y + 1, x) - jc,
                       dW = at(y, x - 1) - jc, dE = at(y, x + 1) - jc;
                double g2 = (dN * dN + dS * dS + dW * dW + dE * dE) / (jc * jc);
                double l = (dN + dS + dW + dE) / jc;
                double num = 0.5 * g2 - l * l / 16.0;
                double den = 1 + 0.25 * l;
                double qs = num / (den * den);
                den = (qs - q0sqr) / (q0sqr * (1 + q0sqr));
                double co = std::min(std::max(1.0 / (1.0 + den), 0.0), 1.0);
                size_t g = (size_t)y * n + x;
                tl.cmp(dn[g], dN, 1.0, 1e-5, "dn", g);
                tl.cmp(de[g], dE, 1.0, 1e-5, "de", g);
                tl.cmp(cc[g], co, 1.0, 1e-4, "c", g);
            }
            return tl.result();
        };
        k.notes = "4096x4096 image";
        s.push_back(k);

        Kernel w;
        w.id = "srad2";
        w.app = "srad";
        w.entry = "_Z5srad2PKfS0_S0_S0_PfS0_iif";
        w.paper_name = "opt_srad2";
        w.grid[0] = n / 16; w.grid[1] = n / 16; w.grid[2] = 1;
        w.block[0] = 16; w.block[1] = 16; w.block[2] = 1;
        w.buffers = {{"dn", bytes, "f32", "uniform [-0.1, 0.1)"},
                     {"ds", bytes, "f32", "uniform [-0.1, 0.1)"},
                     {"dw", bytes, "f32", "uniform [-0.1, 0.1)"},
                     {"de", bytes, "f32", "uniform [-0.1, 0.1)"},
                     {"j", bytes, "f32", "uniform [0.5, 1.5)"},
                     {"c", bytes, "f32", "uniform [0, 1)"}};
        w.params = {ptr("dn"), ptr("ds"), ptr("dw"), ptr("de"),
                    ptr("j", "image, updated in place"), ptr("c"), s32(n, "columns"),
                    s32(n, "rows"), f32(lambda, "lambda")};
        w.init = [](Ctx& c) {
            c.fill_f32("dn", 22, -0.1f, 0.1f);
            c.fill_f32("ds", 23, -0.1f, 0.1f);
            c.fill_f32("dw", 24, -0.1f, 0.1f);
            c.fill_f32("de", 25, -0.1f, 0.1f);
            c.fill_f32("j", 26, 0.5f, 1.5f);
            c.fill_f32("c", 27, 0.0f, 1.0f);
        };
        w.check = [n, lambda](Ctx& c) {
            auto dn = c.get<float>("dn");
            auto ds = c.get<float>("ds");
            auto dw = c.get<float>("dw");
            auto de = c.get<float>("de");
            auto j = c.get<float>("j");
            auto cc = c.get<float>("c");
            c.launch_once();
            auto j2 = c.get<float>("j");
            Tally tl;
            Sampler r(8);
            for (int q = 0; q < 100000; ++q) {
                int y = (int)r.below(n), x = (int)r.below(n);
                size_t g = (size_t)y * n + x;
                double cN = cc[g], cS = cc[(size_t)std::min(y + 1, n - 1) * n + x],
                       cE = cc[(size_t)y * n + std::min(x + 1, n - 1)];
                double d = cN * dn[g] + cS * ds[g] + cN * dw[g] + cE * de[g];
                tl.cmp(j2[g], j[g] + 0.25 * lambda * d, 1.0, 1e-6, "j", g);
            }
            return tl.result();
        };
        w.notes = "4096x4096 image";
        s.push_back(w);
    }

    // ---------------- backprop
    {
        const int hid = 16, blocks = 65535, in = 16 * blocks;
        size_t wbytes = (size_t)(in + 1) * (hid + 1) * 4;
        Kernel k;
        k.id = "bpnn_layerforward";
        k.app = "backprop";
        k.entry = "_Z17bpnn_layerforwardPKfPfS1_ii";
        k.paper_name = "bpnn_layerforward_ocl";
        k.grid[0] = 1; k.grid[1] = blocks; k.grid[2] = 1;
        k.block[0] = 16; k.block[1] = 16; k.block[2] = 1;
        k.buffers = {{"input", (size_t)(in + 1) * 4, "f32", "uniform [0, 1)"},
                     {"weights", wbytes, "f32", "uniform [-0.5, 0.5), (in+1) x (hid+1)"},
                     {"partial", (size_t)blocks * hid * 4, "f32", "output"}};
        k.params = {ptr("input", "input layer activations"),
                    ptr("weights", "weights, overwritten with the products"),
                    ptr("partial", "output: per-block partial sums"),
                    s32(in, "input units"), s32(hid, "hidden units")};
        k.init = [](Ctx& c) {
            c.fill_f32("input", 28, 0.0f, 1.0f);
            c.fill_f32("weights", 29, -0.5f, 0.5f);
            c.fill_f32("partial", 30, NAN, NAN);
        };
        k.check = [hid, blocks](Ctx& c) {
            auto x = c.get<float>("input");
            auto w = c.get<float>("weights");
            c.launch_once();
            auto ps = c.get<float>("partial");
            auto w2 = c.get<float>("weights");
            Tally tl;
            Sampler r(9);
            int st = hid + 1;
            for (int q = 0; q < 20000; ++q) {
                int by = (int)r.below(blocks), h = (int)r.below(hid);
                double sum = 0;
                for (int ty = 0; ty < 16; ++ty) {
                    size_t idx = (size_t)st * 16 * by + (size_t)st * ty + h + 1 + st;
                    sum += (double)w[idx] * x[16 * by + ty + 1];
                }
                tl.cmp(ps[(size_t)by * hid + h], sum, 1.0, 1e-5, "partial", (size_t)by * hid + h);
                // row ty = 15 of the tile keeps its own product
                size_t idx = (size_t)st * 16 * by + (size_t)st * 15 + h + 1 + st;
                tl.cmp(w2[idx], (double)w[idx] * x[16 * by + 15 + 1], 1.0, 1e-6, "weights", idx);
            }
            return tl.result();
        };
        k.notes = "1048560 input units (65535 blocks, the grid-y limit), 16 hidden units";
        s.push_back(k);

        Kernel a;
        a.id = "bpnn_adjust_weights";
        a.app = "backprop";
        a.entry = "_Z19bpnn_adjust_weightsPKfiS0_iPfS1_";
        a.paper_name = "bpnn_adjust_weights_ocl";
        a.grid[0] = 1; a.grid[1] = blocks; a.grid[2] = 1;
        a.block[0] = 16; a.block[1] = 16; a.block[2] = 1;
        a.buffers = {{"delta", (size_t)(hid + 1) * 4, "f32", "uniform [-0.1, 0.1)"},
                     {"ly", (size_t)(in + 1) * 4, "f32", "uniform [0, 1)"},
                     {"w", wbytes, "f32", "uniform [-0.5, 0.5)"},
                     {"oldw", wbytes, "f32", "uniform [-0.05, 0.05)"}};
        a.params = {ptr("delta", "hidden-layer error terms"), s32(hid, "hidden units"),
                    ptr("ly", "input layer activations"), s32(in, "input units"),
                    ptr("w", "weights, updated in place"),
                    ptr("oldw", "previous weight change, updated in place")};
        a.init = [](Ctx& c) {
            c.fill_f32("delta", 31, -0.1f, 0.1f);
            c.fill_f32("ly", 32, 0.0f, 1.0f);
            c.fill_f32("w", 33, -0.5f, 0.5f);
            c.fill_f32("oldw", 34, -0.05f, 0.05f);
        };
        a.check = [hid, in](Ctx& c) {
            auto dl = c.get<float>("delta");
            auto ly = c.get<float>("ly");
            auto w = c.get<float>("w");
            auto ow = c.get<float>("oldw");
            c.launch_once();
            auto w2 = c.get<float>("w");
            auto ow2 = c.get<float>("oldw");
            Tally tl;
            Sampler r(10);
            int st = hid + 1;
            for (int q = 0; q < 100000; ++q) {
                int i = 1 + (int)r.below(in), h = 1 + (int)r.below(hid);
                size_t idx = (size_t)i * st + h;
                double dw = 0.3 * dl[h] * ly[i] + 0.3 * ow[idx];
                tl.cmp(w2[idx], w[idx] + dw, 1.0, 1e-6, "w", idx);
                tl.cmp(ow2[idx], dw, 1.0, 1e-6, "oldw", idx);
            }
            for (int h = 1; h <= hid; ++h) {
                double db = 0.3 * dl[h] + 0.3 * ow[h];
                tl.cmp(w2[h], w[h] + db, 1.0, 1e-6, "w(bias)", h);
            }
            return tl.result();
        };
        a.notes = "1048560 input units, 16 hidden units";
        s.push_back(a);
    }

    // ---------------- cfd
    {
        const int nelr = 192 * 21120;
        size_t v5 = (size_t)nelr * 5 * 4, v1 = (size_t)nelr * 4;
        Kernel k;
        k.id = "cfd_step_factor";
        k.app = "cfd";
        k.entry = "_Z15cfd_step_factoriPKfS0_Pf";
        k.paper_name = "compute_step_factor";
        k.grid[0] = nelr / 192; k.grid[1] = 1; k.grid[2] = 1;
        k.block[0] = 192; k.block[1] = 1; k.block[2] = 1;
        k.buffers = {{"vars", v5, "f32", "perturbed free stream, [5][nelr]"},
                     {"areas", v1, "f32", "uniform [0.5, 1.5)"},
                     {"step_factors", v1, "f32", "output"}};
        k.params = {s32(nelr, "elements"), ptr("vars"), ptr("areas"),
                    ptr("step_factors", "output")};
        k.init = [nelr](Ctx& c) {
            CUdeviceptr p = c.buf.at("vars");
            int n = nelr;
            uint32_t seed = 40;
            void* a[] = {&p, &n, &seed};
            c.grid_stride(c.sup("sup_cfd_vars"), a);
            c.fill_f32("areas", 41, 0.5f, 1.5f);
            c.fill_f32("step_factors", 42, NAN, NAN);
        };
        k.check = [nelr](Ctx& c) {
            auto v = c.get<float>("vars");
            auto ar = c.get<float>("areas");
            c.launch_once();
            auto sf = c.get<float>("step_factors");
            Tally tl;
            Sampler r(11);
            for (int q = 0; q < 100000; ++q) {
                int i = (int)r.below(nelr);
                double rho = v[i], mx = v[i + (size_t)nelr], my = v[i + 2 * (size_t)nelr],
                       mz = v[i + 3 * (size_t)nelr], e = v[i + 4 * (size_t)nelr];
                double ss = (mx * mx + my * my + mz * mz) / (rho * rho);
                double pr = 0.4 * (e - 0.5 * rho * ss);
                double snd = std::sqrt(1.4 * pr / rho);
                tl.cmp(sf[i], 0.5 / (std::sqrt((double)ar[i]) * (std::sqrt(ss) + snd)), 0.0,
                       1e-5, "step_factors", i);
            }
            return tl.result();
        };
        k.notes = "synthetic mesh of 4055040 elements";
        s.push_back(k);

        Kernel t;
        t.id = "cfd_time_step";
        t.app = "cfd";
        t.entry = "_Z13cfd_time_stepiiPKfPfS0_S0_";
        t.paper_name = "time_step";
        t.grid[0] = nelr / 192; t.grid[1] = 1; t.grid[2] = 1;
        t.block[0] = 192; t.block[1] = 1; t.block[2] = 1;
        t.buffers = {{"old_vars", v5, "f32", "uniform [0.5, 1.5)"},
                     {"vars", v5, "f32", "output"},
                     {"step_factors", v1, "f32", "uniform [0, 0.01)"},
                     {"fluxes", v5, "f32", "uniform [-1, 1)"}};
        t.params = {s32(1, "Runge-Kutta stage j"), s32(nelr, "elements"), ptr("old_vars"),
                    ptr("vars", "output"), ptr("step_factors"), ptr("fluxes")};
        t.init = [](Ctx& c) {
            c.fill_f32("old_vars", 43, 0.5f, 1.5f);
            c.fill_f32("vars", 44, NAN, NAN);
            c.fill_f32("step_factors", 45, 0.0f, 0.01f);
            c.fill_f32("fluxes", 46, -1.0f, 1.0f);
        };
        t.check = [nelr](Ctx& c) {
            auto ov = c.get<float>("old_vars");
            auto sf = c.get<float>("step_factors");
            auto fl = c.get<float>("fluxes");
            c.launch_once();
            auto v = c.get<float>("vars");
            Tally tl;
            Sampler r(12);
            for (int q = 0; q < 100000; ++q) {
                size_t i = r.below((size_t)nelr * 5);
                double want = ov[i] + sf[i % nelr] / 3.0 * fl[i];
                tl.cmp(v[i], want, 1.0, 1e-6, "vars", i);
            }
            return tl.result();
        };
        t.notes = "synthetic mesh of 4055040 elements, RK stage j = 1";
        s.push_back(t);

        Kernel f;
        f.id = "cfd_compute_flux";
        f.app = "cfd";
        f.entry = "_Z16cfd_compute_fluxiPKiPKfS2_Pf";
        f.paper_name = "compute_flux";
        f.grid[0] = nelr / 192; f.grid[1] = 1; f.grid[2] = 1;
        f.block[0] = 192; f.block[1] = 1; f.block[2] = 1;
        f.buffers = {{"neighbors", (size_t)nelr * 4 * 4, "s32",
                      "synthetic mesh: i-/+1, i-/+64, 1/4 replaced by random within +-4096; ~1% wall (-1), ~1% far field (-2)"},
                     {"normals", (size_t)nelr * 12 * 4, "f32", "uniform [-1, 1)"},
                     {"vars", v5, "f32", "perturbed free stream, [5][nelr]"},
                     {"fluxes", v5, "f32", "output"}};
        f.params = {s32(nelr, "elements"), ptr("neighbors"), ptr("normals"), ptr("vars"),
                    ptr("fluxes", "output")};
        f.init = [nelr](Ctx& c) {
            CUdeviceptr p = c.buf.at("vars");
            int n = nelr;
            uint32_t seed = 50;
            void* a[] = {&p, &n, &seed};
            c.grid_stride(c.sup("sup_cfd_vars"), a);
            CUdeviceptr q = c.buf.at("neighbors");
            void* b[] = {&q, &n};
            c.grid_stride(c.sup("sup_cfd_neighbors"), b);
            c.fill_f32("normals", 51, -1.0f, 1.0f);
            c.fill_f32("fluxes", 52, NAN, NAN);
            // free stream at Mach 0.5, angle of attack 0
            float ff[17];
            const double rho = 1.0, pr = 1.0 / 1.4, ux = 0.5, e = pr / 0.4 + 0.5 * rho * ux * ux;
            const double mom[3] = {rho * ux, 0, 0}, vel[3] = {ux, 0, 0};
            ff[0] = (float)rho;
            for (int d = 0; d < 3; ++d)
                ff[1 + d] = (float)mom[d];
            ff[4] = (float)e;
            for (int a2 = 0; a2 < 3; ++a2)
                for (int d = 0; d < 3; ++d)
                    ff[5 + 3 * a2 + d] = (float)(vel[d] * mom[a2] + (a2 == d ? pr : 0.0));
            for (int d = 0; d < 3; ++d)
                ff[14 + d] = (float)(vel[d] * (e + pr));
            CUdeviceptr g;
            size_t gb;
            CK(cuModuleGetGlobal(&g, &gb, c.modules.at("cfd"), "cfd_ff"));
            CK(cuMemcpyHtoD(g, ff, sizeof ff));
        };
        f.check = [nelr](Ctx& c) {
            auto nb = c.get<int>("neighbors");
            auto nm = c.get<float>("normals");
            auto v = c.get<float>("vars");
            float ff[17];
            CUdeviceptr g;
            size_t gb;
            CK(cuModuleGetGlobal(&g, &gb, c.modules.at("cfd"), "cfd_ff"));
            CK(cuMemcpyDtoH(ff, g, sizeof ff));
            c.launch_once();
            auto fl = c.get<float>("fluxes");
            size_t N = nelr;
            struct St {
                double rho, m[3], e, u[3], ss, p, c, f[4][3];
            };
            auto state = [&](size_t i) {
                St s{};
                s.rho = v[i];
                for (int d = 0; d < 3; ++d)
                    s.m[d] = v[i + (1 + d) * N];
                s.e = v[i + 4 * N];
                for (int d = 0; d < 3; ++d)
                    s.u[d] = s.m[d] / s.rho;
                s.ss = s.u[0] * s.u[0] + s.u[1] * s.u[1] + s.u[2] * s.u[2];
                s.p = 0.4 * (s.e - 0.5 * s.rho * s.ss);
                s.c = std::sqrt(1.4 * s.p / s.rho);
                for (int a2 = 0; a2 < 3; ++a2)
                    for (int d = 0; d < 3; ++d)
                        s.f[a2][d] = s.u[d] * s.m[a2] + (a2 == d ? s.p : 0.0);
                for (int d = 0; d < 3; ++d)
                    s.f[3][d] = s.u[d] * (s.e + s.p);
                return s;
            };
            Tally tl;
            Sampler r(13);
            int kinds[3] = {0, 0, 0};
            for (int q = 0; q < 50000; ++q) {
                size_t i = r.below(N);
                St a = state(i);
                double fd = 0, fm[3] = {0, 0, 0}, fe = 0, mag = 0;
                for (int face = 0; face < 4; ++face) {
                    int j = nb[i + face * N];
                    double n[3];
                    for (int d = 0; d < 3; ++d)
                        n[d] = nm[i + (face + 4 * d) * N];
                    double nl = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                    if (j >= 0) {
                        ++kinds[0];
                        St b = state(j);
                        double fac = -nl * 0.2 * 0.5 * (std::sqrt(a.ss) + std::sqrt(b.ss) + a.c + b.c);
                        fd += fac * (a.rho - b.rho);
                        fe += fac * (a.e - b.e);
                        for (int d = 0; d < 3; ++d)
                            fm[d] += fac * (a.m[d] - b.m[d]);
                        for (int d = 0; d < 3; ++d) {
                            double h = 0.5 * n[d];
                            fd += h * (b.m[d] + a.m[d]);
                            fe += h * (b.f[3][d] + a.f[3][d]);
                            for (int a2 = 0; a2 < 3; ++a2)
                                fm[a2] += h * (b.f[a2][d] + a.f[a2][d]);
                        }
                    } else if (j == -1) {
                        ++kinds[1];
                        for (int d = 0; d < 3; ++d)
                            fm[d] += n[d] * a.p;
                    } else if (j == -2) {
                        ++kinds[2];
                        for (int d = 0; d < 3; ++d) {
                            double h = 0.5 * n[d];
                            fd += h * (ff[1 + d] + a.m[d]);
                            fe += h * (ff[14 + d] + a.f[3][d]);
                            for (int a2 = 0; a2 < 3; ++a2)
                                fm[a2] += h * (ff[5 + 3 * a2 + d] + a.f[a2][d]);
                        }
                    }
                    mag += nl * 4.0;
                }
                tl.cmp(fl[i], fd, mag, 1e-5, "flux_density", i);
                tl.cmp(fl[i + N], fm[0], mag, 1e-5, "flux_momentum_x", i);
                tl.cmp(fl[i + 2 * N], fm[1], mag, 1e-5, "flux_momentum_y", i);
                tl.cmp(fl[i + 3 * N], fm[2], mag, 1e-5, "flux_momentum_z", i);
                tl.cmp(fl[i + 4 * N], fe, mag, 1e-5, "flux_energy", i);
            }
            std::fprintf(stderr, "  cfd_compute_flux faces sampled: interior %d wall %d far-field %d\n",
                         kinds[0], kinds[1], kinds[2]);
            return tl.result();
        };
        f.notes = "synthetic mesh of 4055040 elements with locality-ordered neighbours";
        s.push_back(f);
    }
    return s;
}

// ---------------------------------------------------------------- sweep

struct Point {
    int blocks_per_sm;
    unsigned dyn;
};

struct Info {
    int regs, static_smem, local_bytes, max_threads, max_dyn;
    int max_blocks;
    std::vector<Point> points;
};

int occupancy(CUfunction f, int threads, unsigned dyn)
{
    int n = 0;
    CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, threads, dyn));
    return n;
}

Info prepare(Ctx& c)
{
    Info in{};
    CUfunction f = c.f;
    CK(cuFuncGetAttribute(&in.regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    CK(cuFuncGetAttribute(&in.static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    CK(cuFuncGetAttribute(&in.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f));
    CK(cuFuncGetAttribute(&in.max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    CUdevice dev;
    CK(cuCtxGetDevice(&dev));
    int optin = 0;
    CK(cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev));
    in.max_dyn = optin - in.static_smem;
    CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, in.max_dyn));
    CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 100));
    int threads = c.k->block[0] * c.k->block[1] * c.k->block[2];
    in.max_blocks = occupancy(f, threads, 0);
    for (int b = 1; b <= in.max_blocks; ++b) {
        unsigned dyn = 0;
        if (b < in.max_blocks) {
            // smallest padding that admits at most b blocks
            unsigned lo = 0, hi = (unsigned)in.max_dyn;
            if (occupancy(f, threads, hi) > b) {
                std::fprintf(stderr, "%s: cannot limit to %d blocks/SM\n", c.k->id.c_str(), b);
                std::exit(3);
            }
            while (lo < hi) {
                unsigned mid = lo + (hi - lo) / 2;
                if (occupancy(f, threads, mid) <= b)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            dyn = lo;
        }
        int got = occupancy(f, threads, dyn);
        if (got != b) {
            std::fprintf(stderr, "%s: padding %u gives %d blocks/SM, wanted %d\n",
                         c.k->id.c_str(), dyn, got, b);
            std::exit(3);
        }
        in.points.push_back({b, dyn});
    }
    return in;
}

void load_modules(Ctx& c, const std::string& dir, const std::vector<Kernel>& suite)
{
    CK(cuModuleLoad(&c.support, (dir + "/support.cubin").c_str()));
    for (const Kernel& k : suite)
        if (!c.modules.count(k.app)) {
            CUmodule m;
            CK(cuModuleLoad(&m, (dir + "/" + k.app + ".cubin").c_str()));
            c.modules[k.app] = m;
        }
}

void alloc_and_init(Ctx& c, const Kernel& k)
{
    c.k = &k;
    CK(cuModuleGetFunction(&c.f, c.modules.at(k.app), k.entry.c_str()));
    for (const BufferSpec& b : k.buffers) {
        CUdeviceptr p;
        CK(cuMemAlloc(&p, b.bytes));
        c.buf[b.name] = p;
        c.buf_bytes[b.name] = b.bytes;
    }
    k.init(c);
    CK(cuCtxSynchronize());
    build_params(c);
}

void release(Ctx& c)
{
    for (auto& kv : c.buf)
        CK(cuMemFree(kv.second));
    c.buf.clear();
    c.buf_bytes.clear();
}

std::string toml_str(const std::string& s)
{
    std::string o = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\')
            o += '\\';
        o += ch;
    }
    return o + "\"";
}

void write_manifest_entry(FILE* t, const Kernel& k, const Info& in)
{
    int threads = k.block[0] * k.block[1] * k.block[2];
    int warps = (threads + 31) / 32;
    std::fprintf(t, "\n[[kernel]]\n");
    std::fprintf(t, "id = %s\n", toml_str(k.id).c_str());
    std::fprintf(t, "app = %s\n", toml_str(k.app).c_str());
    std::fprintf(t, "paper_name = %s\n", toml_str(k.paper_name).c_str());
    std::fprintf(t, "ptx = %s\n", toml_str(k.app + ".ptx").c_str());
    std::fprintf(t, "entry = %s\n", toml_str(k.entry).c_str());
    std::fprintf(t, "source = %s\n", toml_str("cuda/" + k.app + ".cu").c_str());
    std::fprintf(t, "grid = [%u, %u, %u]\n", k.grid[0], k.grid[1], k.grid[2]);
    std::fprintf(t, "block = [%u, %u, %u]\n", k.block[0], k.block[1], k.block[2]);
    std::fprintf(t, "grid_blocks = %llu\n",
                 (unsigned long long)k.grid[0] * k.grid[1] * k.grid[2]);
    std::fprintf(t, "threads_per_block = %d\n", threads);
    std::fprintf(t, "warps_per_block = %d\n", warps);
    std::fprintf(t, "registers_per_thread = %d\n", in.regs);
    std::fprintf(t, "static_smem_bytes = %d\n", in.static_smem);
    std::fprintf(t, "local_bytes_per_thread = %d\n", in.local_bytes);
    std::fprintf(t, "max_blocks_per_sm = %d\n", in.max_blocks);
    std::fprintf(t, "timings = \"data/timings.csv\"\n");
    std::fprintf(t, "ncu = %s\n", toml_str("data/ncu/" + k.id + ".csv").c_str());
    std::fprintf(t, "notes = %s\n", toml_str(k.notes).c_str());
    for (size_t i = 0; i < k.params.size(); ++i) {
        const Param& p = k.params[i];
        std::fprintf(t, "\n[[kernel.param]]\nindex = %zu\nname = %s\n", i,
                     toml_str(k.entry + "_param_" + std::to_string(i)).c_str());
        switch (p.type) {
        case PType::Ptr: {
            const BufferSpec* b = nullptr;
            for (const auto& bs : k.buffers)
                if (bs.name == p.buffer)
                    b = &bs;
            std::fprintf(t, "type = \"ptr\"\nbuffer = %s\nbytes = %zu\nelem = %s\ncontents = %s\n",
                         toml_str(p.buffer).c_str(), b ? b->bytes : 0,
                         toml_str(b ? b->elem : "").c_str(),
                         toml_str(b ? b->init : "").c_str());
            break;
        }
        case PType::S32:
            std::fprintf(t, "type = \"s32\"\nvalue = %d\n", p.s32);
            break;
        case PType::F32:
            std::fprintf(t, "type = \"f32\"\nvalue = %.9g\n", (double)p.f32);
            break;
        }
        if (!p.note.empty())
            std::fprintf(t, "meaning = %s\n", toml_str(p.note).c_str());
    }
    for (size_t i = 0; i < in.points.size(); ++i) {
        const Point& pt = in.points[i];
        std::fprintf(t,
                     "\n[[kernel.point]]\nblocks_per_sm = %d\noccupancy_warps = %d\n"
                     "dyn_smem_bytes = %u\nncu_launch = %zu\n",
                     pt.blocks_per_sm, pt.blocks_per_sm * warps, pt.dyn, i);
    }
}

enum class Mode { Time, Repeat, Samples };

int cmd_time(const std::string& dir, const std::string& out,
             const std::vector<std::string>& only, Mode mode)
{
    const bool repeat = mode == Mode::Repeat;
    const bool sampling = mode == Mode::Samples;
    std::vector<Kernel> suite = make_suite();
    Ctx c;
    load_modules(c, dir, suite);

    CUdevice dev;
    CK(cuCtxGetDevice(&dev));
    char name[256];
    CK(cuDeviceGetName(name, sizeof name, dev));
    int sms = 0, l2 = 0, smem_sm = 0, optin = 0, reserved = 0;
    CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CK(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev));
    CK(cuDeviceGetAttribute(&smem_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, dev));
    CK(cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev));
    CK(cuDeviceGetAttribute(&reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, dev));
    int drv = 0;
    CK(cuDriverGetVersion(&drv));

    // flush buffer: 2x L2
    size_t flush_bytes = (size_t)l2 * 2;
    CUdeviceptr flush, sink;
    CK(cuMemAlloc(&flush, flush_bytes));
    CK(cuMemAlloc(&sink, 4));
    CK(cuMemsetD32(flush, 0, flush_bytes / 4));
    CUfunction flush_fn;
    CK(cuModuleGetFunction(&flush_fn, c.support, "sup_flush"));
    uint64_t flush_n = flush_bytes / 16;
    void* flush_args[] = {&flush, &flush_n, &sink};
    auto do_flush = [&]() {
        CK(cuLaunchKernel(flush_fn, sms * 8, 1, 1, 256, 1, 1, 0, nullptr, flush_args, nullptr));
    };

    // a repeat run only adds timings; its manifest would duplicate the first. A samples run
    // only writes data/samples.csv (its checks go to stderr)
    const std::string tname = repeat ? "/data/timings_repeat.csv" : "/data/timings.csv";
    const std::string cname = repeat ? "/data/checks_repeat.csv" : "/data/checks.csv";
    const std::string mpath = repeat ? std::string("/dev/null") : out + "/suite.toml";
    const std::string null = "/dev/null";
    FILE* tcsv = std::fopen(sampling ? null.c_str() : (out + tname).c_str(), "w");
    FILE* pcsv = std::fopen(sampling ? null.c_str() : (out + cname).c_str(), "w");
    FILE* toml = std::fopen(sampling ? null.c_str() : mpath.c_str(), "w");
    FILE* scsv = repeat ? std::fopen(null.c_str(), "w")
                        : std::fopen((out + "/data/samples.csv").c_str(), "w");
    if (!tcsv || !pcsv || !toml || !scsv) {
        std::fprintf(stderr, "cannot write to %s\n", out.c_str());
        return 2;
    }
    std::fprintf(tcsv, "kernel,blocks_per_sm,occupancy_warps,dyn_smem_bytes,grid_blocks,"
                       "median_us,min_us,max_us,runs\n");
    std::fprintf(pcsv, "kernel,check\n");
    std::fputs(samples::kHeader, scsv);
    std::fprintf(toml,
                 "# Rodinia occupancy suite manifest, written by host/bench.cpp (bench time).\n"
                 "# Schema: docs/rodinia-suite.md. Paths are relative to this file.\n"
                 "schema_version = 1\n"
                 "device = %s\nsm_count = %d\nl2_bytes = %d\nsmem_per_sm_bytes = %d\n"
                 "smem_per_block_optin_bytes = %d\nsmem_reserved_per_block_bytes = %d\n"
                 "cuda_driver_version = %d\nsmem_carveout_percent = 100\n"
                 "l2_flush_before_each_timed_launch = true\n"
                 "warmup_launches = %d\ntimed_launches = %d\n"
                 "timings = \"data/timings.csv\"\nenv = \"data/env.txt\"\n"
                 "samples = \"data/samples.csv\"\n",
                 toml_str(name).c_str(), sms, l2, smem_sm, optin, reserved, drv, kWarmup,
                 kRuns);

    CUevent e0, e1;
    CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
    CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
    int failures = 0;
    for (const Kernel& k : suite) {
        if (!only.empty() && std::find(only.begin(), only.end(), k.id) == only.end())
            continue;
        alloc_and_init(c, k);
        Info in = prepare(c);
        std::string bad = k.check(c);
        std::fprintf(pcsv, "%s,%s\n", k.id.c_str(), bad.empty() ? "ok" : ("FAIL " + bad).c_str());
        std::fprintf(stderr, "%-20s regs %3d smem %5d maxB %2d check %s\n", k.id.c_str(),
                     in.regs, in.static_smem, in.max_blocks, bad.empty() ? "ok" : bad.c_str());
        if (!bad.empty())
            ++failures;
        int threads = k.block[0] * k.block[1] * k.block[2];
        int warps = (threads + 31) / 32;
        unsigned long long blocks = (unsigned long long)k.grid[0] * k.grid[1] * k.grid[2];
        const bool dependent = samples::grid_dependent(k.app + ".ptx", k.entry);
        for (const Point& pt : in.points) {
            if (!sampling) {
                samples::Stats st = samples::time_launches(
                    do_flush, [&]() { launch(c, pt.dyn); }, e0, e1, kWarmup, kRuns, check_cu);
                std::fprintf(tcsv, "%s,%d,%d,%u,%llu,%.3f,%.3f,%.3f,%d\n", k.id.c_str(),
                             pt.blocks_per_sm, pt.blocks_per_sm * warps, pt.dyn, blocks,
                             1000.0 * st.median_ms, 1000.0 * st.min_ms, 1000.0 * st.max_ms,
                             st.runs);
                std::fprintf(stderr, "  b=%2d dyn=%6u median %10.2f us\n", pt.blocks_per_sm,
                             pt.dyn, 1000.0 * st.median_ms);
            }
            if (!repeat)
                samples::time_point(
                    scsv, k.id, pt.blocks_per_sm, sms, k.grid, dependent, do_flush,
                    [&](const unsigned* g) { launch(c, pt.dyn, g); }, e0, e1, kWarmup, kRuns,
                    check_cu);
        }
        std::fflush(tcsv);
        std::fflush(scsv);
        write_manifest_entry(toml, k, in);
        release(c);
    }
    std::fclose(tcsv);
    std::fclose(pcsv);
    std::fclose(toml);
    std::fclose(scsv);
    return failures ? 1 : 0;
}

int cmd_profile(const std::string& dir, const std::string& id)
{
    std::vector<Kernel> suite = make_suite();
    Ctx c;
    load_modules(c, dir, suite);
    for (const Kernel& k : suite) {
        if (k.id != id)
            continue;
        alloc_and_init(c, k);
        Info in = prepare(c);
        for (const Point& pt : in.points) {
            launch(c, pt.dyn);
            CK(cuCtxSynchronize());
        }
        std::fprintf(stderr, "%s: %zu launches\n", k.id.c_str(), in.points.size());
        release(c);
        return 0;
    }
    std::fprintf(stderr, "unknown kernel %s\n", id.c_str());
    return 2;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc >= 2 && std::string(argv[1]) == "list") {
        for (const Kernel& k : make_suite())
            std::printf("%s %s\n", k.id.c_str(), k.entry.c_str());
        return 0;
    }
    if (argc < 4) {
        std::fprintf(stderr,
                     "usage: bench time|repeat|samples <cubin_dir> <suite_dir> [kernel_id...]\n"
                     "       bench profile <cubin_dir> <kernel_id>\n"
                     "       bench list\n");
        return 2;
    }
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    std::string mode = argv[1];
    if (mode == "time" || mode == "repeat" || mode == "samples")
        return cmd_time(argv[2], argv[3], std::vector<std::string>(argv + 4, argv + argc),
                        mode == "repeat" ? Mode::Repeat
                                         : mode == "samples" ? Mode::Samples : Mode::Time);
    if (mode == "profile")
        return cmd_profile(argv[2], argv[3]);
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
}
