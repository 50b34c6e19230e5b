"""Showing run files whose strings are long: ``msgperf show`` of a run file whose first host is
N characters of one kind (backslashes: the case rich's markup escape handles quadratically),
and the escape alone, rich's against msgperf's (present/text.py).

    .venv/bin/python bench/long_strings.py [--repeats 3] [--lengths 10000,100000,1000000]

Times are wall times of the whole command (Python start-up included), median [min-max] over the
repetitions; the escapes are timed in this process. rich's escape is timed up to 20 000
characters only (it grows with the square of the length).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from rich.markup import escape  # noqa: E402

from msgperf.present.text import escape_markup  # noqa: E402
from tests.records.test_read import good_text  # noqa: E402


def timed(fn) -> float:
    began = time.perf_counter()
    fn()
    return time.perf_counter() - began


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s [{min(values):.2f}-{max(values):.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--lengths", default="10000,100000,1000000")
    parser.add_argument("--escape-only", action="store_true", help="only the in-process escape timings")
    args = parser.parse_args()
    lengths = [] if args.escape_only else [int(n) for n in args.lengths.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        if lengths:
            print("msgperf show, a host of N characters:")
        for char in ("\\", "h"):
            for n in lengths:
                lines = [json.loads(l) for l in good_text().splitlines()]
                lines[1]["ranks"][0]["host"] = char * n
                path = Path(tmp) / "long.jsonl"
                path.write_text("".join(json.dumps(l) + "\n" for l in lines))
                command = [sys.executable, "-m", "msgperf", "show", str(path)]
                times = [timed(lambda: subprocess.run(command, capture_output=True, check=True, timeout=600))
                         for _ in range(args.repeats)]
                print(f"  {char!r} x {n:>8}: {spread(times)}")
    print("markup escape of N backslashes (in-process):")
    for n in (5_000, 10_000, 20_000):
        text = "\\" * n
        ours = [timed(lambda: escape_markup(text)) for _ in range(args.repeats)]
        theirs = [timed(lambda: escape(text)) for _ in range(args.repeats)]
        print(f"  {n:>6}: rich {spread(theirs)}, msgperf {statistics.median(ours) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
