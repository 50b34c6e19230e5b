"""msgperf profile on programs written for the test (tests/apps): the profile holds exactly the
messages each program is known to send, finds the back-to-back sends of halo and none in
halo_combined, passes exit codes on, keeps partial profiles, and says in one line what went
wrong. The command's pure helpers are tested without MPI at the end."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from msgperf.launch import profiled
from msgperf.errors import MsgperfError
from msgperf.launch.build import build_profiler, find_mpicc
from msgperf.launch.shm_leftovers import segments
from msgperf.records.profile_format import profile_text
from msgperf.records.profile_read import read_profile
from tests.factories import sample_profile
from tests.leftovers import job_of, left_running, unused_new_segments
from tests.factories import replace

APPS = Path(__file__).resolve().parents[1] / "apps"
MPIEXEC = str(Path(sys.executable).parent / "mpiexec")
OPENMPI_CC = Path("/usr/bin/mpicc.openmpi")
OPENMPI_RUN = "/usr/bin/mpirun.openmpi"
# More ranks than the 2 cores of a small machine: let MPICH's polling yield the core, as
# msgperf run does when oversubscribed.
YIELD = {"MPIR_CVAR_POLLS_BEFORE_YIELD": "1", "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1"}
WIDE_GAP = {"MSGPERF_PROFILE_GAP_S": "1"}  # only receives end a sequence: exact sequence counts


def compile_apps(mpicc: str, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    built = {}
    for name in ("halo", "halo_combined", "many_small", "all_calls", "timed_wait", "dies", "every_kind", "world_attr"):
        target = out / name
        subprocess.run([mpicc, "-O2", "-g", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-o", str(target),
                        str(APPS / f"{name}.c")], check=True, capture_output=True)
        built[name] = target
    return built


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    return compile_apps(str(find_mpicc()), tmp_path_factory.mktemp("apps"))


def profile_of(msgperf, tmp_path, *command, env=None, name="p.jsonl", mpicc=None):
    out = tmp_path / name
    args = ["profile", "-o", out, *(["--mpicc", mpicc] if mpicc else []), "--", *command]
    result = msgperf(*args, env={**YIELD, **(env or {})}, cwd=tmp_path)
    return result, out


# ---- every_kind: collectives, one-sided, probes, constructors: every call inside MPI ---------------

EVERY_KIND_STEPS = 12


@pytest.mark.mpi
def test_every_kind_of_call_is_counted_with_its_bytes_and_its_time_agrees_with_the_programs(msgperf, tmp_path,
                                                                                             apps):
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["every_kind"],
                             "--steps", str(EVERY_KIND_STEPS), "--sleep-ms", "20")
    assert result.returncode == 0, result.stderr
    profile = read_profile(out).profile
    own = {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"rank=(\d+) mpi_s=([0-9.]+)", result.stdout)}
    assert set(own) == {0, 1}
    s = EVERY_KIND_STEPS
    for rank in profile.ranks:
        calls = {c.call: c for c in rank.calls}
        expected = {  # call: (kind, count, bytes)
            "MPI_Allreduce": ("collective", 2 * s, s * (32768 + 8)), "MPI_Bcast": ("collective", s, s * 32768),
            "MPI_Alltoall": ("collective", s, s * 2 * 128), "MPI_Iallreduce": ("collective", s, s * 64),
            "MPI_Barrier": ("collective", s, 0), "MPI_Put": ("one-sided", s, s * 512),
            "MPI_Get": ("one-sided", s, s * 256), "MPI_Accumulate": ("one-sided", s, s * 128),
            "MPI_Win_fence": ("one-sided", 2 * s, 0), "MPI_Win_lock": ("one-sided", s, 0),
            "MPI_Win_unlock": ("one-sided", s, 0), "MPI_Win_create": ("one-sided", 1, 0),
            "MPI_Probe": ("probe", s, 0), "MPI_Iprobe": ("probe", s, 0), "MPI_Isend": ("point-to-point", s, s * 80),
            "MPI_Wait": ("wait/test", 2 * s, 0), "MPI_Comm_dup": ("communicator/datatype", 1, 0),
            "MPI_Comm_split": ("communicator/datatype", 1, 0), "MPI_Comm_free": ("communicator/datatype", 2, 0),
            "MPI_Type_contiguous": ("communicator/datatype", 1, 0), "MPI_Type_free": ("communicator/datatype", 1, 0)}
        for name, (kind, n, nbytes) in expected.items():
            assert (calls[name].kind, calls[name].n, calls[name].bytes) == (kind, n, nbytes), name
        colls = {(c.call, c.comm_size, c.bytes): c.n for c in rank.collectives}
        assert colls[("MPI_Allreduce", 2, 32768)] == s and colls[("MPI_Allreduce", 1, 8)] == s
        assert colls[("MPI_Alltoall", 2, 256)] == s
        types = {(c.call, c.bytes): c.datatype for c in rank.collectives}  # a reduction's type, nothing for the rest
        assert types[("MPI_Allreduce", 32768)] == types[("MPI_Allreduce", 8)] == "MPI_DOUBLE"
        assert types[("MPI_Alltoall", 256)] is None
        # the kinds add up to the time inside MPI, which agrees with the program's own MPI_Wtime brackets
        assert sum(c.time_s for c in rank.calls) == pytest.approx(rank.mpi_time_s, rel=1e-6)
        assert rank.mpi_time_s == pytest.approx(own[rank.rank], rel=0.10)
        assert any(site.call == "MPI_Allreduce" and site.object for site in rank.sites)
    # the summary: per kind, the top site resolved to the program's line, the last rank waited for
    assert "Time inside MPI by kind of call" in result.stdout
    assert re.search(r"MPI_Allreduce\s+\S*every_kind\.c:\d+", result.stdout), result.stdout
    assert "for rank 1" in result.stdout


@pytest.mark.mpi
def test_the_profiler_runs_none_of_the_programs_attribute_callbacks(msgperf, tmp_path, apps):
    """The profiler's own communicator (for the final gather) is a split of MPI_COMM_WORLD, not a duplicate:
    a duplicate would run the copy callback of an attribute the program set on MPI_COMM_WORLD, and its delete
    callback once more when freed."""
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["world_attr"])
    assert result.returncode == 0, result.stderr
    assert sorted(re.findall(r"rank=\d copy_fn=\d+ delete_fn=\d+", result.stdout)) == [
        "rank=0 copy_fn=0 delete_fn=1", "rank=1 copy_fn=0 delete_fn=1"]
    assert read_profile(out).profile.info.complete


@pytest.mark.mpi
def test_a_program_started_by_a_relative_path_keeps_its_call_sites_when_read_elsewhere(msgperf, tmp_path, apps):
    """The loader names the program "./every_kind" as it was started; the profile names its absolute
    path, so that `profile --show` from another directory still resolves the sites to file:line
    (LULESH profiled as ./lulesh2.0 and shown from elsewhere printed "no debug information")."""
    shutil.copy(apps["every_kind"], tmp_path / "every_kind")
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", "./every_kind", "--steps", "2", "--sleep-ms", "1")
    assert result.returncode == 0, result.stderr
    program = str((tmp_path / "every_kind").resolve())
    for rank in read_profile(out).profile.ranks:
        objects = {s.object for s in rank.sites if s.call == "MPI_Allreduce"}
        assert objects == {program}, objects
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shown = msgperf("profile", "--show", out, cwd=elsewhere)
    assert shown.returncode == 0, shown.stderr
    assert re.search(r"MPI_Allreduce\s+\S*every_kind\.c:\d+", shown.stdout), shown.stdout


# ---- all_calls: every wrapped call, message by message ------------------------------------------

# (peer, direction, kind) -> {bytes: count}, per rank: what tests/apps/all_calls.c sends and receives
ALL_CALLS = {
    0: {(1, "send", "send"): {10: 1, 7: 1, 40: 1, 8: 1}, (1, "send", "rsend"): {16: 1}, (1, "send", "bsend"): {100: 1},
        (1, "send", "isend"): {20: 3, 8: 1, 16: 1}, (1, "send", "irsend"): {8: 1}, (1, "send", "ibsend"): {40: 1},
        (1, "send", "send_init"): {32: 2}, (1, "send", "rsend_init"): {6: 1}, (1, "send", "bsend_init"): {5: 1},
        (1, "send", "sendrecv"): {50: 1}, (1, "send", "sendrecv_replace"): {16: 1},
        (1, "recv", "recv"): {12: 2}, (1, "recv", "irecv"): {24: 1}, (1, "recv", "recv_init"): {4: 1},
        (1, "recv", "sendrecv"): {60: 1}, (1, "recv", "sendrecv_replace"): {16: 1}},
    1: {(0, "send", "send"): {12: 1}, (0, "send", "ssend"): {12: 1}, (0, "send", "issend"): {24: 1},
        (0, "send", "ssend_init"): {4: 1}, (0, "send", "sendrecv"): {60: 1}, (0, "send", "sendrecv_replace"): {16: 1},
        (0, "recv", "recv"): {10: 1, 100: 1, 40: 2, 5: 1, 8: 1}, (0, "recv", "irecv"): {20: 3, 16: 2, 8: 2, 6: 1, 7: 1},
        (0, "recv", "recv_init"): {32: 2}, (0, "recv", "sendrecv"): {50: 1}, (0, "recv", "sendrecv_replace"): {16: 1}},
}
# calls whose number the program fixes (test loops run as often as they must: at least once)
ALL_CALLS_N = {
    0: {"MPI_Send": 5, "MPI_Recv": 3, "MPI_Rsend": 1, "MPI_Bsend": 1, "MPI_Isend": 5, "MPI_Irecv": 2, "MPI_Wait": 6,
        "MPI_Irsend": 1, "MPI_Ibsend": 1, "MPI_Send_init": 1, "MPI_Start": 4, "MPI_Recv_init": 1,
        "MPI_Startall": 1, "MPI_Waitany": 1, "MPI_Rsend_init": 1, "MPI_Bsend_init": 1, "MPI_Sendrecv": 1,
        "MPI_Sendrecv_replace": 1},
    1: {"MPI_Recv": 7, "MPI_Ssend": 1, "MPI_Irecv": 10, "MPI_Wait": 7, "MPI_Waitall": 1, "MPI_Issend": 1,
        "MPI_Recv_init": 1, "MPI_Start": 2, "MPI_Ssend_init": 1, "MPI_Startall": 1, "MPI_Waitany": 1,
        "MPI_Sendrecv": 1, "MPI_Sendrecv_replace": 1, "MPI_Send": 2},
}
ALL_CALLS_LOOPS = {0: ("MPI_Testall", "MPI_Test", "MPI_Testany", "MPI_Testsome"), 1: ("MPI_Test", "MPI_Waitsome")}


def check_all_calls(profile) -> None:
    assert profile.info.nranks == 2 and profile.info.complete and len(profile.ranks) == 2
    for rank in profile.ranks:
        got = {(m.peer, m.direction, m.kind): {s.bytes: s.count for s in m.sizes} for m in rank.messages}
        assert got == ALL_CALLS[rank.rank]
        for m in rank.messages:
            assert m.count == sum(s.count for s in m.sizes) and m.bytes == sum(s.bytes * s.count for s in m.sizes)
            assert m.other_count == 0
        calls = {c.call: c.n for c in rank.calls}
        assert {k: calls.get(k) for k in ALL_CALLS_N[rank.rank]} == ALL_CALLS_N[rank.rank]
        assert all(calls.get(k, 0) >= 1 for k in ALL_CALLS_LOOPS[rank.rank])
        point_to_point = {c.call for c in rank.calls if c.kind in ("point-to-point", "wait/test")}
        assert point_to_point == set(ALL_CALLS_N[rank.rank]) | set(ALL_CALLS_LOOPS[rank.rank])
        assert {"MPI_Type_commit", "MPI_Request_free"} <= set(calls)  # every other call is timed too
        assert rank.proc_null == 3 and rank.unknown_peer == 0 and rank.untracked_requests == 0
        assert rank.finalized and 0 < rank.wait_time_s <= rank.mpi_time_s <= rank.wall_s
        assert abs(sum(c.time_s for c in rank.calls) - rank.mpi_time_s) < 1e-6


@pytest.mark.mpi
def test_every_wrapped_call_is_counted_exactly(msgperf, tmp_path, apps):
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["all_calls"])
    assert result.returncode == 0, result.stderr
    profile = read_profile(out).profile
    check_all_calls(profile)
    assert profile.info.argv[0].endswith("all_calls") and "MPICH" in profile.info.mpi_library
    assert profile.info.hosts[0] and profile.info.thread_level == "single"
    assert f"profile: {out}" in result.stdout and "stored as profile 1" in result.stdout
    assert f"advice: msgperf advise --profile {out}" in result.stdout


# ---- halo and halo_combined ----------------------------------------------------------------------

def halo_sizes(messages: int, sizes: list[int]) -> dict[int, int]:
    """Message j of a step has sizes[j % len(sizes)] bytes: how many of each per neighbour per step."""
    counts: dict[int, int] = {}
    for j in range(messages):
        counts[sizes[j % len(sizes)]] = counts.get(sizes[j % len(sizes)], 0) + 1
    return counts


STEPS, MESSAGES, SIZES = 12, 8, [8, 64, 256]
HALO_ARGS = ["--steps", str(STEPS), "--messages", str(MESSAGES), "--bytes", ",".join(map(str, SIZES)),
             "--compute-us", "5"]


def check_halo_counts(profile, nranks: int, combined: bool) -> None:
    per_step = halo_sizes(MESSAGES, SIZES)
    if combined:
        per_step = {sum(s * n for s, n in per_step.items()): 1}
    for rank in profile.ranks:
        neighbours = {(rank.rank - 1) % nranks, (rank.rank + 1) % nranks}
        expected = {}
        for peer in neighbours:
            for direction, kind in (("send", "isend"), ("recv", "irecv")):
                expected[(peer, direction, kind)] = {b: n * STEPS for b, n in per_step.items()}
        got = {(m.peer, m.direction, m.kind): {s.bytes: s.count for s in m.sizes} for m in rank.messages}
        assert got == expected
        assert rank.bytes_sent == 2 * STEPS * sum(b * n for b, n in per_step.items())
        calls = {c.call: c.n for c in rank.calls if c.kind in ("point-to-point", "wait/test")}
        per = 1 if combined else MESSAGES
        assert calls == {"MPI_Isend": 2 * per * STEPS, "MPI_Irecv": 2 * per * STEPS, "MPI_Waitall": STEPS}
        collectives = {c.call: c.n for c in rank.calls if c.kind == "collective"}
        assert collectives == {"MPI_Barrier": 1, "MPI_Reduce": 1}  # halo.c and halo_common.h: now inside MPI


@pytest.mark.mpi
def test_halo_counts_are_exact_and_its_sequences_found(msgperf, tmp_path, apps):
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "3", apps["halo"], *HALO_ARGS, env=WIDE_GAP)
    assert result.returncode == 0, result.stderr
    profile = read_profile(out).profile
    check_halo_counts(profile, 3, combined=False)
    assert profile.info.sequence_gap_s == 1.0
    per_step = halo_sizes(MESSAGES, SIZES)
    for rank in profile.ranks:
        # one sequence per neighbour per step: its MESSAGES sends, ended by the Waitall's receives
        assert {s.peer for s in rank.sequences} == {(rank.rank - 1) % 3, (rank.rank + 1) % 3}
        for seq in rank.sequences:
            assert (seq.count, seq.messages, seq.other_count) == (STEPS, STEPS * MESSAGES, 0)
            (shape,) = seq.shapes
            assert (shape.count, shape.length, shape.kinds) == (STEPS, MESSAGES, ("isend",))
            assert {s.bytes: s.count for s in shape.sizes} == per_step
            assert shape.bytes == sum(b * n for b, n in per_step.items())
    assert "Back-to-back sequences with the most messages" in result.stdout


@pytest.mark.mpi
def test_halo_combined_has_no_sequences(msgperf, tmp_path, apps):
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "3", apps["halo_combined"], *HALO_ARGS, env=WIDE_GAP)
    assert result.returncode == 0, result.stderr
    profile = read_profile(out).profile
    check_halo_counts(profile, 3, combined=True)
    assert all(rank.sequences == () for rank in profile.ranks)


@pytest.mark.mpi
def test_sequences_with_the_default_gap_and_compute_between_sends(msgperf, tmp_path, apps):
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["halo"], *HALO_ARGS, name="a.jsonl")
    assert result.returncode == 0, result.stderr
    profile = read_profile(out).profile
    assert profile.info.sequence_gap_s == 1e-6
    # two ranks: both neighbours are the other rank, so a step's 2 x MESSAGES sends can form one sequence
    assert all(rank.sequences and max(s.length for s in rank.sequences[0].shapes) >= 2 for rank in profile.ranks)
    # 20 µs of compute before each send: longer than the gap, so no two sends are back to back
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["halo"], *HALO_ARGS,
                             "--compute-between-us", "20", name="b.jsonl")
    assert result.returncode == 0, result.stderr
    assert all(rank.sequences == () for rank in read_profile(out).profile.ranks)


# ---- endings: exit codes, partial profiles, bad input ---------------------------------------------

@pytest.mark.mpi
def test_exit_code_after_finalize_is_passed_on_with_the_whole_profile(msgperf, tmp_path, apps):
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["halo"], *HALO_ARGS,
                             "--exit-code", "4", "--exit-after-finalize")
    assert result.returncode == 4, result.stderr
    profile = read_profile(out).profile
    assert profile.info.complete and len(profile.ranks) == 2
    assert "the program exited with code 4" in result.stdout


@pytest.mark.mpi
def test_exit_without_finalize_keeps_a_partial_profile(msgperf, tmp_path, apps):
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["halo"], *HALO_ARGS, "--exit-code", "3")
    assert result.returncode == 3, result.stderr
    profile = read_profile(out).profile
    assert not profile.info.complete and profile.ranks  # the launcher may kill a rank before it writes
    per_step = halo_sizes(MESSAGES, SIZES)
    for rank in profile.ranks:
        assert rank.ended_by == "exit without MPI_Finalize"
        (sent,) = rank.sent()
        assert {s.bytes: s.count for s in sent.sizes} == {b: 2 * n * STEPS for b, n in per_step.items()}
    assert not list(tmp_path.glob(".p.jsonl*"))  # no rank file or temporary file left behind
    assert "ended without MPI_Finalize" in result.stdout


def received_sizes(rank):
    return {s.bytes: s.count for m in rank.messages if m.direction == "recv" for s in m.sizes}


def sent_sizes(rank):
    return {s.bytes: s.count for m in rank.messages if m.direction == "send" for s in m.sizes}


@pytest.mark.mpi
@pytest.mark.parametrize("how, code, ending, said", [
    ("--segv", 11, "signal SIGSEGV", "a rank died (Segmentation fault (signal 11)"),
    ("--sigterm", 15, "signal SIGTERM", "a rank died (Terminated (signal 15)")], ids=["SIGSEGV", "SIGTERM"])
def test_a_rank_killed_by_a_signal_keeps_what_it_recorded(msgperf, tmp_path, apps, how, code, ending, said):
    """Rank 1 receives 5 messages of 64 B, then dies of a signal: its record is written first
    (the profiler's signal handler). Hydra kills rank 0 with SIGKILL: it may leave nothing."""
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["dies"], how, "1")
    assert result.returncode == code, result.stderr  # Hydra passes the signal's number on
    profile = read_profile(out).profile
    assert not profile.info.complete
    rank = {r.rank: r for r in profile.ranks}[1]
    assert rank.ended_by == ending and received_sizes(rank) == {64: 5}
    assert f"*: ended without MPI_Finalize ({ending}: rank(s) 1" in result.stdout
    assert f"note: the program failed: {said}" in result.stdout
    assert not list(tmp_path.glob(".p.jsonl*"))


