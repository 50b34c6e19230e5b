"""msgperf advise --profile P [--model RUN] end to end: text and --json show the values the
analysis computes, the default model is the newest stored ping-pong run of the profile's hosts
and MPI, and bad input gets one line. The slow test runs the real programs (tests/apps)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from msgperf.analysis.advice.profile_advice import advise_profile
from msgperf.analysis.advice.profile_faults import MAX_PREEMPTED
from msgperf.analysis.result import analyze
from msgperf.records.profile_format import profile_text
from msgperf.store.db import open_store
from tests.commands.test_profile import apps, halo_runs  # noqa: F401 (fixtures: three real profiles of halo)
from tests.factories import pingpong_run, rich_run, sample_profile, write_run
from tests.factories import replace


@pytest.fixture
def files(tmp_path):
    run = write_run(rich_run(), tmp_path / "model.jsonl")
    prof = tmp_path / "app.jsonl"
    prof.write_text(profile_text(sample_profile(3)))
    return run, prof


def test_text_and_json_show_the_analysis_values(msgperf, files):
    run, prof = files
    expected = advise_profile(sample_profile(3), analyze(rich_run()))
    result = msgperf("advise", "--profile", prof, "--model", run, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["predicted"]["value_s"] == pytest.approx(expected.predicted.value_s, rel=1e-12)
    assert out["measured_s"] == 0.25 and out["basis"]["run"] == str(run)
    assert out["predicted_speedup_of_combining"] == pytest.approx(expected.predicted_speedup, rel=1e-12)
    assert [c["sequences"] for c in out["combine"]] == [5, 5]
    assert out["combine"][0]["net_saving_s"] == pytest.approx(expected.combine[0].net_saving_s, rel=1e-12)
    assert out["basis"]["eager_limit_bytes"] == 16384 and out["actions"][0]["kind"] == "combine"
    text = msgperf("advise", "--profile", prof, "--model", run)
    assert text.returncode == 0, text.stderr
    for words in ("Communication time (slowest rank)", "What to change, in order of payoff",
                  "1. combine the back-to-back sends", f"piecewise model of pingpong in {run}",
                  f"from the profile {prof}", "eager limit 16384 B (eager-probe of", "Buffering (Saphir 1994)"):
        assert words in " ".join(text.stdout.split()), words


def test_the_default_model_is_the_newest_pingpong_run_of_the_same_hosts_and_mpi(msgperf, tmp_path):
    db = tmp_path / "m.db"
    with open_store(db) as store:
        older, _ = store.add_run(replace(pingpong_run(1, host="node0"), path="a"))
        other, _ = store.add_run(replace(pingpong_run(2, host="elsewhere"), path="b"))
        newest = pingpong_run(3, host="node0")
        newest = replace(newest, info=replace(newest.info, start_time="2026-06-01T00:00:00Z"))
        newer, _ = store.add_run(newest)
        profile_id, _ = store.add_profile(sample_profile(0))
        lonely = sample_profile(1)
        lonely = replace(lonely, info=replace(lonely.info, hosts=("nowhere", "nowhere")))
        lonely_id, _ = store.add_profile(lonely)
    result = msgperf("advise", "--profile", profile_id, "--db", db, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["basis"]["run"] == f"run {newer}" and newer not in (older, other)
    assert json.loads(result.stdout)["profile"] == f"profile {profile_id}"
    report = msgperf("report", "--profile", profile_id, "--db", db, "-o", tmp_path / "r.html")
    assert report.returncode == 0, report.stderr
    html = (tmp_path / "r.html").read_text()
    assert f"piecewise model of pingpong in run {newer} (" in html and "<h2>Profile: halo · profile " in html
    result = msgperf("advise", "--profile", lonely_id, "--db", db)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert ("error: no stored ping-pong run matches the program (MPICH 5.0.2, intra-node, at most 2 ranks, on "
            "nowhere) to predict from; measure one on a quiet machine (msgperf run) or pass --model RUN") in result.stderr


def _on_node0(run, start, nranks=2, other_cores=0.0, usable=4, facts=()):
    """``run`` (a 2-rank ping-pong on node0) started at ``start``, with what the launching node recorded."""
    from msgperf.records.format import HostLoad, LaunchHost
    host = LaunchHost(host="node0", usable_cores=usable, online_cores=usable, progress={},
                      before=HostLoad(0.1, 0.1, 0.1), after=HostLoad(0.2, 0.1, 0.1), interval_s=2.0,
                      steal_fraction=0.0, other_cores=other_cores)
    launches = []
    for l in run.launches:
        ranks = l.ranks + tuple(replace(l.ranks[-1], rank=r, cpu=r) for r in range(len(l.ranks), nranks))
        launches.append(replace(l, host=host, nranks=nranks, ranks=ranks, host_facts=tuple(facts)))
    return replace(run, launches=tuple(launches), info=replace(run.info, start_time=start))


def test_the_default_model_matches_the_programs_conditions_and_says_why(msgperf, tmp_path):
    """Newest first, a ping-pong run that was oversubscribed, busy, or had more ranks than the program
    is set aside; the quiet one models the program, and the advice says which and why."""
    from tests.factories import host_facts
    db = tmp_path / "m.db"
    with open_store(db) as store:
        quiet, _ = store.add_run(_on_node0(pingpong_run(1, host="node0"), "2026-06-01T00:00:00Z"))
        three, _ = store.add_run(_on_node0(pingpong_run(2, host="node0"), "2026-06-02T00:00:00Z", nranks=3))
        crowded, _ = store.add_run(_on_node0(pingpong_run(3, host="node0"), "2026-06-03T00:00:00Z", usable=1,
                                             facts=[host_facts("node0", ranks=2, usable_cpus=1)]))
        busy, _ = store.add_run(_on_node0(pingpong_run(4, host="node0"), "2026-06-04T00:00:00Z",
                                          other_cores=1.5, usable=2))
        profile_id, _ = store.add_profile(sample_profile(0))
    result = msgperf("advise", "--profile", profile_id, "--db", db, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["basis"]["run"] == f"run {quiet}"
    why = out["model_choice"]
    assert why.startswith(f"model: run {quiet}, the newest stored ping-pong run that matches the program "
                          "(MPICH 5.0.2, intra-node, at most 2 ranks, on node0; 2 ranks, intra-node pair; "
                          "not oversubscribed, not busy)")
    assert (f"set aside: run {busy} (launch 0 ran on a busy machine), run {crowded} (launch 0 oversubscribed "
            f"(2 ranks on 1 usable cores)), run {three} (3 ranks, more than the program's 2)") in why
    text = msgperf("advise", "--profile", profile_id, "--db", db)
    assert text.returncode == 0 and " ".join(text.stdout.split()).startswith(f"halo · profile {profile_id} · 2 rank(s) {why}")

    # without the quiet run nothing fits: one line, what was set aside, how to get a run that fits
    with open_store(db) as store:
        store.delete_run(quiet)
    result = msgperf("advise", "--profile", profile_id, "--db", db)
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: no stored ping-pong run matches the program (MPICH 5.0.2, intra-node")
    assert f"run {crowded} (launch 0 oversubscribed" in result.stderr
    assert result.stderr.rstrip().endswith("measure one on a quiet machine (msgperf run) or pass --model RUN")

    # a model given by hand is used, and its conditions are said
    result = msgperf("advise", "--profile", profile_id, "--db", db, "--model", str(crowded), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["model_choice"] == (
        f"model: {crowded}, as given; but launch 0 oversubscribed (2 ranks on 1 usable cores): its times may not "
        "be this machine's")


def test_bad_input_gets_one_line(msgperf, files, tmp_path):
    run, prof = files
    empty = tmp_path / "empty.jsonl"
    empty.write_text(profile_text(replace(sample_profile(0), ranks=())))
    cases = [
        (("--profile", empty, "--model", run), "no rank left a record (not an MPI program"),
        (("--profile", tmp_path / "nope.jsonl", "--model", run), "no profile file or profile id"),
        (("--profile", prof, "--model", run, "-k", "4"), "drop --messages and --bytes"),
        (("--profile", prof, "--model", tmp_path / "nope"), "no run file or run id"),
        ((run, "--profile", prof, "--model", prof), "two models given"),
        (("--profile", run, "--model", run), str(run)),  # a run file is not a profile
    ]
    for args, words in cases:
        result = msgperf("advise", *args)
        assert result.returncode == 1 and result.stderr.count("\n") == 1, (args, result.stderr)
        assert result.stderr.startswith("error: ") and words in result.stderr, (args, result.stderr)
    result = msgperf("advise", run)
    assert result.returncode == 2 and "give RUN --messages K --bytes S, or --profile P" in result.stderr


# ---- the real programs ------------------------------------------------------------------------------

APPS = Path(__file__).resolve().parents[1] / "apps"
HALO = ["--steps", "2000", "--messages", "16", "--bytes", "8,64,256", "--compute-us", "20"]


def realtime() -> list[str]:
    """chrt -f 10 when this process may use SCHED_FIFO (root), else skip: on a shared machine the
    other jobs deschedule the ranks, and the time inside MPI becomes waiting for them
    (bench/RESULTS.md §10b, where it was 15-600 times the prediction without it)."""
    import shutil

    chrt = shutil.which("chrt")
    if chrt is None or subprocess.run([chrt, "-f", "10", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs real-time priority (chrt -f 10, root) to measure a program on a shared machine")
    return [chrt, "-f", "10"]


@pytest.mark.mpi
@pytest.mark.slow
def test_advice_on_halo_and_halo_combined_against_what_they_measured(msgperf, tmp_path):
    """The sign of the advice (halo: combine; the combined program predicted cheaper, and measured
    so), and measured / predicted time inside MPI within a factor 2 for the halo program (3 for the
    combined one, below), also for the model's transfers alone against the rank that waited least
    (bench/RESULTS.md §10c: medians 0.87-1.09 and 0.93-1.16 over 7 repetitions, single runs
    0.68-1.61). The MPI jobs run at SCHED_FIFO so that other jobs cannot turn them into waiting;
    each program runs three times, its median-ratio run is held to the factor and its fastest run to
    the sign."""
    from msgperf.launch.build import find_mpicc, find_mpiexec

    rt = realtime()
    mpicc = find_mpicc()
    mpiexec = str(find_mpiexec(mpicc) or Path(sys.executable).parent / "mpiexec")
    for name in ("halo", "halo_combined"):
        subprocess.run([str(mpicc), "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-o", str(tmp_path / name),
                        str(APPS / f"{name}.c")], check=True, capture_output=True)
    model = tmp_path / "model.jsonl"
    done = subprocess.run([*rt, sys.executable, "-m", "msgperf", "run", "--sizes", "0:64K", "--time-budget", "200ms",
                           "-o", str(model), "--no-store", "--no-report", "-q", "--pattern", "pingpong",
                           "--pattern", "memcpy"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    advice, fastest = {}, {}
    for name in ("halo", "halo_combined"):
        runs = []
        for i in range(3):
            out = tmp_path / f"{name}-{i}.jsonl"
            done = msgperf("profile", "-o", out, "--no-store", "--", *rt, mpiexec, "-n", "2", tmp_path / name, *HALO,
                           cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            runs.append(json.loads(msgperf("advise", "--profile", out, "--model", model, "--json").stdout))
        # The ratio is judged on the run with the median ratio: the fastest run's is biased low (CI saw 0.49
        # with the best of three), the slowest's high. The sign of the advice is judged on the fastest runs.
        advice[name] = sorted(runs, key=lambda a: a["ratio_measured_to_predicted"])[1]
        fastest[name] = min(runs, key=lambda a: a["measured_s"])
    halo, combined = advice["halo"], advice["halo_combined"]
    assert halo["actions"][0]["kind"] == "combine" and halo["predicted_speedup_of_combining"] > 2
    assert halo["combine"][0]["length"] >= 16 and halo["combine_saving_s"] > 0
    assert combined["predicted"]["value_s"] < halo["predicted"]["value_s"] / 2  # the combined program: cheaper
    assert 0.5 < halo["ratio_measured_to_predicted"] < 2, halo["ratio_measured_to_predicted"]
    # The combined program spends ~3 ms inside MPI in all (one ~5 KB exchange per step, 1.5-2.5 us each),
    # where a shift of the model's one-way time at that size by 1 us moves the ratio by half: here
    # 0.77-1.48 (4 runs today), on CI's machine after stop 32 0.42 at the median of three (a systematic
    # difference of that machine, not noise), so it is held to a factor 3, the halo program to 2.
    assert 1 / 3 < combined["ratio_measured_to_predicted"] < 3, combined["ratio_measured_to_predicted"]
    for a, factor in ((halo, 2), (combined, 3)):  # the model alone: transfers against the rank that waited least
        least = min(a["ranks"], key=lambda r: r["waiting_added_s"])  # waiting_s is null out of lockstep
        assert 1 / factor < least["measured_s"] / least["transfers"]["value_s"] < factor, least
    # the sign of the advice against the measurement: combining made the time inside MPI shorter
    fast_halo, fast_combined = fastest["halo"], fastest["halo_combined"]
    assert fast_combined["measured_s"] < fast_halo["measured_s"], (fast_combined["measured_s"], fast_halo["measured_s"])


def test_the_whole_programs_mpi_time_is_split_by_kind_after_the_advice(msgperf, tmp_path):
    run = write_run(rich_run(), tmp_path / "model.jsonl")
    prof = tmp_path / "app3.jsonl"
    prof.write_text(profile_text(sample_profile(3, version=3)))
    result = msgperf("advise", "--profile", prof, "--model", run)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    whole = " ".join(out[out.index("Whole program: rank"):].split())
    # the factory's rank: 0.0625 s Isend + 0.125 s Waitall, 0.03125 s Allreduce, 0.1 µs Comm_rank of 0.25 s
    assert "in shares that add up to it" in whole
    assert "point-to-point calls, waits and tests 188 ms (75.0 %): predicted 22.6 µs by the point-to-point model" in whole
    # 5 allreduces of 8 B at P = 2 (no sendrecv, no reduce-local in the run): one exchange to a reduce and a bcast,
    # T(8) = 1.05 µs each
    assert "collectives with a model 31.2 ms (12.5 %): predicted 5.25 µs – 10.2 µs by the collective models" in whole
    assert "communicator/datatype 100 ns (0.0 %): measured, not predicted" in whole
    assert "in no call 31.2 ms (12.5 %)" in whole  # the factory's 0.25 s exceeds its calls' 0.21875 s: said, not lost
    assert "MPI_Allreduce P=2 8 B ×5: measured 31.2 ms; predicted 5.25 µs – 10.2 µs (rec. doubling – reduce+bcast" in whole
    assert "waiting for a slower rank: 0 ns (0.0 %), measured: rank 0 spends the longest outside MPI" in whole
    assert "measured   188 ms inside point-to-point calls" in out  # the model is held against that part alone


def collective_heavy_profile():
    """sample_profile(3, nranks=3, version=3) whose ranks' calls add up to their time inside MPI, all 2 s
    from MPI_Init to MPI_Finalize; rank 0 spends 0.5 s in MPI_Allreduce (the others 31.25 ms), so it
    waits 468.75 ms inside MPI for rank 1: more than its 187.5 ms of point-to-point calls and waits."""
    profile = sample_profile(3, nranks=3, version=3)
    ranks = []
    for r in profile.ranks:
        calls = tuple(replace(c, time_s=0.5) if r.rank == 0 and c.kind == "collective" else c
                      for c in r.calls)
        ranks.append(replace(r, calls=calls, mpi_time_s=sum(c.time_s for c in calls), wall_s=2.0))
    return replace(profile, ranks=tuple(ranks))


def test_the_per_rank_advice_and_the_whole_program_show_one_waiting_for_a_slower_rank(msgperf, tmp_path):
    run = write_run(rich_run(), tmp_path / "model.jsonl")
    prof = tmp_path / "heavy.jsonl"
    prof.write_text(profile_text(collective_heavy_profile()))
    text = msgperf("advise", "--profile", prof, "--model", run)
    assert text.returncode == 0, text.stderr
    out = " ".join(text.stdout.split())
    per_rank = re.search(r"rank 0: predicted .*?waiting for a slower rank ([\d.]+ [mµn]?s), measured, of which "
                         r"([\d.]+ [mµn]?s) within its point-to-point calls", out)
    whole = re.search(r"waiting for rank 1, the slowest outside MPI \(load imbalance\): ([\d.]+ [mµn]?s)", out)
    assert per_rank and whole, out
    assert per_rank.group(1) == whole.group(1) == "469 ms" and per_rank.group(2) == "188 ms"
    js = json.loads(msgperf("advise", "--profile", prof, "--model", run, "--json").stdout)
    assert js["ranks"][0]["waiting_s"] == js["accounting"]["ranks"][0]["waiting_s"] == pytest.approx(0.46875)
    assert js["ranks"][0]["waiting_added_s"] == pytest.approx(0.1875)


def test_json_holds_the_whole_programs_accounting_and_the_profile_is_read_once(msgperf, tmp_path, monkeypatch,
                                                                                capsys):
    run = write_run(rich_run(), tmp_path / "model.jsonl")
    prof = tmp_path / "heavy.jsonl"
    prof.write_text(profile_text(collective_heavy_profile()))
    result = msgperf("advise", "--profile", prof, "--model", run, "--json")
    assert result.returncode == 0, result.stderr
    acc = json.loads(result.stdout)["accounting"]
    mpi = 0.6875001 + 2 * 0.2187501
    assert acc["mpi_time_s"] == pytest.approx(mpi)
    assert sum(k["time_s"] for k in acc["kinds"]) == pytest.approx(acc["mpi_time_s"])
    assert sum(k["share"] for k in acc["kinds"]) == pytest.approx(1.0)
    assert {k["name"] for k in acc["kinds"]} == {"point-to-point", "wait/test", "collective", "communicator/datatype"}
    for row in acc["ranks"]:
        assert sum(row["by_kind"].values()) == pytest.approx(row["mpi_time_s"])
        assert row["point_to_point_s"] == pytest.approx(row["by_kind"]["point-to-point"] + row["by_kind"]["wait/test"])
    assert acc["ranks"][0]["by_kind"]["collective"] == 0.5 and acc["ranks"][0]["waits_for"] == 1
    assert acc["waiting_s"] == pytest.approx(0.46875)
    # text and JSON from one reading of the profile
    import msgperf.loader as loader
    from msgperf.commands.advise_profile import advise_on_profile
    reads = []
    real = loader.load_profile
    monkeypatch.setattr(loader, "load_profile", lambda *a, **k: reads.append(a) or real(*a, **k))
    monkeypatch.setenv("MSGPERF_HOME", str(tmp_path / "home"))
    advise_on_profile(str(prof), str(run), None, None, None, None, None, as_json=False)
    assert len(reads) == 1 and "Whole program: rank 0" in capsys.readouterr().out


@pytest.mark.mpi
def test_every_kinds_collectives_predicted_from_a_real_model_run_with_sendrecv(msgperf, tmp_path):
    """tests/apps/every_kind at 2 ranks against a real model run (pingpong, sendrecv, memcpy, reduce-local and
    allreduce): every predicted figure is the analysis' of the same files, each collective is predicted or
    says why not, and the whole program's shares add up to each rank's time inside MPI. Times on a shared
    machine are what they are: only the accounting and the wiring are held to values here."""
    from msgperf.analysis.collectives import PointToPoint, algorithms_of, predict
    from msgperf.launch.build import find_mpicc
    from msgperf.loader import load_analyzed
    from msgperf.records.profile_read import read_profile

    mpicc = find_mpicc()
    app = tmp_path / "every_kind"
    subprocess.run([str(mpicc), "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-o", str(app),
                    str(APPS / "every_kind.c")], check=True, capture_output=True)
    model = tmp_path / "model.jsonl"
    done = msgperf("run", "--sizes", "0:32K", "--time-budget", "100ms", "-o", model, "--no-store", "--no-report", "-q",
                   "--pattern", "pingpong", "--pattern", "sendrecv", "--pattern", "memcpy", "--pattern", "reduce-local",
                   "--pattern", "allreduce", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    prof = tmp_path / "p.jsonl"
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    done = msgperf("profile", "-o", prof, "--no-store", "--", mpiexec, "-n", "2", app, "--steps", "6", "--sleep-ms", "5",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(msgperf("advise", "--profile", prof, "--model", model, "--json").stdout)
    _, result = load_analyzed(str(model), None)
    profile = read_profile(prof).profile
    expected = advise_profile(profile, result)
    for whole, rank in zip(out["whole"], profile.ranks):
        assert sum(s["measured_s"] for s in whole["shares"]) == pytest.approx(rank.mpi_time_s, rel=1e-6)
        split = next(r for r in out["accounting"]["ranks"] if r["rank"] == rank.rank)
        assert whole["waiting_s"] == split["waiting_s"]
    rows = {(c["call"], c["comm_size"], c["bytes"]): c for c in out["collectives"]["ranks"][0]["rows"]}
    assert "a step that sends and receives at once from sendrecv" in out["collectives"]["model_words"]
    assert "γ from reduce-local" in out["collectives"]["model_words"]
    # the bcast it did not measure: the range over bcast's algorithms on the run's own models
    p2p = PointToPoint("pingpong", result.find().model.sweep.piecewise, *(
        next(s.model.sweep.piecewise for s in result.series if s.key.pattern == p and s.key.variant == v)
        for p, v in (("memcpy", ""), ("reduce-local", ""), ("sendrecv", ""), ("reduce-local", "double"))))
    # the model run measured allreduce at 32 KiB, 2 ranks, but of bytes: every_kind's allreduce sums doubles,
    # so its prediction is the algorithms' with γ of doubles (reduce-local [double])
    allreduce = rows[("MPI_Allreduce", 2, 32768)]
    doubles = [6 * predict(p2p.for_datatype("MPI_DOUBLE"), a, 2, 32768) for a in algorithms_of("allreduce")]
    assert (allreduce["source"], allreduce["datatype"], allreduce["gamma_type"]) == ("algorithms", "MPI_DOUBLE",
                                                                                    "MPI_DOUBLE")
    assert allreduce["low_s"] == pytest.approx(min(doubles), rel=1e-9)
    times = [6 * predict(p2p, a, 2, 32768) for a in algorithms_of("bcast")]
    bcast = rows[("MPI_Bcast", 2, 32768)]
    assert (bcast["source"], bcast["low_s"], bcast["high_s"]) == ("algorithms", pytest.approx(min(times), rel=1e-9),
                                                                  pytest.approx(max(times), rel=1e-9))
    assert rows[("MPI_Alltoall", 2, 256)]["model_bytes"] == 128  # 128 B to each of the 2 ranks
    assert "non-blocking" in rows[("MPI_Iallreduce", 2, 64)]["why_not"]
    assert out["collectives"]["ranks"][0]["low_s"] == pytest.approx(expected.collectives.ranks[0].low_s, rel=1e-9)
    text = " ".join(msgperf("advise", "--profile", prof, "--model", model).stdout.split())
    assert "in shares that add up to it" in text and "MPI_Bcast P=2 32 KiB ×6: measured" in text
    assert "MPI_Iallreduce P=2 64 B ×6: measured" in text and "not predicted: non-blocking" in text


# ---- several runs of one program: advise --profile A --profile B ... ---------------------------------

def scaled_run(factor: float, minute: int):
    """sample_profile(3, version=3) with every time × ``factor``, started ``minute`` minutes later."""
    base = sample_profile(3, version=3)
    ranks = tuple(replace(r, wall_s=r.wall_s * factor, mpi_time_s=r.mpi_time_s * factor,
                                      calls=tuple(replace(c, time_s=c.time_s * factor) for c in r.calls))
                  for r in base.ranks)
    info = replace(base.info, start_time=f"2026-11-23T10:{minute:02d}:00Z")
    return replace(base, ranks=ranks, info=info)


def scaled_profiles(tmp_path, factors) -> list:
    """``advise``'s ``--profile F`` arguments of one file per factor (``scaled_run``)."""
    files = []
    for i, factor in enumerate(factors):
        files.append(tmp_path / f"r{i}.jsonl")
        files[-1].write_text(profile_text(scaled_run(factor, i)))
    return [a for f in files for a in ("--profile", f)]


