"""The run-to-run noise floor: how much the same configuration moves when it is measured again.

Per size, on the log scale (so spreads are relative), a launch's median is modelled as

    y = μ + r + l,   r ~ N(0, σ_run²) shared by the launches of one run (the hour, the load, the
                     machine's state), l ~ N(0, σ_launch²) new for every launch (placement, page
                     layout, frequency; the launch's own sampling error is part of it)

(the one-way random-effects model with nested launches; Searle, Casella & McCulloch, *Variance
Components*, Wiley 1992, ch. 3). Two sources estimate it:

- the launches of one run (``--repeat``): their spread about the run's mean estimates
  σ_launch², pooled over runs, ``df_within`` = Σ (launches − 1);
- the stored history of runs of the same configuration (host, MPI, pattern, size, placement,
  buffer, MPI tuning variables): the spread of the runs' means estimates
  σ_run² + σ_launch²·mean(1/launches), ``df_between`` = runs − 1.

The variance of the log value of a new run of L launches is then σ_run² + σ_launch²/L, estimated
as the larger of S_w²/L (launches alone) and S_r² + max(0, 1/L − H)·S_w² (S_r² the spread of the
history's run means, H their mean of 1/launches: the run-level part cannot be negative, and a
negative coefficient is dropped, which errs wide). Its degrees of freedom are
Satterthwaite's (Biometrics Bulletin 2, 1946). The launch is the unit throughout; samples
within a launch never count as independent evidence about a re-run.

Pure functions: the caller gives the launch medians (``launch_medians`` reads them off a run);
the store query that finds the history is ``Store.runs_like``.
"""

from __future__ import annotations

import math
import shlex
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from msgperf.analysis.samples import stats
from msgperf.analysis.launches.across_launches import Interval
from msgperf.values import Value

# A variable that tunes the MPI (or its transport) changes the configuration; PMI_* and the
# like only describe where a rank runs.
TUNING_PREFIXES = ("MPIR_CVAR_", "MPICH_", "OMPI_MCA_", "UCX_", "FI_", "I_MPI_", "PSM2_",
                   "HFI_", "MV2_", "NCCL_")


class VarianceTerm(Value):
    """coefficient · S² where S² has ``df`` degrees of freedom; ``source`` names the S²."""

    source: str  # "launches" (S_w², between launches of one run) or "runs" (S_r², history)
    coefficient: float
    variance: float
    df: float


def satterthwaite(terms: Sequence[VarianceTerm]) -> tuple[float, float]:
    """(V, df) of V = Σ c·S², terms of the same source merged (Satterthwaite 1946)."""
    merged: dict[str, VarianceTerm] = {}
    for t in terms:
        have = merged.get(t.source)
        merged[t.source] = t if have is None else VarianceTerm(
            t.source, have.coefficient + t.coefficient, t.variance, t.df)
    parts = [(t.coefficient * t.variance, t.df) for t in merged.values() if t.coefficient > 0]
    v = sum(p for p, _ in parts)
    if v <= 0:
        return 0.0, math.inf
    denominator = sum(p * p / d for p, d in parts if math.isfinite(d))
    return v, (v * v / denominator) if denominator > 0 else math.inf


