"""Wall time of a whole `msgperf run` against the budget it promises (`--total-time`, 10 s by
default): from the process's start to the printed answer, and to its exit (the HTML report is
written after the answer), divided by the budget. Two cases, each run --count times: the
default run (0 B and 1 B to 64 MiB) and `--sizes 1K:64K`.

    .venv/bin/python bench/time_to_answer.py [--count 5] [--msgperf PATH] [--budget 10]

--msgperf runs another installation (e.g. the main branch's .venv/bin/msgperf, for a before and
after on one machine). Each command runs in a fresh temporary directory (its run file, its
report, its result database); the kernels are built once before timing (`msgperf build`), so
no case pays a first compile. Cases alternate, so a change in the machine's load spreads over
both. The goal (issue 26): median wall to exit ÷ budget ≤ 1.2.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = (("default", []), ("1K:64K", ["--sizes", "1K:64K"]))


def timed_run(msgperf: str, args: list[str], where: Path) -> tuple[float, float] | str:
    """(seconds to the printed answer, seconds to exit) of ``msgperf run ARGS`` in ``where``, or
    why it failed (its exit status and last line on stderr); the answer is printed when the line
    naming the run file reaches stdout."""
    env = {**os.environ, "MSGPERF_HOME": str(where / "home")}
    with open(where / "stderr.txt", "w+") as err:
        began = time.perf_counter()
        proc = subprocess.Popen([msgperf, "run", *args], cwd=where, env=env, stdout=subprocess.PIPE, stderr=err,
                                text=True)
        answer = None
        assert proc.stdout is not None
        for line in proc.stdout:
            if answer is None and line.startswith("run file:"):
                answer = time.perf_counter() - began
        code = proc.wait()
        done = time.perf_counter() - began
        err.seek(0)
        said = err.read().strip().splitlines()
    if code != 0:
        return f"exit {code} after {done:.1f} s: {said[-1] if said else ''}"
    return (answer if answer is not None else done), done


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=5, help="runs of each case (default 5)")
    ap.add_argument("--msgperf", default=str(ROOT / ".venv" / "bin" / "msgperf"), help="the msgperf to time")
    ap.add_argument("--budget", type=float, default=10.0, help="the budget the runs promise (default 10 s)")
    args = ap.parse_args()
    subprocess.run([args.msgperf, "build"], check=True, capture_output=True)
    answer: dict[str, list[float]] = {name: [] for name, _ in CASES}
    exit_: dict[str, list[float]] = {name: [] for name, _ in CASES}
    failed: dict[str, list[str]] = {name: [] for name, _ in CASES}
    for i in range(args.count):
        for name, extra in CASES:
            with tempfile.TemporaryDirectory() as tmp:
                got = timed_run(args.msgperf, extra, Path(tmp))
            if isinstance(got, str):
                failed[name].append(got)
                print(f"{name} {i + 1}/{args.count}: failed, {got}", file=sys.stderr)
                continue
            answer[name].append(got[0])
            exit_[name].append(got[1])
            print(f"{name} {i + 1}/{args.count}: answer {got[0]:.1f} s, exit {got[1]:.1f} s", file=sys.stderr)
    load = os.getloadavg()
    print(f"{args.msgperf}, {args.count} runs a case, budget {args.budget:g} s, load average now "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min), {os.cpu_count()} cores")
    print("| command | to the answer ÷ budget | to exit ÷ budget | to exit, s |")
    print("|---|---|---|---|")
    for name, extra in CASES:
        command = shlex.join(["msgperf", "run", *extra])
        if not exit_[name]:
            print(f"| `{command}` | - | - | - |")
            continue
        print(f"| `{command}` | {spread([v / args.budget for v in answer[name]])} "
              f"| {spread([v / args.budget for v in exit_[name]])} | {spread(exit_[name])} |")
    print("median (min–max) over the runs that completed")
    for name, why in failed.items():
        for w in why:
            print(f"failed, {name}: {w}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
