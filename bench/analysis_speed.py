"""Speed and memory of the full analysis: 10 million samples (30 sizes x ~333k samples).

Builds a synthetic run in memory (MPICH-like one-way times with heavy-tailed noise and rare
10-100x spikes), then times ``analyze_series`` on it — per-size statistics, outliers, drift,
modality, the Hockney and piecewise fits, anomalies — and its JSON export.
Prints wall times and the peak resident set size (resource.getrusage). Target: < 5 s, < 1 GiB.

    .venv/bin/python bench/analysis_speed.py [total_samples] [launches]

With launches > 1 the same total is split over that many launches (pooled model, a model
per launch and the launch comparison on top).
"""

from __future__ import annotations

import resource
import sys
import time
from types import SimpleNamespace

import numpy as np

from msgperf.analysis import analyze_series
from msgperf.present.json_view import series_model_dict

SIZES = [0] + [1 << i for i in range(29)]  # 30 sizes, 0 B .. 256 MiB


def one_way(size: int) -> float:
    """A shared-memory MPICH-like curve: flat, a protocol step at 4-8 KiB, then ~7.6 GB/s."""
    if size <= 4096:
        return 1.1e-6 + 2.8e-10 * size
    return 2.3e-6 + 1.3e-10 * size


def synthetic_run(total: int, launches: int = 1, seed: int = 1) -> SimpleNamespace:
    rng = np.random.default_rng(seed)
    per_set = total // (len(SIZES) * launches)
    measurements = []
    for launch in range(launches):
        for size in SIZES:
            x = one_way(size) * (1 + 0.03 * rng.standard_normal(per_set) ** 2)
            spikes = rng.random(per_set) < 0.001
            x[spikes] *= rng.uniform(10, 100, int(spikes.sum()))
            measurements.append(SimpleNamespace(pattern="pingpong", variant="", bytes=size,
                                                launch=launch, divisor=1, validated=True,
                                                flows=1, ranks=(0, 1), buffer="separate",
                                                per_message_s=x))
    clock = SimpleNamespace(resolution_s=2.5e-8)
    return SimpleNamespace(path="synthetic", measurements=measurements,
                           launches=[SimpleNamespace(index=i, clock=clock) for i in range(launches)])


def main() -> None:
    total = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10_000_000
    launches = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    t0 = time.perf_counter()
    run = synthetic_run(total, launches)
    t1 = time.perf_counter()
    result = analyze_series(run)
    t2 = time.perf_counter()
    series_model_dict(result)
    t3 = time.perf_counter()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    n = sum(s.stats.n for s in result.sizes)
    print(f"samples analysed     {n:,} ({len(result.sizes)} sizes, {launches} launch(es))")
    print(f"generate (not timed) {t1 - t0:.2f} s")
    print(f"analyze_series          {t2 - t1:.2f} s")
    print(f"JSON export          {t3 - t2:.3f} s")
    print(f"analysis total       {t3 - t1:.2f} s   (target < 5 s)")
    print(f"peak RSS             {peak_kib / 1024:.0f} MiB   (target < 1024 MiB; includes the "
          f"{total * 8 / 2**20:.0f} MiB of samples)")
    print(f"breakpoints          {[(b.low_bytes, b.high_bytes) for b in result.sweep.piecewise.breakpoints]}")


if __name__ == "__main__":
    main()
