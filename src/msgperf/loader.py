"""The one reading module: every command that reads a run takes a stored run id or a file of any
tool msgperf reads — a msgperf run file, a msgperf JSON export, an output of OSU Micro-Benchmarks,
the Intel MPI Benchmarks or NetPIPE (recognised by its content, so OSU's microseconds are read as
microseconds), or a two-column text file of samples (bytes and seconds per line).

- ``load(arg, db) -> Loaded``: the ``Run``, its store row when it came from the store, and notes
  (a cut-off last line, an imported output's skipped lines) for the command to print;
- ``load_analyzed(arg, db, ...) -> (Loaded, RunResult)``: the same and its analysis, from the
  analysis cache (analysis_cache.py, used by nothing else) while the run is unchanged;
- ``load_profile(arg, db) -> (Profile, label)``: a profile file or a stored profile's id;
- ``stored_id(arg)``: the one rule for what names a stored run or profile (``12``, ``#12``).
"""

from __future__ import annotations

import re
from typing import Any
from pathlib import Path

import numpy as np

from msgperf import __version__, analysis_cache
from msgperf.errors import MsgperfError
from msgperf.records.format import FORMAT_VERSION, Measurement, Plan, Run, RunInfo
from msgperf.records.importers import TOOLS, guess_tool, load_file, parse_foreign
from msgperf.records.importers.text import read_text
from msgperf.records.samples_text import is_run_file, read_samples_text
from msgperf.store.listing import RunRow
from msgperf.values import Value

_ID = re.compile(r"#?(\d{1,18})\Z")


def stored_id(arg: str) -> int | None:
    """The stored run's or profile's id that ``arg`` names (``12``, ``#12``), or None."""
    match = _ID.match(str(arg).strip())
    return int(match.group(1)) if match else None


class Loaded(Value):
    run: Run
    row: RunRow | None  # the store's row when the run came from the store
    notes: tuple[str, ...] = ()


def samples_run(path: str | Path) -> Run:
    """A two-column samples file as a run: one measurement per size whose samples are the
    file's times (one time per message, as the file gives them)."""
    samples = read_samples_text(path)
    sizes = sorted(set(int(b) for b in samples.bytes))
    measurements = tuple(
        Measurement(pattern="samples", bytes=s, buffer="", ranks=(0, 1), k=1, divisor=1,
                    samples_s=samples.seconds[samples.bytes == s].astype(np.float64), stop_reason="imported",
                    validated=True, metric="as_given", timing="as given in the file")
        for s in sizes)
    plan = Plan(patterns=("samples",), sizes=tuple(sizes), buffer="", pair=(0, 1), nranks=2, precision=0.0,
                time_budget_s=0.0, min_samples=0, max_samples=0)
    info = RunInfo(format_version=FORMAT_VERSION, msgperf_version=__version__,
                   command_line=f"samples file {Path(path).name}", start_time="", plan=plan, source="samples")
    return Run(info=info, launches=(), measurements=measurements, path=str(path))


def _from_file(path: Path) -> Loaded:
    if path.is_dir():
        raise MsgperfError(f"{path}: is a directory; give a run file or a run id")
    with open(path, "rb") as f:
        head = f.read(20000).decode("utf-8", errors="replace")
    if not head.strip():  # as the run-file reader says it (not "no samples" of a samples file)
        raise MsgperfError(f"{path}: the file is empty; it holds no run (was the job killed before it started?)")
    tool = guess_tool(head)
    if tool in TOOLS:
        result = parse_foreign(tool, read_text(path), str(path))
        return Loaded(result.run, None, tuple(result.notes))
    if tool == "msgperf" or is_run_file(path):
        result, _ = load_file(path)
        return Loaded(result.run, None, tuple(result.notes))
    return Loaded(samples_run(path), None)


def load(arg: str, db: str | None = None) -> Loaded:
    """The run named by ``arg``: an existing file (of any tool above), or a stored run's id."""
    text = str(arg)
    path = Path(text)
    if path.exists():
        return _from_file(path)
    run_id = stored_id(text)
    if run_id is not None:
        from msgperf.store.db import open_store  # noqa: PLC0415 (only commands given an id need SQLite)

        with open_store(db, create=False) as store:
            return Loaded(store.load_run(run_id), store.get_row(run_id))
    raise MsgperfError(f"no run file or run id '{text}': no such file, and a run id is a number "
                       "that 'msgperf runs' lists")


def load_analyzed(arg: str, db: str | None = None, *, launch: int | None = None,
                  tolerance: float | None = None, confidence: float = 0.95) -> tuple[Loaded, Any]:
    """``load`` and ``analyze`` once, or both from the cache when this run, as it is now, was
    analysed before by this code (msgperf/analysis_cache.py): (Loaded, RunResult)."""
    from msgperf.analysis.model import TOLERANCE  # noqa: PLC0415

    tolerance = TOLERANCE if tolerance is None else tolerance
    options = (launch, tolerance, confidence)
    text = str(arg)
    key: str | None = None
    row = None
    run_id = None if Path(text).exists() else stored_id(text)
    if run_id is not None:
        from msgperf.store.db import open_store  # noqa: PLC0415

        with open_store(db, create=False) as store:
            row = store.get_row(run_id)
            key = analysis_cache.stored_key(store.content_now(run_id))
    elif not Path(text).is_dir():
        key = analysis_cache.file_key(text)  # None when there is no such file: load says so
    cached = analysis_cache.get(key, options)
    if cached is not None:
        run, notes, result = cached
        return Loaded(run, row, notes), result
    from msgperf.analysis.result import analyze  # noqa: PLC0415

    loaded = load(arg, db)
    result = analyze(loaded.run, launch=launch, tolerance=tolerance, confidence=confidence)
    analysis_cache.put(key, options, (loaded.run, loaded.notes, result))
    return loaded, result


def load_profile(arg: str, db: str | None = None) -> tuple[Any, str]:
    """(Profile, its label): a profile file, or a stored profile's id."""
    from msgperf.records.profile_read import read_profile  # noqa: PLC0415 (profiles only)

    path = Path(arg)
    if path.is_file():
        return read_profile(path).profile, str(path)
    profile_id = stored_id(arg)
    if profile_id is not None:
        from msgperf.store.db import open_store  # noqa: PLC0415

        with open_store(db, create=False) as store:
            return store.load_profile(profile_id), f"profile {profile_id}"
    raise MsgperfError(f"no profile file or profile id '{arg}': no such file, and a profile id is a number "
                       "that 'msgperf runs --source profile' lists")


def load_recorded_profile(arg: str, db: str | None, purpose: str) -> tuple[Any, str]:
    """``load_profile``, refusing in one line a profile no rank wrote to (``purpose``: "advise on")."""
    profile, label = load_profile(arg, db)
    if not profile.ranks:
        raise MsgperfError(f"{label}: no rank left a record (not an MPI program, or every rank was killed "
                           f"before writing its part); nothing to {purpose}")
    return profile, label
