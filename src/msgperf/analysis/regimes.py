"""What each size is bound by, and the latency and bandwidth figures of seeds/002.

Per size (Hockney line alpha + beta·b over all sizes):
- alpha-dominated when alpha >= beta·b (below n_half), else beta-dominated (seeds/000);
- messages per second 1/T(b) and bandwidth b/T(b) from the measured median;
- fraction of the asymptotic bandwidth: (b/T(b)) / (1/beta_last).

The sweep (Saphir 1994, seeds/002, Table 1 notes a-c):
- zero-byte latency: the measured median time of the 0-byte message (of the smallest
  size when 0 B was not measured), with its interval;
- asymptotic latency: the intercept of the line fitted to the large-message regime, i.e.
  alpha of the last segment of the piecewise model (of the single line when there is one);
- peak bandwidth: the largest measured b/T(b), and the size where it occurs;
- asymptotic bandwidth: 1/beta of the last segment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from msgperf.analysis.hockney import HockneyFit
from msgperf.analysis.piecewise import PiecewiseFit
from msgperf.analysis.points import SizePoint


@dataclass(frozen=True)
class SizeRegime:
    bytes: int
    time_s: float
    regime: str  # "alpha" or "beta": which term of the Hockney line dominates
    latency_share: float  # alpha / (alpha + beta·b) of the line, in [0, 1]
    messages_per_s: float
    bandwidth_bytes_per_s: float  # b / T(b), measured
    fraction_of_asymptotic: float | None  # of 1/beta_last; None when that is undefined
    segment: int  # index of the piecewise segment that covers the size


@dataclass(frozen=True)
class Characteristics:
    zero_byte_latency_s: float
    zero_byte_latency_ci_s: tuple[float, float] | None
    zero_byte_size: int  # 0, or the smallest size measured when 0 B was not
    asymptotic_latency_s: float
    asymptotic_latency_ci_s: tuple[float, float]
    peak_bandwidth_bytes_per_s: float
    peak_bandwidth_size: int
    asymptotic_bandwidth_bytes_per_s: float | None  # None when beta_last <= 0
    asymptotic_bandwidth_ci_bytes_per_s: tuple[float, float] | None


def size_regimes(points: Sequence[SizePoint], line: HockneyFit,
                 model: PiecewiseFit) -> tuple[SizeRegime, ...]:
    a, b = line.alpha_s, line.beta_s_per_byte
    last = model.segments[-1].beta_s_per_byte
    asymptotic = 1.0 / last if last > 0 else None
    out = []
    for p in points:
        alpha_part = max(a, 0.0)
        beta_part = max(b, 0.0) * p.bytes
        total = alpha_part + beta_part
        share = alpha_part / total if total > 0 else 1.0
        bw = p.bytes / p.time_s
        out.append(SizeRegime(
            bytes=p.bytes, time_s=p.time_s, regime="alpha" if alpha_part >= beta_part else "beta",
            latency_share=share, messages_per_s=1.0 / p.time_s, bandwidth_bytes_per_s=bw,
            fraction_of_asymptotic=bw / asymptotic if asymptotic else None,
            segment=next((i for i, s in enumerate(model.segments) if p.bytes <= s.to_bytes),
                         len(model.segments) - 1)))
    return tuple(out)


def characteristics(points: Sequence[SizePoint], model: PiecewiseFit) -> Characteristics:
    first = points[0]
    ci = (first.ci_low_s, first.ci_high_s) if first.ci_low_s is not None else None
    bandwidths = [(p.bytes / p.time_s, p.bytes) for p in points]
    peak, at = max(bandwidths)
    last = model.segments[-1]
    beta_ok = last.beta_s_per_byte > 0
    return Characteristics(
        zero_byte_latency_s=first.time_s, zero_byte_latency_ci_s=ci, zero_byte_size=first.bytes,
        asymptotic_latency_s=last.alpha_s, asymptotic_latency_ci_s=last.alpha_ci_s,
        peak_bandwidth_bytes_per_s=peak, peak_bandwidth_size=at,
        asymptotic_bandwidth_bytes_per_s=last.bandwidth_bytes_per_s if beta_ok else None,
        asymptotic_bandwidth_ci_bytes_per_s=last.bandwidth_ci_bytes_per_s if beta_ok else None)
