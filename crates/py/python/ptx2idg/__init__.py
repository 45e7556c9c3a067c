"""ptx2idg from Python: the kernels of a PTX module, the IDGs of a launch, Pipeline-model
simulation sweeps, the analytical models and the suite evaluation, as dicts and DataFrames.

Every table is the CLI's CSV read by pandas, so a DataFrame has exactly the CLI's columns and
numbers. ``ptx`` arguments are a path or the PTX text itself; ``trips`` is one or a list of
paths, CSV texts or DataFrames of a trips table or an ncu / nvprof export; ``gpu`` is a
bundled profile name or a profile file. Simulation defaults to the evaluation's validated base
configuration (mapper g, GTO, scheduler partitions, scheduled issue with lookahead 4).
"""

import errno
import io
import json
import numbers
import os
import warnings
from collections import namedtuple

from . import _ptx2idg
from ._ptx2idg import LaunchError, Ptx2idgError, PtxError

try:
    from importlib.metadata import PackageNotFoundError, version as _version

    __version__ = _version("ptx2idg")
except PackageNotFoundError:  # run from a source tree without an installed package
    __version__ = "0+unknown"

__all__ = [
    "Ptx2idgError",
    "PtxError",
    "LaunchError",
    "Idgs",
    "check",
    "kernels",
    "idg",
    "simulate",
    "models",
    "resources",
    "eval",
]

#: The IDGs of one launch: ``graph`` is the documented IDG JSON, ``stats`` the stats object.
Idgs = namedtuple("Idgs", ["graph", "stats"])


#: Directives one of which every PTX module has: a str holding none is not PTX text.
_PTX_DIRECTIVES = (".version", ".target", ".entry", ".func", ".address_size")


def _read(path, what):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, f"{what}: no such file", path) from None


def _looks_like_path(s, suffixes):
    """A str is a path, not file contents, when it is one line that ends like a file of
    its kind or holds no PTX directive (a typo in a path must not be parsed as PTX)."""
    if "\n" in s:
        return False
    return s.rstrip().lower().endswith(suffixes) or not any(d in s for d in _PTX_DIRECTIVES)


def _source(ptx):
    """(name, text) of a path or of PTX text; a path that does not exist raises
    FileNotFoundError naming it."""
    if isinstance(ptx, os.PathLike):
        path = os.fspath(ptx)
        return path, _read(path, "ptx")
    if not isinstance(ptx, str):
        raise TypeError(f"ptx={ptx!r}: expected a path or PTX text")
    if os.path.isfile(ptx) or _looks_like_path(ptx, (".ptx", ".json")):
        return ptx, _read(ptx, "ptx")
    return "<string>", ptx


def _trips(trips):
    if trips is None:
        return []
    if not isinstance(trips, (list, tuple)):
        trips = [trips]
    out = []
    for i, t in enumerate(trips):
        if hasattr(t, "to_csv"):
            out.append((f"<DataFrame {i}>", t.to_csv(index=False)))
        elif isinstance(t, os.PathLike) or (isinstance(t, str) and "\n" not in t):
            # A table has a header and rows: one line is a path.
            path = os.fspath(t)
            out.append((path, _read(path, f"trips[{i}]")))
        elif isinstance(t, str):
            out.append((f"<string {i}>", t))
        else:
            raise TypeError(f"trips[{i}]={t!r}: expected a path, CSV text or a DataFrame")
    return out


def _int(v, what, lo=None, hi=None):
    """An integer, never a float or bool silently truncated; with bounds, one the native
    call takes (an int past them raised OverflowError without the argument's name)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise ValueError(f"{what}={v!r}: expected an integer")
    v = int(v)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{what}={v!r}: expected an integer from {lo} to {hi}")
    return v


_U32 = (0, 2**32 - 1)
_U64 = (0, 2**64 - 1)


def _opt(v, what, bounds):
    return None if v is None else _int(v, what, *bounds)


def _param(v, what):
    """A parameter value: an int in 64 bits or a float; whether the parameter takes it is
    decided by its PTX type (LaunchError, a ValueError, names it)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{what}={v!r}: expected an integer or a float")
    if isinstance(v, numbers.Integral):
        v = int(v)
        if not -(2**63) <= v < 2**63:
            raise ValueError(
                f"{what}={v!r}: does not fit 64 bits (-2**63 to 2**63 - 1; give a 64-bit "
                "bit pattern above that as the negative number of the same bits)"
            )
        return v
    return float(v)


def _dim3(d, what):
    """X, (X, Y[, Z]) or "X[,Y[,Z]]" as the CLI takes it; missing dimensions are 1."""
    if isinstance(d, str):
        try:
            d = tuple(int(x) for x in d.split(","))
        except ValueError:
            raise ValueError(f"{what}={d!r}: expected X[,Y[,Z]]") from None
    elif isinstance(d, numbers.Integral) and not isinstance(d, bool):
        d = (d,)
    d = tuple(_int(x, what, *_U32) for x in d)
    if not 1 <= len(d) <= 3:
        raise ValueError(f"{what}={d}: expected 1 to 3 dimensions")
    return list(d + (1,) * (3 - len(d)))


