//! Snapshots of the IDG summary of every kernel of the Rodinia suite, built with the launch
//! its manifest records, and of the samples listed in `tests/launches.toml`, with the DOT of
//! the small ones. Adding a sample to that list adds its snapshots.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(root().join("snapshots/walk"));
    s.set_prepend_module_to_snapshot(false);
    s
}

fn summary(file: &Path, entry: &str, launch: ir::Launch) -> idg::KernelIdgs {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let module = ptx::parse(&text).unwrap();
    walk::front_end(
        &module,
        entry,
        &launch,
        &ir::TripInputs::default(),
        &walk::Options::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {entry}: {e}", file.display()))
    .built
    .idgs
}

fn dims(v: &toml::Value) -> [u32; 3] {
    let a = v.as_array().expect("[x, y, z]");
    let mut out = [1u32; 3];
    for (i, d) in a.iter().enumerate().take(3) {
        out[i] = d.as_integer().expect("integer") as u32;
    }
    out
}

#[test]
fn rodinia_summaries() {
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
        let launch = ir::Launch {
            grid: dims(&k["grid"]),
            block: dims(&k["block"]),
            params,
        };
        let idgs = summary(
            &dir.join(k["ptx"].as_str().unwrap()),
            k["entry"].as_str().unwrap(),
            launch,
        );
        settings().bind(|| {
            insta::assert_snapshot!(
                format!("rodinia__{}", k["id"].as_str().unwrap()),
                idg::render::summary(&idgs)
            );
        });
    }
}

#[test]
fn sample_summaries_and_dot() {
    let list: toml::Value =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/launches.toml"))
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
        let launch = ir::Launch {
            grid: dims(&s["grid"]),
            block: dims(&s["block"]),
            params,
        };
        let file = s["file"].as_str().unwrap();
        let entry = s["entry"].as_str().unwrap();
        let idgs = summary(&root().join("ptx_samples").join(file), entry, launch);
        let name = format!("{}__{}", file.replace(['/', '.'], "_"), entry);
        settings().bind(|| {
            insta::assert_snapshot!(format!("{name}__summary"), idg::render::summary(&idgs));
            let class = &idgs.classes[0];
            if let Ok(g) = class.idg.materialize(200) {
                insta::assert_snapshot!(
                    format!("{name}__dot"),
                    idg::dot::to_dot(&class.idg, &g, entry)
                );
            }
        });
    }
}
