// Sampled launches of the occupancy suites' drivers (ptx_samples/rodinia/host/bench.cpp and
// ptx_samples/heldout/host/bench.cpp, which bench/uneven_suite and bench/branch_suite reuse):
// the launch of a kernel truncated to k * Psat work groups, Psat = blocks_per_sm * SMs (the
// groups resident at once on the whole device at that occupancy point), for the sampling
// models of docs/models.md. Format of what the drivers write: docs/rodinia-suite.md,
// `data/samples.csv`.
//
// A sample is a smaller grid, not the full grid with the surplus blocks exiting early (that
// needs a guard in the kernel, which would change the PTX the model reads). The smaller grid
// is a box of blocks of the original grid, so every sampled block is a block of the real
// launch with the same block indices; a kernel whose per-block work depends on the grid size
// (%nctaid: grid-stride loops) does different work per block in a smaller grid, and is
// marked `grid_dependent` instead of being silently wrong.
//
// Included after <cuda.h>, <algorithm>, <cstdio>, <functional>, <string> and <vector>.

#include <fstream>
#include <sstream>

namespace samples {

// A sample's grid: a box (x, y, z) inside the original grid and its number of blocks.
struct Grid {
    unsigned x = 1, y = 1, z = 1;
    unsigned long long groups() const { return (unsigned long long)x * y * z; }
};

// The box inside `grid` whose number of blocks is closest to `target` (of boxes equally close,
// the widest in x): exactly `target` whenever it factors into the grid's extents, which for
// target = k * blocks_per_sm * 132 (H100) is the usual case.
// Launch order is x fastest, so for a grid wider than `target` the box is the first `target`
// blocks of the launch; otherwise whole rows (or planes) when they fit, else the widest
// exact factorization.
inline Grid box(const unsigned grid[3], unsigned long long target)
{
    Grid best;
    unsigned long long best_err = ~0ull;
    if (target == 0)
        return best;
    const unsigned long long gz_max = std::min<unsigned long long>(grid[2], target);
    for (unsigned long long z = gz_max; z >= 1; --z) {
        const unsigned long long gy_max = std::min<unsigned long long>(grid[1], target / z);
        for (unsigned long long y = gy_max; y >= 1; --y) {
            unsigned long long x = std::min<unsigned long long>(grid[0], target / (y * z));
            if (x == 0)
                continue;
            // the box just below target, and the one just above when it fits
            for (unsigned long long cx : {x, x + 1}) {
                if (cx > grid[0])
                    continue;
                const unsigned long long n = cx * y * z;
                const unsigned long long err = n > target ? n - target : target - n;
                // prefer the wider box on a tie (the iteration goes from high y and z down,
                // so a later candidate of equal error has a larger x)
                if (err < best_err || (err == best_err && cx > best.x)) {
                    best_err = err;
                    best.x = (unsigned)cx;
                    best.y = (unsigned)y;
                    best.z = (unsigned)z;
                }
            }
        }
    }
    return best;
}

// Whether the kernel `entry` of the PTX file `ptx_path` reads the grid size (%nctaid): in
// its own body, or anywhere in the file when the body calls a function. Such a kernel's
// per-block work changes with the grid (a grid-stride loop), so a smaller grid is not a
// sample of the real launch. A file that cannot be read counts as dependent (the safe side).
inline bool grid_dependent(const std::string& ptx_path, const std::string& entry)
{
    std::ifstream f(ptx_path);
    if (!f) {
        std::fprintf(stderr, "samples: cannot read %s: marking %s grid dependent\n",
                     ptx_path.c_str(), entry.c_str());
        return true;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    const std::string key = ".entry " + entry;
    size_t at = text.find(key);
    while (at != std::string::npos) {
        const size_t end = at + key.size();
        // a whole name: followed by '(' or white space
        if (end < text.size() && (text[end] == '(' || text[end] == ' ' || text[end] == '\n' ||
                                  text[end] == '\t' || text[end] == '\r'))
            break;
        at = text.find(key, end);
    }
    if (at == std::string::npos) {
        std::fprintf(stderr, "samples: no .entry %s in %s: marking it grid dependent\n",
                     entry.c_str(), ptx_path.c_str());
        return true;
    }
    size_t stop = text.find(".entry ", at + key.size());
    const std::string body = text.substr(at, stop == std::string::npos ? std::string::npos
                                                                         : stop - at);
    if (body.find("%nctaid") != std::string::npos)
        return true;
    const bool calls = body.find("call.uni") != std::string::npos ||
                       body.find("\tcall ") != std::string::npos ||
                       body.find(" call ") != std::string::npos;
    return calls && text.find("%nctaid") != std::string::npos;
}

// Median, minimum and maximum of `runs` timed launches after `warmup` untimed ones, each
// preceded by `flush` (the L2 flush of the suite's method) and timed between two events.
struct Stats {
    float median_ms = 0, min_ms = 0, max_ms = 0;
    int runs = 0;
};

inline Stats time_launches(const std::function<void()>& flush,
                           const std::function<void()>& launch, CUevent e0, CUevent e1,
                           int warmup, int runs,
                           void (*check)(CUresult, const char*, int))
{
    std::vector<float> ms;
    for (int r = 0; r < warmup + runs; ++r) {
        flush();
        check(cuEventRecord(e0, nullptr), "cuEventRecord", __LINE__);
        launch();
        check(cuEventRecord(e1, nullptr), "cuEventRecord", __LINE__);
        check(cuEventSynchronize(e1), "cuEventSynchronize", __LINE__);
        float t = 0;
        check(cuEventElapsedTime(&t, e0, e1), "cuEventElapsedTime", __LINE__);
        if (r >= warmup)
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    Stats s;
    s.median_ms = ms[ms.size() / 2];
    s.min_ms = ms.front();
    s.max_ms = ms.back();
    s.runs = (int)ms.size();
    return s;
}

constexpr const char* kHeader =
    "kernel,blocks_per_sm,sample,groups,grid_x,grid_y,grid_z,median_us,min_us,max_us,runs,"
    "grid_dependent\n";

// The sample rows of one occupancy point: the full grid (`full`, timed in the same pass as
// the samples) and the grid truncated to 2 and 3 Psat (`2psat`, `3psat`), the latter only
// when the grid has that many blocks. `launch(grid)` launches the point's configuration on
// the given grid.
inline void time_point(FILE* csv, const std::string& id, int blocks_per_sm, int sms,
                       const unsigned grid[3], bool dependent,
                       const std::function<void()>& flush,
                       const std::function<void(const unsigned*)>& launch, CUevent e0,
                       CUevent e1, int warmup, int runs,
                       void (*check)(CUresult, const char*, int))
{
    const unsigned long long total = (unsigned long long)grid[0] * grid[1] * grid[2];
    const unsigned long long psat = (unsigned long long)blocks_per_sm * sms;
    struct Row {
        const char* name;
        Grid g;
    };
    std::vector<Row> rows;
    Grid full;
    full.x = grid[0];
    full.y = grid[1];
    full.z = grid[2];
    rows.push_back({"full", full});
    const char* names[] = {"2psat", "3psat"};
    for (int k = 2; k <= 3; ++k) {
        if ((unsigned long long)k * psat > total)
            continue;
        rows.push_back({names[k - 2], box(grid, (unsigned long long)k * psat)});
    }
    for (const Row& r : rows) {
        const unsigned dims[3] = {r.g.x, r.g.y, r.g.z};
        Stats s = time_launches(flush, [&]() { launch(dims); }, e0, e1, warmup, runs, check);
        std::fprintf(csv, "%s,%d,%s,%llu,%u,%u,%u,%.3f,%.3f,%.3f,%d,%d\n", id.c_str(),
                     blocks_per_sm, r.name, r.g.groups(), r.g.x, r.g.y, r.g.z,
                     1000.0 * s.median_ms, 1000.0 * s.min_ms, 1000.0 * s.max_ms, s.runs,
                     dependent ? 1 : 0);
        std::fprintf(stderr, "  b=%2d %-5s %8llu groups median %10.2f us\n", blocks_per_sm,
                     r.name, r.g.groups(), 1000.0 * s.median_ms);
    }
}

}  // namespace samples
