"""Buffering (Saphir 1994, seeds/002): what an extra copy through a buffer costs.

When a message is copied into a buffer (at copy bandwidth b_c) and sent (at network
bandwidth b_n) one after the other, the effective bandwidth is their harmonic combination

    b_e = b_c·b_n / (b_c + b_n),   i.e.   b/b_e = b/b_n + b/b_c,

so a buffered transfer is slower by the factor b_n/b_e = 1 + b_n/b_c in its bandwidth-bound
part (twice as slow when copying is as fast as the network), and a message of b bytes
whose unbuffered time is T(b) takes T(b) + b/b_c buffered (the copy adds no latency).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from msgperf.analysis.inputs import AnalysisError


@dataclass(frozen=True)
class BufferingEstimate:
    copy_bandwidth_bytes_per_s: float
    network_bandwidth_bytes_per_s: float
    effective_bandwidth_bytes_per_s: float  # b_e
    slowdown: float  # b_n / b_e = 1 + b_n / b_c, for the bandwidth-bound part
    bytes: int | None
    unbuffered_s: float | None  # T(b): the model's time, or b / b_n
    buffered_s: float | None  # T(b) + b / b_c


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
