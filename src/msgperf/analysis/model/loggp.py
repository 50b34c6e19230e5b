"""LogGP parameters from parameterised round trips, by Netgauge's method; Hockney vs LogGP.

The model: LogGP (Alexandrov, Ionescu, Schauser & Scheiman, "LogGP: incorporating long
messages into the LogP model", SPAA 1995) describes a message of s bytes by the latency L,
the send and receive overheads o_s and o_r (CPU time in the send and receive calls), the gap
g between two messages and the gap G per byte. We write G·s rather than the paper's (s−1)·G
so that zero-byte messages fit the same line (the two differ by one G).

The measurement: Kielmann, Bal & Verstoep, "Fast measurement of LogP parameters for message
passing platforms" (IPDPS workshops 2000) introduced the parameterised round trip PRTT(n,d,s):
the client sends n messages of s bytes with a delay d between consecutive sends, the server
receives all n and then sends one message of s bytes back, and the client times the whole.
Hoefler, Lichei & Rehm, "Low-overhead LogGP parameter assessment for modern interconnection
networks" (IPDPS 2007; Netgauge's ``loggp`` pattern, spcl/netgauge ptrn_loggp.c) use, per s:

    PRTT(1,0,s) = 2·(L + o_s + o_r + G·s)                          a plain round trip
    PRTT(n,0,s) = PRTT(1,0,s) + (n−1)·(g + G·s)                    n back to back (gap-limited)
    PRTT(n,d,s) = PRTT(1,0,s) + (n−1)·(d + o_s)                    d ≥ g + G·s between sends

so that (n = 10 and d = PRTT(1,0,s), as Netgauge chooses them)

    g + G·s  = (PRTT(n,0,s) − PRTT(1,0,s)) / (n−1)   ->  g, G: a straight line over the sizes
    o_s(s)   = (PRTT(n,d,s) − PRTT(1,0,s)) / (n−1) − d
    o_r(s)   = the receive call's time when the message has had d to arrive (measured directly,
               as Netgauge's server does)
    L        = PRTT(1,0,s₀)/2 − o_s(s₀) − o_r(s₀) − G·s₀   at the smallest size s₀.

Two deviations from Netgauge, both stated in docs/loggp.md: the (g, G) line is fitted by least
squares weighted by 1/value (relative misfit), because our sizes grow geometrically where
Netgauge's step linearly by 1 KiB; and L is the model's L (Netgauge prints PRTT(1,0,0)/2, the
one-way time L + o_s + o_r, which we report as ``half_round_trip_s``).

Validity (``cannot_tell``): every parameter is a time or a time per byte, so L, o_s, o_r, g and G
are ≥ 0; and the overheads are parts of the one-way time, so o_s + o_r ≤ the one-way time at the
size they come from (s₀). A parameter that breaks its rule is not a finding: the outputs show
"cannot tell" with the reason. A negative L means the overheads measured more than the one-way
time (on a busy machine, waiting for the CPU counts as overhead), not that there is no wire.

Which model fits better: both predict the one-way time T(s) of the plain ping-pong: Hockney
(Hockney, Parallel Computing 20:389, 1994) as α + β·s, fitted to those very times by weighted
least squares; LogGP as L + o_s + o_r + G·s from parameters measured on *other* series (the
gap of back-to-back messages gives G). The criterion is the root mean square of the residuals
of log time, sqrt(mean(ln(measured/predicted)²)): a relative error that weighs a 1 B point as
much as a 64 MiB one. The lower wins; within 0.005 (half a per cent) it is a tie.

Pure: numpy only, immutable ``Value``s, no I/O.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from msgperf.values import Value

TIE = 0.005  # RMS of log residuals: closer than this, neither model fits better
FIELDS = ("prtt_1_0_s", "prtt_n_0_s", "prtt_n_d_s", "n", "d_s", "send_call_s", "recv_call_s")


class LogGPError(ValueError):
    """Too little or inconsistent data for the LogGP derivation."""


class LogGPPoint(Value):
    """What the ``loggp`` pattern measured at one size (seconds)."""

    bytes: int
    prtt_1_0_s: float
    prtt_n_0_s: float
    prtt_n_d_s: float
    n: int
    d_s: float
    send_call_s: float = math.nan   # one MPI_Send call in the PRTT(n,d,s) series
    recv_call_s: float = math.nan   # one MPI_Recv call after waiting d: o_r
    round_trip_s: float = math.nan  # median of the record's samples (the timed round trip)

    @property
    def gap_s(self) -> float:
        """g + G·s: (PRTT(n,0,s) − PRTT(1,0,s)) / (n−1)."""
        return (self.prtt_n_0_s - self.prtt_1_0_s) / (self.n - 1)

    @property
    def o_s(self) -> float:
        """(PRTT(n,d,s) − PRTT(1,0,s)) / (n−1) − d."""
        return (self.prtt_n_d_s - self.prtt_1_0_s) / (self.n - 1) - self.d_s

    @property
    def one_way_s(self) -> float:
        """The plain one-way time: half the timed round trip (PRTT(1,0,s)/2 when there are no samples)."""
        rt = self.round_trip_s if math.isfinite(self.round_trip_s) else self.prtt_1_0_s
        return rt / 2


class LogGP(Value):
    """LogGP parameters (seconds, G in s/B) and what they were derived from."""

    L: float
    o_s: float
    o_r: float
    g: float
    G: float
    sizes: tuple[int, ...]
    o_s_by_size: tuple[float, ...]      # Netgauge's o_s(s)
    o_r_by_size: tuple[float, ...]      # the receive call, per size
    send_call_by_size: tuple[float, ...]  # the send call, per size (direct, for comparison with o_s)
    gap_by_size: tuple[float, ...]      # g + G·s as measured
    gap_rms_rel: float                  # relative RMS misfit of the (g, G) line
    half_round_trip_s: float            # PRTT(1,0,s₀)/2: what Netgauge prints as L
    d_too_small: tuple[int, ...]        # sizes where d < g + G·s (o_s there is unreliable)
    cannot_tell: tuple[tuple[str, str], ...] = ()  # (parameter, why): values that break their rule

    def reason(self, name: str) -> str | None:
        """Why parameter ``name`` ("L", "o_s", "o_r", "g", "G") cannot be told, or None when it is valid."""
        return next((why for n, why in self.cannot_tell if n == name), None)

    @property
    def bandwidth_bytes_per_s(self) -> float:
        return 1.0 / self.G if self.G > 0 else math.inf

    def one_way(self, size: float | np.ndarray) -> float | np.ndarray:
        """The one-way time LogGP predicts: L + o_s + o_r + G·s."""
        return self.L + self.o_s + self.o_r + self.G * np.asarray(size, dtype=float)

    def round_trip(self, size: float | np.ndarray) -> float | np.ndarray:
        return 2 * self.one_way(size)


class Line(Value):
    """T(s) = alpha + beta·s (Hockney), by weighted least squares."""

    alpha: float
    beta: float

    @property
    def n_half(self) -> float:
        return self.alpha / self.beta if self.beta > 0 else math.inf

    @property
    def bandwidth_bytes_per_s(self) -> float:
        return 1.0 / self.beta if self.beta > 0 else math.inf

    def __call__(self, size: float | np.ndarray) -> float | np.ndarray:
        return self.alpha + self.beta * np.asarray(size, dtype=float)


class ModelComparison(Value):
    criterion: str
    loggp_rms_log: float
    hockney_rms_log: float
    better: str          # "LogGP", "Hockney" or "tie"
    sizes: int


def fit_line(sizes: Sequence[float], times: Sequence[float]) -> Line:
    """Least squares of t = a + b·s weighted by 1/t (each point's relative misfit counts equally).

    Raises LogGPError with fewer than two distinct sizes or a non-positive time.
    """
    s = np.asarray(sizes, dtype=float)
    t = np.asarray(times, dtype=float)
    if s.size != t.size or np.unique(s).size < 2:
        raise LogGPError("a line needs at least two distinct sizes")
    if not np.all(np.isfinite(t)) or np.any(t <= 0):
        raise LogGPError("times must be positive and finite")
    w = 1.0 / t
    A = np.column_stack([np.ones_like(s), s]) * w[:, None]
    (a, b), *_ = np.linalg.lstsq(A, t * w, rcond=None)
    return Line(float(a), float(b))


def _fmt_us(x: float) -> str:
    return f"{x * 1e6:.3g} µs"


def validity(L: float, o_s: float, o_r: float, g: float, G: float, one_way_s: float,
             size: int) -> tuple[tuple[str, str], ...]:
    """The parameters that break their physical rule (module docstring), each with its reason."""
    out: dict[str, str] = {}
    over = o_s + o_r
    if math.isfinite(one_way_s) and over > one_way_s:
        why = (f"o_s + o_r = {_fmt_us(over)} exceeds the one-way time {_fmt_us(one_way_s)} at {size} B "
               "they come from: the overheads hold waiting, not only the CPU's work")
        for name in ("o_s", "o_r", "L"):
            out[name] = why
    for name, value in (("L", L), ("o_s", o_s), ("o_r", o_r), ("g", g), ("G", G)):
        if not math.isfinite(value):
            out.setdefault(name, f"{name} is not a number")
        elif value < 0:
            out.setdefault(name, f"{name} = {_fmt_us(value) if name != 'G' else f'{value:.3g} s/B'} is below 0, "
                                 "which no time can be: noise or load the series cannot separate")
    return tuple(out.items())


def fit_loggp(points: Sequence[LogGPPoint]) -> LogGP:
    """L, o_s, o_r, g, G by Netgauge's method (module docstring) from two or more sizes."""
    pts = sorted(points, key=lambda p: p.bytes)
    if len({p.bytes for p in pts}) < 2:
        raise LogGPError("LogGP needs the loggp pattern at two or more sizes (g and G are a line over sizes)")
    if any(p.n < 2 for p in pts):
        raise LogGPError("PRTT(n,·,s) needs n >= 2")
    sizes = np.array([p.bytes for p in pts], dtype=float)
    gaps = np.array([p.gap_s for p in pts])
    if np.any(gaps <= 0):
        # Back-to-back messages must take longer than one: a negative gap is noise at a tiny
        # size; fit the line without the relative weights there.
        A = np.column_stack([np.ones_like(sizes), sizes])
        (g, G), *_ = np.linalg.lstsq(A, gaps, rcond=None)
        line = Line(float(g), float(G))
    else:
        line = fit_line(sizes, gaps)
    pred = line(sizes)
    scale = np.where(np.abs(gaps) > 0, np.abs(gaps), 1.0)
    rms = float(np.sqrt(np.mean(((gaps - pred) / scale) ** 2)))
    first = pts[0]
    o_s0 = first.o_s
    o_r0 = first.recv_call_s if math.isfinite(first.recv_call_s) else 0.0
    L = first.prtt_1_0_s / 2 - o_s0 - o_r0 - line.beta * first.bytes
    return LogGP(
        L=float(L), o_s=float(o_s0), o_r=float(o_r0), g=line.alpha, G=line.beta,
        sizes=tuple(p.bytes for p in pts),
        o_s_by_size=tuple(float(p.o_s) for p in pts),
        o_r_by_size=tuple(float(p.recv_call_s) for p in pts),
        send_call_by_size=tuple(float(p.send_call_s) for p in pts),
        gap_by_size=tuple(float(x) for x in gaps),
        gap_rms_rel=rms,
        half_round_trip_s=first.prtt_1_0_s / 2,
        d_too_small=tuple(p.bytes for p, gp in zip(pts, pred) if p.d_s < gp),
        cannot_tell=validity(float(L), float(o_s0), float(o_r0), line.alpha, line.beta, first.one_way_s,
                             first.bytes),
    )


def rms_log(measured: np.ndarray, predicted: np.ndarray) -> float:
    """sqrt(mean(ln(measured/predicted)²)); inf when a prediction is not positive."""
    m, p = np.asarray(measured, dtype=float), np.asarray(predicted, dtype=float)
    if np.any(p <= 0) or np.any(m <= 0):
        return math.inf
    return float(np.sqrt(np.mean(np.log(m / p) ** 2)))


def compare_models(params: LogGP, sizes: Sequence[float], one_way_s: Sequence[float],
                   hockney: Line | None = None) -> ModelComparison:
    """Which of LogGP and Hockney predicts the measured one-way times better (module docstring).
    ``hockney`` defaults to fit_line(sizes, one_way_s)."""
    s = np.asarray(sizes, dtype=float)
    t = np.asarray(one_way_s, dtype=float)
    line = hockney if hockney is not None else fit_line(s, t)
    a, b = rms_log(t, params.one_way(s)), rms_log(t, line(s))
    better = "tie" if abs(a - b) < TIE else ("LogGP" if a < b else "Hockney")
    return ModelComparison("RMS of ln(measured/predicted) of the one-way time over sizes", a, b, better, int(s.size))


def point_from_fields(size: int, fields: Mapping[str, Any], round_trip_s: float = math.nan) -> LogGPPoint | None:
    """A LogGPPoint from a ``loggp`` record's fields (None when one is missing or not a number, or
    when ``n``, the messages of a PRTT series, is not a whole number of at least 2)."""
    values = {}
    for name in FIELDS:
        v = fields.get(name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            if name in ("send_call_s", "recv_call_s"):
                values[name] = math.nan
                continue
            return None
        values[name] = v
    if values["n"] != int(values["n"]) or values["n"] < 2:  # PRTT(n, ...) of fewer than 2 messages has no gap
        return None
    return LogGPPoint(bytes=int(size), prtt_1_0_s=float(values["prtt_1_0_s"]), prtt_n_0_s=float(values["prtt_n_0_s"]),
                      prtt_n_d_s=float(values["prtt_n_d_s"]), n=int(values["n"]), d_s=float(values["d_s"]),
                      send_call_s=float(values["send_call_s"]), recv_call_s=float(values["recv_call_s"]),
                      round_trip_s=float(round_trip_s))


def points_from_rows(rows: Sequence[Any]) -> list[LogGPPoint]:
    """The ``loggp`` rows of ``analysis.rows.size_rows`` as points (the round trip = the samples' median)."""
    out = []
    for r in rows:
        if r.pattern != "loggp":
            continue
        p = point_from_fields(r.bytes, r.extra, r.stats.median)
        if p is not None:
            out.append(p)
    return sorted(out, key=lambda p: p.bytes)


class LogGPAnalysis(Value):
    params: LogGP
    hockney: Line
    comparison: ModelComparison


def analyze_loggp(points: Sequence[LogGPPoint]) -> LogGPAnalysis:
    """LogGP from the points, Hockney fitted to the same sizes' one-way times, and the verdict."""
    params = fit_loggp(points)
    pts = sorted(points, key=lambda p: p.bytes)
    sizes = [p.bytes for p in pts]
    one_way = [p.one_way_s for p in pts]
    line = fit_line(sizes, one_way)
    return LogGPAnalysis(params, line, compare_models(params, sizes, one_way, line))
