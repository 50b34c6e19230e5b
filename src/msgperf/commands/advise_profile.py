"""msgperf advise --profile P [--model RUN]: the wiring. Loads the profile (a file or a stored
profile id) and the model run (a run file or id; by default the newest stored ping-pong run of the
profile's hosts and MPI), analyses the run once and hands both to analysis/profile_advice.py; the
report (msgperf report --profile P) loads them the same way."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click

from msgperf.errors import MsgperfError

_ID = re.compile(r"#?(\d{1,18})\Z")


def load_profile(arg: str, db: str | None) -> tuple[Any, str]:
    """(Profile, its label): a profile file, or a stored profile's id."""
    from msgperf.records.profile_read import read_profile
    from msgperf.store.db import open_store

    path = Path(arg)
    if path.is_file():
        result = read_profile(path)
        return result.profile, str(path)
    match = _ID.match(arg.strip())
    if match:
        with open_store(db, create=False) as store:
            return store.load_profile(int(match.group(1))), f"profile {match.group(1)}"
    raise MsgperfError(f"no profile file or profile id '{arg}': no such file, and a profile id is a number "
                       "that 'msgperf runs --source profile' lists")


def default_model(profile: Any, db: str | None) -> str:
    """The id of the newest stored ping-pong run measured by msgperf on the profile's hosts with
    its MPI (the same MPI name, the same set of hosts); a one-line error when there is none."""
    from msgperf.records.mpi_name import mpi_name
    from msgperf.store.db import open_store
    from msgperf.store.listing import RunFilter

    mpi = mpi_name(profile.info)
    hosts = {h for h in profile.info.hosts if h}
    try:
        with open_store(db, create=False) as store:  # reading only: no database is none to choose from
            # the index answers source and pattern (a store of years of runs); the rest is exact
            rows = [r for r in store.list_runs(RunFilter(source="msgperf", pattern="pingpong"))
                    if "pingpong" in r.patterns and r.mpi == mpi and set(r.hosts) == hosts]
    except MsgperfError:
        rows = []
    if not rows:
        raise MsgperfError(f"no stored ping-pong run on {', '.join(sorted(hosts)) or 'the profile’s hosts'} with "
                           f"{mpi} to predict from; measure one (msgperf run) or pass --model RUN")
    rows.sort(key=lambda r: (r.time is not None, r.time or 0, r.id))
    return str(rows[-1].id)


def profile_advice(profile_arg: str, model_arg: str | None, db: str | None, pattern: str | None = None,
                   variant: str | None = None, placement: str | None = None,
                   launch: int | None = None) -> Any:
    """Load, analyse once, advise: the ``ProfileAdvice``."""
    from msgperf.analysis import AnalysisError
    from msgperf.analysis.profile_advice import advise_profile
    from msgperf.commands.fit import load_series

    profile, label = load_profile(profile_arg, db)
    if not profile.ranks:
        raise MsgperfError(f"{label}: no rank left a record (not an MPI program, or every rank was killed "
                           "before writing its part); nothing to advise on")
    model = model_arg if model_arg is not None else default_model(profile, db)
    result, series = load_series(model, db, pattern, variant, placement, launch)
    model_label = model if Path(model).is_file() else f"run {model.lstrip('#')}"
    try:
        return advise_profile(profile, result, series, profile_label=label, model_label=model_label)
    except AnalysisError as exc:
        raise MsgperfError(str(exc)) from None


def advise_on_profile(profile_arg: str, model_arg: str | None, db: str | None, pattern: str | None,
                      variant: str | None, placement: str | None, launch: int | None, as_json: bool) -> None:
    from msgperf.present.json_view import profile_advice_dict
    from msgperf.present.profile_advice_text import render_profile_advice
    from msgperf.present.terminal import console

    advice = profile_advice(profile_arg, model_arg, db, pattern, variant, placement, launch)
    if as_json:
        click.echo(json.dumps(profile_advice_dict(advice), indent=2, allow_nan=False))
    else:
        render_profile_advice(console(), advice)
