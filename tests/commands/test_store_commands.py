"""The store's commands (runs, label, import, export) and run-file-or-id resolution."""

from __future__ import annotations

import csv
import io
import json

import pytest

from msgperf.errors import MsgperfError
from msgperf.records.runfile_read import read_run
from msgperf.loader import load
from msgperf.store.db import open_store
from tests.cli_in_process import cli
from tests.factories import assert_same_run, stored_run, write_run_file


@pytest.fixture
def files(tmp_path):
    return [write_run_file(stored_run(i, hosts=(h, h), start_time=t), tmp_path / f"run{i}.jsonl")
            for i, h, t in ((1, "alpha", "2026-11-01T08:00:00+00:00"), (2, "beta", "2026-11-20T08:00:00+00:00"))]


def test_import_prints_each_id_last_and_is_idempotent(tmp_path, capsys, files):
    db = str(tmp_path / "s.db")
    code, out, err = cli(capsys, "import", "--db", db, *map(str, files))
    assert code == 0 and err == ""
    assert [line.rsplit(" ", 1)[1] for line in out.splitlines()] == ["1", "2"]
    assert "added" in out
    code, out, _ = cli(capsys, "import", "--db", db, str(files[1]), str(files[0]))
    assert code == 0 and [line.rsplit(" ", 1)[1] for line in out.splitlines()] == ["2", "1"]
    assert out.count("already stored") == 2
    with open_store(db) as store:
        assert len(store.list_runs()) == 2


def test_import_goes_on_after_a_bad_file_and_fails_at_the_end(tmp_path, capsys, files):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "run"}\n')
    code, out, err = cli(capsys, "import", "--db", str(tmp_path / "s.db"), str(bad), str(files[0]),
                         str(tmp_path / "missing.jsonl"))
    assert code == 1
    assert out.strip().endswith("run 1")
    assert "bad.jsonl, line 1: missing field" in err and "missing.jsonl: no such file" in err
    assert "2 of 3 files were not imported" in err


def test_import_of_a_cut_off_run_file_keeps_what_it_has(tmp_path, capsys, files):
    text = files[0].read_text()
    cut = tmp_path / "killed.jsonl"
    cut.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 30])  # a partial last line
    code, out, err = cli(capsys, "import", "--db", str(tmp_path / "s.db"), str(cut))
    assert code == 0 and out.strip().endswith("run 1")
    assert "note:" in err and "cut off" in err


def test_import_of_another_tools_output_without_from_says_which_from(tmp_path, capsys):
    osu = tmp_path / "lat.txt"
    osu.write_text("# OSU MPI Latency Test v7.4\n# Size       Avg Latency(us)\n1   1.50\n")
    code, _, err = cli(capsys, "import", "--db", str(tmp_path / "s.db"), str(osu))
    assert code == 1 and "use msgperf import --from osu" in err


def test_runs_lists_and_filters(tmp_path, capsys, files):
    db = str(tmp_path / "s.db")
    cli(capsys, "import", "--db", db, *map(str, files))
    code, out, _ = cli(capsys, "runs", "--db", db)
    header, *rows = out.splitlines()
    assert code == 0 and header.split()[:5] == ["id", "time", "host(s)", "machine", "MPI"]
    assert "label" in header and len(rows) == 2
    assert "alpha" in rows[0] and "MPICH 5.0.2" in rows[0] and "pingpong" in rows[0]
    assert "0 B–64 KiB (5)" in rows[0] and "2 ranks, intra-node" in rows[0]
    _, out, _ = cli(capsys, "runs", "--db", db, "--host", "bet")
    assert len(out.splitlines()) == 2 and "beta" in out
    _, out, _ = cli(capsys, "runs", "--db", db, "--since", "2026-11-10", "--mpi", "mpich", "--pattern", "ping*")
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["2"]
    _, out, _ = cli(capsys, "runs", "--db", db, "--pattern", "osu-*")
    assert out.startswith("no stored runs match")
    code, _, err = cli(capsys, "runs", "--db", db, "--since", "last tuesday")
    assert code == 1 and "error: --since 'last tuesday'" in err


