"""Comparing runs: is B slower or faster than A, size by size and parameter by parameter, and is
the difference larger than what re-running the same configuration produces? Pure functions; no
I/O, no printing. The method, its references and its measured error rates: docs/statistics.md.

The unit of variation is the launch, not the sample. Samples within one MPI launch are not
independent evidence about the next launch (placement, page layout, frequency and neighbours
are drawn once per launch), so testing samples against samples finds two identical runs
"significantly" different (p down to 1e-185 at a 5 % between-launch spread).

Per size, each run's value is the geometric mean of its launch medians (one launch: its
median), y = mean(log launch medians). The difference d = y_B − y_A is judged against the
variance of that difference when nothing changed, Var(y_A) + Var(y_B), each from the noise
floor (``noise_floor``): the spread between the launches of the compared runs themselves
(``--repeat``) and, from the store, between launches and between runs of the same
configuration. The interval of the ratio exp(d) and the two-sided p-value use Student-t on the
Satterthwaite degrees of freedom of that variance; Holm's step-down correction (Holm 1979) keeps
the chance of calling any size of a comparison slower or faster, when nothing changed, at or
below ``alpha``.

When neither run repeats its launch and no stored run of the configuration exists, the
run-to-run spread is unknown: an assumed spread (``ASSUMED_RERUN_SD``, 10 % per run, above the
5-9 % measured between launches on a loaded 2-core machine) lets a gross change still be called,
and everything smaller is "cannot tell", never "within noise". A size with a single value in a
run (imported OSU, IMB, NetPIPE summaries) is compared by value only: "untested".

Per model parameter (α, β, n½, zero-byte latency, asymptotic bandwidth): with two or more
launches in each run, each launch's own fit is the unit (Welch's t on the log values); with one
launch the fits' intervals cover one launch only, so the ratio is shown and the verdict is
"cannot tell".

``gate`` turns a comparison into the three outcomes of ``--fail-above P``: "fail" when some size
is significantly slower and by more than P; "pass" when every size's interval stays at or below
+P; otherwise "cannot tell", with the reason.

A "cannot tell" says what would tell (``launches_needed``): from the between-launch spread the
test used, the launches per side at which the same interval (t on the Satterthwaite df those
launches give, at the same alpha) is narrower than the threshold asked for (``--fail-above``,
or ``min_effect``); more than ``MAX_LAUNCHES``, or "cannot tell how many" when one launch per
side measured no spread.
"""

from __future__ import annotations

import math
from collections import abc
from typing import Any, Mapping, Sequence

import msgspec
import numpy as np

from msgperf import units
from msgperf.analysis.samples import AnalysisError, stats
from msgperf.analysis.tables import MachineDiff, machine_diff, run_machine, time_launches
from msgperf.analysis.answer import disturbed_terms
from msgperf.analysis.launches import (NoiseFloor, VarianceTerm, configuration, crowded_launches, launch_medians,
                                       noise_floor, run_conditions, satterthwaite)
from msgperf.analysis.model import SeriesAnalysis, analyze_series, series_of
from msgperf.records.pattern_names import REPRODUCED
from msgperf.values import Value

ALPHA = 0.05
ASSUMED_RERUN_SD = 0.10  # relative sd of one run when nothing measured it (see the docstring)
MAX_LAUNCHES = 50  # launches per side beyond which "more than" is said: hours of a default run

# Each side's value per launch. msgperf's own runs: the median. Beside an imported summary, which
# printed one statistic per size (OSU's and IMB's mean, NetPIPE's minimum), msgperf's side gives
# the same statistic of its samples, so that like is compared with like; an OSU output with
# percentiles (-z) gives its P50, a median like msgperf's.
STATISTICS = {"median": np.median, "mean": np.mean, "min": np.min}
_PRINTED = {"mean": "the mean the tool printed", "min": "the minimum the tool printed",
            "p50": "the P50 (median) the tool printed"}

SLOWER, FASTER, WITHIN_NOISE = "slower", "faster", "within noise"
UNTESTED, CANNOT_TELL = "untested", "cannot tell"
PASS, FAIL = "pass", "fail"


class LaunchesNeeded(Value):
    """How many launches per side would resolve a slowdown of ``threshold``: the smallest n at
    which the ratio's interval half-width on the log scale, t(1 − alpha/2, df at n) · sqrt(Var
    at n), is below log(1 + threshold), Var at n being the noise floor of n launches a side
    (the measured between-launch variance / n, plus any run-to-run part, which does not shrink)."""

    threshold: float  # the slowdown to resolve, a fraction (0.1 = 10 %)
    launches: int | None  # per side; None: more than MAX_LAUNCHES, or no spread to tell from
    reason: str  # "" when ``launches`` is a count; else why there is no count
    already: bool = False  # the launches compared already give that width (the ratio lies near
    # the threshold, not the spread too wide)
    more_than: int | None = None  # MAX_LAUNCHES when even that many would not resolve it

    @property
    def words(self) -> str:
        pct = f"{100 * self.threshold:g} %"
        if self.launches is None:
            return self.reason
        if self.already:
            return (f"the launch spread already resolves a {pct} slowdown with {self.launches} "
                    "launches per side; the ratio itself lies near the threshold")
        return (f"about {self.launches} launches per side would resolve a {pct} slowdown: "
                f"msgperf run --repeat {self.launches}")


