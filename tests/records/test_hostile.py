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
