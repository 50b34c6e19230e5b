"""Caveats are values: what was seen (kind, message, with numbers) and what to do (advice).

Detection lives with each statistic (``measurement``, ``sweep``, ``launches``); this module
holds the thresholds that turn a statistic into a caveat and the wording, in one place.
"""

from __future__ import annotations

import math
from typing import Sequence

from msgperf import units
from msgperf.values import Value

FEW_SAMPLES = 10  # below this a median's interval is barely informative
WIDE_INTERVAL = 0.05  # interval half-width relative to the median
RESOLUTION_TICKS = 100  # a sample shorter than this many clock ticks is quantised by >= 1 %
OUTLIER_FRACTION = 0.01
SCATTER_PHI = 4.0  # sizes scatter twice as much as their stated uncertainty
LINE_MISFIT = 0.10  # rms relative residual of the single line
LAUNCH_SPREAD = 0.05  # spread of the launch medians worth a caveat


class Caveat(Value):
    kind: str
    message: str
    advice: str
    bytes: int | None = None  # the size concerned, or None for the whole sweep
    launch: int | None = None  # the launch concerned, or None
    brief: str = ""  # a few words with the numbers, for the line under every table it concerns

    def __str__(self) -> str:
        return f"{self.message}; {self.advice}"


def time_text(seconds: float) -> str:
    """A time for a message, in the unit that suits it."""
    return units.seconds(seconds)


def size_text(size: float) -> str:
    return units.size(size)


def table_line(caveats: "list[Caveat] | tuple[Caveat, ...]") -> str:
    """The caveats of a table in one line, per launch: 'launch 0: oversubscribed: 3 ranks on 2 usable
    cores (yield progress set) · busy machine: other work 1.54 of 2 cores, ...'."""
    by_launch: dict[int | None, list[str]] = {}
    for c in caveats:
        by_launch.setdefault(c.launch, []).append(c.brief or c.message)
    return "; ".join((f"launch {launch}: " if launch is not None else "") + " · ".join(texts)
                     for launch, texts in by_launch.items())


def _where(size: int | None, launch: int | None) -> str:
    parts = []
    if size is not None:
        parts.append(size_text(size))
    if launch is not None:
        parts.append(f"launch {launch}")
    return f"{', '.join(parts)}: " if parts else ""


# ---- one measurement ---------------------------------------------------------------------

def single_value(size: int, launch: int | None) -> Caveat:
    return Caveat("single_value", f"{_where(size, launch)}one value, no samples: no interval "
                  "for this size", "measure it with msgperf run to get per-sample statistics",
                  size, launch)


def few_samples(size: int, launch: int | None, n: int) -> Caveat:
    return Caveat("few_samples", f"{_where(size, launch)}only {n} samples",
                  f"the median's interval needs more; raise --min-samples to {FEW_SAMPLES} "
                  "or more, or the time budget", size, launch)


def wide_interval(size: int, launch: int | None, rel: float) -> Caveat:
    return Caveat("wide_interval", f"{_where(size, launch)}the median is known only to "
                  f"±{100 * rel:.1f} %", "take more samples (a tighter --precision or a longer "
                  "time budget), or quiet the machine", size, launch)


def near_resolution(size: int, launch: int | None, sample_s: float, tick_s: float) -> Caveat:
    return Caveat("near_resolution", f"{_where(size, launch)}a sample lasts {time_text(sample_s)}, "
                  f"only {sample_s / tick_s:.0f} ticks of the clock ({time_text(tick_s)})",
                  "time more iterations per sample so each lasts at least "
                  f"{RESOLUTION_TICKS} ticks", size, launch)


def bimodal(size: int, launch: int | None, low_s: float, high_s: float, share: float) -> Caveat:
    return Caveat("bimodal", f"{_where(size, launch)}two groups of times, near {time_text(low_s)} "
                  f"and {time_text(high_s)} ({100 * share:.0f} % in the slower)",
                  "the median hides this; pin ranks to cores (e.g. mpiexec -bind-to core), "
                  "check frequency scaling and other load", size, launch)