class SizeComparison(Value):
    bytes: int
    n_a: int  # samples behind A's value (all launches)
    n_b: int
    value_a_s: float  # A's value: geometric mean of its launch medians (one launch: its median), or
    # of its launch means or minima beside a summary that printed those (RunComparison.statistic)
    value_b_s: float
    ratio: float  # B / A: above 1, B is slower
    ratio_ci: tuple[float, float] | None  # None when untested
    p_value: float | None  # two-sided, launch-level t test; None when untested
    p_adjusted: float | None  # Holm across the sizes
    verdict: str  # "slower", "faster", "within noise", "cannot tell", "untested"
    launches_a: int = 1
    launches_b: int = 1
    covers: str = ""  # what the ratio's interval covers, in words
    basis: str = ""  # the same, short: "3+3 launches, 5 runs", "assumed 10 %", "1 value"
    df: float | None = None  # degrees of freedom of the interval (inf: assumed, normal)
    assumed: bool = False  # the run-to-run spread was assumed, not measured
    floor_a: NoiseFloor | None = None  # the noise floor the test used (None: untested)
    floor_b: NoiseFloor | None = None  # B's own floor; None when B shares A's configuration
    launches_needed: LaunchesNeeded | None = None  # set when the verdict is "cannot tell", for
    # the comparison's min_effect (the gate's threshold: SizeGate.launches_needed)
    disturbed: str = ""  # why it cannot tell whatever the samples say: "B: launch 2 beside other work"

    @property
    def significant(self) -> bool:
        return self.verdict in (SLOWER, FASTER)

    @property
    def slowdown(self) -> float:
        """How much slower B is, as a fraction (0.2 = 20 % slower; negative when faster)."""
        return self.ratio - 1.0

    @property
    def halfwidth_rel(self) -> float | None:
        """Half the width of the ratio's interval relative to the ratio (None: untested)."""
        if self.ratio_ci is None or not self.ratio > 0:
            return None
        return (self.ratio_ci[1] - self.ratio_ci[0]) / (2 * self.ratio)


class ParameterComparison(Value):
    name: str  # "alpha", "beta", "n_half", "zero_byte_latency", "asymptotic_bandwidth"
    label: str  # for people: "α latency"
    unit: str  # "s", "s/B", "B/s", "B"
    value_a: float
    value_b: float
    ratio: float  # B / A
    ratio_ci: tuple[float, float] | None
    p_value: float | None
    p_adjusted: float | None
    higher_is_worse: bool  # times: True; bandwidths: False
    verdict: str  # "slower", "faster", "within noise", "cannot tell", "larger", "smaller"
    covers: str = ""
    # why A's or B's value is not given: the answer cannot tell it (measured while disturbed)
    why_not_a: str = ""
    why_not_b: str = ""

    @property
    def significant(self) -> bool:
        return self.verdict in (SLOWER, FASTER)

    @property
    def slowdown(self) -> float:
        """How much slower B is by this parameter (a bandwidth that halves is 100 % slower)."""
        if not (self.ratio > 0 and math.isfinite(self.ratio)):
            return math.nan
        return (self.ratio if self.higher_is_worse else 1.0 / self.ratio) - 1.0


class RunComparison(Value):
    label_a: str
    label_b: str
    series: str  # the pattern (and variant) compared
    alpha: float
    min_effect: float
    sizes: tuple[SizeComparison, ...]
    parameters: tuple[ParameterComparison, ...]
    notes: tuple[str, ...]  # what could not be tested, and why
    history_runs: int = 0  # stored runs of the configuration behind the noise floor
    machines: MachineDiff | None = None  # how the two runs' recorded machines differ
    statistic: str = "median"  # what each launch of a side with samples gives (STATISTICS)
    side_a: str = "the geometric mean of its launch medians"  # what A's value is, in words
    side_b: str = "the geometric mean of its launch medians"

    @property
    def tested(self) -> bool:
        return any(s.verdict not in (UNTESTED, CANNOT_TELL) for s in self.sizes)

    def worst_slowdown(self) -> float:
        """The largest significant slowdown (sizes and parameters), 0 when there is none."""
        found = [c.slowdown for c in (*self.sizes, *self.parameters)
                 if c.verdict == SLOWER and math.isfinite(c.slowdown)]
        return max(found, default=0.0)

    def slowdowns_above(self, fraction: float) -> list[str]:
        """Sizes significantly slower by more than ``fraction``."""
        return [f"{s.bytes} B: {100 * s.slowdown:+.1f} %" for s in self.sizes
                if s.verdict == SLOWER and s.slowdown > fraction]


class SizeGate(Value):
    bytes: int
    outcome: str  # "pass", "fail", "cannot tell"
    reason: str  # why, in a few words ("" for a pass)
    launches_needed: LaunchesNeeded | None = None  # a "cannot tell" with samples: what would tell


class Gate(Value):
    """What ``--fail-above`` decides: "fail" (data show a slowdown above the threshold), "pass"
    (data show none), "cannot tell" (with a one-line reason)."""

    fail_above: float  # the threshold as a fraction (0.05 = 5 %)
    outcome: str
    reason: str
    sizes: tuple[SizeGate, ...]
    launches_needed: LaunchesNeeded | None = None  # "cannot tell": what would tell every size


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


def _t_test(d: float, variance: float, df: float, confidence: float
            ) -> tuple[tuple[float, float], float]:
    """(interval of exp(d), two-sided p) for a log difference d with this variance and df."""
    se = math.sqrt(variance)
    dist = stats.norm if not math.isfinite(df) else stats.t(df)
    q = float(dist.ppf(0.5 + confidence / 2))
    if se == 0:
        return (math.exp(d), math.exp(d)), (1.0 if d == 0 else 0.0)
    return (math.exp(d - q * se), math.exp(d + q * se)), float(2 * dist.sf(abs(d) / se))


