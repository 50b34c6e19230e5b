"""Options more than one command takes, declared once: ``--db``, and the plan options that
``msgperf run`` and ``msgperf slurm`` share (what to measure; validated once, by ``Plan.checked``).
A module whose name starts with "_" is not a subcommand (cli.LazyGroup)."""

from __future__ import annotations

import functools
from collections import Counter
from typing import Callable

import click

from msgperf.errors import MsgperfError
from msgperf.plan import PLACEMENTS, Plan, parse_active, parse_fraction, parse_pair, parse_seconds, parse_sizes
from msgperf.values import Value

DB_HELP = "Result database (default: $MSGPERF_HOME/msgperf.db or ~/.local/share/msgperf/msgperf.db)."

db_option = click.option("--db", type=click.Path(dir_okay=False), help=DB_HELP)


class PlanOptions(Value):
    """The plan options as given (text, before parsing)."""

    patterns: tuple[str, ...]
    sizes: str
    precision: str
    total_time: str | None
    time_budget: str | None
    buffer: str
    min_samples: int
    max_samples: int
    iterations_per_sample: int | None
    active: str | None
    pair: str
    placement: str | None
    root: str
    iteration_barrier: bool
    off_cache: bool
    model_patterns: bool = True

    def plan(self, nranks: int, warn: Callable[[str], None] | None = None, family: str | None = None) -> Plan:
        """The checked plan for ``nranks`` ranks; a bad value is a MsgperfError that names it. ``family``:
        whose algorithms' steps the model patterns are read from (``steps_family`` of the kernels'
        MPI; None: every MPI's)."""
        if self.total_time is not None and self.time_budget is not None:
            raise MsgperfError("--total-time and --time-budget: give one (a budget for the whole command, or one "
                               "per size)")
        pair = parse_pair(self.pair)
        if self.placement is not None and pair != (0, 1):
            raise MsgperfError(f"--pair {pair[0]}:{pair[1]} and --placement {self.placement} both choose the measured "
                               "pair; give one of them")
        listed = parse_sizes(self.sizes)
        twice = sorted(s for s, n in Counter(listed).items() if n > 1)
        if twice and warn is not None:
            warn(f"note: --sizes lists {', '.join(f'{s} B' for s in twice)} more than once; each size is "
                 "measured once")
        patterns = tuple(dict.fromkeys(self.patterns)) or ("pingpong",)
        if self.model_patterns:
            patterns = with_model_patterns(patterns, nranks, warn, family,
                                           back_to_back=not self.iteration_barrier and self.root != "rotate")
        return Plan(patterns=patterns, sizes=listed, nranks=nranks,
                    pair=pair, buffer=self.buffer, precision=parse_fraction(self.precision),
                    time_budget_s=parse_seconds(self.time_budget) if self.time_budget is not None else 1.0,
                    total_time_s=(parse_seconds(self.total_time) if self.total_time is not None
                                  else None if self.time_budget is None else 0.0),
                    min_samples=self.min_samples, max_samples=self.max_samples,
                    placement=self.placement or "pair", active=parse_active(self.active) if self.active else (),
                    iterations_per_sample=self.iterations_per_sample, root=self.root,
                    iteration_barrier=self.iteration_barrier, off_cache=self.off_cache).checked()


def with_model_patterns(patterns: tuple[str, ...], nranks: int, warn: Callable[[str], None] | None,
                        family: str | None = None, back_to_back: bool = True) -> tuple[str, ...]:
    """``patterns`` with the point-to-point patterns their collectives' predictions are made from
    put first (those not given), said in a note; ``back_to_back``: the collectives' calls run back to
    back from one root (no --iteration-barrier, no --root rotate)."""
    from msgperf.analysis.collectives import model_patterns  # numpy and the models: only when a plan is made
    added = tuple(p for p in model_patterns(patterns, nranks, family, back_to_back) if p not in patterns)
    if added and warn is not None:
        warn(f"note: measuring {', '.join(added)} too, size by size beside the collectives: their predictions "
             "are made from these (--no-model-patterns: only the patterns given)")
    return added + patterns


