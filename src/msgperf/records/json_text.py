"""The one JSON parser of the files msgperf reads (run files, profiles, exports).

msgspec parses a run file's lines 7x faster than the standard library's ``json`` (0.06 s against
0.48 s for the 15 MB run of every pattern, bench/RESULTS.md §32) to the same values,
bit for bit. It is stricter: it refuses NaN and Infinity (so does msgperf), but also numbers beyond
a double's range and lone surrogate escapes, which the standard library reads and the readers then
refuse with the field's name. So a line msgspec refuses is parsed again by the standard library:
what the readers accept and every error they give are the standard library's, as before."""

from __future__ import annotations

import json
from typing import Any

import msgspec

_DECODER = msgspec.json.Decoder()


def parse_json(text: str | bytes, where: str) -> Any:
    """The JSON value of ``text`` (a line of ``where``: "a run file"); ``ValueError`` when it is not
    JSON, or holds NaN or Infinity; ``RecursionError`` when nested too deep."""
    try:
        return _DECODER.decode(text)
    except (msgspec.DecodeError, RecursionError):
        pass

    def refuse(name: str) -> float:
        raise ValueError(f"{name} is not allowed in {where}")

    return json.loads(text, parse_constant=refuse)