@pytest.fixture
def start_profile(tmp_path):
    """start_profile(*command) -> (msgperf profile's process, its -o); a run a failed test left
    is killed at the end (kill -9: its job goes with it), never left running."""
    started = []

    def start(*command):
        out = tmp_path / "p.jsonl"
        # SIGINT as a terminal delivers it: a suite started in the background (`make test &`) inherits
        # it ignored, and msgperf would never see the Ctrl-C this fixture's tests send
        proc = subprocess.Popen([sys.executable, "-m", "msgperf", "profile", "-o", str(out), "--no-store", "--",
                                 *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                                env={**os.environ, **YIELD},
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        started.append(proc)
        return proc, out

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def wait_for_lines(proc, word: str, count: int) -> None:
    """Until the program printed ``word`` ``count`` times (the ranks' lines may interleave)."""
    seen = ""
    while seen.count(word) < count:
        line = proc.stdout.readline()
        assert line, f"the program ended before printing {word!r} {count} times: {seen!r}"
        seen += line


@pytest.mark.mpi
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
def test_stopping_msgperf_profile_stops_the_program_and_keeps_what_it_recorded(tmp_path, apps, sig, start_profile):
    """timeout and schedulers send SIGTERM, a closed terminal SIGHUP, Ctrl-C SIGINT: the ranks
    are stopped (with SIGTERM, so each writes what it recorded), nothing is left running or in
    /dev/shm, and the profile keeps both ranks' messages."""
    before = segments()
    proc, out = start_profile(MPIEXEC, "-n", "2", apps["dies"], "--wait")
    wait_for_lines(proc, "sent", 2)
    job = job_of(proc.pid)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=60)
    name = signal.Signals(sig).name
    assert proc.returncode == 128 + sig
    # the last line, and the only error (the launcher may say what it saw before)
    assert [l for l in stderr.splitlines() if l.startswith("error:")] == stderr.splitlines()[-1:] == [
        f"error: stopped by {name}; what 2 of 2 rank(s) recorded until then is kept in {out}"]
    assert left_running(job) == []
    assert unused_new_segments(before) == set()
    ranks = read_profile(out).profile.ranks
    assert [r.ended_by for r in ranks] == ["signal SIGTERM"] * 2
    assert sent_sizes(ranks[0]) == {64: 5} and received_sizes(ranks[1]) == {64: 5}
    assert not list(tmp_path.glob(".p.jsonl*"))


def test_a_profile_stopped_before_any_record_leaves_no_file(msgperf, tmp_path, start_profile):
    """Was: SIGTERM killed msgperf silently, left the program running and a 0-byte -o file that
    the next msgperf profile -o refused."""
    proc, out = start_profile("/bin/sh", "-c", "echo started; exec sleep 60")
    wait_for_lines(proc, "started", 1)
    job = job_of(proc.pid)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143
    assert stderr.splitlines() == ["error: stopped by SIGTERM before any rank wrote what it recorded; no profile kept"]
    assert left_running(job) == [] and len(job) == 1
    assert not out.exists() and not list(tmp_path.glob(".p.jsonl*"))
    result, _ = profile_of(msgperf, tmp_path, "/bin/true")  # the name is free for the next run
    assert "never called MPI_Init" in result.stderr


@pytest.mark.mpi
def test_kill_9_of_msgperf_profile_takes_the_program_with_it(msgperf, tmp_path, apps, start_profile):
    """... and the segments its ranks leave (nothing of msgperf ran after the kill) are removed
    when the next profile starts."""
    before = segments()
    proc, out = start_profile(MPIEXEC, "-n", "2", apps["dies"], "--wait")
    wait_for_lines(proc, "sent", 2)
    job = job_of(proc.pid)
    assert len(job) >= 4  # mpiexec, its proxy, 2 ranks
    proc.kill()
    proc.communicate(timeout=60)
    assert left_running(job) == []
    assert out.read_bytes() == b""  # the claim nothing of msgperf ran to remove
    result, _ = profile_of(msgperf, tmp_path, "/bin/true")  # the same -o
    parts = f".p.jsonl.{proc.pid}.part"
    # each rank writes its part when the launcher's end reaches it; a rank the launcher kills outright
    # (SIGKILL, on a loaded machine) writes none: the note names the parts there are
    kept = sorted(f.name for f in tmp_path.glob(f"{parts}.rank*"))
    assert set(kept) <= {f"{parts}.rank0", f"{parts}.rank1"}
    assert result.stderr.splitlines() == [
        f"note: -o {out} was left empty by a msgperf profile that was killed (pid {proc.pid}); it is used again"
        + (f"; what its ranks recorded is kept in {', '.join(kept)}" if kept else ""),
        "error: no profile written: true never called MPI_Init under the profiler (not an MPI program, or one "
        "linked statically)"]
    assert not (tmp_path / f"{parts}.started").exists()  # the dead run's marks went, its ranks' parts stayed
    assert unused_new_segments(before) == set()


def test_only_the_empty_claim_of_a_dead_msgperf_is_taken_over(tmp_path):
    said: list[str] = []
    out = tmp_path / "p.jsonl"
    out.touch()
    assert not profiled.take_over(out, said.append)  # no mark: a claim just made, or not msgperf's
    profiled.claim_mark(out, os.getpid()).touch()  # a live msgperf's claim
    assert not profiled.take_over(out, said.append)
    profiled.claim_mark(out, os.getpid()).unlink()
    dead = subprocess.Popen(["true"])
    dead.wait()
    profiled.claim_mark(out, dead.pid).touch()
    out.write_text("x")  # not empty: never
    assert not profiled.take_over(out, said.append)
    assert said == []  # nothing taken over, nothing said
    out.write_text("")
    assert profiled.take_over(out, said.append)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [
        profiled.claim_mark(out).name]
    assert len(said) == 1 and said[0].startswith(f"note: -o {out} was left empty by a msgperf profile that was killed")


def test_taking_over_a_dead_claim_removes_its_hidden_leftovers_but_keeps_what_ranks_recorded(tmp_path):
    said: list[str] = []
    out = tmp_path / "p.jsonl"
    out.touch()
    dead = subprocess.Popen(["true"])
    dead.wait()
    profiled.claim_mark(out, dead.pid).touch()
    private = f".p.jsonl.{dead.pid}.part"
    for rest in ("started", "error", "rank0", "rank1.tmp.77", "rank2"):
        (tmp_path / f"{private}.{rest}").write_text("x")
    other = tmp_path / f".p.jsonl.{os.getpid()}.part.started"  # a live run's: never touched
    other.write_text("x")
    (tmp_path / "p.jsonl.rank0").write_text("x")  # not hidden, not the dead run's: never touched
    assert profiled.take_over(out, said.append)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([profiled.claim_mark(out).name, f"{private}.rank0", f"{private}.rank2", other.name,
                           "p.jsonl", "p.jsonl.rank0"])
    assert len(said) == 1 and f"what its ranks recorded is kept in {private}.rank0, {private}.rank2" in said[0]


@pytest.mark.mpi
def test_a_program_the_launcher_cannot_start_is_named(msgperf, tmp_path):
    missing = tmp_path / "nosuch"
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", missing)
    assert result.returncode == 255
    assert result.stderr.splitlines()[-1] == (f"error: no profile written: the program did not start: execvp error on "
                                              f"file {missing} (No such file or directory)")
    assert not out.exists()


def test_a_program_that_died_before_or_after_mpi_init_is_told_apart(msgperf, tmp_path):
    result, out = profile_of(msgperf, tmp_path, "/bin/sh", "-c", "kill -SEGV $$")
    assert result.returncode == 139
    assert result.stderr.splitlines() == [
        "error: no profile written: sh died of SIGSEGV before calling MPI_Init under the profiler"]
    # the library marks MPI_Init (<output>.started); a rank killed with SIGKILL cannot write its part
    result, out = profile_of(msgperf, tmp_path, "/bin/sh", "-c", 'touch "$MSGPERF_PROFILE_OUTPUT.started"; kill -KILL $$')
    assert result.returncode == 137
    assert result.stderr.splitlines() == [
        "error: no profile written: sh called MPI_Init under the profiler, but no rank wrote what it recorded: "
        "killed by SIGKILL"]
    assert not out.exists() and not list(tmp_path.glob(".p.jsonl*"))


def test_a_program_that_is_not_an_mpi_program_gets_one_line(msgperf, tmp_path):
    result, out = profile_of(msgperf, tmp_path, "/bin/true")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "error: no profile written: true never called MPI_Init under the profiler "
        "(not an MPI program, or one linked statically)"]
    assert not out.exists() and not list(tmp_path.glob(".p.jsonl*"))
    result, _ = profile_of(msgperf, tmp_path, "/bin/sh", "-c", "exit 7")
    assert result.returncode == 7 and "it exited with code 7" in result.stderr


