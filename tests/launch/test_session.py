"""The measurement workflow (launch/session.py) end to end, without MPI: the fake launcher
replays recorded kernel output and ends each launch the way a test asks (tests/launch/fake_launcher.py).
The same paths run for real in tests/kernels."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from msgperf.errors import MsgperfError
from msgperf.launch.job import LOG_PREFIX, LaunchError, clean_old_logs
from msgperf.launch.run_file_guard import lock_path_of
from msgperf.launch.session import MeasureRequest, measure, parse_deadline, resume_state
from msgperf.plan import Plan
from msgperf.records.runfile_read import read_run
from msgperf.store.db import open_store
from tests.factories import pingpong_run, write_run
from tests.launch.fake_launcher import Behaviour, FakeLauncher

SIZES = (0, 8, 1024, 65536)


def plan(**changes) -> Plan:
    return Plan(**{"sizes": SIZES, "time_budget_s": 0.05, "min_samples": 8, "max_samples": 12, **changes})


@pytest.fixture
def logs(tmp_path) -> Path:
    d = tmp_path / "logs"
    d.mkdir()
    return d


@pytest.fixture
def req(tmp_path, logs):
    """A request for a new run into tmp_path/run.jsonl (changes as keywords)."""
    def make(**changes) -> MeasureRequest:
        fields = {"plan": plan(), "output": tmp_path / "run.jsonl", "log_dir": logs, "db": str(tmp_path / "db.sqlite"),
                  **changes}
        return MeasureRequest(**fields)
    return make


def resume_request(run_file: Path, logs: Path, **changes) -> MeasureRequest:
    return MeasureRequest(resume=run_file, log_dir=logs, store=False, **changes)


def sizes_by_launch(run) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for m in run.measurements:
        out.setdefault(m.launch, []).append(m.bytes)
    return out


# ---- a run that works ---------------------------------------------------------------------------

def test_a_run_is_measured_read_back_and_stored(req, tmp_path, logs):
    launcher = FakeLauncher()
    outcome = measure(req(), launcher=launcher)
    run = outcome.run
    assert outcome.run_file == tmp_path / "run.jsonl" and run.complete
    assert [m.bytes for m in run.measurements] == list(SIZES)
    assert [(o.index, o.sizes, o.records) for o in outcome.launches] == [(0, SIZES, 4)]
    args = launcher.kernel_args(0)
    assert "--overwrite" in args and "--append" not in args and "--repeat" not in args
    assert args[args.index("--sizes") + 1] == "0,8,1024,65536"
    with open_store(str(tmp_path / "db.sqlite")) as store:
        assert outcome.stored.run_id is not None and outcome.stored.added
        assert len(store.load_run(outcome.stored.run_id).measurements) == 4
    assert list(logs.iterdir()) == []  # a launch that succeeded leaves no log
    assert not lock_path_of(outcome.run_file).exists()


def test_a_run_imported_while_it_measures_is_stored_once(req, tmp_path):
    """`msgperf import live.jsonl` while `msgperf run -o live.jsonl` measured it left two stored
    runs: the finished run, stored at its end, must continue the copy imported meanwhile."""
    from msgperf.records.importers import load_file

    db = str(tmp_path / "db.sqlite")
    imported = []

    def import_now(record):  # what `msgperf import` does, after the second measurement
        if record.get("type") == "measurement" and record.get("bytes") == 8 and not imported:
            result, _ = load_file(str(tmp_path / "run.jsonl"), None)
            with open_store(db) as store:
                imported.append(store.add_run(result.run))

    outcome = measure(req(db=db), launcher=FakeLauncher(Behaviour(pace_s=0.05)), on_record=import_now)
    assert imported and imported[0][1]  # the partial copy was stored
    assert outcome.stored.run_id == imported[0][0] and outcome.stored.added
    with open_store(db) as store:
        (row,) = store.list_runs()
        assert row.n_measurements == 4


def test_callbacks_see_each_launch_and_each_record(req):
    starts, records, entered = [], [], []

    class View:
        def __enter__(self):
            entered.append("in")

        def __exit__(self, *exc):
            entered.append("out")

    def on_launch(start):
        starts.append(start)
        return View()

    measure(req(repeat=2), launcher=FakeLauncher(), on_launch=on_launch, on_record=records.append)
    assert [(s.index, s.ordinal, s.total, s.expected_records, s.label) for s in starts] == \
        [(0, 0, 2, 4, "sweep 1/2"), (1, 1, 2, 4, "sweep 2/2")]
    assert entered == ["in", "out", "in", "out"]
    kinds = [r["type"] for r in records]
    assert kinds == ["run", "launch", *["measurement"] * 4, "launch_end", "launch", *["measurement"] * 4, "launch_end"]


def test_duplicate_sizes_are_measured_once_in_ascending_order(req):
    launcher = FakeLauncher()
    outcome = measure(req(plan=plan(sizes=(8, 8, 1, 8))), launcher=launcher)
    args = launcher.kernel_args(0)
    assert args[args.index("--sizes") + 1] == "1,8"
    assert [m.bytes for m in outcome.run.measurements] == [1, 8] and outcome.run.info.plan.sizes == (1, 8)


def test_variants_and_placement_both_are_counted_in_what_is_expected(req):
    starts = []
    outcome = measure(req(plan=plan(patterns=("pingpong", "unexpected", "ring"), nranks=4), placement="both"),
                      launcher=FakeLauncher(), on_launch=starts.append)
    # pingpong and unexpected (2 variants) for the intra pair, then the inter pair; ring once
    per_size = 2 * (1 + 2) + 1
    assert starts[0].expected_records == per_size * len(SIZES) == outcome.launches[0].records
    assert {m.placement for m in outcome.run.measurements if m.pattern == "pingpong"} == {"intra", "inter"}
    assert outcome.run.info.plan.placement == "both"


# ---- --repeat, and resuming it -----------------------------------------------------------------

def test_repeat_makes_separate_launches_and_records_the_count(req):
    launcher = FakeLauncher()
    outcome = measure(req(repeat=3), launcher=launcher)
    run = outcome.run
    assert [l.index for l in run.launches] == [0, 1, 2] and all(l.finished for l in run.launches)
    assert run.info.plan.repeat == 3 and run.complete and run.missing() == []
    assert sizes_by_launch(run) == {i: list(SIZES) for i in range(3)}
    first, later = launcher.kernel_args(0), launcher.kernel_args(1)
    assert "--overwrite" in first and first[first.index("--repeat") + 1] == "3"
    assert "--append" in later and "--repeat" not in later and "--overwrite" not in later


def test_an_interrupted_repeat_resumes_the_launches_it_lacks(req, tmp_path, logs):
    # launch 1 of 3 dies after two sizes; launch 2 never starts
    with pytest.raises(LaunchError) as failed:
        measure(req(repeat=3), launcher=FakeLauncher(Behaviour(), Behaviour(after=2, then="die")))
    out = tmp_path / "run.jsonl"
    assert f"continue with: msgperf run --resume {out}" in str(failed.value)
    partial = read_run(out).run
    assert not partial.complete and partial.launches[1].aborted.startswith("the MPI job failed")
    # what show counts as missing: launch 1's last two sizes and all of launch 2
    assert len(partial.missing()) == 2 + 4
    state = resume_state(out)
    assert state.launches == (SIZES, (1024, 65536)) and state.next_index == 2 and state.repeat == 3
    launcher = FakeLauncher()
    resumed = measure(resume_request(out, logs), launcher=launcher)
    assert [(o.index, o.sizes) for o in resumed.launches] == [(2, SIZES), (3, (1024, 65536))]
    assert all("--append" in launcher.kernel_args(i) for i in range(2))
    run = resumed.run
    assert run.complete and run.missing() == []
    for size in SIZES:  # every size measured in three different launches
        assert len({m.launch for m in run.measurements if m.bytes == size}) == 3


def test_a_file_without_the_repeat_field_reads_as_one_launch(tmp_path):
    path = write_run(pingpong_run(), tmp_path / "old.jsonl")
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    del first["plan"]["repeat"]
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    run = read_run(path).run
    assert run.info.plan.repeat == 1 and run.complete


# ---- faults during a launch --------------------------------------------------------------------

def test_a_partial_last_line_is_cut_and_resume_measures_only_what_is_missing(req, tmp_path, logs):
    with pytest.raises(LaunchError) as failed:
        measure(req(), launcher=FakeLauncher(Behaviour(after=2, partial=True, then="die")))
    message = str(failed.value)
    assert message.startswith("the MPI job failed while measuring pingpong 1024 B (ranks 0 and 1)")
    assert "2 finished measurement(s) of this launch are kept" in message
    out = tmp_path / "run.jsonl"
    text = out.read_text()
    assert text.endswith("\n") and text.count('"type": "measurement"') == 2  # the half record was cut off
    assert read_run(out).run.launches[0].aborted == message
    resumed = measure(resume_request(out, logs), launcher=FakeLauncher())
    assert sizes_by_launch(resumed.run) == {0: [0, 8], 1: [1024, 65536]} and resumed.run.complete


def test_a_job_that_exits_non_zero_keeps_its_log_and_names_the_cause(req, tmp_path, logs):
    hydra = ("ssh: Could not resolve hostname nosuch.invalid: Name or service not known",
             "[mpiexec@vm] ui_cmd_cb (/mpich-5.0.2/src/pm/hydra/mpiexec/pmiserv_pmci.c:51): Launch proxy failed.",
             "[mpiexec@vm] main (/mpich-5.0.2/src/pm/hydra/mpiexec/mpiexec.c:270): process manager error waiting for completion")
    with pytest.raises(LaunchError) as failed:
        measure(req(output=None, runs_dir=tmp_path / "runs"),
                launcher=FakeLauncher(Behaviour(after=-1, code=255, log=hydra)))
    message = str(failed.value)
    assert "could not start the ranks (exit 255): ssh: Could not resolve hostname nosuch.invalid" in message
    assert "process manager error" not in message and len(message.splitlines()) == 1
    kept = list(logs.glob(f"{LOG_PREFIX}*"))
    assert len(kept) == 1 and f"[launcher output: {kept[0]}]" in message
    assert "Could not resolve hostname" in kept[0].read_text()
    assert list((tmp_path / "runs").iterdir()) == []  # the run file msgperf claimed, empty, is removed


def test_the_kernels_own_refusal_is_named(req):
    refusal = ("msgperf-kernels: only 1 rank; a pairwise pattern needs at least 2 (run with mpiexec -n 2)",
               "[mpiexec@vm] main (mpiexec.c:270): process manager error")
    with pytest.raises(LaunchError) as failed:
        measure(req(), launcher=FakeLauncher(Behaviour(after=-1, code=2, log=refusal)))
    assert str(failed.value).startswith("the kernels stopped before measuring (exit 2): only 1 rank; a pairwise "
                                        "pattern needs at least 2 (run with mpiexec -n 2) [launcher output: ")


def test_the_watchdog_stops_a_hang_and_marks_the_launch(req, tmp_path):
    out = tmp_path / "run.jsonl"
    started = time.monotonic()
    with pytest.raises(LaunchError) as failed:
        measure(req(deadline_s=0.5), launcher=FakeLauncher(Behaviour(after=1, then="hang")))
    assert time.monotonic() - started < 30
    message = str(failed.value)
    assert message.startswith("hung: no progress for 0.5 s while measuring pingpong 8 B (ranks 0 and 1)")
    assert "[launcher output:" in message
    run = read_run(out).run
    assert [m.bytes for m in run.measurements] == [0] and run.launches[0].aborted == message
    assert _fake_kernels_running(out) == []


def test_the_test_stall_option_reaches_the_kernels(req, tmp_path):
    with pytest.raises(LaunchError, match="hung: no progress for 0.5 s while measuring pingpong 1024 B"):
        measure(req(deadline_s=0.5, test_stall="1:1024"), launcher=FakeLauncher())


def test_ctrl_c_stops_the_job_and_marks_the_launch(req, tmp_path, logs):
    def interrupt(record):
        if record.get("type") == "measurement":
            raise KeyboardInterrupt

    with pytest.raises(LaunchError) as failed:
        measure(req(), launcher=FakeLauncher(Behaviour(pace_s=0.2)), on_record=interrupt)
    assert failed.value.exit_code == 130 and str(failed.value).startswith("interrupted while measuring pingpong 8 B")
    run = read_run(tmp_path / "run.jsonl").run
    assert run.launches[0].aborted.startswith("interrupted") and len(run.measurements) >= 1
    assert list(logs.iterdir()) == []  # the user stopped it: no launcher log is kept
    assert _fake_kernels_running(tmp_path / "run.jsonl") == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_sigterm_stops_the_job_and_marks_the_launch_like_ctrl_c(req, tmp_path, sig):
    """SIGTERM (timeout, a scheduler) and SIGHUP (a closed terminal) stop the job as Ctrl-C does."""
    class NotStopped(Exception):
        pass

    def terminate(record):
        if record.get("type") == "measurement":
            os.kill(os.getpid(), sig)

    def outside(signum, frame):  # what the signal does when msgperf does not catch it
        raise NotStopped()

    previous = signal.signal(sig, outside)
    try:
        with pytest.raises(LaunchError) as failed:
            measure(req(), launcher=FakeLauncher(Behaviour(pace_s=0.2)), on_record=terminate)
        name = signal.Signals(sig).name
        assert failed.value.exit_code == 128 + sig
        assert str(failed.value).startswith(f"terminated ({name}) while measuring pingpong 8 B")
        assert read_run(tmp_path / "run.jsonl").run.launches[0].aborted.startswith(f"terminated ({name})")
        assert signal.getsignal(sig) is outside  # the handler is msgperf's only during a launch
        assert _fake_kernels_running(tmp_path / "run.jsonl") == []
    finally:
        signal.signal(sig, previous)


def test_a_launch_that_stops_after_its_last_measurement_is_marked(req, tmp_path):
    with pytest.raises(LaunchError, match="after the last measurement"):
        measure(req(), launcher=FakeLauncher(Behaviour(after=4, code=1)))
    run = read_run(tmp_path / "run.jsonl").run
    assert len(run.measurements) == 4 and not run.complete and run.launches[0].aborted


# ---- the run file is never destroyed -----------------------------------------------------------

def test_an_existing_run_file_is_refused_without_force(req, tmp_path):
    out = write_run(pingpong_run(), tmp_path / "run.jsonl")
    before = out.read_bytes()
    launcher = FakeLauncher()
    with pytest.raises(MsgperfError, match=f"-o {out}: the run file exists; continue it with --resume {out}, "
                                           "choose another -o, or pass --force to replace it"):
        measure(req(), launcher=launcher)
    assert out.read_bytes() == before and launcher.commands == []


def test_force_replaces_a_run_file(req, tmp_path):
    out = write_run(pingpong_run(), tmp_path / "run.jsonl")
    launcher = FakeLauncher()
    outcome = measure(req(force=True), launcher=launcher)
    assert "--overwrite" in launcher.kernel_args(0)
    assert [m.bytes for m in read_run(out).run.measurements] == list(SIZES) and outcome.run.complete


def test_an_empty_file_is_replaced_only_with_force(req, tmp_path):
    out = tmp_path / "run.jsonl"
    out.touch()
    with pytest.raises(MsgperfError, match="the file exists \\(empty\\); choose another -o, or pass --force"):
        measure(req(), launcher=FakeLauncher())
    assert measure(req(force=True), launcher=FakeLauncher()).run.complete


@pytest.mark.parametrize("content", [b"SQLite format 3\x00" + bytes(200), b"results\n1 2\n", b'{"type":"other"}\n'],
                         ids=["database", "text", "json"])
def test_a_file_that_is_not_a_run_file_is_never_replaced_even_with_force(req, tmp_path, content):
    out = tmp_path / "run.jsonl"
    out.write_bytes(content)
    launcher = FakeLauncher()
    for force in (False, True):
        with pytest.raises(MsgperfError, match="is not a msgperf run file; msgperf never replaces it"):
            measure(req(force=force), launcher=launcher)
    assert out.read_bytes() == content and launcher.commands == []


def test_the_result_database_itself_is_never_replaced(req, tmp_path):
    db = tmp_path / "db.sqlite"
    with open_store(str(db)) as store:
        store.add_run(pingpong_run())
    before = db.read_bytes()
    with pytest.raises(MsgperfError, match="not a msgperf run file"):
        measure(req(output=db, force=True), launcher=FakeLauncher())
    assert db.read_bytes() == before


@pytest.mark.parametrize("kind", ["fifo", "broken link", "link to the database"])
def test_a_pipe_or_a_link_is_never_written_and_never_blocks(req, tmp_path, kind):
    """A FIFO as -o once blocked msgperf for ever (it read the FIFO's "first line"); a broken
    link would have been created through; a link to the database is the database."""
    import os
    import threading
    out = tmp_path / "out.jsonl"
    db = tmp_path / "db.sqlite"
    with open_store(str(db)) as store:
        store.add_run(pingpong_run())
    before = db.read_bytes()
    if kind == "fifo":
        os.mkfifo(out)
    else:
        out.symlink_to(tmp_path / "nowhere" if kind == "broken link" else db)
    launcher = FakeLauncher()
    for force in (False, True):
        errors: list[Exception] = []

        def attempt() -> None:
            try:
                measure(req(output=out, force=force), launcher=launcher)
            except MsgperfError as exc:
                errors.append(exc)
        thread = threading.Thread(target=attempt, daemon=True)  # a blocked read must fail the test, not hang it
        thread.start()
        thread.join(30)
        if thread.is_alive():
            os.close(os.open(out, os.O_WRONLY | os.O_NONBLOCK))  # let the blocked reader go
            pytest.fail(f"measure blocked on -o {kind}")
        assert len(errors) == 1 and "msgperf never replaces it" in str(errors[0])
    assert launcher.commands == [] and db.read_bytes() == before and not (tmp_path / "nowhere").exists()


def test_the_kernels_create_no_file_msgperf_did_not_claim(req, tmp_path):
    """The fake kernels open the run file as the real ones do: exclusively unless --overwrite
    or --append; msgperf claims -o FILE itself and says --overwrite."""
    launcher = FakeLauncher()
    measure(req(output=tmp_path / "new" / "dir" / "run.jsonl"), launcher=launcher)
    assert "--overwrite" in launcher.kernel_args(0)
    taken = tmp_path / "taken.jsonl"
    taken.write_text("someone else's\n")
    argv = FakeLauncher().command(2, ["--sizes", "8", "--output", str(taken)])
    result = subprocess.run(argv, capture_output=True, text=True)
    assert result.returncode == 2 and "exists; msgperf never overwrites a file without --force" in result.stderr
    assert taken.read_text() == "someone else's\n"


def test_a_read_only_directory_is_a_one_line_error_before_anything_runs(req, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    if os.geteuid() == 0:  # root writes through permissions: a read-only mount
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(ro)], capture_output=True)
        if mounted.returncode != 0:
            pytest.skip(f"cannot mount a read-only tmpfs: {mounted.stderr.decode().strip()}")
    else:
        ro.chmod(0o555)
    try:
        launcher = FakeLauncher()
        with pytest.raises(MsgperfError, match=f"cannot write the run file: {ro}/runs/|{ro}/ is not writable"):
            measure(req(output=None, runs_dir=ro / "runs"), launcher=launcher)
        with pytest.raises(MsgperfError, match=f"-o {ro}/run.jsonl: {ro}/ is not writable; choose a writable"):
            measure(req(output=ro / "run.jsonl"), launcher=launcher)
        assert launcher.commands == []
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(ro)], check=False)
        else:
            ro.chmod(0o755)


# ---- --resume ----------------------------------------------------------------------------------

def _lock_holder(path):
    """Another process that holds ``path``'s run-file lock for a minute; it prints "locked" once it does."""
    return subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from pathlib import Path; from msgperf.launch.run_file_guard import RunFileLock\n"
        "with RunFileLock(Path(sys.argv[1])):\n    print('locked', flush=True); time.sleep(60)"), str(path)],
        stdout=subprocess.PIPE, text=True)