def test_several_runs_far_above_the_model_say_the_whole_program_cannot_be_told(msgperf, tmp_path):
    """Runs whose time inside MPI is thousands of times the model's transfers (the sample's 0.25 s per
    rank): no run's whole-program speedup can be told, and the several runs' advice says so with the
    reason, where it left the line out."""
    run = write_run(rich_run(), tmp_path / "model.jsonl")
    args = scaled_profiles(tmp_path, (1.0, 1.2, 0.9))
    out = json.loads(msgperf("advise", *args, "--model", run, "--json").stdout)
    assert out["program_speedup_of_combining"]["n"] == 0 and out["resolution"] is None
    text = msgperf("advise", *args, "--model", run)
    assert text.returncode == 0, text.stderr
    words = " ".join(text.stdout.split())
    assert ("the whole program (MPI_Init to MPI_Finalize): cannot tell in any run (the run of median measured time: "
            "the time inside MPI is 8.31e+03× the model's transfers") in words, words


def test_several_runs_of_which_some_cannot_tell_say_how_many_were_told(msgperf, tmp_path):
    """Runs on either side of the model's reach (measured / predicted 0.83, 1.0 and 1.66: single runs of
    bench/RESULTS.md §10c crossed 1.5): the whole program's speedup is said as told in 2 of 3 runs,
    with the third's reason, and is not judged against the runs' spread (no resolution)."""
    run = write_run(rich_run(), tmp_path / "model.jsonl")
    args = scaled_profiles(tmp_path, (1e-4, 1.2e-4, 2e-4))
    out = json.loads(msgperf("advise", *args, "--model", run, "--json").stdout)
    assert out["program_speedup_of_combining"]["n"] == 2 and out["resolution"] is None
    text = msgperf("advise", *args, "--model", run)
    assert text.returncode == 0, text.stderr
    words = " ".join(text.stdout.split())
    assert "the whole program (MPI_Init to MPI_Finalize): told in 2 of 3 runs only" in words, words
    assert "the others cannot tell (first: the time inside MPI is 1.66× the model's transfers" in words, words
    assert "it would show" not in words


