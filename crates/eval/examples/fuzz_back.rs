//! Robustness run past the front end:
//! `cargo run --release -p eval --example fuzz_back -- TARGET [COUNT] [SEED]`, TARGET one of
//! `map`, `sim`, `gpu`, `suite`, `idg`, `patho`, `launch`, `manifest` or `all` (COUNT inputs
//! each).
//!
//! - `map`: mutated samples (`ptx_samples/`) through the front end and mappers f and g, with
//!   profiler metrics drawn from numeric extremes;
//! - `sim`: the same IDGs simulated at a random occupancy under a small simulated-instruction
//!   budget (200,000), so every input ends quickly;
//! - `gpu`: mutated GPU profile TOML (the bundled profiles and the TOML examples in `docs/`);
//! - `suite`: a mutated one-kernel Rodinia `suite.toml` loaded beside the real data files;
//! - `idg`: mutated IDG JSON (the samples' IDGs and the JSON examples in `docs/`), each one
//!   that reads back also mapped and simulated;
//! - `patho`: generated PTX at extremes of depth (nested loops, scopes, call chains), width
//!   (branches, registers), size and numeric bounds, through the front end and the simulator;
//! - `launch`: random launches of the samples (grid and block dimensions up to 2^32 - 1,
//!   parameter values of every kind in text: integers past every width, floats, `inf`,
//!   names and indices that do not exist, a parameter twice; walked group counts and lookahead
//!   windows past the limits), the spec text byte-mutated at times, read as the CLI reads it,
//!   then walked and simulated;
//! - `manifest`: generated one-kernel `suite.toml` manifests (keys of the wrong type, missing
//!   or repeated, parameter indices twice, `..` and absolute paths, values at the numeric
//!   extremes of each key, floats for integer parameters), loaded beside the real data files.
//!
//! Deterministic for a seed. A panic is caught, counted and its input written under
//! `target/fuzz-findings/`; the run fails at the end if any input panicked. The slowest input
//! is reported (each must end within seconds); with `FUZZ_SLOW_MS=N` in the environment every
//! input taking N ms or more is written under `target/fuzz-slow/`, to profile. `fuzz_back replay TARGET FILE [DRAWS]` drives a saved
//! input under 10,000 draws of launch, GPU and metrics, printing the first panic.

#[allow(dead_code)]
#[path = "../../ptx/tests/support/mutate.rs"]
mod mutate;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mutate::Rng;

const NUMBERS: [&str; 12] = [
    "0",
    "-1",
    "1",
    "2147483647",
    "-2147483648",
    "4294967295",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "1e308",
    "-0.0",
    "nan",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Files under `dir` (recursively) with extension `ext`, smaller than 200 kB, sorted.
fn files(dir: &Path, ext: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == ext)
                && e.metadata().is_ok_and(|m| m.len() < 200_000)
            {
                if let Ok(s) = std::fs::read_to_string(&p) {
                    out.push(s);
                }
            }
        }
    }
    out.sort();
    out
}

/// The fenced ```lang blocks of the docs.
fn doc_blocks(lang: &str) -> Vec<String> {
    let fence = format!("```{lang}");
    let mut out = Vec::new();
    for doc in files(&root().join("docs"), "md") {
        let mut lines = doc.lines();
        while let Some(l) = lines.next() {
            if l.trim() == fence {
                let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
                out.push(block.join("\n"));
            }
        }
    }
    out
}

/// Replaces one number of `src` (a run of digits) by a numeric extreme.
fn extreme(src: &str, rng: &mut Rng) -> String {
    let starts: Vec<usize> = src
        .char_indices()
        .filter(|&(i, c)| {
            c.is_ascii_digit() && (i == 0 || !src.as_bytes()[i - 1].is_ascii_alphanumeric())
        })
        .map(|(i, _)| i)
        .collect();
    if starts.is_empty() {
        return src.to_string();
    }
    let at = starts[rng.below(starts.len())];
    let end = at
        + src[at..]
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(src.len() - at);
    format!(
        "{}{}{}",
        &src[..at],
        NUMBERS[rng.below(NUMBERS.len())],
        &src[end..]
    )
}

fn mutated(src: &str, rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => extreme(src, rng),
        // A prefix or window of any length, edited a few times.
        1 => mutate::mutate(src.as_bytes(), rng, src.len()),
        _ => {
            let once = extreme(src, rng);
            mutate::mutate(once.as_bytes(), rng, once.len())
        }
    }
}