def test_a_profile_without_any_rank_gets_one_line_and_is_kept(msgperf, tmp_path):
    """What is left when every rank was killed before writing: the header alone."""
    header = profile_text(replace(sample_profile(0), ranks=())).splitlines()[0]
    (tmp_path / "header").write_text(header + "\n")
    result, out = profile_of(msgperf, tmp_path, "/bin/sh", "-c", 'cp header "$MSGPERF_PROFILE_OUTPUT"; exit 9')
    assert result.returncode == 9 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: no rank left a record in the profile {out} (kept): sh was killed "
                                    "before any rank could write its part, or it is not an MPI program; it exited "
                                    "with code 9")
    assert out.read_text() == header + "\n" and "stored as" not in result.stdout


def test_a_broken_profile_is_kept_and_named(msgperf, tmp_path):
    result, out = profile_of(msgperf, tmp_path, "/bin/sh", "-c", 'echo garbage > "$MSGPERF_PROFILE_OUTPUT"')
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "not a msgperf profile" in result.stderr and "(the file is kept)" in result.stderr
    assert out.read_text() == "garbage\n"


def test_rank_files_of_a_run_without_finalize_become_one_profile(msgperf, tmp_path):
    """What the library leaves when ranks exit without MPI_Finalize, written here by a script."""
    whole = sample_profile(0, nranks=3, complete=False)
    for r in (0, 2):
        part = replace(whole, ranks=(whole.ranks[r],), info=replace(whole.info, hosts=()))
        (tmp_path / f"part{r}").write_text(profile_text(part))
    script = 'cp part0 "$MSGPERF_PROFILE_OUTPUT.rank0"; cp part2 "$MSGPERF_PROFILE_OUTPUT.rank2"; ' \
             'echo "{" > "$MSGPERF_PROFILE_OUTPUT.rank1.tmp.99"; exit 3'
    result, out = profile_of(msgperf, tmp_path, "/bin/sh", "-c", script)
    assert result.returncode == 3, result.stderr
    profile = read_profile(out).profile
    assert [r.rank for r in profile.ranks] == [0, 2] and profile.missing_ranks == (1,)
    assert not profile.info.complete and profile.info.hosts == ("node0", "", "node1")
    assert "1 rank(s) were stopped while writing their part" in result.stdout
    assert "no record from rank(s) 1: killed before they could write their part" in result.stdout
    assert "the program exited with code 3" in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.jsonl", "part0", "part2"]


