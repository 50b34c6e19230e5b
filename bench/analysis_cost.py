"""Cost of analysis and presentation: msgperf show, fit, report and compare on a run with every
pattern over 0 B and 1 B..64 MiB, and the kernels' peak memory per rank for a 64 MiB sweep.

    .venv/bin/python bench/analysis_cost.py [--run FILE] [--repeats 5] [--no-rss] [--only show,fit,report]
                                            [--against OTHER_CHECKOUT/src]

Without --run it first measures such a run (every pattern, --time-budget 0.2 s per size,
several minutes). Times are wall times of the whole command (Python start-up included), median
[min-max] over repetitions, and the median CPU time (user + system) of the command, which a
machine shared with other jobs inflates less. Each command is timed twice: with the cache off
(MSGPERF_NO_CACHE=1: load, analyse, render; "cold") and warm (the second reading of an unchanged
run: the analysis is read from analysis_cache.py, the output rendered). Targets (issue "A house
with rooms"): warm show and fit at most 0.3 s, report 1 s; cold show 1.5 s. Python's own
start-up is timed alone for comparison. The commands run with a temporary MSGPERF_HOME (no
stored history) and cache directory.
"""

from __future__ import annotations

import argparse
import os
import resource
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
FLOOR = "import msgperf.cli, numpy, msgperf.analysis.result, rich.console, rich.table"


def timed(argv: list[str], repeats: int, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """(wall times, CPU times) of ``argv`` run ``repeats`` times."""
    walls, cpus = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=env)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


def imported_from(env: dict[str, str]) -> str:
    """The file ``import msgperf`` loads under ``env``."""
    return subprocess.run([sys.executable, "-c", "import msgperf; print(msgperf.__file__)"], check=True,
                          capture_output=True, text=True, env=env).stdout.strip()


def timed_pair(argv: list[str], repeats: int, env: dict[str, str], other: Path
               ) -> tuple[tuple[list[float], list[float]], tuple[list[float], list[float]]]:
    """``argv`` run with this tree's msgperf and with the one under ``other`` (a ``src`` folder),
    alternately (which goes first alternates too), so that both see the same load: (this tree's
    walls and CPUs, the other's)."""
    mine: tuple[list[float], list[float]] = ([], [])
    theirs: tuple[list[float], list[float]] = ([], [])
    for i in range(repeats):
        order = [(mine, env), (theirs, dict(env, PYTHONPATH=str(other)))]
        for out, e in (order if i % 2 == 0 else order[::-1]):
            walls, cpus = timed(argv, 1, e)
            out[0].extend(walls)
            out[1].extend(cpus)
    return mine, theirs


def figure(label: str, walls: list[float], cpus: list[float], target: float | None = None) -> str:
    verdict = "" if target is None else ("  ok" if statistics.median(walls) <= target else f"  OVER {target:g} s")
    return (f"{label:>24}: {statistics.median(walls):5.2f} s [{min(walls):.2f}-{max(walls):.2f}]"
            f"  cpu {statistics.median(cpus):5.2f} s{verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", type=Path)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cold-repeats", type=int, help="Repeats with the caches off (default --repeats; 0 skips).")
    ap.add_argument("--no-rss", action="store_true", help="Skip the kernels' peak memory (one more sweep).")
    ap.add_argument("--only", help="Time only these commands (comma-separated labels, e.g. show,fit,report).")
    ap.add_argument("--against", type=Path, metavar="SRC",
                    help="Also time the msgperf under SRC (another checkout's src folder), each repetition "
                         "alternating with this tree's, and print the ratio of the medians (this / SRC).")
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
        spilled = " (over 32 MiB: its samples wait on disk while it is read)" if any(
            m.spilled for m in run.measurements) else ""
        print(f"run: {len(run.measurements)} measurements, {samples:,} samples, "
              f"{run_file.stat().st_size / 2**20:.1f} MiB{spilled}")
        commands = {
            "show": (["show", str(run_file)], 0.3),
            "show --json": (["show", str(run_file), "--json"], 0.3),
            "fit": (["fit", str(run_file)], 0.3),
            "report": (["report", str(run_file), "-o", str(tmp / "report.html"), "--force"], 1.0),  # timed again over its own
            "compare A A": (["compare", str(run_file), str(run_file)], None),
        }
        env = {k: v for k, v in os.environ.items() if k not in ("MSGPERF_CACHE", "PYTHONPATH")}
        env.update(MSGPERF_HOME=str(tmp / "home"), XDG_CACHE_HOME=str(tmp / "cache"))
        compiled = sum(1 for _ in (ROOT / "src" / "msgperf").rglob("__pycache__/*.pyc"))
        print(f"{args.repeats} repeats; {sys.executable} -m msgperf ...; PYTHONDONTWRITEBYTECODE="
              f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}, {compiled} msgperf .pyc files cached")
        where = imported_from(env)
        print(f"msgperf imported from {where}")
        if args.against is not None:
            theirs = imported_from(dict(env, PYTHONPATH=str(args.against)))
            if Path(theirs).resolve() == Path(where).resolve():  # SRC not a src folder: the same code twice
                sys.exit(f"error: --against {args.against}: imports {theirs}, this tree's msgperf; give the "
                         "other checkout's src folder")
            # a tree without bytecode compiles every import: no fair comparison
            print(f"against: msgperf imported from {theirs}, "
                  f"{sum(1 for _ in args.against.rglob('__pycache__/*.pyc'))} .pyc files cached there")
        print(figure("python -c pass", *timed([sys.executable, "-c", "pass"], args.repeats, env)))
        print(figure("import msgperf.cli", *timed([sys.executable, "-c", "import msgperf.cli"], args.repeats, env)))
        # the floor of a warm show or fit: the interpreter, the CLI, numpy, the classes a cached
        # analysis is made of (every analysis module) and the terminal renderer, nothing run
        print(figure("import numpy", *timed([sys.executable, "-c", "import numpy"], args.repeats, env)))
        print(figure("imports of a warm show", *timed([sys.executable, "-c", FLOOR], args.repeats, env)))
        if args.only:
            commands = {label: commands[label] for label in args.only.split(",")}
        if args.against is not None:
            for label, (cmd, target) in commands.items():
                for warmth, extra in (("no cache", {"MSGPERF_NO_CACHE": "1"}), ("warm", {})):
                    if not extra:  # the first reading of each tree fills its own cache entry
                        for e in (env, dict(env, PYTHONPATH=str(args.against))):
                            subprocess.run(MSGPERF + cmd, check=True, capture_output=True, env=e)
                    mine, theirs = timed_pair(MSGPERF + cmd, args.repeats, dict(env, **extra), args.against)
                    cold_target = 1.5 if label == "show" else None
                    print(figure(f"{label} ({warmth})", *mine, cold_target if extra else target))
                    print(figure(f"  {args.against}", *theirs))
                    print(f"{'':>26}this / SRC: wall {statistics.median(mine[0]) / statistics.median(theirs[0]):.2f}, "
                          f"CPU {statistics.median(mine[1]) / statistics.median(theirs[1]):.2f}")
            return 0
        for label, (cmd, target) in commands.items():
            cold = args.repeats if args.cold_repeats is None else args.cold_repeats
            if cold:
                print(figure(f"{label} (no cache)", *timed(MSGPERF + cmd, cold, dict(env, MSGPERF_NO_CACHE="1")),
                             1.5 if label == "show" else None))
            subprocess.run(MSGPERF + cmd, check=True, capture_output=True, env=env)  # the first reading
            print(figure(f"{label} (warm)", *timed(MSGPERF + cmd, args.repeats, env), target))
        if args.no_rss:
            return 0
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
