"""Breakpoints labelled by the evidence a run holds: synthetic breakpoints and the real curves of
tests/data/curves."""

from pathlib import Path

import pytest

from msgperf.analysis import analyze_series
from msgperf.analysis.model.breakpoint_labels import (CAPACITY, EAGER, FLOOR, SINGLE_COPY, UNEXPLAINED,
                                                BreakpointEvidence, KnownThreshold,
                                                known_thresholds, label_breakpoints)
from msgperf.analysis.model.piecewise import Breakpoint
from msgperf.records.runfile_read import read_run

CURVES = Path(__file__).resolve().parents[2] / "data" / "curves"


def bp(low, high):
    return Breakpoint(low, high, low, high, 0.99)


def test_eager_probe_names_the_switch_that_contains_its_limit():
    (label,) = label_breakpoints([bp(4096, 8192)], BreakpointEvidence(eager_limit=(8112, 8113)))
    assert label.kinds == (EAGER,) and label.is_protocol_switch
    assert label.text == "eager → rendezvous (eager-probe: 8112 B)"
    assert "8112 B" in label.evidence[0]


def test_eager_limit_outside_the_interval_says_nothing():
    (label,) = label_breakpoints([bp(262144, 524288)], BreakpointEvidence(eager_limit=(8112, 8113)))
    assert label.kinds == (UNEXPLAINED,) and not label.is_protocol_switch
    assert label.text.startswith("unexplained") and label.evidence == ()


def test_limit_at_the_upper_size_is_inside_and_at_the_lower_is_not():
    # (low, high]: a switch at exactly `high` bytes is inside; one whose first new size is
    # `low` is not (low itself is measured in the old regime)
    inside = BreakpointEvidence(eager_limit=(8191, 8192))  # 8192 is the first rendezvous size
    outside = BreakpointEvidence(eager_limit=(4095, 4096))  # 4096 is already rendezvous
    assert label_breakpoints([bp(4096, 8192)], inside)[0].kinds == (EAGER,)
    assert label_breakpoints([bp(4096, 8192)], outside)[0].kinds == (UNEXPLAINED,)


def test_an_eager_threshold_of_a_variable_does_not_name_a_switch_the_probe_s_limit_is_outside():
    """MPI_T (or a CVAR) brackets the eager limit within a header of its value; a step beside the
    limit the probe measured, inside that loose bracket, is not the eager switch."""
    cell = KnownThreshold(EAGER, "MPIR_CVAR_CH4_SHM_POSIX_EAGER_MAX", 8192, 8192 - 1024, 8192, "MPI_T")
    beside, at = bp(7510, 7756), bp(7756, 8192)
    labels = label_breakpoints([beside, at], BreakpointEvidence(eager_limit=(8112, 8113), thresholds=(cell,)))
    assert labels[0].kinds == (UNEXPLAINED,)
    assert labels[1].kinds == (EAGER,) and "MPIR_CVAR_CH4_SHM_POSIX_EAGER_MAX = 8192" in labels[1].text
    # without a probe the variable's bracket is all there is: it names the step
    assert label_breakpoints([beside], BreakpointEvidence(thresholds=(cell,)))[0].kinds == (EAGER,)
    # a step located beside a limit the probe measured to the byte, within 1 %: the variable's step,
    # not where the protocol changed (MPICH, cell size 32768: probe 32688/32689 B; three runs of
    # three located the step at (32689, 32768], 32689 B at the eager time; a tester's run at
    # (32689, 34121]): named by the variable, with where the probe's limit lies (``past_limit``)
    big = KnownThreshold(EAGER, "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE", 32768, 32768 - 1024, 32768)
    exact = BreakpointEvidence(eager_limit=(32688, 32689), thresholds=(big,))
    for beyond in (bp(32689, 32768), bp(32689, 34121)):
        (label,) = label_breakpoints([beyond], exact)
        assert label.kinds == (EAGER,) and label.past_limit == 32688
        assert label.text == "a step just past the eager limit (32688 B; MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE = 32768)"
    # below the limit every size was sent eagerly: not the variable's, not past the limit
    (before,) = label_breakpoints([bp(32400, 32688)], exact)
    assert before.kinds == (UNEXPLAINED,) and before.past_limit is None
    assert "the eager-probe's limit, 32688 B, lies just above it, outside the interval" in before.text
    (at,) = label_breakpoints([bp(32688, 32689)], exact)
    assert at.kinds == (EAGER,) and at.past_limit is None
    (far,) = label_breakpoints([bp(30000, 31000)], exact)  # beyond the slack: not the variable's
    assert far.kinds == (UNEXPLAINED,)
    # a probe that could not be exact names a step within its slack, as its own
    (loose,) = label_breakpoints([bp(32689, 32768)], BreakpointEvidence(eager_limit=(32600, 32689), thresholds=(big,)))
    assert EAGER in loose.kinds and loose.past_limit is None


