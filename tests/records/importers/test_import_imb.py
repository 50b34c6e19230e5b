"""Intel MPI Benchmarks outputs: both sample files, and malformed variants with their line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from msgperf.records.importers.imb import parse_imb
from msgperf.records.importers.text import ForeignFormatError

DATA = Path(__file__).resolve().parents[2] / "data" / "peer-outputs"
SIZES_4M = (0,) + tuple(2 ** i for i in range(23))


def load(name: str):
    return parse_imb((DATA / name).read_text(), name)


def test_pingpong_sendrecv_exchange():
    result = load("imb_pingpong_sendrecv_exchange.txt")
    run = result.run
    assert result.notes == () and run.info.source == "imb" and run.launches == ()
    assert run.info.plan.patterns == ("imb-pingpong", "imb-sendrecv", "imb-exchange")
    assert run.info.plan.sizes == SIZES_4M and len(run.measurements) == 3 * 24
    assert run.info.start_time == "2026-11-22T04:26:18"
    assert run.info.command_line == "./IMB-MPI1 PingPong Sendrecv Exchange"
    by_key = {(m.pattern, m.bytes): m for m in run.measurements}
    pingpong = by_key["imb-pingpong", 0]
    assert pingpong.samples_s[0] == 1.35e-06 and pingpong.metric == "one_way"
    info = pingpong.extra["imported"]
    assert (info["benchmark"], info["version"], info["mpi_standard"], info["repetitions"]) == (
        "PingPong", "2021.11", "5.0", 1000)
    assert info["time_is"] == "half a round trip"
    sendrecv = by_key["imb-sendrecv", 262144]  # t_min 24.91, t_max 24.93, t_avg 24.92
    assert sendrecv.samples_s[0] == 24.93e-06 and sendrecv.extra["imported"]["across_ranks"] == "max"
    assert (sendrecv.extra["imported"]["t_min_s"], sendrecv.extra["imported"]["t_avg_s"]) == (24.91e-06, 24.92e-06)
    assert by_key["imb-exchange", 4194304].samples_s[0] == 1256.15e-06
    assert all(m.stop_reason == "imported" and m.k == m.divisor == 1 for m in run.measurements)


def test_uniband_biband_pingping():
    run = load("imb_uniband_biband_pingping.txt").run
    assert run.info.plan.patterns == ("imb-uniband", "imb-biband", "imb-pingping")
    assert run.info.plan.sizes == SIZES_4M[:22]
    by_key = {(m.pattern, m.bytes): m for m in run.measurements}
    uniband = by_key["imb-uniband", 0]  # 0 MB/s at 0 B: the message rate still gives a time
    assert uniband.metric == "per_message" and uniband.samples_s[0] == pytest.approx(1 / 1156707, rel=1e-15)
    assert by_key["imb-biband", 1048576].extra["imported"]["bandwidth_MBps"] == 26951.61
    assert by_key["imb-pingping", 1048576].samples_s[0] == 89.16e-06


HEAD = ("#----\n#    Intel(R) MPI Benchmarks 2021.11, MPI-1 part\n#----\n"
        "# Date                  : Sun Nov 22 04:26:18 2026\n\n")
PINGPONG = "# Benchmarking PingPong \n# #processes = 2 \n#----\n       #bytes #repetitions      t[usec]   Mbytes/sec\n"


@pytest.mark.parametrize("text, message", [
    (HEAD + PINGPONG + "0 1000 1.35 0.00\n1 1000 abc 0.71\n", "line 11: t must be a number, got 'abc'"),
    (HEAD + PINGPONG + "0 1000 1.35\n1 1000 1.40 0.71\n", r"line 10: expected 4 numeric columns \(bytes, repetitions, t, mbps\), got '0 1000 1.35'"),
    (HEAD + PINGPONG + "0 many 1.35 0.00\n", "line 10: #repetitions must be a whole number, got 'many'"),
    (HEAD + PINGPONG + "-4 1000 1.35 0.00\n", "line 10: the message size must be a whole number of bytes, got '-4'"),
    (HEAD + PINGPONG + "0 1000 1.35 0.00\n0 1000 1.36 0.00\n", "line 11: imb-pingpong at 0 B appears twice"),
    (HEAD + "# Benchmarking PingPong\n     #bytes #repetitions   t[usec]   Jitter\n",
     "line 7: unknown IMB column 'Jitter'"),
    (HEAD + "# Benchmarking PingPong\n0 1000 1.35 0.00\n", "line 7: a result line before the '#bytes #repetitions ...' header"),
    ("0 1000 1.35 0.00\n", "line 1: a result line before any '# Benchmarking <name>' line"),
    ("hello\n", "no 'Intel\\(R\\) MPI Benchmarks' banner"),
    ("# nothing here\n", "no 'Intel\\(R\\) MPI Benchmarks' banner"),
    (HEAD + PINGPONG, "no point-to-point or Allreduce, Bcast, Alltoall results found"),
])
def test_malformed_outputs_name_the_line(text, message):
    with pytest.raises(ForeignFormatError, match=message):
        parse_imb(text, "imb.txt")


def test_failures_and_collectives_are_noted_and_npmin_sections_kept_apart():
    text = (HEAD + PINGPONG + "0 1000 1.35 0.00\n4194304 out-of-mem.; needed X= 0.5 GB; use flag \"-mem X\"\n"
            "# Benchmarking Allgather\n# #processes = 2\n  #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n"
            "0 1000 0.05 0.06 0.05\n"
            "# Benchmarking Sendrecv\n# #processes = 2\n  #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec\n"
            "8 1000 1.60 1.70 1.65 9.6\n"
            "# Benchmarking Sendrecv\n# #processes = 4\n  #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec\n"
            "8 1000 2.60 2.70 2.65 6.1\n"
            "# Benchmarking PingPong\n# #processes = 2\n# ( 2 additional processes waiting in MPI_Barrier)\n"
            "       #bytes #repetitions      t[usec]   Mbytes/sec\n1 1000 1.40 0.71\n")
    result = parse_imb(text, "imb.txt")
    assert [(m.pattern, m.bytes, m.ranks) for m in result.run.measurements] == [
        ("imb-pingpong", 0, (0, 1)), ("imb-sendrecv", 8, (0, 1)), ("imb-sendrecv", 8, (0, 1, 2, 3)),
        ("imb-pingpong", 1, (0, 1))]
    assert result.run.info.plan.nranks == 4
    assert "line 11: IMB reported a failure instead of a time" in result.notes[0]
    assert "line 12: skipped IMB Allgather" in result.notes[1]


def test_defects_column_of_check_builds():
    text = (HEAD + "# Benchmarking PingPong\n#bytes #repetitions t[usec] Mbytes/sec defects\n"
            "0 1000 1.35 0.00 0.00\n1 1000 1.40 0.71 3.00\n")
    first, second = parse_imb(text, "imb.txt").run.measurements
    assert first.validated and not second.validated
    assert second.extra["imported"]["validation"] == "failed"


def test_an_absurd_process_count_is_a_clean_error():
    """Found by bench/fuzz_readers.py (a million inputs): it used to raise OverflowError."""
    from pathlib import Path as _Path

    import pytest as _pytest

    from msgperf.errors import MsgperfError
    from msgperf.records.importers import parse_foreign
    text = (_Path(__file__).parents[2] / "data" / "peer-outputs" / "imb_uniband_biband_pingping.txt").read_text()
    broken = text.replace("#processes = 2", "#processes = " + "9" * 40, 1)
    with _pytest.raises(MsgperfError, match="not a plausible process count"):
        parse_foreign("imb", broken, "imb.txt")


def test_allreduce_bcast_alltoall_are_times_per_call_of_the_slowest_rank():
    run = load("imb_allreduce_bcast_alltoall.txt").run
    assert run.info.plan.patterns == ("imb-allreduce", "imb-bcast", "imb-alltoall")
    by = {(m.pattern, m.bytes): m for m in run.measurements}
    assert sorted({m.bytes for m in run.measurements if m.pattern == "imb-bcast"}) == [0] + [2 ** i for i in range(17)]
    assert sorted({m.bytes for m in run.measurements if m.pattern == "imb-allreduce"}) == \
        [0] + [2 ** i for i in range(2, 17)]  # IMB reduces MPI_FLOATs: no 1 B or 2 B
    m = by[("imb-allreduce", 1024)]  # "1024   77   1.50   1.65   1.57"
    assert m.metric == "per_iteration" and m.ranks == (0, 1)
    assert m.samples_s[0] == pytest.approx(1.65e-6, rel=1e-12)  # t_max: the slowest rank's mean
    info = m.extra["imported"]
    assert (info["t_min_s"], info["t_avg_s"], info["repetitions"], info["collective"]) == (
        pytest.approx(1.50e-6), pytest.approx(1.57e-6), 77, "allreduce")
    from msgperf.analysis.tables import pattern_facts
    assert pattern_facts(run, "imb-alltoall").family == "collective"
