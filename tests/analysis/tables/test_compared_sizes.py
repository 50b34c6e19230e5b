"""A side-by-side table lists the sizes it compares: a size only one of its patterns measured (a
refinement launch's ping-pong sizes around a switch) has nothing beside it. A tester's allreduce
run printed eleven ping-pong sizes between 5790 B and 7934 B in "one-way vs bidirectional" with
"-" for sendrecv at every one."""

from __future__ import annotations

from msgperf.analysis.result import analyze
from tests.factories import every_family_run, replace

ODD = 5790  # a size the sweep never measures


def _with_pingpong_only_at(run, size: int):
    m = next(m for m in run.measurements if m.pattern == "pingpong" and m.bytes == 4096)
    return replace(run, measurements=(*run.measurements, replace(m, bytes=size)))


def test_sizes_one_pattern_alone_measured_are_not_rows():
    result = analyze(_with_pingpong_only_at(every_family_run(), ODD))
    for table in (result.bidirectional, result.send_modes):
        assert table is not None and table.rows
        assert ODD not in {r.bytes for r in table.rows}
        assert all(sum(c.value is not None for c in r.cells) >= 2 for r in table.rows)


def test_the_sizes_both_measured_stay():
    before = analyze(every_family_run())
    after = analyze(_with_pingpong_only_at(every_family_run(), ODD))
    assert [r.bytes for r in after.bidirectional.rows] == [r.bytes for r in before.bidirectional.rows]
    assert [r.bytes for r in after.send_modes.rows] == [r.bytes for r in before.send_modes.rows]