def test_a_step_beside_the_probe_s_limit_with_a_single_copy_threshold_inside_is_that_threshold_s():
    """MPICH's default narrow regime: eager limit 8112 B (probe), cell size 8192 B and CMA from 8192 B
    (MPI_T). A step located at (8113, 8192] lies within the slack of the probe's limit but not at it,
    and CMA's switch (first size 8192 B) is inside it: single copy, not eager -> rendezvous. The
    step at the limit itself keeps its eager label; without a single-copy threshold the cell size
    names the step, past the probe's limit (the cell-size-32768 case above)."""
    cell = KnownThreshold(EAGER, "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE", 8192, 8192 - 1024, 8192, "MPI_T")
    (cma,) = known_thresholds({"MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": "8192"})
    ev = BreakpointEvidence(eager_limit=(8112, 8113), thresholds=(cell, cma))
    beside, at = label_breakpoints([bp(8113, 8192), bp(8112, 8113)], ev)
    assert beside.kinds == (SINGLE_COPY,), beside.text
    assert "MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD = 8192" in beside.text
    assert EAGER in at.kinds
    (no_copy,) = label_breakpoints([bp(8113, 8189)], BreakpointEvidence(eager_limit=(8112, 8113), thresholds=(cell,)))
    assert no_copy.kinds == (EAGER,) and no_copy.past_limit == 8112


def test_inexact_probe_interval():
    (label,) = label_breakpoints([bp(2048, 4096)], BreakpointEvidence(eager_limit=(3000, 3600)))
    assert label.text == "eager → rendezvous (eager-probe: 3000–3600 B)"


def test_a_probe_that_saw_no_size_wait_names_no_switch_and_rules_out_those_below_its_largest():
    """No size up to the probe's largest (64 KiB) waited: the limit lies above it. Read as an exact
    limit (64 KiB, 64 KiB + 1) it named a step just above 64 KiB "eager → rendezvous"."""
    probe = BreakpointEvidence(eager_at_least=65536)
    assert label_breakpoints([bp(65536, 98304)], probe)[0].kinds == (UNEXPLAINED,)
    cell = KnownThreshold(EAGER, "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE", 32768, 32768 - 1024, 32768)
    big = KnownThreshold(EAGER, "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE", 131072, 131072 - 1024, 131072)
    # a variable whose switch every size of which was sent eagerly cannot be the eager switch
    assert label_breakpoints([bp(24576, 32768)], BreakpointEvidence(eager_at_least=65536, thresholds=(cell,)))[0] \
        .kinds == (UNEXPLAINED,)
    # one above the probe's largest size still names its step
    assert label_breakpoints([bp(98304, 131072)], BreakpointEvidence(eager_at_least=65536, thresholds=(big,)))[0] \
        .kinds == (EAGER,)


def test_cvars_of_the_launch_environment():
    env = {"MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": "24000",
           "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": "32768", "PATH": "/usr/bin"}
    found = {t.name: t for t in known_thresholds(env)}
    cma = found["MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD"]
    assert (cma.kind, cma.value, cma.low, cma.high) == (SINGLE_COPY, 24000, 23999, 24000)
    cell = found["MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE"]
    assert (cell.kind, cell.low, cell.high) == (EAGER, 32768 - 1024, 32768)
    labels = label_breakpoints([bp(16384, 32768), bp(262144, 524288)],
                               BreakpointEvidence(thresholds=tuple(found.values())))
    assert labels[0].kinds == (SINGLE_COPY, EAGER)
    assert labels[0].text == ("single-copy threshold (MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD = 24000) "
                              "and eager → rendezvous (MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE = 32768)")
    assert labels[1].kinds == (UNEXPLAINED,)


def test_open_mpi_mca_and_switched_off_mechanisms():
    env = {"OMPI_MCA_btl_vader_eager_limit": "8k", "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
           "OMPI_MCA_btl_vader_single_copy_threshold": "65536"}
    (t,) = known_thresholds(env)
    assert (t.kind, t.name, t.value) == (EAGER, "OMPI_MCA_btl_vader_eager_limit", 8192)
    assert known_thresholds({"MPIR_CVAR_CH4_CMA_ENABLE": "0",
                             "MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": "8192"}) == ()
    assert known_thresholds({"MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": "auto"}) == ()


def test_memcpy_and_floor_knees_name_a_cause_only_inside_the_same_interval():
    memcpy = (bp(393216, 1048576),)
    floor = (bp(2097152, 4194304),)
    ev = BreakpointEvidence(memcpy_breakpoints=memcpy, floor_breakpoints=floor)
    labels = label_breakpoints([bp(262144, 524288), bp(4096, 8192), bp(4194304, 8388608), bp(1048576, 4194304)], ev)
    assert labels[0].kinds == (CAPACITY,)  # memcpy's knee overlaps the interval
    assert labels[0].text == "cache/memory capacity (memcpy shows the same knee)"
    assert "384 KiB and 1 MiB" in labels[0].evidence[0]
    assert labels[1].kinds == (UNEXPLAINED,)  # six octaves away from both
    assert labels[2].kinds == (UNEXPLAINED,)  # the floor's knee ends where this one begins: no overlap
    assert labels[2].text == "unexplained (cause unknown: the floor pattern's knee, 2 MiB–4 MiB, lies outside it)"
    assert labels[3].kinds == (FLOOR,)  # the floor's knee inside the interval


