"""Time to a trustworthy answer: msgperf's adaptive stopping against a fixed-iteration schedule
like OSU's defaults (10,000 round trips per size up to 8 KiB, 1,000 above), run by the same
kernels on the same machine, 0 B and 1 B to 64 MiB.

    .venv/bin/python bench/time_to_answer.py [--repeats 3]

The fixed schedule uses, for each size, the k (round trips per sample) that msgperf calibrated
and exactly the OSU number of round trips, so both sides time the same kind of samples. Time is
the sum of the records' own elapsed_s (measurement time, launch start-up excluded on both sides);
the adaptive run's whole wall time is printed too. The interval is the 95% CI of the median,
as a half-width relative to the median. Repetitions alternate which schedule runs first.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from msgperf.analysis.sample_stats import sample_stats  # noqa: E402
from msgperf.launch.build import build_kernel  # noqa: E402
from msgperf.plan import parse_sizes  # noqa: E402
from msgperf.records.runfile_read import read_run  # noqa: E402

SIZES = parse_sizes("0:64M")


def osu_iterations(size: int) -> int:
    return 10_000 if size <= 8192 else 1_000


def adaptive(kernel, tmp: Path) -> tuple[float, dict]:
    out = tmp / "adaptive.jsonl"
    t0 = time.perf_counter()
    subprocess.run([str(kernel.mpiexec), "-n", "2", str(kernel.path), "--sizes", ",".join(map(str, SIZES)), "-q",
                    "-o", str(out)], check=True, capture_output=True)
    wall = time.perf_counter() - t0
    return wall, {m.bytes: m for m in read_run(out).run.measurements}


def fixed(kernel, tmp: Path, ks: dict[int, int]) -> dict:
    result = {}
    for size in SIZES:
        n = max(6, math.ceil(osu_iterations(size) / ks[size]))
        out = tmp / f"fixed-{size}.jsonl"
        subprocess.run([str(kernel.mpiexec), "-n", "2", str(kernel.path), "--sizes", str(size), "-q", "-o", str(out),
                        "--min-samples", str(n), "--max-samples", str(n), "--precision", "0.00001",
                        "--time-budget", "86400"], check=True, capture_output=True)
        result[size] = read_run(out).run.measurements[0]
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    kernel = build_kernel()
    rows = {s: {"a_t": [], "a_w": [], "f_t": [], "f_w": []} for s in SIZES}
    totals = {"adaptive": [], "fixed": [], "wall": []}
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for rep in range(args.repeats):
            if rep % 2 == 0:
                wall, a = adaptive(kernel, tmp)
                f = fixed(kernel, tmp, {s: m.k for s, m in a.items()})
            else:  # fixed first: calibrate k with a quick adaptive pass that is not counted
                _, probe = adaptive(kernel, tmp)
                f = fixed(kernel, tmp, {s: m.k for s, m in probe.items()})
                wall, a = adaptive(kernel, tmp)
            totals["wall"].append(wall)
            totals["adaptive"].append(sum(m.elapsed_s for m in a.values()))
            totals["fixed"].append(sum(m.elapsed_s for m in f.values()))
            for s in SIZES:
                rows[s]["a_t"].append(a[s].elapsed_s)
                rows[s]["f_t"].append(f[s].elapsed_s)
                rows[s]["a_w"].append(sample_stats(a[s].per_message_s).ci_halfwidth_rel)
                rows[s]["f_w"].append(sample_stats(f[s].per_message_s).ci_halfwidth_rel)
            print(f"repetition {rep + 1}/{args.repeats} done", file=sys.stderr)
    med = statistics.median
    print(f"default sweep 0 B, 1 B..64 MiB ({len(SIZES)} sizes), MPICH {kernel.mpi_version}, 2 ranks, "
          f"{args.repeats} repetitions; cells are medians over repetitions")
    print(f"{'bytes':>9} {'adaptive s':>11} {'±CI %':>7} {'fixed s':>9} {'±CI %':>7} {'time ratio':>11}")
    within = 0
    for s in SIZES:
        r = rows[s]
        ok = med(r["a_w"]) <= 0.01
        within += ok
        print(f"{s:>9} {med(r['a_t']):>11.3f} {100 * med(r['a_w']):>6.2f}{'' if ok else '*'} {med(r['f_t']):>9.3f} "
              f"{100 * med(r['f_w']):>7.2f} {med(r['f_t']) / med(r['a_t']):>10.1f}x")
    print(f"total measurement time: adaptive {med(totals['adaptive']):.2f} s [{min(totals['adaptive']):.2f}-"
          f"{max(totals['adaptive']):.2f}], fixed {med(totals['fixed']):.2f} s [{min(totals['fixed']):.2f}-"
          f"{max(totals['fixed']):.2f}], ratio fixed/adaptive "
          f"{med([f / a for f, a in zip(totals['fixed'], totals['adaptive'])]):.2f}x")
    print(f"adaptive wall time of the whole command: {med(totals['wall']):.2f} s [{min(totals['wall']):.2f}-"
          f"{max(totals['wall']):.2f}]; sizes within ±1%: {within}/{len(SIZES)} (* = not, see its stop reason)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