@pytest.mark.mpi
def test_all_calls_sequences_end_at_each_completed_receive(msgperf, tmp_path, apps):
    """With the gap wide, only completed receives end sequences, so all_calls' are exact. The
    last one pins the order of a blocking receive's counting, which the profiler puts off to
    the next call: section 18's MPI_Recv must end [7, 8, 16, 40] before section 19's 8 B send
    is counted, or that send would make it five long."""
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["all_calls"], env=WIDE_GAP)
    assert result.returncode == 0, result.stderr
    r0, r1 = read_profile(out).profile.ranks
    assert r1.sequences == () and [s.peer for s in r0.sequences] == [1]
    shapes = [(s.count, s.length, s.kinds, tuple((z.bytes, z.count) for z in s.sizes)) for s in r0.sequences[0].shapes]
    assert shapes == [(1, 5, ("rsend", "bsend", "isend"), ((16, 1), (20, 3), (100, 1))),
                      (1, 4, ("irsend", "ibsend", "send_init"), ((8, 1), (32, 2), (40, 1))),
                      (1, 2, ("rsend_init", "bsend_init"), ((5, 1), (6, 1))),
                      (1, 4, ("send", "isend"), ((7, 1), (8, 1), (16, 1), (40, 1)))]


def invariant_tsc() -> bool:
    """What the profiler decides on: x86 and the kernel's constant_tsc and nonstop_tsc flags."""
    import platform
    if platform.machine() not in ("x86_64", "i386", "i686"):
        return False
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return {"constant_tsc", "nonstop_tsc"} <= set(line.split())
    return False


