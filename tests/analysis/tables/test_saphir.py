"""Saphir's Table 1: every number of ``msgperf summary`` equals the analysis result it comes from."""

from __future__ import annotations

import json

import numpy as np
import pytest

from msgperf import units
from msgperf.analysis.result import analyze
from msgperf.analysis.model.series import analyze_series
from msgperf.analysis.tables.size_rows import size_rows
from msgperf.present.saphir_table import SAPHIR_COLUMNS, saphir_cells
from msgperf.records.format import Measurement
from tests.factories import stored_run, write_run_file
from tests.factories import replace


def saphir_rows(run, name=None):
    rows = analyze(run).saphir
    return [replace(r, run=name) for r in rows] if name is not None else list(rows)

SIZES = (0, 1024, 65536, 1048576)


def _m(pattern, size, per_message, rng, extra=None, divisor=2):
    k = 10
    values = per_message * divisor * k * (1 + rng.exponential(0.02, 30))
    return Measurement(pattern=pattern, bytes=size, buffer="separate", ranks=(0, 1), k=k, divisor=divisor * k,
                       samples_s=values, stop_reason="precision", validated=True, launch=0,
                       metric="one_way" if divisor == 2 else "copy", first_s=float(values.max()),
                       extra=extra or {})


def full_run(seed=0, floor_s=2e-7):
    rng = np.random.default_rng(seed)
    base = stored_run(seed, patterns=("pingpong",), sizes=SIZES)
    ms = list(base.measurements)
    ms += [_m("memcpy", s, 1e-7 + s / 3e10, rng, divisor=1) for s in SIZES]
    ms += [_m("floor", s, floor_s + s / 2e10, rng) for s in SIZES]
    ms += [_m("eager-probe", s, 1e-6, rng, {"eager": s < 8192, "eager_limit_bytes": 8112}, divisor=1)
           for s in SIZES]
    return replace(base, measurements=tuple(ms), path="full.jsonl")


def _median(rows, pattern, size):
    return next(r for r in rows if r.pattern == pattern and r.bytes == size).stats


def test_each_number_equals_its_analysis_result():
    run = full_run()
    rows = size_rows(run)
    (row,) = saphir_rows(run)
    ping = [_median(rows, "pingpong", s).median for s in SIZES]
    sweep = analyze_series(run, pattern="pingpong").sweep  # what msgperf fit and show print
    line, ch = sweep.hockney, sweep.characteristics
    assert row.zero_byte_size == 0 and row.zero_byte_latency_s == ping[0] == ch.zero_byte_latency_s
    # Saphir's asymptotic latency and bandwidth: the large-message regime, as show prints them
    assert row.asymptotic_latency_s == ch.asymptotic_latency_s
    assert row.bandwidth_bytes_per_s == ch.asymptotic_bandwidth_bytes_per_s
    assert row.peak_bandwidth_bytes_per_s == ch.peak_bandwidth_bytes_per_s
    assert row.n_half_bytes == pytest.approx(line.alpha_s / line.beta_s_per_byte, rel=1e-12)
    copies = {s: next(r for r in rows if r.pattern == "memcpy" and r.bytes == s).bandwidth_bytes_per_s
              for s in SIZES[1:]}
    assert row.copy_speed_bytes_per_s == copies[max(SIZES)] and row.copy_speed_size == max(SIZES)
    bc, bn = row.copy_speed_bytes_per_s, row.bandwidth_bytes_per_s
    assert row.effective_buffered_bandwidth_bytes_per_s == pytest.approx(bc * bn / (bc + bn), rel=1e-12)
    assert row.eager_limit_bytes == 8112
    assert row.floor_ratio == ping[0] / _median(rows, "floor", 0).median
    assert row.mpi_library == "MPICH" and row.placement == "intra" and row.run == "full.jsonl"
    # The synthetic ping-pong is 2.2 µs + 0.11 ns/B with 5 % exponential noise.
    assert 2.2e-6 < row.asymptotic_latency_s < 2.6e-6 and 1 / 1.1e-10 * 0.9 < bn < 1 / 1.1e-10 * 1.1


def test_what_the_run_lacks_is_a_dash():
    run = stored_run(1, patterns=("pingpong",), sizes=(0,))
    (row,) = saphir_rows(run)
    assert row.zero_byte_latency_s is not None
    assert row.asymptotic_latency_s is None and row.copy_speed_bytes_per_s is None
    assert row.eager_limit_bytes is None and row.floor_ratio is None and row.n_half_bytes is None
    cells = saphir_cells(row)
    assert len(cells) == len(SAPHIR_COLUMNS)
    assert cells[SAPHIR_COLUMNS.index("copy MB/s")] == "-" and cells[SAPHIR_COLUMNS.index("eager")] == "-"


