"""Message combining (Lawlor's message-combining lecture): k messages of s bytes sent apart, or as one of k·s bytes.

With the Hockney line, apart costs k·(alpha + beta·s) and combined alpha + beta·k·s: the
saving is (k - 1)·alpha, the speedup k(alpha + beta·s)/(alpha + beta·k·s), which falls
toward 1 as s grows past n_half. Combining "no longer pays" above the size where the speedup
drops below 1 + ``min_gain`` (10 % by default); solving k(alpha + beta·s) = (1 + g)(alpha + beta·k·s):

    s* = alpha·(k - 1 - g) / (g·k·beta)      (about n_half / g for large k).

The prediction that counts uses the piecewise model, T_pw: a combined message may cross a
protocol switch (eager -> rendezvous) that the single line knows nothing about. Its
break-even size is found numerically: the last size on a log grid of 2049 points from 1 B
to 1 TiB where the speedup still reaches 1 + g, refined by bisection. Both are reported,
and the measured times when the run measured s or k·s.

Separate messages sent back to back pipeline: the second leaves before the first has arrived.
When the run measured the LogGP gap (the ``loggp`` pattern: g + G·s between back-to-back
messages, Hoefler et al. 2007), the separate messages are predicted as the first message's time
plus k - 1 gaps, T(s) + (k - 1)·(g + G·s), instead of k·T(s); the prediction says which it used.
Where the run measured the case itself (the ``combine`` pattern at k and s), that measurement
is the answer and the prediction is shown beside it.
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from msgperf.analysis import caveats as cv
from msgperf.analysis.model import LineFit, PiecewiseFit
from msgperf.analysis.samples import AnalysisError
from msgperf.analysis.tables.eager import goes_eagerly
from msgperf.analysis.tables.buffering import BufferingEstimate
from msgperf.values import Value

MIN_GAIN = 0.10
_GRID = np.geomspace(1.0, 2.0 ** 40, 2049)


class Gap(Value):
    """The time between back-to-back messages, g + G·s (LogGP, from the loggp pattern)."""

    g_s: float
    G_s_per_byte: float

    def at(self, size: float) -> float:
        return self.g_s + self.G_s_per_byte * size


class CombiningPrediction(Value):
    messages: int
    bytes: int
    apart_s: float  # k·T(s) with the piecewise model, or T(s) + (k - 1)·gap(s) when the gap is known
    combined_s: float  # T(k·s)
    speedup: float  # apart / combined
    line_apart_s: float  # k·(alpha + beta·s), single line
    line_combined_s: float  # alpha + beta·k·s
    line_speedup: float
    min_gain: float
    break_even_bytes: float | None  # s above which the speedup stays below 1 + min_gain; None: pays up to 1 TiB
    line_break_even_bytes: float | None
    measured_apart_s: float | None  # k x measured T(s), when s was measured
    measured_combined_s: float | None  # measured T(k·s), when k·s was measured
    caveats: tuple[cv.Caveat, ...]
    pipelined: bool = False  # apart_s assumed back-to-back messages pipeline (the LogGP gap)
    measured_by_combine: bool = False  # the measured times are the combine pattern's own, at k and s
    eager_limit_bytes: int | None = None  # the run's measured eager limit, when it has one
    # Where combining gains at least min_gain, per message size s (on the break-even grid), from 1 B
    # up to ``within_bytes``: the largest size the run measured over k, so that both k·s and s lie
    # within the evidence. The gain need not fall with s (a combined message that crosses the eager
    # limit gains less than smaller and larger ones), so this is a list of ranges.
    paying_bytes: tuple[tuple[float, float], ...] = ()
    within_bytes: float = 0.0
    pays_to_within: bool = False  # the last range reaches within_bytes (beyond it: no evidence)
    buffering: BufferingEstimate | None = None  # what buffering the k·s bytes costs (RunResult.advise)

    @property
    def model_words(self) -> str:
        """Which model the prediction rests on."""
        return ("piecewise model of the ping-pong; separate messages pipelined by the LogGP gap "
                "g + G·s (loggp pattern)" if self.pipelined else
                "piecewise model of the ping-pong; separate messages one after the other, k·T(s) "
                "(no loggp measurement, or its gap cannot be told: pipelining unknown)")

    @property
    def measured_speedup(self) -> float | None:
        if self.measured_apart_s is None or not self.measured_combined_s:
            return None
        return self.measured_apart_s / self.measured_combined_s

    @property
    def answer_speedup(self) -> float:
        """The speedup the advice rests on: measured where the run measured the case, else predicted."""
        measured = self.measured_speedup
        return measured if measured is not None and self.measured_by_combine else self.speedup


def line_break_even(line: LineFit, messages: int, min_gain: float) -> float | None:
    a, b, k, g = line.alpha_s, line.beta_s_per_byte, messages, min_gain
    if k - 1 <= g or a <= 0:
        return 0.0
    if b <= 0:
        return None
    return a * (k - 1 - g) / (g * k * b)


def sent_apart(one_s: float, messages: int, gap_s: float | None) -> float:
    """k messages of s bytes sent apart, from one message's time T(s) and the LogGP gap at s
    (None: the run did not measure it): k·T(s), or T(s) + (k - 1)·max(gap(s), 0) when back-to-back
    messages pipeline. The one definition (``_grid_gains`` repeats its operations on arrays;
    profile advice spreads it over a sequence of mixed sizes, each message first with equal chance)."""
    return messages * one_s if gap_s is None else one_s + (messages - 1) * max(gap_s, 0.0)


def apart_time(model: PiecewiseFit, messages: int, size: float, gap: Gap | None) -> float:
    """k messages of ``size`` sent apart with the piecewise model's T(s) (``sent_apart``)."""
    return sent_apart(model.predict(size), messages, None if gap is None else gap.at(size))


