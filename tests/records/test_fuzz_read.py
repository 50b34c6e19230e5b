"""Hostile run files: the only allowed outcomes are a parsed run or a clean RecordError."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from msgperf.records.format import RecordError
from msgperf.records.runfile_read import parse_run_text

from .test_read import good_text

GOOD = good_text()


def parse_or_clean_error(text: str) -> None:
    try:
        result = parse_run_text(text, "fuzz")
    except RecordError as exc:
        message = str(exc)
        assert message.startswith("fuzz") and "\n" not in message
        return
    assert result.run.info.plan.patterns is not None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_arbitrary_text(text):
    parse_or_clean_error(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(GOOD) - 1), st.integers(0, 40), st.text(max_size=8)), max_size=4))
def test_mutated_valid_files(edits):
    text = GOOD
    for at, cut, insert in edits:
        at = min(at, len(text))
        text = text[:at] + insert + text[at + cut:]
    parse_or_clean_error(text)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children,
                                                                                        max_size=4),
                    max_leaves=12))
def test_wrong_types_in_every_field(value):
    """Replace each field of each record by an arbitrary JSON value."""
    import json
    lines = [json.loads(l) for l in GOOD.splitlines()]
    for i, record in enumerate(lines):
        for key in record:
            if key == "type":
                continue
            broken = [dict(r) for r in lines]
            broken[i][key] = value
            parse_or_clean_error("".join(json.dumps(r) + "\n" for r in broken))


def test_deeply_nested_json_is_a_clean_error():
    parse_or_clean_error("[" * 100000 + "]" * 100000 + "\n")