def test_several_profiles_give_the_median_and_range_of_each_runs_advice(msgperf, tmp_path):
    run = write_run(rich_run(), tmp_path / "model.jsonl")
    files = []
    # times 10^-4 of the sample's: its 0.25 s inside MPI per rank is 8,300× the model's transfers, whose whole
    # program's speedup cannot be told; at 10^-4 it is 0.83×
    for i, factor in enumerate((1e-4, 1.2e-4, 0.9e-4)):
        files.append(tmp_path / f"r{i}.jsonl")
        files[-1].write_text(profile_text(scaled_run(factor, i)))
    args = [a for f in files for a in ("--profile", f)]
    js = msgperf("advise", *args, "--model", run, "--json")
    assert js.returncode == 0, js.stderr
    out = json.loads(js.stdout)
    alone = [json.loads(msgperf("advise", "--profile", f, "--model", run, "--json").stdout) for f in files]
    measured = [a["measured_s"] for a in alone]
    assert out["measured_s"]["values"] == pytest.approx(measured) and out["measured_s"]["n"] == 3
    assert out["measured_s"]["median"] == pytest.approx(sorted(measured)[1])
    assert (out["measured_s"]["low"], out["measured_s"]["high"]) == pytest.approx((min(measured), max(measured)))
    ratios = [a["ratio_measured_to_predicted"] for a in alone]
    assert out["ratio_measured_to_predicted"]["median"] == pytest.approx(sorted(ratios)[1])
    assert [r["ratio_measured_to_predicted"] for r in out["runs"]] == pytest.approx(ratios)
    assert out["median_run"] == 0 and out["advice"]["profile"] == str(files[0])
    assert out["advice"]["measured_s"] == pytest.approx(alone[0]["measured_s"])
    assert out["summary"]["mpi_time_s"]["median"] == pytest.approx(0.5e-4)  # two ranks of 25 µs inside MPI
    text = msgperf("advise", *args, "--model", run)
    assert text.returncode == 0, text.stderr
    words = " ".join(text.stdout.split())
    ms = lambda s: f"{1e6 * s:.3g} µs"  # noqa: E731
    assert (f"measured {ms(sorted(measured)[1])} [{ms(min(measured))} – {ms(max(measured))}] over 3 runs inside "
            "point-to-point calls") in words, words
    assert "measured / predicted" in words and "(each run's own, median over 3 runs)" in words
    assert f"below: the advice of {files[0]}, the run of median measured time" in words
    assert "What to change, in order of payoff 1. combine the back-to-back sends" in words
    assert "3 runs merged" in words and "not a confidence interval" in words
    # the whole program with every sequence combined: each run's speedup, and whether 3 runs per side show it
    speedups = [a["whole_program_combining"]["speedup"] for a in alone]
    assert "halo" in [a["program"] for a in alone]  # the program's name is still there
    assert out["program_speedup_of_combining"]["median"] == pytest.approx(sorted(speedups)[1])
    walls = sorted(r["wall_s"] for r in out["runs"])
    sigma = max(1.4826 * sorted(abs(w - walls[1]) for w in walls)[1], (walls[2] - walls[0]) / 1.693)
    assert out["resolution"]["sigma_s"] == pytest.approx(sigma, rel=1e-3)
    assert out["resolution"]["shows"] == (out["program_saving_s"]["median"] > out["resolution"]["resolves_s"])
    assert "the whole program (MPI_Init to MPI_Finalize): predicted" in words
    assert "the medians of 3 runs before and 3 after detect" in words
    # the median run's time inside MPI in shares, as one profile's advice shows it
    assert f"below: the time inside MPI of {files[0]}, the run of median measured time" in words
    assert "in shares that add up to it" in words
    # one profile: the output of before, unchanged
    one = msgperf("advise", "--profile", files[0], "--model", run)
    assert "over the runs" not in one.stdout and "Communication time (slowest rank)" in one.stdout
    one_words = " ".join(one.stdout.split())
    assert f"the whole program (the slowest rank's MPI_Init to MPI_Finalize, " in one_words
    assert f"{alone[0]['whole_program_combining']['speedup']:.3g}× faster" in one_words