def test_runs_lists_the_newest_and_says_how_many_more(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    with open_store(db) as store:
        for i in range(7):
            store.add_run(stored_run(40 + i, hosts=("alpha", "alpha") if i % 2 else ("beta", "beta")))
    _, out, _ = cli(capsys, "runs", "--db", db, "--limit", "3")
    header, *rows, note = out.splitlines()
    assert [r.split()[0] for r in rows] == ["5", "6", "7"]  # the newest 3, oldest first
    assert note.startswith("4 more runs (older") and "--all" in note
    _, out, _ = cli(capsys, "runs", "--db", db, "--limit", "2", "--host", "alpha")
    assert [r.split()[0] for r in out.splitlines()[1:3]] == ["4", "6"] and "1 more runs" in out
    _, out, _ = cli(capsys, "runs", "--db", db, "--all")
    assert len(out.splitlines()) == 8 and "more runs" not in out  # header + every run, no note
    _, out, _ = cli(capsys, "runs", "--db", db)  # the default limit is above 7: no note
    assert len(out.splitlines()) == 8 and "more runs" not in out


def test_label_sets_shows_and_clears(tmp_path, capsys, files):
    db = str(tmp_path / "s.db")
    cli(capsys, "import", "--db", db, str(files[0]))
    assert cli(capsys, "label", "--db", db, "1", "before", "the", "upgrade")[1] == "run 1: label 'before the upgrade'\n"
    _, out, _ = cli(capsys, "runs", "--db", db, "--label", "UPGRADE")
    assert "before the upgrade" in out
    assert cli(capsys, "label", "--db", db, "1")[1] == "run 1: label cleared\n"
    code, _, err = cli(capsys, "label", "--db", db, "7", "x")
    assert code == 1 and "no run 7" in err


def test_export_by_id_or_file(tmp_path, capsys, files):
    db = str(tmp_path / "s.db")
    cli(capsys, "import", "--db", db, str(files[0]))
    code, out, _ = cli(capsys, "export", "1", "--db", db, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 5 * 40 and rows[0]["run_id"] == "1"
    code, out, _ = cli(capsys, "export", str(files[0]), "--db", db, "--format", "csv")
    assert code == 0 and list(csv.DictReader(io.StringIO(out)))[0]["run_id"] == ""
    code, _, err = cli(capsys, "export", "1", "--db", db, "--format", "json", "-o", str(tmp_path / "e.json"))
    assert code == 0 and "wrote" in err
    assert json.loads((tmp_path / "e.json").read_text())["store"]["id"] == 1
    code, _, err = cli(capsys, "export", "1", "--db", db, "--format", "parquet")
    assert code == 1 and "-o" in err
    code, _, err = cli(capsys, "export", "nope", "--db", db)
    assert code == 1 and "no run file or run id 'nope'" in err


def test_export_format_follows_the_extension_and_a_mismatch_is_an_error(tmp_path, capsys, files):
    db = str(tmp_path / "s.db")
    cli(capsys, "import", "--db", db, str(files[0]))
    code, _, _ = cli(capsys, "export", "1", "--db", db, "-o", str(tmp_path / "x.csv"))
    assert code == 0 and (tmp_path / "x.csv").read_text().startswith("run_id,")  # CSV, not JSON
    code, _, _ = cli(capsys, "export", "1", "--db", db, "-o", str(tmp_path / "x.jsonl"))
    assert code == 0 and json.loads((tmp_path / "x.jsonl").read_text().splitlines()[0])["type"] == "run"
    code, _, err = cli(capsys, "export", "1", "--db", db, "--format", "json", "-o", str(tmp_path / "y.csv"))
    assert code == 1 and "--format json but -o" in err and not (tmp_path / "y.csv").exists()
    code, _, err = cli(capsys, "export", "1", "--db", db, "-o", str(tmp_path / "y.txt"))
    assert code == 1 and "cannot tell the format" in err


def load_run(arg, db):
    return load(arg, db).run


def test_the_loader_reads_files_and_ids(tmp_path, files, monkeypatch):
    db = str(tmp_path / "s.db")
    with open_store(db) as store:
        store.add_run(read_run(files[1]).run)
    assert_same_run(load_run(str(files[0]), db), read_run(files[0]).run)
    loaded = load("1", db)
    run, row = loaded.run, loaded.row
    assert_same_run(run, read_run(files[1]).run) and row.id == 1
    monkeypatch.chdir(tmp_path)
    (tmp_path / "1").write_text(files[0].read_text())  # an existing path wins over an id
    assert_same_run(load_run("1", db), read_run(files[0]).run)
    with pytest.raises(MsgperfError, match="no run 5 in"):
        load_run("5", db)
    with pytest.raises(MsgperfError, match="no run file or run id 'run3.jsonl'"):
        load_run("run3.jsonl", db)
    with pytest.raises(MsgperfError, match="is a directory"):
        load_run(str(tmp_path), db)


def test_reading_commands_do_not_create_a_database(tmp_path, capsys):
    db = tmp_path / "typo" / "s.db"
    code, out, _ = cli(capsys, "runs", "--db", str(db))
    assert code == 0 and out.startswith("no stored runs:") and "no msgperf database here yet" in out
    code, _, err = cli(capsys, "label", "--db", str(db), "1", "x")
    assert code == 1 and "no msgperf database here yet" in err
    code, _, err = cli(capsys, "export", "1", "--db", str(db))
    assert code == 1 and "no msgperf database here yet" in err
    assert not (tmp_path / "typo").exists()


def test_runs_shows_stored_strings_as_text_and_one_bad_string_breaks_nothing(tmp_path, capsys):
    """Hosts, MPI names and labels are data: rich markup ([/x] once raised MarkupError on every
    listing), hyperlinks and terminal escapes print as text; a long one is cut with a mark."""
    db = str(tmp_path / "s.db")
    files = [write_run_file(stored_run(1, hosts=("[/x]", "[/x]"), mpi="[link=http://evil]click[/link]\x1b[31m"),
                            tmp_path / "a.jsonl"),
             write_run_file(stored_run(2, hosts=("h" * 5000, "good")), tmp_path / "b.jsonl")]
    assert cli(capsys, "import", "--db", db, *map(str, files))[0] == 0
    assert cli(capsys, "label", "--db", db, "1", "[/bold]", "x")[0] == 0
    code, out, err = cli(capsys, "runs", "--db", db)
    assert code == 0, err
    assert "[/x]" in out and "[link=http://evil]click[/link]\\x1b[31m" in out and "[/bold] x" in out
    assert "\x1b" not in out
    assert "…(+4960 chars)" in out and "h" * 41 not in out and "good" in out


@pytest.mark.parametrize("run_id", ["99999999999999999999999", "9223372036854775808", "0"])
def test_label_of_an_id_out_of_range_is_one_line(tmp_path, capsys, files, run_id):
    """A huge id once reached SQLite and raised OverflowError (a traceback)."""
    db = str(tmp_path / "s.db")
    cli(capsys, "import", "--db", db, str(files[0]))
    code, out, err = cli(capsys, "label", "--db", db, "--", run_id, "x")
    assert code == 1 and out == ""
    assert err == (f"error: run id {run_id} is out of range (ids are 1 to 9223372036854775807); "
                   "'msgperf runs' lists the stored runs\n")
    assert "x" not in cli(capsys, "runs", "--db", db)[1].splitlines()[1].split()


@pytest.mark.parametrize("text, message", [
    ("\udced\udca0\udc80bad", "error: the label is not valid text in the terminal's encoding; write it in UTF-8\n"),
    ("x" * 201, "error: a label of 201 characters is too long; use at most 200\n"),
])
def test_a_label_that_cannot_be_stored_is_one_line(tmp_path, capsys, files, text, message):
    """Bytes that are not UTF-8 in argv (surrogate escapes) once raised UnicodeEncodeError in SQLite."""
    db = str(tmp_path / "s.db")
    cli(capsys, "import", "--db", db, str(files[0]))
    assert cli(capsys, "label", "--db", db, "1", "kept")[0] == 0
    code, out, err = cli(capsys, "label", "--db", db, "1", text)
    assert (code, out, err) == (1, "", message)
    assert cli(capsys, "runs", "--db", db)[1].splitlines()[1].split()[-1] == "kept"
    assert cli(capsys, "label", "--db", db, "1", "a\x1b[2Jb")[1] == "run 1: label 'a\\x1b[2Jb'\n"
    assert cli(capsys, "import", "--db", db, "--label", text, str(files[1])) == (1, "", message)
    assert len(cli(capsys, "runs", "--db", db)[1].splitlines()) == 2  # the second file was not added


def test_parquet_without_pyarrow_says_how_to_install_it_in_one_line(tmp_path, capsys, files, monkeypatch):
    """`make run` leaves the `data` extra out: the error names the make target and the pip extra."""
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)  # import pyarrow raises ImportError
    out = tmp_path / "x.parquet"
    code, _, err = cli(capsys, "export", str(files[0]), "-o", str(out))
    assert code == 1 and not out.exists()
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "make install-data" in err and "msgperf[data]" in err and "--format csv" in err
