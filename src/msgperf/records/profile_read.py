"""Read a profile file from disk into a ``Profile`` (format: ``profile_format``).

Strict, like the run-file reader: every malformed line is an error naming the file and line,
in one line. The single exception is a truncated *last* line without its newline (a writer
killed mid-line); it is dropped and reported through ``ProfileReadResult.truncated``.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from msgperf.records.profile_format import (Profile, ProfileError, ProfileInfo, RankProfile,
                                            decode_info, decode_rank)
from msgperf.records.json_text import parse_json
from msgperf.records.limits import check_json_values
from msgperf.records.textfile import read_text_file
from msgperf.values import Value

MAX_FILE_BYTES = 1 << 32  # far above any real profile (a rank's record is kilobytes per peer)


class ProfileReadResult(Value):
    profile: Profile
    truncated: bool  # a partial last line was dropped


def parse_profile_text(text: str, name: str = "<profile>") -> ProfileReadResult:
    """Parse the contents of a profile file; ``name`` is used in error messages."""
    if not text.strip():
        raise ProfileError(f"{name}: the file is empty; it holds no profile")
    lines = text.split("\n")
    ends_cleanly = text.endswith("\n")
    if ends_cleanly:
        lines = lines[:-1]
    info: ProfileInfo | None = None
    ranks: dict[int, RankProfile] = {}
    truncated = False
    for number, line in enumerate(lines, start=1):
        where = f"{name}, line {number}"
        if not line.strip():
            continue
        try:
            obj = parse_json(line, "a profile")
        except (ValueError, RecursionError) as exc:
            if number == len(lines) and not ends_cleanly:
                truncated = True
                break
            if info is None:
                raise ProfileError(f"{name}: not a msgperf profile (its first line is not JSON)") from None
            raise ProfileError(f"{where}: not valid JSON ({exc.__class__.__name__}); the file is corrupt") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise ProfileError(f"{where}: each line must be a JSON object with a 'type' field")
        # integers within 64 bits, finite floats, bounded strings and nesting (records/limits.py);
        # the decoders then hold each field to its own range (profile_format)
        check_json_values(obj, where, ProfileError, skip=frozenset())
        kind = obj["type"]
        if info is None:
            if kind != "profile":
                raise ProfileError(f"{where}: not a msgperf profile (the first record must be a 'profile' record)")
            info = decode_info(obj, where)
        elif kind == "profile":
            raise ProfileError(f"{where}: a second 'profile' record; two profiles were concatenated")
        elif kind == "rank":
            rank = decode_rank(obj, where, info.nranks, info.format_version)
            if rank.rank in ranks:
                raise ProfileError(f"{where}: rank {rank.rank} appears twice")
            ranks[rank.rank] = rank
        else:
            raise ProfileError(f"{where}: unknown record type {kind!r}")
    if info is None:
        raise ProfileError(f"{name}: no complete 'profile' record; the file was cut off at its start")
    if truncated or len(ranks) < info.nranks:
        info = msgspec.structs.replace(info, complete=False)
    profile = Profile(info=info, ranks=tuple(ranks[r] for r in sorted(ranks)), path=name)
    return ProfileReadResult(profile=profile, truncated=truncated)


def read_profile(path: str | Path) -> ProfileReadResult:
    """Read and validate a profile file. Raises ``ProfileError`` with a one-line message."""
    text = read_text_file(path, what="a profile file", error=ProfileError, limit=MAX_FILE_BYTES)
    return parse_profile_text(text, str(Path(path)))
