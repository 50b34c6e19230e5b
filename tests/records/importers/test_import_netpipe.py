"""NetPIPE np.out files: the sample file, the 4.x/5.x layouts, and malformed variants."""

from __future__ import annotations

from pathlib import Path

import pytest

from msgperf.records.importers.netpipe import parse_netpipe
from msgperf.records.importers.text import ForeignFormatError

DATA = Path(__file__).resolve().parents[2] / "data" / "peer-outputs"


def test_the_sample_file():
    result = parse_netpipe((DATA / "netpipe_mpich.np").read_text(), "netpipe_mpich.np")
    run = result.run
    assert result.notes == () and run.info.source == "netpipe" and run.launches == ()
    assert run.info.plan.patterns == ("netpipe-pingpong",) and run.info.plan.buffer == "inplace"
    assert len(run.measurements) == 118 and run.info.plan.sizes[:6] == (1, 2, 3, 4, 6, 8)
    first, last = run.measurements[0], run.measurements[-1]
    # 13.452970 Mbps (2^20 bit/s) carries more digits than 0.00000057 s: the time comes from it
    assert first.samples_s[0] == pytest.approx(8 / (13.452970 * 2 ** 20), rel=1e-15)
    assert first.samples_s[0] == pytest.approx(5.7e-07, rel=0.01)
    info = first.extra["imported"]
    assert (info["version"], info["rate_unit"], info["statistic"], info["time_s"]) == (
        "3.x", "Mbps (2^20 bit/s)", "min", 5.7e-07)
    assert last.bytes == 4194307 and last.samples_s[0] == pytest.approx(0.00071654, rel=1e-5)
    assert all(m.metric == "one_way" and m.stop_reason == "imported" for m in run.measurements)


def line4(nbytes, seconds, avg_s, worst_s):
    rate = lambda t: nbytes * 8 / (t * 1e6)  # noqa: E731
    return f"{nbytes:8d} {rate(seconds):f} {rate(avg_s):12.8f} {rate(worst_s):12.8f} {seconds:12.8f}\n"


def test_netpipe_4_layout():
    text = line4(1024, 2.1e-6, 2.3e-6, 3.0e-6) + line4(65536, 20.5e-6, 21.0e-6, 25.0e-6)
    run = parse_netpipe(text, "np4.out").run
    m = run.measurements[1]
    assert m.extra["imported"]["version"] == "4.x" and m.extra["imported"]["rate_unit"] == "Mbps (10^6 bit/s)"
    assert m.samples_s[0] == pytest.approx(20.5e-6, rel=1e-7)
    assert m.extra["imported"]["average_rate"] == pytest.approx(65536 * 8 / 21.0e-6 / 1e6, rel=1e-8)


def test_netpipe_5_layout_with_workload_figures():
    text = ("        1     0.014     0.012     0.015    0.57\n"
            "  1048576    43.690    40.000    45.000  192.00   12.34 GFlops\n")
    run = parse_netpipe(text, "np5.out").run
    small, big = run.measurements
    assert big.extra["imported"]["version"] == "5.x" and big.extra["imported"]["statistic"] == "mean"
    assert small.samples_s[0] == 0.57e-6  # the time (3 digits) beats 0.014 Gbps (2 digits)
    assert big.samples_s[0] == 192e-6  # a tie in digits: the time column
    assert big.extra["imported"]["rate"] == 43.69 and big.extra["imported"]["min_rate"] == 40.0


@pytest.mark.parametrize("text, message", [
    ("       1 13.452970   0.00000057\n       2 27.446227\n       3 38.980797   0.00000059\n",
     r"line 2: expected 3 numeric columns \(bytes, Mbps, seconds\) or NetPIPE 4.x/5.x's 5, got '2 27.446227'"),
    ("       1 13.452970   0.00000057\n       2 27.446227   0.00000056 1 2\n", "line 2: 5 columns where the lines above have 3"),
    ("       1 13.452970   0.00000057\n       x 27.446227   0.00000056\n", "line 2: the message size must be a whole number"),
    ("       1 nan   0.00000057\n", "line 1: each column after the size must be a number, got 'nan'"),
    ("       1 13.452970   0.00000057\n       1 13.452970   0.00000057\n", "line 2: netpipe-pingpong at 1 B appears twice"),
    ("    1000 13.452970   0.50000000\n", "line 1: the rate and time columns disagree"),
    ("       5 bytes   1000 times        0 failures\n", "line 1: an integrity-check line"),
    ("\n# nothing\n", "no NetPIPE result lines"),
])
def test_malformed_files_name_the_line(text, message):
    with pytest.raises(ForeignFormatError, match=message):
        parse_netpipe(text, "np.out")


def test_zero_times_are_noted():
    result = parse_netpipe("       1 0.000000   0.00000000\n       2 27.446227   0.00000056\n", "np.out")
    assert [m.bytes for m in result.run.measurements] == [2]
    assert result.notes == ("line 1: 1 B skipped: NetPIPE printed no time above zero",)