def test_a_knee_an_octave_from_the_copys_is_cause_unknown():
    """Seen: a 32–64 B knee labelled "cache/memory capacity ... and hardware" from knees beside it."""
    ev = BreakpointEvidence(memcpy_breakpoints=(bp(64, 128),), floor_breakpoints=(bp(16, 32),))
    (label,) = label_breakpoints([bp(32, 64)], ev)
    assert label.kinds == (UNEXPLAINED,) and "capacity" not in label.text and "hardware" not in label.text
    assert "memcpy's knee, 64 B–128 B, lies outside it" in label.text
    assert "the floor pattern's knee, 16 B–32 B, lies outside it" in label.text
    # the same evidence where the knees overlap the interval still names both causes
    (label,) = label_breakpoints([bp(32, 64)], BreakpointEvidence(memcpy_breakpoints=(bp(48, 96),),
                                                                   floor_breakpoints=(bp(16, 40),)))
    assert label.kinds == (CAPACITY, FLOOR)


@pytest.mark.parametrize("name, expected", [
    ("mpich-cell32k-1K-2M.jsonl", "eager → rendezvous (eager-probe: 32688 B; "
                                  "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE = 32768)"),
    ("mpich-cell16k-1K-1M.jsonl", "eager → rendezvous (eager-probe: 16304 B; "
                                  "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE = 16384)"),
    ("mpich-default-1K-1M.jsonl", "eager → rendezvous (eager-probe: 8112 B)"),
])
def test_real_curves_first_switch_labelled_by_the_probe_and_the_cvar(name, expected):
    run = read_run(CURVES / name).run
    probe = next(m.extra for m in run.measurements if m.pattern == "eager-probe")
    evidence = BreakpointEvidence(
        eager_limit=(probe["eager_limit_low_bytes"], probe["eager_limit_high_bytes"]),
        thresholds=known_thresholds(run.launches[0].environment))
    labels = label_breakpoints(analyze_series(run, "pingpong").sweep.piecewise.breakpoints, evidence)
    assert labels[0].text == expected


def test_real_cache_knees_of_the_default_sweep_are_unexplained_without_memcpy():
    run = read_run(CURVES / "mpich-default-0-64M.jsonl").run
    probe = next(m.extra for m in run.measurements if m.pattern == "eager-probe")
    bps = analyze_series(run, "pingpong").sweep.piecewise.breakpoints
    labels = label_breakpoints(bps, BreakpointEvidence(eager_limit=(probe["eager_limit_low_bytes"],
                                                                    probe["eager_limit_high_bytes"])))
    assert [l.kinds for l in labels] == [(EAGER,), (UNEXPLAINED,), (UNEXPLAINED,)]
    # with a memcpy knee at the same place the second is a capacity knee
    with_copy = BreakpointEvidence(memcpy_breakpoints=(bps[1],),
                                   thresholds=(KnownThreshold(SINGLE_COPY, "x", 8192, 8191, 8192),))
    labels = label_breakpoints(bps, with_copy)
    assert labels[0].kinds == (SINGLE_COPY,) and labels[1].kinds == (CAPACITY,)


def test_a_protocol_step_a_byte_wide_is_not_a_cache_knee_too():
    """MPICH, cell size 32768: the step located at (32688, 32689], the eager-probe's limit, met a
    knee of memcpy located a few KiB wide, and was named "eager → rendezvous and cache/memory
    capacity"; a wider interval that meets both keeps both names (the data do not tell them apart)."""
    knee = bp(30000, 36000)
    ev = BreakpointEvidence(eager_limit=(32688, 32689), memcpy_breakpoints=(knee,))
    (exact,) = label_breakpoints([bp(32688, 32689)], ev)
    assert exact.kinds == (EAGER,), exact.text
    (wide,) = label_breakpoints([bp(32000, 33000)], ev)
    assert set(wide.kinds) == {EAGER, CAPACITY}, wide.text


def test_two_variables_past_the_limit_say_the_limit_once():
    """A reviewer: "a step just past the eager limit (32688 B; A = …; 32688 B; B = …)"."""
    a = KnownThreshold(EAGER, "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE", 32768, 32768 - 1024, 32768)
    b = KnownThreshold(EAGER, "MPIR_CVAR_CH4_SHM_POSIX_EAGER_MAX", 32768, 32768 - 1024, 32768, "MPI_T")
    (label,) = label_breakpoints([bp(32689, 32768)], BreakpointEvidence(eager_limit=(32688, 32689), thresholds=(a, b)))
    assert label.text == ("a step just past the eager limit (32688 B; MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE = "
                          "32768; MPIR_CVAR_CH4_SHM_POSIX_EAGER_MAX = 32768)")
