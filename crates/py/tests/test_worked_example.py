"""The worked example of docs/python.md runs as written (in a scratch folder that sees the
repository's samples and benchmark data), and saves both of its figures."""

import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_worked_example_runs_and_saves_its_figures(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    text = (ROOT / "docs" / "python.md").read_text()
    section = text.split("## Worked example", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    for d in ("ptx_samples", "bench"):
        os.symlink(ROOT / d, tmp_path / d)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/python.md", "exec"), {})
    for figure in ("fan2-models.png", "triton-ranking.png"):
        assert (tmp_path / figure).stat().st_size > 0, figure
