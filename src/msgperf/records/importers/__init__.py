"""Files from elsewhere -> ``Run``: msgperf run files and JSON exports, and the text outputs
of OSU Micro-Benchmarks, Intel MPI Benchmarks and NetPIPE (imported summaries, no raw samples).

``load_file(path, tool=None)`` is the one entry point; ``tool`` is ``None`` for msgperf's own
files, else one of ``TOOLS``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from msgperf.records.format import RecordError
from msgperf.records.export_json import looks_exported, parse_export
from msgperf.records.importers.imb import parse_imb
from msgperf.records.importers.netpipe import parse_netpipe
from msgperf.records.importers.osu import parse_osu
from msgperf.records.importers.peer_run import ImportResult
from msgperf.records.importers.text import ForeignFormatError, read_text
from msgperf.records.runfile_read import read_run

TOOLS: dict[str, Callable[[str, str], ImportResult]] = {
    "osu": parse_osu,
    "imb": parse_imb,
    "netpipe": parse_netpipe,
}
MAX_EXPORT_BYTES = 4 << 30  # as records.read for run files
TOOL_NAMES = {"osu": "OSU Micro-Benchmarks", "imb": "Intel MPI Benchmarks", "netpipe": "NetPIPE"}

__all__ = ["TOOLS", "ImportResult", "ForeignFormatError", "load_file", "parse_foreign", "guess_tool"]

_NETPIPE_LINE = re.compile(r"\s*\d+(\s+[\d.eE+-]+){2}(\s+[\d.eE+-]+){0,4}\s*$")


def guess_tool(text: str) -> str | None:
    """Which tool's output ``text`` looks like ("msgperf", a key of TOOLS, or None)."""
    head = text[:20000]
    if re.search(r'^\s*\{.*"type"\s*:\s*"run"', head, re.M) or looks_exported(head):
        return "msgperf"
    if re.search(r"^#\s*OSU MPI.*Test", head, re.M):
        return "osu"
    if re.search(r"Intel\s*\(R\)\s*MPI Benchmarks|^#\s*Benchmarking \w", head, re.M):
        return "imb"
    lines = [l for l in head.splitlines()[:20] if l.strip()]
    if lines and all(_NETPIPE_LINE.match(l) for l in lines):
        return "netpipe"
    return None


def parse_foreign(tool: str, text: str, name: str) -> ImportResult:
    """Parse another tool's text output; a hint names the right ``--from`` when it is another's."""
    if tool not in TOOLS:
        raise ForeignFormatError(f"unknown tool {tool!r}; msgperf imports {', '.join(TOOLS)}")
    try:
        return TOOLS[tool](text, name)
    except ForeignFormatError as exc:
        guess = guess_tool(text)
        if guess and guess != tool:
            hint = ("a msgperf run file: import it without --from" if guess == "msgperf"
                    else f"{TOOL_NAMES[guess]} output: use --from {guess}")
            raise ForeignFormatError(f"{exc} (it looks like {hint})") from None
        raise


def load_file(path: str | Path, tool: str | None = None) -> tuple[ImportResult, dict]:
    """(ImportResult, store metadata of an export or {}) for one file."""
    name = str(path)
    if tool is not None:
        return parse_foreign(tool, read_text(path), name), {}
    try:
        with open(path, "rb") as f:
            head = f.read(256).decode("utf-8", errors="replace")
    except OSError:
        head = ""  # read_run gives the one-line error
    if looks_exported(head):
        run, meta = parse_export(read_text(path, limit=MAX_EXPORT_BYTES), name)
        return ImportResult(run=run), meta
    try:
        result = read_run(path)
    except RecordError as exc:
        guess = _guess_file(path)
        if guess in TOOLS:
            raise RecordError(f"{exc} (it looks like {TOOL_NAMES[guess]} output: "
                              f"use msgperf import --from {guess})") from None
        raise
    notes = ()
    if result.truncated:
        notes = ("the last line was cut off (a killed job?) and was left out; "
                 f"{len(result.run.measurements)} measurements imported",)
    return ImportResult(run=result.run, notes=notes), {}


def _guess_file(path: str | Path) -> str | None:
    try:
        with open(path, "rb") as f:
            return guess_tool(f.read(20000).decode("utf-8", errors="replace"))
    except OSError:
        return None
