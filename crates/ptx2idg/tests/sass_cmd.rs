//! End-to-end tests of `--sass auto|none|FILE` (docs/sass-input.md, "`--sass`"): a kernel
//! launched without `--regs` gets its registers per thread, and so its occupancy limit, from
//! ptxas. Rodinia's cfd_compute_flux uses 69 registers on sm_90 (CUDA 13.5), so 256-thread
//! blocks fit 3 per H100 SM instead of the 8 that 32 registers allow. Tests that run ptxas
//! skip with a message without it, and fail instead when the environment variable `CI` is set.

mod common;

use std::process::Output;

use common::{ptx2idg_env, text};

/// `ptxas -v` of ptx_samples/rodinia/cfd.ptx for sm_90 (CUDA 13.5).
const FIXTURE: &str = "crates/ptx2idg/tests/fixtures/cfd.ptxas-v.txt";

/// cfd_compute_flux on the H100 at `--blocks-per-sm blocks`, `--sass` left to its default
/// unless `extra` gives it, with the environment `env`.
fn flux(blocks: &str, extra: &[&str], env: &[(&str, Option<&str>)]) -> Output {
    let mut args = vec![
        "simulate",
        "ptx_samples/rodinia/cfd.ptx",
        "--kernel",
        "cfd_compute_flux",
        "--grid",
        "1000",
        "--block",
        "256",
        "--gpu",
        "h100",
        "--format",
        "json",
        "--explain",
        "--blocks-per-sm",
        blocks,
    ];
    args.extend_from_slice(extra);
    ptx2idg_env(args, env)
}

fn has_ptxas() -> bool {
    match sass::tools::Toolchain::discover().require(sass::tools::Tool::Ptxas) {
        Ok(_) => true,
        Err(e) if std::env::var_os("CI").is_some() => panic!("CI must have ptxas: {e}"),
        Err(e) => {
            eprintln!("skipping: {e}");
            false
        }
    }
}

fn registers_line(o: &Output) -> String {
    let err = text(&o.stderr);
    err.lines()
        .find(|l| l.starts_with("registers per thread:"))
        .unwrap_or_else(|| panic!("{err}"))
        .to_string()
}

