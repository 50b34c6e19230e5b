"""A switch that coincides with a threshold the MPI reports through MPI_T for the device and
transport in use is labelled with that variable's name and value (issue 27 item 3,
analysis/mpit_thresholds.py); another transport's or device's variables name nothing."""

from __future__ import annotations

from pathlib import Path

from msgperf.analysis.model.breakpoint_labels import EAGER, SINGLE_COPY
from msgperf.analysis.model.mpit_thresholds import reported_thresholds
from msgperf.analysis.result import analyze
from msgperf.records.runfile_read import read_run
from tests.factories import replace

RUN = Path(__file__).resolve().parents[2] / "data" / "kernel-runs" / "mpich-cell32k-switch-refined.jsonl"
CELL = "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE"

OPEN_MPI = (("btl_tcp_rndv_eager_limit", 65536), ("btl_tcp_eager_limit", 65536),
            ("btl_vader_rndv_eager_limit", 32768), ("btl_vader_eager_limit", 4096),
            ("btl_self_eager_limit", 1024))
MPICH = (("MPIR_CVAR_CH4_OFI_EAGER_THRESHOLD", -1), ("MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD", 65536),
         ("MPIR_CVAR_CH4_IPC_XPMEM_P2P_THRESHOLD", 65536), ("MPIR_CVAR_CH4_SHM_POSIX_EAGER", ""),
         (CELL, 16384))


def _without_environment(run, name: str):
    launches = tuple(replace(l, environment={k: v for k, v in l.environment.items() if k != name})
                     for l in run.launches)
    return replace(run, launches=launches)


def test_open_mpi_on_one_node_reports_the_shared_memory_btl_s_limit_only():
    found = reported_thresholds(OPEN_MPI, dict(OPEN_MPI), True, {})
    assert [(t.name, t.value, t.kind, t.low, t.high, t.source) for t in found] == \
        [("btl_vader_eager_limit", 4096, EAGER, 3072, 4096, "MPI_T")]
    across = reported_thresholds(OPEN_MPI, dict(OPEN_MPI), False, {})
    assert [t.name for t in across] == ["btl_tcp_eager_limit"]
    assert reported_thresholds(OPEN_MPI, dict(OPEN_MPI), None, {}) == ()  # placement unknown: nothing


def test_mpich_on_one_node_reports_its_cell_and_cma_not_xpmem_or_ofi():
    found = {t.name: (t.kind, t.low, t.high) for t in reported_thresholds(MPICH, dict(MPICH), True, {})}
    assert found == {"MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": (SINGLE_COPY, 65535, 65536),
                     CELL: (EAGER, 15360, 16384)}
    off = dict(MPICH, MPIR_CVAR_CH4_CMA_ENABLE=0)
    assert [t.name for t in reported_thresholds(MPICH, off, True, {})] == [CELL]


def test_a_variable_the_environment_set_is_named_by_the_environment_not_twice():
    assert [t.name for t in reported_thresholds(MPICH, dict(MPICH), True, {CELL: "32768"})] == \
        ["MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD"]


def test_a_switch_at_a_threshold_mpi_t_reports_is_labelled_with_its_name_and_value():
    run = _without_environment(read_run(RUN).run, CELL)  # the cell size only as MPI_T reports it
    labels = analyze(run).main.labels
    first = labels[0]
    assert EAGER in first.kinds
    assert f"{CELL} = 32768" in first.sources
    assert f"{CELL} = 32768 reported through MPI_T puts the switch in (31744, 32768] B" in first.evidence
    with_env = analyze(read_run(RUN).run).main.labels[0]
    assert f"{CELL} = 32768 in the launch environment puts the switch in (31744, 32768] B" in with_env.evidence


def test_no_label_from_mpi_t_when_the_pair_crossed_nodes():
    run = _without_environment(read_run(RUN).run, CELL)
    launches = tuple(replace(l, pair_shares_node=False) for l in run.launches)
    labels = analyze(replace(run, launches=launches)).main.labels
    assert not any(CELL in s for l in labels for s in l.sources)


PROBE_256 = Path(__file__).resolve().parents[2] / "data" / "kernel-runs" / "openmpi-second-job-probe-256.jsonl"


def test_a_probe_limit_outside_the_mpi_s_own_eager_threshold_cannot_be_told():
    """Beside a second job both searches of Open MPI's probe closed on 256 B (quiet: 4040 B); MPI_T
    reports btl_vader_eager_limit = 4096, whose eager payload lies in (3072, 4096]."""
    result = analyze(read_run(PROBE_256).run)
    e = result.answer.eager_limit
    assert e.value is None and e.why_not == (
        "the probe's limit, 256 B, is not where the MPI says through MPI_T: "
        "btl_vader_eager_limit = 4096 puts it in (3072, 4096] B")
    assert not any("eager-probe" in s for sw in result.answer.switches for s in sw.evidence)


def test_a_probe_limit_inside_the_reported_threshold_is_kept():
    from msgperf.analysis.model.mpit_thresholds import probe_contradiction

    vader = reported_thresholds(OPEN_MPI, dict(OPEN_MPI), True, {})
    assert probe_contradiction(4040, vader) == ""
    assert probe_contradiction(256, vader).startswith("the probe's limit, 256 B")
    assert probe_contradiction(256, ()) == ""  # nothing reported: nothing to contradict
    assert probe_contradiction(8112, reported_thresholds(MPICH, dict(MPICH), True, {})) != ""  # 16 KiB cells here