@pytest.mark.mpi
@pytest.mark.parametrize("forced", ["", "monotonic"])
def test_the_clock_is_named_and_its_times_agree_with_clock_gettime(msgperf, tmp_path, apps, forced):
    """timed_wait's rank 0 waits 3 × 100 ms in MPI_Recv and times that with clock_gettime
    itself; the profile's time inside MPI_Recv, read with the profiler's clock (the TSC where
    it can), must agree with it, and the profile must say which clock it used."""
    result, out = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["timed_wait"],
                             env={"MSGPERF_PROFILE_CLOCK": forced} if forced else None)
    assert result.returncode == 0, result.stderr
    own = float(result.stdout.split("recv_s=")[1].split()[0])
    profile = read_profile(out).profile
    rank = profile.ranks[0]
    expected = "tsc" if invariant_tsc() and not forced else "clock_gettime(CLOCK_MONOTONIC)"
    assert [r.clock.name for r in profile.ranks] == [expected, expected] and profile.info.clock == expected
    assert profile.info.format_version == 4 and profile.info.clock_read_s == rank.clock.read_s > 0
    recv = {c.call: c for c in rank.calls}["MPI_Recv"]
    assert recv.n == 3 and own >= 0.3
    assert recv.time_s == pytest.approx(own, rel=0.10)
    # the program's own reads lie outside the profiler's (1e-5: more than the calibration's error)
    assert recv.time_s <= own * (1 + 1e-5)
    assert rank.mpi_time_s <= rank.wall_s <= rank.clock.calibration_s
    for r in profile.ranks:
        assert r.clock.calibration_s >= 0.3  # from MPI_Init to MPI_Finalize: the whole run
        if expected == "tsc":
            assert 5e7 < r.clock.ticks_per_s < 2e10 and abs(r.clock.drift) < 1e-3
        else:
            assert r.clock.ticks_per_s == r.clock.ticks_per_s_at_init == 1e9


