"""Triton kernels this project did not write, for the ranking study: five forward kernels of
Liger-Kernel (pip `liger-kernel`, version in the measurement's env file), imported from the
installed package at measurement and prediction time; nothing of the package is committed.

Each kernel is launched as its package launches it (same arguments, same constexpr choices),
with the tile sizes and warps its launcher would pick replaced by a grid of configurations:

- `swiglu_tiled`: the column-tiled SwiGLU forward (`_swiglu_forward_kernel_tiled`), one
  program per row and column tile of a 4096 x 14336 fp16 MLP activation;
- `jsd`: the generalized Jensen-Shannon divergence forward with the input's gradient
  (`_jsd_kernel`, beta 0.5, no labels), 2048 rows over a 32768-word vocabulary, fp32, the loss
  per element;
- `cross_entropy`: the fused cross-entropy forward with the logits' gradient written in place
  (`liger_cross_entropy_kernel`), 2048 rows over a 32768-word vocabulary, fp32, mean reduction;
- `kl_div`: the row-wise KL divergence forward (`_kldiv_kernel_forward`), 2048 x 32768 fp32,
  batch-mean reduction;
- `rms_norm_rows`: the multi-row RMS norm forward (`_block_rms_norm_forward_kernel`),
  16384 rows of 4096 fp16, Llama casting, several rows per program;
- `layer_norm`: the row-per-program layer norm forward (`_layer_norm_forward_kernel`),
  16384 rows of 5120 fp16 (a tile of 8192 or 16384 columns, partly masked);
- `group_norm`: the group norm forward (`_group_norm_forward_kernel`), one program per
  sample and group of a 32 x 256-channel fp32 activation of 64 x 64 pixels in 32 groups (a
  2-D grid of 32 x 32 programs, each over 32768 values);
- `geglu`: the tanh-approximated GeGLU forward (`_geglu_tanh_forward_kernel`), one program
  per row of a 4096 x 14336 fp16 activation (a tile of 16384 or 32768 columns).

(The two-pass softmax for wide rows, `_softmax_multi_block_forward_kernel`, was chosen first;
liger-kernel 0.8.5's version does not compile with Triton 3.6: `tl.float32(...)` is not
callable there.)

Imported by measure.py and predict.py with `--kernels thirdparty_kernels`."""

import itertools

import triton

from liger_kernel.ops import cross_entropy as _ce
from liger_kernel.ops import geglu as _gg
from liger_kernel.ops import group_norm as _gn
from liger_kernel.ops import kl_div as _kl
from liger_kernel.ops import layer_norm as _ln
from liger_kernel.ops import jsd as _jsd
from liger_kernel.ops import rms_norm as _rms
from liger_kernel.ops import swiglu as _sw

SWIGLU = {"rows": 4096, "cols": 14336}
JSD = {"rows": 2048, "V": 32768}
CE = {"rows": 2048, "V": 32768}
KL = {"rows": 2048, "cols": 32768}
RMS = {"rows": 16384, "cols": 4096}
LN = {"rows": 16384, "cols": 5120}
GN = {"batch": 32, "groups": 32, "channels_per_group": 8, "pixels": 64 * 64}
GEGLU = {"rows": 4096, "cols": 14336}

# Constexprs a kernel takes after its tuned ones: passed with the configuration, but not part of
# its name.
CE_FIXED = {"HAS_WEIGHT": False, "HAS_SOFTCAPPING": False, "HAS_GRADIENTS": True}
KL_FIXED = {"reduction": _kl._REDUCTION_MODE_BATCHMEAN.value}
JSD_FIXED = {"HAS_LABEL": False}
FIXED = {**CE_FIXED, **KL_FIXED, **JSD_FIXED}


def key(c):
    """A configuration as one CSV cell (the tuned parameters only)."""
    return ";".join(f"{k}={v}" for k, v in sorted(c.kwargs.items()) if k not in FIXED) + \
        f";warps={c.num_warps};stages={c.num_stages}"


def grid_configs(name, sizes, warps, extra=None):
    return [triton.Config({name: s, **(extra or {})}, num_warps=w, num_stages=2)
            for s, w in itertools.product(sizes, warps)]


