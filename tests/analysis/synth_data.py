"""Synthetic sweeps with known parameters for the analysis tests (imported, not collected)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from msgperf.analysis.points import SizePoint
from msgperf.records.format import (ClockSelfTest, Launch, Measurement, Plan, RankPlacement, Run,
                                    RunInfo, encode_launch, encode_launch_end, encode_measurement,
                                    encode_run)

SIZES = (0,) + tuple(1 << i for i in range(27))  # 0 B and every power of two to 64 MiB
Curve = Callable[[float], float]


def line(alpha: float, beta: float) -> Curve:
    return lambda b: alpha + beta * b


def broken(alpha1: float, beta1: float, alpha2: float, beta2: float, switch: float) -> Curve:
    """alpha1 + beta1·b below ``switch`` bytes, alpha2 + beta2·b from it on."""
    return lambda b: alpha1 + beta1 * b if b < switch else alpha2 + beta2 * b


LOMAX_MEDIAN = 2 ** (1 / 2.5) - 1  # median of numpy's pareto(2.5) (a Lomax distribution)


def factors(n: int, noise: float, rng: np.random.Generator, heavy: bool = False,
            gross: float = 0.0) -> np.ndarray:
    """n multiplicative noise factors with median 1: lognormal (sigma ``noise``), or with
    ``heavy`` a Pareto tail 1 + noise·(L - median L), L ~ Lomax(2.5) (infinite fourth moment);
    then a fraction ``gross`` of them multiplied by 10-100 (spikes)."""
    if heavy:
        x = 1 + noise * (rng.pareto(2.5, n) - LOMAX_MEDIAN)
    else:
        x = np.exp(noise * rng.standard_normal(n))
    if gross:
        hit = rng.random(n) < gross
        x[hit] *= rng.uniform(10, 100, int(hit.sum()))
    return x


def pairs(curve: Curve, sizes: Sequence[int], n: int, noise: float, rng: np.random.Generator,
          heavy: bool = False, gross: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(bytes, seconds) arrays, n samples per size."""
    b = np.repeat(np.asarray(sizes, dtype=np.int64), n)
    t = np.concatenate([curve(s) * factors(n, noise, rng, heavy, gross) for s in sizes])
    return b, t


def points(curve: Curve, sizes: Sequence[int], rel_sd: float, rng: np.random.Generator,
           known: bool = True) -> list[SizePoint]:
    """Per-size medians drawn with relative standard error ``rel_sd`` (faster than samples)."""
    out = []
    for s in sizes:
        y = curve(s) * (1 + rel_sd * rng.standard_normal())
        half = 1.96 * rel_sd * y
        out.append(SizePoint(bytes=int(s), time_s=y, ci_low_s=y - half if known else None,
                             ci_high_s=y + half if known else None, n=1000 if known else 1,
                             launches=1, rel_sd=rel_sd if known else None))
    return out


# ---- run files -----------------------------------------------------------------------------

CLOCK = ClockSelfTest(source="MPI_Wtime", resolution_s=1e-8, overhead_s=2e-8, monotonic=True,
                      reported_resolution_s=1e-9, mpi_wtick_s=1e-9)


def launch(index: int, clock: ClockSelfTest = CLOCK) -> Launch:
    ranks = (RankPlacement(0, "node0", 0, 0), RankPlacement(1, "node0", 1, 0))
    return Launch(index=index, mpi_library="MPICH", mpi_version="5.0.2", nranks=2, ranks=ranks,
                  pair=(0, 1), pair_shares_node=True, clock=clock, environment={},
                  start_time="2026-01-01T00:00:00Z", end_time="2026-01-01T00:01:00Z",
                  end_cpus=(0, 1))


def measurement(pattern: str, size: int, raw: np.ndarray, launch_index: int = 0,
                divisor: int = 2, stop: str = "precision") -> Measurement:
    return Measurement(pattern=pattern, bytes=int(size), buffer="separate", ranks=(0, 1), k=1,
                       divisor=divisor, samples_s=np.asarray(raw, float), stop_reason=stop,
                       validated=True, launch=launch_index)


def make_run(measurements: Sequence[Measurement], launches: int = 1, source: str = "msgperf",
             path: str = "") -> Run:
    patterns = tuple(dict.fromkeys(m.pattern for m in measurements))
    sizes = tuple(sorted({m.bytes for m in measurements}))
    plan = Plan(patterns=patterns, sizes=sizes, buffer="separate", pair=(0, 1), nranks=2,
                precision=0.01, time_budget_s=10.0, min_samples=10, max_samples=100000)
    info = RunInfo(format_version=1, msgperf_version="0.1.0", command_line="msgperf run",
                   start_time="2026-01-01T00:00:00Z", plan=plan, source=source)
    return Run(info=info, launches=tuple(launch(i) for i in range(launches)),
               measurements=tuple(measurements), path=path)


def write_run(run: Run, path: Path) -> Path:
    lines = [encode_run(run.info)]
    for l in run.launches:
        lines.append(encode_launch(l))
    lines.extend(encode_measurement(m) for m in run.measurements)
    lines.extend(encode_launch_end(l) for l in run.launches)
    path.write_text("".join(json.dumps(obj) + "\n" for obj in lines))
    return path


def sweep_run(curves: Sequence[Curve], n: int = 400, noise: float = 0.05, seed: int = 0,
              pattern: str = "pingpong", sizes: Sequence[int] = SIZES) -> Run:
    """One launch per curve, n raw round-trip samples per size (divisor 2: one-way = half)."""
    rng = np.random.default_rng(seed)
    ms = [measurement(pattern, s, 2 * curve(s) * factors(n, noise, rng), i)
          for i, curve in enumerate(curves) for s in sizes]
    return make_run(ms, launches=len(curves))
