"""The one reading module (msgperf/loader.py): the rule for what names a stored run or profile."""

from __future__ import annotations

import pytest

from msgperf.errors import MsgperfError
from msgperf.loader import load, load_profile, stored_id


@pytest.mark.parametrize("arg, expected", [("12", 12), ("#12", 12), (" 7 ", 7), ("0", 0),
                                           ("9" * 18, int("9" * 18)), ("9" * 19, None), ("12a", None),
                                           ("-3", None), ("##1", None), ("", None), ("1.0", None)])
def test_a_stored_id_is_up_to_18_digits_with_an_optional_hash(arg, expected):
    assert stored_id(arg) == expected


def test_runs_and_profiles_name_a_missing_file_the_same_way(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MsgperfError, match="no run file or run id 'nope'"):
        load("nope", str(tmp_path / "s.db"))
    with pytest.raises(MsgperfError, match="no profile file or profile id 'nope'"):
        load_profile("nope", str(tmp_path / "s.db"))


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_an_empty_file_is_said_to_hold_no_run_as_import_says_it(tmp_path, content):
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    with pytest.raises(MsgperfError, match=r"empty\.jsonl: the file is empty; it holds no run"):
        load(str(path))
