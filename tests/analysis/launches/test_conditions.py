"""Oversubscription, a shared core and a busy machine: verdicts and caveats from synthetic run
files whose launch_host records say what the machine did (analysis/launches/conditions.py), and how they
reach every table of show, its --json and the report."""

from __future__ import annotations

import json

import numpy as np

from msgperf.analysis.launches.conditions import launch_conditions
from msgperf.analysis.result import analyze
from msgperf.present.json_view import rows_json
from msgperf.present.report import build_report
from msgperf.records.format import HostFacts, HostLoad, LaunchHost, RankPlacement
from msgperf.records.runfile_read import read_run
from tests.factories import launch, make_run, measurement, write_run
from tests.factories import replace

YIELD = {"MPIR_CVAR_POLLS_BEFORE_YIELD": "1", "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1"}


def host(usable=2, other=0.05, steal=0.0, load=(0.3, 0.4), progress=None, name="node0") -> LaunchHost:
    return LaunchHost(host=name, usable_cores=usable, online_cores=usable, progress=dict(progress or {}),
                      before=HostLoad(load[0], 0.5, 0.5, 1), after=HostLoad(load[1], 0.5, 0.5, 1), interval_s=2.0,
                      steal_fraction=steal, other_cores=other)


def the_launch(nranks=2, cpus=(0, 1), end_cpus=(0, 1), **kw):
    base = launch(0)
    ranks = tuple(RankPlacement(r, "node0", cpus[r] if r < len(cpus) else -1, 0) for r in range(nranks))
    return replace(base, nranks=nranks, ranks=ranks, end_cpus=end_cpus,
                               host=host(**kw) if kw.get("usable", 2) is not None else None)


def run_with(l):
    rng = np.random.default_rng(1)
    ms = [measurement("pingpong", s, 2e-6 * (1 + s / 1e4) * (1 + 0.01 * rng.standard_normal(200)))
          for s in (0, 1024, 4096)]
    run = make_run(ms)
    return replace(run, launches=(l,))


def test_a_quiet_launch_has_no_caveat_and_says_no_only_where_it_knows():
    c = launch_conditions(the_launch())
    assert (c.oversubscribed, c.busy, c.shared_core) == (False, False, None)
    assert c.caveats == ()
    words = c.words()
    assert "oversubscribed: no (2 ranks on 2 usable cores)" in words
    assert "pair on one core: cannot tell" in words  # two glimpses of the CPUs prove nothing
    assert "busy machine: no (other work 0.05 of 2 cores, load 0.3 → 0.4, steal 0 %)" in words


def test_more_ranks_than_usable_cores_is_oversubscribed_with_the_progress_setting():
    c = launch_conditions(the_launch(nranks=3, cpus=(0, 1, 0), end_cpus=(0, 1, 1), progress=YIELD))
    assert c.oversubscribed is True and (c.ranks_here, c.usable_cores) == (3, 2)
    [caveat] = [x for x in c.caveats if x.kind == "oversubscribed"]
    assert "3 ranks on 2 usable cores of node0" in caveat.message
    assert "MPIR_CVAR_POLLS_BEFORE_YIELD=1" in caveat.message and caveat.launch == 0
    assert "yield progress set" in c.words()


def test_other_work_that_leaves_the_ranks_no_core_is_a_busy_machine():
    c = launch_conditions(the_launch(other=1.5, load=(3.1, 3.4)))
    assert c.busy is True
    [caveat] = c.caveats
    assert caveat.kind == "busy_machine"
    assert "other work 1.50 of 2 cores, load 3.1 → 3.4, steal 0 %" in caveat.message
    # A quarter core of other work beside two ranks on four cores leaves them room: not busy.
    assert launch_conditions(the_launch(usable=4, other=1.5)).busy is False
    # Below the floor (tick granularity, kernel threads): not busy either.
    assert launch_conditions(the_launch(other=0.2)).busy is False


def test_cpu_steal_alone_makes_it_busy():
    c = launch_conditions(the_launch(other=0.0, steal=0.04))
    assert c.busy is True and "steal 4 %" in c.caveats[0].message


