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
    # Parameter 3 of Fan2 is a .u32: a float is refused by its type, naming both.
    (dict(grid=(512, 512), block=(8, 8), params={"3": 1.5}),
     "params['3']=1.5: parameter `_Z13gaussian_fan2PfS_PKfii_param_3` of kernel "
     "`_Z13gaussian_fan2PfS_PKfii` is .u32: 1.5 is not an integer"),
    (dict(grid=(512, 512), block=(8, 8), params={3: 4.0}), "params[3]=4.0: .*give the integer 4"),
    (dict(grid=(512.0, 512), block=(8, 8)), "grid=512.0"),
    (dict(grid=(512, 512), block="8,x"), "block='8,x'"),
    (dict(grid=(512, 512), block=(8, 8), params={"3": True}), "expected an integer or a float"),
])
def test_non_integers_are_refused(launch, message):
    pattern = message.replace("[", r"\[").replace("(", r"\(").replace(".u32", r"\.u32")
    with pytest.raises(ValueError, match=pattern):
        stats(**launch)


def test_dimensions_past_the_device_are_refused():
    with pytest.raises(ValueError, match="at most 1024"):
        stats(grid=(1,), block=(1024, 1024, 64))


def test_a_parameter_wider_than_its_type_is_refused():
    with pytest.raises(ptx2idg.Ptx2idgError, match="does not fit"):
        stats(grid=(512, 512), block=(8, 8), params={"3": 4294967306})


FLOAT_KERNEL = """.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .f16 k_param_0, .param .f32 alpha, .param .s32 n)
{
 .reg .pred %p<2>;
 .reg .b16 %rs<2>;
 .reg .b32 %r<4>;
 ld.param.b16 %rs1, [k_param_0];
 cvt.u32.u16 %r2, %rs1;
 mov.u32 %r1, 0;
L1:
 add.s32 %r1, %r1, 1;
 setp.lt.u32 %p1, %r1, %r2;
 @%p1 bra L1;
 ret;
}
"""


def test_float_parameters_take_floats():
    # The loop runs as many times as the .f16 parameter's bits: 1.0 is 0x3c00 = 15360 (the
    # IDG repeats the body 15359 times after the first iteration).
    g = ptx2idg.idg(FLOAT_KERNEL, params={0: 1.0, "alpha": 2.5, "n": 7}).graph
    assert "15359" in str(g), "the .f16 parameter is bound as its bits"
    assert ptx2idg.idg(FLOAT_KERNEL, params={0: 1}).graph == g, "1 is 1.0"


@pytest.mark.parametrize("params, message", [
    ({"alpha": 1e39}, r"params\['alpha'\]=1e39: .* is \.f32: 1e39 is past the largest finite"),
    ({"alpha": float("nan")}, r"params\['alpha'\]=NaN: .*not a finite number"),
    ({0: 65520}, r"params\[0\]=65520: .*no exact \.f16 value"),
    ({"n": 2.5}, r"params\['n'\]=2.5: .*is \.s32: 2.5 is not an integer"),
    ({"n": 2**40}, r"params\['n'\]=1099511627776: .*is 32 bits wide"),
    ({"n": 2**64}, r"params\['n'\]=18446744073709551616: does not fit 64 bits"),
    ({"m": 1}, r"params\['m'\]=1: kernel `k` has no parameter `m`"),
    ({2: 1, "n": 2}, r"params\['n'\]=2: .*given two values"),
    ({"n": "7"}, r"params\['n'\]='7': expected an integer or a float"),
])
def test_parameter_values_their_type_cannot_hold_are_refused(params, message):
    with pytest.raises(ValueError, match=message) as e:
        ptx2idg.idg(FLOAT_KERNEL, params=params)
    if e.type is not ValueError:
        assert issubclass(e.type, ptx2idg.Ptx2idgError)


@pytest.mark.parametrize("call, message", [
    (lambda: stats(grid=2**32), r"grid=4294967296: expected an integer from 0 to 4294967295"),
    (lambda: stats(block=(8, 2**40)), r"block=1099511627776"),
    (lambda: ptx2idg.simulate(GAUSSIAN, kernel="fan2", regs=2**32), r"regs=4294967296"),
    (lambda: ptx2idg.simulate(GAUSSIAN, kernel="fan2", regs=-1), r"regs=-1"),
    (lambda: ptx2idg.simulate(GAUSSIAN, kernel="fan2", shared=2**33), r"shared=8589934592"),
    (lambda: ptx2idg.simulate(GAUSSIAN, kernel="fan2", window=2**32), r"window=4294967296"),
    # Within 32 bits but past the CLI's --window bound (a million allocated about 15 GB).
    (lambda: ptx2idg.simulate(GAUSSIAN, kernel="fan2", window=10**6),
     r"window=1000000: expected 1 to 1024"),
    (lambda: ptx2idg.simulate(GAUSSIAN, kernel="fan2", window=0), r"window=0: expected 1 to 1024"),
    (lambda: ptx2idg.simulate(GAUSSIAN, kernel="fan2", occupancy=(1, 2**32)),
     r"occupancy=4294967296"),
    (lambda: ptx2idg.simulate(GAUSSIAN, kernel="fan2", occupancy=(1.5, 8)), r"occupancy=1.5"),
    (lambda: stats(groups=2**64), r"groups=18446744073709551616"),
    (lambda: stats(groups=0), r"groups=0: expected a positive count"),
    (lambda: stats(invocation=-1), r"invocation=-1"),
])
def test_integers_past_the_native_types_name_their_argument(call, message):
    # They raised OverflowError ("can't convert negative int to unsigned") naming nothing.
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("call", [
    lambda: ptx2idg.kernels("ptx_samples/rodinia/gausian.ptx"),
    lambda: ptx2idg.check("kernels/missing"),
    lambda: ptx2idg.idg("missing.ptx"),
    lambda: ptx2idg.idg(GAUSSIAN, kernel="fan2", trips="data/no_such_table.csv"),
    lambda: ptx2idg.simulate(GAUSSIAN, kernel="fan2", gpu="profiles/missing.toml"),
])
def test_a_path_that_does_not_exist_is_not_read_as_text(call):
    # "gausian.ptx" was parsed as PTX text: "<string>:1:1: ..." instead of the missing file.
    with pytest.raises(FileNotFoundError, match="no such"):
        call()


def test_one_line_ptx_text_is_still_text():
    with pytest.raises(ptx2idg.PtxError, match=r"^<string>:1:"):
        ptx2idg.kernels(".version 7.0 .target sm_80 .entry")


def test_the_package_has_a_version():
    major, minor = ptx2idg.__version__.split(".")[:2]
    assert major.isdigit() and minor.isdigit(), ptx2idg.__version__
