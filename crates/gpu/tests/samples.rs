//! Mapper f over every instruction of every PTX sample, and the full mapping (f + g) of every
//! sample launch for two GPUs. Launches come from the fixtures the IDG builder's snapshots use
//! (crates/walk/tests/launches.toml) and the Rodinia manifest (ptx_samples/rodinia/suite.toml),
//! so adding a sample there adds its mapping snapshot here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gpu::{classify, GpuProfile, InstClass};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(root().join("snapshots/gpu"));
    s.set_prepend_module_to_snapshot(false);
    s
}

/// Every `.ptx` under ptx_samples/ except the multi-megabyte stress modules (parsing them in
/// a debug test build takes seconds and adds no new opcodes).
fn sample_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "ptx")
                && std::fs::metadata(&p).unwrap().len() < 1_000_000
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("ptx_samples"), &mut out);
    out
}

#[test]
fn mapper_f_classifies_every_sample_instruction() {
    // mnemonic -> class (no counts: samples get added, the classification is what matters)
    let mut seen: BTreeMap<String, Option<InstClass>> = BTreeMap::new();
    let files = sample_files();
    assert!(files.len() > 20, "samples not found");
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let module = ptx::parse(&text).unwrap_or_else(|e| panic!("{}: {e:?}", f.display()));
        for func in module.functions() {
            if let Some(body) = func.body.as_deref() {
                ptx::for_each_instruction(body, &mut |i| {
                    seen.entry(i.op.to_string())
                        .or_insert_with(|| classify(&i.op));
                });
            }
        }
    }
    let unclassified: Vec<&String> = seen
        .iter()
        .filter(|(_, c)| c.is_none())
        .map(|(m, _)| m)
        .collect();
    assert!(
        unclassified.is_empty(),
        "mapper f cannot classify: {unclassified:?}"
    );
    let mut table = String::new();
    for (m, c) in &seen {
        let class = c.map_or("unknown", InstClass::name);
        table.push_str(&format!("{m:<52} {class}\n"));
    }
    settings().bind(|| insta::assert_snapshot!("mapper_f_sample_mnemonics", table));
}

struct SampleLaunch {
    name: String,
    file: PathBuf,
    entry: String,
    launch: ir::Launch,
}

fn dims(v: &toml::Value) -> [u32; 3] {
    let mut out = [1u32; 3];
    for (i, d) in v.as_array().unwrap().iter().enumerate().take(3) {
        out[i] = d.as_integer().unwrap() as u32;
    }
    out
}

fn launches() -> Vec<SampleLaunch> {
    let mut out = Vec::new();
    let list: toml::Value = std::fs::read_to_string(root().join("crates/walk/tests/launches.toml"))
        .unwrap()
        .parse()
        .unwrap();
    for s in list["sample"].as_array().unwrap() {
        let params = s
            .get("params")
            .and_then(|p| p.as_table())
            .map(|t| {
                t.iter()
                    .map(|(k, v)| (k.clone(), v.as_integer().unwrap().into()))
                    .collect()
            })
            .unwrap_or_default();
        let file = s["file"].as_str().unwrap();
        let entry = s["entry"].as_str().unwrap();
        out.push(SampleLaunch {
            name: format!("{}__{}", file.replace(['/', '.'], "_"), entry),
            file: root().join("ptx_samples").join(file),
            entry: entry.to_string(),
            launch: ir::Launch {
                grid: dims(&s["grid"]),
                block: dims(&s["block"]),
                params,
            },
        });
    }
    let dir = root().join("ptx_samples/rodinia");
    let suite: toml::Value = std::fs::read_to_string(dir.join("suite.toml"))
        .unwrap()
        .parse()
        .unwrap();
    for k in suite["kernel"].as_array().unwrap() {
        let params = k
            .get("param")
            .and_then(|p| p.as_array())
            .map(|ps| {
                ps.iter()
                    .filter(|p| p["type"].as_str() == Some("s32"))
                    .map(|p| {
                        (
                            p["index"].as_integer().unwrap().to_string(),
                            p["value"].as_integer().unwrap().into(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.push(SampleLaunch {
            name: format!("rodinia__{}", k["id"].as_str().unwrap()),
            file: dir.join(k["ptx"].as_str().unwrap()),
            entry: k["entry"].as_str().unwrap().to_string(),
            launch: ir::Launch {
                grid: dims(&k["grid"]),
                block: dims(&k["block"]),
                params,
            },
        });
    }
    out
}

fn build(s: &SampleLaunch) -> idg::KernelIdgs {
    let text = std::fs::read_to_string(&s.file).unwrap();
    let module = ptx::parse(&text).unwrap();
    walk::front_end(
        &module,
        &s.entry,
        &s.launch,
        &ir::TripInputs::default(),
        &walk::Options::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", s.name))
    .built
    .idgs
}

/// Two paper GPUs: their profiles are fixed by Tables 4 and 5, so the snapshots change only
/// when the mappers or the IDG builder do.
#[test]
fn mapping_of_every_sample_for_two_gpus() {
    let gpus = [
        GpuProfile::bundled("pascal-gtx1060").unwrap(),
        GpuProfile::bundled("turing-rtx2070").unwrap(),
    ];
    for s in launches() {
        let idgs = build(&s);
        for g in &gpus {
            let (t, w) = gpu::map_kernel(&idgs, g, None);
            assert!(w.is_empty(), "{}: unexpected warnings {w:?}", s.name);
            let m = gpu::mapping(&idgs, &t, g, w);
            settings().bind(|| {
                insta::assert_snapshot!(format!("{}__{}", s.name, g.name), gpu::mapping_table(&m))
            });
        }
    }
}
