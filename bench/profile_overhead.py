"""What does msgperf's profiler cost an application? tests/apps/many_small.c (rank 0 sends
1 M small messages to rank 1) with and without the profiler preloaded, interleaved
repetitions with the order alternating, on the pip MPICH unless --mpicc says otherwise.

    .venv/bin/python bench/profile_overhead.py [--mode stream|pingpong|self] [--repeats 7]
                                               [--messages 1000000] [--bytes 8] [--realtime]
                                               [--baseline DIR]

Modes (many_small's): ``stream`` windows of 64 MPI_Isend / MPI_Irecv + MPI_Waitall, the highest
message rate; ``pingpong`` MPI_Send / MPI_Recv one message at a time each way; ``self`` one rank
sending to itself, whose CPU time gives the profiler's cost per call even on a busy machine.
Prints the commands, the load average before and after, per repetition the program's own loop
time (its slowest rank's), then medians [min–max] over the repetitions, the ratio of the
medians, the median [min–max] of the paired ratios (each profiled run over the plain run next
to it) and the cost per message in ns. The program's loop time excludes the launch and the
profile's writing at MPI_Finalize; the whole command's wall time is printed beside it.

``--baseline DIR`` adds a third variant to every repetition, in turn with the other two: the
profiler built from the sources in DIR (another version of kernels/profiler, e.g. one checked
out with ``git archive COMMIT kernels/profiler``), so that two versions are compared under the
same load.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from msgperf.launch.build import build_profiler, find_mpicc, find_mpiexec  # noqa: E402

_RESULT = re.compile(r"time_s=([0-9.]+) cpu_s=([0-9.]+)")


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(loop time, rank 0's CPU time for the loop, the command's wall time)."""
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    match = _RESULT.search(done.stdout)
    if not match:
        raise SystemExit(f"no result in the output of {shlex.join(argv)}: {done.stdout!r} {done.stderr!r}")
    return float(match.group(1)), float(match.group(2)), wall


def spread(values: list[float], scale: float = 1.0, digits: int = 4) -> str:
    v = [x * scale for x in values]
    return f"{statistics.median(v):.{digits}g} [{min(v):.{digits}g}–{max(v):.{digits}g}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=("stream", "pingpong", "self"), default="stream")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--bytes", type=int, default=8)
    ap.add_argument("--mpicc", help="MPI to build with (default: the pip mpich's)")
    ap.add_argument("--realtime", action="store_true",
                    help="launch at SCHED_FIFO (chrt -f 10, root): other jobs on a shared machine then "
                         "cannot deschedule the ranks (Linux's real-time throttling still leaves them 5 %%)")
    ap.add_argument("--baseline", type=Path,
                    help="a directory holding another version of the profiler's sources, run as a third variant")
    args = ap.parse_args()
    mpicc = find_mpicc(args.mpicc)
    mpiexec = find_mpiexec(mpicc)
    if mpiexec is None:
        print(f"no mpiexec beside {mpicc}", file=sys.stderr)
        return 2
    profiler = build_profiler(str(mpicc))
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        libraries = {"profiled": profiler.path}
        if args.baseline:
            libraries["baseline"] = build_baseline(mpicc, args.baseline, tmp)
            print(f"baseline: {libraries['baseline']} (from {args.baseline})")
        program = tmp / "many_small"
        subprocess.run([str(mpicc), "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-o", str(program),
                        str(ROOT / "tests" / "apps" / "many_small.c")], check=True)
        realtime = ["chrt", "-f", "10"] if args.realtime else []
        argv = [*realtime, str(mpiexec), "-n", "1" if args.mode == "self" else "2", str(program), "--mode", args.mode,
                "--messages", str(args.messages), "--bytes", str(args.bytes)]
        plain_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        print(f"MPI: {profiler.mpi_version}; profiler: {profiler.path}")
        print(f"plain:    {shlex.join(argv)}")
        print(f"profiled: LD_PRELOAD={profiler.path} MSGPERF_PROFILE_OUTPUT={tmp}/p<i>.jsonl {shlex.join(argv)}")
        print(f"load average before: {load()}")
        variants = ["plain", *libraries]
        times: dict[str, list[tuple[float, float, float]]] = {v: [] for v in variants}
        for i in range(args.repeats):
            shift = i % len(variants)  # each variant first in turn; with two, the order alternates
            for which in variants[shift:] + variants[:shift]:
                env = plain_env if which == "plain" else {
                    **plain_env, "LD_PRELOAD": str(libraries[which]),
                    "MSGPERF_PROFILE_OUTPUT": str(tmp / f"{which}{i}.jsonl")}
                times[which].append(run_once(argv, env))
            print(f"  repetition {i + 1}: loop " + ", ".join(f"{times[v][-1][0]:.4f} s {v}" for v in variants)
                  + "; CPU " + ", ".join(f"{times[v][-1][1]:.4f} s" for v in variants) + f"; load {load()}")
        print(f"load average after: {load()}")
    n = args.messages
    unit = "round trip" if args.mode == "pingpong" else "message"  # pingpong: each message is answered
    for label, index in (("loop time", 0), ("rank 0 CPU time", 1), ("command wall time", 2)):
        a = [p[index] for p in times["plain"]]
        for which in libraries:
            b = [p[index] for p in times[which]]
            paired = [y / x for x, y in zip(a, b)]
            cost = (statistics.median(b) - statistics.median(a)) / n * 1e9
            print(f"{label}: plain {spread(a)} s, {which} {spread(b)} s; ratio of medians "
                  f"{statistics.median(b) / statistics.median(a):.3f}, paired ratios {spread(paired, digits=3)}; "
                  f"{cost:.0f} ns per {unit} (median difference / {n:,})")
    return 0


def build_baseline(mpicc: Path, sources: Path, tmp: Path) -> Path:
    """The profiler from another copy of its sources, compiled as build_profiler compiles it."""
    library = tmp / "baseline" / "libmsgperf-profile.so"
    library.parent.mkdir()
    subprocess.run([str(mpicc), "-O2", "-g", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-fPIC", "-shared",
                    '-DMSGPERF_VERSION="baseline"', "-o", str(library),
                    *map(str, sorted(sources.glob("*.c")))], check=True)
    return library


if __name__ == "__main__":
    sys.exit(main())
