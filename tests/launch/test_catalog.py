"""pattern_catalog asks the kernel binary (here a stand-in script that prints the committed
catalog) once per binary and number of ranks, and turns its failures into one-line errors."""

import json
import stat

import pytest

from msgperf.errors import MsgperfError
from msgperf.launch.catalog import pattern_catalog
from tests.catalog_data import CATALOG_FILE, committed_catalog


def stand_in(tmp_path, body: str):
    """An executable that logs its arguments and runs `body` (sh)."""
    script = tmp_path / "msgperf-kernels"
    script.write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path / 'calls'}\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_the_catalog_comes_from_the_binary_once_per_binary_and_ranks(tmp_path):
    data = tmp_path / "catalog.json"
    data.write_text(json.dumps(json.loads(CATALOG_FILE.read_text())))
    script = stand_in(tmp_path, f"python3 -c \"import json,sys; print(json.dumps(json.load(open('{data}'))[sys.argv[1]]))\" \"$3\"")
    assert pattern_catalog(script, 4) == committed_catalog(4)
    assert pattern_catalog(str(script), 4) == committed_catalog(4)  # cached: the binary is not asked again
    assert pattern_catalog(script, 2) == committed_catalog(2)
    assert (tmp_path / "calls").read_text().splitlines() == ["--list-patterns --np 4", "--list-patterns --np 2"]


@pytest.mark.parametrize("body, fragment", [
    ("echo 'msgperf-kernels: unknown option --list-patterns' >&2; exit 2",
     r"--list-patterns failed \(exit 2: msgperf-kernels: unknown option --list-patterns\); rebuild it"),
    ("echo 'usage: ...'", "printed no JSON"),
    ("echo '[{\"name\": \"pingpong\"}]'", "missing field 'family'"),
])
def test_a_binary_that_cannot_say_is_a_one_line_error(tmp_path, body, fragment):
    with pytest.raises(MsgperfError, match=fragment) as err:
        pattern_catalog(stand_in(tmp_path, body), 2)
    assert len(str(err.value).splitlines()) == 1


def test_a_missing_binary_is_a_one_line_error(tmp_path):
    with pytest.raises(MsgperfError, match="cannot ask .* for its patterns"):
        pattern_catalog(tmp_path / "nothing-here", 2)
