"""A sweep over message sizes: the single Hockney line, the piecewise model, anomalies,
per-size regimes, the latency and bandwidth figures, and the caveats of the fit."""

from __future__ import annotations

from typing import Sequence

from msgperf.analysis import caveats as cv
from msgperf.analysis.model.anomalies import Anomaly, find_anomalies
from msgperf.analysis.model.hockney import HockneyFit, fit_hockney
from msgperf.analysis.samples import AnalysisError
from msgperf.analysis.model.piecewise import MIN_POINTS, PiecewiseFit, fit_piecewise, relocated
from msgperf.analysis.model.points import TOLERANCE, SizePoint, point_arrays
from msgperf.analysis.model.regimes import (Characteristics, SizeRegime, characteristics, regime_support,
                                      size_regimes)
from msgperf.analysis.model.scatter import overdispersion
from msgperf.analysis.model.switch_location import located, suspects
from msgperf.analysis.model.threshold_regime import Narrow, regime_between
from msgperf.values import Value


class SweepAnalysis(Value):
    points: tuple[SizePoint, ...]
    hockney: HockneyFit
    piecewise: PiecewiseFit
    anomalies: tuple[Anomaly, ...]
    regimes: tuple[SizeRegime, ...]
    characteristics: Characteristics
    caveats: tuple[cv.Caveat, ...]
    model_s: tuple[float, ...] = ()  # the piecewise model's time at each point's size
    # (previous, next) sweep sizes around each size that stands off the model alone, where a
    # switch may hide that no refinement has looked for yet (switch_location.suspects)
    suspects: tuple[tuple[int, int], ...] = ()
    provenance: tuple["Provenance", ...] = ()  # per breakpoint of the piecewise model, in order
    narrow: tuple[Narrow, ...] = ()  # regimes between two known switches too narrow for a line (threshold_regime)

    def model_at(self, size: int) -> float:
        """The model's time at a measured size (what the tables print beside the median)."""
        return self.model_s[[p.bytes for p in self.points].index(size)]


def sweep_caveats(points: Sequence[SizePoint], line: HockneyFit, model: PiecewiseFit,
                  anomalies: Sequence[Anomaly]) -> tuple[cv.Caveat, ...]:
    found = []
    if len(points) < 2 * MIN_POINTS:
        found.append(cv.few_sizes(len(points)))
    if model.searched_sizes is not None:
        found.append(cv.searched_on_fewer(model.searched_sizes, len(points)))
    if all(p.rel_sd is None for p in points):
        found.append(cv.no_noise_known())
    elif model.phi > cv.SCATTER_PHI:
        found.append(cv.scatter(model.phi))
    if line.rms_rel_residual > cv.LINE_MISFIT:
        found.append(cv.line_misfits(line.rms_rel_residual, len(model.breakpoints)))
    if line.alpha_s <= 0 or line.beta_s_per_byte <= 0:
        found.append(cv.nonpositive(line.alpha_s, line.beta_s_per_byte))
    last = model.segments[-1]
    # Only where the last regime is long enough to have a latency at all: a three-size segment's
    # intercept is "—" in Saphir's table, and a caveat about its value would contradict it.
    if model.breakpoints and last.alpha_s < 0 and not regime_support(points, last):
        found.append(cv.negative_intercept(last.alpha_s))
    if anomalies:
        found.append(cv.anomalies([a.bytes for a in anomalies]))
    return tuple(found)


