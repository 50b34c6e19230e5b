"""The pattern catalog, asked of the kernel binary itself: the one source of pattern facts.

``msgperf-kernels --list-patterns --np N`` prints, with no MPI launch, one JSON object per pattern
(name, family, ranks, metric, the records it writes per size for N ranks); ``records/format.py``
decodes it into ``PatternInfo``. Answers are kept per binary and number of ranks for the
process's lifetime: a binary's path names its build (``launch/build.py`` caches by source hash).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from msgperf.errors import MsgperfError
from msgperf.records.format import PatternInfo, decode_catalog

_cache: dict[tuple[str, int], tuple[PatternInfo, ...]] = {}


def pattern_catalog(kernel_path: str | Path, np: int) -> tuple[PatternInfo, ...]:
    """Every pattern the kernel binary knows, its variants counted for ``np`` ranks."""
    key = (str(Path(kernel_path).absolute()), int(np))
    if key not in _cache:
        _cache[key] = _ask(Path(kernel_path), int(np))
    return _cache[key]


def _ask(kernel_path: Path, np: int) -> tuple[PatternInfo, ...]:
    argv = [str(kernel_path), "--list-patterns", "--np", str(np)]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise MsgperfError(f"cannot ask {kernel_path} for its patterns ({exc}); rebuild it with msgperf build") from None
    if result.returncode != 0:
        why = (result.stderr.strip().splitlines() or ["no message"])[-1]
        raise MsgperfError(f"{kernel_path} --list-patterns failed (exit {result.returncode}: {why}); "
                           "rebuild it with msgperf build")
    try:
        return decode_catalog(json.loads(result.stdout), f"{kernel_path} --list-patterns")
    except json.JSONDecodeError as exc:
        raise MsgperfError(f"{kernel_path} --list-patterns printed no JSON ({exc}); rebuild it with msgperf build") from None