def _own_df(launches: int) -> int:
    return max(0, launches - 1)


def _terms_at(floor: NoiseFloor, n: int, sides: int, own_df: int, tag: str = ""
              ) -> tuple[VarianceTerm, ...]:
    """The floor's terms for ``n`` launches on each of ``sides`` sides, the launch variance's df
    those launches would give (the compared runs' own launches replaced by n each)."""
    df = floor.df_within - own_df + sides * (n - 1)
    return tuple(msgspec.structs.replace(t, source=tag + t.source,
                                         df=df if t.source == "launches" else t.df)
                 for t in floor.terms(n) * sides)


def launches_needed(s: SizeComparison, threshold: float, alpha: float) -> LaunchesNeeded:
    """The launches per side that would resolve a slowdown of ``threshold`` at this size (see
    ``LaunchesNeeded``), from the between-launch spread of the floor the test used."""
    floors = [f for f in (s.floor_a, s.floor_b) if f is not None]
    if not floors or any(f.within_var is None for f in floors):
        return LaunchesNeeded(threshold, None, "cannot tell how many: one launch per side "
                              "measures no spread")
    if not (threshold > 0 and math.isfinite(threshold)):
        return LaunchesNeeded(threshold, None, "cannot tell how many: no slowdown threshold "
                              "asked for (--fail-above or --min-effect)")
    target = math.log1p(threshold)
    for n in range(2, MAX_LAUNCHES + 1):
        if s.floor_b is None:
            terms = _terms_at(s.floor_a, n, 2, _own_df(s.launches_a) + _own_df(s.launches_b))
        else:
            terms = (_terms_at(s.floor_a, n, 1, _own_df(s.launches_a), "a:")
                     + _terms_at(s.floor_b, n, 1, _own_df(s.launches_b), "b:"))
        variance, df = satterthwaite(terms)
        dist = stats.norm if not math.isfinite(df) else stats.t(df)
        if float(dist.ppf(1 - alpha / 2)) * math.sqrt(variance) < target:
            return LaunchesNeeded(threshold, n, "", n <= min(s.launches_a, s.launches_b))
    return LaunchesNeeded(threshold, None, f"more than {MAX_LAUNCHES} launches per side would be "
                          f"needed to resolve a {100 * threshold:g} % slowdown: the spread is too "
                          "wide (a quieter machine, or a larger threshold)", more_than=MAX_LAUNCHES)


def _side_terms(floor: NoiseFloor, launches: int, tag: str) -> tuple[VarianceTerm, ...]:
    return tuple(msgspec.structs.replace(t, source=tag + t.source) for t in floor.terms(launches))


def _basis(la: int, lb: int, floors: Sequence[NoiseFloor], assumed: bool) -> tuple[str, str]:
    """(covers, basis): what the interval of a size's ratio covers, long and short."""
    if assumed:
        return (f"an assumed run-to-run spread of {100 * ASSUMED_RERUN_SD:.0f} % per run "
                "(no repeated launches, no stored run of this configuration)",
                f"assumed {100 * ASSUMED_RERUN_SD:.0f} %")
    runs = max(f.runs for f in floors)
    launches = f"{la}+{lb} launches"
    if runs >= 2:  # how many stored runs is the basis column's: the words stay one sentence for every size
        return ("re-runs: between launches and between the stored runs of this configuration",
                f"{launches}, {runs} runs")
    return ("between launches within each run; run-to-run drift not measured (no stored history "
            "of this configuration)", launches)


def compare_size(size: int, a: Sequence[np.ndarray], b: Sequence[np.ndarray],
                 floor_a: NoiseFloor, floor_b: NoiseFloor | None = None,
                 confidence: float = 0.95, statistic: str = "median") -> SizeComparison:
    """One size from the per-message samples of each launch of A and of B; ``floor_b`` None
    when B has A's configuration (one floor, shared). Verdict provisional (Holm comes later).
    ``statistic``: each launch's value ("median"; "mean" or "min" beside an imported summary that
    printed that statistic: a single value is its own median, mean and minimum)."""
    reduce = STATISTICS[statistic]
    a = [np.asarray(x, dtype=np.float64) for x in a if np.size(x)]
    b = [np.asarray(x, dtype=np.float64) for x in b if np.size(x)]
    if not a or not b:
        raise AnalysisError(f"{size} B: no samples to compare")
    na, nb = sum(x.size for x in a), sum(x.size for x in b)
    ya = np.log([reduce(x) for x in a if x.size > 1] or [reduce(np.concatenate(a))])
    yb = np.log([reduce(x) for x in b if x.size > 1] or [reduce(np.concatenate(b))])
    va, vb = float(np.exp(ya.mean())), float(np.exp(yb.mean()))
    ratio = vb / va if va > 0 else math.nan
    single = all(x.size <= 1 for x in a) or all(x.size <= 1 for x in b)
    la = sum(x.size > 1 for x in a) or 1
    lb = sum(x.size > 1 for x in b) or 1
    if single or not (math.isfinite(ratio) and ratio > 0):
        return SizeComparison(size, na, nb, va, vb, ratio, None, None, None, UNTESTED, la, lb,
                              "1 value per size in a run (an imported summary): compared by value",
                              "1 value")
    if floor_b is None:
        terms = floor_a.terms(la) + floor_a.terms(lb)
        floors = [floor_a]
        known = bool(terms)
    else:
        ta, tb = _side_terms(floor_a, la, "a:"), _side_terms(floor_b, lb, "b:")
        floors = [floor_a, floor_b]
        known = bool(ta) and bool(tb)
        terms = ta + tb
    if known:
        variance, df = satterthwaite(terms)
    else:
        variance, df = 2 * ASSUMED_RERUN_SD ** 2, math.inf
    ci, p = _t_test(float(yb.mean() - ya.mean()), variance, df, confidence)
    covers, basis = _basis(la, lb, floors, not known)
    return SizeComparison(size, na, nb, va, vb, ratio, ci, p, None, WITHIN_NOISE, la, lb,
                          covers, basis, df, not known, floor_a, floor_b)


