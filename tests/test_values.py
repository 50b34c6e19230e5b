"""msgperf.values.Value: every immutable record class is one, with defaults that are values."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import msgspec
import pytest

import msgperf
from msgperf.values import Value


def _all_values() -> list[type]:
    for module in pkgutil.walk_packages(msgperf.__path__, "msgperf."):
        if module.name != "msgperf.__main__":
            importlib.import_module(module.name)
    found, todo = [], list(Value.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


VALUES = _all_values()


def test_the_result_and_record_classes_are_values():
    names = {cls.__name__ for cls in VALUES}
    assert {"RunResult", "Run", "Plan", "SeriesAnalysis", "Collectives", "Profile"} <= names and len(VALUES) > 150


@pytest.mark.parametrize("cls", VALUES, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_no_value_keeps_a_dataclass_field_as_its_default(cls):
    """``dataclasses.field(...)`` in a Struct is not a default factory: msgspec takes the Field object
    itself as the default value."""
    for f in msgspec.structs.fields(cls):
        assert not isinstance(f.default, dataclasses.Field), f"{cls.__qualname__}.{f.name}"
        assert not isinstance(f.default_factory, dataclasses.Field), f"{cls.__qualname__}.{f.name}"


def test_a_value_is_immutable_and_copied_with_changes():
    from msgperf.analysis.result import SeriesKey

    key = SeriesKey("pingpong")
    with pytest.raises(AttributeError):
        key.pattern = "exchange"
    assert msgspec.structs.replace(key, variant="late") == SeriesKey("pingpong", "late") != key
