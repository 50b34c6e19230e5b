"""Write a large synthetic run file (for the memory figures of reading and exporting in
bench/RESULTS.md): a valid msgperf run file of MEASUREMENTS ping-pong measurements with SAMPLES
samples each (lognormal noise around a Hockney line), ~24 bytes per sample.

    .venv/bin/python bench/big_run_file.py OUT.jsonl [--measurements 40] [--samples 200000]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from msgperf.records.format import encode_launch, encode_launch_end, encode_measurement, encode_run  # noqa: E402
from tests.factories import launch, make_run, measurement  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--measurements", type=int, default=40)
    ap.add_argument("--samples", type=int, default=200_000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    sizes = [1 << (i % 24) for i in range(args.measurements)]
    small = make_run([measurement("pingpong", s, np.full(1, 1e-6)) for s in sorted(set(sizes))])
    info = small.info
    l0 = launch(0)
    with open(args.out, "w") as out:
        out.write(json.dumps(encode_run(info)) + "\n")
        out.write(json.dumps(encode_launch(l0)) + "\n")
        for s in sizes:
            raw = 2 * (1e-6 + s * 1e-10) * np.exp(0.05 * rng.standard_normal(args.samples))
            m = dataclasses.replace(measurement("pingpong", s, raw), launch=0)
            out.write(json.dumps(encode_measurement(m)) + "\n")
        out.write(json.dumps(encode_launch_end(l0)) + "\n")
    print(f"{args.out}: {Path(args.out).stat().st_size / 2**20:.1f} MiB, {len(sizes)} measurements x {args.samples} samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