def _verdict(ratio: float, ci: tuple[float, float] | None, p_adj: float | None, alpha: float,
             min_effect: float, higher_is_worse: bool = True, assumed: bool = False) -> str:
    if p_adj is None:
        return UNTESTED
    if ci is not None and not ci[0] <= 1.0 <= ci[1] and abs(ratio - 1.0) > min_effect and p_adj >= alpha:
        return CANNOT_TELL  # its own interval leaves out 1, but not after Holm's correction across the sizes
    if p_adj >= alpha or ci is None or ci[0] <= 1.0 <= ci[1] or abs(ratio - 1.0) <= min_effect:
        return CANNOT_TELL if assumed else WITHIN_NOISE
    worse = ratio > 1.0 if higher_is_worse else ratio < 1.0
    return SLOWER if worse else FASTER


_NO_HISTORY = "no stored runs of this configuration"


def compare_launch_samples(a: Mapping[int, Sequence[np.ndarray]],
                           b: Mapping[int, Sequence[np.ndarray]], alpha: float = ALPHA,
                           min_effect: float = 0.0,
                           history_a: Sequence[Mapping[int, Sequence[float]]] = (),
                           history_b: Sequence[Mapping[int, Sequence[float]]] | None = None,
                           statistic: str = "median"
                           ) -> tuple[tuple[SizeComparison, ...], tuple[str, ...]]:
    """Every size both runs have, Holm-corrected together; plus notes.

    ``a``, ``b``: size → the per-message samples of each launch. ``history_a``: stored runs of
    A's configuration, each size → its launch medians; ``history_b`` the same for B, or None
    when B has A's configuration (then A's and B's launches share one floor)."""
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

    def medians(launches: Sequence[np.ndarray]) -> list[float]:
        return [float(np.median(x)) for x in launches if np.size(x) > 1]

    raw = []
    for s in common:
        own_a, own_b = medians(a[s]), medians(b[s])
        hist_a = [h[s] for h in history_a if s in h]
        if history_b is None:
            fa, fb = noise_floor(s, hist_a, [own_a, own_b]), None
        else:
            fa = noise_floor(s, hist_a, [own_a])
            fb = noise_floor(s, [h[s] for h in history_b if s in h], [own_b])
        raw.append(compare_size(s, a[s], b[s], fa, fb, 1 - alpha, statistic))
    adjusted = holm([c.p_value for c in raw])
    out = tuple(msgspec.structs.replace(
        c, p_adjusted=p_adj,
        verdict=_verdict(c.ratio, c.ratio_ci, p_adj, alpha, min_effect, assumed=c.assumed))
        for c, p_adj in zip(raw, adjusted))
    out = tuple(msgspec.structs.replace(c, launches_needed=launches_needed(c, min_effect, alpha))
                if c.verdict == CANNOT_TELL else c for c in out)
    untested = [c.bytes for c in out if c.verdict == UNTESTED]
    if untested:
        notes.append(f"{len(untested)} size(s) have a single value in a run (an imported summary "
                     "prints one number per size): compared by value only, no test")
    assumed = [c for c in out if c.assumed]
    if assumed:
        which = ("every size" if len(assumed) == len(out) else
                 f"{len(assumed)} of the {len(out)} sizes (e.g. {units.size(assumed[0].bytes)})")
        notes.append(f"{which}: one launch in each run and no stored run of this configuration measured it, "
                     "so its run-to-run spread is unknown and only a change beyond an assumed "
                     f"{100 * ASSUMED_RERUN_SD:.0f} % spread can be called; measure it with "
                     "msgperf run --repeat 3 (same options)")
    if any(c.verdict != UNTESTED and not c.assumed and "stored runs" not in c.covers for c in out):
        notes.append(f"{_NO_HISTORY}: the noise floor is the spread between "
                     "launches within each run, so a drift of the machine between the two runs "
                     "counts as a change (history builds up as runs are stored)")
    split = [c for c in out if c.verdict == CANNOT_TELL and not c.assumed]
    if split:
        notes.append(f"{len(split)} size(s) whose own interval leaves out 1 are not significant after Holm's "
                     f"correction across the {len(out)} sizes compared: cannot tell (e.g. "
                     f"{units.size(split[0].bytes)}); more launches (msgperf run --repeat 3) might tell")
    return out, tuple(notes)


# ---- model parameters ------------------------------------------------------------------------

_PARAMETERS = (  # name, label, unit, where (line or characteristics), value, interval, worse-if-higher
    ("alpha", "α latency", "s", "line", "alpha_s", "alpha_ci_s", True),
    ("beta", "β inverse bandwidth", "s/B", "line", "beta_s_per_byte", "beta_ci_s_per_byte", True),
    ("n_half", "n½ = α/β", "B", "char", "n_half_bytes", "n_half_ci_bytes", False),  # the answer's rule
    ("zero_byte_latency", "zero-byte latency", "s", "char", "zero_byte_latency_s",
     "zero_byte_latency_ci_s", True),
    ("asymptotic_bandwidth", "asymptotic bandwidth", "B/s", "char",
     "asymptotic_bandwidth_bytes_per_s", "asymptotic_bandwidth_ci_bytes_per_s", False),
)