def _range(r, what):
    """(lo, hi) inclusive of an int, a (lo, hi) pair or a step-1 range."""
    if isinstance(r, numbers.Integral) and not isinstance(r, bool):
        r = _int(r, what, *_U32)
        return r, r
    if isinstance(r, range):
        if r.step != 1 or len(r) == 0:
            raise ValueError(f"{what}={r!r}: expected a non-empty range with step 1")
        return _int(r.start, what, *_U32), _int(r.stop - 1, what, *_U32)
    try:
        lo, hi = r
    except (TypeError, ValueError):
        raise ValueError(f"{what}={r!r}: expected N, (lo, hi) or a range") from None
    return _int(lo, what, *_U32), _int(hi, what, *_U32)


def _front(ptx, kernel, grid, block, params, trips, invocation, unknown_branch, groups):
    file, src = _source(ptx)
    return (
        file,
        src,
        kernel,
        _dim3(grid, "grid"),
        _dim3(block, "block"),
        [(str(k), f"params[{k!r}]", _param(v, f"params[{k!r}]"))
         for k, v in (params or {}).items()],
        _trips(trips),
        _opt(invocation, "invocation", _U64),
        unknown_branch,
        _opt(groups, "groups", _U64),
    )


def _gpu(gpu):
    """A bundled profile name or a profile file; a `.toml` path that does not exist raises
    FileNotFoundError rather than 'unknown GPU'."""
    gpu = os.fspath(gpu)
    if gpu.lower().endswith(".toml") and not os.path.isfile(gpu):
        raise FileNotFoundError(errno.ENOENT, "gpu: no such GPU profile file", gpu)
    return gpu


def _sass(sass):
    """``auto``, ``none`` or the path of a ``ptxas -v`` / ``cuobjdump -res-usage`` report or a
    SASS listing; ``None`` is the CLI's default (``PTX2IDG_SASS``, else ``auto``). A path that
    does not exist raises FileNotFoundError naming it."""
    if sass is None:
        return None
    if sass == "":
        raise ValueError("sass='': expected 'auto', 'none' or a path")
    if isinstance(sass, os.PathLike) or (isinstance(sass, str) and sass not in ("auto", "none")):
        path = os.fspath(sass)
        if path and not os.path.isfile(path):
            raise FileNotFoundError(errno.ENOENT, "sass: no such report or listing", path)
        return path
    if not isinstance(sass, str):
        raise TypeError(f"sass={sass!r}: expected 'auto', 'none' or a path")
    return sass


def _warn(notes):
    for n in notes:
        warnings.warn(n, stacklevel=3)


def _frame(csv):
    import pandas as pd

    return pd.read_csv(io.StringIO(csv))


def kernels(ptx):
    """The kernels of a PTX module, as ``ptx2idg check --json`` lists them (name, demangled
    name, parameters, registers, instructions) plus the static shared bytes. Raises PtxError
    (file:line:column) when the PTX does not parse."""
    return json.loads(_ptx2idg.kernels(*_source(ptx)))


def check(ptx):
    """Parses a PTX module: ``{"file": ..., "kernels": kernels(ptx)}``; raises PtxError."""
    file, src = _source(ptx)
    return {"file": file, "kernels": json.loads(_ptx2idg.kernels(file, src))}


def idg(ptx, kernel=None, grid=1, block=32, params=None, trips=None, invocation=None,
        unknown_branch=None, groups=None):
    """The IDGs of one kernel launch as ``Idgs(graph, stats)`` (both dicts)."""
    graph, stats, notes = _ptx2idg.idg(
        *_front(ptx, kernel, grid, block, params, trips, invocation, unknown_branch, groups)
    )
    _warn(notes)
    return Idgs(json.loads(graph), json.loads(stats))


