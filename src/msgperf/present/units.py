"""Human units for display only (the data stays in seconds and bytes)."""

from __future__ import annotations

import math


def format_bytes(n: float) -> str:
    """Binary units: 0 B, 512 B, 4 KiB, 1.5 MiB, 64 MiB."""
    if n < 1024:
        return f"{int(n)} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        n /= 1024
        if n < 1024 or unit == "TiB":
            return f"{n:g} {unit}" if n == int(n) else f"{n:.3g} {unit}"
    raise AssertionError


def format_seconds(s: float, digits: int = 3) -> str:
    """ns, µs, ms or s with ``digits`` significant digits."""
    if not math.isfinite(s):
        return "-"
    a = abs(float(f"{s:.{digits}g}"))  # round first: 999.5 ns is "1 µs", not "1e+03 ns"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if a >= scale or unit == "ns":
            return f"{s / scale:.{digits}g} {unit}"
    raise AssertionError


def format_rate(bytes_per_s: float) -> str:
    """Decimal megabytes per second (1 MB = 10^6 B), as OSU, IMB and NetPIPE print them."""
    if not math.isfinite(bytes_per_s) or bytes_per_s <= 0:
        return "-"
    mb = bytes_per_s / 1e6
    return f"{mb:,.0f}" if mb >= 100 else f"{mb:.3g}"


def format_count(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.3g} M"
    if x >= 1e3:
        return f"{x / 1e3:.3g} k"
    return f"{x:.3g}"
