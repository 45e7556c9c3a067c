// Measurement driver of the held-out occupancy suite (the same method and
// manifest as ptx_samples/rodinia; docs/rodinia-suite.md).
//
// Loads the suite kernels from cubins assembled from the committed PTX (so
// the timed machine code is exactly the PTX in ptx_samples/heldout), builds
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
//       time writes it too). ../../common/samples.h says how a grid is truncated
//   bench profile <cubin_dir> <kernel_id> [kernel_id...]
//       one launch per occupancy point, ascending blocks_per_sm, no flush
//       and no check launch (for ncu, which flushes caches itself); several
//       ids run one after the other in the order given, so one ncu process
//       can profile a batch of kernels (bench/corpus_suite splits its CSV)
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
#include <memory>
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

#ifndef SUITE_TITLE
#define SUITE_TITLE "Held-out occupancy suite"
#endif

constexpr int kWarmup = 2;
constexpr int kRuns = 9;

// ---------------------------------------------------------------- params

enum class PType { Ptr, S32, F32, U64, S64 };

struct Param {
    PType type;
    std::string buffer;  // PTR: buffer name
    int32_t s32 = 0;
    float f32 = 0.0f;
    std::string note;  // meaning, for the manifest
    int64_t i64 = 0;   // U64 / S64 (numba passes array sizes and strides so)
};

Param ptr(const std::string& b, const std::string& note = "")
{
    return Param{PType::Ptr, b, 0, 0.0f, note};
}
Param s32(int32_t v, const std::string& note)
{
    return Param{PType::S32, "", v, 0.0f, note};
}
Param u64(uint64_t v, const std::string& note)
{
    Param p{PType::U64, "", 0, 0.0f, note};
    p.i64 = (int64_t)v;
    return p;
}
Param s64(int64_t v, const std::string& note)
{
    Param p{PType::S64, "", 0, 0.0f, note};
    p.i64 = v;
    return p;
}
Param f32(float v, const std::string& note)
{
    return Param{PType::F32, "", 0, v, note};
}

struct BufferSpec {
    std::string name;
    size_t bytes;
    std::string elem;  // "f32", "s32", "f64", "u32", "u8", ...
    std::string init;  // description of the synthetic contents
};

struct Ctx;

struct Kernel {
    std::string id;
    std::string app;          // family, e.g. "shoc", "parboil", "lonestar", "triton"
    std::string family;       // optional manifest key `family` (folds by kernel family)
    std::string entry;
    std::string paper_name;   // the published benchmark and kernel it re-implements
    std::string ptx;          // PTX file relative to the suite directory
    std::string source;       // source the PTX came from, relative to the suite directory
    unsigned base_dyn_smem = 0;  // dynamic shared memory the kernel itself needs (Triton)
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
    void fill_f64(const std::string& b, uint32_t seed, double lo, double hi)
    {
        CUdeviceptr p = buf.at(b);
        uint64_t n = buf_bytes.at(b) / 8;
        void* a[] = {&p, &n, &seed, &lo, &hi};
        grid_stride(sup("sup_fill_f64"), a);
    }
    // host-built inputs (graphs, sparse matrices): copied whole into the buffer
    template <class T>
    void put(const std::string& b, const std::vector<T>& h)
    {
        if (h.size() * sizeof(T) != buf_bytes.at(b)) {
            std::fprintf(stderr, "put %s: %zu bytes for a buffer of %zu\n", b.c_str(),
                         h.size() * sizeof(T), buf_bytes.at(b));
            std::exit(2);
        }
        CK(cuMemcpyHtoD(buf.at(b), h.data(), buf_bytes.at(b)));
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
        case PType::U64:
        case PType::S64:
            std::memcpy(&param_slots[i], &p.i64, 8);
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
                      k.block[2], k.base_dyn_smem + dyn, nullptr, param_ptrs.data(), nullptr));
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

#ifdef SUITE_GROUPS
// Another suite measured with this driver and method (bench/uneven_suite)
// names its own kernel file, which defines make_suite().
#include SUITE_GROUPS
#else
// Each group of kernels lives in its own file, so groups can be written and
// measured independently (scripts/measure.sh takes kernel ids; scripts/merge.py
// joins the measured parts into one suite).
#include "group_a.inc"
#include "group_b.inc"
#include "group_gen.inc"

