"""Whether a file msgperf derives (a report, a plot, an export, a batch script) may be written
where a file already exists.

- A file that holds measurements (a msgperf run file, a profile, an SQLite database) is never
  replaced by a derived file, not even with ``--force``: it may be the only copy of a measurement.
- Anything else that exists is replaced only with ``--force``, except msgperf's own earlier
  output of the same kind at the name msgperf chose itself (the report beside a run file,
  ``msgperf-slurm.sh``): writing that again is the point of running the command again.

Run files that ``msgperf run -o`` writes have their own guard (launch/run_file_guard.py): it may
replace a run file with ``--force``, because it writes one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from msgperf.errors import MsgperfError

# The first line of a run file or a profile is a few KB; a longer one is neither.
_FIRST_LINE_LIMIT = 1 << 20
_SQLITE_HEADER = b"SQLite format 3\x00"


def measurements_in(path: Path) -> str | None:
    """What measurements ``path`` holds ("a msgperf run file", "a msgperf profile", "an SQLite
    database"), or None. Reads the first record's line only, so a large file is never read whole."""
    try:
        with path.open("rb") as f:
            first = f.readline(_FIRST_LINE_LIMIT)
            for _ in range(100):  # the reader skips blank lines before the first record; so does this
                if first.strip() or not first:
                    break
                first = f.readline(_FIRST_LINE_LIMIT)
    except OSError:
        return None
    if first.startswith(_SQLITE_HEADER):
        return "an SQLite database"
    try:
        kind = json.loads(first).get("type")
    except (ValueError, AttributeError, RecursionError):
        return None
    return {"run": "a msgperf run file", "profile": "a msgperf profile"}.get(kind)


def check_replace(path: Path, force: bool, *, what: str, option: str = "-o",
                  ours: Callable[[Path], bool] | None = None) -> None:
    """Raise a one-line MsgperfError unless ``what`` (e.g. "the report") may be written to
    ``path``. ``ours``: given only for a name msgperf chose itself, tells whether the file there
    is msgperf's own earlier output of this kind (replaced without ``--force``)."""
    if not path.exists() and not path.is_symlink():
        return
    if path.is_dir():
        raise MsgperfError(f"{option} {path}: is a directory; give a file name")
    if not path.is_file():
        raise MsgperfError(f"{option} {path}: exists and is not a regular file (a pipe, device or broken link); "
                           "msgperf never replaces it; choose another name")
    held = measurements_in(path)
    if held is not None:
        raise MsgperfError(f"{option} {path}: the file exists and is {held}; msgperf never replaces measurements "
                           f"with {what} (not even with --force); choose another name")
    if force or (ours is not None and ours(path)):
        return
    if ours is not None:
        raise MsgperfError(f"{path}: the file exists and is not msgperf's {what.removeprefix('the ')}; "
                           f"name another with {option} FILE, or pass --force to replace it")
    raise MsgperfError(f"{option} {path}: the file exists; choose another name, or pass --force to replace it")
