"""The package against the CLI: same columns, same numbers, located errors."""

import io
import json
import os
import pathlib
import subprocess
import warnings

import pandas as pd
import pytest

import ptx2idg

ROOT = pathlib.Path(__file__).resolve().parents[3]
CLI = os.environ.get("PTX2IDG_CLI", str(ROOT / "target" / "debug" / "ptx2idg"))
GAUSSIAN = ROOT / "ptx_samples" / "rodinia" / "gaussian.ptx"
NCU = ROOT / "ptx_samples" / "rodinia" / "data" / "ncu" / "gaussian_fan2.csv"
LAUNCH = dict(kernel="fan2", grid=(512, 512), block=(8, 8), params={"3": 4096, "4": 0})
CLI_LAUNCH = ["--kernel", "fan2", "--grid", "512,512", "--block", "8,8",
              "--param", "3=4096", "--param", "4=0"]
# Both simulate under the validated configuration unless told otherwise.
CLI_BASE = []


def cli(*args):
    out = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, check=True)
    return out.stdout


def cli_frame(*args):
    # The CLI prints six significant digits unless asked for more; Python keeps every digit.
    return pd.read_csv(io.StringIO(cli(*args, "--precision", "17")))


def test_kernels_match_check_json():
    report = json.loads(cli("check", GAUSSIAN, "--json"))[0]
    got = ptx2idg.kernels(GAUSSIAN)
    for k in got:
        assert k.pop("shared_bytes") == 0
    assert got == report["kernels"]
    assert [k["name"] for k in ptx2idg.check(str(GAUSSIAN))["kernels"]] == \
        [k["name"] for k in got]


def test_idg_matches_json_and_stats():
    g = ptx2idg.idg(GAUSSIAN, **LAUNCH)
    assert g.graph == json.loads(cli(GAUSSIAN, *CLI_LAUNCH, "--format", "json"))
    assert g.stats == json.loads(cli(GAUSSIAN, *CLI_LAUNCH, "--format", "stats"))


def test_ptx_text_and_path_agree():
    assert ptx2idg.idg(GAUSSIAN.read_text(), **LAUNCH) == ptx2idg.idg(GAUSSIAN, **LAUNCH)


@pytest.mark.parametrize("trips", [None, "path", "text", "frame"])
def test_simulate_matches_cli(trips):
    given = {
        None: None,
        "path": NCU,
        "text": NCU.read_text(),
        "frame": pd.read_csv(NCU, dtype=str, keep_default_na=False),
    }[trips]
    df = ptx2idg.simulate(GAUSSIAN, **LAUNCH, trips=given, occupancy=range(1, 17))
    extra = [] if trips is None else ["--trips", NCU]
    want = cli_frame("simulate", GAUSSIAN, *CLI_LAUNCH, *extra, *CLI_BASE,
                     "--occupancy", "1..=16")
    assert list(df.columns) == "occupancy_warps,blocks_per_sm,cycles,wpc,time_us".split(",")
    pd.testing.assert_frame_equal(df, want, check_exact=True)


def test_simulate_blocks_per_sm_and_options_match_cli():
    df = ptx2idg.simulate(GAUSSIAN, **LAUNCH, blocks_per_sm=range(2, 6), order="dataflow",
                          window=64, scheduler="lrr", sub_partitions=False)
    want = cli_frame("simulate", GAUSSIAN, *CLI_LAUNCH, "--blocks-per-sm", "2..=5",
                     "--issue", "dataflow", "--window", "64", "--no-sub-partitions",
                     "--scheduler", "lrr")
    pd.testing.assert_frame_equal(df, want, check_exact=True)


def test_one_run_matches_cli():
    df = ptx2idg.simulate(GAUSSIAN, **LAUNCH, regs=40, shared=20000)
    want = cli_frame("simulate", GAUSSIAN, *CLI_LAUNCH, *CLI_BASE, "--regs", "40",
                     "--shared", "20000", "--format", "csv")
    assert len(df) == 1
    pd.testing.assert_frame_equal(df, want, check_exact=True)


def test_models_matches_cli():
    df = ptx2idg.models(GAUSSIAN, **LAUNCH, occupancy=range(1, 9))
    want = cli_frame("models", GAUSSIAN, *CLI_LAUNCH, "--occupancy", "1..=8")
    assert ",".join(df.columns) == cli("models", GAUSSIAN, *CLI_LAUNCH,
                                      "--occupancy", "2").splitlines()[0]
    pd.testing.assert_frame_equal(df, want, check_exact=True)


UNEVEN = ROOT / "bench" / "uneven_suite" / "uneven.ptx"
UNEVEN_NCU = ROOT / "bench" / "uneven_suite" / "data" / "ncu" / "fma_a2.csv"
UNEVEN_LAUNCH = dict(kernel="uneven_fma", grid=(4224,), block=(256,))
UNEVEN_CLI = ["--kernel", "uneven_fma", "--grid", "4224", "--block", "256",
              "--trips", UNEVEN_NCU]


def test_uneven_warps_match_cli():
    # A profiled launch whose warps end unevenly: the package splits the fitted loop by the
    # busy share and rotates the classes as the CLI's simulate and models do.
    df = ptx2idg.simulate(UNEVEN, **UNEVEN_LAUNCH, trips=UNEVEN_NCU, blocks_per_sm=range(1, 3))
    want = cli_frame("simulate", UNEVEN, *UNEVEN_CLI, "--blocks-per-sm", "1..=2")
    pd.testing.assert_frame_equal(df, want, check_exact=True)
    even = cli_frame("simulate", UNEVEN, *UNEVEN_CLI, "--blocks-per-sm", "1..=2",
                     "--no-uneven-warps")
    assert (df["cycles"] > even["cycles"]).all()
    m = ptx2idg.models(UNEVEN, **UNEVEN_LAUNCH, trips=UNEVEN_NCU, occupancy=range(8, 17))
    pd.testing.assert_frame_equal(
        m, cli_frame("models", UNEVEN, *UNEVEN_CLI, "--occupancy", "8..=16"), check_exact=True)


