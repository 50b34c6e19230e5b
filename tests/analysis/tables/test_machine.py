"""What a run recorded about its machine (analysis/tables/machine.py) and how two machines differ
(analysis/tables/machine_diff.py)."""

from __future__ import annotations

from msgperf.analysis.tables.machine import run_machine
from msgperf.analysis.tables.machine_diff import machine_diff
from tests.factories import host_facts, pingpong_run, with_machine
from tests.factories import replace

CELL = "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE"
CVARS = {CELL: 16384, "MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": 8192, "MPIR_CVAR_BCAST_IPC_READ_MSG_SIZE_THRESHOLD": 256,
         "MPIR_CVAR_CTXID_EAGER_SIZE": 2, "MPIR_CVAR_CH4_SHM_POSIX_EAGER": ""}


def test_the_machine_is_the_last_launchs_and_its_thresholds_are_point_to_point():
    m = run_machine(with_machine(pingpong_run(launches=2), [host_facts()], CVARS))
    assert m.recorded and m.hosts == (host_facts(),) and m.launch == 1 and m.varies == ()
    assert [n for n, _ in m.thresholds] == [CELL, "MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD", "MPIR_CVAR_CH4_SHM_POSIX_EAGER"]


def test_a_run_without_facts_records_no_machine():
    m = run_machine(pingpong_run())
    assert not m.recorded and m.hosts == () and m.cvars is None


def test_launches_on_different_machines_are_named():
    run = with_machine(pingpong_run(launches=2), [host_facts()], CVARS)
    last = replace(run.launches[1], host_facts=(host_facts(governor="powersave"),),
                               mpi_t_cvars={**CVARS, CELL: 65536})
    m = run_machine(replace(run, launches=(run.launches[0], last)))
    assert m.varies == ("frequency governor", CELL) and m.hosts[0].governor == "powersave"


def test_two_machines_differ_in_cpu_memory_and_an_eager_limit():
    a = run_machine(with_machine(pingpong_run(), [host_facts()], CVARS))
    b = run_machine(with_machine(pingpong_run(), [host_facts(cpu_model="AMD EPYC 7763 64-Core Processor",
                                                             memory_bytes=256 << 30, smt="unknown")],
                                 {**{k: v for k, v in CVARS.items() if "CTXID" not in k}, CELL: 65536, "X_LIMIT": 1}))
    d = machine_diff(a, b)
    assert d.differ and not d.several_hosts
    assert [(f.fact, f.a, f.b) for f in d.differences] == [
        ("CPU", "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", "AMD EPYC 7763 64-Core Processor"),
        ("SMT", "on", "unknown"), ("memory", 192 << 30, 256 << 30), (CELL, 16384, 65536)]
    assert d.cvars_only_a == ("MPIR_CVAR_CTXID_EAGER_SIZE",) and d.cvars_only_b == ("X_LIMIT",)


def test_the_same_machine_does_not_differ_and_an_unrecorded_one_cannot_be_compared():
    a = run_machine(with_machine(pingpong_run(), [host_facts()], CVARS))
    assert not machine_diff(a, a).differ
    old = run_machine(pingpong_run())
    d = machine_diff(a, old)
    assert d.unrecorded == ("B",) and not d.differ and d.differences == ()


def test_hosts_are_compared_in_order_and_their_number():
    a = run_machine(with_machine(pingpong_run(), [host_facts("n1"), host_facts("n2")], CVARS))
    b = run_machine(with_machine(pingpong_run(), [host_facts("n1")], CVARS))
    d = machine_diff(a, b)
    assert [(f.fact, f.a, f.b, f.host) for f in d.differences] == [("hosts", 2, 1, None)] and d.several_hosts