def test_bad_commands_and_outputs_get_one_line(msgperf, tmp_path):
    result, _ = profile_of(msgperf, tmp_path, "/no/such/launcher", "-n", "2", "./app")
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "/no/such/launcher: no such command" in result.stderr
    existing = tmp_path / "p.jsonl"
    existing.write_text("keep me")
    result, _ = profile_of(msgperf, tmp_path, "/bin/true")
    assert result.returncode == 1 and "the file exists; msgperf never replaces a file" in result.stderr
    assert existing.read_text() == "keep me"
    result = msgperf("profile")
    assert result.returncode == 2 and "give the command to profile" in result.stderr


def test_an_mpi_the_profiler_cannot_be_built_for_gets_the_compilers_error(msgperf, tmp_path):
    real = find_mpicc()
    broken = tmp_path / "mpicc"
    broken.write_text('#!/bin/sh\ncase "$*" in *-shared*) echo "prof.h:12: error: unknown type name MPI_Count" >&2; '
                      f'exit 1;; esac\nexec "{real}" "$@"\n')
    broken.chmod(0o755)
    result, out = profile_of(msgperf, tmp_path, "/bin/true", mpicc=str(broken), env={"MSGPERF_CACHE": str(tmp_path / "c")})
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "cannot compile the profiler: prof.h:12: error: unknown type name MPI_Count" in result.stderr
    assert not out.exists()


# ---- the store and the library linked in -----------------------------------------------------------

@pytest.mark.mpi
def test_profiles_are_listed_with_the_runs(msgperf, tmp_path, apps):
    result, _ = profile_of(msgperf, tmp_path, MPIEXEC, "-n", "2", apps["halo"], *HALO_ARGS)
    assert result.returncode == 0, result.stderr
    listing = msgperf("runs")
    assert listing.returncode == 0 and "profiles (msgperf profile)" in listing.stdout
    assert "halo --steps 12" in listing.stdout and "MPICH 5.0.2" in listing.stdout
    assert f"{2 * 2 * STEPS * MESSAGES:,}" in listing.stdout  # messages sent, both ranks
    assert "halo" in msgperf("runs", "--source", "profile").stdout
    assert "no stored runs" in msgperf("runs", "--source", "msgperf").stdout
    assert "no stored runs" in msgperf("runs", "--pattern", "pingpong").stdout


@pytest.mark.mpi
def test_the_library_linked_into_a_program_profiles_it_without_ld_preload(tmp_path):
    library = build_profiler().path
    program = tmp_path / "halo"
    subprocess.run([str(find_mpicc()), "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-o", str(program),
                    str(APPS / "halo.c"), f"-L{library.parent}", "-lmsgperf-profile",
                    f"-Wl,-rpath,{library.parent}"], check=True)
    out = tmp_path / "linked.jsonl"
    env = {**os.environ, **YIELD, "MSGPERF_PROFILE_OUTPUT": str(out)}
    env.pop("LD_PRELOAD", None)
    subprocess.run([MPIEXEC, "-n", "2", str(program), *HALO_ARGS], check=True, env=env, capture_output=True,
                   timeout=120)
    profile = read_profile(out).profile
    assert profile.info.complete and {c.call: c.n for c in profile.ranks[0].calls}["MPI_Isend"] == 2 * MESSAGES * STEPS


# ---- Fortran (Debian's MPICH and gfortran: tools/install-test-deps installs them with libmpich-dev) ----

MPICH_FC = Path("/usr/bin/mpif90.mpich")
MPICH_CC = Path("/usr/bin/mpicc.mpich")
MPICH_RUN = Path("/usr/bin/mpiexec.mpich")


