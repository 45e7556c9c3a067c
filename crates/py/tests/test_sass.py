"""Registers per thread from ptxas (``sass=``): the package resolves them with the CLI's code
(``sass::resolve``), so the same launch gives the same numbers as ``--sass``."""

import os
import pathlib
import subprocess
import warnings

import pandas as pd
import pytest

import ptx2idg
from test_cli_parity import cli_frame

ROOT = pathlib.Path(__file__).resolve().parents[3]
CFD = ROOT / "ptx_samples" / "rodinia" / "cfd.ptx"
SRAD = ROOT / "ptx_samples" / "rodinia" / "srad.ptx"
FLUX = dict(kernel="cfd_compute_flux", grid=1000, block=256, gpu="h100")
FLUX_CLI = ["--kernel", "cfd_compute_flux", "--grid", "1000", "--block", "256", "--gpu", "h100"]


def _ptxas_found():
    """Whether the Rust discovery finds ptxas (PATH, python3's nvidia packages, Triton), as
    the package sees it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ptx2idg.resources(CFD, kernel="cfd_compute_flux", gpu="h100", sass="auto")
    return r["regs_from"].startswith("ptxas")


@pytest.fixture
def ptxas():
    if not _ptxas_found():
        if os.environ.get("CI"):
            pytest.fail("CI must have ptxas (pip install nvidia-cuda-nvcc)")
        pytest.skip("no ptxas found (pip install nvidia-cuda-nvcc nvidia-cuda-cuobjdump)")


@pytest.fixture
def unpinned(monkeypatch):
    """The environment's default left to ``auto`` for the package and the CLI alike."""
    monkeypatch.delenv("PTX2IDG_SASS", raising=False)


def test_auto_matches_the_cli_without_regs(ptxas, unpinned):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ptxas found and reporting: nothing to say
        df = ptx2idg.simulate(CFD, **FLUX)
    want = cli_frame("simulate", CFD, *FLUX_CLI, "--format", "csv")
    pd.testing.assert_frame_equal(df, want, check_exact=True)
    r = ptx2idg.resources(CFD, kernel="cfd_compute_flux", gpu="h100")
    assert r["regs_from"] == "ptxas -arch=sm_90"
    # ptxas' registers, not the default: the same as giving them (the listing still aligns
    # the IDGs with the machine code).
    pd.testing.assert_frame_equal(
        df, ptx2idg.simulate(CFD, **FLUX, regs=r["regs"]), check_exact=True)
    assert r["regs"] != 32


def test_none_matches_the_cli_with_sass_none(unpinned):
    df = ptx2idg.simulate(CFD, **FLUX, sass="none")
    want = cli_frame("simulate", CFD, *FLUX_CLI, "--sass", "none", "--format", "csv")
    pd.testing.assert_frame_equal(df, want, check_exact=True)
    r = ptx2idg.resources(CFD, kernel="cfd_compute_flux", gpu="h100", sass="none")
    assert (r["regs"], r["regs_from"]) == (32, "default 32: sass='none'; sass= or regs=")
    # The default registers are 32: the same as giving them, without a listing.
    pd.testing.assert_frame_equal(
        df, ptx2idg.simulate(CFD, **FLUX, regs=32, sass="none"), check_exact=True)


def test_the_environment_sets_the_default(monkeypatch):
    monkeypatch.setenv("PTX2IDG_SASS", "none")
    assert ptx2idg.resources(CFD, kernel="cfd_compute_flux")["regs"] == 32
    monkeypatch.setenv("PTX2IDG_SASS", "")
    with pytest.raises(ValueError, match="sass=''"):
        ptx2idg.resources(CFD, kernel="cfd_compute_flux", sass="")


def test_registers_agree_with_explain(ptxas, unpinned):
    for ptx, kernel in [(CFD, "cfd_compute_flux"), (SRAD, "srad1")]:
        r = ptx2idg.resources(ptx, kernel=kernel, gpu="h100")
        err = subprocess.run(
            [os.environ.get("PTX2IDG_CLI", str(ROOT / "target" / "debug" / "ptx2idg")),
             "simulate", ptx, "--kernel", kernel, "--gpu", "h100", "--block", "256",
             "--explain"], capture_output=True, text=True, check=True).stderr
        line = next(l for l in err.splitlines() if l.startswith("registers per thread:"))
        assert line == f"registers per thread: {r['regs']} ({r['regs_from']})"


def test_without_ptxas_a_warning_says_how_to_get_it(monkeypatch, unpinned):
    monkeypatch.setenv("PTX2IDG_NO_SASS_TOOLS", "1")
    with pytest.warns(UserWarning, match="no ptxas found.*regs=N or sass=PATH"):
        df = ptx2idg.simulate(CFD, **FLUX)
    pd.testing.assert_frame_equal(df, ptx2idg.simulate(CFD, **FLUX, sass="none"),
                                  check_exact=True)


REPORT = """
Resource usage:
 Common:
  GLOBAL:0
 Function _Z16cfd_compute_fluxiPKiPKfS2_Pf:
  REG:40 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:404 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def test_a_saved_report_matches_the_cli(tmp_path, unpinned):
    report = tmp_path / "flux.res.txt"
    report.write_text(REPORT)
    df = ptx2idg.simulate(CFD, **FLUX, sass=report)
    want = cli_frame("simulate", CFD, *FLUX_CLI, "--sass", report, "--format", "csv")
    pd.testing.assert_frame_equal(df, want, check_exact=True)
    assert ptx2idg.resources(CFD, kernel="cfd_compute_flux", sass=str(report))["regs"] == 40
    bad = tmp_path / "bad.txt"
    bad.write_text("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                   "ptxas info    : Used xx registers, used 0 barriers\n")
    with pytest.raises(ptx2idg.Ptx2idgError, match=r"bad.txt:2:22: "):
        ptx2idg.simulate(CFD, **FLUX, sass=bad)
    with pytest.raises(FileNotFoundError):
        ptx2idg.simulate(CFD, **FLUX, sass=tmp_path / "missing.txt")
