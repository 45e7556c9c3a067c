#!/usr/bin/env python3
"""Summarise `cuobjdump -sass` output: the most frequent SASS opcodes of every
benchmark kernel, so that the PTX -> SASS mapping of each chain can be checked
without the (large) full disassembly.

    python3 sass_summary.py data/sass.txt.gz > data/h100_sass_summary.txt
"""
import collections
import gzip
import re
import sys

SKIP = {"NOP"}


def main() -> None:
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    hist: dict[str, collections.Counter] = {}
    cur = None
    with opener(path, "rt") as f:
        for line in f:
            m = re.search(r"Function : (\S+)", line)
            if m:
                cur = m.group(1)
                hist.setdefault(cur, collections.Counter())
                continue
            m = re.match(r"\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)", line)
            if m and cur:
                hist[cur][m.group(2)] += 1
    for name in sorted(hist):
        top = [f"{op}:{n}" for op, n in hist[name].most_common(8) if op not in SKIP]
        print(f"{name}\t{' '.join(top)}")


if __name__ == "__main__":
    main()