@pytest.mark.slow
@pytest.mark.fortran
@pytest.mark.parametrize("source, expected", [
    ("fortran_halo.f90", {"MPI_Isend": (10, 80000), "MPI_Irecv": (10, 0), "MPI_Waitall": (10, 0),
                          "MPI_Allreduce": (10, 80), "MPI_Barrier": (1, 0)}),
    ("fortran_old.f", {"MPI_Allreduce": (7, 56), "MPI_Bcast": (1, 8)}),
])
def test_a_fortran_program_is_profiled_through_the_c_wrappers(msgperf, tmp_path, source, expected):
    missing = [str(p) for p in (MPICH_FC, MPICH_CC, MPICH_RUN) if not p.exists()]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (Debian: mpich, libmpich-dev, which brings gfortran)")
    program = tmp_path / "fprog"
    subprocess.run([str(MPICH_FC), "-g", "-O1", "-o", str(program), str(APPS / source)], check=True,
                   capture_output=True)
    result, out = profile_of(msgperf, tmp_path, str(MPICH_RUN), "-n", "2", program, mpicc=str(MPICH_CC))
    assert result.returncode == 0, result.stderr
    profile = read_profile(out).profile
    assert profile.info.complete and "MPICH" in profile.info.mpi_library
    for rank in profile.ranks:
        calls = {c.call: (c.n, c.bytes) for c in rank.calls}
        assert {k: calls.get(k) for k in expected} == expected
        # MPICH's bindings call the C functions: the site is in the binding library, not the program's line
        assert all(s.object and "fort" in s.object for s in rank.sites if s.call in expected)


# ---- Open MPI ---------------------------------------------------------------------------------------

def require_openmpi() -> None:
    if not OPENMPI_CC.exists() or not Path(OPENMPI_RUN).exists():
        pytest.skip("Debian's Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev)")


OPENMPI_ARGS = [OPENMPI_RUN, "--oversubscribe", *(["--allow-run-as-root"] if os.geteuid() == 0 else [])]


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.openmpi
def test_open_mpi_profiles_every_call_exactly(msgperf, tmp_path):
    require_openmpi()
    apps = compile_apps(str(OPENMPI_CC), tmp_path / "apps")
    result, out = profile_of(msgperf, tmp_path, *OPENMPI_ARGS, "-np", "2", apps["all_calls"], mpicc=str(OPENMPI_CC))
    assert result.returncode == 0, result.stderr
    profile = read_profile(out).profile
    check_all_calls(profile)
    assert "Open MPI" in profile.info.mpi_library
    result, out = profile_of(msgperf, tmp_path, *OPENMPI_ARGS, "-np", "2", apps["halo"], *HALO_ARGS,
                             "--exit-code", "5", "--exit-after-finalize", mpicc=str(OPENMPI_CC), name="h.jsonl")
    assert result.returncode == 5, result.stderr
    assert read_profile(out).profile.info.complete


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.openmpi
def test_a_profiler_of_another_mpi_says_so(msgperf, tmp_path):
    require_openmpi()
    apps = compile_apps(str(OPENMPI_CC), tmp_path / "apps")
    # Open MPI's launcher with the default (MPICH) profiler: refused before anything runs
    result, out = profile_of(msgperf, tmp_path, *OPENMPI_ARGS, "-np", "2", apps["halo"], *HALO_ARGS)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert f"error: {OPENMPI_RUN} is Open MPI's launcher but the profiler is built for MPICH 5.0.2" in result.stderr
    assert not out.exists()
    # no launcher to tell (a singleton): the library itself notices and says so; the program,
    # with two MPI libraries loaded, may crash, and its exit code is passed on
    result, out = profile_of(msgperf, tmp_path, apps["halo"], *HALO_ARGS)
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1].startswith(
        "error: the profiler was built for MPICH but the program runs Open MPI v4.")
    assert not out.exists() and not list(tmp_path.glob(".p.jsonl*"))


# ---- pure helpers -------------------------------------------------------------------------------------

def test_the_program_is_found_among_the_launchers_arguments(tmp_path):
    app = tmp_path / "solver"
    app.write_text("")
    app.chmod(0o755)
    assert profiled.program_name(("mpiexec", "-n", "4", str(app), "-x", "1")) == "solver"
    assert profiled.program_name(("mpirun", "-np", "2", "--host", "a,b", "true")) == "true"
    assert profiled.program_name(("./weird",)) == "weird"


def test_open_mpi_launchers_pass_the_variables_on(monkeypatch):
    monkeypatch.setattr(profiled, "detect_flavor", lambda launcher: "openmpi")
    ompi = "Open MPI 4.1.4"
    assert profiled.with_preload_flags(("mpirun.openmpi", "-np", "2", "./a"), ompi) == \
        ["mpirun.openmpi", "-x", "LD_PRELOAD", "-x", "MSGPERF_PROFILE_OUTPUT", "-np", "2", "./a"]
    assert profiled.with_preload_flags(("./a", "-np", "2"), "MPICH 5.0.2") == ["./a", "-np", "2"]  # never asked
    with pytest.raises(MsgperfError, match="mpirun is Open MPI's launcher but the profiler is built for MPICH 5.0.2"):
        profiled.with_preload_flags(("mpirun", "-np", "2", "./a"), "MPICH 5.0.2")
    monkeypatch.setattr(profiled, "detect_flavor", lambda launcher: "hydra")
    assert profiled.with_preload_flags(("mpiexec", "-n", "2", "./a"), "MPICH 5.0.2") == ["mpiexec", "-n", "2", "./a"]
    with pytest.raises(MsgperfError, match="mpiexec is MPICH's launcher but the profiler is built for Open MPI"):
        profiled.with_preload_flags(("mpiexec", "-n", "2", "./a"), ompi)
    monkeypatch.setattr(profiled, "detect_flavor", lambda launcher: "srun")
    assert profiled.with_preload_flags(("srun", "-n", "2", "./a"), ompi) == ["srun", "-n", "2", "./a"]


