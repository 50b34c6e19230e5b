"""``msgperf label ID TEXT``: name a stored run."""

from __future__ import annotations

import click

from msgperf.commands._options import db_option
from msgperf.errors import MsgperfError
from msgperf.data_text import printable
from msgperf.store.db import open_store

MAX_RUN_ID = 2**63 - 1  # SQLite's largest INTEGER
MAX_LABEL = 200  # characters; a label is a name, shown in every listing


def check_label(label: str) -> str:
    """A label as given (``label`` and ``import --label``), or a one-line error."""
    try:
        label.encode("utf-8")
    except UnicodeEncodeError:  # bytes the terminal's encoding could not decode (surrogate escapes)
        raise MsgperfError("the label is not valid text in the terminal's encoding; write it in UTF-8") from None
    if len(label) > MAX_LABEL:
        raise MsgperfError(f"a label of {len(label)} characters is too long; use at most {MAX_LABEL}")
    return label


@click.command("label")
@click.argument("run_id", metavar="ID", type=int)
@click.argument("text", nargs=-1)
@db_option
def command(run_id: int, text: tuple[str, ...], db: str | None) -> None:
    """Set the label of stored run ID (no TEXT clears it)."""
    label = check_label(" ".join(text).strip())
    if not 1 <= run_id <= MAX_RUN_ID:
        raise MsgperfError(f"run id {run_id} is out of range (ids are 1 to {MAX_RUN_ID}); "
                           "'msgperf runs' lists the stored runs")
    with open_store(db, create=False) as store:
        store.set_label(run_id, label)
    click.echo(f"run {run_id}: " + (f"label '{printable(label)}'" if label else "label cleared"))
