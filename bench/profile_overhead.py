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

Any application instead (issue 31: the overhead on a real program, and its MPI time against an
independent measurement):

    .venv/bin/python bench/profile_overhead.py --repeats 5 [--timer REGEX] -- mpiexec -n 2 ./app ARGS

runs the command as given, plain and with the profiler preloaded, interleaved, and prints each
variant's command wall time (the application's run time, its launch included) as median
[min–max], the ratio of the medians and the paired ratios; with ``--timer`` the application's
own figure (the first group of REGEX in its output, e.g. ``'Elapsed time += +([0-9.e+-]+)'``) the
same way. From each profile: the slowest rank's time inside MPI, its share of that rank's
wall time, and the kinds of call with the most time.

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
    ap.add_argument("--timer", help="with an application command: a regex whose first group is the "
                                    "application's own time in seconds")
    ap.add_argument("command", nargs="*", help="an application command to run instead of many_small (after --)")
    args = ap.parse_args()
    if args.command:
        return run_application(args)
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


def run_application(args: argparse.Namespace) -> int:
    """The overhead on any application command, plain against profiled, interleaved."""
    from msgperf.analysis.advice import account_profile
    from msgperf.records.profile_read import read_profile

    profiler = build_profiler(args.mpicc)
    timer = re.compile(args.timer) if args.timer else None
    plain_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    command = (["chrt", "-f", "10"] if args.realtime else []) + list(args.command)  # --realtime was ignored here
    print(f"MPI: {profiler.mpi_version}; profiler: {profiler.path}")
    print(f"command: {shlex.join(command)}")
    print(f"load average before: {load()}")
    walls: dict[str, list[float]] = {"plain": [], "profiled": []}
    own: dict[str, list[float]] = {"plain": [], "profiled": []}
    mpi_share, mpi_s, kinds = [], [], []
    with tempfile.TemporaryDirectory() as name:
        for i in range(args.repeats):
            order = ["plain", "profiled"] if i % 2 == 0 else ["profiled", "plain"]
            for which in order:
                out = Path(name) / f"p{i}.jsonl"
                env = plain_env if which == "plain" else {**plain_env, "LD_PRELOAD": str(profiler.path),
                                                          "MSGPERF_PROFILE_OUTPUT": str(out)}
                start = time.perf_counter()
                done = subprocess.run(command, env=env, capture_output=True, text=True)
                walls[which].append(time.perf_counter() - start)
                if done.returncode != 0:
                    raise SystemExit(f"{which} run {i + 1} exited with {done.returncode}: {done.stderr[-400:]}")
                if timer:
                    m = timer.search(done.stdout + done.stderr)
                    if not m:
                        raise SystemExit(f"--timer {args.timer!r} not found in the output of run {i + 1}")
                    own[which].append(float(m.group(1)))
                if which == "profiled":
                    profile = read_profile(out).profile
                    slowest = max(profile.ranks, key=lambda r: r.mpi_time_s)
                    mpi_s.append(slowest.mpi_time_s)
                    mpi_share.append(slowest.mpi_time_s / slowest.wall_s if slowest.wall_s > 0 else float("nan"))
                    kinds.append(account_profile(profile).kinds)
            print(f"  repetition {i + 1}: wall {walls['plain'][-1]:.3f} s plain, {walls['profiled'][-1]:.3f} s "
                  f"profiled" + (f"; own timer {own['plain'][-1]:.4g} s, {own['profiled'][-1]:.4g} s" if timer else "")
                  + f"; slowest rank in MPI {mpi_s[-1]:.4g} s ({100 * mpi_share[-1]:.1f} %); load {load()}")
    print(f"load average after: {load()}")
    figures = [("command wall time", walls)] + ([("application's own timer", own)] if timer else [])
    for label, values in figures:
        a, b = values["plain"], values["profiled"]
        paired = [y / x for x, y in zip(a, b)]
        print(f"{label}: plain {spread(a)} s, profiled {spread(b)} s; ratio of medians "
              f"{statistics.median(b) / statistics.median(a):.3f}, paired ratios {spread(paired, digits=3)}")
    print(f"slowest rank's time inside MPI: {spread(mpi_s)} s, {spread(mpi_share, 100, 3)} % of its wall time")
    last = kinds[-1]
    print("last profile, time inside MPI by kind: " + ", ".join(
        f"{k.name} {k.time_s:.4g} s ({100 * k.share:.1f} %)" for k in last[:4]))
    return 0


def build_baseline(mpicc: Path, sources: Path, tmp: Path) -> Path:
    """The profiler from another copy of its sources, compiled as build_profiler compiles it."""
    library = tmp / "baseline" / "libmsgperf-profile.so"
    library.parent.mkdir()
    generated = []
    if (sources / "other_calls.py").is_file():  # a version that times every other MPI call
        generated = [tmp / "baseline" / "other_calls.c"]
        subprocess.run([sys.executable, str(sources / "other_calls.py"), str(mpicc), str(generated[0]),
                        *map(str, sorted(sources.glob("*.c")))], check=True)
    subprocess.run([str(mpicc), "-O2", "-g", "-std=c11", "-D_POSIX_C_SOURCE=200809L", f"-I{sources}", "-fPIC",
                    "-shared", '-DMSGPERF_VERSION="baseline"', "-o", str(library),
                    *map(str, sorted(sources.glob("*.c"))), *map(str, generated)], check=True)
    return library


if __name__ == "__main__":
    sys.exit(main())
