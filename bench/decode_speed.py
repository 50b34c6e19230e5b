"""Time run-file decoding (records/format.py): reading bench/big_run_file.py's large file, and
decoding many small records (the per-field checks dominate there, not the samples).

    .venv/bin/python bench/decode_speed.py BIG.jsonl [--repeats 5]

Prints the median of the repeats with their spread (min-max), in seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from msgperf.records.format import decode_launch, decode_measurement, decode_run  # noqa: E402
from msgperf.records.runfile_read import read_run  # noqa: E402


def timed(what, repeats: int) -> str:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        what()
        times.append(time.perf_counter() - t)
    return f"{statistics.median(times):.4f} s ({min(times):.4f}-{max(times):.4f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("big")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--records", type=int, default=20_000)
    args = ap.parse_args()
    objs = [json.loads(line) for line in Path(args.big).read_text().splitlines()[:2]]
    run_obj, launch_obj = objs
    small = {"type": "measurement", "launch": 0, "pattern": "pingpong", "bytes": 1024, "buffer": "separate",
             "ranks": [0, 1], "k": 10, "divisor": 20, "metric": "one_way", "timing": "t", "warmup": 3,
             "first_s": 1e-5, "elapsed_s": 0.5, "stop_reason": "precision", "validation": "ok",
             "samples_s": [2e-5 + i * 1e-8 for i in range(20)], "placement": "intra", "window": 8}
    n = args.records
    print(f"read_run {args.big}: {timed(lambda: read_run(args.big), args.repeats)}")
    print(f"decode {n} measurement records (20 samples): "
          f"{timed(lambda: [decode_measurement(small, 'w') for _ in range(n)], args.repeats)}")
    print(f"decode {n} run records: {timed(lambda: [decode_run(run_obj, 'w') for _ in range(n)], args.repeats)}")
    print(f"decode {n} launch records: "
          f"{timed(lambda: [decode_launch(launch_obj, 'w') for _ in range(n)], args.repeats)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
