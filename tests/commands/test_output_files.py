"""Files that msgperf derives (exports, reports, plots, batch scripts) never replace an existing
file without --force, and never a file that holds measurements (a run file, a profile, a
database), not even with it; msgperf's own report or script at the name it chose is rewritten."""

from __future__ import annotations

import sqlite3

import pytest

from msgperf.commands.report import report_next_to
from msgperf.launch.slurm_script import is_msgperf_script
from msgperf.writing import measurements_in
from msgperf.records.profile_format import profile_text
from msgperf.records.runfile_read import read_run
from tests.cli_in_process import cli
from tests.factories import sample_profile, stored_run, write_run_file


@pytest.fixture
def run_file(tmp_path):
    return write_run_file(stored_run(1), tmp_path / "run.jsonl")


@pytest.fixture
def precious(tmp_path, run_file):
    """Files that hold measurements, by kind, and their bytes."""
    db = tmp_path / "msgperf.db"
    with sqlite3.connect(db) as con:
        con.execute("create table runs (id integer)")
    con.close()
    profile = tmp_path / "app.jsonl"
    profile.write_text(profile_text(sample_profile()))
    other_run = write_run_file(stored_run(2), tmp_path / "other.jsonl")
    return {path: path.read_bytes() for path in (db, profile, other_run)}


def test_what_holds_measurements(tmp_path, precious):
    kinds = sorted(measurements_in(p) for p in precious)
    assert kinds == ["a msgperf profile", "a msgperf run file", "an SQLite database"]
    text = tmp_path / "notes.txt"
    text.write_text('{"type": "note"}\n')
    assert measurements_in(text) is None


@pytest.mark.parametrize("args, name", [
    (("export", "{run}", "-o", "{out}"), "x.json"),
    (("export", "{run}", "-o", "{out}"), "x.csv"),
    (("export", "{run}", "--csv-layout", "tidy", "-o", "{out}"), "x.csv"),
    (("report", "{run}", "-o", "{out}"), "x.html"),
    (("plot", "{run}", "-o", "{out}"), "x.png"),
])
def test_an_existing_file_is_replaced_only_with_force(tmp_path, capsys, run_file, args, name):
    out = tmp_path / name
    out.write_text("the user's own file\n")
    argv = [a.format(run=run_file, out=out) for a in args]
    code, _, err = cli(capsys, *argv)
    assert code == 1 and err.count("\n") == 1, err
    assert f"-o {out}: the file exists" in err and "choose another name, or pass --force to replace it" in err
    assert out.read_text() == "the user's own file\n"
    code, _, err = cli(capsys, *argv, "--force")
    assert code == 0, err
    assert out.read_bytes() != b"the user's own file\n" and out.stat().st_size > 100


def test_the_tidy_tables_second_file_is_guarded_too(tmp_path, capsys, run_file):
    table = tmp_path / "x.measurements.csv"
    table.write_text("keep me\n")
    code, _, err = cli(capsys, "export", run_file, "--csv-layout", "tidy", "-o", tmp_path / "x.csv")
    assert code == 1 and "x.measurements.csv: the file exists" in err
    assert table.read_text() == "keep me\n" and not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("command, suffix", [("export", ".json"), ("export", ".jsonl"), ("report", ".html"),
                                             ("plot", ".png")])
def test_measurements_are_never_replaced_not_even_with_force(tmp_path, capsys, run_file, precious, command, suffix):
    for path, content in precious.items():
        # the name a tab completion gives, with the extension the command wants
        target = path.rename(path.with_suffix(suffix)) if path.suffix != suffix else path
        code, _, err = cli(capsys, command, run_file, "-o", target, "--force")
        assert code == 1 and err.count("\n") == 1, err
        assert "msgperf never replaces measurements" in err and "not even with --force" in err
        assert target.read_bytes() == content
        target.rename(path)


@pytest.mark.parametrize("layout", ["json", "wide", "tidy"])
def test_an_export_of_samples_is_never_replaced_not_even_with_force(tmp_path, capsys, run_file, layout):
    """A tester replaced a JSON export (a whole run: show and import read it) with --force, and
    with a plot: the README promises never a file that holds measurements."""
    target = tmp_path / ("x.json" if layout == "json" else "x.csv")
    args = ("--csv-layout", layout) if layout != "json" else ()
    assert cli(capsys, "export", run_file, *args, "-o", target)[0] == 0
    kept = target.read_bytes()
    code, _, err = cli(capsys, "export", run_file, *args, "-o", target, "--force")
    assert code == 1 and "is a msgperf export" in err and "not even with --force" in err, err
    assert target.read_bytes() == kept
    if layout == "tidy":  # its second table says what the samples are of
        table = target.with_name("x.measurements.csv")
        kept_table = table.read_bytes()
        code, _, err = cli(capsys, "export", run_file, "-o", table, "--force")
        assert code == 1 and "is a msgperf export of measurements" in err, err
        assert table.read_bytes() == kept_table
    page = target.rename(target.with_suffix(".html"))  # the name a report wants
    code, _, err = cli(capsys, "report", run_file, "-o", page, "--force")
    assert code == 1 and "is a msgperf export" in err, err
    assert page.read_bytes() == kept


