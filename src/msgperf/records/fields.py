"""Record fields declared, not hand-written: a record type is a table of fields (name, kind,
range from records/limits.py, default when absent), and ``decode`` reads an object by its table.

Each constructor below compiles its field to one small reader at import, so a table reads as
fast as the hand-written checks it replaces (bench/decode_speed.py). Rules between fields (the
sizes of a profile add up to its count, a plan's pair names two ranks) stay beside the tables,
in the format modules: they are the format's logic, not its fields.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from msgperf.errors import MsgperfError
from msgperf.records.limits import MAX_INT64, check_float, check_int

Error = Callable[[str], MsgperfError]
Reader = Callable[[Mapping[str, Any], str, Error, str], Any]  # (object, where, error, path prefix)
REQUIRED = object()  # a field's default when it must be present


class Field:
    """One field: its JSON ``name``, the attribute it fills (``attr``) and its reader."""

    __slots__ = ("name", "attr", "read")

    def __init__(self, name: str, read: Reader, attr: str | None = None) -> None:
        self.name, self.attr, self.read = name, attr or name, read


def decode(table: tuple[Field, ...], obj: Any, where: str, error: Error, what: str = "",
           prefix: str = "") -> dict[str, Any]:
    """The values of ``obj``'s fields by ``table``, as attribute -> value; a field that breaks
    its rule is one line through ``error`` naming it by its path (``prefix``: where ``obj`` is
    inside its record, e.g. ``plan.``; ``what``: what ``obj`` must be)."""
    if not isinstance(obj, dict):
        raise error(f"{where}: {what or 'a record'} must be an object")
    return {f.attr: f.read(obj, where, error, prefix) for f in table}


def absent(name: str, default: Any, where: str, error: Error) -> Any:
    """The value of a field that is absent or null: its default, or one line when it has none."""
    if default is REQUIRED:
        raise error(f"{where}: missing field '{name}'")
    return default() if callable(default) else default


def integer(name: str, low: int = -MAX_INT64, high: int = MAX_INT64, *, default: Any = REQUIRED,
            whole_floats: bool = True, attr: str | None = None) -> Field:
    """An integer within [low, high] (not a bool); ``whole_floats``: 20.0 reads as 20. Absent or
    null: ``default``."""
    def read(obj, where, error, prefix=""):
        value = obj.get(name)
        if value is None:
            return absent(prefix + name, default, where, error)
        if type(value) is not int:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise error(f"{where}: field '{prefix}{name}' must be an integer, got {type(value).__name__}")
            if not whole_floats or not math.isfinite(value) or not float(value).is_integer():
                raise error(f"{where}: field '{prefix}{name}' must be an integer")
            value = int(value)
        return check_int(value, where, prefix + name, low, high, error)
    return Field(name, read, attr)


def number(name: str, low: float, high: float, *, low_open: bool = False, default: Any = REQUIRED,
           attr: str | None = None) -> Field:
    """A finite number within [low, high] (``low_open``: (low, high]), as a float."""
    def read(obj, where, error, prefix=""):
        value = obj.get(name)
        if value is None:
            return absent(prefix + name, default, where, error)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise error(f"{where}: field '{prefix}{name}' must be a number, got {type(value).__name__}")
        return check_float(float(value), where, prefix + name, low, high, error, low_open=low_open)
    return Field(name, read, attr)


def text(name: str, *, choices: tuple[str, ...] | None = None, default: Any = REQUIRED, wrong: Any = REQUIRED,
         convert: Callable[[str], Any] | None = None, attr: str | None = None) -> Field:
    """A string (one of ``choices``); ``wrong``: what a value of another type reads as, instead
    of an error (fields older writers filled loosely)."""
    def read(obj, where, error, prefix=""):
        value = obj.get(name)
        if value is None:
            return absent(prefix + name, default, where, error)
        if not isinstance(value, str):
            if wrong is not REQUIRED:
                return wrong
            raise error(f"{where}: field '{prefix}{name}' must be a string, got {type(value).__name__}")
        if choices is not None and value not in choices:
            raise error(f"{where}: field '{prefix}{name}' is {value[:40]!r}; it must be one of {', '.join(choices)}")
        return convert(value) if convert is not None else value
    return Field(name, read, attr)


def flag(name: str, *, default: Any = REQUIRED, attr: str | None = None) -> Field:
    """true or false."""
    def read(obj, where, error, prefix=""):
        value = obj.get(name)
        if value is None:
            return absent(prefix + name, default, where, error)
        if not isinstance(value, bool):
            raise error(f"{where}: field '{prefix}{name}' must be true or false")
        return value
    return Field(name, read, attr)


def nullable(field: Field) -> Field:
    """The field, or None when it is absent or null."""
    inner = field.read

    def read(obj, where, error, prefix=""):
        return None if obj.get(field.name) is None else inner(obj, where, error, prefix)
    return Field(field.name, read, field.attr)


def items(name: str, item: Callable[[Any], bool], what: str, *, default: Any = REQUIRED, nonempty: bool = False,
          length: int | None = None, convert: Callable[[Any], Any] | None = None, attr: str | None = None) -> Field:
    """A list whose every item passes ``item`` (``what`` says what it must be), as a tuple."""
    def read(obj, where, error, prefix=""):
        value = obj.get(name)
        if value is None:
            return absent(prefix + name, default, where, error)
        if (not isinstance(value, list) or (nonempty and not value) or (length is not None and len(value) != length)
                or not all(item(v) for v in value)):
            raise error(f"{where}: field '{prefix}{name}' must be {what}")
        return tuple(value) if convert is None else tuple(convert(v) for v in value)
    return Field(name, read, attr)


def int_items(name: str, low: int, high: int, what: str, *, default: Any = REQUIRED, nonempty: bool = False,
              length: int | None = None, attr: str | None = None) -> Field:
    """A list of integers within [low, high], as a tuple (``items`` with the test inline: sizes
    and ranks are the longest lists of a record's fields)."""
    def read(obj, where, error, prefix=""):
        value = obj.get(name)
        if value is None:
            return absent(prefix + name, default, where, error)
        if (not isinstance(value, list) or (nonempty and not value) or (length is not None and len(value) != length)
                or not all(type(v) is int and low <= v <= high for v in value)):
            raise error(f"{where}: field '{prefix}{name}' must be {what}")
        return tuple(value)
    return Field(name, read, attr)


def records(name: str, table: tuple[Field, ...], make: Callable[..., Any], what: str, *, default: Any = REQUIRED,
            nonempty: bool = False, attr: str | None = None) -> Field:
    """A list of objects, each read by ``table`` into ``make(**fields)``."""
    def read(obj, where, error, prefix=""):
        value = obj.get(name)
        if value is None:
            return absent(prefix + name, default, where, error)
        if not isinstance(value, list) or (nonempty and not value):
            raise error(f"{where}: field '{prefix}{name}' must be a {'non-empty ' if nonempty else ''}list of objects "
                        f"({what})")
        return tuple(make(**decode(table, v, where, error, f"each entry of '{prefix}{name}'", f"{prefix}{name}[{i}]."))
                     for i, v in enumerate(value))
    return Field(name, read, attr)


def record(name: str, table: tuple[Field, ...], make: Callable[..., Any], *, default: Any = REQUIRED,
           attr: str | None = None) -> Field:
    """One object, read by ``table`` into ``make(**fields)``."""
    def read(obj, where, error, prefix=""):
        value = obj.get(name)
        if value is None:
            return absent(prefix + name, default, where, error)
        return make(**decode(table, value, where, error, f"field '{prefix}{name}'", f"{prefix}{name}."))
    return Field(name, read, attr)


def strings_map(name: str, *, default: Any = REQUIRED, attr: str | None = None) -> Field:
    """An object of names to strings (an environment), as a dict."""
    def read(obj, where, error, prefix=""):
        value = obj.get(name)
        if value is None:
            return absent(prefix + name, default, where, error)
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise error(f"{where}: field '{prefix}{name}' must map names to strings")
        return dict(value)
    return Field(name, read, attr)


