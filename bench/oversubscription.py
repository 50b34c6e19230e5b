"""What does the progress setting msgperf chooses for oversubscribed launches cost? When a launch
has more ranks than usable cores, msgperf sets MPICH's yielding progress
(launch/launcher.py: OVERSUBSCRIBED_ENV, MPIR_CVAR_POLLS_BEFORE_YIELD=1 and
MPIR_CVAR_ENABLE_HEAVY_YIELD=1), which makes a waiting rank give its core away after every poll.
This bench measures that setting where it is *not* needed: a 2-rank ping-pong on 2 cores (the
pip MPICH), with and without the setting, interleaved repetitions.

    .venv/bin/python bench/oversubscription.py [--repeats 5] [--sizes 0,1K,64K,1M]

Prints, per size, the one-way median of each (median over repetitions, [min-max]) and the
ratio yield/plain with its spread over the repetitions, and the load average before and after
each repetition: on a shared machine, say so when quoting the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from msgperf.launch.build import build_kernel  # noqa: E402
from msgperf.launch.launcher import OVERSUBSCRIBED_ENV  # noqa: E402
from msgperf.records.runfile_read import read_run  # noqa: E402


def one_launch(kernel: Path, mpiexec: Path, sizes: str, budget: str, env: dict[str, str], out: Path) -> dict[int, float]:
    command = [str(mpiexec), "-n", "2", str(kernel), "--sizes", sizes, "--time-budget", budget, "-q",
               "--overwrite", "-o", str(out)]
    subprocess.run(command, check=True, capture_output=True, env=env, timeout=600)
    return {m.bytes: float(np.median(m.per_message_s)) for m in read_run(out).run.measurements}


def spread(values: list[float], fmt=lambda v: f"{v:.3g}") -> str:
    return f"{fmt(statistics.median(values))} [{fmt(min(values))}-{fmt(max(values))}]"


def load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", default="0,1K,64K,1M")
    ap.add_argument("--time-budget", default="0.5")
    args = ap.parse_args()
    kernel = build_kernel()
    if kernel.mpiexec is None:
        print("no mpiexec beside the kernels' MPI", file=sys.stderr)
        return 2
    cores = len(os.sched_getaffinity(0))
    plain_env = {k: v for k, v in os.environ.items() if k not in OVERSUBSCRIBED_ENV}
    yield_env = {**plain_env, **OVERSUBSCRIBED_ENV}
    times: dict[str, dict[int, list[float]]] = {"plain": {}, "yield": {}}
    loads = []
    with tempfile.TemporaryDirectory() as name:
        out = Path(name) / "run.jsonl"
        for _ in range(args.repeats):
            for label, env in (("plain", plain_env), ("yield", yield_env)):  # interleaved
                before = load()
                for size, t in one_launch(kernel.path, kernel.mpiexec, args.sizes, args.time_budget, env, out).items():
                    times[label].setdefault(size, []).append(t)
                loads.append(f"{before}->{load()}")
    print(f"2-rank ping-pong on {cores} usable cores, {args.repeats} interleaved repetitions per setting; "
          f"yield = {' '.join(f'{k}={v}' for k, v in OVERSUBSCRIBED_ENV.items())}")
    print(f"command: mpiexec -n 2 {kernel.path.name} --sizes {args.sizes} --time-budget {args.time_budget} "
          "(with and without the yield environment)")
    print(f"load average (1 min) before->after each launch: {' '.join(loads)}"
          + ("  -- a shared machine: quote these figures with that said" if any(
              l.split('->')[0] != '?' and float(l.split('->')[0]) > cores / 2 for l in loads) else ""))
    print(f"{'bytes':>8}  {'plain one-way [min-max]':>28}  {'yield one-way [min-max]':>28}  "
          f"{'yield/plain [min-max]':>24}")
    us = lambda v: f"{v * 1e6:.3g} us"  # noqa: E731
    for size in sorted(times["plain"]):
        plain, yielded = times["plain"][size], times["yield"][size]
        ratios = [y / p for p, y in zip(plain, yielded)]
        ratio = spread(ratios, lambda v: f"{v:.2f}x")
        print(f"{size:>8}  {spread(plain, us):>28}  {spread(yielded, us):>28}  {ratio:>24}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
