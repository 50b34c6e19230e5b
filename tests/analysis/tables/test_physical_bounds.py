"""Physical bounds of the side-by-side comparisons (analysis/tables/side_by_side.py): two directions at once
move at most twice what one direction moves, and a barrier added to an exchange cannot save time. A
value beyond its bound (its whole interval beyond it) is "cannot tell" with the reason, in the
analysis and in the tables that print it (a loaded run printed sendrecv at 5.41x the ping-pong's
bandwidth at 1 MiB and "barrier cost -717 ns" as findings)."""

from __future__ import annotations

import numpy as np

from msgperf.analysis.result import analyze
from msgperf.present.pattern_tables import barrier, bidirectional
from tests.factories import CURVE, every_family_run, factors
from tests.factories import replace

MIB = 1 << 20


def _with(run, pattern: str, size: int, time_s: float):
    rng = np.random.default_rng(7)
    ms = tuple(replace(m, samples_s=time_s * factors(len(m.samples_s), 0.02, rng))
               if (m.pattern, m.bytes) == (pattern, size) else m for m in run.measurements)
    return replace(run, measurements=ms)


def _cell(result, pattern: str, size: int):
    t = result.bidirectional
    row = next(r for r in t.rows if r.bytes == size)
    return row.cells[t.columns.index(pattern)]


def test_a_bidirectional_ratio_above_two_beyond_its_interval_is_cannot_tell():
    # sendrecv (2 flows per iteration) at 2 x one-way / 5.41: 5.41x the ping-pong's bandwidth
    result = analyze(_with(every_family_run(), "sendrecv", MIB, 2 * CURVE(MIB) / 5.41))
    cell = _cell(result, "sendrecv", MIB)
    assert 5.2 < cell.ratio < 5.6 and cell.ratio_ci is not None and cell.ratio_ci[0] > 2
    assert cell.why_not.startswith("sendrecv against the one-way ping-pong at 5.")
    t = bidirectional(result)
    text = t.text() + t.note
    assert "(cannot tell)" in text and "above the 2× two directions allow" in text
    assert f"({cell.ratio:.3g}×)" not in text.replace("5.41×", "")  # never printed as a finding


def test_where_latency_dominates_a_bidirectional_ratio_above_two_is_a_finding():
    """At 256 B an exchange's per-message overheads overlap: a quiet run of every pattern measured
    pingping at 2.13x [2.10-2.17x] the one-way ping-pong's bandwidth there, and called it "a
    disturbed measurement". The bound holds where bandwidth dominates (the ping-pong's regime,
    model/regimes.py), not where latency does (1 KiB here: α above β·b)."""
    small = 1024
    result = analyze(_with(every_family_run(), "sendrecv", small, 2 * CURVE(small) / 2.13))
    cell = _cell(result, "sendrecv", small)
    assert 2.0 < cell.ratio_ci[0] and cell.why_not == ""
    assert f"({cell.ratio:.3g}×)" in bidirectional(result).text()


def test_bidirectional_ratios_within_two_keep_their_value_and_interval():
    result = analyze(every_family_run())
    cell = _cell(result, "sendrecv", MIB)
    assert cell.why_not == "" and 1.7 < cell.ratio < 1.9
    assert cell.ratio_ci[0] < cell.ratio < cell.ratio_ci[1]
    assert all(not c.why_not for r in result.bidirectional.rows for c in r.cells)
    t = bidirectional(result)
    assert "cannot tell" not in t.text() + t.note


def test_a_negative_barrier_cost_beyond_its_interval_is_cannot_tell():
    # exchange-sync measured faster than the plain exchange (per iteration, 2 flows)
    result = analyze(_with(every_family_run(), "exchange-sync", MIB, 0.8 * CURVE(MIB)))
    row = next(r for r in result.barrier if r.bytes == MIB)
    assert row.cost.high_s < 0 and "a barrier cannot save time" in row.why_not
    table = barrier(result)
    assert "cannot tell (below)" in table.text()
    assert "barrier cost cannot tell at 1 MiB: the synchronised exchange measured faster" in table.note
    # the reason stays out of the cells: the table is as narrow as with every cost told
    assert max(len(line) for line in table.lines()) < 120  # 250 with the reason in its cell
    good = [r for r in result.barrier if r.bytes != MIB]
    assert good and all(r.why_not == "" and r.cost.value_s > 0 for r in good)


def test_every_side_by_side_ratio_carries_its_interval():
    result = analyze(every_family_run())
    cells = [c for r in result.send_modes.rows for c in r.cells if c.ratio is not None]
    cells += [c for r in result.bidirectional.rows for c in r.cells if c.ratio is not None]
    assert cells and all(c.ratio_ci[0] <= c.ratio <= c.ratio_ci[1] for c in cells)
    assert result.barrier and all(r.ratio_ci[0] <= r.ratio <= r.ratio_ci[1] for r in result.barrier)



def test_the_bound_follows_the_ping_pongs_own_regime():
    """The 2x bound holds at the sizes the ping-pong's regimes table calls bandwidth-dominated (β·b
    above α), and only there; without a ping-pong model, at every size."""
    from msgperf.analysis.tables import pattern_facts, size_rows
    from msgperf.analysis.tables.side_by_side import bidirectional as table_of

    run = _with(every_family_run(), "sendrecv", MIB, 2 * CURVE(MIB) / 5.41)
    rows = size_rows(run)
    facts = {p: pattern_facts(run, p) for p in {r.pattern for r in rows}}

    def held(bandwidth_sizes):
        t = table_of(rows, facts, bandwidth_sizes)
        return bool(next(r for r in t.rows if r.bytes == MIB).cells[t.columns.index("sendrecv")].why_not)

    assert held(frozenset({MIB})) and held(None) and not held(frozenset({1024}))
    result = analyze(run)  # the analysis passes the ping-pong's own regimes
    assert {r.bytes: r.regime for r in result.main.model.sweep.regimes}[MIB] == "beta"
    assert _cell(result, "sendrecv", MIB).why_not