def cases(tensors):
    """(name, kernel, configs, args, grid) per kernel; `tensors(shape, dtype)` makes an
    argument: a CUDA tensor on the GPU, a pointer type string for prediction."""
    sr, sc = SWIGLU["rows"], SWIGLU["cols"]
    jr, jv = JSD["rows"], JSD["V"]
    cr, v = CE["rows"], CE["V"]
    kr, kc = KL["rows"], KL["cols"]
    rr, rc = RMS["rows"], RMS["cols"]
    lr, lc = LN["rows"], LN["cols"]
    gb, gg, gcpg = GN["batch"], GN["groups"], GN["channels_per_group"]
    gh = gcpg * GN["pixels"]
    er, ec = GEGLU["rows"], GEGLU["cols"]
    ce_loss = tensors((cr,), "fp32")
    return [
        ("swiglu_tiled", _sw._swiglu_forward_kernel_tiled,
         grid_configs("BLOCK_SIZE", [256, 512, 1024, 2048, 4096, 8192], [1, 2, 4, 8]),
         (tensors((sr, sc), "fp16"), tensors((sr, sc), "fp16"), tensors((sr, sc), "fp16"),
          sc, 1.0, sc),
         lambda meta: (sr, triton.cdiv(sc, meta["BLOCK_SIZE"]))),
        # Without labels (HAS_LABEL false): every row computes; the label pointer is unused.
        ("jsd", _jsd._jsd_kernel,
         grid_configs("BLOCK_SIZE", [512, 1024, 2048, 4096, 8192, 16384], [1, 2, 4, 8],
                      JSD_FIXED),
         (tensors((jr, jv), "fp32"), jv, tensors((jr, jv), "fp32"), jv, tensors((jr, jv), "fp32"),
          jv, tensors((jr, jv), "fp32"), jv, tensors((jr,), "i64"), 0.5, jr, -100, jv),
         lambda meta: (jr,)),
        # As liger's cross_entropy_forward launches it without weights, z-loss, accuracy or
        # soft-capping: the unused pointers get the loss tensor.
        ("cross_entropy", _ce.liger_cross_entropy_kernel,
         grid_configs("BLOCK_SIZE", [1024, 2048, 4096, 8192, 16384, 32768], [4, 8, 16, 32],
                      CE_FIXED),
         (tensors((cr, v), "fp32"), v, tensors((cr,), "i64"), 1, ce_loss, ce_loss, ce_loss, 1,
          ce_loss, 0, ce_loss, 0, v, cr, cr, 0.0, -100, 0.0, 0.0, "mean", None, False, False,
          False),
         lambda meta: (cr,)),
        ("kl_div", _kl._kldiv_kernel_forward,
         grid_configs("BLOCK_SIZE", [512, 1024, 2048, 4096, 8192, 16384], [1, 2, 4, 8],
                      KL_FIXED),
         (tensors((kr, kc), "fp32"), kc, tensors((kr, kc), "fp32"), kc, tensors((kr,), "fp32"),
          1, kc, 1e-10),
         lambda meta: (kr,)),
        ("rms_norm_rows", _rms._block_rms_norm_forward_kernel,
         grid_configs("BLOCK_ROW", [1, 2, 4, 8], [2, 4, 8, 16, 32], {"BLOCK_SIZE": rc}),
         (tensors((rr, rc), "fp16"), rc, tensors((rr, rc), "fp16"), rc, tensors((rc,), "fp16"),
          1, tensors((rr,), "fp32"), 1, rr, rc, 1e-6, 0.0, _rms._CASTING_MODE_LLAMA.value, True),
         lambda meta: (triton.cdiv(rr, meta["BLOCK_ROW"]),)),
        ("layer_norm", _ln._layer_norm_forward_kernel,
         grid_configs("BLOCK_SIZE", [8192, 16384], [1, 2, 4, 8, 16, 32]),
         (tensors((lr, lc), "fp16"), lc, tensors((lr, lc), "fp16"), lc, tensors((lc,), "fp16"),
          1, tensors((lc,), "fp16"), 1, tensors((lr,), "fp32"), 1, tensors((lr,), "fp32"), 1,
          lc, 1e-5),
         lambda meta: (lr,)),
        ("group_norm", _gn._group_norm_forward_kernel,
         grid_configs("BLOCK_SIZE", [512, 1024, 2048, 4096, 8192, 16384], [1, 2, 4, 8]),
         (tensors((gb, gg, gh), "fp32"), gg * gh, gh, tensors((gb, gg, gh), "fp32"), gg * gh, gh,
          tensors((gb, gg), "fp32"), gg, 1, tensors((gb, gg), "fp32"), gg, 1,
          tensors((gg * gcpg,), "fp32"), tensors((gg * gcpg,), "fp32"), gh, gcpg, 1e-5),
         lambda meta: (gb, gg)),
        ("geglu", _gg._geglu_tanh_forward_kernel,
         grid_configs("BLOCK_SIZE", [16384, 32768], [1, 2, 4, 8, 16, 32]),
         (tensors((er, ec), "fp16"), tensors((er, ec), "fp16"), tensors((er, ec), "fp16"), ec,
          ec),
         lambda meta: (er,)),
    ]
