"""Comparing runs: is B slower or faster than A, size by size and parameter by parameter, and
is the difference larger than the noise? Pure functions over arrays; no I/O, no printing.

Per size (raw per-message samples of A and B):

- the ratio of medians median(B) / median(A), with a distribution-free confidence interval
  after Price & Bonett (2002): the standard error of each log-median is read off its
  order-statistic interval (``median_ci_ranks``, Conover §3.2), the two are combined on the
  log scale;
- a two-sided Mann-Whitney U test (Mann & Whitney 1947; scipy's exact or asymptotic form),
  which assumes no normality;
- Holm's step-down correction across the sizes (Holm 1979), so that the chance of flagging
  any size when nothing changed stays at or below ``alpha`` (the family-wise error rate).

A size is "slower" or "faster" only when its Holm-adjusted p-value is below ``alpha`` *and*
the ratio's interval excludes 1 (and, with ``min_effect``, the ratio differs from 1 by more
than that); otherwise the change is "within noise". A size with a single value in either run
(an imported summary: OSU, IMB, NetPIPE print one number per size) has no test: "untested".

Per model parameter (α, β, 1/β, n½, zero-byte latency, asymptotic bandwidth of
``analyze_run``): the ratio with an interval from the two fits' intervals on the log scale
(normal approximation), a Wald test of log-ratio = 0, and Holm across the parameters.

Samples within one run are treated as independent; drift and launch-to-launch variation make
real runs noisier than that assumption, which is why several launches (``--repeat``) and the
launch analysis exist. ``docs/report.md`` states the method for users.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
from scipy import stats

from msgperf.analysis.inputs import AnalysisError
from msgperf.analysis.run import RunAnalysis, analyze_run, series_of
from msgperf.analysis.summary import median_ci_ranks

ALPHA = 0.05


@dataclass(frozen=True)
class SizeComparison:
    bytes: int
    n_a: int
    n_b: int
    median_a_s: float
    median_b_s: float
    ratio: float  # median(B) / median(A): above 1, B is slower
    ratio_ci: tuple[float, float] | None  # None when untested
    p_value: float | None  # Mann-Whitney, two-sided; None when untested
    p_adjusted: float | None  # Holm across the sizes
    verdict: str  # "slower", "faster", "within noise", "untested"

    @property
    def significant(self) -> bool:
        return self.verdict in ("slower", "faster")

    @property
    def slowdown(self) -> float:
        """How much slower B is, as a fraction (0.2 = 20 % slower; negative when faster)."""
        return self.ratio - 1.0


@dataclass(frozen=True)
class ParameterComparison:
    name: str  # "alpha", "beta", "bandwidth", "n_half", "zero_byte_latency", "asymptotic_bandwidth"
    label: str  # for people: "α latency"
    unit: str  # "s", "s/B", "B/s", "B"
    value_a: float
    value_b: float
    ratio: float  # B / A
    ratio_ci: tuple[float, float] | None
    p_value: float | None
    p_adjusted: float | None
    higher_is_worse: bool  # times: True; bandwidths: False
    verdict: str  # "slower", "faster", "within noise", "untested"

    @property
    def significant(self) -> bool:
        return self.verdict in ("slower", "faster")

    @property
    def slowdown(self) -> float:
        """How much slower B is by this parameter (a bandwidth that halves is 100 % slower)."""
        if not (self.ratio > 0 and math.isfinite(self.ratio)):
            return math.nan
        return (self.ratio if self.higher_is_worse else 1.0 / self.ratio) - 1.0


@dataclass(frozen=True)
class RunComparison:
    label_a: str
    label_b: str
    series: str  # the pattern (and variant) compared
    alpha: float
    min_effect: float
    sizes: tuple[SizeComparison, ...]
    parameters: tuple[ParameterComparison, ...]
    notes: tuple[str, ...]  # what could not be tested, and why

    @property
    def tested(self) -> bool:
        return any(s.verdict != "untested" for s in self.sizes)

    def worst_slowdown(self) -> float:
        """The largest significant slowdown (sizes and parameters), 0 when there is none."""
        found = [c.slowdown for c in (*self.sizes, *self.parameters)
                 if c.verdict == "slower" and math.isfinite(c.slowdown)]
        return max(found, default=0.0)

    def slowdowns_above(self, fraction: float) -> list[str]:
        """What slowed down significantly by more than ``fraction`` (for --fail-above)."""
        out = []
        for s in self.sizes:
            if s.verdict == "slower" and s.slowdown > fraction:
                out.append(f"{s.bytes} B: {100 * s.slowdown:+.1f} %")
        for p in self.parameters:
            if p.verdict == "slower" and p.slowdown > fraction:
                out.append(f"{p.label}: {100 * p.slowdown:+.1f} %")
        return out


# ---- statistics ----------------------------------------------------------------------------


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (Holm 1979); None stays None (untested)."""
    idx = [i for i, p in enumerate(p_values) if p is not None and math.isfinite(p)]
    out: list[float | None] = [None] * len(p_values)
    m = len(idx)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: p_values[i])):  # type: ignore[arg-type]
        adj = min(1.0, (m - rank) * float(p_values[i]))  # type: ignore[arg-type]
        running = max(running, adj)
        out[i] = running
    return out


