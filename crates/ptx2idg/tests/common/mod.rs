//! What the end-to-end tests share: the built binary, run from the repository root.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

pub fn ptx2idg<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx2idg"))
        .args(args)
        .current_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")))
        .output()
        .expect("run ptx2idg")
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
