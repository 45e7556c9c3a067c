//! A suite manifest is read as written or refused with the cause: files stay inside the suite
//! folder, a parameter index appears once, and a value has its parameter's type (a value of
//! the wrong type was dropped as if the parameter had none).

use std::path::{Path, PathBuf};

/// A copy of the Rodinia suite whose manifest `edit` changes (the data files linked).
fn suite_with(name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples/rodinia");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("manifest")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(&real).unwrap().flatten() {
        let to = dir.join(e.file_name());
        if e.file_name() == "suite.toml" {
            let text = std::fs::read_to_string(e.path()).unwrap();
            let changed = edit(&text);
            assert_ne!(changed, text, "{name}: the edit changes the manifest");
            std::fs::write(&to, changed).unwrap();
        } else {
            #[cfg(unix)]
            std::os::unix::fs::symlink(e.path(), &to).unwrap();
        }
    }
    dir
}

fn refused(name: &str, edit: impl Fn(&str) -> String, cause: &str) {
    let dir = suite_with(name, edit);
    let e = eval::load(&dir, &["gaussian_fan2".to_string()])
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains(cause), "{name}: {e}");
}

#[test]
fn files_outside_the_suite_folder_are_refused() {
    refused(
        "parent",
        |t| {
            t.replacen(
                "ptx = \"gaussian.ptx\"",
                "ptx = \"../heldout/a_dgemm.ptx\"",
                1,
            )
        },
        "`../heldout/a_dgemm.ptx`: files are named relative to the suite folder",
    );
    refused(
        "absolute",
        |t| t.replacen("ptx = \"gaussian.ptx\"", "ptx = \"/etc/hostname\"", 1),
        "`/etc/hostname`: files are named relative to the suite folder",
    );
}

#[test]
fn parameter_values_have_their_type_and_indices_appear_once() {
    let fan2_n =
        "index = 3\nname = \"_Z13gaussian_fan2PfS_PKfii_param_3\"\ntype = \"s32\"\nvalue = 4096";
    refused(
        "float",
        |t| t.replacen(fan2_n, &fan2_n.replace("4096", "4096.7"), 1),
        "4096.7 for parameter 3",
    );
    refused(
        "string",
        |t| t.replacen(fan2_n, &fan2_n.replace("4096", "\"4096\""), 1),
        "expected an integer",
    );
    refused(
        "duplicate",
        |t| {
            t.replacen(
                "index = 3\nname = \"_Z13gaussian_fan2",
                "index = 2\nname = \"_Z13gaussian_fan2",
                1,
            )
        },
        "`param.index`: 2 twice",
    );
}