def test_a_default_file_name_is_never_taken_twice(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first, second = profiled.default_output("halo"), profiled.default_output("halo")
    assert first != second and first.name.endswith("-profile-halo.jsonl") and first.parent.name == "runs"
    assert profiled.default_output("a b/../c").name.endswith("-profile-a_b_.._c.jsonl")


# ---- msgperf profile --show: a profile's summary again, several runs merged --------------------------

@pytest.fixture(scope="module")
def halo_runs(apps, tmp_path_factory):
    """Three profiles of one halo program at 2 ranks, stored in a database of their own: (files, ids, db)."""
    from tests.conftest import run_cli

    where = tmp_path_factory.mktemp("halo_runs")
    db = where / "m.db"
    files, ids = [], []
    for i in range(3):
        out = where / f"halo-{i}.jsonl"
        done = run_cli("profile", "-o", out, "--db", db, "--", MPIEXEC, "-n", "2", apps["halo"], *HALO_ARGS,
                       cwd=where, env=YIELD)
        assert done.returncode == 0, done.stderr
        ids.append(re.search(r"stored as profile (\d+)", done.stdout).group(1))
        files.append(out)
    return files, ids, db


@pytest.mark.mpi
def test_show_prints_one_stored_profiles_summary_again(msgperf, halo_runs):
    files, ids, db = halo_runs
    shown = msgperf("profile", "--show", "--db", db, ids[0])
    assert shown.returncode == 0, shown.stderr
    profile = read_profile(files[0]).profile
    text = " ".join(shown.stdout.split())
    assert f"halo --steps {STEPS}" in text and "Time inside MPI by kind of call" in text
    assert f"profile: profile {ids[0]}" in text and f"advice: msgperf advise --profile {ids[0]}" in text
    for r in profile.ranks:  # the rank table, from the stored profile: its messages sent
        assert re.search(rf"\b{r.rank} \S+ {r.messages_sent} ", text), text


@pytest.mark.mpi
def test_show_merges_several_runs_with_medians_and_ranges(msgperf, halo_runs):
    from statistics import median

    from msgperf.present.profile_summary import spread_text
    from msgperf.analysis.advice import merge_runs

    files, ids, db = halo_runs
    shown = msgperf("profile", "--show", *files)
    assert shown.returncode == 0, shown.stderr
    profiles = [read_profile(f).profile for f in files]
    runs = merge_runs(profiles, [str(f) for f in files])
    totals = [sum(r.mpi_time_s for r in p.ranks) for p in profiles]
    assert runs.mpi_time_s.median == pytest.approx(median(totals)) and runs.mpi_time_s.n == 3
    assert (runs.mpi_time_s.low, runs.mpi_time_s.high) == (min(totals), max(totals))
    text = " ".join(shown.stdout.split())
    assert "3 runs merged" in text and "not a confidence interval" in text
    assert f"time inside MPI (every rank together) {spread_text(runs.mpi_time_s)}" in text
    waitall = next(c for c in runs.calls if c.name == "MPI_Waitall")
    assert waitall.calls.median == 2 * STEPS and waitall.calls.low == waitall.calls.high  # the same program
    assert f"MPI_Waitall wait/test {2 * STEPS} - {spread_text(waitall.time_s)}" in text
    # a stored id and a file of the same run: one run given twice
    twice = msgperf("profile", "--show", "--db", db, files[0], ids[0])
    assert twice.returncode == 1 and "are the same run" in twice.stderr and twice.stderr.count("\n") == 1


def test_show_json_holds_the_summarys_figures(msgperf, tmp_path):
    from msgperf.analysis.advice import account_profile, merge_runs

    one = tmp_path / "a.jsonl"
    profile = sample_profile(3, version=3)
    one.write_text(profile_text(profile))
    shown = msgperf("profile", "--show", "--json", one)
    assert shown.returncode == 0, shown.stderr
    js = json.loads(shown.stdout)
    assert js["profile"] == str(one) and js["nranks"] == profile.info.nranks and js["missing_ranks"] == []
    for r, row in zip(profile.ranks, js["ranks"]):  # the rank table's columns
        assert (row["rank"], row["messages_sent"], row["bytes_sent"], row["messages_received"]) == (
            r.rank, r.messages_sent, r.bytes_sent, r.messages_received)
        assert row["mpi_time_s"] == pytest.approx(r.mpi_time_s) and row["sequence_messages"] == r.sequence_messages
    acc, expected = js["accounting"], account_profile(profile)
    assert acc["mpi_time_s"] == pytest.approx(expected.mpi_time_s)
    assert [(k["name"], k["calls"]) for k in acc["kinds"]] == [(k.name, k.calls) for k in expected.kinds]
    assert [k["time_s"] for k in acc["kinds"]] == pytest.approx([k.time_s for k in expected.kinds])
    for split, row in zip(expected.ranks, acc["ranks"]):  # as advise --profile --json gives it
        assert row["by_kind"] == pytest.approx(dict(split.by_kind))
        assert row["point_to_point_s"] == pytest.approx(split.point_to_point_s)
    # several runs of one program: every figure per run with its median and range
    two = tmp_path / "b.jsonl"
    other = replace(  # the same program run again, later and 1.5x slower
        profile, info=replace(profile.info, start_time="2026-12-07T03:00:00Z"),
        ranks=tuple(replace(r, mpi_time_s=1.5 * r.mpi_time_s, wall_s=1.5 * r.wall_s)
                    for r in profile.ranks))
    two.write_text(profile_text(other))
    merged = json.loads(msgperf("profile", "--show", "--json", one, two).stdout)
    runs = merge_runs([profile, other], [str(one), str(two)])
    assert [r["label"] for r in merged["runs"]] == [str(one), str(two)]
    assert merged["mpi_time_s"]["median"] == pytest.approx(runs.mpi_time_s.median)
    assert merged["mpi_time_s"]["values"] == pytest.approx(list(runs.mpi_time_s.values))
    refused = msgperf("profile", "--json", "--", "true")
    assert refused.returncode == 2 and "--json goes with --show" in refused.stderr


def test_show_refuses_other_programs_and_running_options_in_one_line(msgperf, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(profile_text(sample_profile(3, version=3)))
    b.write_text(profile_text(sample_profile(3, nranks=3, version=3)))
    other = msgperf("profile", "--show", a, b)
    assert other.returncode == 1 and other.stderr.count("\n") == 1
    assert f"cannot merge {b} with {a}: 3 ranks against 2" in other.stderr
    assert msgperf("profile", "--show").returncode == 2
    assert "--mpicc, -o and --no-store are for running" in msgperf("profile", "--show", "-o", "x", a).stderr
    late = msgperf("profile", "--show", a, "--db", "x.db")
    assert late.returncode == 2 and "--db after the profiles: options come first" in late.stderr
    missing = msgperf("profile", "--show", tmp_path / "nope.jsonl")
    assert missing.returncode == 1 and "no profile file or profile id" in missing.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text(profile_text(replace(sample_profile(0), ranks=())))
    for args in ((empty,), (a, empty)):  # alone, or among runs to merge
        nothing = msgperf("profile", "--show", *args)
        assert nothing.returncode == 1 and nothing.stderr.count("\n") == 1, nothing.stderr
        assert f"{empty}: no rank left a record" in nothing.stderr and "nothing to show" in nothing.stderr


def test_show_of_a_partial_run_says_so(msgperf, tmp_path):
    whole = sample_profile(3, version=3)
    partial = replace(whole, ranks=whole.ranks[:1], info=replace(
        whole.info, complete=False, start_time="2026-11-23T11:00:00Z"))
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(profile_text(whole))
    b.write_text(profile_text(partial))
    shown = msgperf("profile", "--show", a, b)
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert f"note: {b} is a partial run (no record from rank(s) 1)" in text and " partial " in text
