//! What several eval test files share: copies of the bundled Rodinia suite with an edited
//! manifest.

use std::path::{Path, PathBuf};

/// The bundled Rodinia suite.
pub fn rodinia() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples/rodinia")
}

/// A copy of the Rodinia suite under the test target's temporary folder `group/name` (the
/// other files linked) whose manifest `edit` changes, with `extra` files written beside it.
pub fn suite_with(
    group: &str,
    name: &str,
    edit: impl Fn(&str) -> String,
    extra: &[(&str, &str)],
) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(rodinia()).unwrap().flatten() {
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
    for (file, text) in extra {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}
