#!/usr/bin/env python3
"""Turn the raw microbenchmark CSVs into the ptx2idg GPU profile of an H100 or an H200.

    python3 bench/microbench/gen_profile.py [--gpu h100|h200] [--out PROFILE.toml]

reads bench/microbench/data/<gpu>_*.csv (written by profile_gpu.sh with GPU=<gpu>; each file
can be named with its own option) and writes crates/gpu/profiles/hopper-<gpu>.toml.

Python 3 standard library only. Every number in the profile is derived from a
row of the raw CSV by a rule written next to it below (and listed in
bench/microbench/README.md); the profile header records the measurement date,
driver, clocks and commands, the rounding, and the instruction-mix fit that
decides the subsystems (pipeline-model paper, Sec. 4.2, Eqs. 43-45).

Rounding: λ to the nearest multiple of 1/64 cycle, Λ to the nearest 1/8 cycle
(values below 1/64 cycle become 0).
"""
import argparse
import csv
import os
import re
import statistics
import sys

import loaded_latency_fit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

LAMBDA_STEP = 64
LATENCY_STEP = 8
ISSUE_LIMIT = 4  # 4 sub-partitions (SMSPs) per SM, one warp instruction each per cycle


def rl(x):
    """λ rounded to 1/64 cycle."""
    return round(max(0.0, x) * LAMBDA_STEP) / LAMBDA_STEP


def rL(x):
    """Λ rounded to 1/8 cycle."""
    return round(max(0.0, x) * LATENCY_STEP) / LATENCY_STEP


class Raw:
    def __init__(self, path):
        self.rows = []
        with open(path, newline="") as f:
            lines = [ln for ln in f if not ln.startswith("#")]
        for r in csv.DictReader(lines):
            r["value"] = float(r["value"])
            self.rows.append(r)
        self.index = {(r["class"], r["kind"], r["param"]): r["value"] for r in self.rows}

    def get(self, cls, kind, param=""):
        key = (cls, kind, param)
        if key not in self.index:
            sys.exit(f"gen_profile: missing row {cls},{kind},{param} in the raw CSV")
        return self.index[key]

    def lat(self, cls, param=""):
        return self.get(cls, "latency", param)

    def tput(self, cls, param="ilp=4"):
        return self.get(cls, "throughput", param)

    def all(self, cls, kind):
        return [(r["param"], r["value"]) for r in self.rows if r["class"] == cls and r["kind"] == kind]


def parse_env(path):
    env = {"date": "unknown", "driver": "unknown", "gpu": "unknown", "nvcc": "unknown",
           "build": "", "run": "", "smi": []}
    if not os.path.exists(path):
        return env
    with open(path) as f:
        lines = [ln.rstrip("\n") for ln in f]
    for i, ln in enumerate(lines):
        if ln.startswith("date_utc:"):
            env["date"] = ln.split(":", 1)[1].strip()
        elif ln.startswith("build:"):
            env["build"] = ln.split(":", 1)[1].strip()
        elif ln.startswith("run:"):
            env["run"] = ln.split(":", 1)[1].strip()
        elif ln.startswith("nvcc:"):
            env["nvcc"] = ln.split(":", 1)[1].strip()
        elif ln.startswith("name,") and i + 1 < len(lines):
            vals = [v.strip() for v in lines[i + 1].split(",")]
            env["gpu"], env["driver"] = vals[0], vals[1]
            env["smi"].append(lines[i + 1].strip())
    return env


# --------------------------------------------------------------------- mix fit
def mix_fit(raw):
    """Fit Eqs. 43-45 to every instruction-mix sweep.

    Cycles per group (β fma.rn.f32 + one X) at full occupancy:
      one subsystem        β·λ1 + λ2          (Eq. 43)
      separate subsystems  max(β·λ1, λ2)      (Eq. 44)
      + issue limit IL     max(β·λ1, λ2, (β+1)/IL)  (Eq. 45)
    λ2 is the β=0 point of the sweep (X alone). λ1 is the fma.rn.f32 cost at
    the mix kernel's ILP of 2, taken from the ld.shared sweep at β=16 (LDS goes
    to the memory pipeline, so there the FFMAs alone set the pace); the ILP-4
    value of the isolated benchmark (0.25) is not reached with ILP 2, which is
    the Maxwell effect of the paper's Sec. 4.3.
    """
    sweeps = {}
    for r in raw.rows:
        if r["kind"] != "mix":
            continue
        beta = int(r["param"].split("=")[1])
        cpg = None
        for tok in r["notes"].split():
            if tok.startswith("cycles_per_group="):
                cpg = float(tok.split("=")[1])
        sweeps.setdefault(r["class"][len("mix:"):], {})[beta] = cpg
    lds = sweeps.get("ld.shared.u32", {})
    lam1 = lds[16] / 16 if 16 in lds else raw.tput("fma.rn.f32")
    fits = {}
    for x, pts in sweeps.items():
        lam2 = pts[0]
        models = {
            "one": lambda b: b * lam1 + lam2,
            "separate": lambda b: max(b * lam1, lam2),
            "issue_limit": lambda b: max(b * lam1, lam2, (b + 1) / ISSUE_LIMIT),
        }
        err = {}
        for m, f in models.items():
            e = [abs(f(b) - c) / c for b, c in pts.items() if b > 0]
            err[m] = 100 * sum(e) / len(e)
        best = min(err, key=err.get)
        fits[x] = {"lam2": lam2, "err": err, "best": best, "pts": pts}
    return lam1, fits


