"""What each size is bound by, and Saphir's four latency and bandwidth terms (Saphir 1994).

Per size (Hockney line alpha + beta·b over all sizes):
- alpha-dominated when alpha >= beta·b (below n_half), else beta-dominated (Lawlor's
  message-combining lecture);
- messages per second 1/T(b) and bandwidth b/T(b) from the measured median;
- fraction of the asymptotic bandwidth: (b/T(b)) / the asymptotic bandwidth below.

Saphir 1994: "it is common to define latency as the minimum time to send a message (usually
a message of zero length) and bandwidth as the maximum effective bandwidth, that is, message
size divided by total transfer time for very large messages"; his Table 1 gives zero-byte
latency, asymptotic latency and peak bandwidth, and "latency and bandwidth results are best
case, rather than derived from a best fit". One definition each, limited by the evidence:

- zero-byte latency: the measured median at 0 B with its interval (at the smallest size when
  0 B was not measured, and said so);
- asymptotic latency: the intercept alpha of the large-message regime (the last segment of
  the piecewise model), only when that regime holds at least ``MIN_REGIME_SIZES`` sizes over a
  span of at least ``MIN_REGIME_SPAN``; a negative intercept is no latency (times that grow
  faster than a line: caches, memory) and gives none;
- peak bandwidth: the largest measured b/T(b), its size and its interval;
- asymptotic bandwidth: b/T(b) of the largest size measured, Saphir's "size divided by total
  transfer time for very large messages", given only when that size is bandwidth-dominated
  (the last segment's beta·b >= alpha); a sweep that stops among latency-bound sizes has none.

Beside them, the model's 1/beta of the last segment (``line_bandwidth``), which is a slope, not
a measurement: it is marked ``extrapolated`` whenever it exceeds the highest measured
bandwidth beyond both intervals, and a last segment too short to support a slope gives none.
Every value carries its interval and the sizes it rests on.
"""

from __future__ import annotations

import math
from typing import Sequence

from msgperf import units
from msgperf.analysis.model.hockney import HockneyFit, LineFit
from msgperf.analysis.model.piecewise import PiecewiseFit
from msgperf.analysis.model.points import SizePoint
from msgperf.values import Value

MIN_REGIME_SIZES = 4  # a large-message regime with fewer sizes does not support an intercept
MIN_REGIME_SPAN = 4.0  # nor one whose largest size is less than 4x its smallest
# A size's bandwidth over the asymptotic bandwidth says something only when that bandwidth is
# known: the interval of the largest size's b/T(b) must be bounded and span less than this factor
# (a single value, or a disturbed largest size, gave ratios such as 12.6x from one slow median).
ASYMPTOTE_SPREAD_MAX = 1.5


class SizeRegime(Value):
    bytes: int
    time_s: float
    regime: str  # "alpha" or "beta": which term of the Hockney line dominates
    latency_share: float  # alpha / (alpha + beta·b) of the line, in [0, 1]
    messages_per_s: float
    bandwidth_bytes_per_s: float  # b / T(b), measured
    # b/T(b) over the asymptotic bandwidth (a ratio: above 1 where the curve peaks before the
    # largest size, e.g. in cache); None when there is no asymptotic bandwidth or it is not known
    # well enough (``asymptote_unknown`` then says why)
    fraction_of_asymptotic: float | None
    segment: int  # index of the piecewise segment that covers the size
    asymptote_unknown: str = ""  # why there is no ratio although there is an asymptotic bandwidth


class Term(Value):
    """One latency or bandwidth figure: its value, interval and the sizes it rests on."""

    value: float | None  # None when the evidence does not support a value (``note`` says why)
    ci: tuple[float, float] | None  # interval of the value (that of a median or of a fit)
    sizes: tuple[int, ...]  # the measured sizes the value rests on
    basis: str  # "measured" (a median or b/median) or "fitted" (a parameter of a segment)
    note: str  # where it was taken, or why there is no value
    extrapolated: bool = False  # beyond what was measured (see ``line_bandwidth``)


class Characteristics(Value):
    zero_byte_latency: Term
    asymptotic_latency: Term
    peak_bandwidth: Term
    asymptotic_bandwidth: Term  # Saphir's: b/T(b) of the largest (bandwidth-dominated) size
    line_bandwidth: Term  # the model's 1/beta of the last segment, marked when extrapolated
    n_half: Term  # alpha/beta of the one line over every size (``half_length``)

    # Plain-number views of the terms (the names renderers have used).
    @property
    def zero_byte_latency_s(self) -> float:
        return float(self.zero_byte_latency.value)  # always measured

    @property
    def zero_byte_latency_ci_s(self) -> tuple[float, float] | None:
        return self.zero_byte_latency.ci

    @property
    def zero_byte_size(self) -> int:
        return self.zero_byte_latency.sizes[0]

    @property
    def n_half_bytes(self) -> float | None:
        return self.n_half.value

    @property
    def n_half_ci_bytes(self) -> tuple[float, float] | None:
        return self.n_half.ci

    @property
    def asymptotic_latency_s(self) -> float | None:
        return self.asymptotic_latency.value

    @property
    def asymptotic_latency_ci_s(self) -> tuple[float, float] | None:
        return self.asymptotic_latency.ci

    @property
    def peak_bandwidth_bytes_per_s(self) -> float:
        return float(self.peak_bandwidth.value)

    @property
    def peak_bandwidth_size(self) -> int:
        return self.peak_bandwidth.sizes[0]

    @property
    def asymptotic_bandwidth_bytes_per_s(self) -> float | None:
        return self.asymptotic_bandwidth.value

    @property
    def asymptotic_bandwidth_ci_bytes_per_s(self) -> tuple[float, float] | None:
        return self.asymptotic_bandwidth.ci