std::vector<Kernel> make_suite()
{
    std::vector<Kernel> s;
    add_group_a(s);
    add_group_b(s);
    add_group_gen(s);
    return s;
}
#endif

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
    in.max_dyn -= (int)c.k->base_dyn_smem;
    int threads = c.k->block[0] * c.k->block[1] * c.k->block[2];
    const unsigned base = c.k->base_dyn_smem;
    in.max_blocks = occupancy(f, threads, base);
    for (int b = 1; b <= in.max_blocks; ++b) {
        unsigned dyn = 0;
        if (b < in.max_blocks) {
            // smallest padding that admits at most b blocks
            unsigned lo = 0, hi = (unsigned)in.max_dyn;
            if (occupancy(f, threads, base + hi) > b) {
                std::fprintf(stderr, "%s: cannot limit to %d blocks/SM\n", c.k->id.c_str(), b);
                std::exit(3);
            }
            while (lo < hi) {
                unsigned mid = lo + (hi - lo) / 2;
                if (occupancy(f, threads, base + mid) <= b)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            dyn = lo;
        }
        int got = occupancy(f, threads, base + dyn);
        if (got != b) {
            std::fprintf(stderr, "%s: padding %u gives %d blocks/SM, wanted %d\n",
                         c.k->id.c_str(), dyn, got, b);
            std::exit(3);
        }
        in.points.push_back({b, dyn});
    }
    return in;
}

// scripts/build.sh names the cubin of "triton/softmax.ptx" "triton_softmax.cubin"
std::string cubin_name(std::string ptx)
{
    for (char& ch : ptx)
        if (ch == '/')
            ch = '_';
    return ptx.substr(0, ptx.size() - 4) + ".cubin";
}

void load_modules(Ctx& c, const std::string& dir, const std::vector<Kernel>& suite)
{
    CK(cuModuleLoad(&c.support, (dir + "/support.cubin").c_str()));
    for (const Kernel& k : suite)
        if (!c.modules.count(k.ptx)) {
            CUmodule m;
            CK(cuModuleLoad(&m, (dir + "/" + cubin_name(k.ptx)).c_str()));
            c.modules[k.ptx] = m;
        }
}

void alloc_and_init(Ctx& c, const Kernel& k)
{
    c.k = &k;
    CK(cuModuleGetFunction(&c.f, c.modules.at(k.ptx), k.entry.c_str()));
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
    if (!k.family.empty())
        std::fprintf(t, "family = %s\n", toml_str(k.family).c_str());
    std::fprintf(t, "paper_name = %s\n", toml_str(k.paper_name).c_str());
    std::fprintf(t, "ptx = %s\n", toml_str(k.ptx).c_str());
    std::fprintf(t, "entry = %s\n", toml_str(k.entry).c_str());
    std::fprintf(t, "source = %s\n", toml_str(k.source).c_str());
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
        case PType::U64:
            std::fprintf(t, "type = \"u64\"\nvalue = %lld\n", (long long)p.i64);
            break;
        case PType::S64:
            std::fprintf(t, "type = \"s64\"\nvalue = %lld\n", (long long)p.i64);
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
                     pt.blocks_per_sm, pt.blocks_per_sm * warps, k.base_dyn_smem + pt.dyn, i);
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
                 "# " SUITE_TITLE " manifest, written by host/bench.cpp (bench time).\n"
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
        const bool dependent = samples::grid_dependent(k.ptx, k.entry);
        for (const Point& pt : in.points) {
            if (!sampling) {
                samples::Stats st = samples::time_launches(
                    do_flush, [&]() { launch(c, pt.dyn); }, e0, e1, kWarmup, kRuns, check_cu);
                std::fprintf(tcsv, "%s,%d,%d,%u,%llu,%.3f,%.3f,%.3f,%d\n", k.id.c_str(),
                             pt.blocks_per_sm, pt.blocks_per_sm * warps, k.base_dyn_smem + pt.dyn,
                             blocks, 1000.0 * st.median_ms, 1000.0 * st.min_ms,
                             1000.0 * st.max_ms, st.runs);
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

int cmd_profile(const std::string& dir, const std::vector<std::string>& ids)
{
    std::vector<Kernel> suite = make_suite();
    Ctx c;
    load_modules(c, dir, suite);
    for (const std::string& id : ids) {
        const Kernel* k = nullptr;
        for (const Kernel& cand : suite)
            if (cand.id == id)
                k = &cand;
        if (!k) {
            std::fprintf(stderr, "unknown kernel %s\n", id.c_str());
            return 2;
        }
        alloc_and_init(c, *k);
        Info in = prepare(c);
        for (const Point& pt : in.points) {
            launch(c, pt.dyn);
            CK(cuCtxSynchronize());
        }
        std::fprintf(stderr, "%s: %zu launches\n", k->id.c_str(), in.points.size());
        release(c);
    }
    return 0;
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
                     "       bench profile <cubin_dir> <kernel_id> [kernel_id...]\n"
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
        return cmd_profile(argv[2], std::vector<std::string>(argv + 3, argv + argc));
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
}