def test_the_measured_pair_on_one_cpu_is_a_shared_core():
    c = launch_conditions(the_launch(cpus=(1, 1), end_cpus=(0, 1)))
    assert c.shared_core is True
    [caveat] = c.caveats
    assert caveat.kind == "shared_core" and "ranks 0 and 1 on CPU 1 at the start" in caveat.message


def test_a_file_without_launch_host_cannot_tell():
    c = launch_conditions(the_launch(usable=None))
    assert (c.oversubscribed, c.busy) == (None, None) and c.caveats == ()
    assert c.words().count("cannot tell") == 3


def test_ranks_on_nodes_msgperf_did_not_see_cannot_tell_oversubscription():
    l = the_launch()
    l = replace(l, ranks=(l.ranks[0], RankPlacement(1, "node1", 0, 1)))
    assert launch_conditions(l).oversubscribed is None


def facts(name: str, ranks: int, usable: int) -> HostFacts:
    return HostFacts(host=name, cpu_model="cpu", logical_cpus=usable, physical_cores=usable, usable_cpus=usable,
                     memory_bytes=1 << 30, ranks=ranks, smt="off", os="os", kernel="k", arch="x86_64",
                     governor="unknown")


def test_every_hosts_facts_judge_oversubscription_on_nodes_msgperf_did_not_run_on():
    """The kernels' facts of each host (its ranks, the CPUs they may use) answer what the launching
    node alone cannot: a crowded remote host is named; uncrowded hosts everywhere are a "no"."""
    l = the_launch()
    two_hosts = replace(l, ranks=(l.ranks[0], RankPlacement(1, "node1", 0, 1)))
    crowded = replace(two_hosts, host_facts=(facts("node0", 1, 2), facts("node1", 1, 0 + 1)))
    assert launch_conditions(crowded).oversubscribed is False  # 1 rank on 1 usable CPU: no
    four = replace(l, nranks=4, ranks=tuple(RankPlacement(r, "node0" if r == 0 else "node1", r, 0)
                                                          for r in range(4)),
                               host_facts=(facts("node0", 1, 2), facts("node1", 3, 2)))
    c = launch_conditions(four)
    assert c.oversubscribed is True and c.host == "node1" and (c.ranks_here, c.usable_cores) == (3, 2)
    assert any(cv.kind == "oversubscribed" for cv in c.caveats)
    partial = replace(four, host_facts=(facts("node0", 1, 2),))  # node1's facts missing
    assert launch_conditions(partial).oversubscribed is None


def test_the_caveat_reaches_every_table_model_json_row_and_the_report(tmp_path):
    busy = run_with(the_launch(nranks=3, cpus=(0, 1, 0), progress=YIELD, other=1.2))
    path = write_run(busy, tmp_path / "busy.jsonl")
    run = read_run(path).run  # through the run file: the launch record carries msgperf's host member
    assert run.launches[0].host == busy.launches[0].host
    result = analyze(run)
    kinds = {c.kind for c in result.caveats}
    assert kinds == {"oversubscribed", "busy_machine"}
    for t in result.tables:
        assert {c.kind for c in t.caveats} == kinds
    assert {c.kind for c in result.main.model.caveats} >= kinds
    for row in rows_json(result):
        assert {c["kind"] for c in row["caveats"]} == kinds
    json.dumps(rows_json(result))
    html = build_report([(result, run)])
    assert "oversubscribed: 3 ranks on 2 usable cores" in html and "busy machine" in html

    quiet = analyze(run_with(the_launch()))
    assert quiet.caveats == () and all(t.caveats == () for t in quiet.tables)
    assert all(row["caveats"] == [] for row in rows_json(quiet))


def test_the_launch_host_facts_and_a_fixed_k_survive_the_store(tmp_path):
    from msgperf.store.db import open_store
    from tests.factories import assert_same_run

    run = run_with(the_launch(nranks=3, cpus=(0, 1, 0), progress=YIELD, other=1.2))
    run = replace(run, info=replace(
        run.info, plan=replace(run.info.plan, iterations_per_sample=1)))
    with open_store(tmp_path / "s.db") as store:
        run_id, _ = store.add_run(run)
        loaded = store.load_run(run_id)
    assert_same_run(run, loaded)
    assert loaded.launches[0].host == run.launches[0].host and loaded.info.plan.iterations_per_sample == 1
    assert {c.kind for c in analyze(loaded).caveats} == {"oversubscribed", "busy_machine"}


