"""What ``--resume`` continues: a run file's plan and the launches it still lacks."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from msgperf.errors import MsgperfError
from msgperf.plan import Plan
from msgperf.records.format import Run
from msgperf.records.runfile_read import read_run
from msgperf.records.runfile_write import cut_partial_line


@dataclass(frozen=True)
class ResumeState:
    """What ``--resume`` continues: the original plan and the launches still to run."""

    plan: Plan
    placement: str | None  # None: the plan's --pair
    repeat: int
    launches: tuple[tuple[int, ...], ...]  # the sizes of each launch still to run
    next_index: int
    refine: bool = True  # the run was made to refine after its sweep (files before plan.after: True)
    run: Run | None = field(default=None, compare=False, repr=False)  # the file as read (its partial line cut)


def resume_state(path: Path) -> ResumeState:
    """The plan of a run file and the launches it still lacks: every (pattern, size) must be
    measured in ``plan.repeat`` different launches; a size short of d launches is measured by
    the first d launches of the resume. A partial last line (a killed writer's) is cut off so
    that appending stays valid. Call it holding the run file's lock."""
    result = read_run(path)
    if result.truncated:
        cut_partial_line(path)
    run = result.run
    if run.info.source != "msgperf":
        raise MsgperfError(f"--resume {path}: an imported run ({run.info.source}) cannot be continued; "
                           "measure anew with msgperf run")
    p = run.info.plan
    plan = p
    missing = run.missing()  # one entry per launch a (pattern, size) still lacks
    per_size: dict[int, int] = {}
    for pattern in p.patterns:
        for size, count in Counter(s for pat, s in missing if pat == pattern).items():
            per_size[size] = max(per_size.get(size, 0), count)
    rounds = max(per_size.values(), default=0)
    launches = tuple(tuple(s for s in plan.sizes if per_size.get(s, 0) > j) for j in range(rounds))
    next_index = max((l.index for l in run.launches), default=-1) + 1
    return ResumeState(plan=plan, placement=None if p.placement == "pair" else p.placement, repeat=p.repeat,
                       launches=launches, next_index=next_index, refine=p.after is None or "refine" in p.after,
                       run=run)