def warmup(size: int, launch: int | None, shift: float) -> Caveat:
    return Caveat("warmup_drift", f"{_where(size, launch)}the first 10 % of samples are "
                  f"{100 * shift:+.0f} % off the settled level",
                  "warm up longer before timing (more warm-up iterations)", size, launch)


def trend(size: int, launch: int | None, shift: float) -> Caveat:
    return Caveat("trend_drift", f"{_where(size, launch)}the level moved {100 * shift:+.0f} % "
                  "along the series", "something changed during the measurement (frequency, "
                  "load, memory placement); quiet and pin the machine, then re-measure",
                  size, launch)


def outliers(size: int, launch: int | None, count: int, fraction: float) -> Caveat:
    return Caveat("outliers", f"{_where(size, launch)}{count} samples ({100 * fraction:.1f} %) "
                  "are outliers (|modified z| > 3.5); they stay in every statistic",
                  "rare slow samples are interference (OS noise, other jobs); if they matter, "
                  "look at the percentiles, not only the median", size, launch)


def not_validated(size: int, launch: int | None) -> Caveat:
    return Caveat("not_validated", f"{_where(size, launch)}the received bytes did not match "
                  "what was sent", "the kernel or the MPI moved wrong data: these times "
                  "cannot be trusted; report it", size, launch)


# ---- one sweep ---------------------------------------------------------------------------

def few_sizes(count: int) -> Caveat:
    return Caveat("few_sizes", f"only {count} sizes: "
                  + ("no interval for alpha and beta" if count < 3 else "too few to look for breakpoints"),
                  "measure more sizes (e.g. 0 and every power of two up to 64 MiB)")


def searched_on_fewer(searched: int, count: int) -> Caveat:
    return Caveat("model_on_fewer_sizes", f"{count:,} sizes: the piecewise model's breakpoints were searched "
                  f"and its segments fitted on {searched} of them, evenly spread in log size; every size "
                  "keeps its row and its residual", "measure fewer sizes for a switch located between "
                  "adjacent measured sizes", brief=f"model on {searched} of {count:,} sizes")


def no_noise_known() -> Caveat:
    return Caveat("no_per_size_noise", "no size has raw samples, so the noise of each size is "
                  "unknown; intervals, breakpoints and anomalies are judged against the scatter "
                  "between sizes", "re-measure with msgperf run for per-size intervals")


def line_misfits(rms: float, breaks: int) -> Caveat:
    return Caveat("line_misfits", f"the single line misses the sizes by {100 * rms:.0f} % (rms)",
                  "use the segments of the piecewise model" if breaks else
                  "T(b) is not a straight line here; read alpha and beta as a rough summary")


def nonpositive(alpha: float, beta: float) -> Caveat:
    bad = " and ".join(name for name, v in (("alpha", alpha), ("beta", beta)) if v <= 0)
    return Caveat("nonpositive_parameter", f"the fitted {bad} is not positive, so n_half"
                  + (" and the bandwidth are" if beta <= 0 else " is") + " undefined",
                  "the sizes do not constrain it: add small sizes (for alpha) or large ones "
                  "(for beta)")


def negative_intercept(alpha: float) -> Caveat:
    return Caveat("negative_intercept", f"the last segment's intercept (asymptotic latency) is "
                  f"{time_text(alpha)}: large-message times grow faster than a straight line "
                  "(caches, memory bandwidth)", "read its 1/beta as the large-message rate; "
                  "the intercept itself has no physical meaning here")


def scatter(phi: float) -> Caveat:
    return Caveat("scatter", f"the sizes scatter {phi ** 0.5:.1f}x more than their own "
                  "intervals and the model tolerance allow",
                  "the per-size intervals understate the real variation (launch-to-launch or "
                  "time-dependent); repeat the run (--repeat) to measure it")