#[test]
fn ptxas_registers_set_the_occupancy_limit() {
    if !has_ptxas() {
        return;
    }
    // Without --regs: 69 registers, at most 3 blocks per SM.
    let o = flux("4", &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("maximum of 3 blocks per SM") && err.contains("69 registers per thread"),
        "{err}"
    );
    let o = flux("3", &[], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        registers_line(&o),
        "registers per thread: 69 (ptxas -arch=sm_90)"
    );
    // --regs wins.
    let o = flux("4", &["--regs", "32"], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(registers_line(&o), "registers per thread: 32 (--regs)");
}

#[test]
fn sass_none_restores_the_default_exactly() {
    let none = flux("4", &["--sass", "none"], &[]);
    assert!(none.status.success(), "{}", text(&none.stderr));
    assert_eq!(
        registers_line(&none),
        "registers per thread: 32 (default 32: --sass none; --sass or --regs)"
    );
    // The same as --regs 32: the result the CLI gave before --sass.
    let regs = flux("4", &["--sass", "none", "--regs", "32"], &[]);
    assert_eq!(text(&none.stdout), text(&regs.stdout));
    // The environment variable sets the default; the option wins over it.
    let env = flux("4", &[], &[("PTX2IDG_SASS", Some("none"))]);
    assert_eq!(text(&none.stdout), text(&env.stdout));
}

#[test]
fn a_saved_report_gives_the_registers_ptxas_gives() {
    let file = flux("3", &["--sass", FIXTURE], &[]);
    assert!(file.status.success(), "{}", text(&file.stderr));
    assert_eq!(
        registers_line(&file),
        format!("registers per thread: 69 ({FIXTURE})")
    );
    let refused = flux("4", &["--sass", FIXTURE], &[]);
    assert_eq!(refused.status.code(), Some(2));
    if !has_ptxas() {
        return;
    }
    // ptxas itself gives the same registers, so the same occupancy; its listing also aligns
    // the IDGs with the machine code (loads, bank conflicts), which a `-v` report cannot.
    let auto = flux("3", &[], &[]);
    let occupancy = |o: &Output| -> Vec<String> {
        text(&o.stdout)
            .lines()
            .filter(|l| l.contains("\"occupancy_warps\"") || l.contains("\"concurrent_groups\""))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(occupancy(&file).len(), 2);
    assert_eq!(occupancy(&file), occupancy(&auto));
    assert_eq!(
        registers_line(&auto),
        "registers per thread: 69 (ptxas -arch=sm_90)"
    );
}

#[test]
fn a_bad_report_is_an_error_at_its_line_and_column() {
    let dir = std::env::temp_dir().join(format!("ptx2idg-sass-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(
        &bad,
        "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
         ptxas info    : Used xx registers, used 0 barriers\n",
    )
    .unwrap();
    let o = flux("3", &["--sass", bad.to_str().unwrap()], &[]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    let want = format!("ptx2idg: error: {}:2:22: ", bad.display());
    assert!(err.lines().any(|l| l.starts_with(&want)), "{err}");
}

#[test]
fn without_ptxas_a_note_says_how_to_get_it() {
    let o = flux("4", &[], &[("PTX2IDG_NO_SASS_TOOLS", Some("1"))]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("ptx2idg: note: no ptxas found"))
        .collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("pip install nvidia-cuda-nvcc"), "{err}");
    assert_eq!(
        registers_line(&o),
        "registers per thread: 32 (default 32: no ptxas; --sass or --regs)"
    );
    // `--sass none` asks for no tool: no note.
    let o = flux(
        "4",
        &["--sass", "none"],
        &[("PTX2IDG_NO_SASS_TOOLS", Some("1"))],
    );
    assert!(!text(&o.stderr).contains("note:"), "{}", text(&o.stderr));
}

#[test]
fn without_ptxas_but_with_regs_the_note_names_what_is_lost() {
    let o = flux(
        "4",
        &["--regs", "40"],
        &[("PTX2IDG_NO_SASS_TOOLS", Some("1"))],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    let note = err
        .lines()
        .find(|l| l.starts_with("ptx2idg: note: no ptxas found"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(note.contains("not aligned with the machine code"), "{note}");
    assert!(!note.contains("default to"), "{note}");
    assert_eq!(registers_line(&o), "registers per thread: 40 (--regs)");
}

#[test]
fn idg_json_input_has_no_ptx_to_compile() {
    let dir = std::env::temp_dir().join(format!("ptx2idg-sass-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("flux.json");
    let o = common::ptx2idg([
        "ptx_samples/rodinia/cfd.ptx",
        "--kernel",
        "cfd_compute_flux",
        "--block",
        "256",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    std::fs::write(&json, &o.stdout).unwrap();
    let o = ptx2idg_env(
        [
            "simulate",
            json.to_str().unwrap(),
            "--gpu",
            "h100",
            "--blocks-per-sm",
            "4",
            "--explain",
        ],
        &[],
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        registers_line(&o),
        "registers per thread: 32 (default 32: IDG JSON has no PTX; --sass or --regs)"
    );
}

#[test]
fn models_explain_names_the_occupancy_limit() {
    let o = ptx2idg_env(
        [
            "models",
            "ptx_samples/rodinia/cfd.ptx",
            "--kernel",
            "cfd_compute_flux",
            "--block",
            "256",
            "--gpu",
            "h100",
            "--occupancy",
            "8..=16",
            "--no-pipeline",
            "--explain",
            "--sass",
            FIXTURE,
        ],
        &[],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("registers per thread: 69")
            && err.contains("occupancy limit: 24 warps (3 blocks per SM, limited by registers"),
        "{err}"
    );
}
