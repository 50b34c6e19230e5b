"""Every pattern at 2 ranks (ring, pairs and matrix also at 4, the collectives at 3, oversubscribed),
validated payloads, records that parse, and the side-by-side tables of msgperf show."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from msgperf.launch.build import build_kernel
from msgperf.launch.catalog import pattern_catalog
from msgperf.plan import Plan
from msgperf.records.runfile_read import read_run

pytestmark = pytest.mark.mpi
# --no-probe, --no-refine: these tests count the sweep's records; the default eager-probe and refinement
# launches have their own tests
FAST = ["--time-budget", "0.1", "--min-samples", "10", "--no-probe", "--no-refine", "--answer-launches", "0"]
SIZES = "0,1K,64K"
FOUR_RANKS = ("ring", "pairs", "matrix")
COMPAT_COLLECTIVES = ("osu-allreduce", "osu-bcast", "osu-alltoall", "imb-allreduce", "imb-bcast", "imb-alltoall")
COLLECTIVES = ("barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "reduce-scatter-block")


def catalog(np: int = 2):
    """The kernels' own list of patterns (their catalog), for np ranks."""
    return pattern_catalog(build_kernel().path, np)


@pytest.fixture(scope="module")
def two_rank_run(tmp_path_factory):
    """One launch of every pattern at 2 ranks (one launch keeps the suite fast)."""
    from tests.conftest import run_cli
    out = tmp_path_factory.mktemp("patterns") / "all.jsonl"
    args = [a for p in catalog() for a in ("--pattern", p.name)]
    result = run_cli("run", *args, "--sizes", SIZES, *FAST, "-o", out, "-q", timeout=240)
    assert result.returncode == 0, result.stderr
    return out, result


def test_the_kernels_measure_size_by_size_in_the_order_msgperf_expects(two_rank_run):
    """Every pattern at a size before the next size (a collective and the point-to-point patterns
    that predict it timed moments apart), and launch/session.py's expected order is the kernels'."""
    from msgperf.launch.session import expected_records
    out, _ = two_rank_run
    run = read_run(out).run
    written = [(m.pattern, m.bytes) for m in run.measurements if m.launch == 0]
    sizes = [b for _, b in written]
    assert sizes == sorted(sizes) and len(set(sizes)) == 3
    first = [p for p, b in written if b == sizes[0]]
    assert list(dict.fromkeys(first)) == list(run.info.plan.patterns)
    expected = expected_records(run.info.plan, run.info.plan.sizes, None, run.info.catalog)
    assert [(p, s) for p, s, _ in expected] == written


