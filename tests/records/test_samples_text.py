"""The two-column samples text format: what it accepts, and a one-line error per bad line."""

import pytest

from msgperf.errors import MsgperfError
from msgperf.records.samples_text import is_run_file, parse_samples_text, read_samples_text


def test_parses_whitespace_commas_comments_header_and_repeats():
    text = ("# ping-pong, one-way seconds\n"
            "bytes, seconds\n"
            "0 1.1e-6\n"
            "\n"
            "1,1.2e-6   # trailing comment\n"
            "1\t1.0e-6\n"
            "  4096 ,  2.25e-6\n"
            "1e3 2e-6\n")
    s = parse_samples_text(text, "t.txt")
    assert s.bytes.tolist() == [0, 1, 1, 4096, 1000]
    assert s.seconds.tolist() == [1.1e-6, 1.2e-6, 1.0e-6, 2.25e-6, 2e-6]
    assert s.lines.tolist() == [3, 5, 6, 7, 8]


@pytest.mark.parametrize("line, message", [
    ("1024 -998128e-6", "t.txt, line 3: the time -998128e-6 s is negative"),  # Blaisdell's fault
    ("1024 0", "t.txt, line 3: the time 0 s is zero"),
    ("1024 0.0", "t.txt, line 3: the time 0.0 s is zero"),
    ("1024 nan", "t.txt, line 3: the time 'nan' is not a finite number"),
    ("1024 inf", "t.txt, line 3: the time 'inf' is not a finite number"),
    ("1024 fast", "t.txt, line 3: the time 'fast' is not a number"),
    ("-1 1e-6", "t.txt, line 3: the size '-1' is not a whole number of bytes >= 0"),
    ("1.5 1e-6", "t.txt, line 3: the size '1.5' is not a whole number of bytes >= 0"),
    ("1024", "t.txt, line 3: expected two columns, bytes and seconds, found 1"),
    ("1024 100 1e-6", "t.txt, line 3: expected two columns, bytes and seconds, found 3 (for 'bytes reps seconds'"),
])
def test_bad_lines_are_named(line, message):
    with pytest.raises(MsgperfError) as err:
        parse_samples_text(f"0 1e-6\n# fine so far\n{line}\n", "t.txt")
    text = str(err.value)
    assert text.startswith(message)
    assert "\n" not in text


def test_header_only_on_the_first_line_and_empty_files():
    with pytest.raises(MsgperfError, match="line 2: the size 'bytes'"):
        parse_samples_text("0 1e-6\nbytes seconds\n", "t.txt")
    with pytest.raises(MsgperfError, match="t.txt: no samples"):
        parse_samples_text("# nothing\n\n", "t.txt")


def test_reading_files(tmp_path):
    p = tmp_path / "s.txt"
    p.write_text("8 1e-6\n")
    assert read_samples_text(p).bytes.tolist() == [8]
    assert not is_run_file(p)
    with pytest.raises(MsgperfError, match="no such file"):
        read_samples_text(tmp_path / "missing.txt")
    (tmp_path / "b.bin").write_bytes(b"\x00\x01")
    with pytest.raises(MsgperfError, match="binary data"):
        read_samples_text(tmp_path / "b.bin")
    (tmp_path / "r.jsonl").write_text('\n{"type": "run"}\n')
    assert is_run_file(tmp_path / "r.jsonl")


@pytest.mark.parametrize("header", ["run_id,run_start_time,run_source,bytes,sample,sample_s,per_message_s",
                                    "measurement,sample,sample_s,per_message_s"])
def test_msgperf_s_own_csv_export_is_named_not_read_as_columns(header):
    """show of msgperf's CSV export said "expected two columns, bytes and seconds, found 40"."""
    with pytest.raises(MsgperfError, match="is msgperf.s CSV export of samples"):
        parse_samples_text(header + "\n1,2,3\n", "x.csv")