def _refined(model: PiecewiseFit, fitted: Sequence[SizePoint], pts: Sequence[SizePoint],
             refinements: Sequence[Sequence[SizePoint]], tolerance: float, confidence: float,
             anchor: int | None = None, thresholds: Sequence[int] = ()
             ) -> tuple[PiecewiseFit, tuple[cv.Caveat, ...], tuple[tuple[int, int], ...], tuple[Provenance, ...]]:
    """The sweep's model with its switches located by the refinement launches (and any found
    where the sweep saw a size off alone), residuals at every size, what to say about it, the
    suspects no launch has looked at yet, and where each breakpoint comes from."""
    sizes = [p.bytes for p in fitted]
    around = suspects(model, sizes)
    where = located(model.breakpoints, refinements, tolerance, around, anchor, thresholds, fitted)
    found = [bp for bp, f in zip(where.breakpoints, where.found) if f]
    own = [bp for bp, f in zip(where.breakpoints, where.found) if not f]
    moved = relocated(model, pts, pts, own, confidence)
    if moved is None:  # a narrowed switch moved a sweep size so that a segment has no line left
        own = list(model.breakpoints)
        moved = relocated(model, pts, pts, own, confidence)
    if moved is None:  # too few sizes for a line per segment even at the sweep's own breakpoints
        moved = model
    kept = []
    for bp in found:  # each switch found where the sweep saw a size off alone, if its segments have lines
        spared = [b for b in model.excluded_bytes if any(_alone_in(b, k, sizes) for k in [*kept, bp])]
        tried = relocated(model, pts, pts, [*own, *kept, bp], confidence, spared)
        if tried is not None:
            kept.append(bp)
            moved = tried
    said = [(cv.step_not_repeated if b in where.repeated_ends else cv.not_narrowed)(b.low_bytes, b.high_bytes)
            for b in where.examined if b in own]
    said += [cv.not_seen_again(b.low_bytes, b.high_bytes, at, _placed(b, moved.breakpoints))
             for b, at in zip(where.breakpoints, where.contested) if at]
    said += [cv.spike_confirmed(low, high, [s for s in sizes if low < s < high]) for low, high in where.spikes]
    said += [cv.switch_unmodelled(bp.low_bytes, bp.high_bytes) for bp in found if bp not in kept]
    seen = where.probe
    if seen is not None and seen.breakpoint is None and not any(
            b.low_bytes <= seen.anchor_bytes < b.high_bytes for b in [*own, *kept]):
        said.append(cv.no_step_at_eager_limit(seen.anchor_bytes, seen.below_bytes, seen.below_s,
                                              seen.above_bytes, seen.above_s))
    left = tuple(a for a in around if a not in where.spikes and a not in where.absorbed
                 and not any(bp.low_bytes < a[1] and bp.high_bytes > a[0] for bp in found))
    count = dict(zip(where.breakpoints, where.narrowed))
    probe = {bp for bp, p in zip(where.breakpoints, where.at_probe) if p}
    recorded = {bp for bp, t in zip(where.breakpoints, where.at_threshold) if t}
    used = sorted([*own, *kept], key=lambda b: b.best_high_bytes)  # the order relocated() keeps
    provenance = tuple(Provenance(count.get(bp, 0), bp in kept, bp in probe, bp in recorded) for bp in used)
    return moved, tuple(said), left, provenance


def _placed(located_bp, final: Sequence) -> tuple[int, int] | None:
    """The interval of the model's breakpoint that overlaps a located one (None: none does)."""
    for b in final:
        if b.low_bytes < located_bp.high_bytes and located_bp.low_bytes < b.high_bytes:
            return b.low_bytes, b.high_bytes
    return None


class Provenance(Value):
    """Where a breakpoint's interval comes from."""

    launches: int = 0  # refinement launches that located it (0: the sweep's own interval)
    found: bool = False  # found by a refinement where the sweep saw only a size off the model alone
    at_probe: bool = False  # located by a step at the eager-probe's limit (switch_location.step_at)
    at_threshold: bool = False  # located by a step at a threshold the run's MPI settings name


def _alone_in(size: int, bp, sizes: Sequence[int]) -> bool:
    """Whether ``size`` is the one sweep size between the sweep sizes around breakpoint ``bp``."""
    below = max((s for s in sizes if s <= bp.low_bytes), default=None)
    above = min((s for s in sizes if s >= bp.high_bytes), default=None)
    return below is not None and above is not None and below < size < above \
        and not any(below < s < above for s in sizes if s != size)