def test_inter_node_runs_say_so():
    (row,) = saphir_rows(stored_run(2, hosts=("a", "b"), sizes=(0, 1024)))
    assert row.placement == "inter"


def test_summary_json_equals_the_analysis(msgperf, tmp_path):
    a = write_run_file(full_run(0), tmp_path / "a.jsonl")
    b = write_run_file(stored_run(5, hosts=("a", "b"), mpi="Open MPI v4.1.6", sizes=(0, 1024)), tmp_path / "b.jsonl")
    result = msgperf("summary", a, b, "--json")
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    from msgperf.records.runfile_read import read_run
    want = [{k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in r.as_dict().items()}
            for p in (a, b) for r in saphir_rows(read_run(p).run, name=str(p))]
    assert got == want and len(got) == 2 and got[1]["copy_speed_bytes_per_s"] is None
    text = msgperf("summary", a, b)
    assert text.returncode == 0 and "Open MPI v4.1.6" in text.stdout and "MPICH" in text.stdout


def test_show_lines_take_their_numbers_from_the_result():
    """first message and barrier cost as printed equal the result's values they come from."""
    from msgperf.present.pattern_tables import barrier
    from msgperf.present.run_tables import first_message_line

    rng = np.random.default_rng(4)
    base = stored_run(3, sizes=(0, 1024))
    first = replace(base.measurements[0], extra={"first_message_of_job_s": base.measurements[0].first_s})
    ms = [first, base.measurements[1]]
    ms += [replace(_m("exchange", s, 1e-6 + s * 1e-10, rng), metric="per_iteration") for s in (0, 1024)]
    ms += [replace(_m("exchange-sync", s, 2e-6 + s * 1e-10, rng), metric="per_iteration",
                               extra={"barrier": True}) for s in (0, 1024)]
    result = analyze(replace(base, measurements=tuple(ms)))
    ping = next(t for t in result.tables if t.pattern == "pingpong")
    job = ping.rows[0]
    line = first_message_line(ping.first)
    assert line.startswith(f"first message of the job: {units.seconds(job.first_s)}, "
                           f"{units.ratio(job.first_s / job.stats.median, 2)} the steady state")
    assert job.first_s == first.first_s * first.k / first.divisor
    rows = result.rows
    plain = next(r for r in rows if r.pattern == "exchange" and r.bytes == 0).stats
    sync = next(r for r in rows if r.pattern == "exchange-sync" and r.bytes == 0).stats
    assert result.barrier[0].cost.value_s == sync.median - plain.median
    assert result.barrier[0].cost.low_s == sync.ci_low - plain.ci_high
    t = barrier(result)
    assert units.seconds(sync.median - plain.median) in t.text() and t.row_count == 2


def test_summary_to_a_file_keeps_whole_run_names_and_columns(msgperf, tmp_path):
    """Off a terminal the table is not cut at 120 columns: each run name on one line, each cell whole."""
    long_dir = tmp_path / ("a-directory-with-a-long-name-" * 3)
    long_dir.mkdir()
    paths = [write_run_file(full_run(seed), long_dir / f"run-{seed}-of-a-long-series.jsonl") for seed in (0, 1)]
    result = msgperf("summary", *paths)
    assert result.returncode == 0, result.stderr
    from msgperf.records.runfile_read import read_run
    for path in paths:
        (row,) = saphir_rows(read_run(path).run, name=str(path))
        line = next(li for li in result.stdout.splitlines() if str(path) in li)
        cells = saphir_cells(row)
        assert len(line) > 120 and line.rstrip().endswith(cells[-1])
        assert all(cell in line for cell in cells)


