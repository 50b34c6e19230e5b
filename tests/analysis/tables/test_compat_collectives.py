"""The collective compatibility modes as the tools print them, and each collective table's
stated methodology: read off the records' fields, defaults included."""

from __future__ import annotations

import numpy as np

from msgperf.analysis.result import analyze
from tests.factories import make_run, measurement
from tests.factories import replace


def _record(pattern: str, size: int, extra: dict, seconds: float = 2e-6):
    raw = np.full(30, seconds) * (1 + 0.01 * np.arange(30) / 30)
    return replace(measurement(pattern, size, raw, divisor=1), metric="per_iteration", extra=extra)


TOOL = {"compat": "osu_allreduce", "collective": "allreduce", "iteration_barrier": True, "off_cache": False,
        "tool_mean_s": 3e-6, "tool_min_s": 2.5e-6, "tool_max_s": 3.5e-6, "tool_calls": 4000}


def test_the_tools_figures_come_from_the_records_beside_msgperfs_median():
    run = make_run([_record("osu-allreduce", 8, TOOL), _record("osu-allreduce", 1024, dict(TOOL, tool_calls=10))])
    result = analyze(run)
    rows = result.compat_collectives
    assert [(r.pattern, r.tool, r.bytes, r.calls) for r in rows] == [
        ("osu-allreduce", "osu_allreduce", 8, 4000), ("osu-allreduce", "osu_allreduce", 1024, 10)]
    assert (rows[0].mean_s, rows[0].min_s, rows[0].max_s) == (3e-6, 2.5e-6, 3.5e-6)
    assert abs(rows[0].median_s - 2.01e-6) < 0.01e-6  # msgperf's own: the median of the samples
    assert not result.compat  # not the point-to-point modes' mean-of-samples table


def test_each_collective_table_states_its_methodology_defaults_included():
    run = make_run([_record("bcast", 8, {"root": "0", "iteration_barrier": False, "off_cache": False}),
                    _record("allreduce", 8, {"iteration_barrier": True, "off_cache": True, "buffer_sets": 9}),
                    _record("barrier", 8, {"iteration_barrier": False}),
                    measurement("pingpong", 8, np.full(30, 1e-6))])
    method = {t.pattern: t.method for t in analyze(run).tables}
    assert method == {"bcast": "root 0 · calls back to back · same buffers",
                      "allreduce": "untimed barrier before each call · off-cache buffers",
                      "barrier": "calls back to back", "pingpong": ""}


def test_the_report_shows_each_collectives_per_size_times_and_the_tools_columns():
    from msgperf.commands.report import analyze_runs
    from msgperf.present import report
    run = make_run([_record("allreduce", 8, {"iteration_barrier": False, "off_cache": False}),
                    _record("allreduce", 1024, {"iteration_barrier": False, "off_cache": False}, 4e-6),
                    _record("osu-allreduce", 8, TOOL)])
    html = report.build_report(*analyze_runs([run]))
    assert "<h3>Collectives</h3>" in html and "calls back to back · same buffers" in html
    assert "osu_allreduce: as OSU prints it (with -f)" in html and "Avg Latency(us)" in html and "3.00" in html
