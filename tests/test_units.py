"""Units for people (msgperf/units.py): the one module that formats times, sizes, rates, counts
and ratios for the terminal, the report, the plots and the caveats."""

import pytest

from msgperf import units


@pytest.mark.parametrize("seconds, text", [
    (1.5e-9, "1.5 ns"), (999.4e-9, "999 ns"), (999.6e-9, "1 µs"), (1.234e-6, "1.23 µs"), (0.9996e-3, "1 ms"),
    (2.5, "2.5 s"), (float("nan"), "-"), (None, "-"),
])
def test_seconds_picks_the_unit_after_rounding(seconds, text):
    assert units.seconds(seconds) == text


def test_sizes_are_exact_for_measured_sizes():
    assert units.size(0) == "0 B" and units.size(1023) == "1023 B" and units.size(4096) == "4 KiB"
    assert units.size(1536 * 1024) == "1.5 MiB" and units.size(64 << 20) == "64 MiB"
    assert units.size(2045) == "2045 B" and units.size(16280) == "16280 B"  # never "15.9 KiB" for a measured size
    assert units.size(3 * 2 ** 26) == "192 MiB" and units.size(8765.4) == "8.56 KiB"  # a fraction: 3 digits


def test_rates_counts_and_ratios():
    assert units.mb_per_s(13.6e9) == "13,600" and units.mb_per_s(1.08e6) == "1.08" and units.mb_per_s(0) == "-"
    assert units.rate(21.4e9) == "21.4 GB/s" and units.rate(999.7e6) == "1 GB/s"
    assert units.count(999.6) == "1 k" and units.count(999.4) == "999" and units.count(1.22e6) == "1.22 M"
    assert "e+" not in units.count(999_999) and units.ratio(1.664) == "1.66×" and units.beta(66.5e-12) == "66.5 ps/B"


def test_intervals_share_one_unit_and_say_when_unbounded_or_absent():
    assert units.interval(0.595e-6, 1.04e-6, "s") == "[0.595 – 1.04 µs]"
    assert units.interval(11.5e9, 21.5e9, "B/s") == "[11.5 – 21.5 GB/s]"
    assert units.interval(float("-inf"), float("inf"), "s") == "[unbounded]"
    assert units.interval(None, None, "s") == units.NO_INTERVAL


@pytest.mark.parametrize("text, value", [("10GB/s", 1e10), ("500 MB/s", 5e8), ("5e9", 5e9), ("1 GiB/s", 2 ** 30)])
def test_parse_rate(text, value):
    assert units.parse_rate(text) == value


@pytest.mark.parametrize("text", ["fast", "-1GB/s", "0", "nan", "1 parsec"])
def test_parse_rate_refuses_what_is_not_a_bandwidth(text):
    with pytest.raises(ValueError, match="--copy-bandwidth"):
        units.parse_rate(text)


def test_a_total_of_bytes_reads_in_three_digits_not_to_the_byte():
    """"bytes sent 10400000 B" in the profile's tables: a volume is not a measured message size."""
    assert units.volume(10_400_000) == "9.92 MiB" and units.size(10_400_000) == "10400000 B"
    assert units.volume(512) == "512 B" and units.volume(1536) == "1.5 KiB" and units.volume(None) == "-"
    assert units.memory(25_232_932_864) == "23.5 GiB"  # a host's memory: the same form


def test_a_time_or_size_below_rounding_is_zero_not_a_string_of_zeros():
    """A line through two exact points: α = 1e-21 s and n½ = 1e-16 B were printed in full decimals."""
    assert units.seconds(9.99e-22) == "0 ns" and units.seconds(-3e-18) == "0 ns"
    assert units.seconds(2e-12) == "0.002 ns"  # a picosecond is still a value
    assert units.size(9.99e-17) == "0 B" and units.size(0.5) == "0.5 B"