def test_a_floor_above_the_mpi_time_is_cannot_tell_in_every_output(msgperf, tmp_path):
    """The pair sharing a core: the floor reads 4 ms against a 2.2 µs ping-pong. Its ratio is no finding."""
    from msgperf.present.pattern_tables import floor as floor_table

    run = full_run(0, floor_s=4e-3)
    (row,) = saphir_rows(run)
    assert row.floor_ratio is None and "is above the zero-byte latency" in row.floor_cannot_tell
    assert saphir_cells(row)[SAPHIR_COLUMNS.index("÷ floor")] == "cannot tell"
    result = analyze(run)
    assert all(f.ratio is None and "is above the MPI time" in f.cannot_tell for f in result.floor)
    grid = floor_table(result)
    assert [r[-2:] for r in grid.rows] == [["cannot tell", "-"]] * len(SIZES) and "is above the MPI time" in grid.note
    path = write_run_file(run, tmp_path / "shared.jsonl")
    text = msgperf("summary", path)
    assert text.returncode == 0 and "÷ floor: cannot tell (the floor, 4" in text.stdout and "0.000" not in text.stdout
    got = json.loads(msgperf("summary", path, "--json").stdout)
    assert got[0]["floor_ratio"] is None and "above the zero-byte latency" in got[0]["floor_cannot_tell"]
    # a good floor, below the MPI time, still gives its ratio
    (good,) = saphir_rows(full_run(0))
    assert good.floor_cannot_tell == "" and good.floor_ratio > 1
    assert all(f.cannot_tell == "" and f.ratio > 1 for f in analyze(full_run(0)).floor)


def test_floor_rule_without_intervals_compares_the_values():
    """A file with one value per size has no interval: the floor's rule compares the values."""
    from msgperf.analysis.tables.saphir import saphir_row
    from msgperf.analysis.tables.side_by_side import FloorRow

    high = saphir_row("x", "MPICH", "4.1", "intra", None, [], None, [FloorRow(0, 4e-3, 2e-6, None)], (0, 2e-6))
    assert high.floor_ratio is None and "is above the zero-byte latency" in high.floor_cannot_tell
    # below the latency, but with no interval the ratio has none: "cannot tell", not a bare 10×
    low = saphir_row("x", "MPICH", "4.1", "intra", None, [], None, [FloorRow(0, 2e-7, 2e-6, 10.0)], (0, 2e-6))
    assert low.floor_ratio is None and low.floor_cannot_tell.startswith("no interval")


def test_the_floor_ratio_of_summary_carries_its_interval():
    """Issue 27 item 4: the ratio's interval is the widest the latency's and the floor's allow."""
    result = analyze(full_run(0))
    row = next(r for r in result.saphir if r.floor_ratio is not None)
    main = result.main.model.sweep.characteristics
    floor = next(f for f in result.floor if f.bytes == row.zero_byte_size)
    assert row.floor_ratio_low == pytest.approx(main.zero_byte_latency_ci_s[0] / floor.floor_high_s)
    assert row.floor_ratio_high == pytest.approx(main.zero_byte_latency_ci_s[1] / floor.floor_low_s)
    assert row.floor_ratio_low < row.floor_ratio < row.floor_ratio_high
    from msgperf.present.saphir_table import saphir_cells
    low, high = (units.ratio(x)[:-1] for x in (row.floor_ratio_low, row.floor_ratio_high))
    assert saphir_cells(row)[-1] == f"{units.ratio(row.floor_ratio)} [{low}–{high}]"


def test_a_copy_measured_beside_other_work_cannot_tell_with_its_buffered_bandwidth(msgperf, tmp_path):
    """A tester's allreduce run, every launch beside a busy loop: summary printed "copy 7,260" MB/s
    where every other figure was "cannot tell"."""
    from msgperf.records.format import HostLoad, LaunchHost

    run = full_run()
    busy = LaunchHost(host="node01", usable_cores=2, online_cores=2, progress={}, before=HostLoad(1.9, 1, 1, 3),
                      after=HostLoad(1.9, 1, 1, 3), interval_s=2.0, steal_fraction=0.0, other_cores=1.8)
    loaded = replace(run, launches=tuple(replace(l, host=busy) for l in run.launches))
    quiet_row, = saphir_rows(run)
    row, = saphir_rows(loaded)
    assert quiet_row.copy_speed_bytes_per_s is not None and not quiet_row.copy_speed_why_not
    assert row.copy_speed_bytes_per_s is None and row.effective_buffered_bandwidth_bytes_per_s is None
    assert row.copy_speed_why_not == (f"disturbed: launch 0 beside other work "
                                      f"({units.rate(quiet_row.copy_speed_bytes_per_s)})")
    # two ranks seen on one core is no proof alone (the answer's rule): the copy stands
    from msgperf.records.format import RankPlacement

    shared = replace(run, launches=tuple(replace(l, ranks=(RankPlacement(0, "node01", 1, 0),
                                                           RankPlacement(1, "node01", 1, 0)), end_cpus=(1, 1))
                                         for l in run.launches))
    assert saphir_rows(shared)[0].copy_speed_bytes_per_s is not None
    path = write_run_file(loaded, tmp_path / "busy.jsonl")
    out = msgperf("summary", path).stdout
    assert f"copy: cannot tell ({row.copy_speed_why_not})" in out
