"""Where msgperf keeps what it can make again (docs/store.md): ``$MSGPERF_CACHE/<part>``, else
``$XDG_CACHE_HOME/msgperf/<part>`` (``~/.cache/msgperf/<part>``). The parts: ``kernels`` (the
compiled kernels, launch/build.py, and the last run's finish times, launch/budget.py) and
``analysis`` (analysis_cache.py).

``output`` was the output-replay cache of an older msgperf (removed: it replayed printed bytes
under hand-built keys and unpickled its entries); ``remove_old_output_cache`` deletes that one
directory when it is found."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

OLD_OUTPUT_CACHE = "output"
_OLD_ENTRY = re.compile(r"[0-9a-f]{64}\.pickle")  # an entry of that cache: the digest of its key


def cache_dir(part: str) -> Path:
    """The directory of one part of msgperf's cache (it may not exist yet)."""
    env = os.environ.get("MSGPERF_CACHE")
    if env:
        return Path(env) / part
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "msgperf" / part


def remove_old_output_cache() -> None:
    """Delete the older msgperf's output-replay cache, quietly: that directory when it is a
    directory of this user's holding nothing but that cache's entries (``<sha256>.pickle``). A
    link of that name, or an ``output`` directory with anything else in it (``$MSGPERF_CACHE`` may
    point at a folder of the user's), is left alone."""
    path = cache_dir(OLD_OUTPUT_CACHE)
    try:
        st = os.lstat(path)
        if not (stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()):
            return
        entries = list(os.scandir(path))
        if not all(_OLD_ENTRY.fullmatch(e.name) and e.is_file(follow_symlinks=False) for e in entries):
            return
        for e in entries:
            os.unlink(e.path)
        os.rmdir(path)
    except OSError:
        return
