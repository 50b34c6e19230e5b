"""msgperf advise RUN --collective NAME -k K -s S: K collectives of S bytes against one of K·S, and
the algorithm the model favours per size with the MPI's variable to select it (options -> load ->
analysis/collectives/advice.py -> present/collectives_text.py)."""

from __future__ import annotations

import click

from msgperf.analysis.collectives import COLLECTIVES
from msgperf.errors import MsgperfError


def advise_on_collective(run: str, collective: str, messages: int, size: str, db: str | None,
                         launch: int | None, ranks: int | None, as_json: bool) -> None:
    from msgperf.analysis.advice import hold_collective
    from msgperf.commands.advise import answer_rules
    from msgperf.analysis.collectives import collective_advice
    from msgperf.analysis.samples import AnalysisError
    from msgperf.loader import load_analyzed
    from msgperf.plan import parse_size
    from msgperf.present.collectives_text import render_collective_advice
    from msgperf.present.json_view import collective_advice_dict, dumps
    from msgperf.present.terminal import console

    name = collective.replace("-", "_").lower()
    if name not in COLLECTIVES:
        raise MsgperfError(f"--collective {collective!r}: not one of {', '.join(COLLECTIVES)}")
    nbytes = parse_size(size)
    loaded, result = load_analyzed(run, db, launch=launch)
    if result.collectives is None or result.collectives.p2p is None:
        why = ("it measured no collective and no ping-pong model to predict one from" if result.collectives is None
               else result.collectives.why_not)
        if result.collectives is None and result.main is not None:
            why = "it measured no collective (measure one with msgperf run --pattern allreduce)"
        raise MsgperfError(f"{run}: cannot advise on {name}: {why}")
    try:
        advice = collective_advice(result.collectives, name, messages, nbytes, ranks)
    except AnalysisError as exc:
        raise MsgperfError(str(exc)) from None
    launches = [l for l in getattr(loaded.run, "launches", ()) if launch is None or getattr(l, "index", launch) == launch]
    measured_while, conditions = answer_rules(result)
    held = hold_collective(advice, result.rows, measured_while, conditions, [l.environment for l in launches])
    if as_json:
        click.echo(dumps(collective_advice_dict(held), indent=2))
    else:
        render_collective_advice(console(), held)