def test_a_second_resume_of_the_same_file_fails_at_once_naming_the_holder(req, tmp_path, logs):
    with pytest.raises(LaunchError):
        measure(req(), launcher=FakeLauncher(Behaviour(after=1, then="die")))
    out = tmp_path / "run.jsonl"
    holder = _lock_holder(out)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = out.read_bytes()
        launcher = FakeLauncher()
        started = time.monotonic()
        with pytest.raises(MsgperfError, match=f"{out} is in use by another msgperf \\(pid {holder.pid}\\); wait"):
            measure(resume_request(out, logs), launcher=launcher)
        assert time.monotonic() - started < 5 and launcher.commands == [] and out.read_bytes() == before
    finally:
        holder.kill()
        holder.wait()
    resumed = measure(resume_request(out, logs), launcher=FakeLauncher())  # the lock died with its holder
    assert resumed.run.complete


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_a_resume_through_another_name_of_the_file_is_refused_too(req, tmp_path, logs, link):
    """The lock was keyed by the name given: two resumes, one through a link, both appended
    launch 2 and the file became unreadable. The lock is the file's (its inode)."""
    with pytest.raises(LaunchError):
        measure(req(), launcher=FakeLauncher(Behaviour(after=1, then="die")))
    out = tmp_path / "run.jsonl"
    other = tmp_path / "elsewhere" / "other-name.jsonl"
    other.parent.mkdir()
    other.symlink_to(out) if link == "symlink" else os.link(out, other)
    holder = _lock_holder(out)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = out.read_bytes()
        launcher = FakeLauncher()
        with pytest.raises(MsgperfError, match=f"{other} is in use by another msgperf") as refused:
            measure(resume_request(other, logs), launcher=launcher)
        assert "\n" not in str(refused.value)
        assert launcher.commands == [] and out.read_bytes() == before
        assert sorted(p.name for p in other.parent.iterdir()) == ["other-name.jsonl"]  # no lock file left
    finally:
        holder.kill()
        holder.wait()
    resumed = measure(resume_request(other, logs), launcher=FakeLauncher())  # the lock died with its holder
    assert resumed.run.complete and out.read_bytes() == other.read_bytes()


