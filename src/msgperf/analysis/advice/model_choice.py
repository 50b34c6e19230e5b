"""Which stored run's model may predict a profiled program (``advise --profile`` without
``--model``): one measured under the program's conditions, or none. Newest first, a run fits when

- it is msgperf's own ping-pong with the program's MPI (name and version);
- it ran on the program's hosts (the same set), with its measured pair placed as the program's
  messages go: on one node for a program on one node, across nodes for a program on several
  (``--placement both`` gives either);
- it had no more ranks than the program (ranks the program did not have take cores and poll);
- no launch of it was oversubscribed, had its pair on one core or ran on a busy machine
  (analysis/launches/conditions.py: a "cannot tell" does not disqualify, and the choice says so).

The first run that fits is the model; the line that names it says why, and which newer runs were
set aside. Pure: the caller lists the runs and hands each run's conditions in.
"""

from __future__ import annotations

from typing import Any, Sequence

from msgperf.analysis.launches import LaunchConditions, first_disturbance
from msgperf.values import Value


class Wanted(Value):
    """What the program's model must match, from its profile."""

    mpi: str
    hosts: frozenset[str]
    nranks: int
    placement: str  # "intra" (every rank on one node) or "inter"

    def words(self) -> str:
        where = ", ".join(sorted(self.hosts)) or "unknown hosts"
        return (f"{self.mpi}, {self.placement}-node, at most {self.nranks} ranks, on {where}")


def wanted_of(profile: Any, mpi: str) -> Wanted:
    hosts = frozenset(h for h in profile.info.hosts if h)
    return Wanted(mpi=mpi, hosts=hosts, nranks=profile.info.nranks or len(profile.ranks),
                  placement="intra" if len(hosts) <= 1 else "inter")


def listing_misfit(row: Any, wanted: Wanted) -> str:
    """Why a stored run (a ``RunRow``: its listing) cannot model the program; "" when it may."""
    if row.source != "msgperf" or "pingpong" not in row.patterns:
        return "no ping-pong measured by msgperf"
    if row.mpi != wanted.mpi:
        return f"another MPI ({row.mpi or 'unknown'})"
    if set(row.hosts) != wanted.hosts:
        return f"other hosts ({', '.join(row.hosts) or 'unknown'})"
    if wanted.placement not in placements_of(row.placement):
        return f"its pair is {row.placement or 'placed unknown'}, the program's messages {wanted.placement}-node"
    if row.nranks > wanted.nranks:
        return f"{row.nranks} ranks, more than the program's {wanted.nranks}"
    return ""


def placements_of(listing: str) -> tuple[str, ...]:
    """The placements a run's listing says its pair had: "intra- and inter-node" -> both."""
    return tuple(p for p in ("intra", "inter") if f"{p}-" in listing)


def conditions_misfit(conditions: Sequence[LaunchConditions]) -> str:
    """Why the run's launches were not conditions to predict from; "" when none was seen bad."""
    return first_disturbance(conditions)


def unknown_conditions(conditions: Sequence[LaunchConditions]) -> str:
    """The verdicts the run could not give (said beside the choice, since they do not disqualify)."""
    missing = [name for name, attr in (("oversubscribed", "oversubscribed"), ("busy machine", "busy"))
               if any(getattr(c, attr) is None for c in conditions)]
    return ", ".join(missing)


class ModelChoice(Value):
    run_id: int
    placement: str  # the series' placement to model ("intra"/"inter"), "" when the run has one
    why: str  # one line: which run and why, what was set aside


def choose(candidates: Sequence[tuple[Any, Sequence[LaunchConditions] | None]], wanted: Wanted
           ) -> tuple[ModelChoice | None, list[tuple[int, str]]]:
    """``candidates``: (row, its launches' conditions, or None when not looked at because the
    listing already rules the run out, or it could not be read: never chosen unseen), newest first. The first that fits, and every run set
    aside before it with the reason."""
    skipped: list[tuple[int, str]] = []
    for row, conditions in candidates:
        reason = listing_misfit(row, wanted) or (
            "its launches not read" if conditions is None else conditions_misfit(conditions))
        if reason:
            skipped.append((row.id, reason))
            continue
        unknown = unknown_conditions(conditions or ())
        both = len(placements_of(row.placement)) > 1
        why = (f"model: run {row.id}, the newest stored ping-pong run that matches the program ({wanted.words()}; "
               f"{row.nranks} ranks, {wanted.placement}-node pair{', of --placement both' if both else ''}; "
               + (f"{unknown}: cannot tell" if unknown else "not oversubscribed, not busy") + ")")
        if skipped:
            why += "; set aside: " + ", ".join(f"run {i} ({r})" for i, r in skipped[:3])
            why += f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
        return ModelChoice(row.id, wanted.placement if both else "", why), skipped
    return None, skipped


def refusal(wanted: Wanted, skipped: Sequence[tuple[int, str]]) -> str:
    """The one-line error when no stored run fits, naming how to get one."""
    hosts = sorted(wanted.hosts)
    if wanted.placement == "inter" and len(hosts) >= 2:
        how = f"msgperf run --hosts {hosts[0]},{hosts[1]} --placement inter"
    else:
        how = "msgperf run"
    seen = ("; set aside: " + ", ".join(f"run {i} ({r})" for i, r in skipped[:3])
            + (f" and {len(skipped) - 3} more" if len(skipped) > 3 else "")) if skipped else ""
    return (f"no stored ping-pong run matches the program ({wanted.words()}) to predict from{seen}; "
            f"measure one on a quiet machine ({how}) or pass --model RUN")