# --------------------------------------------------------------------- classes
def build(raw):
    """Return (classes, memory, notes). classes: list of (name, subsystem, λ, Λ, how)."""
    lam1, fits = mix_fit(raw)

    def own(x, name):
        return name if fits.get(x, {}).get("best", "one") != "one" else "alu"

    sfu = own("ex2.approx.ftz.f32", "sfu")
    fp64 = own("fma.rn.f64", "fp64")
    tensor = own("mma.sync.m16n8k16.f32.f16", "tensor")
    imad = own("mad.lo.s32", "alu")  # IMAD stays on the ALU pipeline either way
    mem = own("ld.shared.u32", "mem")

    C = []

    def direct(name, sub, cls, param="ilp=4", lat_param=""):
        C.append((name, sub, rl(raw.tput(cls, param)), rL(raw.lat(cls, lat_param)), f"direct: {cls}"))

    # ---- f32 / f16 / f64 arithmetic: direct chains
    direct("add.f32", "alu", "add.f32")
    direct("mul.f32", "alu", "mul.f32")
    direct("fma.f32", "alu", "fma.rn.f32")
    direct("add.f64", fp64, "add.f64")
    direct("mul.f64", fp64, "mul.f64")
    direct("fma.f64", fp64, "fma.rn.f64")
    direct("add.f16", "alu", "add.f16", "ilp=1")
    direct("mul.f16", "alu", "mul.f16", "ilp=1")
    direct("fma.f16", "alu", "fma.rn.f16", "ilp=1")
    direct("add.f16x2", "alu", "add.f16x2")
    direct("mul.f16x2", "alu", "mul.f16x2")
    direct("fma.f16x2", "alu", "fma.rn.f16x2")

    # ---- divisions and square roots: IEEE forms are FFMA sequences around one
    # MUFU (ALU), approximate forms are one MUFU plus scaling (SFU)
    direct("div.rn.f32", "alu", "div.rn.f32")
    direct("div.full.f32", sfu, "div.full.f32")
    direct("div.approx.f32", sfu, "div.approx.f32")
    direct("div.approx.ftz.f32", sfu, "div.approx.ftz.f32")
    direct("rcp.rn.f32", "alu", "rcp.rn.f32")
    direct("rcp.approx.f32", sfu, "rcp.approx.f32")
    direct("sqrt.rn.f32", "alu", "sqrt.rn.f32")
    direct("sqrt.approx.f32", sfu, "sqrt.approx.f32")
    direct("sqrt.approx.ftz.f32", sfu, "sqrt.approx.ftz.f32")
    direct("rsqrt.approx.f32", sfu, "rsqrt.approx.f32")
    direct("rsqrt.approx.ftz.f32", sfu, "rsqrt.approx.ftz.f32")
    direct("sin.approx.f32", sfu, "sin.approx.f32")
    direct("sin.approx.ftz.f32", sfu, "sin.approx.ftz.f32")
    direct("cos.approx.f32", sfu, "cos.approx.f32")
    direct("cos.approx.ftz.f32", sfu, "cos.approx.ftz.f32")
    direct("tanh.approx.f32", sfu, "tanh.approx.f32")
    direct("div.rn.f64", fp64, "div.rn.f64")
    direct("rcp.rn.f64", fp64, "rcp.rn.f64")
    direct("sqrt.rn.f64", fp64, "sqrt.rn.f64")
    direct("rsqrt.approx.f64", fp64, "rsqrt.approx.f64")

    # ---- MUFU ops chained through add.f32: Λ = pair − Λ(add.f32); the pair's
    # λ is the MUFU's (the FADD runs on another pipeline and hides)
    L_fadd = raw.lat("add.f32")
    for name, cls in [("rcp.approx.ftz.f32", "rcp.approx.ftz.f32+add.f32"),
                      ("ex2.approx.f32", "ex2.approx.f32+add.f32"),
                      ("ex2.approx.ftz.f32", "ex2.approx.ftz.f32+add.f32"),
                      ("lg2.approx.f32", "lg2.approx.f32+add.f32"),
                      ("lg2.approx.ftz.f32", "lg2.approx.ftz.f32+add.f32")]:
        C.append((name, sfu, rl(raw.tput(cls)), rL(raw.lat(cls) - L_fadd),
                  f"pair {cls}: Λ = pair − Λ(add.f32), λ = pair"))

    # ---- integer: ptxas merges two adds (or two logic ops) into one IADD3/LOP3,
    # so the chains alternate families. shl+xor run on the same INT pipeline:
    # each gets half of the pair. add = (add+xor) − xor for Λ; for λ the pair
    # overlaps (IMAD.IADD on the FMA pipeline, LOP3 on INT), so add gets half.
    L_sx, T_sx = raw.lat("shl.b32+xor.b32"), raw.tput("shl.b32+xor.b32")
    L_logic, T_logic = L_sx / 2, T_sx / 2
    L_ax, T_ax = raw.lat("add.s32+xor.b32"), raw.tput("add.s32+xor.b32")
    C.append(("logic.b32", "alu", rl(T_logic), rL(L_logic), "half of pair shl.b32+xor.b32"))
    C.append(("shift.b32", "alu", rl(raw.tput("shr.u32+xor.b32") / 2),
              rL(raw.lat("shr.u32+xor.b32") - L_logic), "pair shr.u32+xor.b32 − logic"))
    C.append(("add.s32", "alu", rl(T_ax / 2), rL(L_ax - L_logic), "pair add.s32+xor.b32 − logic"))
    C.append(("add.s64", "alu", rl(raw.tput("add.s64+xor.b64") / 2),
              rL(raw.lat("add.s64+xor.b64") / 2),
              "half of pair add.s64+xor.b64 (IADD3+IADD3.X, 2x LOP3)"))
    C.append(("mov.b32", "alu", rl(raw.tput("mov.b32+add.s32+xor.b32") - T_ax),
              rL(raw.lat("mov.b32+add.s32+xor.b32") - L_ax),
              "triple mov+add+xor − pair add+xor (ptxas copy-propagates register moves)"))
    direct("mul.lo.s32", imad, "mul.lo.s32")
    direct("mad.lo.s32", imad, "mad.lo.s32")
    direct("mul.wide.s32", imad, "mul.wide.s32")
    direct("div.s32", "alu", "div.s32")
    direct("div.u32", "alu", "div.u32")
    direct("rem.s32", "alu", "rem.s32")
    direct("rem.u32", "alu", "rem.u32")
    direct("div.s64", "alu", "div.s64", "ilp=2")
    L_ss, T_ss = raw.lat("setp.s32+selp.b32"), raw.tput("setp.s32+selp.b32")
    C.append(("setp.s32", "alu", rl(T_ss / 2), rL(L_ss / 2), "half of pair setp.s32+selp.b32"))
    C.append(("selp.b32", "alu", rl(T_ss / 2), rL(L_ss / 2), "half of pair setp.s32+selp.b32"))
    L_sf, T_sf = raw.lat("setp.f32+selp.f32"), raw.tput("setp.f32+selp.f32")
    C.append(("setp.f32", "alu", rl(T_sf / 2), rL(L_sf / 2), "half of pair setp.f32+selp.f32"))
    C.append(("vote.any", "alu", rl(raw.tput("vote.any+setp+selp") - T_ss),
              rL(raw.lat("vote.any+setp+selp") - L_ss), "triple vote.any+setp+selp − pair setp+selp"))
    C.append(("vote.ballot", "alu", rl(raw.tput("vote.ballot+setp") - T_ss / 2),
              rL(raw.lat("vote.ballot+setp") - L_ss / 2), "pair vote.ballot+setp − setp"))
    direct("shfl.sync.bfly", mem, "shfl.sync.bfly.b32")
    direct("shfl.sync.idx", mem, "shfl.sync.idx.b32")

    # ---- conversions: round trips, split evenly
    for a, b, cls, sub in [("cvt.f32.s32", "cvt.s32.f32", "cvt.f32.s32+cvt.s32.f32", "alu"),
                           ("cvt.f64.f32", "cvt.f32.f64", "cvt.f64.f32+cvt.f32.f64", fp64),
                           ("cvt.f16.f32", "cvt.f32.f16", "cvt.f16.f32+cvt.f32.f16", "alu"),
                           ("cvt.f64.s32", "cvt.s32.f64", "cvt.f64.s32+cvt.s32.f64", fp64)]:
        for n in (a, b):
            C.append((n, sub, rl(raw.tput(cls) / 2), rL(raw.lat(cls) / 2), f"half of round trip {cls}"))

    # ---- tensor cores
    direct("mma.sync.m16n8k16.f32", tensor, "mma.sync.m16n8k16.f32.f16")
    direct("mma.sync.m16n8k16.f16", tensor, "mma.sync.m16n8k16.f16.f16")
    C.append(("wmma.mma.m16n16k16", tensor, rl(raw.tput("wmma.mma.sync.m16n16k16.f32.f16", "ilp=2")),
              rL(raw.lat("wmma.mma.sync.m16n16k16.f32.f16")), "direct (2 HMMA.16816 per wmma)"))

    # ---- control: bar.sync Λ from one warp alone, λ from a full SM (the
    # one-block latency grows by ≈ λ per extra warp, which the simulator's
    # issue of each warp's barrier reproduces); bra from the counted loop
    bar_lat = dict(raw.all("bar.sync", "latency"))
    bar_tp = dict(raw.all("bar.sync", "throughput"))
    bar_lambda = statistics.median(v for k, v in bar_tp.items() if k != "warps_per_block=1")
    C.append(("bar.sync", "sync", rl(bar_lambda), rL(bar_lat["warps_per_block=1"]),
              "Λ: one warp alone; λ: median over 2..32 warps per block at full occupancy"))
    L_add = L_ax - L_logic
    C.append(("bra", "alu",
              rl(raw.tput("loop.iteration", "sub+setp+bra") - T_ax / 2 - T_ss / 2),
              rL(raw.lat("loop.iteration", "sub+setp+bra") - L_add - L_ss / 2),
              "loop iteration (sub+setp+bra) − add − setp"))

    # ---- atomics and asynchronous copies
    C.append(("atom.global", mem, rl(raw.tput("atom.global.add.u32", "distinct")),
              rL(raw.lat("atom.global.add.u32", "distinct")), "distinct words, coalesced"))
    C.append(("atom.global.contended", mem, rl(raw.tput("atom.global.add.u32", "same_address")),
              rL(raw.lat("atom.global.add.u32", "same_address")),
              "λ: every thread of a full grid on one word; Λ: one warp on one word"))
    C.append(("atom.global.f32", mem, rl(raw.tput("atom.global.add.f32", "distinct")),
              rL(raw.lat("atom.global.add.f32", "distinct")), "distinct words"))
    C.append(("red.global", mem, rl(raw.tput("red.global.add.u32", "distinct")),
              rL(raw.lat("atom.global.add.u32", "distinct")), "λ measured; Λ taken from atom.global"))
    C.append(("atom.shared", mem, rl(raw.tput("atom.shared.add.u32", "distinct")),
              rL(raw.lat("atom.shared.add.u32", "distinct")), "distinct words"))
    C.append(("atom.shared.contended", mem, rl(raw.tput("atom.shared.add.u32", "same_address")),
              rL(raw.lat("atom.shared.add.u32", "same_address")), "all 32 lanes on one word"))
    C.append(("cp.async.strided", mem, rl(raw.tput("cp.async.cg", "l2_16B")),
              rL(raw.lat("cp.async.cg", "l2_16B")),
              "16 B/lane, lanes 64 B apart, from L2; Λ = cp.async + wait_all (not in [classes]: "
              "a cp.async follows ld.global, cp_async.cu)"))
    C.append(("st.shared", mem, rl(raw.tput("st.shared", "b32")), rL(raw.lat("ld.shared", "ways=1")),
              "λ: 4 B/lane stores; Λ taken from ld.shared"))
    C.append(("st.local", mem, rl(raw.tput("st.local", "b32")), rL(raw.lat("ld.local", "l1")),
              "λ: 4 B/lane stores (write-through: far slower than ld.local); Λ taken from ld.local"))
    C.append(("st.global.l2", mem, rl(raw.tput("st.global", "b32")), rL(raw.lat("ld.global", "l2")),
              "λ: 4 B/lane stores to an L2-resident region; Λ taken from ld.global at L2 (not in [classes]: st.global follows ld.global)"))
    C.append(("ld.param", mem, rl(raw.tput("ld.const", "cached")), rL(raw.lat("ld.const", "cached")),
              "constant-bank load at a fixed address (ptxas usually folds ld.param into an operand)"))

    # ---- memory levels, per 4-byte-per-lane coalesced warp access (128 B)
    M = {}
    dram_bpc = raw.get("ld.global", "bandwidth", "dram_read_b32")
    l2_bpc = raw.get("ld.global", "bandwidth", "l2_read_v4")
    l1_bpc = raw.get("ld.global", "bandwidth", "l1_read_v4")
    M["dram"] = (rl(128 / dram_bpc),
                 rL(statistics.mean([raw.lat("ld.global", "dram_random"), raw.lat("ld.global", "dram_seq")])),
                 "λ = 128 B / DRAM read bandwidth; Λ = mean of random and strided cold chases")
    M["l2"] = (rl(128 / l2_bpc), rL(raw.lat("ld.global", "l2")),
               "λ = 128 B / L2 read bandwidth; Λ = warm ld.cg chase over 8 MiB")
    M["l1"] = (rl(128 / l1_bpc), rL(raw.lat("ld.global", "l1")),
               "λ = 128 B / L1 read bandwidth; Λ = warm chase over 16 KiB")
    M["shared"] = (rl(raw.tput("ld.shared", "ways=1")), rL(raw.lat("ld.shared", "ways=1")),
                   "conflict-free ld.shared.u32")
    M["local"] = (rl(raw.tput("ld.local", "l1")), rL(raw.lat("ld.local", "l1")), "L1-resident stack")
    M["constant"] = (rl(raw.tput("ld.const", "cached")), rL(raw.lat("ld.const", "cached")),
                     "uniform address, constant cache hit")
    return C, M, (lam1, fits, sfu, fp64, tensor, mem)