fn pick<'a>(v: &'a [String], rng: &mut Rng) -> &'a str {
    &v[rng.below(v.len())]
}

fn metric(rng: &mut Rng) -> Option<u64> {
    match rng.below(5) {
        0 => None,
        1 => Some(0),
        2 => Some(u64::MAX),
        3 => Some(1 << rng.below(64)),
        _ => Some(rng.next() % 1_000_000_000),
    }
}

fn ratio(rng: &mut Rng) -> Option<f64> {
    const R: [f64; 8] = [0.0, 0.5, 1.0, 31.0, 1e9, f64::MAX, f64::MIN_POSITIVE, -1.0];
    (rng.below(4) != 0).then(|| R[rng.below(R.len())])
}

fn random_metrics(rng: &mut Rng) -> Option<gpu::GMetrics> {
    (rng.below(3) != 0).then(|| gpu::GMetrics {
        dram_bytes: metric(rng),
        global_bytes: metric(rng),
        shared_load_conflict_degree: ratio(rng),
        shared_store_conflict_degree: ratio(rng),
        load_sectors_per_request: ratio(rng),
        store_sectors_per_request: ratio(rng),
        atomic_sectors_per_request: ratio(rng),
        l1_load_hit_share: ratio(rng),
    })
}

/// The front end on `text` for a random kernel and small launch; `None` if it is refused.
fn front(text: &str, rng: &mut Rng) -> Option<walk::FrontEnd> {
    let module = ptx::parse(text).ok()?;
    let names: Vec<String> = module.kernels().map(|f| f.name.clone()).collect();
    let name = names.get(rng.below(names.len().max(1)))?;
    let launch = ir::Launch {
        grid: [1 + rng.below(4) as u32, 1 + rng.below(2) as u32, 1],
        block: [32 * (1 + rng.below(4) as u32), 1, 1],
        params: Vec::new(),
    };
    let inputs = ir::TripInputs {
        explicit: &[],
        profile: None,
    };
    let opts = walk::Options {
        max_inlined: 50_000,
        max_idg_nodes: 200_000,
        groups: if rng.below(4) == 0 {
            walk::Groups::All
        } else {
            walk::Groups::Middle
        },
        ..walk::Options::default()
    };
    walk::front_end(&module, name, &launch, &inputs, &opts).ok()
}

fn profile(rng: &mut Rng) -> gpu::GpuProfile {
    let names = gpu::bundled_names();
    gpu::GpuProfile::bundled(names[rng.below(names.len())]).expect("bundled profile")
}

/// Maps and simulates `idgs` under a small budget; errors are fine, panics are not.
fn simulate(idgs: &idg::KernelIdgs, gpu: &gpu::GpuProfile, rng: &mut Rng) {
    let metrics = random_metrics(rng);
    let (timings, _) = gpu::map_kernel(idgs, gpu, metrics.as_ref());
    let launch = sim::Launch {
        regs_per_thread: [16, 32, 255][rng.below(3)],
        shared_bytes_per_block: [0, 1024, 1 << 20][rng.below(3)],
        blocks_per_sm: (rng.below(2) == 0).then(|| 1 + rng.below(8) as u32),
    };
    let opts = sim::SimOptions {
        max_simulated: 200_000,
        ..sim::ModelConfig::validated(gpu).sim_options()
    };
    let _ = sim::simulate_idgs(idgs, &timings, gpu, &launch, &opts);
}

struct Corpus {
    ptx: Vec<String>,
    gpu_toml: Vec<String>,
    idg_json: Vec<String>,
    suite: PathBuf,
    suite_toml: String,
}

