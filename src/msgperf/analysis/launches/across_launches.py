"""How well a value is known when the launch, not the sample, is the unit of variation.

Samples inside one MPI launch share its placement, page layout, clock frequency and neighbours;
a second launch of the same command draws all of those anew, and moves a size's median by
several percent where the median's own interval is a fraction of a percent. So with several
launches a value (a size's median, a fitted α, β or n½) is estimated from the launches' own
estimates, by a random-effects model on the log scale (times are positive and their spread is
relative):

    y_i = log(estimate of launch i) = μ + b_i + e_i,   b_i ~ N(0, τ²),  e_i ~ N(0, s_i²)

with s_i the launch's own standard error (read off its interval) and τ² the between-launch
variance, estimated by DerSimonian & Laird's method of moments (Controlled Clinical Trials 7,
1986). The interval of μ is Hartung & Knapp's (Statistics in Medicine 20, 2001; Sidik &
Jonkman, same journal 21, 2002): the weighted spread of the launches about μ̂ with Student-t on
L − 1 degrees of freedom, which keeps its coverage with few launches where the normal
DerSimonian-Laird interval does not (IntHout, Ioannidis & Borm, BMC Med. Res. Methodol. 14:25,
2014). Its variance is never taken below the fixed-effect one (the "modified" form, Röver,
Knapp & Friede, BMC Med. Res. Methodol. 15:99, 2015), so an interval across launches is never
narrower than what the launches' own intervals allow.

With two or three launches the t quantile (12.7 and 4.3) makes the interval wide: that is what
two or three launches can say about the next one. A launch-level bootstrap was not chosen: with
three launches it has ten distinct resamples and its percentile interval cannot reach past the
extreme launches, far below its nominal coverage.

Written by hand (a dozen lines of arithmetic) rather than through statsmodels'
``combine_effects``, which would make pandas and patsy dependencies of every install.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from msgperf.analysis.samples import stats
from msgperf.values import Value


WITHIN_ONE_LAUNCH = "within one launch"
ONE_VALUE = "1 value"
RUN_TO_RUN_UNKNOWN = ("run-to-run spread unknown: one launch; measure it with "
                      "msgperf run --repeat 3 (same options)")
METHOD_ORDER_STATISTICS = "median's order-statistic interval (Conover §3.2)"
METHOD_RANDOM_EFFECTS = "random effects over launches, Hartung-Knapp t interval"


def across(launches: int) -> str:
    """What an interval over ``launches`` launches covers, in words."""
    return f"across {launches} launches"


class Interval(Value):
    """A value with the interval that says how well it is known, and what that covers.

    ``covers`` is "within one launch" (the launch's own samples: a re-run may land outside),
    "across N launches" (the spread between N launches included) or "1 value" (an imported
    number without samples: no interval at all, ``low``/``high`` None)."""

    value: float
    low: float | None
    high: float | None
    covers: str
    launches: int
    confidence: float
    method: str
    rel_se: float | None = None  # standard error of log(value): relative standard uncertainty
    df: int | None = None  # degrees of freedom of that standard error (None: normal/order stats)
    caveat: str | None = None  # what the interval leaves out, with the command that measures it

    @property
    def halfwidth_rel(self) -> float | None:
        """Half the interval's width relative to the value (the "±" of a table); None when
        there is no interval (a single value), never 0 for want of one."""
        if self.low is None or self.high is None or not self.value > 0:
            return None
        return (self.high - self.low) / (2 * self.value)


class RandomEffects(Value):
    """The random-effects estimate of μ on the log scale."""

    mean: float  # μ̂ (log)
    se: float  # Hartung-Knapp standard error of μ̂ (modified: never below the fixed-effect one)
    df: int  # L - 1
    tau2: float  # between-launch variance of the log estimates (DerSimonian-Laird)
    launches: int

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        t = float(stats.t.ppf(0.5 + confidence / 2, self.df))
        return self.mean - t * self.se, self.mean + t * self.se


def log_se_from_interval(value: float, low: float, high: float, confidence: float = 0.95) -> float:
    """Standard error of log(value) read off a two-sided interval (Price & Bonett 2002 for the
    median's order-statistic interval); NaN when the interval cannot give one."""
    if not (value > 0 and low > 0 and high >= low and math.isfinite(high)):
        return math.nan
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    return (math.log(high) - math.log(low)) / (2 * z)


def random_effects(log_values: Sequence[float], ses: Sequence[float] | None = None
                   ) -> RandomEffects:
    """DerSimonian-Laird τ², Hartung-Knapp (modified) standard error of the weighted mean.

    ``ses``: each launch's own standard error of its log value; None or NaN entries (a launch
    without samples) count as 0, so the spread between launches carries the interval alone."""
    y = np.asarray(log_values, dtype=np.float64)
    k = y.size
    if k < 2:
        raise ValueError("a random-effects estimate needs at least two launches")
    s2 = np.zeros(k) if ses is None else np.nan_to_num(np.asarray(ses, np.float64) ** 2, nan=0.0)
    if np.all(s2 > 0):
        w = 1.0 / s2
        fixed = float(np.sum(w * y) / np.sum(w))
        q = float(np.sum(w * (y - fixed) ** 2))
        c = float(np.sum(w) - np.sum(w * w) / np.sum(w))
        tau2 = max(0.0, (q - (k - 1)) / c)
    else:  # some launch without its own error: the launches' spread is all there is
        tau2 = float(np.var(y, ddof=1))
    total = s2 + tau2
    if np.all(total == 0):  # identical values and no own error: nothing varies
        return RandomEffects(float(np.mean(y)), 0.0, k - 1, 0.0, k)
    w = 1.0 / np.where(total > 0, total, np.min(total[total > 0]))
    mean = float(np.sum(w * y) / np.sum(w))
    hk = float(np.sum(w * (y - mean) ** 2) / (k - 1))
    se = math.sqrt(max(hk, 1.0) / float(np.sum(w)))
    return RandomEffects(mean, se, k - 1, tau2, k)


def interval_of_launches(values: Sequence[float], ses: Sequence[float] | None = None,
                         confidence: float = 0.95) -> Interval:
    """The interval of a positive value estimated by several launches (each launch's value and
    the standard error of its log), covering the spread between them."""
    v = np.asarray(values, dtype=np.float64)
    if v.size < 2 or np.any(~(v > 0)) or np.any(~np.isfinite(v)):
        raise ValueError("needs two or more positive, finite launch values")
    fit = random_effects(np.log(v), ses)
    lo, hi = fit.interval(confidence)
    return Interval(value=math.exp(fit.mean), low=math.exp(lo), high=math.exp(hi),
                    covers=across(fit.launches), launches=fit.launches, confidence=confidence,
                    method=METHOD_RANDOM_EFFECTS, rel_se=fit.se, df=fit.df)


def interval_within_launch(value: float, low: float | None, high: float | None, n: int,
                           confidence: float = 0.95) -> Interval:
    """The interval of one launch's value: its own (order-statistic) interval, labelled so;
    a single value (n = 1) gets none."""
    if n <= 1 or low is None or high is None:
        return Interval(value, None, None, ONE_VALUE, 1, confidence, "none: one value, no samples")
    se = log_se_from_interval(value, low, high, confidence)
    return Interval(value, low, high, WITHIN_ONE_LAUNCH, 1, confidence, METHOD_ORDER_STATISTICS,
                    rel_se=se if math.isfinite(se) else None, caveat=RUN_TO_RUN_UNKNOWN)


def parameter_across_launches(estimates: Sequence[tuple[float, tuple[float, float] | None]],
                              confidence: float = 0.95) -> Interval | None:
    """A fitted parameter (α, β, n½) from each launch's own fit, (value, interval) per launch,
    combined across launches; None when fewer than two launches give a positive finite value."""
    good = [(v, ci) for v, ci in estimates if v is not None and math.isfinite(v) and v > 0]
    if len(good) < 2:
        return None
    ses = [log_se_from_interval(v, ci[0], ci[1], confidence) if ci else math.nan for v, ci in good]
    return interval_of_launches([v for v, _ in good], ses, confidence)
