"""Units for people, in one place: every time, size, rate, count and ratio msgperf prints is
formatted here (terminal, report, plots, caveat wording). The data stay in seconds, bytes and
bytes per second.

Conventions: sizes in binary units (KiB = 2^10 B), rates in decimal units (MB/s = 10^6 B/s, as
OSU, IMB and NetPIPE print them), times in ns/µs/ms/s with three significant digits chosen after
rounding (999.6 ns is "1 µs", never "1e+03 ns"), "×" for ratios, and ``MISSING`` for a value
that does not exist.
"""

from __future__ import annotations

import math

MISSING = "-"
NO_INTERVAL = "—"  # a value that has no interval (one value, no samples): never "± 0.0 %"

_TIMES = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_SIZES = (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))
_RATES = ((1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s"), (1.0, "B/s"))
_BETAS = ((1e-6, "µs/B"), (1e-9, "ns/B"), (1e-12, "ps/B"))


def _finite(x: float | None) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def _sig(x: float, digits: int) -> str:
    """``x`` to ``digits`` significant digits, never in exponent notation."""
    if x == 0:
        return "0"
    text = f"{x:.{digits}g}"
    if "e" in text:
        exponent = int(math.floor(math.log10(abs(x))))
        decimals = max(0, digits - 1 - exponent)
        text = f"{x:.{decimals}f}"
    return text


def _scaled(x: float, units, digits: int) -> str:
    """``x`` in the largest unit it reaches once rounded to ``digits`` significant digits."""
    rounded = abs(float(f"{x:.{digits}g}"))
    for scale, name in units:
        if rounded >= scale * (1 - 1e-12):
            return f"{_sig(x / scale, digits)} {name}"
    scale, name = units[-1]
    return f"{_sig(x / scale, digits)} {name}"


# Below these a fitted time or size is rounding, not a value (a line through two exact points gave
# α = 1e-21 s, printed "0.000000000000999 ns"): shown as 0
TIME_FLOOR_S = 1e-15
SIZE_FLOOR_B = 1e-3


def seconds(t: float | None, digits: int = 3) -> str:
    """821 ns, 1.66 µs, 14 ms, 2.5 s."""
    if not _finite(t):
        return MISSING
    if abs(float(t)) < TIME_FLOOR_S:
        return "0 ns"
    return _scaled(float(t), _TIMES, digits)


def size(n: float | None) -> str:
    """A measured (whole) size exactly, in the largest unit that shows it exactly in at most four
    digits: 0 B, 2045 B, 4 KiB, 1.5 MiB, 192 MiB, 16280 B (never "15.9 KiB" for a size a run
    measured: NetPIPE-style perturbations differ by a few bytes). A fractional size (n½, a model's
    crossover) to three significant digits: 8.56 KiB."""
    if not _finite(n):
        return MISSING
    value = float(n)
    if value == int(value):
        whole = int(value)
        for name, scale in _SIZES:
            if abs(whole) >= scale:
                q = whole / scale
                text = f"{q:.3f}".rstrip("0").rstrip(".")
                if float(text) * scale == whole and len(text.replace(".", "").lstrip("0")) <= 4:
                    return f"{text} {name}"
        return f"{whole} B"
    if abs(value) < SIZE_FLOOR_B:
        return "0 B"
    if abs(value) < 1024:
        return f"{_sig(value, 3)} B"
    for name, scale in reversed(_SIZES):  # KiB first: the smallest unit that keeps it below 1024
        if abs(float(_sig(value / scale, 3))) < 1024 or name == "TiB":
            return f"{_sig(value / scale, 3)} {name}"
    raise AssertionError


def exact_bytes(n: int | None) -> str:
    """A size to the byte (an eager limit found by bisection): 8112 B, 65536 B."""
    return MISSING if n is None else f"{int(n)} B"


def volume(n: float | None) -> str:
    """A total of bytes (sent, moved, together), to three significant digits: 9.92 MiB, 512 B
    ("-" when unknown). ``size`` is for a message size, shown to the byte."""
    if n is None or not _finite(n) or n < 0:
        return MISSING
    for name, scale in _SIZES:
        if n >= scale:
            return f"{_sig(n / scale, 3)} {name}"
    return f"{int(n)} B"


def memory(n: int | None) -> str:
    """A host's memory, to three significant digits: 23.5 GiB, 512 MiB ("-" when unknown)."""
    return volume(n)


def rate(bytes_per_s: float | None) -> str:
    """21.4 GB/s, 421 MB/s (decimal units)."""
    if not _finite(bytes_per_s) or bytes_per_s <= 0:
        return MISSING
    return _scaled(float(bytes_per_s), _RATES, 3)


def mb_per_s(bytes_per_s: float | None) -> str:
    """The number of MB/s (10^6 B/s) for a table column: 21,420 or 1.27."""
    if not _finite(bytes_per_s) or bytes_per_s <= 0:
        return MISSING
    mb = bytes_per_s / 1e6
    return f"{mb:,.0f}" if mb >= 100 else _sig(mb, 3)


def count(x: float | None) -> str:
    """Messages per second and other counts: 1.22 M, 601 k, 71.5."""
    if not _finite(x):
        return MISSING
    value = float(x)
    for scale, name in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(float(f"{value:.3g}")) >= scale:
            return f"{_sig(value / scale, 3)}{name}"
    return _sig(value, 3)


def beta(seconds_per_byte: float | None) -> str:
    """Inverse bandwidth: 66.5 ps/B."""
    if not _finite(seconds_per_byte):
        return MISSING
    return _scaled(float(seconds_per_byte), _BETAS, 3)


def ratio(x: float | None, digits: int = 3) -> str:
    """1.66×."""
    if not _finite(x):
        return MISSING
    return f"{_sig(float(x), digits)}×"


def percent(fraction: float | None, signed: bool = False, decimals: int = 1) -> str:
    """0.9 %, +12.5 %."""
    if not _finite(fraction):
        return MISSING
    return f"{100 * fraction:{'+' if signed else ''}.{decimals}f} %"


_RATE_UNITS = {"": 1.0, "b/s": 1.0, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9, "tb/s": 1e12,
               "kib/s": 2.0 ** 10, "mib/s": 2.0 ** 20, "gib/s": 2.0 ** 30}


def parse_rate(text: str, option: str = "--copy-bandwidth") -> float:
    """'10GB/s' -> 1e10, '500 MB/s' -> 5e8, '5e9' -> 5e9 (bytes per second; MB = 10^6 B,
    MiB = 2^20 B)."""
    import re  # noqa: PLC0415

    m = re.match(r"^\s*([0-9.]+(?:[eE][+-]?\d+)?)\s*([a-zA-Z/]*)\s*$", str(text))
    unit = m.group(2).lower() if m else ""
    if not m or unit not in _RATE_UNITS:
        raise ValueError(f"{option} {text!r}: write bytes per second like 10GB/s, 500MB/s or 5e9")
    value = float(m.group(1)) * _RATE_UNITS[unit]
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{option} {text!r}: a bandwidth must be a positive, finite number of bytes per second")
    return value


UNITS = {"s": seconds, "B": size, "B/s": rate, "s/B": beta, "count": count, "×": ratio}


def interval(low: float | None, high: float | None, unit: str) -> str:
    """'[0.595 – 1.04 µs]' in one unit (that of the larger end); '[unbounded]' when neither end
    is finite, ``NO_INTERVAL`` when there is none."""
    if low is None and high is None:
        return NO_INTERVAL
    lo_ok, hi_ok = _finite(low), _finite(high)
    if not lo_ok and not hi_ok:
        return "[unbounded]"
    fmt = UNITS[unit]
    reference = max(abs(v) for v in (low, high) if _finite(v))
    if unit == "s":
        scale, name = next(((s, n) for s, n in _TIMES if reference >= s * 0.9995), _TIMES[-1])
    elif unit == "B/s":
        scale, name = next(((s, n) for s, n in _RATES if reference >= s * 0.9995), _RATES[-1])
    elif unit == "s/B":
        scale, name = next(((s, n) for s, n in _BETAS if reference >= s * 0.9995), _BETAS[-1])
    elif unit == "B":
        scale, name = next(((s, n) for n, s in _SIZES if reference >= s), (1, "B"))
    else:
        return f"[{fmt(low)} – {fmt(high)}]"
    left = _sig(low / scale, 3) if lo_ok else "-∞"
    right = _sig(high / scale, 3) if hi_ok else "∞"
    return f"[{left} – {right} {name}]"


def value(x: float | None, unit: str) -> str:
    """Any value by its unit name ("s", "B", "B/s", "s/B", "count", "×")."""
    return UNITS[unit](x)
