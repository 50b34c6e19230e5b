"""The file checks every reader shares (run files, sample text files, peer outputs)."""

import pytest

from msgperf.errors import MsgperfError
from msgperf.records.samples_text import read_samples_text
from msgperf.records.textfile import read_text_file


def test_each_problem_is_one_line_in_the_callers_words(tmp_path):
    def read(path, **kw):
        return read_text_file(path, what="a thing", error=MsgperfError, limit=kw.pop("limit", 100), **kw)
    with pytest.raises(MsgperfError, match="no such file"):
        read(tmp_path / "missing")
    with pytest.raises(MsgperfError, match="is a directory, not a thing"):
        read(tmp_path)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(MsgperfError, match="larger than"):
        read(big)
    late_nul = tmp_path / "late"
    late_nul.write_bytes(b"a" * 50 + b"\x00")
    assert read(late_nul, nul_scan=10).startswith("a")  # only the first bytes are scanned
    with pytest.raises(MsgperfError, match="binary data, not a thing"):
        read(late_nul, nul_scan=None)
    (tmp_path / "ok").write_bytes("8 1e-6\n\xff".encode("latin-1"))
    assert read(tmp_path / "ok") == "8 1e-6\n\ufffd"


def test_samples_text_files_get_the_shared_checks(tmp_path):
    with pytest.raises(MsgperfError, match="is a directory, not a text file of samples"):
        read_samples_text(tmp_path)
    (tmp_path / "s.txt").write_text("# bytes seconds\n8 1e-6\n16 1.1e-6\n")
    assert list(read_samples_text(tmp_path / "s.txt").bytes) == [8, 16]