def test_export_over_the_database_by_its_own_name(tmp_path, capsys, run_file, precious):
    """The case of the issue: -o msgperf.db (json by --format) with --force leaves the database."""
    db = tmp_path / "msgperf.db"
    code, _, err = cli(capsys, "export", run_file, "--format", "json", "-o", db, "--force")
    assert code == 1 and "is an SQLite database" in err
    assert db.read_bytes() == precious[db]


def test_the_report_at_the_default_name_is_rewritten_but_a_foreign_file_there_is_kept(tmp_path, capsys, run_file):
    report = tmp_path / "run.html"
    code, out, err = cli(capsys, "report", run_file)
    assert code == 0 and f"report: {report}" in out, err
    first = report.read_bytes()
    code, out, err = cli(capsys, "report", run_file, "--title", "again")
    assert code == 0 and b"again" in report.read_bytes() and report.read_bytes() != first, err
    report.write_text("<p>my notes</p>")
    code, _, err = cli(capsys, "report", run_file)
    assert code == 1 and f"{report}: the file exists and is not msgperf's report" in err
    assert report.read_text() == "<p>my notes</p>"
    assert cli(capsys, "report", run_file, "--force")[0] == 0 and b"generated by msgperf" in report.read_bytes()


def test_the_report_after_a_run_keeps_a_foreign_file_and_says_so(tmp_path, run_file):
    """The end of msgperf run: the note replaces the report, the run file is untouched."""
    report = tmp_path / "run.html"
    report.write_text("<p>my notes</p>")
    before = run_file.read_bytes()
    note = report_next_to(read_run(run_file).run, run_file)
    assert note.startswith("note: no report written") and "is not msgperf's report" in note, note
    assert report.read_text() == "<p>my notes</p>" and run_file.read_bytes() == before
    report.unlink()
    assert report_next_to(read_run(run_file).run, run_file) == f"report: {report}"
    assert report_next_to(read_run(run_file).run, run_file) == f"report: {report}"  # its own: rewritten


def test_slurm_refuses_an_existing_script_before_building(tmp_path, capsys):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\necho mine\n")
    code, _, err = cli(capsys, "slurm", "--kernels", tmp_path / "none", "-o", script)
    assert code == 1 and f"-o {script}: the file exists; choose another name" in err
    assert script.read_text() == "#!/bin/bash\necho mine\n"


def test_slurm_default_script_is_rewritten_only_when_it_is_msgperfs(tmp_path, capsys, monkeypatch):
    from msgperf.launch.slurm_script import batch_script
    from msgperf.plan import Plan, parse_pair

    monkeypatch.chdir(tmp_path)
    default = tmp_path / "msgperf-slurm.sh"
    default.write_text("#!/bin/bash\necho mine\n")
    code, _, err = cli(capsys, "slurm", "--kernels", tmp_path / "none")
    assert code == 1 and "msgperf-slurm.sh: the file exists and is not msgperf's batch script" in err
    assert default.read_text() == "#!/bin/bash\necho mine\n"
    assert not is_msgperf_script(default)
    plan = Plan(patterns=("pingpong",), sizes=(8,), nranks=2, pair=parse_pair("0:1"))
    default.write_text(batch_script(kernels="/k/msgperf-kernels", plan=plan, nodes=2, per_node=1, placement="inter",
                                    command_line="msgperf slurm"))
    assert is_msgperf_script(default)
    # its own script passes the guard and the command goes on to the next check (the kernels)
    code, _, err = cli(capsys, "slurm", "--kernels", tmp_path / "none")
    assert code == 1 and "--kernels" in err and "no such file" in err


# --- the guard acts on the file, not on its name (issue: reliability round three) ---

def test_a_link_to_a_regular_file_is_followed_and_kept(tmp_path, capsys, run_file):
    target = tmp_path / "real.json"
    target.write_text("old export\n")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    code, _, err = cli(capsys, "export", run_file, "-o", link)
    assert code == 1 and "the file exists" in err and target.read_text() == "old export\n"
    code, _, err = cli(capsys, "export", run_file, "-o", link, "--force")
    assert code == 0, err
    assert link.is_symlink() and link.resolve() == target  # the link is kept; its target was written
    assert target.read_text().startswith("{") and "msgperf-export" in target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json", "run.jsonl"]


