"""Time to a trustworthy answer, the default sweep (0 B and 1 B to 64 MiB) on this machine, with
the same kernels under three schedules, side by side:

- one budget for the sweep (`--total-time 10`, msgperf run's default): each size gets the time
  left divided by the sizes left, so sizes that reach ±1 % early hand their time on;
- a budget per size (`--time-budget 1`, the rule before the one budget);
- with --fixed, a fixed-iteration schedule like OSU's defaults (10,000 round trips per size up to
  8 KiB, 1,000 above), using for each size the k (round trips per sample) the adaptive run
  calibrated, so both sides time the same kind of samples.

    .venv/bin/python bench/sweep_schedules.py [--repeats 5] [--fixed]

Time is the sum of the records' own elapsed_s (measurement time; launch start-up excluded); the
whole command's wall time is printed too. The interval is the 95% CI of the median, as a
half-width relative to the median. Repetitions rotate which schedule runs first.
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

from msgperf.analysis.samples.sample_stats import sample_stats  # noqa: E402
from msgperf.launch.build import build_kernel  # noqa: E402
from msgperf.plan import AUTO_TOTAL_S, parse_sizes  # noqa: E402
from msgperf.records.runfile_read import read_run  # noqa: E402

SIZES = parse_sizes("0:64M")
SCHEDULES = {"one budget": ["--total-time", repr(AUTO_TOTAL_S)], "per size": ["--time-budget", "1"]}


def osu_iterations(size: int) -> int:
    return 10_000 if size <= 8192 else 1_000


def adaptive(kernel, tmp: Path, options: list[str]) -> tuple[float, dict]:
    out = tmp / "adaptive.jsonl"
    out.unlink(missing_ok=True)
    t0 = time.perf_counter()
    subprocess.run([str(kernel.mpiexec), "-n", "2", str(kernel.path), "--sizes", ",".join(map(str, SIZES)), "-q",
                    "-o", str(out), *options], check=True, capture_output=True)
    wall = time.perf_counter() - t0
    return wall, {m.bytes: m for m in read_run(out).run.measurements}


def fixed(kernel, tmp: Path, ks: dict[int, int]) -> tuple[float, dict]:
    result = {}
    t0 = time.perf_counter()
    for size in SIZES:
        n = max(6, math.ceil(osu_iterations(size) / ks[size]))
        out = tmp / f"fixed-{size}.jsonl"
        out.unlink(missing_ok=True)
        subprocess.run([str(kernel.mpiexec), "-n", "2", str(kernel.path), "--sizes", str(size), "-q", "-o", str(out),
                        "--min-samples", str(n), "--max-samples", str(n), "--precision", "0.00001",
                        "--time-budget", "86400"], check=True, capture_output=True)
        result[size] = read_run(out).run.measurements[0]
    return time.perf_counter() - t0, result


def spread(values: list[float], fmt: str = ".2f") -> str:
    return f"{statistics.median(values):{fmt}} [{min(values):{fmt}}-{max(values):{fmt}}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--fixed", action="store_true", help="also the OSU-like fixed schedule (about a minute each)")
    args = ap.parse_args()
    kernel = build_kernel()
    names = list(SCHEDULES) + (["fixed"] if args.fixed else [])
    time_by = {n: {s: [] for s in SIZES} for n in names}
    width_by = {n: {s: [] for s in SIZES} for n in names}
    stops = {n: {s: [] for s in SIZES} for n in names}
    totals = {n: [] for n in names}
    walls = {n: [] for n in names}
    within = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for rep in range(args.repeats):
            order = names[rep % len(names):] + names[:rep % len(names)]
            ks: dict[int, int] = {}
            for n in order:
                if n == "fixed":
                    if not ks:  # calibrate k with a quick adaptive pass that is not counted
                        _, probe = adaptive(kernel, tmp, SCHEDULES["per size"])
                        ks = {s: m.k for s, m in probe.items()}
                    wall, got = fixed(kernel, tmp, ks)
                else:
                    wall, got = adaptive(kernel, tmp, SCHEDULES[n])
                    ks = ks or {s: m.k for s, m in got.items()}
                walls[n].append(wall)
                totals[n].append(sum(m.elapsed_s for m in got.values()))
                ok = 0
                for s in SIZES:
                    w = sample_stats(got[s].per_message_s).ci_halfwidth_rel
                    time_by[n][s].append(got[s].elapsed_s)
                    width_by[n][s].append(w)
                    stops[n][s].append(got[s].stop_reason)
                    ok += w <= 0.01
                within[n].append(ok)
            print(f"repetition {rep + 1}/{args.repeats} done", file=sys.stderr)
    med = statistics.median
    print(f"default sweep 0 B, 1 B..64 MiB ({len(SIZES)} sizes), MPICH {kernel.mpi_version}, 2 ranks, "
          f"{args.repeats} repetitions; cells: median over repetitions of the measurement time (s) and ±CI (%)")
    print(f"{'bytes':>9}" + "".join(f" {n + ' s':>13} {'±CI %':>7}" for n in names))
    for s in SIZES:
        print(f"{s:>9}" + "".join(f" {med(time_by[n][s]):>13.3f} {100 * med(width_by[n][s]):>6.2f}"
                                  f"{'' if med(width_by[n][s]) <= 0.01 else '*'}" for n in names))
    for n in names:
        short = sorted({s for s in SIZES if med(width_by[n][s]) > 0.01})
        why = ", ".join(f"{s} B ({'/'.join(sorted(set(stops[n][s])))})" for s in short) or "none"
        print(f"{n}: measurement time {spread(totals[n])} s, whole command {spread(walls[n])} s, sizes within ±1%: "
              f"{spread(within[n], '.0f')} of {len(SIZES)}; wider than ±1% (median): {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
