"""A stand-in for ``mpiexec -n NP msgperf-kernels ARGS``: replays recorded kernel output.

Run as ``python fake_kernels.py BEHAVIOUR_JSON KERNEL_ARGS...`` (tests/launch/fake_launcher.py
builds that command). It reads the kernel options msgperf passes (patterns, sizes, --output,
--append/--overwrite, --launch, --repeat, --placement, --test-stall...), opens the run file the
way the kernels do (exclusive create unless --append or --overwrite), and writes a run record,
a launch record, one measurement per (pattern, size, variant) taken from a real run file
(tests/data/kernel-runs/), and a launch_end, each flushed as the kernels flush them. The
behaviour says how this launch ends: completes, or after N measurements exits with a code,
hangs, or dies by SIGKILL, optionally leaving half a record (a partial last line) and printing
launcher-like lines to its output (the launch log).

Standard library only: it must start fast.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from datetime import datetime, timezone


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _options(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--pattern", action="append", default=[])
    p.add_argument("--sizes", default="0")
    p.add_argument("--pair", default="0:1")
    p.add_argument("--buffer", default="separate")
    p.add_argument("--precision", type=float, default=0.01)
    p.add_argument("--time-budget", type=float, default=1.0)
    p.add_argument("--total-time", type=float, default=0.0)
    p.add_argument("--min-samples", type=int, default=20)
    p.add_argument("--max-samples", type=int, default=1000000)
    p.add_argument("--output", "-o", default="msgperf-run.jsonl")
    p.add_argument("--append", action="store_true")
    p.add_argument("--overwrite", action="store_true")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--launch", type=int, default=0)
    p.add_argument("--quiet", "-q", action="store_true")
    p.add_argument("--command-line", default="")
    p.add_argument("--placement", default="pair")
    p.add_argument("--launcher-line", default=None)
    p.add_argument("--test-stall", default=None)
    p.add_argument("--active", default="")
    p.add_argument("--after", default=None)
    return p.parse_args(argv)


def _fail(message: str, code: int) -> None:
    print(f"msgperf-kernels: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def _recording(path: str) -> tuple[dict, dict, dict, dict[str, list[dict]]]:
    run = launch = end = None
    measurements: dict[str, list[dict]] = {}
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            kind = record["type"]
            if kind == "run":
                run = record
            elif kind == "launch" and launch is None:
                launch = record
            elif kind == "launch_end" and end is None:
                end = record
            elif kind == "measurement" and record["launch"] == 0:
                measurements.setdefault(record["pattern"], []).append(record)
    return run, launch, end, measurements


def _records_for(recorded: list[dict], size: int) -> list[dict]:
    """The recorded records (one per variant) of the recorded size nearest to ``size``."""
    nearest = min({r["bytes"] for r in recorded}, key=lambda b: (abs(b - size), b))
    return [r for r in recorded if r["bytes"] == nearest]


# An eager-probe record as the kernels write it (MPICH 5.0.2 on a 2-core VM, cell size 32 KiB), for
# recordings that have none: msgperf run adds a short probe launch after the sweep.
PROBE = {"type": "measurement", "launch": 0, "pattern": "eager-probe", "bytes": 0, "buffer": "separate",
         "ranks": [0, 1], "k": 4, "divisor": 4, "flows": 1, "metric": "probe",
         "timing": "one iteration = one probe; reported = time per probe", "warmup": 400, "first_s": 9.76e-06,
         "elapsed_s": 0.0075, "stop_reason": "precision", "validation": "ok", "eager": True,
         "eager_limit_bytes": 32688, "eager_limit_low_bytes": 32688, "eager_limit_high_bytes": 32689,
         "unexpected_capacity": 256, "capacity_capped": True, "probe_deadline_s": 0.01,
         "probe_max_bytes": 1048576, "samples_s": [2.1686e-05, 1.8982e-05, 1.9486e-05, 1.95e-05, 1.97e-05, 2.0e-05]}


def _on_curve(record: dict, size: int, curve: list | None) -> dict:
    """The record with its samples scaled so that their median time lies on ``curve`` at ``size``."""
    if not curve:
        return record
    alpha, per_byte, step_at, step, *rest = curve
    wobble = {int(s): f for s, f in rest[0]} if rest else {}  # sizes off the curve by a factor, as on a busy machine
    samples = sorted(record["samples_s"])
    median = samples[len(samples) // 2]
    # a sample is k iterations; the reported time is a sample / divisor (the record says both)
    factor = ((alpha + size * per_byte + (step if size >= step_at else 0.0)) * wobble.get(size, 1.0)
              * record.get("divisor", 1) / median)
    return dict(record, samples_s=[t * factor for t in record["samples_s"]], first_s=record["first_s"] * factor)


def main() -> None:
    behaviour = json.loads(sys.argv[1])
    o = _options(sys.argv[2:])
    run, launch, end, recorded = _recording(behaviour["recording"])
    np_ = behaviour["np"]
    pair = [int(x) for x in o.pair.split(":")]
    sizes = [int(s) for s in o.sizes.split(",")]
    patterns = o.pattern or ["pingpong"]
    if "eager-probe" in patterns and "eager-probe" not in recorded:
        recorded["eager-probe"] = [PROBE]
    for p in patterns:
        if p not in recorded:
            _fail(f"fake kernels: no recording of pattern {p} in {behaviour['recording']}", 99)
    after, then = behaviour.get("after"), behaviour.get("then", "exit")
    pace = behaviour.get("pace_s", 0.0)

    def event() -> None:
        """How this launch ends early: its log lines, then exit, hang or die."""
        for line in behaviour.get("log", []):
            print(line, flush=True)
        if then == "hang":
            while True:
                time.sleep(60)
        if then == "die":
            os.kill(os.getpid(), signal.SIGKILL)
        sys.exit(behaviour.get("code", 1))

    if after == -1:  # the launcher could not start the ranks: nothing written
        event()
    mode = "a" if o.append else "w" if o.overwrite else "x"
    try:
        out = open(o.output, mode)
    except FileExistsError:
        _fail(f"run file '{o.output}' exists; msgperf never overwrites a file without --force (msgperf-kernels: --overwrite); choose another -o, or --append to add a launch to it", 2)
    except OSError as exc:
        _fail(f"cannot write run file '{o.output}': {exc.strerror}; choose a writable path with -o", 2)

    def write(record: dict) -> None:
        out.write(json.dumps(record) + "\n")
        out.flush()

    if not o.append:
        plan = dict(run["plan"], patterns=patterns, sizes=sizes, buffer=o.buffer, pair=pair, nranks=np_,
                    precision=o.precision, time_budget_s=o.time_budget, total_time_s=o.total_time, min_samples=o.min_samples,
                    max_samples=o.max_samples, placement=o.placement, repeat=o.repeat,
                    active=[int(a) for a in o.active.split(",") if a])
        if o.after is not None:  # like the kernels: recorded only
            plan["after"] = [a for a in o.after.split(",") if a != "none"]
        write(dict(run, command_line=o.command_line, start_time=_now(), plan=plan))
    ranks = [{"rank": r, "host": "vm", "cpu": r % 2, "node": 0} for r in range(np_)]
    write(dict(launch, launch=o.launch, start_time=_now(), nranks=np_, pair=pair, ranks=ranks,
               launcher_command_line=o.launcher_line or "",
               environment={**launch.get("environment", {}), **dict(behaviour.get("environment") or ())}))
    stall = tuple(int(x) for x in o.test_stall.split(":")) if o.test_stall else None
    passes = [("intra",), ("inter",)] if o.placement == "both" else [(None,)]
    written = 0
    for n, (placement,) in enumerate(passes):
        for size, p in ((s, p) for s in sizes for p in patterns):  # size by size, as the kernels
            all_ranks = p in ("ring", "pairs", "matrix")
            if n > 0 and all_ranks:
                continue
            if stall and size == stall[1]:
                while True:  # like --test-stall: that rank stops responding here
                    time.sleep(60)
            for record in _records_for(recorded[p], size):
                if after is not None and written == after:
                    if behaviour.get("partial"):
                        text = json.dumps(dict(record, launch=o.launch, bytes=size))
                        out.write(text[: len(text) // 2])
                        out.flush()
                    event()
                time.sleep(pace)
                m = dict(_on_curve(record, size, behaviour.get("curve")), launch=o.launch, bytes=size)
                if not all_ranks:
                    m["ranks"] = pair
                if placement:
                    m["placement"] = placement
                m.pop("first_message_of_job_s", None)
                if written == 0:
                    m["first_message_of_job_s"] = m.get("first_s")
                write(m)
                written += 1
    if after is not None and written == after:
        event()  # stopped after its last measurement, before its launch_end
    write(dict(end, launch=o.launch, end_time=_now(), cpus=[r % 2 for r in range(np_)],
               max_rss_kib=[20000] * np_))
    out.close()
    sys.exit(behaviour.get("exit_after_end", 0))


if __name__ == "__main__":
    main()