def log_median_se(x: np.ndarray, confidence: float = 0.95) -> float:
    """Standard error of log(median) from the median's order-statistic interval (Price &
    Bonett 2002): (log x_hi - log x_lo) / (2 z). NaN when the samples cannot give one."""
    n = x.size
    if n < 2 or np.any(x <= 0):
        return math.nan
    lo, hi = median_ci_ranks(n, confidence)
    part = np.partition(x, sorted({lo, hi}))
    z = stats.norm.ppf(0.5 + confidence / 2)
    width = math.log(part[hi]) - math.log(part[lo])
    if width <= 0:  # a tied interval (clock ticks): fall back on the sample spread
        width = 2 * z * float(np.std(np.log(x), ddof=1)) * 1.2533 / math.sqrt(n)
    return width / (2 * z)


def compare_samples(a: np.ndarray, b: np.ndarray, size: int = 0, confidence: float = 0.95
                    ) -> SizeComparison:
    """One size: ratio of medians with its interval and the Mann-Whitney p-value (not yet
    adjusted, verdict provisional)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.size == 0 or b.size == 0:
        raise AnalysisError(f"{size} B: no samples to compare")
    ma, mb = float(np.median(a)), float(np.median(b))
    ratio = mb / ma if ma > 0 else math.nan
    if a.size < 2 or b.size < 2 or not math.isfinite(ratio) or ratio <= 0:
        return SizeComparison(size, a.size, b.size, ma, mb, ratio, None, None, None, "untested")
    z = stats.norm.ppf(0.5 + confidence / 2)
    se = math.hypot(log_median_se(a, confidence), log_median_se(b, confidence))
    ci = (ratio * math.exp(-z * se), ratio * math.exp(z * se)) if math.isfinite(se) else None
    if np.all(a == a[0]) and np.all(b == b[0]):
        p = 1.0 if a[0] == b[0] else 0.0
    else:
        p = float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    return SizeComparison(size, a.size, b.size, ma, mb, ratio, ci, p, None, "within noise")


def _verdict(ratio: float, ci: tuple[float, float] | None, p_adj: float | None, alpha: float,
             min_effect: float, higher_is_worse: bool = True) -> str:
    if p_adj is None:
        return "untested"
    if p_adj >= alpha or ci is None or ci[0] <= 1.0 <= ci[1] or abs(ratio - 1.0) <= min_effect:
        return "within noise"
    worse = ratio > 1.0 if higher_is_worse else ratio < 1.0
    return "slower" if worse else "faster"


def compare_size_samples(a: Mapping[int, np.ndarray], b: Mapping[int, np.ndarray],
                         alpha: float = ALPHA, min_effect: float = 0.0
                         ) -> tuple[tuple[SizeComparison, ...], tuple[str, ...]]:
    """Every size both have, Holm-corrected together; plus notes (sizes only one run has,
    sizes without a test)."""
    if not 0 < alpha < 1:
        raise AnalysisError("alpha must lie between 0 and 1")
    common = sorted(set(a) & set(b))
    notes = []
    only = sorted(set(a) ^ set(b))
    if only:
        notes.append(f"{len(only)} size(s) measured in only one run, not compared: "
                     + ", ".join(f"{s} B" for s in only[:8]) + (" …" if len(only) > 8 else ""))
    if not common:
        raise AnalysisError("the runs have no message size in common")
    raw = [compare_samples(a[s], b[s], s, 1 - alpha) for s in common]
    adjusted = holm([c.p_value for c in raw])
    out = []
    for c, p_adj in zip(raw, adjusted):
        out.append(SizeComparison(c.bytes, c.n_a, c.n_b, c.median_a_s, c.median_b_s, c.ratio,
                                  c.ratio_ci, c.p_value, p_adj,
                                  _verdict(c.ratio, c.ratio_ci, p_adj, alpha, min_effect)))
    untested = [c.bytes for c in out if c.verdict == "untested"]
    if untested:
        notes.append(f"{len(untested)} size(s) have a single value in a run (an imported summary "
                     "prints one number per size): no test is possible there, only the ratio")
    return tuple(out), tuple(notes)


def _param(name: str, label: str, unit: str, va: float, ci_a: Any, vb: float, ci_b: Any,
           higher_is_worse: bool, confidence: float) -> ParameterComparison:
    ratio = vb / va if va > 0 and vb > 0 and math.isfinite(va) and math.isfinite(vb) else math.nan
    ci = p = None
    z = stats.norm.ppf(0.5 + confidence / 2)

    def se(v: float, pair: Any) -> float:
        if pair is None:
            return math.nan
        lo, hi = pair
        if not (v > 0 and lo > 0 and hi > lo and math.isfinite(hi)):
            return math.nan
        return (math.log(hi) - math.log(lo)) / (2 * z)

    s = math.hypot(se(va, ci_a), se(vb, ci_b))
    if math.isfinite(ratio) and math.isfinite(s) and s > 0:
        ci = (ratio * math.exp(-z * s), ratio * math.exp(z * s))
        p = float(2 * stats.norm.sf(abs(math.log(ratio)) / s))
    return ParameterComparison(name, label, unit, va, vb, ratio, ci, p, None, higher_is_worse,
                               "untested")


def compare_parameters(a: RunAnalysis, b: RunAnalysis, alpha: float = ALPHA,
                       min_effect: float = 0.0) -> tuple[ParameterComparison, ...]:
    """The model parameters of two analyses, Holm-corrected together."""
    conf = 1 - alpha
    la, lb = a.sweep.hockney.line, b.sweep.hockney.line
    ca, cb = a.sweep.characteristics, b.sweep.characteristics
    raw = [
        _param("alpha", "α latency", "s", la.alpha_s, la.alpha_ci_s, lb.alpha_s, lb.alpha_ci_s,
               True, conf),
        _param("beta", "β inverse bandwidth", "s/B", la.beta_s_per_byte, la.beta_ci_s_per_byte,
               lb.beta_s_per_byte, lb.beta_ci_s_per_byte, True, conf),
        _param("n_half", "n½ = α/β", "B", la.n_half_bytes, la.n_half_ci_bytes, lb.n_half_bytes,
               lb.n_half_ci_bytes, False, conf),
        _param("zero_byte_latency", "zero-byte latency", "s", ca.zero_byte_latency_s,
               ca.zero_byte_latency_ci_s, cb.zero_byte_latency_s, cb.zero_byte_latency_ci_s,
               True, conf),
        _param("asymptotic_bandwidth", "asymptotic bandwidth", "B/s",
               ca.asymptotic_bandwidth_bytes_per_s or math.nan,
               ca.asymptotic_bandwidth_ci_bytes_per_s,
               cb.asymptotic_bandwidth_bytes_per_s or math.nan,
               cb.asymptotic_bandwidth_ci_bytes_per_s, False, conf),
    ]
    # n½ is neither better nor worse when larger; it is reported, never gated.
    adjusted = holm([p.p_value for p in raw])
    out = []
    for c, p_adj in zip(raw, adjusted):
        verdict = _verdict(c.ratio, c.ratio_ci, p_adj, alpha, min_effect, c.higher_is_worse)
        if c.name == "n_half" and verdict in ("slower", "faster"):
            verdict = "larger" if c.ratio > 1 else "smaller"
        out.append(ParameterComparison(c.name, c.label, c.unit, c.value_a, c.value_b, c.ratio,
                                       c.ratio_ci, c.p_value, p_adj, c.higher_is_worse, verdict))
    return tuple(out)


# ---- runs ----------------------------------------------------------------------------------


def samples_by_size(run: Any, pattern: str, variant: str = "") -> dict[int, np.ndarray]:
    """Per-message samples of one series, pooled over launches and pairs, by size."""
    out: dict[int, list[np.ndarray]] = {}
    for m in run.measurements:
        if m.pattern == pattern and getattr(m, "variant", "") == variant:
            out.setdefault(int(m.bytes), []).append(np.asarray(m.per_message_s, dtype=np.float64))
    return {s: np.concatenate(v) for s, v in sorted(out.items())}


def compare_runs(run_a: Any, run_b: Any, pattern: str | None = None, variant: str | None = None,
                 alpha: float = ALPHA, min_effect: float = 0.0, label_a: str = "A",
                 label_b: str = "B") -> RunComparison:
    """Compare one series of two runs (the first series of A that B also has, unless named)."""
    series_a, series_b = series_of(run_a), series_of(run_b)
    if pattern is None:
        shared = [s for s in series_a if s in series_b]
        if not shared:
            raise AnalysisError(f"{label_a} and {label_b} have no pattern in common "
                                f"({', '.join(p for p, _ in series_a) or 'none'} vs "
                                f"{', '.join(p for p, _ in series_b) or 'none'})")
        pattern, variant = shared[0] if variant is None else (shared[0][0], variant)
    if variant is None:
        variant = next((v for p, v in series_a if p == pattern), "")
    for label, series in ((label_a, series_a), (label_b, series_b)):
        if (pattern, variant) not in series:
            raise AnalysisError(f"{label}: no measurements of pattern {pattern!r}"
                                + (f" variant {variant!r}" if variant else ""))
    sizes, notes = compare_size_samples(samples_by_size(run_a, pattern, variant),
                                        samples_by_size(run_b, pattern, variant), alpha, min_effect)
    params: tuple[ParameterComparison, ...] = ()
    try:
        params = compare_parameters(analyze_run(run_a, pattern, variant=variant),
                                    analyze_run(run_b, pattern, variant=variant), alpha, min_effect)
    except AnalysisError as exc:
        notes = notes + (f"model parameters not compared: {exc}",)
    name = f"{pattern} [{variant}]" if variant else pattern
    return RunComparison(label_a, label_b, name, alpha, min_effect, sizes, params, notes)


def comparison_to_dict(c: RunComparison) -> dict[str, Any]:
    """Plain JSON-able form (``msgperf compare --json``); NaN and inf become None."""
    def num(x: Any) -> Any:
        if x is None:
            return None
        if isinstance(x, tuple):
            return [num(v) for v in x]
        return float(x) if math.isfinite(x) else None

    return {
        "a": c.label_a, "b": c.label_b, "series": c.series, "alpha": c.alpha,
        "min_effect": c.min_effect,
        "method": {"sizes": "ratio of medians, Price-Bonett interval; Mann-Whitney U two-sided; "
                            "Holm across sizes",
                   "parameters": "ratio of fitted parameters, log-normal interval from the fits' "
                                 "intervals; Wald test; Holm across parameters"},
        "worst_significant_slowdown": num(c.worst_slowdown()),
        "sizes": [{"bytes": s.bytes, "n_a": s.n_a, "n_b": s.n_b, "median_a_s": num(s.median_a_s),
                   "median_b_s": num(s.median_b_s), "ratio": num(s.ratio),
                   "ratio_ci": num(s.ratio_ci), "p_value": num(s.p_value),
                   "p_adjusted": num(s.p_adjusted), "verdict": s.verdict} for s in c.sizes],
        "parameters": [{"name": p.name, "label": p.label, "unit": p.unit, "a": num(p.value_a),
                        "b": num(p.value_b), "ratio": num(p.ratio), "ratio_ci": num(p.ratio_ci),
                        "p_value": num(p.p_value), "p_adjusted": num(p.p_adjusted),
                        "verdict": p.verdict} for p in c.parameters],
        "notes": list(c.notes),
    }
