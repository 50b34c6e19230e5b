"""Peer outputs cut off while they were printed (a killed job, a full disk): the partial last
line is left out with a note, never imported as a number ("4   15" of "4   15.23" was once
imported as 15 µs), as the run-file reader does with a partial record."""

from __future__ import annotations

from pathlib import Path

import pytest

from msgperf.records.importers import parse_foreign
from msgperf.records.importers.text import ForeignFormatError
from tests.conftest import run_cli

DATA = Path(__file__).resolve().parents[2] / "data" / "peer-outputs"


def _cut_after(name: str, lines: int, partial: str) -> str:
    """The first ``lines`` lines of a sample output, then a partial line without newline."""
    text = (DATA / name).read_text()
    return "".join(text.splitlines(keepends=True)[:lines]) + partial


@pytest.mark.parametrize("tool, name, lines, partial, kept, note", [
    ("osu", "osu_latency.txt", 6, "4   15", [1, 2], "line 7: the output ends in a line without its newline ('4   15')"),
    ("osu", "osu_latency_percentiles.txt", 6, "4   1.58   1.5\n", [1, 2],
     "line 7: the last line has 3 of "),
    ("osu", "osu_bw.txt", 6, "4", None, "line 7: the output ends in a line without its newline ('4')"),
    ("netpipe", "netpipe_mpich.np", 3, "       4 50.0", [1, 2, 3],
     "line 4: the output ends in a line without its newline ('4 50.0')"),
    ("netpipe", "netpipe_mpich.np", 3, "       4 50.004187\n", [1, 2, 3], "line 4: the last line has 2 of 3 columns"),
    ("imb", "imb_pingpong_sendrecv_exchange.txt", None, "8 1000 1.3", None, "without its newline ('8 1000 1.3')"),
])
def test_a_partial_last_line_is_left_out_with_a_note(tool, name, lines, partial, kept, note):
    if lines is None:  # up to the first two result lines of the first benchmark
        text = (DATA / name).read_text().splitlines(keepends=True)
        first = next(i for i, l in enumerate(text) if "#repetitions" in l)
        lines = first + 3
    text = _cut_after(name, lines, partial)
    result = parse_foreign(tool, text, name)
    got = sorted({m.bytes for m in result.run.measurements if m.pattern == result.run.measurements[0].pattern})
    if kept is not None:
        assert got == kept
    assert 4 not in got and 8 not in got
    assert any(note in n for n in result.notes), result.notes
    complete = parse_foreign(tool, text[: text.rindex("\n") + 1], name)
    assert [m.samples_s.tolist() for m in complete.run.measurements] == \
        [m.samples_s.tolist() for m in result.run.measurements]  # the same values as without the cut line


def test_a_short_line_that_is_not_the_last_is_still_an_error():
    text = _cut_after("osu_latency.txt", 6, "4   1.58   9\n8   1.52\n")
    with pytest.raises(ForeignFormatError, match="line 7: expected 2 columns"):
        parse_foreign("osu", text, "x")


def test_import_and_show_say_the_last_line_was_left_out(tmp_path):
    cut = tmp_path / "osu.txt"
    cut.write_text(_cut_after("osu_latency.txt", 6, "4   15"))
    before = cut.read_bytes()
    result = run_cli("import", "--from", "osu", cut, "--db", tmp_path / "s.db")
    assert result.returncode == 0, result.stderr
    assert "added (2 measurements" in result.stdout
    assert "line 7: the output ends in a line without its newline ('4   15'): it was cut off while printing " \
           "and is left out" in result.stdout + result.stderr
    shown = run_cli("show", "--json", cut)
    assert shown.returncode == 0 and "left out" in shown.stderr
    assert cut.read_bytes() == before
