"""NetPIPE ``np.out`` files -> an imported-summary ``Run`` (pattern ``netpipe-pingpong``).

Three layouts exist, told apart by their column count and checked against each other:

- 3.x (``%8d %lf %12.8lf``): bytes, Mbps with 1 Mbps = 2^20 bit/s, one-way seconds (the best
  of the trials);
- 4.x (5 or 7 columns): bytes, best/average/worst Mbps with 1 Mbps = 10^6 bit/s, the best
  one-way time in seconds (and CPU load, work size with ``-w``);
- 5.x (5 columns, maybe followed by "GFlops"/"GB/sec" workload figures): bytes, average/min/max
  Gbps, the average one-way time in µs.

The rate and the time columns carry the same quantity; the sample is taken from whichever was
printed with more significant digits (NetPIPE 3.x prints 0.00000057 s next to 13.452970 Mbps).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from msgperf.records.importers.peer_run import ImportResult, Point, Points, build_run
from msgperf.records.importers.text import (ForeignFormatError, OutputLines, decimal, excerpt, seconds, size,
                                            significant_digits)

PATTERN = "netpipe-pingpong"

# layout -> (rate column, rate unit in bit/s, time column, time scale as a power of ten, statistic)
LAYOUTS: dict[str, tuple[int, Decimal, int, int, str]] = {
    "3.x": (1, Decimal(2 ** 20), 2, 0, "min"),
    "3.x (10^6 Mbps)": (1, Decimal(10 ** 6), 2, 0, "min"),  # late 3.x builds, as 4.x
    "4.x": (1, Decimal(10 ** 6), 4, 0, "min"),
    "5.x": (1, Decimal(10 ** 9), 4, -6, "mean"),
}
_CANDIDATES = {3: ("3.x", "3.x (10^6 Mbps)"), 5: ("4.x", "5.x"), 7: ("4.x",)}
_RATE_NAMES = {"3.x": "Mbps (2^20 bit/s)", "3.x (10^6 Mbps)": "Mbps (10^6 bit/s)",
               "4.x": "Mbps (10^6 bit/s)", "5.x": "Gbps (10^9 bit/s)"}


def _rows(text: str, name: str, notes: list[str]) -> list[tuple[int, list[str]]]:
    rows = []
    width = None
    output = OutputLines(text)
    for number, line in output.numbered():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        tokens = stripped.split()
        where = f"{name}, line {number}"
        if "failures" in tokens or "times" in tokens:
            raise ForeignFormatError(
                f"{where}: an integrity-check line ({excerpt(line)}); NetPIPE's integrity mode "
                "measures no times; rerun without -i/--integrity")
        if len(tokens) == 7 and tokens[-1] in ("GFlops", "GB/sec"):
            tokens = tokens[:5]  # 5.x workload figures
        if output.cut_short(number, tokens, width or 3):
            continue
        if len(tokens) not in (3, 5, 7):
            raise ForeignFormatError(
                f"{where}: expected 3 numeric columns (bytes, Mbps, seconds) or NetPIPE 4.x/5.x's "
                f"5, got {excerpt(line)}")
        if width is not None and len(tokens) != width:
            raise ForeignFormatError(
                f"{where}: {len(tokens)} columns where the lines above have {width}; "
                "two NetPIPE outputs were concatenated?")
        width = len(tokens)
        size(tokens[0], where)
        for t in tokens[1:]:
            decimal(t, where, "each column after the size")
        rows.append((number, tokens))
    notes.extend(output.notes)
    if not rows:
        raise ForeignFormatError(f"{name}: no NetPIPE result lines (bytes, rate, time) found")
    return rows


def _mismatch(layout: str, tokens: list[str]) -> float:
    """Relative disagreement between the rate and the time columns under ``layout``."""
    rate_col, unit, time_col, scale, _ = LAYOUTS[layout]
    nbytes, rate, time = int(tokens[0]), Decimal(tokens[rate_col]), Decimal(tokens[time_col]).scaleb(scale)
    if nbytes == 0 or rate <= 0 or time <= 0:
        return float("inf")
    return abs(float(nbytes * 8 / (time * unit) / rate) - 1.0)


def _layout(rows: list[tuple[int, list[str]]], name: str) -> str:
    """Which NetPIPE wrote these columns, judged on the line whose time has the most digits."""
    candidates = _CANDIDATES[len(rows[0][1])]
    time_col = LAYOUTS[candidates[0]][2]
    number, tokens = max(rows, key=lambda r: (significant_digits(r[1][time_col]), int(r[1][0])))
    errors = {layout: _mismatch(layout, tokens) for layout in candidates}
    best = min(errors, key=lambda layout: errors[layout])
    if errors[best] > 0.1:
        raise ForeignFormatError(
            f"{name}, line {number}: the rate and time columns disagree ({excerpt(' '.join(tokens))}); "
            "not a NetPIPE np.out file msgperf knows (3.x: bytes Mbps seconds; 4.x/5.x: 5 columns)")
    return best


def parse_netpipe(text: str, name: str = "<netpipe output>") -> ImportResult:
    """Parse a NetPIPE np.out file (``name`` is used in messages)."""
    notes: list[str] = []
    rows = _rows(text, name, notes)
    layout = _layout(rows, name)
    rate_col, unit, time_col, scale, statistic = LAYOUTS[layout]
    points = Points(name)
    for number, tokens in rows:
        nbytes = int(tokens[0])
        rate, time = Decimal(tokens[rate_col]), Decimal(tokens[time_col])
        info: dict[str, Any] = {"tool": "netpipe", "suite": "NetPIPE", "version": layout.split()[0],
                                "statistic": statistic, "time_is": "half a round trip",
                                "rate": float(rate), "rate_unit": _RATE_NAMES[layout],
                                "time_s": seconds(time, scale)}
        if len(tokens) >= 5:
            info["average_rate" if layout == "4.x" else "min_rate"] = float(Decimal(tokens[2]))
            info["worst_rate" if layout == "4.x" else "max_rate"] = float(Decimal(tokens[3]))
        if len(tokens) == 7:
            info["cpu_load_percent"] = float(Decimal(tokens[5]))
        use_rate = (nbytes > 0 and rate > 0
                    and significant_digits(tokens[rate_col]) > significant_digits(tokens[time_col]))
        if use_rate:
            time_s = float(Decimal(nbytes * 8) / (rate * unit))
            info["time_from"] = "bytes * 8 / rate (more digits than the time column)"
        elif time > 0:
            time_s = seconds(time, scale)
            info["time_from"] = "time column"
        else:
            notes.append(f"line {number}: {nbytes} B skipped: NetPIPE printed no time above zero")
            continue
        points.append(Point(pattern=PATTERN, bytes=nbytes, time_s=time_s, metric="one_way",
                            line=number, info=info))
    return build_run(points, name=name, source="netpipe", buffer="inplace", nranks=2,
                     command_line="NetPIPE", notes=notes)
