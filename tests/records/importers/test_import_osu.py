"""OSU Micro-Benchmarks outputs: every sample file, and malformed variants with their line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from msgperf.records.importers import parse_foreign
from msgperf.records.importers.osu import parse_osu
from msgperf.records.importers.text import ForeignFormatError

DATA = Path(__file__).resolve().parents[2] / "data" / "peer-outputs"
POW2 = tuple(2 ** i for i in range(23))  # 1 B .. 4 MiB


def load(name: str):
    return parse_osu((DATA / name).read_text(), name)


@pytest.mark.parametrize("name, pattern, metric, sizes", [
    ("osu_latency.txt", "osu-latency", "one_way", POW2),
    ("osu_latency_percentiles.txt", "osu-latency", "one_way", POW2),
    ("osu_latency_custom_percentiles.txt", "osu-latency", "one_way", POW2[:17]),
    ("osu_multi_lat.txt", "osu-multi-lat", "one_way", POW2),
    ("osu_bw.txt", "osu-bw", "per_message", POW2),
    ("osu_bibw.txt", "osu-bibw", "per_message", POW2),
    ("osu_mbw_mr.txt", "osu-mbw-mr", "per_message", POW2),
])
def test_every_sample_file(name, pattern, metric, sizes):
    result = load(name)
    run = result.run
    assert run.info.source == "osu" and run.launches == () and result.notes == ()
    assert run.info.plan.patterns == (pattern,) and run.info.plan.sizes == sizes
    assert (run.info.plan.pair, run.info.plan.nranks, run.info.plan.buffer) == ((0, 1), 2, "separate")
    assert [m.bytes for m in run.measurements] == list(sizes)
    for m in run.measurements:
        assert (m.pattern, m.metric, m.stop_reason, m.k, m.divisor, m.samples_s.size) == (
            pattern, metric, "imported", 1, 1, 1)
        assert m.samples_s[0] > 0 and m.extra["imported"]["tool"] == pattern
        assert m.extra["imported"]["version"] == "7.4" and m.extra["imported"]["statistic"] == "mean"
    assert run.missing() == []


def test_latency_values_are_the_printed_microseconds():
    run = load("osu_latency.txt").run
    assert run.measurements[0].samples_s[0] == 1.66e-06
    assert run.measurements[-1].samples_s[0] == 649.76e-06
    assert run.measurements[-1].extra["imported"]["latency_us"] == 649.76
    assert run.measurements[0].extra["imported"]["line"] == 5


def test_percentile_columns_are_kept():
    info = load("osu_latency_percentiles.txt").run.measurements[0].extra["imported"]
    assert (info["p50_s"], info["p90_s"], info["p99_s"]) == (1.35e-06, 1.54e-06, 2.2e-06)
    # OSU prints percentiles with %d: "-z50,90,99,99.9" gives two "P99" columns; both are kept
    info = load("osu_latency_custom_percentiles.txt").run.measurements[-1].extra["imported"]
    assert info["p99_s"] == 39.88e-06 and info["p99_2_s"] == 39.88e-06 and info["p50_s"] == 20.29e-06


def test_bandwidth_becomes_time_per_message():
    run = load("osu_bw.txt").run
    first, last = run.measurements[0], run.measurements[-1]
    assert first.samples_s[0] == pytest.approx(1 / 1.30e6, rel=1e-15)
    assert last.samples_s[0] == pytest.approx(4194304 / 7532.26e6, rel=1e-15)
    assert last.extra["imported"]["bandwidth_MBps"] == 7532.26
    assert last.extra["imported"]["unit"] == "MB/s (1 MB = 10^6 B)"


def test_message_rate_is_preferred_where_printed():
    run = load("osu_mbw_mr.txt").run
    m = run.measurements[0]
    assert m.samples_s[0] == pytest.approx(1 / 1232706.71, rel=1e-15)
    assert m.extra["imported"]["time_from"] == "1 / messages_per_s"
    assert (m.extra["imported"]["pairs"], m.extra["imported"]["window"]) == (1, 64)


LAT = "# OSU MPI Latency Test v7.4\n# Datatype: MPI_CHAR.\n# Size       Avg Latency(us)\n"


@pytest.mark.parametrize("text, message", [
    (LAT + "1   1.66\n2   abc\n", "line 5: latency must be a number, got 'abc'"),
    (LAT + "1   1.66\n2   1.2   3.4\n", r"line 5: expected 2 columns \(size, latency\), got '2   1.2   3.4'"),
    (LAT + "1.5   1.66\n", "line 4: the message size must be a whole number of bytes, got '1.5'"),
    (LAT + "8   nan\n", "line 4: latency must be a number, got 'nan'"),
    (LAT + "8   inf\n", "line 4: latency must be a number"),
    (LAT + "8   0x10\n", "line 4: latency must be a number"),
    (LAT + "8   -1.0\n", "line 4: negative value -1.0"),
    (LAT + "8   1.0\n8   1.1\n", "line 5: osu-latency at 8 B appears twice \\(first on line 4\\)"),
    ("1   1.66\n", "line 1: a result line before any '# OSU MPI ... Test' title"),
    ("# OSU MPI Latency Test v7.4\n1   1.66\n", "line 2: a result line before the '# Size ...' column header"),
    ("# OSU MPI Latency Test v7.4\n# Size   Jitter(us)\n1 2\n", "line 2: unknown OSU column 'Jitter\\(us\\)'"),
    ("# hello\n\n", "no '# OSU MPI ... Test' title found"),
    (LAT, "no point-to-point or allreduce, bcast, alltoall results found"),
    ("# OSU MPI Reduce Latency Test v7.4\n# Size       Avg Latency(us)\n4   3.1\n",
     "no point-to-point or allreduce, bcast, alltoall results found"),
    (LAT + "1   1.66\n\x1b[31mKilled\n", r"line 5: expected 2 columns .*got '\\x1b\[31mKilled'"),
])
def test_malformed_outputs_name_the_line(text, message):
    with pytest.raises(ForeignFormatError, match=message):
        parse_osu(text, "osu.txt")


def test_error_messages_start_with_the_file_and_line():
    with pytest.raises(ForeignFormatError) as info:
        parse_osu(LAT + "1   1.66\n2   abc\n", "osu_latency.txt")
    assert str(info.value) == "osu_latency.txt, line 5: latency must be a number, got 'abc'"


def test_size_zero_and_rounded_bandwidths_are_noted_not_dropped_silently():
    text = "# OSU MPI Bandwidth Test v7.4\n# Size      Bandwidth (MB/s)\n0    0.00\n1    0.00\n2   2.45\n"
    result = parse_osu(text, "bw.txt")
    assert [m.bytes for m in result.run.measurements] == [2]
    assert len(result.notes) == 2 and result.notes[0].startswith("line 3: osu-bw at 0 B skipped")
    lat = parse_osu(LAT + "0   1.20\n1   1.30\n", "lat.txt").run  # a latency at 0 B is kept
    assert [m.bytes for m in lat.measurements] == [0, 1]


def test_validation_full_mode_and_accelerator_columns():
    text = ("# OSU MPI-CUDA Latency Test v7.4\n# Send Buffer on DEVICE (D) and Receive Buffer on HOST (H)\n"
            "# Size       Avg Latency(us)  Min Latency(us)  Max Latency(us)  Iterations  Validation\n"
            "1   2.00   1.50   9.00   10000   Pass\n2   2.10   1.60   9.10   10000   Fail\n")
    run = parse_osu(text, "cuda.txt").run
    first, second = run.measurements
    assert first.validated and not second.validated
    info = first.extra["imported"]
    assert (info["min_s"], info["max_s"], info["iterations"], info["validation"]) == (1.5e-06, 9e-06, 10000, "passed")
    assert (info["accelerator"], info["send_buffer"], info["receive_buffer"]) == ("CUDA", "DEVICE (D)", "HOST (H)")


def test_older_headers_and_several_outputs_in_one_log():
    text = ("job 1234 started\n"
            "# OSU MPI Latency Test v5.6.3\n# Size          Latency (us)\n0    0.30\n1    0.31\n"
            "# OSU MPI Reduce Latency Test v5.6.3\n# Size       Avg Latency(us)\n4    3.1\n"
            "# OSU MPI Bi-Directional Bandwidth Test v5.6.3\n# Size      Bandwidth (MB/s)\n1    2.00\n")
    result = parse_osu(text, "job.log")
    assert result.run.info.plan.patterns == ("osu-latency", "osu-bibw")
    assert [(m.pattern, m.bytes) for m in result.run.measurements] == [
        ("osu-latency", 0), ("osu-latency", 1), ("osu-bibw", 1)]
    assert len(result.notes) == 1 and "skipped 'OSU MPI Reduce Latency Test'" in result.notes[0]
    assert result.run.info.command_line == "osu_latency osu_bibw"


def test_wrong_tool_gets_a_hint():
    with pytest.raises(ForeignFormatError, match="looks like Intel MPI Benchmarks output: use --from imb"):
        parse_foreign("osu", (DATA / "imb_pingpong_sendrecv_exchange.txt").read_text(), "imb.txt")
    with pytest.raises(ForeignFormatError, match="looks like NetPIPE output: use --from netpipe"):
        parse_foreign("osu", (DATA / "netpipe_mpich.np").read_text(), "np.out")


def test_header_without_result_columns_and_short_rows_are_clean_errors():
    """Found by bench/fuzz_readers.py: these used to raise IndexError."""
    import pytest as _pytest

    from msgperf.records.importers import parse_foreign
    from msgperf.errors import MsgperfError
    with _pytest.raises(MsgperfError, match="no result column"):
        parse_foreign("osu", "# OSU MPI Bi-Directional Bandwidth Test v7.4\n# Size    \n1  \n", "x")
    with _pytest.raises(MsgperfError, match="line 3: expected 2 columns"):
        parse_foreign("osu", "# OSU MPI Latency Test v7.4\n# Size          Latency (us)\n8\n16 1.5\n", "x")


@pytest.mark.parametrize("name, pattern, collective, sizes", [
    ("osu_allreduce.txt", "osu-allreduce", "allreduce", POW2[2:21]),
    ("osu_allreduce_full.txt", "osu-allreduce", "allreduce", POW2[2:17]),
    ("osu_bcast.txt", "osu-bcast", "bcast", POW2[:21]),
    ("osu_alltoall.txt", "osu-alltoall", "alltoall", POW2[:21]),
])
def test_collective_outputs_are_times_per_call_with_unknown_ranks(name, pattern, collective, sizes):
    result = load(name)
    run = result.run
    assert run.info.plan.patterns == (pattern,)
    assert tuple(m.bytes for m in run.measurements) == sizes
    assert all(m.metric == "per_iteration" for m in run.measurements)
    info = run.measurements[0].extra["imported"]
    assert (info["collective"], info["across_ranks"], info["nprocs"]) == (collective, "mean", None)
    assert any("OSU prints no process count" in n for n in result.notes)
    from msgperf.analysis.tables import pattern_facts
    facts = pattern_facts(run, pattern)
    assert facts.family == "collective" and not facts.modelled  # no ping-pong model of a collective


def test_collective_full_columns_keep_min_max_and_iterations():
    first = load("osu_allreduce_full.txt").run.measurements[0]
    assert first.samples_s[0] == pytest.approx(0.94e-6, rel=1e-12)  # "4   0.94   0.77   1.11   1000"
    info = first.extra["imported"]
    assert (info["min_s"], info["max_s"], info["iterations"]) == (pytest.approx(0.77e-6), pytest.approx(1.11e-6), 1000)