def test_every_table_says_it_in_one_line_per_launch():
    result = analyze(run_with(the_launch(nranks=3, cpus=(0, 1, 0), progress=YIELD, other=1.2)))
    line = result.tables[0].caveat_line
    assert line == ("launch 0: oversubscribed: 3 ranks on 2 usable cores (yield progress set) · busy machine: "
                    "other work 1.20 of 2 cores, load 0.3 → 0.4, steal 0 %")
    assert result.caveat_line == line


def test_a_launch_from_a_node_the_ranks_did_not_run_on_cannot_tell_if_they_were_busy():
    l = the_launch(other=1.9, name="login")
    c = launch_conditions(l)
    assert (c.ranks_here, c.oversubscribed, c.busy, c.caveats) == (0, None, None, ())
    assert "busy machine: cannot tell (the ranks ran on other nodes)" in c.words()


def test_a_launch_cut_off_before_its_host_record_says_the_kernels_counts_never_none():
    """A run file cut off before a launch's launch_host record (a killed job): the kernels' facts
    still judge oversubscription, and the words give their counts (a tester saw "no (None ranks on
    None usable cores)"); the busy machine is "cannot tell"."""
    one_host = replace(the_launch(usable=None), host_facts=(facts("node0", 2, 2),))
    c = launch_conditions(one_host)
    assert (c.oversubscribed, c.busy, c.ranks_here, c.usable_cores) == (False, None, 2, 2)
    assert "oversubscribed: no (2 ranks on 2 usable cores)" in c.words() and "None" not in c.words()
    two_hosts = replace(one_host, ranks=(one_host.ranks[0], RankPlacement(1, "node1", 0, 1)),
                        host_facts=(facts("node0", 1, 2), facts("node1", 1, 2)))
    words = launch_conditions(two_hosts).words()
    assert "oversubscribed: no (no host had more ranks than usable CPUs" in words and "None" not in words


def test_a_launch_cut_off_before_anything_after_it_was_written_has_unknown_conditions():
    """No launch_end, no abort mark, no launch_host: the job was killed or the file cut. Whether
    other work ran beside it is unknown, and the caveat says so; a launch that ended (its
    launch_end written, as a SLURM job's kernels write it without msgperf's host record) or that
    msgperf stopped (its abort mark) is not cut off."""
    cut = replace(the_launch(usable=None), end_time=None, end_cpus=None)
    c = launch_conditions(cut)
    assert c.cut_off and c.busy is None
    assert [x.kind for x in c.caveats] == ["conditions_unknown"]
    assert "busy machine: cannot tell (cut off before it was recorded)" in c.words()
    for kept in (the_launch(usable=None), replace(cut, aborted="hang")):
        c = launch_conditions(kept)
        assert not c.cut_off and "conditions_unknown" not in [x.kind for x in c.caveats]


def test_a_launch_without_the_host_record_its_run_s_other_launches_have_was_cut_off():
    """A file cut between a launch's end record and msgperf's launch_host record (a tester's cut at
    497800 B): the run's other launches have theirs, so the missing one is cut off, not a SLURM
    job's launch (whose kernels write no launch_host at all)."""
    from msgperf.analysis.launches.conditions import run_conditions

    whole, cut = the_launch(), replace(the_launch(usable=None), index=1)
    run = replace(run_with(whole), launches=(whole, cut))
    assert [c.cut_off for c in run_conditions(run)] == [False, True]
    slurm = replace(run_with(cut), launches=(replace(cut, index=0), cut))
    assert [c.cut_off for c in run_conditions(slurm)] == [False, False]
    # a launch followed by others was not cut: added by hand (the kernels with --append), no record
    by_hand = replace(run, launches=(whole, cut, replace(whole, index=2)))
    assert [c.cut_off for c in run_conditions(by_hand)] == [False, False, False]
