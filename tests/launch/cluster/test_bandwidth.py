"""With every link of the emulated cluster shaped to a known rate, the asymptotic bandwidth
fitted from msgperf's large-message ping-pong matches the expected TCP goodput within 5%.

Expected goodput = rate × (MTU − 52) / (MTU + 14): the payload of each frame is the MTU less
the IP (20) and TCP-with-timestamps (32) headers, and tbf charges the frame without FCS (+14).
Only sizes far beyond the token bucket's burst (64 KB) follow the rate (smaller messages come out
near 2× the rate), so the fit t = a + b/B uses sizes >= 1 MiB. Both directions of every link are
shaped (one shaped direction would give 2×); the wheel's MPICH is told to use TCP
(UCX_TLS=tcp,self), not the shared memory UCX would find between namespaces.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from msgperf.analysis import analyze_series
from msgperf.records.runfile_read import read_run

pytestmark = [pytest.mark.slow, pytest.mark.cluster]
SIZES = [1 << 20, 2 << 20, 4 << 20]


def _cpu_times() -> tuple[int, int]:
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return fields[3] + fields[4], sum(fields)  # idle + iowait, total


def wait_for_idle_cpu(min_idle: float = 0.85, patience_s: float = 45.0) -> float:
    """Wait (at most patience_s) until the machine's CPUs are mostly idle over one second, so
    that other work does not slow the ranks and the shapers' softirqs (2 cores here); returns
    the idle fraction seen last. The measurement goes ahead either way."""
    deadline = time.monotonic() + patience_s
    while True:
        idle0, total0 = _cpu_times()
        time.sleep(1.0)
        idle1, total1 = _cpu_times()
        idle = (idle1 - idle0) / max(1, total1 - total0)
        if idle >= min_idle or time.monotonic() > deadline:
            return idle


def expected_goodput(rate_bit_s: float, mtu: int) -> float:
    return rate_bit_s / 8 * (mtu - 52) / (mtu + 14)


def fitted_bandwidth(sizes: list[int], one_way_s: list[float]) -> float:
    """Least squares t = a + S/B over the sizes; returns B in bytes/s."""
    slope, _ = np.polyfit(np.asarray(sizes, float), np.asarray(one_way_s, float), 1)
    return 1.0 / slope


@pytest.mark.parametrize("rate, rate_bit_s, mtu", [
    ("100mbit", 100e6, 1500), ("100mbit", 100e6, 9000), ("300mbit", 300e6, 1500), ("300mbit", 300e6, 9000),
])
def test_fitted_bandwidth_matches_the_shaped_rate(make_cluster, tmp_path, rate, rate_bit_s, mtu):
    cluster = make_cluster(2, mtu=mtu)
    cluster.shape(rate, "64kb", "tbf")
    out = tmp_path / "shaped.jsonl"
    idle = wait_for_idle_cpu()
    result = cluster.msgperf("run", "--np", 2, "--hosts", "h0,h1", "--placement", "inter",
                             "--sizes", ",".join(map(str, SIZES)), "--time-budget", "0.5", "--min-samples", 10,
                             "--no-store", "-q", "-o", out)
    assert result.returncode == 0, result.stderr + result.stdout
    run = read_run(out).run
    assert [r.host for r in run.launches[0].ranks] == ["h0", "h1"]
    medians = [float(np.median(m.per_message_s)) for m in run.measurements]
    fitted = fitted_bandwidth([m.bytes for m in run.measurements], medians)
    expected = expected_goodput(rate_bit_s, mtu)
    ratio = fitted / expected
    # msgperf's own model: the asymptotic bandwidth of its analysis (1/β of the last segment).
    asymptotic = analyze_series(run).sweep.characteristics.asymptotic_bandwidth_bytes_per_s
    print(f"\nshaped link: rate {rate} MTU {mtu}: expected goodput {expected / 1e6:.2f} MB/s, "
          f"fitted {fitted / 1e6:.2f} MB/s (ratio {ratio:.4f}), msgperf's asymptotic bandwidth "
          f"{asymptotic / 1e6:.2f} MB/s (ratio {asymptotic / expected:.4f}); CPU idle before the run: {100 * idle:.0f}%")
    assert abs(ratio - 1) < 0.05, f"fitted {fitted / 1e6:.2f} MB/s vs expected {expected / 1e6:.2f} MB/s"
    assert abs(asymptotic / expected - 1) < 0.05, f"msgperf's asymptotic bandwidth {asymptotic / 1e6:.2f} MB/s"