def _grid_gains(model: PiecewiseFit, messages: int, gap: Gap | None) -> np.ndarray:
    """``gain(s)`` of model_break_even at every size of the grid at once: the same operations on
    the same doubles, element by element (2,049 calls one by one cost ~20 ms per case, and
    ``show`` of a run of every pattern asks for a dozen cases)."""
    segments = model.segments

    def predict(sizes: np.ndarray) -> np.ndarray:  # PiecewiseFit.predict of each size
        index = np.full(sizes.shape, len(segments) - 1)
        starts = model.segment_starts
        for i in range(len(segments) - 2, -1, -1):  # the first segment whose successor starts above
            index[sizes < starts[i]] = i
        alpha = np.array([float(seg.alpha_s) for seg in segments])[index]
        beta = np.array([float(seg.beta_s_per_byte) for seg in segments])[index]
        return alpha + beta * sizes

    combined = predict(float(messages) * _GRID)
    if gap is None:
        apart = float(messages) * predict(_GRID)
    else:
        gaps = gap.g_s + gap.G_s_per_byte * _GRID
        apart = predict(_GRID) + float(messages - 1) * np.where(0.0 > gaps, 0.0, gaps)  # max(gap, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(combined > 0, apart / combined - 1, np.inf)


def _gain_at(model: PiecewiseFit, messages: int, gap: Gap | None) -> Callable[[float], float]:
    """``gain(s)`` at one size, the same operations on plain floats as ``_grid_gains`` (the
    bisections below ask 60 times per boundary)."""
    lines = [(float(seg.alpha_s), float(seg.beta_s_per_byte)) for seg in model.segments]

    def predict(size: float) -> float:  # model.predict
        a, b = lines[model.segment_index(size)]
        return a + b * size

    def gain(s: float) -> float:
        combined = predict(messages * s)
        one = predict(s)
        apart = sent_apart(one, messages, None if gap is None else gap.at(s))
        return apart / combined - 1 if combined > 0 else np.inf
    return gain


def _falls_below(gain: Callable[[float], float], min_gain: float, lo: float, hi: float) -> tuple[float, float]:
    """(the last size that still gains, the first that does not) between grid sizes ``lo`` (gains)
    and ``hi`` (does not), by bisection."""
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gain(mid) >= min_gain else (lo, mid)
    return lo, hi