def wgmma_costs(raw):
    """tensor.wgmma per m16n8k16-equivalent (2048 FMAs) of a warpgroup's wgmma.mma_async.

    wgmma.cu: m64nNk16 (N/2 equivalents) times one SM's resident grid (λ, cycles per wgmma
    per SM) and one warpgroup's chain of wgmmas on one accumulator (Λ: the slope over K of
    the group time, the interval at which a dependent wgmma may follow). Both per
    equivalent: the median over the shapes the tensor cores bound (N >= 64; below, the
    operands' shared-memory fetch, (2048 + 32·N) B at 128 B/cycle, sets the time, which
    crates/gpu/src/fragment.rs applies). The mix rows (4 wgmma + 4·B fma.rn.f32 per group
    and thread) are fitted with Eqs. 43-44 like mix_fit: 'one' puts the class on alu.
    """
    lam, chain, floor = [], [], []
    for r in raw.rows:
        m = re.match(r"wgmma\.m64n(\d+)k16\.f32\.f16$", r["class"])
        if not m:
            continue
        n = int(m.group(1))
        if r["kind"] == "throughput":
            (lam if n >= 64 else floor).append((n, r["value"] / (n / 2)))
    for n in sorted({n for n, _ in lam}):
        cls = f"wgmma.m64n{n}k16.f32.f16"
        pts = dict(raw.all(cls, "chain"))
        chain.append((pts["k=16"] - pts["k=8"]) / 8 / (n / 2))
    mix = {}
    alone = {}
    for r in raw.rows:
        if r["kind"] != "mix" or not r["class"].startswith(("wgmma", "fma.rn.f32.alone")):
            continue
        kv = dict(x.split("=") for x in r["param"].split(";"))
        (mix if int(kv["k"]) > 0 else alone)[int(kv["fma_per_wgmma"])] = r["value"]
    lam2 = mix[0]
    err = {
        "one": [abs(alone[b] + lam2 - c) / c for b, c in mix.items() if b in alone],
        "separate": [abs(max(alone[b], lam2) - c) / c for b, c in mix.items() if b in alone],
    }
    err = {k: 100 * sum(v) / len(v) for k, v in err.items()}
    return {
        "lambda": statistics.median(v for _, v in lam),
        "latency": statistics.median(chain),
        "shapes": lam,
        "floor": floor,
        "err": err,
        "best": min(err, key=err.get),
    }