def _value(sweep: Any, where: str, attr: str) -> Any:
    return getattr(sweep.hockney.line if where == "line" else sweep.characteristics, attr)


def _positive(values: Sequence[Any]) -> np.ndarray:
    return np.array([v for v in values if v is not None and math.isfinite(v) and v > 0], float)


def compare_parameters(a: SeriesAnalysis, b: SeriesAnalysis, alpha: float = ALPHA,
                       min_effect: float = 0.0,
                       withheld: tuple[Mapping[str, str], Mapping[str, str]] = ({}, {})
                       ) -> tuple[ParameterComparison, ...]:
    """The model parameters of two analyses, Holm-corrected together. Launch-level (each
    launch's own fit) when both have two or more launches; otherwise not testable. ``withheld``:
    A's and B's terms their answers cannot tell (answer.disturbed_terms): not given, "cannot tell"."""
    conf = 1 - alpha
    raw = []
    for name, label, unit, where, attr, ci_attr, worse in _PARAMETERS:
        why_a, why_b = withheld[0].get(name, ""), withheld[1].get(name, "")
        va, vb = _value(a.sweep, where, attr), _value(b.sweep, where, attr)
        va = math.nan if va is None or why_a else float(va)
        vb = math.nan if vb is None or why_b else float(vb)
        if why_a or why_b:
            raw.append(ParameterComparison(name, label, unit, va, vb, math.nan, None, None, None, worse,
                                           CANNOT_TELL, "a value the run's answer cannot tell", why_a, why_b))
            continue
        ratio = vb / va if va > 0 and vb > 0 and math.isfinite(va) and math.isfinite(vb) else math.nan
        ya = np.log(_positive([_value(m.sweep, where, attr) for m in a.per_launch]))
        yb = np.log(_positive([_value(m.sweep, where, attr) for m in b.per_launch]))
        ci = p = None
        if ya.size >= 2 and yb.size >= 2 and math.isfinite(ratio):
            terms = (VarianceTerm("a", 1 / ya.size, float(np.var(ya, ddof=1)), ya.size - 1),
                     VarianceTerm("b", 1 / yb.size, float(np.var(yb, ddof=1)), yb.size - 1))
            variance, df = satterthwaite(terms)
            ci, p = _t_test(math.log(ratio), variance, df, conf)
            covers = f"each launch's own fit ({ya.size}+{yb.size} launches)"
        else:
            ca, cb = _value(a.sweep, where, ci_attr), _value(b.sweep, where, ci_attr)
            ci = _fit_ratio_interval(va, ca, vb, cb, conf)
            covers = "the fits' intervals, within one launch: run-to-run spread unknown"
        raw.append(ParameterComparison(name, label, unit, va, vb, ratio, ci, p, None, worse,
                                       CANNOT_TELL, covers))
    adjusted = holm([c.p_value for c in raw])
    out = []
    for c, p_adj in zip(raw, adjusted):
        verdict = CANNOT_TELL
        if p_adj is not None:
            verdict = _verdict(c.ratio, c.ratio_ci, p_adj, alpha, min_effect, c.higher_is_worse)
            if c.name == "n_half" and verdict in (SLOWER, FASTER):  # neither better nor worse
                verdict = "larger" if c.ratio > 1 else "smaller"
        out.append(msgspec.structs.replace(c, p_adjusted=p_adj, verdict=verdict))
    return tuple(out)


def _fit_ratio_interval(va: float, ci_a: Any, vb: float, ci_b: Any, confidence: float
                        ) -> tuple[float, float] | None:
    """Ratio interval from the two fits' intervals on the log scale (within one launch)."""
    z = float(stats.norm.ppf(0.5 + confidence / 2))

    def se(v: float, pair: Any) -> float:
        if pair is None:
            return math.nan
        lo, hi = pair
        if not (v > 0 and lo > 0 and hi > lo and math.isfinite(hi)):
            return math.nan
        return (math.log(hi) - math.log(lo)) / (2 * z)

    s = math.hypot(se(va, ci_a), se(vb, ci_b))
    if not (va > 0 and vb > 0 and math.isfinite(s)):
        return None
    r = vb / va
    return r * math.exp(-z * s), r * math.exp(z * s)


# ---- runs ----------------------------------------------------------------------------------


def launch_samples(run: Any, pattern: str, variant: str = "") -> Mapping[int, tuple[np.ndarray, ...]]:
    """Per size, the per-message samples of each launch of one series (launch order) whose samples
    are the size's time in show's table (``time_launches``: not a refinement launch's anchors, not
    a launch set aside as disturbed; a tester's compare read 169 µs at 2 MiB where show read 158).
    A run whose samples wait on disk (a large run file) gives a size's samples when that size is
    compared."""
    grouped: dict[int, dict[int, list[Any]]] = {}
    timed = time_launches(run) if getattr(run, "launches", ()) else None  # (an import: every value)
    for m in run.measurements:
        if m.pattern == pattern and getattr(m, "variant", "") == variant and (
                timed is None or m.launch in timed[(m.pattern, m.buffer, m.ranks, m.variant)].get(m.bytes, ())):
            grouped.setdefault(int(m.bytes), {}).setdefault(m.launch, []).append(m)
    by_size = {s: [v for _, v in sorted(by.items())] for s, by in sorted(grouped.items())}
    if any(getattr(m, "spilled", False) for m in run.measurements):
        return _SamplesWhenAsked(by_size)
    return {s: _joined(launches) for s, launches in by_size.items()}