def test_nothing_to_resume_is_a_note_and_starts_nothing(req, tmp_path, logs):
    measure(req(), launcher=FakeLauncher())
    notes, launcher = [], FakeLauncher()
    outcome = measure(resume_request(tmp_path / "run.jsonl", logs), launcher=launcher, on_note=notes.append)
    assert notes == [f"{tmp_path / 'run.jsonl'} already holds every planned measurement; nothing to resume"]
    assert outcome.launches == () and launcher.commands == [] and outcome.run.complete


def test_resume_takes_the_plan_from_the_file(tmp_path):
    with pytest.raises(MsgperfError, match="takes the plan from the run file; drop -o, --repeat, --placement"):
        MeasureRequest(resume=tmp_path / "r.jsonl", output=tmp_path / "x.jsonl", repeat=2, placement="intra")
    with pytest.raises(MsgperfError, match="either a plan or a run file to resume"):
        MeasureRequest(plan=plan(), resume=tmp_path / "r.jsonl")
    with pytest.raises(MsgperfError, match="no such run file"):
        measure(MeasureRequest(resume=tmp_path / "none.jsonl"), launcher=FakeLauncher())


# ---- options that would switch safety nets off -------------------------------------------------

@pytest.mark.parametrize("value", [0, -5, math.nan, math.inf, -math.inf])
def test_a_deadline_must_be_positive_and_finite(value):
    with pytest.raises(MsgperfError, match="a deadline must be a positive finite number of seconds"):
        MeasureRequest(plan=plan(), deadline_s=value)


