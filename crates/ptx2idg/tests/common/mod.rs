//! What the end-to-end tests share: the built binary, run from the repository root.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

/// Runs the CLI with `--sass` defaulting to `none` (env `PTX2IDG_SASS`), so that results do
/// not depend on whether this machine has ptxas; `ptx2idg_env` runs it as a user would.
pub fn ptx2idg<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Output {
    ptx2idg_env(args, &[("PTX2IDG_SASS", Some("none"))])
}

/// Runs the CLI with environment variables set (`Some`) or removed (`None`); `--sass`'s
/// default is `auto` unless `PTX2IDG_SASS` is given here.
pub fn ptx2idg_env<S: AsRef<OsStr>>(
    args: impl IntoIterator<Item = S>,
    env: &[(&str, Option<&str>)],
) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptx2idg"));
    c.env_remove("PTX2IDG_SASS")
        .env_remove("PTX2IDG_NO_SASS_TOOLS");
    for (k, v) in env {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c.args(args)
        .current_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")))
        .output()
        .expect("run ptx2idg")
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