def _joined(launches: Sequence[Sequence[Any]]) -> tuple[np.ndarray, ...]:
    return tuple(np.concatenate([np.asarray(m.per_message_s, dtype=np.float64) for m in ms]) for ms in launches)


class _SamplesWhenAsked(abc.Mapping):
    """``launch_samples`` of a run whose samples wait on disk: each size read when it is asked for."""

    def __init__(self, by_size: dict[int, list[list[Any]]]) -> None:
        self._by_size = by_size

    def __getitem__(self, size: int) -> tuple[np.ndarray, ...]:
        return _joined(self._by_size[size])

    def __iter__(self):
        return iter(self._by_size)

    def __len__(self) -> int:
        return len(self._by_size)


def _history(history: Sequence[Any], key: tuple, pattern: str, variant: str,
             exclude: Sequence[Any]) -> tuple[list[dict[int, tuple[float, ...]]], int]:
    """Launch medians of the stored runs with this configuration, the compared runs left out,
    and how many of their launches were left out as crowded (oversubscribed, or beside other work:
    a run made on a busy machine or on one core would widen the floor to its own slowdown)."""
    out, crowded = [], 0
    for run in history:
        if any(run.info == other.info for other in exclude):
            continue
        if (pattern, variant) in series_of(run) and configuration(run, pattern, variant) == key:
            left_out = crowded_launches(run)
            crowded += len(left_out & {m.launch for m in run.measurements if m.pattern == pattern})
            medians = launch_medians(run, pattern, variant, left_out)
            if medians:
                out.append(medians)
    return out, crowded


def _busy_launches_by_size(run: Any, pattern: str, variant: str) -> dict[int, dict[int, str]]:
    """Size -> the launches that measured it (this series) while the machine ran other work, or
    that were cut off before their conditions were recorded, each with how it was."""
    how = {c.launch: "beside other work" if c.busy else "cut off, conditions not recorded"
           for c in run_conditions(run) if c.busy or c.cut_off}
    if not how:  # (a quiet run: no need to choose its launches again, which reads samples)
        return {}
    timed = time_launches(run)  # the launches whose samples are compared (launch_samples)
    out: dict[int, dict[int, str]] = {}
    for m in run.measurements:
        if m.pattern == pattern and getattr(m, "variant", "") == variant and m.launch in how \
                and m.launch in timed[(m.pattern, m.buffer, m.ranks, m.variant)].get(m.bytes, ()):
            out.setdefault(m.bytes, {})[m.launch] = how[m.launch]
    return out


def _launches_how(at: dict[int, str]) -> str:
    """'launches 0, 2 beside other work; launch 3 cut off, conditions not recorded'."""
    by_how: dict[str, list[int]] = {}
    for launch, how in sorted(at.items()):
        by_how.setdefault(how, []).append(launch)
    return "; ".join(f"launch{'es' if len(ls) > 1 else ''} {', '.join(map(str, ls))} {how}"
                     for how, ls in by_how.items())


def _beside_other_work(sizes: Sequence[SizeComparison], runs: Sequence[tuple[Any, str]], pattern: str,
                       variant: str) -> tuple[tuple[SizeComparison, ...], str]:
    """Each tested size that a run measured beside other work is "cannot tell": its difference is
    the other work's as much as the change's (a run beside a busy loop read "slower" by 4.5x at
    2 MiB and failed the gate). Oversubscription is not: it is how the run was configured (both
    ranks on one core, said in a note). Returns the sizes and a note ("" when none)."""
    busy = [(label, _busy_launches_by_size(run, pattern, variant)) for run, label in runs]
    if not any(b for _, b in busy):
        return tuple(sizes), ""
    out, hit = [], []
    for c in sizes:
        why = "; ".join(f"{label}: {_launches_how(at[c.bytes])}" for label, at in busy if c.bytes in at)
        if why and c.verdict != UNTESTED:
            c = msgspec.structs.replace(c, verdict=CANNOT_TELL, launches_needed=None, disturbed=why)
            hit.append(c)
        out.append(c)
    if not hit:
        return tuple(out), ""
    hows = {how for _, at in busy for launches in at.values() for how in launches.values()}
    where = " or ".join(words for how, words in (("beside other work", "beside other work"),
                                                  ("cut off, conditions not recorded",
                                                   "in a launch cut off before its conditions were recorded"))
                        if how in hows)
    return tuple(out), (f"{len(hit)} size(s) measured {where} (e.g. {units.size(hit[0].bytes)}: "
                        f"{hit[0].disturbed}): cannot tell, whatever the samples say; compare runs made on a quiet "
                        "machine (msgperf show --detail says which launches)")


def _crowded_note(run: Any, label: str, pattern: str) -> str:
    """What a compared run's crowded launches mean for the comparison ("" when none was)."""
    measured = {m.launch for m in run.measurements if m.pattern == pattern}
    crowded = crowded_launches(run) & measured
    if not crowded:
        return ""
    return (f"{label}: {len(crowded)} of the {len(measured)} launches that measured {pattern} ran oversubscribed "
            "or beside other work: a difference may be the machine's load, not the change (msgperf show --detail)")


