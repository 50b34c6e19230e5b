"""msgperf on the emulated cluster: ranks on different hosts, --placement picks the right pairs,
show compares intra- and inter-node; with MPICH (the PyPI wheel) and Open MPI (Debian)."""

from __future__ import annotations

import json

import pytest

from msgperf.records.runfile_read import read_run

from .conftest import OPENMPI_CC, require_openmpi

pytestmark = [pytest.mark.slow, pytest.mark.cluster]
FAST = ["--sizes", "0,1K,64K", "--time-budget", "0.2", "--min-samples", "10", "--no-store", "-q"]


def check_both(run, hosts: list[str], intra: tuple[int, int], inter: tuple[int, int]) -> None:
    launch = run.launches[0]
    assert [r.host for r in launch.ranks] == hosts
    by = {m.placement: set() for m in run.measurements}
    for m in run.measurements:
        by[m.placement].add(m.ranks)
        assert m.validated
    assert by == {"intra": {intra}, "inter": {inter}}


def test_ranks_on_two_hosts_and_placement_both_mpich(make_cluster, tmp_path):
    cluster = make_cluster(2)
    out = tmp_path / "both.jsonl"
    result = cluster.msgperf("run", "--np", 4, "--hosts", "h0,h1", "--ranks-per-node", 2, "--placement", "both",
                             *FAST, "-o", out)
    assert result.returncode == 0, result.stderr + result.stdout
    run = read_run(out).run
    check_both(run, ["h0", "h0", "h1", "h1"], intra=(0, 1), inter=(0, 2))
    line = run.launches[0].launcher_command_line
    assert "-n 4 -hosts h0,h1 -ppn 2" in line and "--placement both" in line, line
    # the machine: one set of facts per host, read there (each host's first rank)
    facts = run.launches[0].host_facts
    assert [(h.host, h.ranks) for h in facts] == [("h0", 2), ("h1", 2)]
    # show: the side-by-side table, and a placement key on every row of --json
    shown = cluster.msgperf("show", out)
    assert "intra-node (ranks 0:1) vs inter-node (ranks 0:2)" in shown.stdout, shown.stdout
    rows = json.loads(cluster.msgperf("show", out, "--json").stdout)["rows"]
    assert {(tuple(r["ranks"]), r["placement"]) for r in rows} == {((0, 1), "intra"), ((0, 2), "inter")}


def test_placement_inter_and_intra_with_round_robin_hosts(make_cluster, tmp_path):
    cluster = make_cluster(2)
    # no --ranks-per-node: round robin, h0 h1 h0 h1
    for where, pair in (("inter", (0, 1)), ("intra", (0, 2))):
        out = tmp_path / f"{where}.jsonl"
        result = cluster.msgperf("run", "--np", 4, "--hosts", "h0,h1", "--placement", where, *FAST, "-o", out)
        assert result.returncode == 0, result.stderr + result.stdout
        run = read_run(out).run
        assert [r.host for r in run.launches[0].ranks] == ["h0", "h1", "h0", "h1"]
        assert {(m.ranks, m.placement) for m in run.measurements} == {(pair, where)}
        assert run.launches[0].pair == pair


def test_impossible_placement_is_a_clear_error(make_cluster, tmp_path):
    cluster = make_cluster(2)
    # Python sees it from the options
    result = cluster.msgperf("run", "--np", 2, "--hosts", "h0", "--placement", "inter", *FAST, "-o", tmp_path / "x.jsonl")
    assert result.returncode != 0
    assert "--placement inter: all 2 ranks are on one node (h0); run on two nodes, e.g. --hosts a,b" in result.stderr
    # the kernels see it from the map they gather (two ranks, one per host: none share a node)
    result = cluster.msgperf("run", "--np", 2, "--launcher", "mpiexec -hosts h0,h1", "--placement", "intra", *FAST,
                             "-o", tmp_path / "y.jsonl")
    assert result.returncode != 0
    assert "--placement intra: no two ranks share a node" in result.stderr, result.stderr


@pytest.mark.openmpi
def test_open_mpi_on_two_hosts_placement_both(make_cluster, tmp_path):
    require_openmpi()
    cluster = make_cluster(2)
    out = tmp_path / "ompi.jsonl"
    result = cluster.msgperf("run", "--mpicc", OPENMPI_CC, "--np", 4, "--hosts", "h0,h1", "--ranks-per-node", 2,
                             "--placement", "both", *FAST, "-o", out)
    assert result.returncode == 0, result.stderr + result.stdout
    run = read_run(out).run
    assert "Open MPI" in run.launches[0].mpi_library
    check_both(run, ["h0", "h0", "h1", "h1"], intra=(0, 1), inter=(0, 2))
    line = run.launches[0].launcher_command_line
    assert "--host h0:2,h1:2" in line and "--map-by ppr:2:node" in line and "--bind-to none" in line, line
    assert "--allow-run-as-root" in line
