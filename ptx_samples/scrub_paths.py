#!/usr/bin/env python3
"""Remove build-machine paths from PTX emitted by nvcc, in place.

nvcc records absolute paths in two places: `.file` directives (text, rewritten freely)
and, in -G builds, the DWARF compilation directory stored as inline `.b8` bytes in
.debug_info. The DWARF string cannot change length without re-encoding every offset of
the unit after it, so it is replaced by a relative path of exactly the same length
(`ptx_samples/cuda` padded with leading `./`, which names the same directory from the
repository root).

usage: scrub_paths.py SOURCE_DIR FILE.ptx...
"""
import re
import sys


def same_length_relative(abs_dir: str) -> str:
    rel = "ptx_samples/cuda"
    pad = len(abs_dir) - len(rel)
    if pad < 0:
        raise SystemExit(f"source dir {abs_dir!r} is shorter than {rel!r}; cannot scrub")
    # './' pairs, and a doubled '/' for an odd remainder: both leave the path's meaning intact.
    return "./" * (pad // 2) + ("/" if pad % 2 else "") + rel


def scrub(text: str, src_dir: str) -> str:
    src_dir = src_dir.rstrip("/")

    def fix_file(m: re.Match) -> str:
        path = m.group(2)
        if path.startswith(src_dir + "/"):
            path = "ptx_samples/cuda/" + path[len(src_dir) + 1 :]
        elif "/include/" in path:
            path = "CUDA_HOME/include/" + path.split("/include/", 1)[1]
        return f'{m.group(1)}"{path}"'

    text = re.sub(r'^(\s*\.file\s+\d+\s+)"([^"]*)"', fix_file, text, flags=re.M)

    old = ",".join(str(b) for b in src_dir.encode())
    new = ",".join(str(b) for b in same_length_relative(src_dir).encode())
    return text.replace(f".b8 {old}\n", f".b8 {new}\n")


def main() -> None:
    src_dir = sys.argv[1]
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        out = scrub(text, src_dir)
        with open(path, "w", encoding="utf-8") as f:
            f.write(out)


if __name__ == "__main__":
    main()