def test_every_pattern_runs_validated_at_two_ranks(two_rank_run):
    out, _ = two_rank_run
    run = read_run(out).run
    assert run.complete
    seen = {m.pattern for m in run.measurements}
    assert seen == {p.name for p in catalog()} and len(seen) == 47
    assert run.info.catalog == catalog()  # the run record carries the planned patterns' entries
    for p in catalog():  # one record per size and variant, as the catalog says
        assert sum(m.pattern == p.name for m in run.measurements) == 3 * Plan().records_per_size(p), p.name
        assert [m.variant for m in run.measurements if m.pattern == p.name and m.bytes == 0] == \
            [v.name for v in p.variants], p.name
        for m in run.measurements:
            if m.pattern == p.name:
                assert (m.metric, m.flows, m.timing) == (p.metric, p.flows, p.timing), p.name
                assert m.divisor == m.k * (p.divisor or len(m.ranks)), p.name
    for m in run.measurements:
        assert m.validated, (m.pattern, m.bytes, m.variant)
        assert m.samples_s.size >= 10 and np.all(m.samples_s > 0)
        assert m.timing and m.metric and m.divisor % m.k == 0
    for m in run.measurements:
        if m.pattern.startswith("pingpong") or m.pattern in ("osu-latency", "imb-pingpong"):
            assert m.metric == "one_way" and m.divisor == 2 * m.k and m.ranks == (0, 1)
        if m.pattern in ("sendrecv", "pingping", "exchange", "imb-sendrecv"):
            assert m.metric == "per_iteration" and m.flows == 2
    for m in run.measurements:
        if m.pattern in COLLECTIVES:  # every rank, one call per iteration, the slowest rank's time
            assert m.metric == "per_iteration" and m.divisor == m.k and m.ranks == (0, 1) and m.flows == 1
    assert {m.extra["root"] for m in run.measurements if m.pattern in ("bcast", "reduce")} == {"0"}
    for m in run.measurements:  # the tools' loops: their own summary over the ranks, beside the samples
        if m.pattern in COMPAT_COLLECTIVES:
            e = m.extra
            assert 0 < e["tool_min_s"] <= e["tool_mean_s"] <= e["tool_max_s"] and e["tool_calls"] > 0, m.pattern
            assert m.metric == "per_iteration" and m.divisor == m.k and m.ranks == (0, 1)
            assert e["iteration_barrier"] == (m.pattern.startswith("osu-")) and (m.k == 1 or m.pattern.startswith("imb-"))
    assert {m.extra["compat"] for m in run.measurements if m.pattern in COMPAT_COLLECTIVES} == {
        "osu_allreduce", "osu_bcast", "osu_alltoall", "IMB-MPI1 Allreduce", "IMB-MPI1 Bcast", "IMB-MPI1 Alltoall"}
    assert {m.extra["root"] for m in run.measurements if m.pattern in ("osu-bcast", "imb-bcast")} == {"0", "rotate"}
    window = {m.pattern: m for m in run.measurements if m.bytes == 1024}
    assert window["osu-bw"].extra["window"] == 64 and window["osu-bw"].divisor == 64 * window["osu-bw"].k
    assert window["imb-biband"].extra["window"] == 256 and window["imb-biband"].flows == 2
    assert window["pingpong-bsend"].extra["bsend_buffer_bytes"] > 1024
    variants = {(m.pattern, m.variant) for m in run.measurements}
    assert {("unexpected", "preposted"), ("unexpected", "late"), ("pack", "direct"), ("pack", "packed"),
            ("combine", "k2-separate"), ("combine", "k8-combined"), ("overlap", "comm"), ("overlap", "compute"),
            ("overlap", "both")} <= variants
    both = [m for m in run.measurements if m.pattern == "overlap" and m.variant == "both"]
    assert all(0 <= m.extra["overlap_fraction"] <= 1 for m in both)
    assert {m.metric for m in run.measurements if m.pattern == "memcpy"} == {"copy"}
    probe = [m for m in run.measurements if m.pattern == "eager-probe"]
    assert probe[0].extra["eager"] is True and probe[0].extra["unexpected_capacity"] >= 1
    low, high = probe[0].extra["eager_limit_low_bytes"], probe[0].extra["eager_limit_high_bytes"]
    assert 0 < low and (high is None or high > low)


def test_show_puts_the_comparisons_side_by_side(two_rank_run, msgperf):
    out, result = two_rank_run
    for title in ("blocking vs non-blocking and each send mode", "one-way vs bidirectional",
                  "expected vs unexpected receive", "packed vs direct", "separate vs combined",
                  "measured b_e vs b_c·b_n/(b_c+b_n)", "hardware floor", "overlap of communication",
                  "eager limit", "compatibility modes", "osu_allreduce: as OSU prints it (with -f)",
                  "IMB-MPI1 Bcast: as IMB-MPI1 prints it"):
        assert title in result.stdout
    rows = json.loads(msgperf("show", out, "--json").stdout)["rows"]
    keys = {"pattern", "bytes", "median_s", "ci_low_s", "bandwidth_bytes_per_s", "validated", "variant", "flows"}
    assert all(keys <= set(r) for r in rows)
    assert {r["pattern"] for r in rows} == {p.name for p in catalog()}
    probe = [r for r in rows if r["pattern"] == "eager-probe"]
    assert all("eager_limit_bytes" in r for r in probe)