# (parameter name, flag, click option), in the order --help lists them
_PLAN_OPTIONS = (
    ("patterns", "--pattern", click.option(
        "--pattern", "patterns", multiple=True, metavar="NAME",
        help="Pattern to measure; repeat for several (default pingpong).")),
    ("placement", "--placement", click.option(
        "--placement", type=click.Choice(PLACEMENTS), default=None,
        help="Choose the measured pair from the rank->host map: two ranks on one node (intra), on different "
             "nodes (inter), or both pairs one after the other (instead of --pair; msgperf slurm: inter "
             "unless --pair is given).")),
    ("active", "--active", click.option(
        "--active", metavar="N,...", help="pairs: measure only these steps of its contention sweep "
        "(concurrent pairs 1, 2, 4 ... P/2; default all).")),
    ("pair", "--pair", click.option(
        "--pair", default="0:1", show_default=True,
        help="Measured ranks A:B (A sends first); other ranks idle.")),
    ("sizes", "--sizes", click.option(
        "--sizes", default="0:64M", show_default=True,
        help="Sizes: a list 0,1,4K, a power-of-two range 1:64M, or 1:64M:4 (K, M, G = 1024-based); "
             "OSU's -m MIN:MAX in bytes means the same, e.g. 1:4194304.")),
    ("precision", "--precision", click.option(
        "--precision", default="1%", show_default=True,
        help="Stop sampling a size when the 95% CI of its median is within ± this.")),
    ("total_time", "--total-time", click.option(
        "--total-time", default=None, metavar="DURATION",
        help="One wall-clock budget for the whole command (e.g. 10s, 2m), from its start to the answer "
             "and the report: the build check, the sweep, the eager probe, the refinement and the "
             "analysis. The sweep gets what is left after shares for the others, and its sizes share it "
             "(those that reach the precision early hand their time on); a size that cannot reach the "
             "precision in it says so. Default: 10 s for up to 28 measurements, 0.36 s more for each "
             "one beyond, times --repeat (msgperf slurm: the kernels' launch alone).")),
    ("time_budget", "--time-budget", click.option(
        "--time-budget", default=None, metavar="DURATION",
        help="A fixed time budget for every size instead of one for the command (e.g. 1s, 500ms): the "
             "command then takes as long as its sizes need.")),
    ("buffer", "--buffer", click.option(
        "--buffer", type=click.Choice(["separate", "inplace"]), default="separate", show_default=True,
        help="Separate send and receive buffers, or one buffer in place (data really crosses cores).")),
    ("min_samples", "--min-samples", click.option("--min-samples", type=int, default=20, show_default=True)),
    ("max_samples", "--max-samples", click.option("--max-samples", type=int, default=1_000_000, show_default=True)),
    ("iterations_per_sample", "--iterations-per-sample", click.option(
        "--iterations-per-sample", type=int, default=None, metavar="K",
        help="Iterations each sample times (k), instead of calibrating k so a sample lasts >= 20 µs; "
             "1: one sample per round trip (per-iteration samples; short ones are near the clock's "
             "resolution, which the caveats say).")),
    ("root", "--root", click.option(
        "--root", type=click.Choice(["0", "rotate"]), default="0", show_default=True,
        help="Collectives with a root (bcast, reduce): rank 0 every iteration (as OSU), or rotate it, "
             "iteration mod P (as IMB).")),
    ("iteration_barrier", "--iteration-barrier", click.option(
        "--iteration-barrier", is_flag=True,
        help="Collectives: time one call per sample, each after an MPI_Barrier outside the timing (as OSU); "
             "default: k calls back to back, so a rank may start the next call while another is still in "
             "the last one (as IMB).")),
    ("model_patterns", "--[no-]model-patterns", click.option(
        "--model-patterns/--no-model-patterns", default=True, show_default=True,
        help="With a collective (allreduce, bcast, alltoall, reduce, allgather, reduce-scatter-block, barrier): "
             "also measure the point-to-point patterns its algorithms' predictions are made from (pingpong; "
             "sendrecv, memcpy, reduce-local, sendrecv-reduce, sendrecv-indexed, self-message, exchange-init, "
             "send-stream as "
             "the algorithms need them), "
             "size by size "
             "beside it.")),
    ("off_cache", "--off-cache", click.option(
        "--off-cache", is_flag=True,
        help="Collectives: cycle through buffer sets that together exceed twice the last-level cache, so no "
             "call finds its buffers cached (as IMB -off_cache); default: the same buffers every call.")),
)
PLAN_FLAGS = {name: flag for name, flag, _ in _PLAN_OPTIONS}  # parameter name -> its flag


def plan_options(f: Callable) -> Callable:
    """Add the plan options to a command; it receives them as one ``plan_options: PlanOptions``."""
    @functools.wraps(f)
    def command(**kwargs):
        given = PlanOptions(**{name: kwargs.pop(name) for name in PLAN_FLAGS})
        return f(plan_options=given, **kwargs)

    for _, _, option in reversed(_PLAN_OPTIONS):
        command = option(command)
    return command