@pytest.mark.parametrize("text", ["0", "-5", "nan", "inf", "-inf", "1e999"])
def test_a_deadline_given_as_text(text):
    with pytest.raises(MsgperfError, match=f"--deadline {text}: a deadline must be a positive finite"):
        parse_deadline(text)
    assert parse_deadline("4.5") == 4.5
    with pytest.raises(MsgperfError, match="cannot read --deadline 'soon'"):
        parse_deadline("soon")


@pytest.mark.parametrize("launcher, fragment", [("mpiexec 'x", "no closing quotation"), ("   ", "--launcher is empty")])
def test_a_launcher_that_cannot_be_split(launcher, fragment):
    with pytest.raises(MsgperfError, match=fragment):
        MeasureRequest(plan=plan(), launcher=launcher)


# ---- launch logs -------------------------------------------------------------------------------

def test_old_launch_logs_are_cleaned_and_recent_ones_kept(logs):
    old, recent, other = logs / f"{LOG_PREFIX}old.log", logs / f"{LOG_PREFIX}recent.log", logs / "unrelated.log"
    for f in (old, recent, other):
        f.write_text("x")
    week_ago = time.time() - 8 * 24 * 3600
    os.utime(old, (week_ago, week_ago))
    os.utime(other, (week_ago, week_ago))
    assert clean_old_logs(logs) == 1
    assert not old.exists() and recent.exists() and other.exists()


