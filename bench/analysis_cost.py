"""Cost of analysis and presentation: msgperf show, fit, report and compare on a run with every
pattern over 0 B and 1 B..64 MiB, and the kernels' peak memory per rank for a 64 MiB sweep.

    .venv/bin/python bench/analysis_cost.py [--run FILE] [--repeats 3]

Without --run it first measures such a run (every pattern, --time-budget 0.2 s per size,
several minutes). Times are wall times of the whole command (Python start-up included), median
[min-max] over repetitions. Target: each under 5 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from msgperf.launch.build import build_kernel  # noqa: E402
from msgperf.launch.catalog import pattern_catalog  # noqa: E402
from msgperf.records.runfile_read import read_run  # noqa: E402

MSGPERF = [sys.executable, "-m", "msgperf"]


def timed(args: list[str], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(MSGPERF + args, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", type=Path)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        run_file = args.run
        if run_file is None:
            run_file = tmp / "every-pattern.jsonl"
            names = [p.name for p in pattern_catalog(build_kernel().path, 2)]
            patterns = [a for p in names for a in ("--pattern", p)]
            t0 = time.perf_counter()
            subprocess.run(MSGPERF + ["run", *patterns, "--sizes", "0:64M", "--time-budget", "0.2", "-o",
                                      str(run_file), "-q", "--no-store", "--no-report"], check=True,
                           capture_output=True)
            print(f"measured {run_file.name}: every pattern ({len(names)}), 0 B..64 MiB, "
                  f"in {time.perf_counter() - t0:.0f} s")
        run = read_run(run_file).run
        samples = sum(m.samples_s.size for m in run.measurements)
        print(f"run: {len(run.measurements)} measurements, {samples:,} samples, "
              f"{run_file.stat().st_size / 2**20:.1f} MiB")
        commands = {
            "show": ["show", str(run_file)],
            "show --json": ["show", str(run_file), "--json"],
            "fit": ["fit", str(run_file)],
            "report": ["report", str(run_file), "-o", str(tmp / "report.html")],
            "compare A A": ["compare", str(run_file), str(run_file)],
        }
        for label, cmd in commands.items():
            t = timed(cmd, args.repeats)
            verdict = "ok" if statistics.median(t) < 5 else "OVER 5 s"
            print(f"{label:>12}: {statistics.median(t):5.2f} s [{min(t):.2f}-{max(t):.2f}]  {verdict}")
        sweep = tmp / "pingpong-64m.jsonl"
        subprocess.run(MSGPERF + ["run", "--sizes", "0:64M", "-o", str(sweep), "-q", "--no-store", "--no-report"],
                       check=True, capture_output=True)
        sweep_run = read_run(sweep).run
        rss = sweep_run.launches[-1].max_rss_kib
        ping = [m for m in sweep_run.measurements if m.pattern == "pingpong"]
        most = max(m.samples_s.size for m in ping)
        buffers = 2 * (64 << 20)
        print(f"kernel peak RSS per rank, pingpong 0 B..64 MiB: {', '.join(f'{r / 1024:.0f} MiB' for r in rss)} "
              f"(message buffers {buffers / 2**20:.0f} MiB; samples at most {most:,} x 8 B)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
