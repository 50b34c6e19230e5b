"""Where the results store lives (docs/store.md): ``--db``, else ``$MSGPERF_HOME/msgperf.db``,
else the user's data directory. Kept apart from the store itself so that finding the file does
not import the records."""

from __future__ import annotations

import os
from pathlib import Path

DB_NAME = "msgperf.db"


def default_path() -> Path:
    """``$MSGPERF_HOME/msgperf.db``, else the user's data directory (XDG)."""
    home = os.environ.get("MSGPERF_HOME")
    if home:
        return Path(home).expanduser() / DB_NAME
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data).expanduser() / "msgperf" / DB_NAME