class NoiseFloor(Value):
    """One size's noise floor; variances of log medians (≈ relative variances)."""

    bytes: int
    within_var: float | None  # S_w²: launches about their run's mean; None without repeats
    df_within: int
    between_var: float | None  # S_r²: spread of the history's run means; None below two runs
    df_between: int
    mean_inverse_launches: float  # H: mean over the history's runs of 1 / launches
    launches: int  # launches it rests on (all sources)
    runs: int  # runs of the history (the level of each counts)

    @property
    def launch_sd(self) -> float | None:
        """Spread between launches of one run (relative sd); None without repeats."""
        return None if self.within_var is None else math.sqrt(self.within_var)

    @property
    def run_sd(self) -> float | None:
        """Extra run-to-run shift beyond the launches' spread (relative sd); None when the
        history cannot separate it (fewer than two runs, or no repeated launches)."""
        if self.between_var is None or self.within_var is None:
            return None
        return math.sqrt(max(0.0, self.between_var - self.mean_inverse_launches * self.within_var))

    def terms(self, launches: int) -> tuple[VarianceTerm, ...]:
        """The variance of the log value of a run of ``launches`` launches, as terms; () when
        nothing is known (no repeats, no history)."""
        h = 1.0 / max(1, launches)
        alone = ((VarianceTerm("launches", h, self.within_var, self.df_within),)
                 if self.within_var is not None else ())
        if self.between_var is None:
            return alone
        with_runs = (VarianceTerm("runs", 1.0, self.between_var, self.df_between),)
        extra = h - self.mean_inverse_launches
        if self.within_var is not None and extra > 0:
            with_runs += (VarianceTerm("launches", extra, self.within_var, self.df_within),)
        if alone and satterthwaite(alone)[0] > satterthwaite(with_runs)[0]:
            return alone
        return with_runs

    def rerun_sd(self, launches: int = 1) -> float | None:
        """How much a run of ``launches`` launches moves between re-runs (relative sd)."""
        terms = self.terms(launches)
        return math.sqrt(satterthwaite(terms)[0]) if terms else None

    def rerun_sd_interval(self, launches: int = 1, confidence: float = 0.95
                          ) -> tuple[float, float] | None:
        """Chi-square interval of ``rerun_sd`` on its Satterthwaite degrees of freedom."""
        terms = self.terms(launches)
        if not terms:
            return None
        v, df = satterthwaite(terms)
        if not (v > 0 and math.isfinite(df)):
            return None
        a = 1 - confidence
        return (math.sqrt(df * v / stats.chi2.ppf(1 - a / 2, df)),
                math.sqrt(df * v / stats.chi2.ppf(a / 2, df)))

    @property
    def covers(self) -> str:
        """What the floor rests on, in words."""
        parts = []
        if self.within_var is not None:
            parts.append(f"between launches within runs ({self.df_within} df)")
        if self.between_var is not None:
            parts.append(f"between {self.runs} stored runs")
        return ", ".join(parts) if parts else "nothing measured"


def _logs(values: Iterable[float]) -> np.ndarray:
    v = np.asarray([x for x in values if x is not None and math.isfinite(x) and x > 0], float)
    return np.log(v)


def noise_floor(size: int, history: Sequence[Sequence[float]],
                within_only: Sequence[Sequence[float]] = ()) -> NoiseFloor:
    """The floor of one size from the launch medians (seconds) of each stored run of the same
    configuration (``history``: their spread between launches and between runs counts) and of
    runs whose level must not count (``within_only``: the runs being compared; only the spread
    of their launches about their own mean is used)."""
    ss_w, df_w, launches = 0.0, 0, 0
    means, inverse = [], []
    for group, level in [(h, True) for h in history] + [(w, False) for w in within_only]:
        y = _logs(group)
        if y.size == 0:
            continue
        launches += y.size
        if y.size >= 2:
            ss_w += float(np.sum((y - y.mean()) ** 2))
            df_w += y.size - 1
        if level:
            means.append(float(y.mean()))
            inverse.append(1.0 / y.size)
    within = ss_w / df_w if df_w > 0 else None
    between = float(np.var(means, ddof=1)) if len(means) >= 2 else None
    return NoiseFloor(bytes=int(size), within_var=within, df_within=df_w, between_var=between,
                      df_between=max(0, len(means) - 1),
                      mean_inverse_launches=float(np.mean(inverse)) if inverse else 1.0,
                      launches=launches, runs=len(means))


def noise_floors(history: Sequence[Mapping[int, Sequence[float]]],
                 within_only: Sequence[Mapping[int, Sequence[float]]] = ()
                 ) -> dict[int, NoiseFloor]:
    """``noise_floor`` of every size any run has; each run given as size → launch medians."""
    sizes = sorted({s for run in (*history, *within_only) for s in run})
    return {s: noise_floor(s, [r[s] for r in history if s in r],
                           [r[s] for r in within_only if s in r]) for s in sizes}


# ---- reading runs ---------------------------------------------------------------------------


