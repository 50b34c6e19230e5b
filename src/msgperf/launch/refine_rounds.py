"""Refinement rounds: after the sweep, launches of extra sizes inside the main pattern's wide
breakpoint intervals (where: analysis/refinement.py; how long: launch/budget.py), each round
deciding from the run file as the previous round left it."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import msgspec

from msgperf.analysis import AnalysisError
from msgperf.analysis.refinement import by_priority, next_step
from msgperf.analysis.result import analyze
from msgperf.launch import budget as budgets
from msgperf.launch.request import LaunchStart
from msgperf.plan import Plan
from msgperf.records.runfile_read import read_run
from msgperf.units import size as format_size

MAX_REFINE_ROUNDS = 3


# What a refinement bracket is: in the note that says where the refinement stopped, and in a few
# words on the progress line.
_BRACKET_KINDS = {"threshold": ("the threshold the MPI was set to", "set threshold"),
                  "probe": ("the eager-probe limit", "eager-probe limit"),
                  "suspect": ("a size off the model alone", "off the model"),
                  "switch": ("a switch", "switch")}


def _bracket_kind(b, short: bool = False) -> str:
    kind = "threshold" if b.threshold else "probe" if b.probe else "suspect" if b.suspect else "switch"
    return _BRACKET_KINDS[kind][short]


def _brackets_text(brackets) -> str:
    return "; ".join(f"{b.series}: {_bracket_kind(b)} between {format_size(b.low_bytes)} and "
                     f"{format_size(b.high_bytes)}" for b in brackets)


def round_detail(step, again_after: int | None = None) -> str:
    """A refinement round in a few words, for the progress line: the intervals it narrows by kind,
    how many sizes it adds."""
    kinds: dict[str, list[str]] = {}
    for b in step.brackets:
        kinds.setdefault(_bracket_kind(b, short=True), []).append(f"{format_size(b.low_bytes)}–{format_size(b.high_bytes)}")
    again = f"again (refinement launch {again_after} was disturbed): " if again_after is not None else ""
    return again + "; ".join(f"{kind} {', '.join(where)}" for kind, where in kinds.items()) \
        + f"; {len(step.new)} new size(s), {len(step.context)} again beside them"


def refine(run_file: Path, end_s: float, next_index: int,
           launch: Callable[[int, str, Plan, LaunchStart], None], note: Callable[[str], None], *,
           why: str = "the refinement budget", fix: str = "", overhead_s: float = budgets.LAUNCH_OVERHEAD_S,
           last_look: list | None = None) -> int:
    """Measure extra sizes inside the main pattern's breakpoint intervals until each is at most
    an eighth of an octave wide (analysis/refinement.py), ``MAX_REFINE_ROUNDS`` launches were
    made or the time left before ``end_s`` (time.monotonic()) is too short for another round
    (launch/budget.py ``round_share``; ``why`` names that budget in the note that says what is
    left wide, ``fix`` ends it: how to give it more); returns the launches made. Each round
    re-reads and re-fits the run, so a round refines what the previous one left wide; a round
    after a disturbed one measures its sizes again. ``last_look`` (a list) gets the (run,
    analysis) of the last look when no launch followed it."""
    made = 0
    previous: tuple[int, ...] = ()
    said: set = set()  # intervals a note already left as measured
    for _ in range(MAX_REFINE_ROUNDS):
        # Read anew each round: the previous round's launch grew the file, and this round refines
        # what that launch left wide (the first round reads what the sweep and the probe wrote).
        run = read_run(run_file).run
        try:
            result = analyze(run, name_collectives=False)  # the main series only: no collective's name
        except AnalysisError:
            return made
        # a launch the analysis found disturbed located nothing: its sizes may be measured again
        main_pattern = result.main.key.pattern if result.main is not None else None
        disturbed = {c.launch for series in result.series if series.key.pattern == main_pattern
                     and series.model is not None for c in series.model.caveats if c.kind == "refinement_disturbed"}
        usable = [m for m in run.measurements if m.launch not in disturbed]
        main = result.main.key.pattern if result.main is not None else None
        # anchors: the main pattern's sizes nearest each interval, a refinement's included, so that
        # a later round has close sizes on both sides of the switch (a step at an interval's end
        # with only far sizes beyond it cannot be told from a spike)
        step = next_step(result, {m.bytes for m in usable},
                         {m.bytes for m in usable if m.pattern == main} | set(run.info.plan.sizes))
        if last_look is not None:  # the analysis only where it is the whole one: collectives unnamed here
            last_look[:] = [run, result if result.collectives is None else None]
        if step is None:
            return made
        paces = [(m.bytes, m.elapsed_s, len(m.samples_s)) for m in usable if m.pattern == step.pattern]
        last = made == MAX_REFINE_ROUNDS - 1

        def share_of(sizes: tuple[int, ...]) -> float | None:
            need = sum(budgets.size_floor_s(size, paces) for size in sizes)
            return budgets.round_share(end_s - time.monotonic(), need, last=last, overhead_s=overhead_s)

        share = share_of(step.sizes)
        if share is None:  # too little time for every interval: those that fit, in order of priority
            whole, kept = step, []
            for bracket in by_priority(result, whole.brackets):
                trial = next_step(result, {m.bytes for m in usable},
                                  {m.bytes for m in usable if m.pattern == main} | set(run.info.plan.sizes),
                                  keep=kept + [bracket])
                trial_share = share_of(trial.sizes) if trial is not None else None
                if trial_share is not None:
                    kept.append(bracket)
                    step, share = trial, trial_share
            left = [b for b in whole.brackets if b not in kept and b not in said]
            said.update(left)  # a later round short of time for them too says nothing again
            if left:
                note(f"{'not refined' if made == 0 else 'refinement stopped'}" + (" in part" if kept else "")
                     + f": {why} is spent; left as measured: " + _brackets_text(left) + fix)
            if not kept:
                return made
        p = run.info.plan
        refine_plan = msgspec.structs.replace(p, patterns=(step.pattern,), sizes=step.sizes, total_time_s=share)
        again = next_index + made - 1 if step.sizes == previous and next_index + made - 1 in disturbed else None
        if last_look is not None:
            last_look.clear()  # the file is about to change (the session's launch forgets it too)
        launch(next_index + made, "--append", refine_plan,
               LaunchStart(index=next_index + made, ordinal=made, total=MAX_REFINE_ROUNDS, sizes=step.sizes,
                           expected_records=0, refining=True,
                           detail=round_detail(step, again)))
        previous = step.sizes
        made += 1
    return made