def _point_ci(p: SizePoint) -> tuple[float, float] | None:
    return (p.ci_low_s, p.ci_high_s) if p.ci_low_s is not None and p.ci_high_s is not None else None


def _rate_ci(p: SizePoint) -> tuple[float, float] | None:
    """Interval of b/T(b) from the interval of the median T(b) (b/T is monotone in T)."""
    ci = _point_ci(p)
    if ci is None or p.bytes == 0:
        return None
    lo, hi = ci
    return (p.bytes / hi if hi > 0 else 0.0, p.bytes / lo if lo > 0 else math.inf)


def _sizes_of(points: Sequence[SizePoint], segment: LineFit) -> tuple[int, ...]:
    return tuple(p.bytes for p in points if segment.from_bytes <= p.bytes <= segment.to_bytes)


def regime_support(points: Sequence[SizePoint], last: LineFit) -> str:
    """'' when the last segment supports its parameters, else the reason it does not."""
    sizes = _sizes_of(points, last)
    span = sizes[-1] / sizes[0] if sizes and sizes[0] > 0 else math.inf
    if len(sizes) < MIN_REGIME_SIZES:
        return (f"the large-message regime holds {len(sizes)} sizes; at least "
                f"{MIN_REGIME_SIZES} are needed to fit it")
    if span < MIN_REGIME_SPAN:
        return (f"the large-message regime spans a factor {span:.3g}; at least "
                f"{MIN_REGIME_SPAN:g} is needed to fit it")
    return ""


def zero_byte_latency(points: Sequence[SizePoint]) -> Term:
    first = points[0]
    note = "measured at 0 B" if first.bytes == 0 else \
        "measured at the smallest size (0 B was not measured)"
    return Term(first.time_s, _point_ci(first), (first.bytes,), "measured", note)


def peak_bandwidth(points: Sequence[SizePoint]) -> Term:
    """The largest b / T(b), among the sizes measured in several launches where there are any: an
    estimate across launches and one launch's median are not alike (a fast launch's size would win
    against the sizes msgperf run's answer launches measured again), so the peak is chosen among
    sizes measured alike. Several launches, not the most: a launch that stopped part-way leaves
    its first sizes one launch ahead of the rest."""
    sized = [p for p in points if p.bytes > 0]
    if not sized:
        return Term(None, None, (), "measured", "no size above 0 B was measured")
    several = [p for p in sized if p.launches > 1]
    rate = lambda p: p.bytes / p.time_s  # noqa: E731
    if several and rate(max(several, key=rate)) * PEAK_APART < rate(max(sized, key=rate)):
        # the sizes measured again are not those around the peak (a --repeat launch cut off after
        # its small sizes read a peak of 363 MB/s beside 7.2 GB/s at 64 MiB): they do not choose it
        several = []
    top = max(several or sized, key=rate)
    where = "over the sizes measured in several launches" if several and len(several) < len(sized) else \
        "over the sizes measured"
    return Term(top.bytes / top.time_s, _rate_ci(top), (top.bytes,), "measured",
                f"the largest b / median T(b) {where}")


# The sizes measured in several launches choose the peak only where their best rate is within
# this factor of the best rate of all sizes: msgperf run's answer launches measure the peak and
# the sizes beside it (answer_sizes.py), and a launch's own level moves a median by tens of
# percent (bench/RESULTS.md §28), not by half.
PEAK_APART = 2.0


def asymptotic_bandwidth(points: Sequence[SizePoint], last: LineFit) -> Term:
    big = points[-1]
    if big.bytes == 0:
        return Term(None, None, (), "measured", "no size above 0 B was measured")
    alpha, beta = last.alpha_s, last.beta_s_per_byte
    if beta <= 0 or alpha > beta * big.bytes:
        return Term(None, None, (big.bytes,), "measured",
                    "the largest size measured is latency-bound (α > β·b of the last segment): "
                    "the sweep does not reach very large messages")
    return Term(big.bytes / big.time_s, _rate_ci(big), (big.bytes,), "measured",
                "size / median time of the largest size measured")