def simulate(ptx, kernel=None, grid=1, block=32, params=None, trips=None, gpu="hopper-h100",
             occupancy=None, blocks_per_sm=None, regs=None, shared=None, sass=None,
             scheduler=None, order=None, sub_partitions=None, window=None, metrics=True,
             invocation=None, unknown_branch=None, groups=None):
    """A Pipeline-model sweep over resident warps (``occupancy``) or resident blocks per SM
    (``blocks_per_sm``), or without either one run at the occupancy the launch's registers and
    shared memory allow, as a DataFrame with the columns of ``ptx2idg simulate``'s CSV:
    occupancy_warps, blocks_per_sm, cycles, wpc, time_us.

    ``regs`` (registers per thread) and ``shared`` (bytes per block) default, as the CLI's
    ``--regs`` and ``--shared`` do, to what ptxas reports for the kernel (``sass="auto"``
    runs it for the GPU's architecture when it is found; ``sass=PATH`` reads a saved report;
    ``sass="none"`` runs nothing), else 32 registers and the PTX's static shared memory.
    ``sass=None`` is ``PTX2IDG_SASS``, else ``"auto"``. ``resources()`` says which.

    The same source gives the machine code's listing (``auto`` disassembles what ptxas made
    when nvdisasm or cuobjdump is found; a file may hold ``ptxas -v``'s report followed by
    the listing): the IDGs then run each loop as the machine code runs it (unrolled, spills,
    serialized loads; docs/sass-input.md, "Alignment"), as the CLI's do."""
    if occupancy is not None and blocks_per_sm is not None:
        raise ValueError("give occupancy or blocks_per_sm, not both")
    if blocks_per_sm is not None:
        axis, (lo, hi) = "blocks", _range(blocks_per_sm, "blocks_per_sm")
    elif occupancy is not None:
        axis, (lo, hi) = "warps", _range(occupancy, "occupancy")
    else:
        axis, lo, hi = "launch", 0, 0
    csv, notes = _ptx2idg.simulate(
        *_front(ptx, kernel, grid, block, params, trips, invocation, unknown_branch, groups),
        _gpu(gpu), _opt(regs, "regs", _U32), _opt(shared, "shared", _U32), _sass(sass),
        axis, lo, hi,
        scheduler, order, sub_partitions, _opt(window, "window", _U32), metrics,
    )
    _warn(notes)
    return _frame(csv)


def models(ptx, kernel=None, grid=1, block=32, params=None, trips=None, gpu="hopper-h100",
           occupancy=range(1, 65), pipeline=True, metrics=True, invocation=None,
           unknown_branch=None, groups=None, sass=None):
    """Every analytical model beside the Pipeline simulation, one row per resident-warp count,
    with the columns of ``ptx2idg models``'s CSV (``pipeline=False`` leaves that column
    empty). ``sass`` gives the machine code the IDGs are aligned with, as for ``simulate``."""
    lo, hi = _range(occupancy, "occupancy")
    csv, notes = _ptx2idg.models(
        *_front(ptx, kernel, grid, block, params, trips, invocation, unknown_branch, groups),
        _gpu(gpu), lo, hi, pipeline, metrics, _sass(sass),
    )
    _warn(notes)
    return _frame(csv)


def resources(ptx, kernel=None, gpu="hopper-h100", regs=None, shared=None, sass=None):
    """The registers per thread and shared bytes per block ``simulate`` models a launch of
    the kernel with, as the CLI's ``--explain`` names them: a dict with ``kernel``, ``regs``,
    ``regs_from`` (where they came from), ``shared`` and, from a ptxas report,
    ``spill_store_bytes``, ``spill_load_bytes``, ``stack_bytes`` and ``local_bytes`` (else
    None). ``regs``, ``shared`` and ``sass`` as for ``simulate``."""
    file, src = _source(ptx)
    out, notes = _ptx2idg.resources(
        file, src, kernel, _gpu(gpu), _opt(regs, "regs", _U32), _opt(shared, "shared", _U32),
        _sass(sass),
    )
    _warn(notes)
    return json.loads(out)


def eval(suite_dir, gpu="hopper-h100", kernels=(),  # noqa: A001 - the CLI's command name
         counters="all", sass=None):
    """The evaluation of a measured suite under the base configuration: ``(mape, points)``,
    the tables of ``ptx2idg eval --format csv`` and ``--format points``. ``suite_dir`` is a
    suite folder or a manifest file in one (``suite-h200.toml`` with ``gpu="h200"``: the
    same kernels measured on an H200, docs/rodinia-suite.md). ``counters`` is
    ``eval --counters``: ``"all"`` (each point its own launch's counters), ``"one"`` (every
    point the counters of the launch at the highest measured occupancy) or ``"none"`` (no
    counter but that launch's instruction count, which only the trip counts of loops that
    depend on data read); anything else raises ValueError. ``sass`` is ``eval --sass``:
    ``"auto"`` aligns each kernel's IDGs with the machine code ptxas makes of its PTX,
    ``"none"`` keeps the PTX-only IDGs; ``None`` is ``PTX2IDG_SASS``, else ``"auto"``."""
    if not isinstance(counters, str):
        raise ValueError(f"counters={counters!r}: expected 'all', 'one' or 'none'")
    if sass is not None and sass not in ("auto", "none"):
        raise ValueError(f"sass={sass!r}: eval takes 'auto' or 'none'")
    mape, points, notes = _ptx2idg.evaluate(os.fspath(suite_dir), _gpu(gpu), list(kernels),
                                            counters, sass)
    _warn(notes)
    return _frame(mape), _frame(points)