def launch_medians(run: Any, pattern: str, variant: str = "",
                   leave_out: frozenset[int] = frozenset()) -> dict[int, tuple[float, ...]]:
    """Per size, the median per-message time of each launch of one series (launch order), but
    the launches in ``leave_out``. Launches with a single value (imported summaries) are left out:
    a floor needs samples."""
    grouped: dict[int, dict[int, list[Any]]] = {}  # measurements: a large run's samples are read per size
    for m in run.measurements:
        if m.pattern == pattern and getattr(m, "variant", "") == variant and m.launch not in leave_out:
            grouped.setdefault(int(m.bytes), {}).setdefault(m.launch, []).append(m)
    out = {}
    for size, by_launch in sorted(grouped.items()):
        medians = tuple(float(np.median(np.concatenate([np.asarray(m.per_message_s, dtype=np.float64)
                                                        for m in ms])))
                        for _, ms in sorted(by_launch.items())
                        if sum(m.samples_s.size for m in ms) > 1)
        if medians:
            out[size] = medians
    return out


def _test_options(command_line: str | None) -> tuple[str, ...]:
    """Hidden test options (``--test-...``) on a launcher's command line, with their values."""
    try:
        words = shlex.split(command_line or "")
    except ValueError:
        words = (command_line or "").split()
    found = []
    for i, w in enumerate(words):
        if w.startswith("--test-"):
            found.append(w if "=" in w or i + 1 >= len(words) else f"{w}={words[i + 1]}")
    return tuple(found)


def configuration(run: Any, pattern: str, variant: str = "") -> tuple:
    """What must match for two runs of a series to share a noise floor: hosts and cores' nodes,
    MPI library, ranks, the pair's placement, buffer and pair, MPI tuning variables and hidden
    test options. Sizes are matched size by size; precision and budgets only change how long a
    size is sampled, not where its median lies."""
    launches = tuple(getattr(run, "launches", ()))
    ms = [m for m in run.measurements if m.pattern == pattern and getattr(m, "variant", "") == variant]
    first_line = {l.mpi_library.strip().splitlines()[0] if l.mpi_library.strip() else ""
                  for l in launches}
    return (
        getattr(run.info, "source", "msgperf"),
        tuple(sorted({r.host for l in launches for r in l.ranks})),
        tuple(sorted(first_line)), tuple(sorted({l.mpi_version for l in launches})),
        tuple(sorted({l.nranks for l in launches})),
        tuple(sorted({l.pair_shares_node for l in launches})),
        tuple(sorted({(m.buffer, tuple(m.ranks)) for m in ms})),
        tuple(sorted({(k, v) for l in launches for k, v in l.environment.items()
                      if k.startswith(TUNING_PREFIXES)})),
        tuple(sorted({o for l in launches
                      for o in _test_options(getattr(l, "launcher_command_line", None))})),
    )


def configuration_floors(run: Any, history: Sequence[Any], pattern: str, variant: str = ""
                         ) -> dict[int, NoiseFloor]:
    """The noise floor of ``run``'s configuration per size: ``run`` itself and those of
    ``history`` (e.g. ``Store.runs_like(run)``, loaded) that share its configuration; a stored
    copy of ``run`` counts once."""
    key = configuration(run, pattern, variant)
    same = [run] + [h for h in history if h.info != run.info
                    and configuration(h, pattern, variant) == key]
    return noise_floors([m for m in (launch_medians(r, pattern, variant) for r in same) if m])


def rerun_interval(value: float, launches: int, floor: NoiseFloor,
                   confidence: float = 0.95) -> Interval | None:
    """The interval a re-run of ``launches`` launches would land in around ``value``, from the
    configuration's noise floor (t on its Satterthwaite degrees of freedom); None when the floor
    knows nothing (one launch, no history)."""
    terms = floor.terms(launches)
    if not terms or not value > 0:
        return None
    variance, df = satterthwaite(terms)
    q = float((stats.norm if not math.isfinite(df) else stats.t(df)).ppf(0.5 + confidence / 2))
    half = q * math.sqrt(variance)
    return Interval(value=value, low=value * math.exp(-half), high=value * math.exp(half),
                    covers=f"re-runs ({floor.covers})", launches=launches, confidence=confidence,
                    method="noise floor of the configuration, t on Satterthwaite df",
                    rel_se=math.sqrt(variance), df=df)
