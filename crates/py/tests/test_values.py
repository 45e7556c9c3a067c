"""Launch values are read as the CLI reads them, or refused: never truncated or split."""

import pathlib

import pytest

import ptx2idg

ROOT = pathlib.Path(__file__).resolve().parents[3]
GAUSSIAN = ROOT / "ptx_samples" / "rodinia" / "gaussian.ptx"


def stats(**launch):
    return ptx2idg.idg(GAUSSIAN, kernel="fan2", **launch)[1]


def test_grid_as_a_string_is_the_cli_form():
    # "512" was read as the characters 5, 1, 2.
    assert stats(grid="512,512", block="8,8") == stats(grid=(512, 512), block=(8, 8))


@pytest.mark.parametrize("launch, message", [
    (dict(grid=(512, 512), block=(8, 8), params={"3": 1.5}), "params['3']=1.5"),
    (dict(grid=(512.0, 512), block=(8, 8)), "grid=512.0"),
    (dict(grid=(512, 512), block="8,x"), "block='8,x'"),
    (dict(grid=(512, 512), block=(8, 8), params={"3": True}), "expected an integer"),
])
def test_non_integers_are_refused(launch, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        stats(**launch)


def test_dimensions_past_the_device_are_refused():
    with pytest.raises(ValueError, match="at most 1024"):
        stats(grid=(1,), block=(1024, 1024, 64))


def test_a_parameter_wider_than_its_type_is_refused():
    with pytest.raises(ptx2idg.Ptx2idgError, match="does not fit"):
        stats(grid=(512, 512), block=(8, 8), params={"3": 4294967306})


def test_the_package_has_a_version():
    major, minor = ptx2idg.__version__.split(".")[:2]
    assert major.isdigit() and minor.isdigit(), ptx2idg.__version__
