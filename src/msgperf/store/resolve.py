"""Every command that takes a run takes a run file or a run id: ``msgperf show 12``.

An existing path is read as a file (and nothing else is tried); an integer is a run id in the
store; anything else is an error that says which of the two was expected.
"""

from __future__ import annotations

import re
from pathlib import Path

from msgperf.errors import MsgperfError
from msgperf.records.format import Run
from msgperf.records.importers import load_file
from msgperf.store.db import open_store
from msgperf.store.listing import RunRow

_ID = re.compile(r"#?(\d{1,18})\Z")


def resolve_run(arg: str, db: str | None = None) -> Run:
    """The run named by ``arg``: a run file (or JSON export) path, or a stored run's id."""
    return resolve_run_ref(arg, db)[0]


def resolve_run_ref(arg: str, db: str | None = None) -> tuple[Run, RunRow | None]:
    """(run, its store row or None when it came from a file)."""
    text = str(arg)
    path = Path(text)
    if path.exists():
        if path.is_dir():
            raise MsgperfError(f"{text}: is a directory; give a run file or a run id")
        result, _ = load_file(path)
        return result.run, None
    match = _ID.match(text.strip())
    if match:
        with open_store(db, create=False) as store:
            run_id = int(match.group(1))
            return store.load_run(run_id), store.get_row(run_id)
    raise MsgperfError(f"no run file or run id '{text}' (a run id is a number that "
                      "'msgperf runs' lists; a run file is a path that exists)")
