"""Time run-file decoding (records/format.py), this tree's decoders against those of a git
revision (--against, default HEAD), alternating in one process (and which goes first) so that both
meet the same load: many small records, where the per-field checks dominate; one record of
bench/big_run_file.py's large file (its samples dominate); and reading that whole file with each.

    .venv/bin/python bench/decode_speed.py BIG.jsonl [--against REV] [--repeats 7]

Prints the median of the repeats with their spread (min-max), in seconds, and the ratio
this tree / REV of the medians.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from msgperf.records import format as current  # noqa: E402
from msgperf.records.runfile_read import read_run  # noqa: E402


def module_at(rev: str):
    """records/format.py as it was at ``rev``, imported beside this tree's."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:src/msgperf/records/format.py"],
                            capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "format_at_rev.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("format_at_rev", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def spread(times: list[float]) -> str:
    return f"{statistics.median(times):.4f} s ({min(times):.4f}-{max(times):.4f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("big")
    ap.add_argument("--against", default="HEAD")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--records", type=int, default=5_000)
    args = ap.parse_args()
    before = module_at(args.against)
    with open(args.big) as f:
        run_obj, launch_obj, big_obj = json.loads(f.readline()), json.loads(f.readline()), json.loads(f.readline())
    small = {"type": "measurement", "launch": 0, "pattern": "pingpong", "bytes": 1024, "buffer": "separate",
             "ranks": [0, 1], "k": 10, "divisor": 20, "metric": "one_way", "timing": "t", "warmup": 3,
             "first_s": 1e-5, "elapsed_s": 0.5, "stop_reason": "precision", "validation": "ok",
             "samples_s": [2e-5 + i * 1e-8 for i in range(20)], "placement": "intra", "window": 8}
    for what, obj, name, n in (("measurement", small, "decode_measurement", args.records),
                               ("run", run_obj, "decode_run", args.records),
                               ("launch", launch_obj, "decode_launch", args.records),
                               (f"large measurement ({len(big_obj['samples_s'])} samples)", big_obj,
                                "decode_measurement", 3)):
        times: dict[str, list[float]] = {"this tree": [], args.against: []}
        for i in range(args.repeats):
            for label, module in [(("this tree", current), (args.against, before))[j] for j in ((0, 1), (1, 0))[i % 2]]:
                decoder = getattr(module, name)
                t = time.perf_counter()
                for _ in range(n):
                    decoder(obj, "w")
                times[label].append(time.perf_counter() - t)
        ratio = statistics.median(times["this tree"]) / statistics.median(times[args.against])
        print(f"decode {n} {what} records: this tree {spread(times['this tree'])}, "
              f"{args.against} {spread(times[args.against])}; ratio {ratio:.2f}")
    from msgperf.records import runfile_read

    names = ("decode_run", "decode_launch", "decode_launch_host", "decode_measurement")
    big: dict[str, list[float]] = {"this tree": [], args.against: []}
    for i in range(min(args.repeats, 3) * 2):  # which goes first alternates: no order bias
        for label, module in [(("this tree", current), (args.against, before))[j] for j in ((0, 1), (1, 0))[i % 2]]:
            for name in names:  # the reader with these decoders
                setattr(runfile_read, name, getattr(module, name))
            t = time.perf_counter()
            read_run(args.big)
            big[label].append(time.perf_counter() - t)
    ratio = statistics.median(big["this tree"]) / statistics.median(big[args.against])
    print(f"read_run {args.big}: this tree {spread(big['this tree'])}, {args.against} {spread(big[args.against])}; "
          f"ratio {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