def test_several_profiles_of_different_programs_get_one_line(msgperf, tmp_path):
    run = write_run(rich_run(), tmp_path / "model.jsonl")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(profile_text(sample_profile(3, version=3)))
    b.write_text(profile_text(sample_profile(5, version=3)))
    result = msgperf("advise", "--profile", a, "--profile", b, "--model", run)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "other arguments ('halo --steps 7' against 'halo --steps 5')" in result.stderr
    # refused before any model is sought: no database needed
    result = msgperf("advise", "--profile", a, "--profile", b)
    assert "other arguments" in result.stderr


@pytest.mark.mpi
def test_several_real_runs_merge_in_advise(msgperf, tmp_path, halo_runs):
    files, ids, db = halo_runs
    run = write_run(rich_run(), tmp_path / "model.jsonl")
    out = json.loads(msgperf("advise", "--db", db, "--profile", ids[0], "--profile", files[1], "--profile", ids[2],
                             "--model", run, "--json").stdout)
    from msgperf.records.profile_read import read_profile
    from msgperf.analysis.advice import point_to_point_time
    slowest = [max(point_to_point_time(r) for r in read_profile(f).profile.ranks) for f in files]
    assert out["measured_s"]["values"] == pytest.approx(slowest)
    assert out["measured_s"]["median"] == pytest.approx(sorted(slowest)[1])
    assert [r["label"] for r in out["runs"]] == [f"profile {ids[0]}", str(files[1]), f"profile {ids[2]}"]
    assert all(r["complete"] for r in out["runs"]) and out["n"] == 3