def anomalies(sizes: list[int]) -> Caveat:
    listed = ", ".join(size_text(s) for s in sizes)
    return Caveat("anomalies", f"{len(sizes)} size{'s' if len(sizes) > 1 else ''} stand off the "
                  f"fitted curve beyond their own noise: {listed}",
                  "re-measure these sizes; a repeatable spike is a real effect of the MPI or "
                  "the network, as the Cisco blog 'Why MPI is Good for You' (2013) describes")


def pooled_pairs(count: int) -> Caveat:
    return Caveat("pooled_pairs", f"{count} rank pairs or buffers measured this series; their "
                  "samples are pooled into one model", "fit one pair at a time (export it, or "
                  "run with a single --pair) when placement matters")


# ---- several launches --------------------------------------------------------------------

def launch_apart(launch: int, ratio: float, rule: str) -> Caveat:
    return Caveat("launch_apart", f"launch {launch} stands apart: typically {ratio:.2f}x the "
                  f"other launches ({rule})", "it is kept in the pooled fit; look for what "
                  "differed (placement, other jobs) before trusting or excluding it with "
                  "--launch", launch=launch)


def launch_spread(between: float, within: float | None) -> Caveat:
    inside = "" if within is None else f", against {100 * within:.1f} % for samples within a launch"
    return Caveat("launch_spread", f"the launches' medians spread {100 * between:.1f} % (robust "
                  f"sd, median over sizes){inside}", "one launch is not representative; report "
                  "the pooled model and this spread, and repeat runs when comparing machines")


def one_launch() -> Caveat:
    return Caveat("one_launch", "one launch: every interval covers the spread within this launch "
                  "only; run-to-run spread unknown (a re-run may land outside the intervals)",
                  "measure it: msgperf run --repeat 3 with the same options")


def launch_aligned(launch: int, factor: float, shared: int, added: int) -> Caveat:
    return Caveat("launch_aligned", f"launch {launch} measured {added} size(s) the sweep did not (a refinement "
                  f"or a resumed remainder) and ran at {1 / factor:.2f}x the sweep's level on the {shared} sizes "
                  f"both measured; beside the sweep's, its times are multiplied by {factor:.3f} (where a "
                  "switch lies is judged from its own times alone)",
                  "the tables of msgperf show list its times as measured; pin the ranks (e.g. mpiexec "
                  "-bind-to core) so that launches agree", launch=launch)


def spike_confirmed(low_bytes: int, high_bytes: int, sizes: list[int]) -> Caveat:
    alone = " and ".join(units.size(s) for s in sizes)
    return Caveat("spike_confirmed", f"{alone} stand{'s' if len(sizes) == 1 else ''} off the model alone: the "
                  "refinement measured sizes "
                  f"between {units.size(low_bytes)} and {units.size(high_bytes)} and its launch shows no switch there "
                  "beyond its noise (a spike, or a step too small for that launch's scatter: cannot tell)",
                  "measure again on a quieter machine; a spike that recurs is a real effect of the MPI at that size "
                  "(the Cisco blog 'Why MPI is Good for You', 2013)")


def refinement_disturbed(launch: int, low: float, high: float, shared: int, alone: Sequence[int] = ()) -> Caveat:
    """``alone``: the sizes only this launch measured, which then have no time in any table."""
    left_out = (f"; the {len(alone)} size{'s' if len(alone) > 1 else ''} only it measured "
                f"({size_text(alone[0])}{' – ' + size_text(alone[-1]) if len(alone) > 1 else ''}) "
                f"{'are' if len(alone) > 1 else 'is'} left out of every table" if alone else "")
    return Caveat("refinement_disturbed", f"refinement launch {launch} measured {shared} sizes again at "
                  f"{low:.2f}x to {high:.2f}x their earlier times: not one level but another curve (ranks "
                  f"descheduled by other work); it locates no switch{left_out}",
                  "refine on a quieter machine: msgperf run again, or pin the ranks", launch=launch)