BRANCH = ROOT / "bench" / "branch_suite" / "branch.ptx"
BRANCH_NCU = ROOT / "bench" / "branch_suite" / "data" / "ncu" / "fma_warps25.csv"
BRANCH_LAUNCH = dict(kernel="branch_fma", grid=(4224,), block=(256,),
                     params={"branch_fma_param_4": 192})
BRANCH_CLI = ["--kernel", "branch_fma", "--grid", "4224", "--block", "256",
              "--param", "branch_fma_param_4=192", "--trips", BRANCH_NCU]


def test_fitted_branches_match_cli():
    # A quarter of the warps take the long side of a branch on unknown data: the package
    # shares the warps between the two sides as the counters support, as the CLI does.
    df = ptx2idg.simulate(BRANCH, **BRANCH_LAUNCH, trips=BRANCH_NCU, blocks_per_sm=range(1, 3))
    want = cli_frame("simulate", BRANCH, *BRANCH_CLI, "--blocks-per-sm", "1..=2")
    pd.testing.assert_frame_equal(df, want, check_exact=True)
    every = cli_frame("simulate", BRANCH, *BRANCH_CLI, "--blocks-per-sm", "1..=2",
                      "--no-fit-branches")
    assert (df["cycles"] < every["cycles"]).all()


def test_eval_matches_cli():
    suite = ROOT / "ptx_samples" / "rodinia"
    mape, points = ptx2idg.eval(suite, kernels=["gaussian_fan2"])
    pd.testing.assert_frame_equal(
        mape, cli_frame("eval", suite, "--kernel", "gaussian_fan2", "--format", "csv"),
        check_exact=True)
    pd.testing.assert_frame_equal(
        points, cli_frame("eval", suite, "--kernel", "gaussian_fan2", "--format", "points"),
        check_exact=True)


def test_eval_of_another_gpus_manifest_matches_cli():
    # The same kernel measured on an H200 (suite-h200.toml), with the H200's profile.
    manifest = ROOT / "ptx_samples" / "rodinia" / "suite-h200.toml"
    mape, points = ptx2idg.eval(manifest, gpu="h200", kernels=["nw_kernel1"])
    cli_args = ("eval", manifest, "--gpu", "h200", "--kernel", "nw_kernel1")
    pd.testing.assert_frame_equal(mape, cli_frame(*cli_args, "--format", "csv"), check_exact=True)
    pd.testing.assert_frame_equal(points, cli_frame(*cli_args, "--format", "points"),
                                  check_exact=True)
    h100 = ptx2idg.eval(manifest.parent, kernels=["nw_kernel1"])[1]
    assert not points["measured_wpc"].equals(h100["measured_wpc"])


@pytest.mark.parametrize("counters", ["all", "one", "none"])
def test_eval_counters_match_cli(counters):
    # The CLI's --counters: with none, only the top launch's instruction count is read, and
    # the package says so as the CLI does.
    suite = ROOT / "ptx_samples" / "rodinia"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mape, points = ptx2idg.eval(suite, kernels=["cfd_time_step"], counters=counters)
    cli_args = ("eval", suite, "--kernel", "cfd_time_step", "--counters", counters)
    pd.testing.assert_frame_equal(mape, cli_frame(*cli_args, "--format", "csv"),
                                  check_exact=True)
    pd.testing.assert_frame_equal(points, cli_frame(*cli_args, "--format", "points"),
                                  check_exact=True)
    said = [str(w.message) for w in caught]
    assert any("--counters none" in m for m in said) == (counters == "none"), said
    assert mape["mape"].notna().all()


def test_eval_counters_default_and_errors():
    suite = ROOT / "ptx_samples" / "rodinia"
    default = ptx2idg.eval(suite, kernels=["cfd_time_step"])[1]
    pd.testing.assert_frame_equal(
        default, ptx2idg.eval(suite, kernels=["cfd_time_step"], counters="all")[1])
    with pytest.warns(UserWarning, match="--counters none"):
        none = ptx2idg.eval(suite, kernels=["cfd_time_step"], counters="none")[1]
    assert not default.equals(none)
    for bad in ["some", "ALL", None]:
        with pytest.raises(ValueError, match="all, one or none|'all', 'one' or 'none'"):
            ptx2idg.eval(suite, kernels=["cfd_time_step"], counters=bad)


BAD = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tadd.s32 %r1 %r2;\n}\n"


def test_bad_ptx_raises_with_location(tmp_path):
    with pytest.raises(ptx2idg.PtxError, match=r"^<string>:6:\d+: "):
        ptx2idg.kernels(BAD)
    path = tmp_path / "bad.ptx"
    path.write_text(BAD)
    with pytest.raises(ptx2idg.PtxError, match=rf"^{path}:6:\d+: "):
        ptx2idg.simulate(path)
    assert issubclass(ptx2idg.PtxError, ptx2idg.Ptx2idgError)


def test_input_errors_are_exceptions():
    with pytest.raises(ptx2idg.Ptx2idgError, match="no_such_kernel"):
        ptx2idg.idg(GAUSSIAN, kernel="no_such_kernel")
    with pytest.raises(ptx2idg.Ptx2idgError):
        ptx2idg.simulate(GAUSSIAN, **LAUNCH, gpu="no-such-gpu")
    with pytest.raises(ValueError):
        ptx2idg.simulate(GAUSSIAN, **LAUNCH, order="sideways")
