"""``msgperf advise RUN --collective NAME``: the collective advice (analysis/collectives/advice.py)
held to the answer's rules, as the point-to-point advice is (combining_advice.py):

- the measured speedup, k·T(s) against T(k·s), only where both sizes were measured undisturbed
  (``disturbance``, as show holds its figures) and in the same launches (two launches run at levels
  of their own: a tester's allreduce launches 2x apart gave 0.75x pooled, 1.09x and 1.03x alone);
- the answer's lines about the launches' conditions, as show says them;
- a favoured algorithm that the run's own environment already selects is said to be selected, not
  suggested to be measured. The answer's rules come in as arguments (commands/advise.py). Pure.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from msgperf.analysis.tables import SizeRow
from msgperf.values import Value


class HeldCollectiveAdvice(Value):
    advice: Any  # analysis.collectives.CollectiveAdvice
    measured_why_not: str  # why the measured speedup cannot be told ("" where it can)
    conditions: tuple[Any, ...] = ()  # the answer's lines about the launches' conditions (answer.Warning)
    # per favoured range (in ``advice.favoured``'s order): the run's environment already selects the
    # favoured algorithm (its variables in words), "" where it does not
    selected: tuple[str, ...] = ()

    @property
    def measured_speedup(self) -> float | None:
        return None if self.measured_why_not else self.advice.measured_speedup


def _why_not(rows: Sequence[SizeRow], measured_while: Callable[[SizeRow], str]) -> str:
    for r in rows:
        if said := measured_while(r):
            return said
    launches = [set(r.launch_ids) for r in rows]
    if len(launches) == 2 and all(launches) and launches[0] != launches[1]:
        return "the two sizes were measured in different launches, which run at levels of their own"
    return ""


def _settings(words: str) -> dict[str, str]:
    """'NAME=VALUE NAME=VALUE' (Favoured.select) as a mapping."""
    return dict(part.split("=", 1) for part in words.split() if "=" in part)


def hold_collective(advice: Any, rows: Sequence[SizeRow], measured_while: Callable[[SizeRow], str],
                    conditions: Sequence[Any], environments: Sequence[Mapping[str, str]]) -> HeldCollectiveAdvice:
    """``advice`` with what it cannot tell: ``rows`` (RunResult.rows), ``measured_while`` the answer's
    disturbance rule for a row, ``conditions`` the answer's warnings about the launches,
    ``environments`` each launch's environment."""
    a = advice
    by_size: dict[int, SizeRow] = {}
    for r in rows:
        if r.pattern == a.collective and r.bytes in (a.bytes, a.messages * a.bytes):
            by_size.setdefault(r.bytes, r)
    measured = ""
    if a.measured_apart_s is not None and a.measured_combined_s is not None:
        measured = _why_not(list(by_size.values()), measured_while)
    selected = []
    for f in a.favoured:
        wanted = _settings(f.select) if f.algorithm else {}
        set_by_run = bool(wanted) and bool(environments) and all(
            all(str(env.get(name, "")).lower() == value.lower() for name, value in wanted.items())
            for env in environments)
        selected.append(f.select if set_by_run else "")
    return HeldCollectiveAdvice(a, measured, tuple(conditions), tuple(selected))