def summary_statistic(run: Any, pattern: str, variant: str = "") -> str | None:
    """What an imported summary's values of a series are: "mean", "min", "p50" (when every size
    has OSU's P50, used instead of its mean), "" when the file does not say; None for a run with
    samples (msgperf's own), whose side can give any statistic."""
    ms = [m for m in run.measurements if m.pattern == pattern and getattr(m, "variant", "") == variant]
    if getattr(run.info, "source", "msgperf") == "msgperf" or any(np.size(m.samples_s) > 1 for m in ms):
        return None
    said_by = [m.extra.get("imported") if isinstance(m.extra.get("imported"), dict) else {} for m in ms]
    if ms and all(isinstance(i.get("p50_s"), (int, float)) for i in said_by):
        return "p50"
    said = {i.get("statistic") for i in said_by}
    return said.pop() if len(said) == 1 and next(iter(said)) in STATISTICS else ""


def _p50_samples(run: Any, pattern: str, variant: str) -> dict[int, tuple[np.ndarray, ...]]:
    """An OSU output with percentiles: per size its P50 (one value, one launch)."""
    return {int(m.bytes): (np.array([float(m.extra["imported"]["p50_s"])]),) for m in run.measurements
            if m.pattern == pattern and getattr(m, "variant", "") == variant}


def _statistics(stat_a: str | None, stat_b: str | None) -> tuple[str, str, str, str | None]:
    """(statistic of the sampled sides, A in words, B in words, a note when the two differ)."""
    printed = [s for s in (stat_a, stat_b) if s is not None]
    wanted = {"p50": "median", "mean": "mean", "min": "min"}.get(printed[0], "median") if len(printed) == 1 else "median"
    sampled = ("the geometric mean of its launch medians" if wanted == "median" else
               f"the {'mean' if wanted == 'mean' else 'minimum'} of its samples (geometric mean over launches), "
               "as the other side's")

    def words(stat: str | None) -> str:
        return sampled if stat is None else _PRINTED.get(stat, "the one value per size the tool printed (its "
                                                               "statistic not said)")

    note = None
    if len(printed) == 2 and printed[0] != printed[1]:
        note = (f"A is {words(stat_a)}, B {words(stat_b)}: not the same statistic, so the ratio mixes "
                "what the two tools measure with how they summarise it")
    elif len(printed) == 1 and printed[0] == "":
        note = "the imported side does not say which statistic it printed: compared with msgperf's median"
    return wanted, words(stat_a), words(stat_b), note


def _like_for_like(run_a: Any, run_b: Any) -> str:
    """How to measure what an imported tool's output holds, beside it ("" unless one run is
    msgperf's own and the other an import: its patterns are msgperf's compatibility modes)."""
    sources = (getattr(run_a.info, "source", "msgperf"), getattr(run_b.info, "source", "msgperf"))
    if sources.count("msgperf") != 1:
        return ""
    imported = run_b if sources[0] == "msgperf" else run_a
    names = list(dict.fromkeys(p for p, _ in series_of(imported)))
    kept = [n for n in names if n in REPRODUCED]
    if not kept:
        return f"; msgperf has no mode of {', '.join(names[:4])}'s loop: compare that output with another of its tool"
    return ("; to compare with the imported output, measure its loop: msgperf run "
            + " ".join(f"--pattern {n}" for n in kept[:4]))


def compare_runs(run_a: Any, run_b: Any, pattern: str | None = None, variant: str | None = None,
                 alpha: float = ALPHA, min_effect: float = 0.0, label_a: str = "A",
                 label_b: str = "B", history: Sequence[Any] = (),
                 parameters: bool = True, answers: tuple[Any, Any] = (None, None)) -> RunComparison:
    """Compare one series of two runs (the first series of A that B also has, unless named).
    ``history``: stored runs that may share A's or B's configuration (``Store.runs_like``);
    those that do, other than A and B themselves, give the noise floor. ``answers``: the two
    runs' answer blocks (RunResult.answer), whose "cannot tell" the parameters follow."""
    series_a, series_b = series_of(run_a), series_of(run_b)
    if pattern is None:
        shared = [s for s in series_a if s in series_b]
        if not shared:
            raise AnalysisError(f"{label_a} and {label_b} have no pattern in common "
                                f"({', '.join(p for p, _ in series_a) or 'none'} vs "
                                f"{', '.join(p for p, _ in series_b) or 'none'})" + _like_for_like(run_a, run_b))
        pattern, variant = shared[0] if variant is None else (shared[0][0], variant)
    if variant is None:
        variant = next((v for p, v in series_a if p == pattern), "")
    for label, series in ((label_a, series_a), (label_b, series_b)):
        if (pattern, variant) not in series:
            raise AnalysisError(f"{label}: no measurements of pattern {pattern!r}"
                                + (f" variant {variant!r}" if variant else ""))
    key_a, key_b = configuration(run_a, pattern, variant), configuration(run_b, pattern, variant)
    hist_a, crowded = _history(history, key_a, pattern, variant, (run_a, run_b))
    hist_b = None
    if key_b != key_a:
        hist_b, more = _history(history, key_b, pattern, variant, (run_a, run_b))
        crowded += more
    stat_a, stat_b = summary_statistic(run_a, pattern, variant), summary_statistic(run_b, pattern, variant)
    statistic, side_a, side_b, mixed = _statistics(stat_a, stat_b)
    samples = [_p50_samples(run, pattern, variant) if stat == "p50" else launch_samples(run, pattern, variant)
               for run, stat in ((run_a, stat_a), (run_b, stat_b))]
    sizes, notes = compare_launch_samples(samples[0], samples[1], alpha, min_effect, hist_a, hist_b, statistic)
    sizes, busy_note = _beside_other_work(sizes, ((run_a, label_a), (run_b, label_b)), pattern, variant)
    if busy_note:
        notes = notes + (busy_note,)
    if mixed:
        notes = notes + (mixed,)
    if crowded:
        if not (hist_a if hist_b is None else hist_a and hist_b):  # every stored run left out: none measured
            notes = tuple(n.replace(_NO_HISTORY, _NO_HISTORY + " made on a quiet machine") for n in notes)
        notes = notes + (f"{crowded} launch(es) of stored runs of this configuration ran oversubscribed or "
                         "beside other work: left out of the noise floor",)
    notes = notes + tuple(n for n in (_crowded_note(run_a, label_a, pattern), _crowded_note(run_b, label_b, pattern))
                          if n)
    params: tuple[ParameterComparison, ...] = ()
    if parameters:
        try:
            series = f"{pattern} [{variant}]" if variant else pattern
            params = compare_parameters(analyze_series(run_a, pattern, variant=variant),
                                        analyze_series(run_b, pattern, variant=variant), alpha,
                                        min_effect, tuple(disturbed_terms(x, series) for x in answers))
        except AnalysisError as exc:
            notes = notes + (f"model parameters not compared: {exc}",)
    name = f"{pattern} [{variant}]" if variant else pattern
    runs = len(hist_a) if hist_b is None else min(len(hist_a), len(hist_b))
    return RunComparison(label_a, label_b, name, alpha, min_effect, sizes, params, notes, runs,
                         machine_diff(run_machine(run_a), run_machine(run_b)), statistic, side_a, side_b)