def test_every_launch_cleans_the_old_logs_and_leaves_none_of_its_own(req, logs):
    """A launch removes this user's week-old launch logs first (they piled up in the temporary
    directory), and its own log when it succeeds."""
    old = logs / f"{LOG_PREFIX}old.log"
    old.write_text("an old failure")
    week_ago = time.time() - 8 * 24 * 3600
    os.utime(old, (week_ago, week_ago))
    outcome = measure(req(), launcher=FakeLauncher())
    assert outcome.run.complete
    assert list(logs.iterdir()) == []


def _fake_kernels_running(run_file: Path) -> list[str]:
    found = subprocess.run(["pgrep", "-f", f"fake_kernels.py.*{run_file}"], capture_output=True, text=True)
    return found.stdout.split()


def test_one_budget_for_the_sweep_is_chosen_from_the_measurements_and_recorded(req, tmp_path):
    """total_time_s None: the session chooses it once the measurements are known (10 s up to 28,
    0.36 s more for each beyond); the kernels get it and record it in the plan; an explicit one
    is kept; the probe launch keeps its own short per-size budget."""
    from msgperf.plan import AUTO_SHARE_S, AUTO_TOTAL_S
    launcher = FakeLauncher()
    outcome = measure(req(plan=plan(total_time_s=None)), launcher=launcher)
    assert outcome.run.info.plan.total_time_s == AUTO_TOTAL_S
    assert "--total-time" in launcher.commands[0] and "10.0" in launcher.commands[0]
    many = tuple(range(0, 40))
    out2 = tmp_path / "many.jsonl"
    outcome = measure(req(plan=plan(sizes=many, total_time_s=None), output=out2), launcher=launcher)
    assert outcome.run.info.plan.total_time_s == pytest.approx(AUTO_SHARE_S * 40)
    out3 = tmp_path / "given.jsonl"
    outcome = measure(req(plan=plan(total_time_s=2.5), output=out3, probe=True), launcher=launcher)
    assert outcome.run.info.plan.total_time_s == 2.5


