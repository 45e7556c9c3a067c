"""ptx2idg from Python: the kernels of a PTX module, the IDGs of a launch, Pipeline-model
simulation sweeps, the analytical models and the suite evaluation, as dicts and DataFrames.

Every table is the CLI's CSV read by pandas, so a DataFrame has exactly the CLI's columns and
numbers. ``ptx`` arguments are a path or the PTX text itself; ``trips`` is one or a list of
paths, CSV texts or DataFrames of a trips table or an ncu / nvprof export; ``gpu`` is a
bundled profile name or a profile file. Simulation defaults to the evaluation's validated base
configuration (mapper g, GTO, scheduler partitions, scheduled issue with lookahead 4).
"""

import io
import json
import numbers
import os
import warnings
from collections import namedtuple

from . import _ptx2idg
from ._ptx2idg import Ptx2idgError, PtxError

try:
    from importlib.metadata import PackageNotFoundError, version as _version

    __version__ = _version("ptx2idg")
except PackageNotFoundError:  # run from a source tree without an installed package
    __version__ = "0+unknown"

__all__ = [
    "Ptx2idgError",
    "PtxError",
    "Idgs",
    "check",
    "kernels",
    "idg",
    "simulate",
    "models",
    "eval",
]

#: The IDGs of one launch: ``graph`` is the documented IDG JSON, ``stats`` the stats object.
Idgs = namedtuple("Idgs", ["graph", "stats"])


def _source(ptx):
    """(name, text) of a path or of PTX text."""
    if isinstance(ptx, os.PathLike) or ("\n" not in ptx and os.path.isfile(ptx)):
        path = os.fspath(ptx)
        with open(path, encoding="utf-8", errors="replace") as f:
            return path, f.read()
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
        elif isinstance(t, os.PathLike) or ("\n" not in t and os.path.isfile(t)):
            path = os.fspath(t)
            with open(path, encoding="utf-8", errors="replace") as f:
                out.append((path, f.read()))
        else:
            out.append((f"<string {i}>", t))
    return out


def _int(v, what):
    """An integer, never a float or bool silently truncated."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise ValueError(f"{what}={v!r}: expected an integer")
    return int(v)


def _dim3(d, what):
    """X, (X, Y[, Z]) or "X[,Y[,Z]]" as the CLI takes it; missing dimensions are 1."""
    if isinstance(d, str):
        try:
            d = tuple(int(x) for x in d.split(","))
        except ValueError:
            raise ValueError(f"{what}={d!r}: expected X[,Y[,Z]]") from None
    elif isinstance(d, numbers.Integral) and not isinstance(d, bool):
        d = (d,)
    d = tuple(_int(x, what) for x in d)
    if not 1 <= len(d) <= 3:
        raise ValueError(f"{what}={d}: expected 1 to 3 dimensions")
    return list(d + (1,) * (3 - len(d)))


def _range(r, what):
    """(lo, hi) inclusive of an int, a (lo, hi) pair or a step-1 range."""
    if isinstance(r, int):
        return r, r
    if isinstance(r, range):
        if r.step != 1 or len(r) == 0:
            raise ValueError(f"{what}={r!r}: expected a non-empty range with step 1")
        return r.start, r.stop - 1
    lo, hi = r
    return int(lo), int(hi)


def _front(ptx, kernel, grid, block, params, trips, invocation, unknown_branch, groups):
    file, src = _source(ptx)
    return (
        file,
        src,
        kernel,
        _dim3(grid, "grid"),
        _dim3(block, "block"),
        [(str(k), _int(v, f"params[{k!r}]")) for k, v in (params or {}).items()],
        _trips(trips),
        invocation,
        unknown_branch,
        groups,
    )


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
             occupancy=None, blocks_per_sm=None, regs=32, shared=None, scheduler=None,
             order=None, sub_partitions=None, window=None, metrics=True, invocation=None,
             unknown_branch=None, groups=None):
    """A Pipeline-model sweep over resident warps (``occupancy``) or resident blocks per SM
    (``blocks_per_sm``), or without either one run at the occupancy the launch's registers and
    shared memory allow, as a DataFrame with the columns of ``ptx2idg simulate``'s CSV:
    occupancy_warps, blocks_per_sm, cycles, wpc, time_us."""
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
        gpu, regs, shared, axis, lo, hi, scheduler, order, sub_partitions, window, metrics,
    )
    _warn(notes)
    return _frame(csv)


def models(ptx, kernel=None, grid=1, block=32, params=None, trips=None, gpu="hopper-h100",
           occupancy=range(1, 65), pipeline=True, metrics=True, invocation=None,
           unknown_branch=None, groups=None):
    """Every analytical model beside the Pipeline simulation, one row per resident-warp count,
    with the columns of ``ptx2idg models``'s CSV (``pipeline=False`` leaves that column
    empty)."""
    lo, hi = _range(occupancy, "occupancy")
    csv, notes = _ptx2idg.models(
        *_front(ptx, kernel, grid, block, params, trips, invocation, unknown_branch, groups),
        gpu, lo, hi, pipeline, metrics,
    )
    _warn(notes)
    return _frame(csv)


def eval(suite_dir, gpu="hopper-h100", kernels=()):  # noqa: A001 - the CLI's command name
    """The evaluation of a measured suite under the base configuration: ``(mape, points)``,
    the tables of ``ptx2idg eval --format csv`` and ``--format points``."""
    mape, points, notes = _ptx2idg.evaluate(os.fspath(suite_dir), gpu, list(kernels))
    _warn(notes)
    return _frame(mape), _frame(points)