def paying_ranges(model: PiecewiseFit, messages: int, min_gain: float, gap: Gap | None,
                  within: float) -> tuple[tuple[tuple[float, float], ...], bool]:
    """(the ranges of s up to ``within`` where the gain is at least ``min_gain``, whether the last
    one reaches ``within``). Each range is a run of consecutive grid sizes that gain; an end
    inside the grid is refined by bisection to where the gain falls below ``min_gain``."""
    inside = int(np.count_nonzero(_GRID <= within))
    if inside == 0:
        return (), False
    paying = _grid_gains(model, messages, gap)[:inside] >= min_gain
    gain = _gain_at(model, messages, gap)
    out, start = [], None
    for i, pays in enumerate(paying):
        if pays and start is None:
            start = i
        if start is not None and (not pays or i == inside - 1):
            end = i if pays else i - 1
            high = float(_GRID[end]) if pays else _falls_below(gain, min_gain, float(_GRID[end]), float(_GRID[end + 1]))[0]
            out.append((float(_GRID[start]), high))
            start = None
    return tuple(out), bool(paying[-1])


def model_break_even(model: PiecewiseFit, messages: int, min_gain: float,
                     gap: Gap | None = None) -> float | None:
    gains = _grid_gains(model, messages, gap)
    paying = np.flatnonzero(gains >= min_gain)
    if paying.size == 0:
        return 0.0
    last = int(paying[-1])
    if last == _GRID.size - 1:
        return None
    return float(_falls_below(_gain_at(model, messages, gap), min_gain, float(_GRID[last]), float(_GRID[last + 1]))[1])


def predict_combining(model: PiecewiseFit, line: LineFit, messages: int, size: int,
                      min_gain: float = MIN_GAIN,
                      measured: Mapping[int, float] | None = None, gap: Gap | None = None,
                      combine_measured: tuple[float, float] | None = None,
                      eager_limit: int | None = None) -> CombiningPrediction:
    """Predict k = ``messages`` messages of ``size`` bytes apart versus combined.

    ``measured`` maps sizes to measured median times of the modelled series, to show beside the
    prediction; ``combine_measured`` is (separate, combined) as the combine pattern measured
    this very case; ``gap`` the LogGP gap; ``eager_limit`` the measured eager limit."""
    if isinstance(messages, bool) or int(messages) != messages or messages < 1:
        raise AnalysisError(f"--messages must be a whole number >= 1, got {messages!r}")
    if isinstance(size, bool) or int(size) != size or size < 0:
        raise AnalysisError(f"--bytes must be a whole number of bytes >= 0, got {size!r}")
    if not min_gain > 0:
        raise AnalysisError(f"the minimum gain must be positive, got {min_gain!r}")
    k, s = int(messages), int(size)
    apart, combined = apart_time(model, k, s, gap), model.predict(k * s)
    line_apart, line_combined = sent_apart(float(line.predict(s)), k, None), float(line.predict(k * s))
    measured = measured or {}
    found = []
    largest = model.segments[-1].to_bytes
    if k * s > largest:
        found.append(cv.extrapolated(k * s, largest))
    for bp in model.breakpoints:
        for b in sorted({s, k * s}):
            if bp.low_bytes < b < bp.high_bytes:
                found.append(cv.inside_breakpoint(b, bp.low_bytes, bp.high_bytes))
    paying = paying_ranges(model, k, min_gain, gap, largest / k)
    if eager_limit is not None and goes_eagerly(s, eager_limit) and not goes_eagerly(k * s, eager_limit):
        found.append(cv.crosses_eager_limit(k * s, eager_limit))
    if combine_measured is not None:
        measured_apart, measured_combined = combine_measured
    else:
        measured_apart = sent_apart(measured[s], k, None) if s in measured else None
        measured_combined = measured.get(k * s)
    return CombiningPrediction(
        messages=k, bytes=s, apart_s=apart, combined_s=combined,
        speedup=apart / combined if combined > 0 else float("inf"),
        line_apart_s=line_apart, line_combined_s=line_combined,
        line_speedup=line_apart / line_combined if line_combined > 0 else float("inf"),
        min_gain=min_gain, break_even_bytes=model_break_even(model, k, min_gain, gap),
        line_break_even_bytes=line_break_even(line, k, min_gain),
        measured_apart_s=measured_apart, measured_combined_s=measured_combined,
        caveats=tuple(found), pipelined=gap is not None,
        measured_by_combine=combine_measured is not None, eager_limit_bytes=eager_limit,
        paying_bytes=paying[0], within_bytes=largest / k, pays_to_within=paying[1])