def asymptotic_latency(points: Sequence[SizePoint], last: LineFit) -> Term:
    sizes = _sizes_of(points, last)
    why = regime_support(points, last)
    if why:
        return Term(None, None, sizes, "fitted", why)
    if last.alpha_s < 0:
        return Term(None, None, sizes, "fitted",
                    "the large-message regime has a negative intercept: its times grow faster "
                    "than a line (caches, memory), so it has no latency to give")
    if last.alpha_ci_s[0] <= 0:  # a positive intercept whose interval reaches zero is no latency
        return Term(None, None, sizes, "fitted",
                    f"the large-message regime's intercept ({units.seconds(last.alpha_s)}) is not "
                    f"distinguishable from zero: its interval reaches {units.seconds(last.alpha_ci_s[0])}")
    return Term(last.alpha_s, last.alpha_ci_s, sizes, "fitted",
                "intercept α of the large-message regime (last segment)")


def half_length(fit: HockneyFit) -> Term:
    """n½ = α/β of the one line over every size (Hockney 1994): the size at which half the line's
    bandwidth is reached, with Fieller's interval. None where α or β is not positive, or where the
    line misses the sizes by more than their own times (an rms relative residual above 100 %)."""
    line = fit.line
    if not (line.alpha_s > 0 and line.beta_s_per_byte > 0 and math.isfinite(line.n_half_bytes)):
        return Term(None, None, fit.sizes, "fitted", "α or β of the line is not positive")
    if fit.rms_rel_residual > 1:
        return Term(None, None, fit.sizes, "fitted", "one line misses the sizes by >100 % (rms)")
    return Term(line.n_half_bytes, line.n_half_ci_bytes, fit.sizes, "fitted", "α/β of one line over every size")


def line_bandwidth(points: Sequence[SizePoint], last: LineFit) -> Term:
    sizes = _sizes_of(points, last)
    why = regime_support(points, last)
    lo, hi = last.beta_ci_s_per_byte
    if not why and not (last.beta_s_per_byte > 0 and lo > 0):
        why = "the last segment's slope β is not distinguishable from zero"
    if why:
        return Term(None, None, sizes, "fitted", why)
    measured = [(_rate_ci(p) or (p.bytes / p.time_s,) * 2)[1] for p in points if p.bytes > 0]
    beyond = bool(measured) and last.bandwidth_ci_bytes_per_s[0] > max(measured)
    note = "1/β of the last segment"
    if beyond:
        note += ": above every measured bandwidth, beyond both intervals (extrapolated)"
    return Term(last.bandwidth_bytes_per_s, last.bandwidth_ci_bytes_per_s, sizes, "fitted", note,
                extrapolated=beyond)


def characteristics(points: Sequence[SizePoint], model: PiecewiseFit, line: HockneyFit) -> Characteristics:
    last = model.segments[-1]
    return Characteristics(
        zero_byte_latency=zero_byte_latency(points),
        asymptotic_latency=asymptotic_latency(points, last),
        peak_bandwidth=peak_bandwidth(points),
        asymptotic_bandwidth=asymptotic_bandwidth(points, last),
        line_bandwidth=line_bandwidth(points, last),
        n_half=half_length(line))


def dominant_term(alpha_s: float, beta_s_per_byte: float, size: float) -> str:
    """"alpha" (latency-bound) when alpha >= beta·size of the line, else "beta" (bandwidth-bound);
    a negative parameter counts as 0."""
    return "alpha" if max(alpha_s, 0.0) >= max(beta_s_per_byte, 0.0) * size else "beta"


def asymptote_unknown(asymptotic: Term) -> str:
    """Why a ratio to the asymptotic bandwidth cannot tell ("" when it can, or when there is no
    asymptotic bandwidth at all: its own note says why)."""
    if asymptotic.value is None or asymptotic.ci is None:
        return ""  # no interval: a tool's single value per size, as uncertain as every size (a caveat says so)
    lo, hi = asymptotic.ci
    if not (lo > 0 and math.isfinite(hi)) or hi / lo > ASYMPTOTE_SPREAD_MAX:
        return (f"the asymptotic bandwidth's interval [{units.rate(lo)} – {units.rate(hi)}] spans more than "
                f"{ASYMPTOTE_SPREAD_MAX:g}×")
    return ""


def size_regimes(points: Sequence[SizePoint], line: HockneyFit, model: PiecewiseFit,
                 asymptotic_term: Term) -> tuple[SizeRegime, ...]:
    a, b = line.alpha_s, line.beta_s_per_byte
    unknown = asymptote_unknown(asymptotic_term)
    asymptotic = None if unknown else asymptotic_term.value
    out = []
    for p in points:
        alpha_part = max(a, 0.0)
        beta_part = max(b, 0.0) * p.bytes
        total = alpha_part + beta_part
        share = alpha_part / total if total > 0 else 1.0
        bw = p.bytes / p.time_s
        out.append(SizeRegime(
            bytes=p.bytes, time_s=p.time_s, regime=dominant_term(a, b, p.bytes),
            latency_share=share, messages_per_s=1.0 / p.time_s, bandwidth_bytes_per_s=bw,
            fraction_of_asymptotic=bw / asymptotic if asymptotic else None,
            segment=model.segment_index(p.bytes), asymptote_unknown=unknown))
    return tuple(out)
