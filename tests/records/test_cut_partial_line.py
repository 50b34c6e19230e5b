"""``--resume`` drops a killed writer's partial last line before appending (records/runfile_write.py),
reading back from the end a chunk at a time: whatever the chunk, the file keeps every whole line."""

from __future__ import annotations

import pytest

from msgperf.records.runfile_write import cut_partial_line

CASES = [b"", b"abc", b"a\n", b"a\nbc", b"a\nb\n" + b"x" * 5000, b"\n", b"x" * 10000,
         b"a\n" + b"y" * 3000 + b"\n" + b"z" * 2500, b'{"type":"run"}\n{"type":"measurement","samples_s":[1e-6,']


@pytest.mark.parametrize("chunk", [1, 7, 4096, 1 << 20])
@pytest.mark.parametrize("content", CASES, ids=range(len(CASES)))
def test_the_partial_last_line_goes_and_every_whole_line_stays(tmp_path, content, chunk):
    path = tmp_path / "run.jsonl"
    path.write_bytes(content)
    cut_partial_line(path, chunk)
    assert path.read_bytes() == content[:content.rfind(b"\n") + 1]
