"""Buffering (Saphir 1994): what an extra copy through a buffer costs.

When a message is copied into a buffer (at copy bandwidth b_c) and sent (at network
bandwidth b_n) one after the other, the effective bandwidth is their harmonic combination

    b_e = b_c·b_n / (b_c + b_n),   i.e.   b/b_e = b/b_n + b/b_c,

so a buffered transfer is slower by the factor b_n/b_e = 1 + b_n/b_c in its bandwidth-bound
part (twice as slow when copying is as fast as the network), and a message of b bytes
whose unbuffered time is T(b) takes T(b) + b/b_c buffered (the copy adds no latency).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import msgspec

from msgperf.analysis.samples import AnalysisError
from msgperf.values import Value


class BufferingEstimate(Value):
    copy_bandwidth_bytes_per_s: float
    network_bandwidth_bytes_per_s: float
    effective_bandwidth_bytes_per_s: float  # b_e
    slowdown: float  # b_n / b_e = 1 + b_n / b_c, for the bandwidth-bound part
    bytes: int | None
    unbuffered_s: float | None  # T(b): the model's time, or b / b_n
    buffered_s: float | None  # T(b) + b / b_c
    copy_from: str = ""  # where b_c comes from, in words
    network_from: str = ""  # where b_n comes from, in words


def effective_bandwidth(copy_bandwidth: float, network_bandwidth: float) -> float:
    """b_e = b_c·b_n / (b_c + b_n), bytes per second."""
    for name, v in (("copy bandwidth", copy_bandwidth), ("network bandwidth", network_bandwidth)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise AnalysisError(f"the {name} must be a positive number of bytes per second, got {v!r}")
    return copy_bandwidth * network_bandwidth / (copy_bandwidth + network_bandwidth)


def estimate_buffering(copy_bandwidth: float, network_bandwidth: float, size: int | None = None,
                       unbuffered_s: float | None = None) -> BufferingEstimate:
    """The buffered bandwidth, and for ``size`` bytes the time with and without the copy
    (``unbuffered_s`` is the measured or modelled time; b / b_n when not given)."""
    b_e = effective_bandwidth(copy_bandwidth, network_bandwidth)
    unbuffered = buffered = None
    if size is not None:
        unbuffered = unbuffered_s if unbuffered_s is not None else size / network_bandwidth
        buffered = unbuffered + size / copy_bandwidth
    return BufferingEstimate(
        copy_bandwidth_bytes_per_s=float(copy_bandwidth),
        network_bandwidth_bytes_per_s=float(network_bandwidth),
        effective_bandwidth_bytes_per_s=b_e, slowdown=network_bandwidth / b_e, bytes=size,
        unbuffered_s=unbuffered, buffered_s=buffered)


def buffering_of(size: int, unbuffered_s: float, characteristics: Any,
                 memcpy_sizes: Sequence[tuple[int, float]],
                 copy_bandwidth: float | None = None) -> BufferingEstimate | None:
    """What buffering ``size`` bytes costs (advise: the k·s bytes of the combined message, whose
    modelled time is ``unbuffered_s``). b_c: ``copy_bandwidth`` when given, else the run's memcpy
    (``copy_speed``); None without either. b_n: Saphir's asymptotic bandwidth when the sweep
    (``characteristics``) reached bandwidth-bound sizes, else the peak measured bandwidth (said
    so): never a slope beyond the measurements."""
    copy_from = "--copy-bandwidth"
    if copy_bandwidth is None:
        measured = copy_speed(memcpy_sizes)
        if measured is None:
            return None
        copy_bandwidth, at = measured
        copy_from = f"memcpy at {at} B in this run"
    network, network_from = characteristics.asymptotic_bandwidth_bytes_per_s, "the asymptotic bandwidth"
    if not network:
        network, network_from = characteristics.peak_bandwidth_bytes_per_s, (
            "the peak measured bandwidth (the sweep did not reach bandwidth-bound sizes)")
    return msgspec.structs.replace(estimate_buffering(copy_bandwidth, network, size, unbuffered_s),
                                   copy_from=copy_from, network_from=network_from)


# ---- what a run measured: copy speed, and the buffered path against Saphir's relation --------

class BufferingRow(Value):
    """One size measured by memcpy and the ping-pong (and, for the check, unexpected)."""

    bytes: int
    copy_bandwidth_bytes_per_s: float  # b_c(s) = s / memcpy median
    network_bandwidth_bytes_per_s: float  # b_n(s) = s / ping-pong one-way median (unbuffered)
    predicted_effective_bytes_per_s: float  # b_e = b_c·b_n/(b_c+b_n): one extra copy
    extra_copy_s: float  # s / b_c: the time of that copy
    measured_extra_s: float | None  # late - preposted receive (unexpected): what buffering cost
    measured_extra_ci_s: tuple[float, float] | None
    measured_effective_bytes_per_s: float | None  # s / (unbuffered one-way + measured extra), extra > 0
    ratio: float | None  # measured extra / predicted copy time (None when the extra is not positive)
    ratio_ci: tuple[float, float] | None  # its interval, from 0 when the extra's reaches below 0
    # "agrees", "costs more", "costs less", "no copy seen (the late receive was faster)",
    # "not buffered (rendezvous)", "cannot tell", ""
    verdict: str
    # why the verdict is "cannot tell" although its own interval gave one (``agreement``): the
    # neighbouring sizes or the other launches contradict it ("" otherwise)
    why_not: str = ""


# The relation is "confirmed" at a size when the interval of measured/predicted extra time lies
# within this band around 1 (a copy measured by memcpy against the copy inside the MPI), and
# "cannot tell" when the interval is wider than the band itself.
AGREEMENT_BAND = (0.5, 2.0)


def copy_speed(memcpy_sizes: Sequence[tuple[int, float]]) -> tuple[float, int] | None:
    """Copy speed b_c as Saphir 1994 uses it for a buffered message: the memcpy bandwidth at the
    largest size the run measured (a large buffered message does not fit in cache; the peak of a
    small in-cache copy would make buffering look free). (bytes/s, that size); None without memcpy."""
    usable = [(s, t) for s, t in memcpy_sizes if s > 0 and t > 0]
    if not usable:
        return None
    size, median = max(usable)
    return size / median, size


def memcpy_times(rows: Sequence[Any]) -> list[tuple[int, float]]:
    """(size, time) of the run's memcpy rows, the time as every table reads it (``SizeRow.time_s``:
    across launches when the row has several)."""
    return [(r.bytes, r.time_s) for r in rows if r.pattern == "memcpy" and not r.variant]


def run_copy_speed(rows: Sequence[Any]) -> tuple[float, int] | None:
    """The run's copy speed b_c (``copy_speed`` of ``memcpy_times``): the one value summary, the
    report and advise give."""
    return copy_speed(memcpy_times(rows))


NO_COPY_SEEN = "no copy seen (the late receive was faster)"


def buffering_verdict(ratio_ci: tuple[float, float] | None, eager: bool | None,
                      extra_ci_s: tuple[float, float] | None = None) -> str:
    """Saphir's relation at one size, from the interval of measured / predicted extra time. A
    whole interval below half the copy says "costs less" however wide it is (down to nothing); an
    extra time whose interval lies below zero is no copy at all."""
    if eager is False:
        return "not buffered (rendezvous)"
    if extra_ci_s is not None and extra_ci_s[1] < 0:
        return NO_COPY_SEEN
    if ratio_ci is None:
        return "cannot tell"
    lo, hi = ratio_ci
    band_lo, band_hi = AGREEMENT_BAND
    if hi < band_lo:
        return "costs less"
    if lo > band_hi:
        return "costs more"
    if hi / max(lo, 1e-300) > band_hi / band_lo:
        return "cannot tell"
    if band_lo <= lo and hi <= band_hi:
        return "agrees"
    return "cannot tell"


def buffering_row(size: int, copy_s: float, unbuffered_s: float,
                  extra: tuple[float, float | None, float | None] | None,
                  eager: bool | None) -> BufferingRow:
    """One size: ``copy_s`` the memcpy median, ``unbuffered_s`` the ping-pong one-way median,
    ``extra`` (value, low, high) of the late-minus-preposted receive time when measured, ``eager``
    whether the size went eagerly (None when the eager limit was not measured)."""
    b_c, b_n = size / copy_s, size / unbuffered_s
    predicted = effective_bandwidth(b_c, b_n)
    measured = ci = ratio = ratio_ci = effective = None
    verdict = ""
    if extra is not None:
        measured, lo, hi = extra
        ci = (lo, hi) if lo is not None and hi is not None else None
        # a time ratio is only a ratio of positive times: a late receive measured faster has none
        ratio = measured / copy_s if measured > 0 else None
        ratio_ci = (max(lo, 0.0) / copy_s, hi / copy_s) if ci is not None and hi > 0 else None
        # a buffered bandwidth only from a positive extra time: faster than unbuffered is no buffering
        effective = size / (unbuffered_s + measured) if measured > 0 else None
        verdict = buffering_verdict(ratio_ci, eager, ci)
    return BufferingRow(size, b_c, b_n, predicted, copy_s, measured, ci, effective, ratio, ratio_ci, verdict)


# ---- agreement where the data repeat --------------------------------------------------------

# What a verdict says about the copy: "costs less" and "no copy seen" both find less than a copy.
_FINDS = {"agrees": "a copy", "costs more": "more than a copy", "costs less": "less than a copy",
          NO_COPY_SEEN: "less than a copy"}


def _said(verdict: str) -> str:
    return verdict.split(" (")[0]


def agreement(rows: Sequence[BufferingRow],
              by_launch: Mapping[int, Mapping[int, str]] | None = None) -> tuple[BufferingRow, ...]:
    """Each verdict checked where the data repeat. A verdict at one size is "cannot tell" when its
    neighbouring sizes in the same regime (the rows in size order, rendezvous sizes apart) both say
    something else (one neighbour at either end of the regime), or when another launch's own verdict
    at that size says something else (``by_launch``: size -> launch -> that launch's verdict). A
    single disturbed spike ("costs more, 277x" between two sizes that agree, and called "no copy
    seen" by a re-measurement) is then no finding. ``rows`` in size order; the verdicts compared
    are the rows' own, before this check."""
    out = []
    regime = [r for r in rows if r.verdict != "not buffered (rendezvous)"]
    place = {r.bytes: i for i, r in enumerate(regime)}
    for r in rows:
        found = _FINDS.get(r.verdict)
        if found is None or r.bytes not in place:
            out.append(r)
            continue
        i = place[r.bytes]
        sides = [regime[j] for j in (i - 1, i + 1) if 0 <= j < len(regime)]
        why = ""
        if sides and all(_FINDS.get(n.verdict, found) != found for n in sides) \
                and all(n.verdict in _FINDS for n in sides):
            why = (f"{_said(r.verdict)} here, but "
                   + " and ".join(f"{n.bytes} B says {_said(n.verdict)}" for n in sides) + ": a disturbance at one size")
        others = {l: v for l, v in (by_launch or {}).get(r.bytes, {}).items()
                  if _FINDS.get(v) is not None and _FINDS[v] != found}
        if not why and others:
            why = (f"{_said(r.verdict)} pooled, but "
                   + ", ".join(f"launch {l} alone says {_said(v)}" for l, v in sorted(others.items()))
                   + ": the launches disagree")
        out.append(msgspec.structs.replace(r, verdict="cannot tell", why_not=why) if why else r)
    return tuple(out)
