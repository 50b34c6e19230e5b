"""Real MPI at 2 ranks: matrix and pairs keep each pair's samples, --iterations-per-sample 1 gives
one round trip per sample, and show prints each pair's spread; --np 3 on this machine's cores is
stated as oversubscribed."""

import json
import os
import re

import numpy as np
import pytest

from msgperf.records.runfile_read import read_run
from tests.conftest import run_cli

pytestmark = pytest.mark.mpi
PAIR_SAMPLES_MAX = 1000  # kernels/driver.h MP_PAIR_SAMPLES_MAX
FAST = ["--time-budget", "0.05", "--min-samples", "10", "--no-probe", "--no-refine", "--answer-launches", "0",
        "--no-store", "--no-report", "-q"]


@pytest.fixture(scope="module")
def per_iteration_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("pairs") / "pairs.jsonl"
    result = run_cli("run", "--pattern", "matrix", "--pattern", "pairs", "--sizes", "0,1K",
                     "--iterations-per-sample", "1", *FAST, "-o", out, timeout=240)
    assert result.returncode == 0, result.stderr
    return out, result


def test_matrix_and_pairs_keep_each_pairs_samples_one_round_trip_each(per_iteration_run):
    out, _ = per_iteration_run
    run = read_run(out).run
    assert run.info.plan.iterations_per_sample == 1
    seen = set()
    for m in run.measurements:
        seen.add(m.pattern)
        assert m.k == 1  # forced, not calibrated
        pairs, lists = m.extra["pairs"], m.extra["pair_samples_s"]
        assert len(lists) == len(pairs) >= 1
        n = m.samples_s.size
        kept = min(n, PAIR_SAMPLES_MAX)
        for samples, median in zip(lists, m.extra["pair_median_s"]):
            assert len(samples) == kept and min(samples) > 0
            # one pair at 2 ranks: its samples are the measurement's (max over its two ranks), all of
            # them up to the cap, else that many evenly spaced over the measurement
            every = m.samples_s[(np.arange(kept) * n / kept).astype(int)]
            assert np.array_equal(np.asarray(samples), every)
            assert min(samples) / 2 <= median <= max(samples) / 2  # one-way: half a round trip
    assert seen == {"matrix", "pairs"}


def test_show_prints_each_pairs_spread_and_json_carries_it(per_iteration_run):
    out, _ = per_iteration_run
    shown = run_cli("show", out)
    assert shown.returncode == 0, shown.stderr
    assert "matrix: each pair's spread, 0 B" in shown.stdout and "pairs: each pair's samples" in shown.stdout
    assert re.search(r"Slowest\s+pairs:\s+(0→1|1→0) ", shown.stdout)
    rows = json.loads(run_cli("show", out, "--json").stdout)["rows"]
    spreads = [r["pair_spreads"] for r in rows if r["pattern"] in ("matrix", "pairs")]
    assert spreads and all(s[0]["p95_over_p50"] >= 1.0 and s[0]["samples"] >= 10 for s in spreads)


def test_a_bad_iterations_per_sample_is_one_line(tmp_path):
    result = run_cli("run", "--iterations-per-sample", "0", "--sizes", "0", "-o", tmp_path / "x.jsonl")
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1].startswith("error: --iterations-per-sample 0: use 1 to")
    assert not (tmp_path / "x.jsonl").exists()


def test_more_ranks_than_cores_carries_the_oversubscription_caveat(tmp_path):
    cores = len(os.sched_getaffinity(0))
    out = tmp_path / "over.jsonl"
    result = run_cli("run", "--np", str(cores + 1), "--sizes", "0,64", *FAST, "-o", out, timeout=300)
    assert result.returncode == 0, result.stderr
    run = read_run(out).run
    host = run.launches[0].host
    assert host is not None and host.usable_cores == cores
    assert host.progress == {"MPIR_CVAR_POLLS_BEFORE_YIELD": "1", "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1"}
    expected = f"oversubscribed: {cores + 1} ranks on {cores} usable cores"
    assert "launch 0: oversubscribed → fewer ranks (--np), or more cores" in result.stdout  # the run's answer
    assert expected in run_cli("show", out, "--detail").stdout  # its fine print
    rows = json.loads(run_cli("show", out, "--json").stdout)["rows"]
    assert rows and all(any(c["kind"] == "oversubscribed" for c in r["caveats"]) for r in rows)
