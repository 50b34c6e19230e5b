"""Reading a text input from disk with one-line errors: the checks every reader shares."""

from __future__ import annotations

from pathlib import Path

from msgperf.errors import MsgperfError


def read_text_file(path: str | Path, *, what: str, error: type[MsgperfError], limit: int,
                   nul_scan: int | None = 4096) -> str:
    """The file's text (UTF-8, bad bytes replaced), or ``error`` with one line naming the
    problem. ``what`` names the expected kind of file ("a run file"); a NUL byte within the
    first ``nul_scan`` bytes (the whole file when None) means binary data."""
    p = Path(path)
    try:
        if p.is_dir():
            raise error(f"{p}: is a directory, not {what}")
        if p.stat().st_size > limit:
            raise error(f"{p}: larger than {limit >> 20} MiB; not {what} msgperf will read")
        raw = p.read_bytes()
    except FileNotFoundError:
        raise error(f"{p}: no such file") from None
    except PermissionError:
        raise error(f"{p}: permission denied") from None
    if b"\x00" in (raw if nul_scan is None else raw[:nul_scan]):
        raise error(f"{p}: binary data, not {what}")
    return raw.decode("utf-8", errors="replace")