/// A one-kernel copy of the Rodinia manifest whose data files are those of the real suite.
fn suite_dir() -> (PathBuf, String) {
    let real = root().join("ptx_samples/rodinia");
    let text = std::fs::read_to_string(real.join("suite.toml")).expect("rodinia suite.toml");
    let head = text.split("[[kernel]]").next().unwrap_or("").to_string();
    let first = text.split("[[kernel]]").nth(1).unwrap_or("");
    let manifest = format!("{head}[[kernel]]{first}");
    let dir = std::env::temp_dir().join(format!("fuzz-suite-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    for e in std::fs::read_dir(&real).expect("rodinia dir").flatten() {
        if e.file_name() != "suite.toml" {
            let to = dir.join(e.file_name());
            if !to.exists() {
                #[cfg(unix)]
                let _ = std::os::unix::fs::symlink(e.path(), &to);
            }
        }
    }
    (dir, manifest)
}

fn corpus() -> Corpus {
    let ptx = files(&root().join("ptx_samples"), "ptx");
    let mut gpu_toml = files(&root().join("crates/gpu/profiles"), "toml");
    gpu_toml.extend(doc_blocks("toml"));
    let mut idg_json = doc_blocks("json");
    // IDGs of the first samples that build, as seeds of the JSON reader.
    let mut rng = Rng(7);
    for text in ptx.iter().take(40) {
        if let Some(fe) = front(text, &mut rng) {
            idg_json.push(fe.built.idgs.to_json());
        }
    }
    let (suite, suite_toml) = suite_dir();
    Corpus {
        ptx,
        gpu_toml,
        idg_json,
        suite,
        suite_toml,
    }
}

/// The text of one input of `target`.
fn input(target: &str, c: &Corpus, rng: &mut Rng) -> String {
    match target {
        "map" | "sim" => mutated(pick(&c.ptx, rng), rng),
        "gpu" => mutated(pick(&c.gpu_toml, rng), rng),
        "suite" => mutated(&c.suite_toml, rng),
        "idg" => mutated(pick(&c.idg_json, rng), rng),
        "patho" => pathological(rng),
        "launch" => launch_spec(c, rng),
        "manifest" => manifest(c, rng),
        other => panic!("unknown target `{other}`"),
    }
}

/// Text for a launch value: every numeric extreme, floats, and what is not a number.
const LAUNCH_VALUES: [&str; 24] = [
    "0",
    "1",
    "-1",
    "32",
    "1024",
    "1025",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "0xffffffff",
    "1.5",
    "-2e-3",
    "1e39",
    "1e308",
    "inf",
    "NaN",
    "4.0",
    "x",
];

/// A launch of a sample as text, one setting a line (`ptx N`, `grid X,Y,Z`, `block X,Y,Z`,
/// `param NAME=VALUE`, `groups N`, `window N`), byte-mutated one time in four.
fn launch_spec(c: &Corpus, rng: &mut Rng) -> String {
    let v = |rng: &mut Rng| LAUNCH_VALUES[rng.below(LAUNCH_VALUES.len())];
    let small = |rng: &mut Rng| ["1", "2", "8", "32", "64"][rng.below(5)];
    let dim = |rng: &mut Rng, small_only: bool| {
        let n = 1 + rng.below(3);
        (0..n)
            .map(|_| {
                if small_only || rng.below(3) > 0 {
                    small(rng)
                } else {
                    v(rng)
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut s = format!("ptx {}\n", rng.below(c.ptx.len().max(1)));
    for what in ["grid", "block"] {
        let small_only = rng.below(2) == 0;
        s += &format!("{what} {}\n", dim(rng, small_only));
    }
    for _ in 0..rng.below(5) {
        let name = match rng.below(4) {
            0 => rng.below(12).to_string(),
            1 => "no_such_param".to_string(),
            _ => rng.below(4).to_string(),
        };
        let value = if rng.below(2) == 0 {
            ["0", "1", "16", "4096", "1.5"][rng.below(5)]
        } else {
            v(rng)
        };
        s += &format!("param {name}={value}\n");
    }
    if rng.below(2) == 0 {
        s += &format!(
            "groups {}\n",
            ["1", "64", "4096", "4097", "65536", "all", "0"][rng.below(7)]
        );
    }
    if rng.below(2) == 0 {
        s += &format!("window {}\n", v(rng));
    }
    if rng.below(4) == 0 {
        mutated(&s, rng)
    } else {
        s
    }
}

/// A launch spec read as the CLI reads one (its value checks are the library's:
/// `ir::Launch::check_dims`, `ir::ParamValue::parse`, the walk's group limit and the
/// lookahead window of at most 1024); walked, and simulated when it builds.
fn drive_launch(text: &str, c: &Corpus, rng: &mut Rng) -> bool {
    let dims = |v: &str| -> Option<[u32; 3]> {
        let mut d = [1u32; 3];
        let parts: Vec<&str> = v.split(',').collect();
        if parts.len() > 3 {
            return None;
        }
        for (i, p) in parts.iter().enumerate() {
            d[i] = p.trim().parse().ok().filter(|x| *x > 0)?;
        }
        Some(d)
    };
    let (mut ptx, mut grid, mut block) = (0usize, [1u32; 3], [32u32, 1, 1]);
    let (mut params, mut groups, mut window) = (Vec::new(), walk::Groups::Middle, 4u32);
    for line in text.lines() {
        let Some((key, value)) = line.split_once(' ') else {
            return false;
        };
        match key {
            "ptx" => ptx = value.parse().unwrap_or(0),
            "grid" => match dims(value) {
                Some(d) => grid = d,
                None => return false,
            },
            "block" => match dims(value) {
                Some(d) => block = d,
                None => return false,
            },
            "param" => {
                let Some((n, v)) = value.split_once('=') else {
                    return false;
                };
                match ir::ParamValue::parse(v) {
                    Ok(v) => params.push((n.to_string(), v)),
                    Err(_) => return false,
                }
            }
            "groups" => {
                groups = match value {
                    "all" => walk::Groups::All,
                    n => match n.parse::<u64>() {
                        Ok(n) if n > 0 => walk::Groups::Count(n),
                        _ => return false,
                    },
                }
            }
            "window" => match value.parse::<u32>() {
                Ok(w) if (1..=1024).contains(&w) => window = w,
                _ => return false,
            },
            _ => return false,
        }
    }
    if ir::Launch::check_dims(grid, block).is_err() {
        return false;
    }
    let Some(text) = c.ptx.get(ptx % c.ptx.len().max(1)) else {
        return false;
    };
    let Ok(module) = ptx::parse(text) else {
        return false;
    };
    let names: Vec<String> = module.kernels().map(|f| f.name.clone()).collect();
    let Some(name) = names.get(rng.below(names.len().max(1))) else {
        return false;
    };
    let launch = ir::Launch {
        grid,
        block,
        params,
    };
    let opts = walk::Options {
        max_inlined: 50_000,
        max_idg_nodes: 200_000,
        groups,
        ..walk::Options::default()
    };
    let inputs = ir::TripInputs {
        explicit: &[],
        profile: None,
    };
    let Ok(fe) = walk::front_end(&module, name, &launch, &inputs, &opts) else {
        return false;
    };
    let gpu = profile(rng);
    let (timings, _) = gpu::map_kernel(&fe.built.idgs, &gpu, None);
    let shared = module.static_shared_bytes(name).ok().flatten().unwrap_or(0);
    let sim_launch = sim::Launch {
        regs_per_thread: [16, 32, 255][rng.below(3)],
        shared_bytes_per_block: shared,
        blocks_per_sm: None,
    };
    let opts = sim::SimOptions {
        max_simulated: 200_000,
        ..sim::ModelConfig {
            window,
            ..sim::ModelConfig::validated(&gpu)
        }
        .sim_options()
    };
    let _ = sim::simulate_idgs(&fe.built.idgs, &timings, &gpu, &sim_launch, &opts);
    true
}

/// A one-kernel manifest generated from the Rodinia one: up to two of its lines dropped,
/// repeated (a key or a `[[kernel.param]]` twice) or given a value of another type or at an
/// extreme; a file at times named with `..` or an absolute path.
fn manifest(c: &Corpus, rng: &mut Rng) -> String {
    const VALUES: [&str; 16] = [
        "0",
        "-1",
        "1",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "-9223372036854775808",
        "1.5",
        "1e39",
        "nan",
        "inf",
        "\"4096\"",
        "true",
        "[1, 2, 3]",
        "{}",
        "\"../heldout/a_dgemm.ptx\"",
    ];
    let lines: Vec<&str> = c.suite_toml.lines().collect();
    // One or two lines changed (one manifest in eight unchanged), so most still read and the
    // later checks are reached.
    let edits: Vec<usize> = (0..rng.below(3))
        .map(|_| rng.below(lines.len().max(1)))
        .collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let action = if edits.contains(&i) { rng.below(4) } else { 4 };
        match (line.split_once(" = "), action) {
            (Some(_), 0) => {}
            (Some((k, _)), 1) => out += &format!("{k} = {}\n", VALUES[rng.below(VALUES.len())]),
            (Some((k, _)), 2) if k == "ptx" || k == "ncu" || k == "timings" || k == "env" => {
                out += &format!(
                    "{k} = \"{}\"\n",
                    [
                        "../rodinia/gaussian.ptx",
                        "/etc/hostname",
                        "./data/../gaussian.ptx",
                        ""
                    ][rng.below(4)]
                );
            }
            (_, 3) => {
                out += &format!("{line}\n{line}\n");
            }
            _ => {
                out += &format!("{line}\n");
            }
        }
    }
    out
}

/// Runs one input of `target`; true if it got past the reader or front end.
fn drive(target: &str, text: &str, c: &Corpus, rng: &mut Rng) -> bool {
    match target {
        "map" => {
            let fe = front(text, rng);
            if let Some(fe) = &fe {
                let metrics = random_metrics(rng);
                let _ = gpu::map_kernel(&fe.built.idgs, &profile(rng), metrics.as_ref());
            }
            fe.is_some()
        }
        "sim" | "patho" => {
            let fe = front(text, rng);
            if let Some(fe) = &fe {
                simulate(&fe.built.idgs, &profile(rng), rng);
            }
            fe.is_some()
        }
        "gpu" => {
            let p = gpu::GpuProfile::from_toml_str(text);
            if let Ok(p) = &p {
                // A profile that reads must also drive the mappers and the simulator.
                if let Some(fe) = front(pick(&c.ptx, rng), rng) {
                    simulate(&fe.built.idgs, p, rng);
                }
            }
            p.is_ok()
        }
        "suite" => {
            let _ = std::fs::write(c.suite.join("suite.toml"), text);
            eval::suite::load(&c.suite, &[]).is_ok()
        }
        "idg" => {
            let k = idg::KernelIdgs::from_json(text);
            if let Ok(k) = &k {
                simulate(k, &profile(rng), rng);
            }
            k.is_ok()
        }
        "launch" => drive_launch(text, c, rng),
        "manifest" => {
            let _ = std::fs::write(c.suite.join("suite.toml"), text);
            eval::suite::load(&c.suite, &[]).is_ok()
        }
        other => panic!("unknown target `{other}`"),
    }
}

const HEAD: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

/// Valid PTX at an extreme of depth, width, size or numeric range.
fn pathological(rng: &mut Rng) -> String {
    let n = [1, 2, 7, 64, 65, 255, 256, 257, 1000, 5000][rng.below(10)];
    let num = || NUMBERS[..8].iter().copied();
    let bounds: Vec<&str> = num().collect();
    let lo = bounds[rng.below(bounds.len())];
    let hi = bounds[rng.below(bounds.len())];
    let ty = ["s32", "u32", "s64", "u64"][rng.below(4)];
    match rng.below(6) {
        // Nested loops with extreme bounds.
        0 => {
            let mut s = format!(
                "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<2>;\n .reg .{ty} %r<{}>;\n",
                n + 1
            );
            for i in 0..n {
                s += &format!(" mov.{ty} %r{i}, {lo};\nL{i}:\n");
            }
            for i in (0..n).rev() {
                s += &format!(
                    " add.{ty} %r{i}, %r{i}, 1;\n setp.lt.{ty} %p1, %r{i}, {hi};\n @%p1 bra L{i};\n"
                );
            }
            s + " ret;\n}\n"
        }
        // A call chain or doubling tree.
        1 => {
            let fan = 1 + rng.below(2);
            let depth = if fan == 2 { n.min(24) } else { n };
            let mut s = HEAD.to_string();
            for i in (0..depth).rev() {
                s += &format!(".func f{i}()\n{{\n .reg .b32 %r<2>;\n add.s32 %r1, %r1, 1;\n");
                if i + 1 < depth {
                    for _ in 0..fan {
                        s += &format!(" call f{}, ();\n", i + 1);
                    }
                }
                s += " ret;\n}\n";
            }
            s + ".visible .entry k()\n{\n call f0, ();\n ret;\n}\n"
        }
        // Wide: many divergent branches on the thread index.
        2 => {
            let mut s = format!(
                "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<2>;\n .reg .u32 %r<4>;\n mov.u32 %r1, %tid.x;\n"
            );
            for i in 0..n {
                s += &format!(
                    " setp.lt.u32 %p1, %r1, {};\n @%p1 bra B{i};\n add.u32 %r2, %r2, 1;\nB{i}:\n",
                    i % 33
                );
            }
            s + " ret;\n}\n"
        }
        // Nested scopes.
        3 => {
            let d = n.min(70);
            format!(
                "{HEAD}.visible .entry k()\n{}\n .reg .b32 %r<2>;\n add.s32 %r1, %r1, 1;\n{}\n",
                "{".repeat(d + 1),
                "}".repeat(d + 1)
            )
        }
        // Many registers and long straight-line code.
        4 => {
            let mut s = format!("{HEAD}.visible .entry k()\n{{\n .reg .b32 %r<{}>;\n", n + 2);
            for i in 0..n {
                s += &format!(" add.s32 %r{}, %r{i}, {lo};\n", i + 1);
            }
            s + " ret;\n}\n"
        }
        // A loop bounded by a parameter-free extreme with an extreme step.
        _ => format!(
            "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<2>;\n .reg .{ty} %r<3>;\n mov.{ty} %r1, {lo};\nL1:\n \
             add.{ty} %r1, %r1, {step};\n setp.ne.{ty} %p1, %r1, {hi};\n @%p1 bra L1;\n ret;\n}}\n",
            step = bounds[rng.below(bounds.len())]
        ),
    }
}

fn run(target: &str, count: u64, seed: u64, c: &Corpus) -> u64 {
    let mut rng = Rng(seed | 1);
    let mut panics = 0;
    let mut reached = 0u64;
    let mut slowest = (Duration::ZERO, 0u64);
    let t = Instant::now();
    let findings = root().join("target/fuzz-findings");
    let slow: Option<u128> = std::env::var("FUZZ_SLOW_MS")
        .ok()
        .and_then(|v| v.parse().ok());
    for i in 0..count {
        let text = input(target, c, &mut rng);
        let start = Instant::now();
        let out = catch_unwind(AssertUnwindSafe(|| drive(target, &text, c, &mut rng)));
        let took = start.elapsed();
        if slow.is_some_and(|ms| took.as_millis() >= ms) {
            let d = root().join("target/fuzz-slow");
            let _ = std::fs::create_dir_all(&d);
            let name = format!("{target}-{seed}-{i}-{}ms.txt", took.as_millis());
            let _ = std::fs::write(d.join(name), &text);
        }
        if took > slowest.0 {
            slowest = (took, i);
        }
        match out {
            Ok(true) => reached += 1,
            Ok(false) => {}
            Err(_) => {
                panics += 1;
                let _ = std::fs::create_dir_all(&findings);
                let _ = std::fs::write(findings.join(format!("{target}-{seed}-{i}.txt")), &text);
            }
        }
        // Progress on stderr, so a long run that is stopped still tells how far it got clean.
        if i % 50_000 == 49_999 {
            eprintln!(
                "{target}: {} inputs (seed {seed}), {panics} panics, {:?}",
                i + 1,
                t.elapsed()
            );
        }
    }
    println!(
        "{target}: {count} inputs (seed {seed}), {reached} past the reader or front end, {panics} panics, slowest input #{} took {:?}, total {:?}",
        slowest.1,
        slowest.0,
        t.elapsed()
    );
    panics
}

fn main() {
    let mut args = std::env::args().skip(1);
    let target = args.next().unwrap_or_else(|| "all".to_string());
    if target == "replay" {
        // `replay TARGET FILE`: drives a saved input with the generator states it may have
        // met (the launch, GPU and metrics it drew), panics printed as usual.
        let (Some(t), Some(file)) = (args.next(), args.next()) else {
            eprintln!("usage: fuzz_back replay TARGET FILE [DRAWS]");
            std::process::exit(2);
        };
        let text = std::fs::read_to_string(&file).expect("the saved input");
        let c = corpus();
        let draws: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
        for seed in 1..=draws {
            drive(&t, &text, &c, &mut Rng(seed));
        }
        println!("{file}: {draws} replays without a panic");
        return;
    }
    let count: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    // Panics are counted and saved; their messages would drown the report.
    std::panic::set_hook(Box::new(|_| {}));
    let c = corpus();
    let targets: Vec<&str> = match target.as_str() {
        "all" => vec![
            "map", "sim", "gpu", "suite", "idg", "patho", "launch", "manifest",
        ],
        t => vec![t],
    };
    let panics: u64 = targets.iter().map(|t| run(t, count, seed, &c)).sum();
    let _ = std::fs::remove_dir_all(&c.suite);
    if panics > 0 {
        eprintln!("{panics} inputs panicked; see target/fuzz-findings/");
        std::process::exit(1);
    }
}
