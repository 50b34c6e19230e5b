"""Fixtures of the plot, report and compare tests: small synthetic runs (deterministic), a run
with a hostile host name, and the markers of this tier."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tests.analysis.synth_data import (broken, factors, launch, make_run, measurement, sweep_run,
                                       write_run)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
SIZES = (0, 1, 8, 64, 512, 4096, 16384, 65536, 262144, 1 << 20)
HOSTILE = "<script>alert(1)</script>"


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: loads the HTML report in headless chromium")
    config.addinivalue_line("markers", "report: plots, HTML report and run comparison")


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/report/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.report)


CURVE = broken(1e-6, 2e-10, 5e-6, 1e-10, 16384)


def pingpong_run(seed: int = 0, launches: int = 1, host: str = "node0", scale: float = 1.0):
    run = sweep_run([lambda b: scale * CURVE(b)] * launches, n=150, noise=0.04, seed=seed, sizes=SIZES)
    ls = tuple(dataclasses.replace(l, ranks=tuple(dataclasses.replace(r, host=host) for r in l.ranks),
                                   environment={"MPICH_X": "1 & <b>2</b>"}) for l in run.launches)
    return dataclasses.replace(run, launches=ls)


def rich_run(seed: int = 0):
    """pingpong + memcpy + pairs + matrix + eager-probe on 4 ranks over two hosts."""
    rng = np.random.default_rng(seed)
    ms = [measurement("pingpong", s, 2 * CURVE(s) * factors(120, 0.04, rng)) for s in SIZES]
    ms += [measurement("memcpy", s, (5e-8 + s / 2e10) * factors(60, 0.02, rng), divisor=1) for s in SIZES]
    for s in (0, 4096, 65536):
        for p in (1, 2):
            ms.append(dataclasses.replace(
                measurement("pairs", s, 2 * CURVE(s) * p * factors(40, 0.03, rng)),
                extra={"pairs": [[0, 2], [1, 3]][:p], "pair_median_s": [CURVE(s) * p] * p, "active_pairs": p}))
        pairs = [[a, b] for a in range(4) for b in range(4) if a != b]
        ms.append(dataclasses.replace(
            measurement("matrix", s, 2 * CURVE(s) * factors(40, 0.03, rng)),
            extra={"pairs": pairs, "pair_median_s": [CURVE(s) * (1 + (a // 2 != b // 2)) for a, b in pairs]}))
    ms.append(dataclasses.replace(measurement("eager-probe", 1024, np.full(20, 2e-6)),
                                  extra={"eager": True, "eager_limit_bytes": 16384}))
    run = make_run(ms)
    l = run.launches[0]
    ranks = tuple(dataclasses.replace(r, rank=i, host=f"node{i // 2}", cpu=i % 2)
                  for i, r in enumerate(l.ranks * 2))
    return dataclasses.replace(run, launches=(dataclasses.replace(l, ranks=ranks, nranks=4),))


@pytest.fixture
def run_file(tmp_path):
    return write_run(pingpong_run(), tmp_path / "a.jsonl")


@pytest.fixture
def hostile_run_file(tmp_path):
    return write_run(pingpong_run(host=HOSTILE), tmp_path / "hostile.jsonl")


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
