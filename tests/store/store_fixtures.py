"""Synthetic msgperf runs for the store tests (deterministic, small)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from msgperf.records.format import (ClockSelfTest, Launch, Measurement, Plan, RankPlacement, Run,
                                    RunInfo, encode_launch, encode_launch_abort, encode_launch_end,
                                    encode_measurement, encode_run)

SIZES = (0, 1, 8, 1024, 65536)


def make_run(seed: int = 0, *, hosts: tuple[str, str] = ("node01", "node01"), mpi: str = "MPICH",
             version: str = "5.0.2", start_time: str = "2026-11-20T10:00:00+00:00",
             patterns: tuple[str, ...] = ("pingpong",), sizes: tuple[int, ...] = SIZES,
             samples: int = 40, finished: bool = True) -> Run:
    rng = np.random.default_rng(seed)
    plan = Plan(patterns=patterns, sizes=sizes, buffer="separate", pair=(0, 1), nranks=2, precision=0.02,
                time_budget_s=5.0, min_samples=10, max_samples=1000)
    info = RunInfo(format_version=1, msgperf_version="0.1.0",
                   command_line=f"msgperf run --sizes {','.join(map(str, sizes))}",
                   start_time=start_time, plan=plan)
    launch = Launch(
        index=0, mpi_library=mpi, mpi_version=version, nranks=2,
        ranks=(RankPlacement(0, hosts[0], 0, 0), RankPlacement(1, hosts[1], 1, 0 if hosts[0] == hosts[1] else 1)),
        pair=(0, 1), pair_shares_node=hosts[0] == hosts[1],
        clock=ClockSelfTest(source="clock_gettime(CLOCK_MONOTONIC)", resolution_s=2.5e-8, overhead_s=1.9e-8,
                            monotonic=True, reported_resolution_s=1e-9, mpi_wtick_s=1e-9),
        environment={"MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": "8192"}, start_time=start_time,
        end_time="2026-11-20T10:00:05+00:00" if finished else None, end_cpus=(0, 1) if finished else None)
    measurements = []
    for pattern in patterns:
        for size in sizes:
            base = 2.2e-6 + size * 1.1e-10
            values = base * 100 * (1 + rng.exponential(0.05, samples))  # k = 50 round trips
            measurements.append(Measurement(
                pattern=pattern, bytes=size, buffer="separate", ranks=(0, 1), k=50, divisor=100,
                samples_s=values, stop_reason="precision", validated=True, launch=0, timing="per_sample",
                metric="one_way", first_s=float(values.max() * 3), warmup=20, elapsed_s=float(values.sum()),
                extra={"calibration": {"reps": 50, "seed": seed}}))
    return Run(info=info, launches=(launch,), measurements=tuple(measurements))


def write_run_file(run: Run, path: Path) -> Path:
    """Write ``run`` as a run file, in the order the kernels write one."""
    lines = [encode_run(run.info)]
    for launch in run.launches:
        lines.append(encode_launch(launch))
        lines += [encode_measurement(m) for m in run.measurements if m.launch == launch.index]
        if launch.finished:
            lines.append(encode_launch_end(launch))
        if launch.aborted is not None:
            lines.append(encode_launch_abort(launch.index, "2026-11-20T10:00:09+00:00", launch.aborted))
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def encoded(run: Run) -> list[str]:
    """Everything a run holds, as canonical text (Measurement compares by identity)."""
    out = [json.dumps(encode_run(run.info), sort_keys=True)]
    out += [json.dumps([encode_launch(l), encode_launch_end(l) if l.finished else None, l.aborted],
                       sort_keys=True) for l in run.launches]
    for m in run.measurements:
        record = encode_measurement(m)
        record["samples_s"] = np.asarray(m.samples_s).tobytes().hex()  # bit-exact
        out.append(json.dumps(record, sort_keys=True))
    return out


def assert_same_run(a: Run, b: Run) -> None:
    assert encoded(a) == encoded(b)
