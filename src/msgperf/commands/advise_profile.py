"""msgperf advise --profile P [--model RUN]: the wiring. Loads the profile (a file or a stored
profile id) and the model run (a run file or id; by default the newest stored ping-pong run that
matches the program's conditions: analysis/advice/model_choice.py), analyses the run once and hands both to analysis/advice/profile_advice.py; the
report (msgperf report --profile P) loads them the same way. Several profiles (--profile repeated):
runs of one program, each advised with the one model and merged (analysis/advice/profile_runs.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from msgperf.errors import MsgperfError

# Runs whose conditions are read (each one loaded) before the choice gives up: the newest that the
# listing lets through; an older run is rarely the better model of today's machine.
MAX_LOADED = 20


def default_model(profile: Any, db: str | None) -> Any:
    """The ``ModelChoice`` (analysis/advice/model_choice.py): the newest stored ping-pong run that matches
    the profile's MPI, hosts, placement and ranks and ran neither oversubscribed nor disturbed; a
    one-line error naming how to get one when none does."""
    from msgperf.analysis.launches import run_conditions
    from msgperf.analysis.advice import choose, listing_misfit, refusal, wanted_of
    from msgperf.records.mpi_name import mpi_name
    from msgperf.store.db import open_store
    from msgperf.store.listing import RunFilter

    wanted = wanted_of(profile, mpi_name(profile.info))
    candidates: list[tuple[Any, Any]] = []
    try:
        with open_store(db, create=False) as store:  # reading only: no database is none to choose from
            # the index answers source and pattern (a store of years of runs); the rest is exact
            rows = store.list_runs(RunFilter(source="msgperf", pattern="pingpong"))
            rows.sort(key=lambda r: (r.time is not None, r.time or 0, r.id), reverse=True)
            loaded = 0
            for row in rows:
                if listing_misfit(row, wanted) or loaded >= MAX_LOADED:
                    candidates.append((row, None))
                    continue
                loaded += 1
                try:  # one damaged run is set aside, not every candidate with it
                    candidates.append((row, run_conditions(store.load_run(row.id))))
                except MsgperfError:
                    candidates.append((row, None))
    except MsgperfError:  # no database, or one that cannot be listed: nothing to choose from
        pass
    # runs of other MPIs or hosts are not worth naming as set aside: only the near misses are
    near = [(r, c) for r, c in candidates if r.mpi == wanted.mpi and set(r.hosts) == wanted.hosts]
    choice, skipped = choose(near, wanted)
    if choice is None:
        raise MsgperfError(refusal(wanted, skipped))
    return choice


def load_model(profile: Any, model_arg: str | None, db: str | None, pattern: str | None, variant: str | None,
               placement: str | None, launch: int | None, choice: Any = None) -> tuple[Any, Any, str, str]:
    """The model run's analysis, its series, its label and the line that says why it was taken
    (``model_arg`` as given, or the default model for ``profile``)."""
    from msgperf.commands.fit import load_series

    if model_arg is not None:
        model, why = model_arg, f"model: {model_arg}, as given"
    else:
        choice = choice or default_model(profile, db)
        model, why = str(choice.run_id), choice.why
        placement = placement or choice.placement or None
    result, series = load_series(model, db, pattern, variant, placement, launch)
    if model_arg is not None:
        from msgperf.analysis.advice import conditions_misfit
        bad = conditions_misfit(result.conditions)
        why += f"; but {bad}: its times may not be this machine's" if bad else ""
    return result, series, model if Path(model).is_file() else f"run {model.lstrip('#')}", why


def profile_advice(profile_arg: str, model_arg: str | None, db: str | None, pattern: str | None = None,
                   variant: str | None = None, placement: str | None = None,
                   launch: int | None = None, choice: Any = None) -> Any:
    """Load, analyse once, advise: the ``ProfileAdvice`` (``choice``: the default model, when the
    caller has chosen it already)."""
    from msgperf.analysis import AnalysisError
    from msgperf.analysis.advice import advise_profile
    from msgperf.loader import load_recorded_profile

    profile, label = load_recorded_profile(profile_arg, db, "advise on")
    result, series, model_label, why = load_model(profile, model_arg, db, pattern, variant, placement, launch,
                                                  choice)
    try:
        return advise_profile(profile, result, series, profile_label=label, model_label=model_label,
                              model_choice=why)
    except AnalysisError as exc:
        raise MsgperfError(str(exc)) from None


def advise_on_profile(profile_arg: str, model_arg: str | None, db: str | None, pattern: str | None,
                      variant: str | None, placement: str | None, launch: int | None, as_json: bool) -> None:
    from msgperf.present.json_view import dumps, profile_advice_dict
    from msgperf.present.profile_advice_text import render_profile_advice
    from msgperf.present.terminal import console

    advice = profile_advice(profile_arg, model_arg, db, pattern, variant, placement, launch)
    if as_json:
        click.echo(dumps(profile_advice_dict(advice), indent=2))
    else:
        from msgperf.present.profile_advice_text import render_whole_program

        render_profile_advice(console(), advice)
        render_whole_program(console(), advice)


def advise_on_profile_runs(profile_args: tuple[str, ...], model_arg: str | None, db: str | None, pattern: str | None,
                           variant: str | None, placement: str | None, launch: int | None, as_json: bool) -> None:
    """advise --profile A --profile B ...: several runs of one program, one model (chosen for the first
    run's conditions), each run advised and the runs merged (analysis/advice/profile_runs.py)."""
    from msgperf.analysis import AnalysisError
    from msgperf.analysis.advice import advise_profile_runs, check_same_program
    from msgperf.loader import load_recorded_profile
    from msgperf.present.json_view import dumps, profile_runs_advice_dict
    from msgperf.present.profile_advice_text import render_profile_runs_advice
    from msgperf.present.terminal import console

    loaded = [load_recorded_profile(arg, db, "advise on") for arg in profile_args]
    try:  # different programs are refused before a model is sought for them
        check_same_program([p for p, _ in loaded], [label for _, label in loaded])
        result, series, model_label, why = load_model(loaded[0][0], model_arg, db, pattern, variant, placement,
                                                      launch)
        advice = advise_profile_runs([p for p, _ in loaded], [label for _, label in loaded], result, series,
                                     model_label=model_label, model_choice=why)
    except AnalysisError as exc:
        raise MsgperfError(str(exc)) from None
    if as_json:
        click.echo(dumps(profile_runs_advice_dict(advice), indent=2))
    else:
        render_profile_runs_advice(console(), advice)
