"""Does msgperf's harness add anything to what it measures? msgperf's ping-pong against NetPIPE
and against a bare 20-line MPI_Send/MPI_Recv loop, all on the same MPI (Debian's MPICH, which
NetPIPE's Debian package is built against), one buffer in place, interleaved repetitions.

    .venv/bin/python bench/harness_overhead.py [--repeats 5]

Needs Debian's netpipe-mpich2 (apt-get install netpipe-mpich2; it brings /usr/bin/mpicc.mpich).
Prints, per size, the one-way time of each tool (median over repetitions) and the ratios
msgperf/peer with their spread [min-max] over the repetitions. Statistics compared:
msgperf's mean per message (total time of its samples / messages: the same statistic as the
bare loop's loop-time / messages) and its median; NetPIPE's own (best of 3 trial means).
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
from msgperf.records.runfile_read import read_run  # noqa: E402

MPICC, MPIEXEC, NETPIPE = "/usr/bin/mpicc.mpich", "/usr/bin/mpiexec.mpich", "/usr/bin/NPmpich2"
SIZES = [1, 8, 1024, 65536, 1048576, 4194304]


def run_msgperf(kernel: Path, tmp: Path) -> dict[int, tuple[float, float]]:
    out = tmp / "msgperf.jsonl"
    subprocess.run([MPIEXEC, "-n", "2", str(kernel), "--sizes", ",".join(map(str, SIZES)), "--buffer", "inplace",
                    "--time-budget", "1", "-q", "-o", str(out)], check=True, capture_output=True)
    result = {}
    for m in read_run(out).run.measurements:
        mean = m.samples_s.sum() / (m.samples_s.size * m.divisor)  # total time / messages
        result[m.bytes] = (mean, float(np.median(m.per_message_s)))
    return result


def run_netpipe(tmp: Path) -> dict[int, float]:
    out = tmp / "np.out"
    subprocess.run([MPIEXEC, "-n", "2", NETPIPE, "-l", "1", "-u", str(max(SIZES)), "-p", "0", "-o", str(out)],
                   check=True, capture_output=True, cwd=tmp)
    times = {}
    for line in out.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 3 and int(float(fields[0])) in SIZES:
            times[int(float(fields[0]))] = float(fields[2])
    return times


def run_bare(binary: Path) -> dict[int, float]:
    done = subprocess.run([MPIEXEC, "-n", "2", str(binary), *map(str, SIZES)], check=True, capture_output=True,
                          text=True)
    return {int(b): float(t) for b, t in (line.split() for line in done.stdout.splitlines())}


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} [{min(values):.3f}-{max(values):.3f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    for tool in (MPICC, MPIEXEC, NETPIPE):
        if not os.access(tool, os.X_OK):
            print(f"missing {tool}: apt-get install netpipe-mpich2", file=sys.stderr)
            return 2
    kernel = build_kernel(MPICC).path
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        bare = tmp / "bare_pingpong"
        subprocess.run([MPICC, "-O2", "-o", str(bare), str(ROOT / "bench" / "bare_pingpong.c")], check=True)
        runs = {"msgperf": [], "netpipe": [], "bare": []}
        tools = [("msgperf", lambda: run_msgperf(kernel, tmp)), ("netpipe", lambda: run_netpipe(tmp)),
                 ("bare", lambda: run_bare(bare))]
        for rep in range(args.repeats):
            order = tools[rep % 3:] + tools[:rep % 3]  # rotate so no tool always runs first
            for name_, fn in order:
                runs[name_].append(fn())
            print(f"repetition {rep + 1}/{args.repeats} done ({', '.join(n for n, _ in order)})", file=sys.stderr)
    print(f"one-way time, MPICH {MPICC} (Debian), in place, {args.repeats} interleaved repetitions; "
          "cells: median [min-max] over repetitions")
    print(f"{'bytes':>8} {'msgperf mean':>13} {'msgperf med':>12} {'bare':>10} {'NetPIPE':>10}   "
          f"{'mean/bare':>22} {'median/bare':>22} {'median/NetPIPE':>22} {'mean/NetPIPE':>22}")
    for size in SIZES:
        mean = [r[size][0] for r in runs["msgperf"]]
        med = [r[size][1] for r in runs["msgperf"]]
        bare_t = [r[size] for r in runs["bare"]]
        np_t = [r[size] for r in runs["netpipe"]]
        us = lambda v: f"{statistics.median(v) * 1e6:.3f}us"  # noqa: E731
        print(f"{size:>8} {us(mean):>13} {us(med):>12} {us(bare_t):>10} {us(np_t):>10}   "
              f"{spread([a / b for a, b in zip(mean, bare_t)]):>22} {spread([a / b for a, b in zip(med, bare_t)]):>22} "
              f"{spread([a / b for a, b in zip(med, np_t)]):>22} {spread([a / b for a, b in zip(mean, np_t)]):>22}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
