"""A run file from someone else: its strings are shown as text, never obeyed, and reading
it writes nothing."""

import json
import os

from .test_read import good_text

HOSTILE = "<script>alert(1)</script>\x1b[31m[bold red]pwned[/]\r"


def test_hostile_strings_are_shown_as_text_and_nothing_is_written(msgperf, tmp_path):
    lines = [json.loads(l) for l in good_text().splitlines()]
    lines[1]["ranks"][0]["host"] = HOSTILE
    lines[1]["mpi_library"] = HOSTILE
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    before = sorted(os.listdir(tmp_path))
    result = msgperf("show", path, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\r" not in result.stdout
    assert "\\x1b" in result.stdout and "[bold red]pwned[/]" in result.stdout  # markup shown, not applied
    assert "<script>alert(1)</script>" in result.stdout  # plain text in a terminal
    assert sorted(os.listdir(tmp_path)) == before


def test_long_and_backslash_strings_are_cut_and_shown_in_linear_time(msgperf, tmp_path):
    """A 1 MB host of backslashes took minutes (rich's markup escape backtracks quadratically
    over backslashes). The reader now refuses strings over 65,536 characters, and every data
    string up to that is cut before it is escaped."""
    lines = [json.loads(l) for l in good_text().splitlines()]
    lines[1]["ranks"][0]["host"] = "\\" * 65_000
    lines[1]["mpi_library"] = "m" * 60_000
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    result = msgperf("show", path, cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "…(+64880 chars)" in result.stdout and "…(+59880 chars)" in result.stdout
    assert len(result.stdout) < 20_000
    lines[1]["ranks"][0]["host"] = "\\" * 1_000_000
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    result = msgperf("show", path, cwd=tmp_path, timeout=60)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "field 'ranks[0].host' is 1,000,000 characters long; msgperf reads strings of at most 65,536" \
        in result.stderr


def test_summary_shows_markup_and_escapes_as_text(msgperf, tmp_path):
    lines = [json.loads(l) for l in good_text().splitlines()]
    lines[1]["mpi_library"] = "[/bold][link=http://evil]x[/link]\x1b]8;;http://evil\x07"
    path = tmp_path / "h.jsonl"
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    result = msgperf("summary", path, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    folded = "".join(result.stdout.split())
    assert "[/bold][link=http://evil]x[/link]\\x1b]8;;http://evil" in folded  # the column cuts the rest
