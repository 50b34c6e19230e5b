"""A fast tier of bench/fuzz_profiles.py: mutated profile files through the reader and through
``advise --profile`` (a fixed seed, a few hundred inputs), and the hostile values the fuzzer
plants, each at every place of a profile, refused in one line or read."""

from __future__ import annotations

import json
import random

import pytest

from msgperf.errors import MsgperfError
from msgperf.records.profile_read import parse_profile_text


def _fuzz(capsys, *argv):
    import bench.fuzz_profiles as fuzz
    status = fuzz.main(list(argv))
    return status, json.loads(capsys.readouterr().out)


def test_a_fixed_sample_of_mutated_profiles_through_the_reader_and_advise(capsys, monkeypatch):
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    status, tally = _fuzz(capsys, "--inputs", "300", "--seed", "3", "--progress", "0", "--report-every", "1000")
    assert status == 0, tally
    assert tally["inputs"] == 300 and tally["FAILURE"] == 0
    assert tally["parsed"] >= 20 and tally["clean error"] >= 150  # both kinds were met
    advise = tally["driven"]["advise"]
    assert advise["FAILURE"] == advise["HANG"] == 0 and advise["ok"] >= 10


def test_the_fuzzer_finds_a_traceback(capsys, monkeypatch):
    """Its failure detection: a reader that raises something else than a one-line error fails the run."""
    import bench.fuzz_profiles as fuzz

    def broken(text, name):
        raise ValueError("boom")
    monkeypatch.setattr(fuzz, "parse_profile_text", broken)
    status, tally = _fuzz(capsys, "--inputs", "5", "--no-commands", "--progress", "0")
    assert status == 1 and tally["FAILURE"] == 5


@pytest.mark.parametrize("value", [2 ** 91, 2 ** 63, 2 ** 53 + 1, 10 ** 30, 1e300, -1, "\ud800", "h" * 70_000,
                                   [[2 ** 91, 1]], [[8, 2 ** 60]]], ids=repr)
def test_a_hostile_value_anywhere_is_read_or_refused_in_one_line(value):
    """Each place of each record of a profile (nested ones included) set to ``value``."""
    from bench.fuzz_profiles import _containers, seeds
    text = seeds()[1]
    records = [json.loads(line) for line in text.splitlines()]
    places = sum(len(_containers(r, [])) for r in records)
    rng = random.Random(0)
    for n in range(places):
        copy = [json.loads(line) for line in text.splitlines()]
        place = [c for r in copy for c in _containers(r, []) if c][n % places] if places else None
        if not place:
            continue
        if isinstance(place, dict):
            place[rng.choice([k for k in place if k != "type"] or ["type"])] = value
        else:
            place[rng.randrange(len(place))] = value
        mutated = "".join(json.dumps(r) + "\n" for r in copy)
        try:
            parse_profile_text(mutated, "p.jsonl")
        except MsgperfError as exc:
            assert "\n" not in str(exc) and str(exc).startswith("p.jsonl")