def analyze_sweep(points: Sequence[SizePoint], tolerance: float = TOLERANCE,
                  confidence: float = 0.95, model_sizes: frozenset[int] | None = None,
                  refinements: Sequence[Sequence[SizePoint]] = (), anchor: int | None = None,
                  thresholds: Sequence[int] = (), rescaled: frozenset[int] = frozenset(),
                  regime_bounds: Sequence[int] = ()) -> SweepAnalysis:
    """Fit and characterise one sweep: one point per distinct size. ``model_sizes``: the sizes
    the models are fitted to (the sweep's, when a refinement added others; default: all);
    ``refinements``: each refinement launch's own points, which locate the model's breakpoints
    inside their intervals (switch_location.py) but add none; ``anchor``: the eager limit the
    run's eager-probe measured, where a refinement launch may show a step (``step_at``);
    ``thresholds``: the last size before each switch the run's MPI settings name, likewise;
    ``rescaled``: sizes whose points were put on the sweep's level (launch_alignment.py): the
    model takes them so, but the measured characteristics (latency, peak and largest-size
    bandwidth) are read from the sizes as measured only; ``regime_bounds``: the last size before
    each threshold the run knows (the probe's limit, the MPI's thresholds), between two of which a
    run of sizes off the model gets a segment of its own (threshold_regime.py)."""
    pts = tuple(sorted(points, key=lambda p: p.bytes))
    if len({p.bytes for p in pts}) != len(pts):
        raise AnalysisError("each message size must appear once in a sweep")
    if len(pts) < 2:
        raise AnalysisError(f"{len(pts)} message size{'s' if len(pts) != 1 else ''}: fitting "
                            "T(b) = alpha + beta·b needs at least two sizes; measure more sizes")
    if not (0 < tolerance < 1) or not (0 < confidence < 1):
        raise AnalysisError("tolerance and confidence must lie between 0 and 1")
    fitted = pts if model_sizes is None else tuple(p for p in pts if p.bytes in model_sizes)
    if len(fitted) < 2:
        fitted = pts
    phi = overdispersion(*point_arrays(fitted, tolerance))
    line = fit_hockney(fitted, tolerance, confidence, phi)
    model = fit_piecewise(fitted, tolerance, confidence)
    found: tuple[cv.Caveat, ...] = ()
    if fitted is not pts or refinements:
        model, found, around, provenance = _refined(model, fitted, pts, refinements, tolerance, confidence, anchor,
                                                    thresholds)
    else:
        around = suspects(model, [p.bytes for p in pts])
        provenance = tuple(Provenance() for _ in model.breakpoints)
    narrow: tuple[Narrow, ...] = ()
    if regime_bounds:
        before = {bp.best_high_bytes: p for bp, p in zip(model.breakpoints, provenance)}
        model, made, narrow = regime_between(model, pts, regime_bounds, confidence)
        if made or narrow:
            provenance = tuple(before.get(bp.best_high_bytes, Provenance()) for bp in model.breakpoints)
    # the sizes of a regime too narrow for a line are that regime, not spikes or dips
    in_narrow = {s for n in narrow for s in n.sizes}
    anomalies = tuple(a for a in find_anomalies(pts, model) if a.bytes not in in_narrow)
    found += tuple(cv.narrow_regime(n.lower, n.upper, list(n.sizes)) for n in narrow)
    terms = characteristics([p for p in pts if p.bytes not in rescaled] or pts, model, line)
    return SweepAnalysis(
        points=pts, hockney=line, piecewise=model, anomalies=anomalies,
        regimes=size_regimes(pts, line, model, terms.asymptotic_bandwidth),
        characteristics=terms, caveats=sweep_caveats(pts, line, model, anomalies) + found,
        model_s=tuple(float(model.predict(p.bytes)) for p in pts), suspects=around, provenance=provenance,
        narrow=narrow)