@pytest.mark.mpi
def test_page_faults_of_the_mpis_temporary_buffers_are_counted_and_the_advised_setting_removes_them(msgperf, tmp_path):
    """tests/apps/big_reduce (a 512 KiB MPI_Reduce per step) with MPICH's generic binomial reduce, which
    allocates a temporary buffer per call: the non-root rank faults its 128 pages in at every call, the
    advice names glibc's setting that keeps them, and the same program with that setting faults none."""
    from msgperf.launch.build import find_mpicc
    from msgperf.records.profile_read import read_profile

    app = tmp_path / "big_reduce"
    subprocess.run([str(find_mpicc()), "-O2", "-std=c11", "-o", str(app), str(APPS / "big_reduce.c")], check=True,
                   capture_output=True)
    model = write_run(rich_run(), tmp_path / "model.jsonl")
    generic = {"MPIR_CVAR_DEVICE_COLLECTIVES": "none", "MPIR_CVAR_REDUCE_INTRA_ALGORITHM": "binomial"}
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    command = [mpiexec, "-n", "2", app, "--steps", "160"]

    def profiled(name, env):
        prof = tmp_path / name
        done = msgperf("profile", "-o", prof, "--no-store", "--", *command, env=env, cwd=tmp_path)
        assert done.returncode == 0 and "sum_ok=1" in done.stdout, done.stderr
        return prof, read_profile(prof).profile

    prof, profile = profiled("before.jsonl", generic)
    rows = {r.rank: next(c for c in r.collectives if c.call == "MPI_Reduce" and c.bytes == 524288)
            for r in profile.ranks}
    # one call in 8 counted, pseudo-randomly: 160 calls give ~20
    assert all(5 <= row.faults_n <= 60 for row in rows.values()), rows
    assert rows[1].faults_per_call >= 100  # 512 KiB = 128 pages of 4 KiB, faulted in again every call
    assert {row.datatype for row in rows.values()} == {"MPI_DOUBLE"}  # what γ is taken for
    assert rows[1].faults_every_call and rows[1].faulted_n == rows[1].faults_n
    # a page's cost is measured where a counted call faulted: rank 1 (the root may fault now and then, or not)
    assert 1e-8 < profile.ranks[1].page_fault_s < 1e-4
    out = json.loads(msgperf("advise", "--profile", prof, "--model", model, "--json").stdout)
    faults = out["page_faults"]
    assert faults["setting"] == "MALLOC_MMAP_THRESHOLD_=1048576 MALLOC_TRIM_THRESHOLD_=4194304"
    # on a busy machine (CI's may be) a rank descheduled inside its counted calls makes the rule say
    # "cannot tell"; which branch applies is read from the profile itself, so either way the rule is checked
    judged = {r["rank"] for r in faults["rows"]}  # the rows that fault call after call (rank 1's here)
    descheduled = [r for r, row in rows.items() if r in judged and row.preempted_n > MAX_PREEMPTED * row.faults_n]
    # likewise a page's cost measured while busy can put the estimate beyond the calls' own time
    overrun = [r for r in judged if sum(row["faulting_s"] for row in faults["rows"] if row["rank"] == r)
               > sum(row["measured_s"] for row in faults["rows"] if row["rank"] == r)]
    if descheduled:
        assert faults["saving_s"] is None and "descheduled" in faults["cannot_tell"], faults
    elif overrun:  # seen on a quiet machine too: 44 ms estimated against 59 ms measured is near
        assert faults["saving_s"] is None and "does not hold" in faults["cannot_tell"], faults
        # an estimate off by a factor (a unit, the page count) would land here every time: bound it
        assert all(row["faulting_s"] < 3 * row["measured_s"] for row in faults["rows"]), faults
    else:  # rank 1 faults call after call; the root, if it does too, faults its smaller buffer
        assert faults["saving_rank"] == 1 and faults["saving_s"] > 0, faults
        assert out["actions"][0]["kind"] == "page faults"
    setting = dict(kv.split("=") for kv in faults["setting"].split())
    _, kept = profiled("after.jsonl", {**generic, **setting})
    after = [c for r in kept.ranks for c in r.collectives if c.call == "MPI_Reduce" and c.bytes == 524288]
    assert all(c.faults_n >= 5 and c.faults_per_call < 2 for c in after), after