@pytest.mark.parametrize("kind", ["fifo", "dev-null", "fd-link"])
def test_force_never_replaces_what_is_not_a_regular_file(tmp_path, capsys, run_file, kind):
    """`export -o /dev/stdout --force` (as root) replaced the /dev/stdout link with a file: a
    link to a device, to a FIFO or to an open file descriptor is refused, the link kept."""
    import os

    link = tmp_path / "out.json"
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        link.symlink_to(tmp_path / "fifo")
    elif kind == "dev-null":
        link.symlink_to("/dev/null")
    else:  # what /dev/stdout is: a link into /proc; here to a regular file this process has open
        held = (tmp_path / "held.txt").open("w")
        link.symlink_to(f"/proc/self/fd/{held.fileno()}")
    code, _, err = cli(capsys, "export", run_file, "-o", link, "--force")
    assert code == 1 and err.count("\n") == 1, err
    assert "not even with --force" in err
    if kind == "fd-link":
        assert "open file descriptor" in err and "-o -" in err
        held.close()
        assert (tmp_path / "held.txt").read_text() == ""
    assert link.is_symlink()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_export_to_standard_output_with_a_dash(tmp_path, capsys, run_file):
    code, out, err = cli(capsys, "export", run_file, "-o", "-")
    assert code == 0 and '"msgperf-export"' in out, err
    assert not (tmp_path / "-").exists()


def test_the_atomic_rename_never_replaces_a_device_even_unguarded(tmp_path):
    from msgperf.writing import atomic_write
    from msgperf.errors import MsgperfError

    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    with pytest.raises(MsgperfError, match="not a regular file"):
        with atomic_write(link) as out:
            out.write("x")
    assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["null"]


@pytest.mark.parametrize("force", [False, True])
def test_a_file_that_appears_while_exporting_is_replaced_only_with_force(tmp_path, capsys, run_file, monkeypatch,
                                                                         force):
    from msgperf.commands import export

    out = tmp_path / "x.json"
    real = export._TEXT_WRITERS["json"]

    def slow_writer(run, row, stream):  # someone else writes -o while the export runs
        out.write_text("written meanwhile\n")
        real(run, row, stream)

    monkeypatch.setitem(export._TEXT_WRITERS, "json", slow_writer)
    code, _, err = cli(capsys, "export", run_file, "-o", out, *(["--force"] if force else []))
    if force:
        assert code == 0 and "msgperf-export" in out.read_text(), err
    else:
        assert code == 1 and err.count("\n") == 1, err
        assert "appeared there while msgperf wrote an export" in err and "--force" in err
        assert out.read_text() == "written meanwhile\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl", "x.json"]


def test_a_report_that_appears_while_writing_is_kept(tmp_path, capsys, run_file, monkeypatch):
    from msgperf.present import report as report_module

    out = tmp_path / "r.html"
    real = report_module.build_report

    def build_and_plant(*args, **kwargs):
        out.write_text("<p>my notes</p>")
        return real(*args, **kwargs)

    monkeypatch.setattr(report_module, "build_report", build_and_plant)
    code, _, err = cli(capsys, "report", run_file, "-o", out)
    assert code == 1 and err.count("\n") == 1 and "appeared there while msgperf wrote the report" in err, err
    assert out.read_text() == "<p>my notes</p>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "run.jsonl"]


def test_report_to_a_name_the_user_gave_replaces_msgperfs_own_report_only(tmp_path, capsys, run_file):
    """`msgperf report RUN -o RUN.html` after `msgperf run` (which wrote RUN.html) refused
    without --force; msgperf's own report may be replaced at any name, a foreign file may not."""
    from msgperf.writing import REPORT_MARK, is_msgperf_report

    mine = tmp_path / "run.html"
    assert report_next_to(read_run(run_file).run, run_file) == f"report: {mine}"
    assert is_msgperf_report(mine) and REPORT_MARK in mine.read_text()[:2000]
    code, out, err = cli(capsys, "report", run_file, "-o", mine, "--title", "again")
    assert code == 0 and f"report: {mine}" in out, err
    assert "again" in mine.read_text()
    foreign = tmp_path / "notes.html"
    foreign.write_text("<!DOCTYPE html><p>my notes</p>")
    code, _, err = cli(capsys, "report", run_file, "-o", foreign)
    assert code == 1 and err.count("\n") == 1
    assert f"-o {foreign}: the file exists and is not msgperf's report" in err and "--force" in err
    assert foreign.read_text() == "<!DOCTYPE html><p>my notes</p>"