# ---- the gate --------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100 * x:+.1f} %"


def size_gate(s: SizeComparison, fail_above: float, alpha: float = ALPHA) -> SizeGate:
    """One size against the threshold (a fraction); a "cannot tell" with samples says how many
    launches per side would tell (``launches_needed`` at ``alpha``)."""
    limit = 1.0 + fail_above
    if s.verdict == UNTESTED:
        return SizeGate(s.bytes, CANNOT_TELL, "1 value per size (no samples): compared by value only")
    if s.disturbed:
        return SizeGate(s.bytes, CANNOT_TELL, "measured beside other work")
    if s.verdict == SLOWER and s.ratio > limit:
        return SizeGate(s.bytes, FAIL, f"{_pct(s.slowdown)}, interval {_pct(s.ratio_ci[0] - 1)} to "
                        f"{_pct(s.ratio_ci[1] - 1)}")
    if s.assumed:
        return SizeGate(s.bytes, CANNOT_TELL, "one launch each and no stored history: run-to-run "
                        "spread unknown", launches_needed(s, fail_above, alpha))
    if s.ratio_ci is not None and s.ratio_ci[1] <= limit:
        return SizeGate(s.bytes, PASS, "")
    upper = s.ratio_ci[1] - 1 if s.ratio_ci else math.nan
    return SizeGate(s.bytes, CANNOT_TELL, f"interval reaches {_pct(upper)}",
                    launches_needed(s, fail_above, alpha))


def _most_needed(needs: Sequence[LaunchesNeeded], threshold: float) -> LaunchesNeeded | None:
    """What would tell every one of these sizes: the largest count, or why there is none."""
    if not needs:
        return None
    missing = [n for n in needs if n.launches is None]
    if missing:
        spreadless = [n for n in missing if n.more_than is None]
        return (spreadless or missing)[0]
    most = max(needs, key=lambda n: n.launches)  # type: ignore[arg-type, return-value]
    return LaunchesNeeded(threshold, most.launches, "", all(n.already for n in needs))


def gate(comparisons: Sequence[RunComparison], fail_above: float) -> Gate:
    """``--fail-above`` over one or several comparisons (B, C, ... against A): "fail" when any
    size of any of them fails, else "cannot tell" when any size cannot tell, else "pass"."""
    if not (math.isfinite(fail_above) and fail_above >= 0):
        raise AnalysisError(f"the threshold must be a finite fraction >= 0, not {fail_above}")
    per = [(c, s, size_gate(s, fail_above, c.alpha)) for c in comparisons for s in c.sizes]
    sizes = tuple(g for _, _, g in per)
    several = len(comparisons) > 1
    limit = f"{100 * fail_above:g} %"

    def where(c: RunComparison, g: SizeGate) -> str:
        return (f"{c.label_b} " if several else "") + f"{g.bytes} B"

    failed = [(c, g) for c, _, g in per if g.outcome == FAIL]
    if failed:
        return Gate(fail_above, FAIL, f"slowdown above {limit}: " + "; ".join(
            f"{where(c, g)} {g.reason}" for c, g in failed), sizes)
    unsure = [(c, s, g) for c, s, g in per if g.outcome == CANNOT_TELL]
    if unsure or not per:
        groups: dict[str, list[str]] = {}
        for c, s, g in unsure:
            kind = g.reason.split(" reaches")[0] if "reaches" in g.reason else g.reason
            groups.setdefault(kind, []).append(where(c, g))
        parts = []
        for kind, at in groups.items():
            listed = ", ".join(at[:4]) + (f" and {len(at) - 4} more" if len(at) > 4 else "")
            if kind == "interval":
                widest = max(s.ratio_ci[1] - 1 for _, s, g in unsure if "reaches" in g.reason)
                parts.append(f"intervals reach past +{limit} at {listed} (up to {_pct(widest)})")
            else:
                parts.append(f"{kind} at {listed}")
        needed = _most_needed([g.launches_needed for _, _, g in unsure
                               if g.launches_needed is not None], fail_above)
        if needed is not None:
            parts.append(needed.words)
        return Gate(fail_above, CANNOT_TELL, "; ".join(parts) or "no size compared", sizes, needed)
    return Gate(fail_above, PASS, f"no slowdown above {limit} at any of {len(per)} size(s)", sizes)