FLAT_AT_LIMIT = 0.05  # a change across the eager limit smaller than this is "no step"; larger, untested: "cannot tell"


def no_step_at_eager_limit(anchor: int, below_bytes: int, below_s: float, above_bytes: int, above_s: float) -> Caveat:
    change = above_s / below_s - 1 if below_s > 0 else math.inf
    flat = abs(change) < FLAT_AT_LIMIT
    said = ("no step there beyond its launch's noise: the switch to rendezvous changes the protocol, not the "
            "time, here" if flat else "a difference its launch's noise (or one size off alone) cannot tell from "
            "a step: cannot tell")
    return Caveat("no_step_at_eager_limit", f"the eager-probe's limit, {units.exact_bytes(anchor)}: the refinement "
                  f"measured {units.seconds(below_s)} at {units.exact_bytes(below_bytes)} and "
                  f"{units.seconds(above_s)} at {units.exact_bytes(above_bytes)}"
                  + (f" ({change:+.0%})" if math.isfinite(change) else "") + f", {said}",
                  "read the eager limit from the eager-probe; the curve's knees are elsewhere" if flat
                  else "measure again on a quieter machine (msgperf run again)")


def size_apart(launch: int, size: int, ratio: float) -> Caveat:
    return Caveat("size_apart", f"launch {launch} measured {size_text(size)} at {ratio:.2g}x the median of the "
                  "other launches", "see which launches were disturbed: msgperf show --detail", bytes=size,
                  launch=launch, brief=f"launch {launch} at {ratio:.2g}x the other launches'")


