"""Measured error rates of the regression gate `msgperf compare --fail-above P`.

    .venv/bin/python bench/gate_errors.py [--runs 6] [--sizes 0,1K,64K,1M] [--repeat 3]
        [--fail-above 5] [--slowdown 0.10] [--delay-ns N] [--keep DIR]

A/A: the same configuration is run N times (`msgperf run --sizes S --repeat R`, each run stored
in a private database, as a user's history builds up), and every pair (i < j) is compared with
`--fail-above P`. A false alarm is a pair that exits 3. Each pair is compared twice: with the
stored history of the configuration (the other N - 2 runs) and with `--no-history` (the two runs'
own launches only).

A/B: a known slowdown is injected, and every (A_i, B_j) pair is compared the same way; a detection
is exit 3. Two ways to inject it:
- default: B_j is the measured run A_j with every sample multiplied by 1 + slowdown (j != i):
  real launch-to-launch and run-to-run noise, an exactly known slowdown;
- `--delay-ns N`: A and B runs both started the way `msgperf run` starts the kernels, launch
  by launch (`--append --launch i`), A with the kernels' hidden test option `--test-delay-ns 0`,
  B with `--test-delay-ns N` (every participant spins N ns more per iteration, inside the timed
  loop): a ping-pong's one-way time rises by N/2, so the slowdown at size s is N / 2 / T(s).
  A runs are imported into the private database (their history); B runs are not.

Rates come with Clopper-Pearson 95 % intervals (Clopper & Pearson, Biometrika 26, 1934). Pairs
share runs, so they are not independent trials and the intervals are optimistic; the per-size
figures show where the noise floor lets a slowdown be seen at all. Timings taken on a loaded
machine say so: the figures depend on how much the machine moves between runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from msgperf.analysis.launches.noise_floor import launch_medians, noise_floors  # noqa: E402
from msgperf.plan import parse_sizes  # noqa: E402
from msgperf.records.runfile_read import read_run  # noqa: E402
from msgperf.records.runfile_write import write_run_file  # noqa: E402

MSGPERF = [sys.executable, "-m", "msgperf"]


def rate(k: int, n: int) -> str:
    if n == 0:
        return "-"
    ci = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
    return f"{k}/{n} = {100 * k / n:.1f} % [{100 * ci.low:.1f} – {100 * ci.high:.1f} %]"


def msgperf(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([*MSGPERF, *map(str, args)], capture_output=True, text=True, env=env)


def measure(path: Path, sizes: str, repeat: int, env: dict) -> None:
    done = msgperf("run", "--sizes", sizes, "--repeat", str(repeat), "--no-report", "-o", path, env=env)
    if done.returncode != 0:
        raise SystemExit(f"msgperf run failed: {done.stderr.strip()[-500:]}")


def measure_delayed(path: Path, sizes: str, repeat: int, delay_ns: int, env: dict,
                    store: bool) -> None:
    """A run with the kernels' hidden --test-delay-ns, launch by launch as msgperf run does.
    The launcher line is not recorded, so A (delay 0) and B share a configuration, as a run
    before and after a change of the code would."""
    from msgperf.launch.build import build_kernel

    kernel = build_kernel()
    for launch in range(repeat):
        argv = [str(kernel.mpiexec or "mpiexec"), "-n", "2", str(kernel.path), "--sizes",
                ",".join(map(str, parse_sizes(sizes))), "-q", "-o", str(path),
                "--test-delay-ns", str(delay_ns)]
        if launch:
            argv += ["--append", "--launch", str(launch)]
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise SystemExit("the kernels refused --test-delay-ns (is the kernels' test option "
                             f"merged?): {done.stderr.strip()[-300:]}; leave out --delay-ns to "
                             "inject the slowdown by scaling measured runs")
    if store:
        done = msgperf("import", path, env=env)
        if done.returncode != 0:
            raise SystemExit(f"msgperf import failed: {done.stderr.strip()[-300:]}")


def scaled(src: Path, dst: Path, factor: float) -> Path:
    run = read_run(src).run
    ms = tuple(dataclasses.replace(m, samples_s=np.asarray(m.samples_s) * factor)
               for m in run.measurements)
    return write_run_file(msgspec.structs.replace(run, measurements=ms, path=""), dst)


def compare(a: Path, b: Path, fail_above: float, env: dict, history: bool) -> tuple[int, dict]:
    args = ["compare", a, b, "--fail-above", f"{fail_above:g}", "--json"]
    done = msgperf(*args, *([] if history else ["--no-history"]), env=env)
    if done.returncode not in (0, 3, 4):
        raise SystemExit(f"msgperf compare failed: {done.stderr.strip()[-500:]}")
    return done.returncode, json.loads(done.stdout)[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=6, help="A runs (the A/A pairs: N(N-1)/2)")
    ap.add_argument("--sizes", default="0,1K,64K,1M")
    ap.add_argument("--repeat", type=int, default=3, help="launches per run")
    ap.add_argument("--fail-above", type=float, default=5.0, help="the gate's threshold, percent")
    ap.add_argument("--slowdown", type=float, default=0.10, help="injected slowdown (scaled B runs)")
    ap.add_argument("--delay-ns", type=int, default=None, help="B runs with --test-delay-ns N")
    ap.add_argument("--keep", type=Path, default=None, help="keep the runs and database here")
    args = ap.parse_args()
    if args.runs < 3:
        raise SystemExit("--runs: at least 3, so that every pair has a history")
    tmp = args.keep or Path(tempfile.mkdtemp(prefix="gate-errors-"))
    tmp.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MSGPERF_HOME": str(tmp / "home")}
    started = time.time()
    load = os.getloadavg()
    a_runs, b_runs = [], []
    for i in range(args.runs):
        path = tmp / f"a{i}.jsonl"
        if args.delay_ns is None:
            measure(path, args.sizes, args.repeat, env)
        else:  # A and B alternate, so a change of the machine's load hits both alike
            measure_delayed(path, args.sizes, args.repeat, 0, env, store=True)
            b_runs.append(tmp / f"b{i}.jsonl")
            measure_delayed(b_runs[-1], args.sizes, args.repeat, args.delay_ns, env, store=False)
        a_runs.append(path)
        print(f"run {i + 1}/{args.runs} measured", file=sys.stderr)
    if args.delay_ns is None:
        b_runs = [scaled(a, tmp / f"b{i}.jsonl", 1 + args.slowdown) for i, a in enumerate(a_runs)]
        ab_pairs = [(i, j) for i in range(args.runs) for j in range(args.runs) if i != j]
    else:
        ab_pairs = [(i, j) for i in range(args.runs) for j in range(args.runs)]
    measured = time.time() - started

    outcomes: dict[str, list[tuple[int, dict]]] = {}
    for history in (True, False):
        key = "history" if history else "no history"
        outcomes[f"A/A {key}"] = [compare(a_runs[i], a_runs[j], args.fail_above, env, history)
                                  for i, j in itertools.combinations(range(args.runs), 2)]
        outcomes[f"A/B {key}"] = [compare(a_runs[i], b_runs[j], args.fail_above, env, history)
                                  for i, j in ab_pairs]

    runs = [read_run(p).run for p in a_runs]
    floors = noise_floors([launch_medians(r, "pingpong") for r in runs])
    end_load = os.getloadavg()
    print(f"gate --fail-above {args.fail_above:g} %, {args.runs} runs of --repeat {args.repeat} at "
          f"sizes {args.sizes}; load average {load[0]:.2f} at the start, {end_load[0]:.2f} at the "
          f"end (2 cores); measuring took {measured:.0f} s, everything {time.time() - started:.0f} s")
    injected = (f"a {100 * args.slowdown:g} % slowdown (measured A runs scaled)"
                if args.delay_ns is None else f"--test-delay-ns {args.delay_ns}")
    print(f"A/B: {injected}")
    print("noise floor of the A runs per size (sd of log median): between launches of a run, "
          "extra between runs, a whole run of R launches")
    # Roughly the slowdown the gate sees 9 times in 10: the difference of two runs has sd
    # √2·(run sd); it must clear the threshold and Holm's bar (z ≈ 2.5 for 4 sizes), plus 1.28 sd.
    holm_z = float(stats.norm.ppf(1 - 0.05 / (2 * max(1, len(floors)))))

    def pct(x):
        return "-" if x is None else f"{100 * x:.1f} %"

    for s, f in floors.items():
        sd = f.rerun_sd(args.repeat)
        seen = None if sd is None else math.expm1(
            max(math.log1p(args.fail_above / 100), holm_z * math.sqrt(2) * sd) + 1.28 * math.sqrt(2) * sd)
        print(f"  {s:>8} B: launches {pct(f.launch_sd)}, runs {pct(f.run_sd)}, "
              f"run of {args.repeat} {pct(sd)}; seen 9 times in 10 from about {pct(seen)}")
    for name, results in outcomes.items():
        codes = [c for c, _ in results]
        n = len(codes)
        fails, passes, unsure = codes.count(3), codes.count(0), codes.count(4)
        label = "false alarms" if name.startswith("A/A") else "detections"
        print(f"{name}: {label} (exit 3) {rate(fails, n)}; pass (exit 0) {rate(passes, n)}; "
              f"cannot tell (exit 4) {rate(unsure, n)}")
        per_size: dict[int, list[str]] = {}
        for _, data in results:
            for s in data["sizes"]:
                per_size.setdefault(s["bytes"], []).append(s.get("gate", ""))
        print("  per size (fail / pass / cannot tell): " + "; ".join(
            f"{s} B {g.count('fail')}/{g.count('pass')}/{g.count('cannot tell')}"
            for s, g in sorted(per_size.items())))
    print(f"runs and database: {tmp}" if args.keep else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
