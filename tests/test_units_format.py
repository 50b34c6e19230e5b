import pytest

from msgperf.present.units import format_bytes, format_rate, format_seconds


@pytest.mark.parametrize("seconds, text", [
    (1.5e-9, "1.5 ns"), (999.4e-9, "999 ns"), (999.6e-9, "1 µs"), (1.234e-6, "1.23 µs"), (0.9996e-3, "1 ms"),
    (2.5, "2.5 s"), (float("nan"), "-"),
])
def test_format_seconds_picks_the_unit_after_rounding(seconds, text):
    assert format_seconds(seconds) == text


def test_format_bytes_and_rate():
    assert format_bytes(0) == "0 B" and format_bytes(1023) == "1023 B" and format_bytes(4096) == "4 KiB"
    assert format_bytes(1536 * 1024) == "1.5 MiB" and format_bytes(64 << 20) == "64 MiB"
    assert format_rate(13.6e9) == "13,600" and format_rate(1.08e6) == "1.08" and format_rate(0) == "-"
