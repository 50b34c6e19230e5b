"""Bad input: one clear line on stderr, exit 1, before anything runs."""

import pytest


@pytest.mark.parametrize("args, fragment", [
    (["run", "--pair", "0:0"], "names rank 0 twice"),
    (["run", "--np", "1"], "at least 2 ranks"),
    (["run", "--pair", "0:5"], "does not exist"),
    (["run", "--sizes", "-1"], "negative"),
    (["run", "--sizes", "12Q"], "unknown unit"),
    (["run", "--sizes", "4G"], "2^31-1"),
    (["run", "--precision", "200%"], "out of range"),
    (["run", "--time-budget", "0"], "out of range"),
    (["run", "--total-time", "-3s"], "out of range"),
    (["run", "--total-time", "nan"], "cannot read duration"),
    (["run", "--total-time", "10s", "--time-budget", "1s"], "give one"),
    (["run", "--sizes", "1G", "--np", "64"], "GiB of buffers"),
    (["run", "--mpicc", "/nonexistent/mpicc"], "no such executable"),
    (["show", "/nonexistent.jsonl"], "no run file or run id"),
    (["run", "--pattern", "nosuch"], "unknown pattern 'nosuch'"),
    (["run", "--pattern", "pairs", "--np", "3"], "needs an even number of ranks"),
    (["run", "--sizes", "1:64M:0"], "ratio >= 2"),
    (["run", "--min-samples", "0"], "a median CI needs 6 samples"),
    (["run", "--sizes", "abc"], "cannot read size 'abc'"),
])
def test_bad_input_gets_one_line(msgperf, args, fragment, tmp_path):
    result = msgperf(*args, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], result.stderr
    assert not (tmp_path / "runs").exists()  # nothing was launched


def test_unknown_option_is_named(msgperf):
    result = msgperf("run", "--bogus")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: No such option '--bogus'. (see 'msgperf run --help')"


def test_a_launcher_that_cannot_start_ranks(msgperf, tmp_path):
    result = msgperf("run", "--launcher", "false", "--sizes", "8", "-o", tmp_path / "r.jsonl")
    assert result.returncode == 1
    line = result.stderr.strip()
    assert line.startswith("error: false could not start the ranks (exit 1)") and len(line.splitlines()) == 1


def test_no_mpi_found(monkeypatch, tmp_path):
    import sys

    from msgperf.errors import MsgperfError
    from msgperf.launch.build import find_mpicc
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MsgperfError, match="no MPI found.*pip install 'msgperf\\[mpi\\]'.*--mpicc"):
        find_mpicc()


def test_an_error_naming_a_hostile_value_is_still_one_line(msgperf, tmp_path):
    """Every error goes through cli.main: a newline or an ESC sequence in a file name or value
    is shown escaped, so the message stays one line and the terminal obeys nothing."""
    result = msgperf("show", f"{tmp_path}/x\n\x1b[31mfoo", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (f"error: no run file or run id '{tmp_path}/x\\x0a\\x1b[31mfoo': no such file, and a run id "
                             "is a number that 'msgperf runs' lists\n")