def test_a_launch_after_the_planned_ones_that_fails_does_not_send_the_user_to_resume(req):
    """A tester interrupted a run during a refinement launch; the message said "continue with:
    msgperf run --resume", which then had nothing to resume. Only a sweep launch's failure says so."""
    notes: list[str] = []
    outcome = measure(req(probe=True), launcher=FakeLauncher(Behaviour(), Behaviour(after=0, then="die")),
                      on_note=notes.append)
    assert outcome.run.missing() == []
    (failed,) = [n for n in notes if n.startswith("the eager-probe launch failed")]
    assert "msgperf run --resume" not in failed and "a --resume has nothing to measure" in failed
    assert "msgperf run --resume" not in outcome.run.launches[1].aborted


def test_more_time_is_suggested_from_what_the_command_took_when_that_was_more(req):
    """--total-time 1ms took 5.6 s, and a note suggested --total-time 0.002s."""
    import re as regex
    import time as clock

    noted: list[tuple[str, float]] = []
    began = clock.monotonic()
    measure(req(plan=plan(total_time_s=0.001), answer_launches=3, whole_budget=True), launcher=FakeLauncher(),
            on_note=lambda n: noted.append((n, clock.monotonic() - began)))
    # each note suggests at least twice what the command had taken when it was written
    suggested = [(float(x), at) for n, at in noted for x in regex.findall(r"--total-time ([0-9.e+-]+)s", n)]
    assert suggested and all(x >= 1.9 * at for x, at in suggested), noted


def test_a_resumed_run_keeps_its_one_budget(req, tmp_path, logs):
    run_file = tmp_path / "run.jsonl"
    with pytest.raises(LaunchError):
        measure(req(plan=plan(total_time_s=3.0)), launcher=FakeLauncher(Behaviour(after=2)))
    state = resume_state(run_file)
    assert state.plan.total_time_s == 3.0 and "--total-time" in state.plan.kernel_args()