def test_active_measures_only_the_chosen_steps_of_the_pairs_sweep(msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    result = msgperf("run", "--np", "4", "--pattern", "pairs", "--active", "2", "--sizes", "0,4K", *FAST, "-o", out,
                     "-q", "--no-report", timeout=120)
    assert result.returncode == 0, result.stderr
    run = read_run(out).run
    assert run.complete and run.info.plan.active == (2,)
    assert [(m.bytes, m.extra["active_pairs"]) for m in run.measurements] == [(0, 2), (4096, 2)]


@pytest.mark.parametrize("pattern", FOUR_RANKS)
def test_four_ranks_oversubscribed(pattern, msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    result = msgperf("run", "--np", "4", "--pattern", pattern, "--sizes", "0,4K", *FAST, "-o", out, "-q",
                     timeout=120)
    assert result.returncode == 0, result.stderr
    run = read_run(out).run
    assert run.complete and all(m.validated for m in run.measurements)
    assert run.launches[0].environment.get("MPIR_CVAR_POLLS_BEFORE_YIELD") == "1"
    ms = [m for m in run.measurements if m.bytes == 0]
    if pattern == "ring":
        assert ms[0].ranks == (0, 1, 2, 3) and ms[0].divisor == 4 * ms[0].k
    if pattern == "pairs":
        assert [len(m.extra["pairs"]) for m in ms] == [1, 2]
        assert ms[1].extra["pairs"] == [[0, 2], [1, 3]] and len(ms[1].extra["pair_median_s"]) == 2
        assert "contention as concurrent pairs" in result.stdout
    if pattern == "matrix":
        ordered = {tuple(p) for m in ms for p in m.extra["pairs"]}
        assert ordered == {(a, b) for a in range(4) for b in range(4) if a != b}
        assert len(ms) == 6  # 2(P-1) rounds, not P(P-1)
        assert "every ordered rank pair" in result.stdout


def test_pairs_with_odd_ranks_is_an_error_before_anything_runs(msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    result = msgperf("run", "--np", "3", "--pattern", "pairs", "--sizes", "0", "-o", out)
    assert result.returncode != 0 and "even number of ranks" in result.stderr
    assert not out.exists()


def test_kernel_refuses_odd_ranks_for_pairs(tmp_path):
    kernel = build_kernel()
    result = subprocess.run([str(kernel.mpiexec), "-n", "3", str(kernel.path), "--pattern", "pairs", "--sizes", "0",
                             "-o", str(tmp_path / "r.jsonl"), "-q"], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "even number of ranks" in result.stderr


@pytest.mark.parametrize("pattern", ["sendrecv", "osu-bw", "sendrecv-reduce", "sendrecv-indexed",
                                     "self-message", "exchange-init", "send-stream"])
def test_a_corrupted_payload_is_caught_in_other_patterns(pattern, tmp_path):
    kernel = build_kernel()
    out = tmp_path / "run.jsonl"
    result = subprocess.run([str(kernel.mpiexec), "-n", "2", str(kernel.path), "--pattern", pattern, "--sizes",
                             "8,1K", "--time-budget", "0.05", "--test-corrupt", "1024", "-o", str(out), "-q"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 4
    assert [m.validated for m in read_run(out).run.measurements] == [True, False]


def test_in_place_where_it_matters_and_said_where_not(msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    patterns = ["pingpong-ssend", "pingpong-bsend", "sendrecv", "exchange"]
    args = [a for p in patterns for a in ("--pattern", p)]
    result = msgperf("run", *args, "--buffer", "inplace", "--sizes", "1,4K", *FAST, "-o", out, "-q")
    assert result.returncode == 0, result.stderr
    buffers = {m.pattern: m.buffer for m in read_run(out).run.measurements}
    assert buffers == {"pingpong-ssend": "inplace", "pingpong-bsend": "inplace", "sendrecv": "inplace",
                       "exchange": "separate"}
    assert all(m.validated for m in read_run(out).run.measurements)


def _corrupted(pattern, tmp_path, np=2, *extra):
    kernel = build_kernel()
    out = tmp_path / "run.jsonl"
    result = subprocess.run([str(kernel.mpiexec), "-n", str(np), str(kernel.path), "--pattern", pattern, "--sizes",
                             "8,1K", "--time-budget", "0.05", "--test-corrupt", "1024", *extra, "-o", str(out), "-q"],
                            capture_output=True, text=True, timeout=60)
    return result, read_run(out).run.measurements


@pytest.mark.parametrize("pattern", [c for c in COLLECTIVES if c != "barrier"])
def test_a_corrupted_collective_result_is_caught(pattern, tmp_path):
    """Rank 1's received (or, for reduce's non-root, untouched) bytes get one byte flipped at 1 KiB:
    the reduced sum, the gathered or exchanged block must no longer check."""
    result, ms = _corrupted(pattern, tmp_path)
    assert result.returncode == 4, result.stderr
    assert [m.validated for m in ms] == [True, False]


def test_a_corrupted_result_is_caught_with_a_rotating_root(tmp_path):
    for pattern in ("bcast", "reduce"):
        (tmp_path / pattern).mkdir()
        result, ms = _corrupted(pattern, tmp_path / pattern, 2, "--root", "rotate")
        assert result.returncode == 4, result.stderr
        assert [m.validated for m in ms] == [True, False] and ms[0].extra["root"] == "rotate"


@pytest.mark.slow
def test_collectives_at_three_ranks_oversubscribed(msgperf, tmp_path):
    """Three ranks on two cores: every collective's payload checks at an odd count (no power of two),
    with the root rotating; the conditions say the launch was oversubscribed."""
    out = tmp_path / "run.jsonl"
    args = [a for p in COLLECTIVES for a in ("--pattern", p)]
    result = msgperf("run", "--np", "3", *args, "--sizes", "1,4K", "--root", "rotate", "--no-model-patterns", *FAST,
                     "-o", out, "-q", "--no-report", timeout=240)
    assert result.returncode == 0, result.stderr
    run = read_run(out).run
    assert run.complete and all(m.validated for m in run.measurements)
    assert {m.pattern for m in run.measurements} == set(COLLECTIVES)
    assert all(m.ranks == (0, 1, 2) for m in run.measurements)
    shown = msgperf("show", out, "--detail").stdout
    assert "oversubscribed" in shown


@pytest.mark.parametrize("mpicc, theirs, not_theirs", [
    (None, "self-message", "exchange-init"),  # PyPI's MPICH: its scattered alltoall messages itself
    ("/usr/bin/mpicc.openmpi", "exchange-init", "self-message"),  # Open MPI: requests made every call
])
def test_a_collective_brings_the_model_patterns_of_the_mpi_that_runs_it(msgperf, tmp_path, mpicc, theirs,
                                                                          not_theirs):
    """`run --pattern alltoall` adds what the kernels' MPI's algorithm steps are priced with, not every
    MPI's: each such pattern is a share of --total-time."""
    if mpicc is not None and not Path(mpicc).exists():
        pytest.skip("Debian's Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev)")
    out = tmp_path / "run.jsonl"
    result = msgperf("run", "--pattern", "alltoall", "--sizes", "8", *FAST, "--no-report", "--no-store", "-o", out,
                     *(["--mpicc", mpicc] if mpicc else []))
    assert result.returncode == 0, result.stderr
    patterns = read_run(out).run.info.plan.patterns
    assert patterns[-1] == "alltoall" and theirs in patterns and not_theirs not in patterns, patterns
    assert {"pingpong", "sendrecv", "memcpy", "sendrecv-indexed"} <= set(patterns)
    assert f"{theirs} too" in result.stderr