def launch_costs(raw):
    """Block dispatch from `mb launch`: per thread count, the per-block span with one
    resident block (latency: the block's dozen instructions plus exit-to-next-start) and the
    smallest per-block span with 4 or more resident blocks (the dispatch throughput); the
    median over thread counts of each."""
    rows = []
    for p, v in raw.all("launch", "interval"):
        kv = dict(x.split("=") for x in p.split(";"))
        rows.append((int(kv["threads"]), int(kv["blocks_per_sm"]), v))
    if not rows:
        sys.exit("gen_profile: no launch,interval rows in the launch CSV")
    one = [v for t, b, v in rows if b == 1]
    many = {}
    for t, b, v in rows:
        if b >= 4:
            many[t] = min(many.get(t, v), v)
    if not one or not many:
        sys.exit("gen_profile: the launch CSV needs 1 and >= 4 resident blocks")
    med = lambda xs: sorted(xs)[len(xs) // 2] if len(xs) % 2 else sum(sorted(xs)[len(xs) // 2 - 1:len(xs) // 2 + 1]) / 2
    return {"latency": rL(med(one)), "interval": rL(med(list(many.values()))), "rows": rows}


def device_costs(raw, peak):
    """Launch overhead and sustained device-wide bandwidth from `mbw` (bandwidth.cu) and
    `bw_peak` (bw_peak.cu).

    overhead_us: median over the one-block spins of (event time - the block's own cycles at
    the measured clock). Bandwidth: each stream row's event time minus that overhead, so the
    rate is the one the streams sustain once running (the model adds the overhead itself):
    GB/s = bytes / (bytes / measured GB/s - overhead); per level and mix the highest rate of
    both benchmarks' rows, since the model uses it as a floor on a kernel's time, which must
    not be slower than what the device sustains."""
    over = [v for p, v in raw.all("launch", "one_block_overhead") if p != "spin=0"]
    if not over:
        sys.exit("gen_profile: no launch,one_block_overhead rows in the bandwidth CSV")
    overhead = statistics.median(over)
    bw = {}
    for r in raw.rows + peak.rows:
        if r["class"] != "bandwidth" or r["unit"] != "GB/s":
            continue
        m = re.match(r"(\w+)_r(\d)w(\d)$", r["param"])
        n = re.search(r"of (\d+) MiB x (\d+)", r["notes"])
        if not m or not n:
            sys.exit(f"gen_profile: cannot read bandwidth row {r['param']}")
        level, rd, wr = m.group(1), int(m.group(2)), int(m.group(3))
        nbytes = (rd + wr) * int(n.group(1)) * 2**20 * int(n.group(2))
        t_us = nbytes / (r["value"] * 1e3)
        bw[(level, rd, wr)] = max(bw.get((level, rd, wr), 0.0), nbytes / ((t_us - overhead) * 1e3))
    need = [(lvl, rd, wr) for lvl in ("dram", "l2") for rd, wr in ((1, 0), (0, 1), (1, 1))]
    missing = [k for k in need if k not in bw]
    if missing:
        sys.exit(f"gen_profile: bandwidth rows missing: {missing}")
    return {"overhead_us": overhead, "bw": bw}


def atomic_slice_rate(path):
    """Millions of atomic sectors per second one L2 slice sustains (atomics.cu under ncu).

    Each launch's busiest slice takes lts__d_atomic_input_cycles_active.max sectors (one per
    L2 cycle at most); where it takes at least twice the mean slice's (hot words: the slice,
    not the SMs, limits), the launch's L2 cycles over those sectors say how many cycles a
    sector costs when the slice is the bottleneck. Rate = L2 clock / the median of that."""
    launches = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            v = float(r["Metric Value"].replace(",", ""))
            launches.setdefault(r["ID"], {})[r["Metric Name"]] = v
    ratios, clocks, slices = [], [], set()
    for m in launches.values():
        busiest = m["lts__d_atomic_input_cycles_active.max"]
        mean = m["lts__d_atomic_input_cycles_active.avg"]
        if mean > 0:
            # The sum over the slices over their mean: how many slices there are.
            slices.add(round(m["lts__d_atomic_input_cycles_active.sum"] / mean))
        clocks.append(m["lts__cycles_elapsed.avg.per_second"] / 1e6)
        if mean > 0 and busiest >= 2 * mean:
            ratios.append(m["lts__cycles_elapsed.avg"] / busiest)
    if not ratios:
        sys.exit(f"gen_profile: no launch of {path} is bound by one L2 slice")
    if len(slices) != 1:
        sys.exit(f"gen_profile: the launches of {path} disagree on the L2 slices: {sorted(slices)}")
    cycles = statistics.median(ratios)
    clock = statistics.median(clocks)
    return {"rate": clock / cycles, "cycles": cycles, "clock": clock, "n": len(ratios),
            "lo": min(ratios), "hi": max(ratios), "slices": slices.pop()}


#: Footprints (MiB re-read, as much written) of l2_reuse.cu's second sweep that make the hit curve.
HIT_CURVE_MIB = (4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 32, 40, 48)


def l2_reuse_rates(path, kind):
    """l2_reuse.cu's read rate (GB/s) by footprint (MiB) in one sweep (`reread`: S re-read
    alone; `reread_write`: S re-read while writing as much)."""
    bw = {}
    with open(path, newline="") as f:
        for r in csv.reader(f):
            if len(r) > 3 and r[0] == "l2" and r[1] == kind:
                bw[int(r[2].split("_")[0])] = float(r[3])
    return bw


def l2_hit_curve(path, l2_bytes, written_weight):
    """`limits.l2_hit_curve`: the share of re-reads that hit L2 against the footprint, from
    l2_reuse.cu's sweep re-reading S MiB while writing as much (`reread_write` rows). Its read
    rate falls from the all-hit rate (the smallest S) to the all-miss rate (the mean from
    44 MiB on); the share that hits is where the time per byte lies between the two. x: the
    footprint the mapper computes for such a re-read, S read plus S written weighing
    `written_weight` (3 S at weight 2), in thousandths of the L2; h in thousandths."""
    bw = l2_reuse_rates(path, "reread_write")
    hit = 1 / bw[min(bw)]
    misses = [1 / v for s, v in bw.items() if s >= 44]
    miss = sum(misses) / len(misses)
    points = []
    for s in HIT_CURVE_MIB:
        h = max(0.0, min(1.0, (miss - 1 / bw[s]) / (miss - hit)))
        x = (1 + written_weight) * s * (1 << 20) * 1000 / l2_bytes
        points.append([round(x), round(1000 * h)])
    for i in range(1, len(points)):  # a measured wiggle must not make the curve rise
        points[i][1] = min(points[i][1], points[i - 1][1])
    return points


def l2_half_hits(path):
    """MiB at which half the re-reads still hit L2 in l2_reuse.cu's two sweeps: re-reading S
    alone (`reread`) and re-reading S while writing as much (`reread_write`); where the time
    per byte lies halfway between the all-hit (smallest S) and the all-miss rate (the largest
    footprints), linearly between measured points."""
    def half(kind):
        bw = l2_reuse_rates(path, kind)
        sizes = sorted(bw)
        hit, miss = 1 / bw[sizes[0]], 1 / bw[sizes[-1]]
        mid = (hit + miss) / 2
        for lo, hi in zip(sizes, sizes[1:]):
            a, b = 1 / bw[lo], 1 / bw[hi]
            if a < mid <= b:
                return lo + (hi - lo) * (mid - a) / (b - a)
        sys.exit(f"gen_profile: the {kind} sweep of {path} never falls halfway to its miss rate")
    return half("reread"), half("reread_write")


def overlaps_dram(path, kind, slack=1.05):
    """Whether `kind`'s instructions run beside a DRAM stream (mio_dram_mix.cu): at every
    mix, the kernel doing both takes at most `slack` times the longer of the two alone.
    ``(overlaps, worst ratio)``."""
    alone_ops, alone_dram, both = {}, {}, {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            dram, ops, t = int(r["dram_per_iter"]), int(r["ops_per_iter"]), float(r["median_us"])
            # The stream alone is measured once, under the first kind.
            if r["kind"] != kind and ops:
                continue
            if dram and ops:
                both[ops] = t
            elif ops:
                alone_ops[ops] = t
            elif dram:
                alone_dram[dram] = t
    dram = alone_dram[1]
    worst = max(t / max(dram, alone_ops[n]) for n, t in both.items())
    return worst <= slack, worst


def fmt(x):
    s = f"{x:.6f}".rstrip("0")
    return s + "0" if s.endswith(".") else s


# Taxonomy class (docs/gpu-profile.md) -> the measured PTX form that represents
# it: the form nvcc emits by default (no fast-math), which is what the samples
# contain. The other measured forms are listed in the header.
TAXONOMY = [
    ("f32.add", "add.f32"), ("f32.mul", "mul.f32"), ("f32.fma", "fma.f32"),
    ("f32.div", "div.rn.f32"), ("f32.sqrt", "sqrt.rn.f32"), ("f32.rcp", "rcp.rn.f32"),
    ("sfu.sin", "sin.approx.f32"), ("sfu.cos", "cos.approx.f32"), ("sfu.ex2", "ex2.approx.f32"),
    ("sfu.lg2", "lg2.approx.f32"), ("sfu.rcp", "rcp.approx.f32"), ("sfu.rsqrt", "rsqrt.approx.f32"),
    ("sfu.sqrt", "sqrt.approx.f32"), ("sfu.tanh", "tanh.approx.f32"),
    ("f64.add", "add.f64"), ("f64.mul", "mul.f64"), ("f64.fma", "fma.f64"),
    ("f64.div", "div.rn.f64"), ("f64.sqrt", "sqrt.rn.f64"), ("f64.rcp", "rcp.rn.f64"),
    ("f16.arith", "fma.f16x2"),
    ("int.add", "add.s32"), ("int.mul", "mul.lo.s32"), ("int.mad", "mad.lo.s32"),
    ("int.div", "div.s32"), ("int.rem", "rem.s32"), ("int.logic", "logic.b32"),
    ("int.shift", "shift.b32"), ("setp", "setp.s32"), ("selp", "selp.b32"),
    ("cvt", "cvt.f32.s32"), ("cvt.f16", "cvt.f32.f16"), ("mov", "mov.b32"), ("shfl", "shfl.sync.bfly"), ("vote", "vote.any"),
    ("atom.global", "atom.global"), ("atom.shared", "atom.shared"),
    ("st.shared", "st.shared"), ("st.local", "st.local"),
    ("tensor.mma", "mma.sync.m16n8k16.f32"), ("tensor.wgmma", "wgmma.m64nNk16.f32"),
    ("bar.sync", "bar.sync"), ("branch", "bra"),
]


def scattered(path, sm_count, clock_mhz):
    """The [scattered] costs from gather.cu's rows: the highest rate of uniform random gathers
    (one sector per lane) over the occupancies, element widths and gathers per thread, from the
    4 MiB (L2) and the 1 GiB (DRAM) table; None without the file."""
    if not os.path.exists(path):
        return None
    best = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["dist"] != "uniform":
                continue
            tb = int(r["table_bytes"])
            best[tb] = max(best.get(tb, 0.0), float(r["gathers_per_us"]) / 1e3)
    l2, dram = best[4 << 20], best[1 << 30]
    per = lambda g: sm_count * clock_mhz / 1e3 / g
    return {"l2": per(l2), "dram": per(dram), "l2_rate": l2, "dram_rate": dram}


def fetch_bytes(path):
    """DRAM bytes one scattered 4-byte read that misses L2 fetches, from fetch.sh's ncu rows:
    the uniform gathers over 1 GiB (nearly every one misses) move their index and the fetch,
    the sorted ones their index and 4 data bytes; the difference plus 4, in whole 32-byte
    sectors. Returns (bytes, measured bytes per gather) or None without the file."""
    if not os.path.exists(path):
        return None
    per = {}
    with open(path) as f:
        rows = csv.DictReader(line for line in f if not line.startswith("=="))
        for r in rows:
            if r["Metric Name"] == "dram__bytes_read.sum":
                per[int(r["ID"])] = float(r["Metric Value"].replace(",", "")) / (1 << 22)
    # fetch.cu's launch order: sorted, uniform over 1 GiB, uniform over 4 MiB.
    measured = per[1] - per[0] + 4.0
    return 32.0 * round(measured / 32.0), measured


#: The profiles this generator writes: file prefix -> (profile name, display name).
GPUS = {
    "h100": ("hopper-h100", "NVIDIA H100 80GB HBM3 (SXM5)"),
    "h200": ("hopper-h200", "NVIDIA H200 (SXM, 141 GB HBM3e)"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", default="h100", choices=sorted(GPUS),
                    help="the prefix of the data files (data/<gpu>_*.csv) and the profile written")
    ap.add_argument("--raw")
    ap.add_argument("--env")
    ap.add_argument("--launch-raw",
                    help="raw CSV of `mb launch` (block dispatch); default <gpu>_launch_raw.csv, "
                         "else the raw CSV (a full `mb all` writes the launch rows there)")
    ap.add_argument("--bandwidth-raw", help="raw CSV of `mbw` (device bandwidth, launch overhead)")
    ap.add_argument("--bw-peak-raw", help="raw CSV of bw_peak.sh (device bandwidth with more loads in flight)")
    ap.add_argument("--atomics-ncu", help="ncu CSV of `atomics profile` (atomics.sh): the L2 slice's atomic rate")
    ap.add_argument("--wgmma-raw", help="raw CSV of wgmma.sh: the warpgroup MMA's λ, Λ and subsystem")
    ap.add_argument("--gather-raw", help="raw CSV of gather.sh: what a scattered sector costs")
    ap.add_argument("--loaded-latency-raw", help="raw CSV of loaded_latency.sh: DRAM latency under load")
    ap.add_argument("--mio-dram-mix-raw",
                    help="raw CSV of mio_dram_mix.cu: shuffles and shared loads beside a DRAM stream")
    ap.add_argument("--cp-async-raw", help="raw CSV of cp_async.sh: cp.async against ld.global of the same bytes")
    ap.add_argument("--l2-reuse-raw", help="raw CSV of l2_reuse.cu: re-reads that still hit L2")
    # The SASS expansion is a property of the architecture's ptxas (sm_90 for both Hoppers).
    ap.add_argument("--sass-expansion", default=os.path.join(ROOT, "bench", "sass", "h100_expansion.toml"),
                    help="[sass_expansion] table written by bench/sass/expansion.py, copied verbatim")
    ap.add_argument("--unified",
                    help="[unified_model] section written by fit_unified, copied verbatim; default "
                         "bench/unified/data/<gpu>/unified_model.toml where it exists")
    # The L2's fetch per miss is a property of the architecture's memory system (GH100 for
    # both Hoppers), measured on the H200.
    ap.add_argument("--fetch-ncu", default=os.path.join(HERE, "data", "h200_fetch_ncu.csv"),
                    help="ncu CSV of fetch.sh: the DRAM bytes a scattered miss fetches")
    ap.add_argument("--out", help="default crates/gpu/profiles/<profile name>.toml")
    a = ap.parse_args()
    data = lambda name: os.path.join(HERE, "data", f"{a.gpu}_{name}")
    for arg, name in (("raw", "raw.csv"), ("env", "env.txt"), ("bandwidth_raw", "bandwidth_raw.csv"),
                      ("bw_peak_raw", "bw_peak_raw.csv"), ("atomics_ncu", "atomics_ncu.csv"),
                      ("wgmma_raw", "wgmma_raw.csv"), ("gather_raw", "gather_raw.csv"),
                      ("loaded_latency_raw", "loaded_latency_raw.csv"),
                      ("mio_dram_mix_raw", "mio_dram_mix_raw.csv"), ("cp_async_raw", "cp_async_raw.csv"),
                      ("l2_reuse_raw", "l2_reuse_raw.csv")):
        if getattr(a, arg) is None:
            setattr(a, arg, data(name))
    if a.launch_raw is None:
        a.launch_raw = data("launch_raw.csv") if os.path.exists(data("launch_raw.csv")) else a.raw
    if a.unified is None:
        a.unified = os.path.join(ROOT, "bench", "unified", "data", a.gpu, "unified_model.toml")
    profile_name, display_name = GPUS[a.gpu]
    if a.out is None:
        a.out = os.path.join(ROOT, "crates", "gpu", "profiles", f"{profile_name}.toml")
    rel = lambda path: os.path.relpath(path, ROOT)
    raw = Raw(a.raw)
    env = parse_env(a.env)
    launch = launch_costs(Raw(a.launch_raw))
    device = device_costs(Raw(a.bandwidth_raw), Raw(a.bw_peak_raw))
    atomic = atomic_slice_rate(a.atomics_ncu)
    classes, memory, (lam1, fits, sfu, fp64, tensor, mem) = build(raw)
    wg = wgmma_costs(Raw(a.wgmma_raw))
    classes.append(("wgmma.m64nNk16.f32", "alu" if wg["best"] == "one" else "tensor",
                    rl(wg["lambda"]), rL(wg["latency"]),
                    "per m16n8k16-equivalent (N/2 per wgmma): λ median of m64n{64,128,256}k16 "
                    "full-SM throughput, Λ the chained-wgmma slope; wgmma.cu"))
    # Shuffles that run beside a DRAM stream take the SM's crossbar, not the load/store
    # path's time: a pipe of their own.
    shfl_apart, shfl_worst = overlaps_dram(a.mio_dram_mix_raw, "shfl")
    _, lds_worst = overlaps_dram(a.mio_dram_mix_raw, "lds")
    if shfl_apart:
        classes = [(n, "shfl" if n.startswith("shfl.") else sub, lam, L, how)
                   for n, sub, lam, L, how in classes]
    prop = lambda k: raw.get("device", "property", k)
    clocks = [v for k, v in raw.all("clock", "property")]

    o = []
    w = o.append
    by = {c[0]: c for c in classes}
    w(f"# ptx2idg GPU profile: {display_name} (Hopper, sm_90), measured by us.")
    w(f"# GENERATED by bench/microbench/gen_profile.py --gpu {a.gpu} from bench/microbench/data/{a.gpu}_*")
    w("# (raw, launch, bandwidth, bw_peak, atomics, wgmma, gather, loaded_latency, cp_async,")
    w("# mio_dram_mix, l2_reuse);")
    w("# do not edit by hand: re-run the suite and the generator (bench/microbench/README.md).")
    w("#")
    w(f"# measured:        {env['date']} on {env['gpu']}, driver {env['driver']}")
    w(f"# toolchain:       {env['nvcc']}")
    for s in env["smi"]:
        w(f"# nvidia-smi:      {s}")
    w("#                  (name, driver, SM clock, max SM clock, memory clock, ...; before / after)")
    w("# SM clock in kernels: " + ", ".join(f"{c:.0f}" for c in clocks)
      + " MHz (clock64 cycles / globaltimer ns: at start, after the arithmetic part, at end)")
    w("# commands:        bash bench/microbench/run.sh bench/microbench/data")
    w(f"#                  (= {env['build']} ; {env['run']})")
    w(f"#                  python3 bench/microbench/gen_profile.py --gpu {a.gpu}")
    w("# units:           λ = cycles per warp instruction per SM (issue/throughput cost), from a")
    w("#                  resident full grid of independent chains; Λ = cycles from issue until a")
    w("#                  dependent instruction may issue, from one warp running a dependent chain.")
    w(f"# rounding:        λ to the nearest 1/{LAMBDA_STEP} cycle, Λ to the nearest 1/{LATENCY_STEP} cycle.")
    w("# not measured:    register/shared allocation units, max registers per thread (CUDA")
    w("#                  occupancy calculator, cc 9.0), the scheduler policy; classes not listed")
    w("#                  (int.bits, cvt.int, ld.*, st.global, cp.async, ld/st.param, fence, misc) follow the")
    w("#                  derivation rules of docs/gpu-profile.md.")
    w("#")
    w("# Subsystems from the instruction-mix sweeps (β fma.rn.f32 + 1 X per group, full occupancy),")
    w(f"# fitted with Eqs. 43-45 (λ1 = {lam1:.3f}: fma.rn.f32 at the mix kernel's ILP of 2; IL = {ISSUE_LIMIT}).")
    w("# Mean relative error of the cycles per group over β = 1..16:")
    for x, f in fits.items():
        e = f["err"]
        w(f"#   {x:28s} λ2={f['lam2']:.3f} one={e['one']:5.1f}% separate={e['separate']:5.1f}%"
          f" issue_limit={e['issue_limit']:5.1f}% -> {f['best']}")
    w("# A partner that fits 'one' shares the 'alu' subsystem with fma.rn.f32.")
    w(f"# wgmma.m64n128k16 + B fma.rn.f32 per wgmma (wgmma.cu, B = 16..256): one={wg['err']['one']:5.1f}%"
      f" separate={wg['err']['separate']:5.1f}% -> {wg['best']}")
    w("# wgmma cycles per wgmma per SM by N (m64nNk16 f16): "
      + ", ".join(f"{n}:{v * n / 2:.1f}" for n, v in sorted(wg["floor"] + wg["shapes"]))
      + "; below N = 64 the operand fetch from shared memory, (2048 + 32·N) B at 128 B/cycle, binds.")
    w("#")
    w("# Shared-memory bank conflicts (w lanes per bank, D = w - 1), ld.shared.u32:")
    bl = dict(raw.all("ld.shared", "latency"))
    bt = dict(raw.all("ld.shared", "throughput"))
    for k in sorted(bl, key=lambda s: int(s.split("=")[1])):
        w(f"#   {k:9s} Λ' = {bl[k]:6.2f}  λ' = {bt[k]:6.2f}")
    w("#   λ' = (1 + D)·λ holds exactly; Λ' grows by about 2·λ per extra way (Λ + 2·D·λ),")
    w("#   twice the Λ + D·λ of the paper's formula.")
    w("# Uncoalesced global loads (32 distinct 128 B lines per warp request), Λ:")
    for p in ("l1_32lines", "l2_32lines", "dram_32lines"):
        w(f"#   {p:13s} {raw.lat('ld.global', p):7.1f} cycles")
    w("# bar.sync, one block alone on its SM, Λ by warps per block: "
      + ", ".join(f"{k.split('=')[1]}:{v:.0f}" for k, v in raw.all("bar.sync", "latency")))
    w(f"# Bandwidth, bytes/cycle/SM: DRAM read {raw.get('ld.global', 'bandwidth', 'dram_read_b32'):.2f}, "
      f"DRAM write {raw.get('st.global', 'bandwidth', 'dram_write_v4'):.2f}, "
      f"L2 read {raw.get('ld.global', 'bandwidth', 'l2_read_v4'):.2f}, "
      f"L1 read {raw.get('ld.global', 'bandwidth', 'l1_read_v4'):.2f}.")
    w(f"# Device-wide bandwidth (mbw, {rel(a.bandwidth_raw)}), GB/s as event-timed, by")
    w("# level and reads:writes: " + ", ".join(
        f"{r['param']}:{r['value']:.0f}" for r in Raw(a.bandwidth_raw).rows
        if r["class"] == "bandwidth" and r["unit"] == "GB/s"))
    w(f"# and with 4 or 8 float4 per thread in flight (bw_peak.cu, {rel(a.bw_peak_raw)}): " + ", ".join(
        f"{r['param']}:{r['value']:.0f}" for r in Raw(a.bw_peak_raw).rows
        if r["class"] == "bandwidth" and r["unit"] == "GB/s"))
    cpa = Raw(a.cp_async_raw)
    w("# cp.async against ld.global of the same 512 B per warp instruction (cp_async.cu,")
    w(f"# {rel(a.cp_async_raw)}), cycles per warp instruction per SM: "
      + ", ".join(f"{r['class']} {r['param'].split(';')[0]}:{r['value']:.2f}" for r in cpa.rows
                  if r["kind"] == "throughput" and r["param"].endswith("ilp=4")))
    w("# A coalesced copy costs what the load costs at each level, so cp.async follows ld.global")
    w("# (sized by the sectors it reads); the suite's row (lanes 64 B apart, one destination per")
    w("# 16 copies, which the hardware partly drops) is listed below as cp.async.strided only.")
    w(f"# Shuffles beside a DRAM stream (mio_dram_mix.cu, {rel(a.mio_dram_mix_raw)}): the kernel")
    w(f"# doing both takes at most {shfl_worst:.3f} x the longer of the two alone (4 to 32 shuffles per")
    if shfl_apart:
        w(f"# float4 load), so shuffles run on a pipe of their own (shared loads do not: up to {lds_worst:.2f} x).")
    else:
        w(f"# float4 load), past 1.05, so shuffles stay on the memory subsystem as shared loads do"
          f" (up to {lds_worst:.2f} x).")
    w(f"# Block dispatch (mb launch, {rel(a.launch_raw)}), cycles per block per SM by")
    w("# threads per block and resident blocks: "
      + ", ".join(f"{t}t/{b}b:{v:.0f}" for t, b, v in launch["rows"]))
    w("#")
    w("# Every measured PTX form (name, subsystem, λ, Λ; how it was derived):")
    for name, sub, lam, L, how in classes:
        w(f"#   {name:24s} {sub:5s} {fmt(lam):>10s} {fmt(L):>9s}  {how}")
    w("")
    w(f'name = "{profile_name}"')
    w(f'display_name = "{display_name}"')
    w('architecture = "Hopper"')
    w('sass_arch = "sm_90"')
    w('vendor = "NVIDIA"')
    w(f"sm_count = {int(prop('sm_count'))}")
    w(f"clock_mhz = {int(round(prop('max_clock_khz') / 1000))}  # max = observed SM clock under load")
    w(f"warp_size = {int(prop('warp_size'))}")
    w(f"issue_limit = {ISSUE_LIMIT}  # 4 schedulers x 1 warp instruction per cycle")
    w("sub_partitions = 4")
    w('scheduler = "greedy-then-oldest"  # not measured: the policy the Rodinia evaluation validated (docs/results.md)')
    w('memory_subsystem = "mem"')
    w('reread_subsystem = "l2"  # l2_reread.cu: a warp\'s coalesced re-reads still in L2 overlap the DRAM stream')
    w('async_copy_subsystem = "copy"  # cp.async is non-blocking (PTX ISA): the warp goes on while its bytes move')
    w("")
    nominal = {"alu": by["fma.f32"][2], "sfu": fits["ex2.approx.ftz.f32"]["lam2"] if "ex2.approx.ftz.f32" in fits else None}
    used = []
    for _, sub, _, _, _ in [by[m] for _, m in TAXONOMY]:
        if sub not in used:
            used.append(sub)
    w("subsystems = [")
    for sub in used:
        nl = nominal.get(sub)
        if nl:
            w(f'  {{ name = "{sub}", nominal_lambda = {fmt(rl(nl))} }},')
        elif sub == "mem":
            w('  { name = "mem", sm_wide = true },  # the load/store path (MIO, L1/shared) serves the whole SM')
        elif sub == "shfl":
            continue
        else:
            w(f'  {{ name = "{sub}" }},')
    w('  { name = "l2", sm_wide = true },  # coalesced re-reads still in L2 (reread_subsystem)')
    w('  { name = "copy", sm_wide = true, queued = true },  # cp.async copies (async_copy_subsystem): queued at their global read\'s λ, cp_async.cu')
    w('  { name = "const" },  # constant-bank loads (LDC, ULDC): the constant cache, off the load/store path')
    if "shfl" in used:
        w('  { name = "shfl", sm_wide = true },  # shuffles: the SM\'s crossbar, beside the DRAM stream (mio_dram_mix.cu)')
    w("]")
    w("")
    w("[limits]")
    w(f"max_warps_per_sm = {int(prop('max_threads_per_sm')) // int(prop('warp_size'))}")
    w(f"max_blocks_per_sm = {int(prop('max_blocks_per_sm'))}")
    w(f"max_threads_per_sm = {int(prop('max_threads_per_sm'))}")
    w(f"registers_per_sm = {int(prop('registers_per_sm'))}")
    w("register_alloc_unit = 256  # occupancy calculator, cc 9.0")
    w(f"shared_memory_per_sm = {int(prop('shared_memory_per_sm'))}")
    w("shared_alloc_unit = 128  # occupancy calculator, cc 9.0")
    w(f"shared_reserved_per_block = {int(prop('reserved_shared_memory_per_block'))}")
    w(f"max_threads_per_block = {int(prop('max_threads_per_block'))}")
    w(f"max_shared_memory_per_block = {int(prop('shared_memory_per_block_optin'))}")
    w("max_registers_per_thread = 255")
    w(f"l2_bytes = {int(prop('l2_cache_size'))}  # device property l2_cache_size ({int(prop('l2_cache_size')) >> 20} MiB)")
    # From l2_reuse.cu (its own binary): where half the re-reads still hit, reads only
    # against reads with as many bytes written in between.
    half_ro, half_rw = l2_half_hits(a.l2_reuse_raw)
    weight = round((half_ro - half_rw) / half_rw)
    w(f"l2_written_weight = {weight}  # l2_reuse.cu: half the re-reads hit at {half_ro:.1f} MiB read only, "
      f"at {half_rw:.1f} + {half_rw:.1f} MiB read + written")
    curve = l2_hit_curve(a.l2_reuse_raw, int(prop("l2_cache_size")), weight)
    w("l2_hit_curve = [" + ", ".join(f"[{x}, {h}]" for x, h in curve) + "]"
      "  # l2_reuse.cu: thousandths of re-reads hitting against the footprint (written x2) in thousandths of L2, re-reading S while writing S")
    w("")
    w("[classes]")
    width = max(len(t) for t, _ in TAXONOMY) + 2
    for tax, m in TAXONOMY:
        _, sub, lam, L, _ = by[m]
        key = f'"{tax}"'
        w(f'{key:{width}s} = {{ subsystem = "{sub}", lambda = {fmt(lam)}, latency = {fmt(L)} }}  # {m}')
        if tax == "mov":
            # ptxas makes constant-bank and parameter loads operands (LDC, ULDC): they run at
            # the constant cache's measured λ and Λ, not on the load/store path.
            clam, cL, _ = memory["constant"]
            for name, note in (("ld.const", "ld.const, uniform address, constant cache hit"),
                               ("ld.param", "= ld.const")):
                key = f'"{name}"'
                w(f'{key:{width}s} = {{ subsystem = "const", lambda = {fmt(clam)}, latency = {fmt(cL)} }}  # {note}')
    w("")
    w("[launch]")
    w(f"latency = {fmt(launch['latency'])}  # one resident block: cycles from a block's start to the next one's")
    w(f"interval = {fmt(launch['interval'])}  # 4+ resident blocks: cycles between block starts on one SM")
    w(f"overhead_us = {device['overhead_us']:.2f}  # event time of a one-block kernel minus its own cycles (bandwidth.cu)")
    w("")
    w("[bandwidth]  # device-wide sustained GB/s, the highest of bandwidth.cu's and bw_peak.cu's streams, launch overhead taken out")
    w('source = "measured"')
    bw = device["bw"]
    mixes = {"read": (1, 0), "write": (0, 1), "mixed": (1, 1)}
    for lvl in ("dram", "l2"):
        for name, (rd, wr) in mixes.items():
            what = {"read": "reads only", "write": "writes only", "mixed": "reads and writes 1:1"}[name]
            w(f"{lvl}_{name} = {bw[(lvl, rd, wr)]:.0f}  # {what}")
    w(f"l2_atomic_slice_rate = {atomic['rate']:.0f}  # M atomic sectors/s per L2 slice: "
      f"{atomic['clock']:.0f} MHz / {atomic['cycles']:.3f} cycles per sector, median of "
      f"{atomic['n']} slice-bound launches ({atomic['lo']:.2f}-{atomic['hi']:.2f}), atomics.cu")
    w(f"l2_slices = {atomic['slices']}  # L2 slices: ncu lts__d_atomic_input_cycles_active "
      f".sum / .avg of every atomics.cu launch")
    w("")
    # u against this GPU's own sustained rates, as the profile writes them.
    ll = loaded_latency_fit.unified(a.loaded_latency_raw, tuple(
        round(bw[("dram", rd, wr)]) for rd, wr in ((1, 0), (1, 1), (0, 1))))
    w("[loaded_latency]  # DRAM Λ under load (loaded_latency.cu): Λ0 (1 + (reads u^reads_exp + writes w u^writes_exp) / (1 - u / capacity)), "
      f"u the DRAM utilization, w the write share; RMS {ll['rms']:.1f} % over {ll['points']} points")
    w(f"reads = {ll['a']:.4g}")
    w(f"reads_exp = {ll['k']:.2g}")
    w(f"writes = {ll['b']:.4g}")
    w(f"writes_exp = {ll['j']:.2g}")
    w(f"capacity = {ll['c']:.3g}")
    w("")
    w("[memory]")
    for lvl in ("dram", "l2", "l1", "shared", "local", "constant"):
        lam, L, how = memory[lvl]
        w(f"{lvl:8s} = {{ lambda = {fmt(lam)}, latency = {fmt(L)} }}  # {how}")
    sm_count, clock_mhz = int(prop("sm_count")), round(prop("max_clock_khz") / 1000)
    sc = scattered(a.gather_raw, sm_count=sm_count, clock_mhz=float(clock_mhz))
    if sc:
        w("")
        w("[scattered]  # cycles per SM per sector when every sector of a load is a line of its own: "
          f"{sm_count} SMs x {clock_mhz} MHz / the saturated rate of uniform random gathers (gather.cu)")
        w(f"l2_cycles_per_sector = {sc['l2']:.3f}  # {sc['l2_rate']:.1f} G sectors/s from a 4 MiB table")
        w(f"dram_cycles_per_sector = {sc['dram']:.3f}  # {sc['dram_rate']:.1f} G sectors/s from a 1 GiB table")
        fb = fetch_bytes(a.fetch_ncu)
        if fb:
            w(f"dram_fetch_bytes = {fb[0]:.0f}  # {fb[1]:.1f} DRAM bytes per scattered 4-byte miss "
              f"({rel(a.fetch_ncu)}, fetch.sh)")
        gather_date = parse_env(a.gather_raw.replace("_raw.csv", "_env.txt"))["date"][:10]
        w(f'source = "{rel(a.gather_raw)} (gather.sh, {gather_date})"')
    if os.path.exists(a.sass_expansion):
        w("")
        with open(a.sass_expansion) as f:
            o.extend(f.read().rstrip("\n").splitlines())
    if os.path.exists(a.unified):
        w("")
        w("# The unified hardware-fitted model (Stevens & Klöckner): seconds per counted property, fitted by")
        w("# fit_unified to bench/unified's measurement kernels timed on this GPU (docs/models.md).")
        with open(a.unified) as f:
            o.extend(f.read().rstrip("\n").splitlines())
    text = "\n".join(o).rstrip("\n") + "\n"
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(a.out, ROOT)}: {len(TAXONOMY)} classes "
          f"({len(classes)} measured forms), {len(memory)} memory levels")


if __name__ == "__main__":
    main()