def narrow_regime(lower: int, upper: int, sizes: list[int]) -> Caveat:
    listed = " and ".join(units.size(s) for s in sizes)
    step = max(1, (upper - lower) // 4)
    inside = ",".join(str(b) for b in sorted({lower, lower + 1, *range(lower + 1 + step, upper, step), upper,
                                              upper + 1}))
    return Caveat("narrow_regime", f"{listed} lie between two switches the run knows ({units.size(lower)} | "
                  f"{units.size(lower + 1)} and {units.size(upper)} | {units.size(upper + 1)}, from the eager-probe "
                  "or the MPI's thresholds): one protocol's regime, with too few sizes measured for a line of "
                  "its own, so the model does not fit them; they are that regime, not spikes",
                  f"measure more sizes inside it: msgperf run --sizes {inside}",
                  brief=f"{units.size(lower + 1)}–{units.size(upper)}: a regime of its own")


def switch_unmodelled(low_bytes: int, high_bytes: int) -> Caveat:
    return Caveat("switch_unmodelled", f"the refinement found a switch between {units.size(low_bytes)} and "
                  f"{units.size(high_bytes)}, but a segment beside it would keep fewer than three sizes: "
                  "the model has no line for it",
                  "measure more sizes beyond it (a longer --sizes range)")


def not_narrowed(low_bytes: int, high_bytes: int) -> Caveat:
    return Caveat("not_narrowed", f"the refinement measured sizes between {units.size(low_bytes)} and "
                  f"{units.size(high_bytes)} but its launch does not show the switch there beyond its noise: "
                  "the switch stays where the sweep put it",
                  "measure again on a quieter machine, or with a larger --total-time", bytes=high_bytes)


def step_not_repeated(low_bytes: int, high_bytes: int) -> Caveat:
    return Caveat("step_not_repeated", f"a refinement launch measured {units.size(low_bytes)} and "
                  f"{units.size(high_bytes)} again and shows less than half the sweep's step between them: the "
                  "switch stays where the sweep put it, not seen again",
                  "measure again on a quieter machine, or with a larger --total-time", bytes=high_bytes)


def not_seen_again(low_bytes: int, high_bytes: int, at: int, placed: tuple[int, int] | None = None) -> Caveat:
    """``placed``: the switch's interval in the model where it is not the located one (the model
    read every launch's sizes), so that the caveat names the switch the answer shows."""
    model = (f" (the model places it at {units.size(placed[0])} – {units.size(placed[1])})"
             if placed is not None and placed != (low_bytes, high_bytes) else "")
    return Caveat("not_seen_again", f"a refinement launch located a switch between {units.size(low_bytes)} and "
                  f"{units.size(high_bytes)}{model}, and a later one measured inside it and shows less than half "
                  "that step: where it lies, or whether it is there, cannot be told",
                  "measure again on a quieter machine, or with a larger --total-time", bytes=at)


def two_launches() -> Caveat:
    return Caveat("two_launches", "only two launches: neither can be called the odd one out",
                  "repeat at least three times (--repeat 3) to judge launches")


# ---- the machine during a launch (analysis/launches/conditions.py) ---------------------------------

def oversubscribed(launch: int, ranks: int, cores: int, host: str,
                   progress: tuple[tuple[str, str], ...]) -> Caveat:
    setting = (f"; msgperf set yielding progress ({', '.join(f'{k}={v}' for k, v in progress)}), which "
               "keeps waiting ranks from holding a core but slows every wait (its measured cost: "
               "docs/statistics.md)") if progress else ""
    return Caveat("oversubscribed", f"launch {launch}: oversubscribed: {ranks} ranks on {cores} usable "
                  f"cores of {host or 'the launching node'}{setting}",
                  "every time includes ranks waiting for a core (scheduler slices of milliseconds): "
                  "these are not the MPI's times; run at most one rank per usable core", launch=launch,
                  brief=f"oversubscribed: {ranks} ranks on {cores} usable cores"
                        + (" (yield progress set)" if progress else ""))


def shared_core(launch: int, seen: list[tuple[tuple[int, int], int, str]]) -> Caveat:
    listed = "; ".join(f"ranks {a} and {b} on CPU {cpu} at the {when}" for (a, b), cpu, when in seen)
    return Caveat("shared_core", f"launch {launch}: two measured ranks on one core ({listed})",
                  "they may have taken turns on it, which inflates every time; pin the ranks to "
                  "distinct cores (e.g. mpiexec -bind-to core)", launch=launch,
                  brief="ranks " + ", ".join(sorted({f"{a}:{b}" for (a, b), _, _ in seen})) + " seen on one core")


def busy_machine(launch: int, figures: str) -> Caveat:
    return Caveat("busy_machine", f"launch {launch}: busy machine: {figures} over the launch",
                  "other work took cores the ranks needed, so some samples include waiting for a "
                  "core; measure on a quiet machine, or repeat (--repeat 3) and compare", launch=launch,
                  brief=f"busy machine: {figures}")


def conditions_unknown(launch: int) -> Caveat:
    return Caveat("conditions_unknown", f"launch {launch}: cut off before msgperf recorded its conditions "
                  "(no end record, no launching node's load)",
                  "whether other work ran beside it is not known, so its times are not vouched for; "
                  "measure again (the run's sizes measured in it stay as they were)", launch=launch,
                  brief="cut off, conditions not recorded")


# ---- predictions -------------------------------------------------------------------------

def extrapolated(size: int, largest: int) -> Caveat:
    return Caveat("extrapolated", f"{size_text(size)} is beyond the largest measured size "
                  f"({size_text(largest)}): the prediction extrapolates the last segment",
                  "measure up to that size", size)


def crosses_eager_limit(combined: int, limit: int) -> Caveat:
    return Caveat("crosses_eager_limit", f"the combined message ({size_text(combined)}) is above the "
                  f"measured eager limit ({limit} B): it goes by rendezvous, the separate ones eagerly",
                  "compare the measured times (--pattern combine) or keep combined messages at or "
                  "below the eager limit", combined)


def inside_breakpoint(size: int, low: int, high: int) -> Caveat:
    return Caveat("inside_breakpoint", f"{size_text(size)} lies where the protocol switches "
                  f"(between {size_text(low)} and {size_text(high)})",
                  "the prediction there may use the wrong regime; measure that size", size)
