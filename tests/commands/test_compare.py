"""msgperf compare: the table, --json, and --fail-above's three outcomes (exit 0: no slowdown
above the threshold shown, 3: a slowdown shown, 4: cannot tell, with a one-line reason)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from msgperf.store.db import open_store
from tests.factories import launches_run, pingpong_run, write_run

DATA = Path(__file__).resolve().parents[1] / "data" / "peer-outputs"


def test_fail_above_exits_3_on_a_real_slowdown_and_0_below_the_threshold(msgperf, tmp_path):
    a = write_run(pingpong_run(seed=1, launches=3), tmp_path / "a.jsonl")
    b = write_run(pingpong_run(seed=2, launches=3, scale=1.3), tmp_path / "b.jsonl")
    done = msgperf("compare", a, b, "--fail-above", "10")
    assert done.returncode == 3, done.stderr
    assert "FAIL" in done.stderr and "slower" in done.stdout
    done = msgperf("compare", a, b, "--fail-above", "50")
    assert done.returncode == 0, done.stderr
    assert "OK" in done.stderr


def test_same_configuration_passes_the_gate(msgperf, tmp_path):
    a = write_run(pingpong_run(seed=1, launches=3), tmp_path / "a.jsonl")
    b = write_run(pingpong_run(seed=3, launches=3), tmp_path / "b.jsonl")
    done = msgperf("compare", a, b, "--fail-above", "5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK" in done.stderr and "3+3 launches" in done.stdout


def test_one_launch_each_without_history_cannot_tell(msgperf, tmp_path):
    """Two single launches 8 % apart: the old sample-level test called this a slowdown with
    p ~ 1e-100; nothing measured how much a re-run moves, so the gate cannot tell."""
    a = write_run(launches_run(seed=1, launches=1, launch_sd=0.0, noise=0.01, n=3000),
                  tmp_path / "a.jsonl")
    b = write_run(launches_run(seed=2, launches=1, launch_sd=0.0, noise=0.01, n=3000, scale=1.08),
                  tmp_path / "b.jsonl")
    done = msgperf("compare", a, b, "--fail-above", "5")
    assert done.returncode == 4, done.stdout + done.stderr
    reason = done.stderr.strip().splitlines()
    assert len(reason) == 1 and reason[0].startswith("CANNOT TELL") and "run-to-run" in reason[0]
    assert "--repeat 3" in done.stdout


def test_stored_history_of_the_configuration_is_the_noise_floor(msgperf, tmp_path):
    db = tmp_path / "history.db"
    with open_store(db) as store:
        for i in range(8):
            store.add_run(launches_run(seed=100 + i, launches=1, launch_sd=0.02, n=80))
    a = write_run(launches_run(seed=1, launches=1, launch_sd=0.02, n=80), tmp_path / "a.jsonl")
    same = write_run(launches_run(seed=2, launches=1, launch_sd=0.02, n=80), tmp_path / "s.jsonl")
    slow = write_run(launches_run(seed=3, launches=1, launch_sd=0.02, n=80, scale=1.4),
                     tmp_path / "b.jsonl")
    done = msgperf("compare", a, same, "--fail-above", "15", "--db", db)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "8 runs" in done.stdout
    done = msgperf("compare", a, slow, "--fail-above", "15", "--db", db)
    assert done.returncode == 3, done.stdout + done.stderr
    done = msgperf("compare", a, same, "--fail-above", "15", "--db", db, "--no-history")
    assert done.returncode == 4, done.stdout + done.stderr


def test_imported_summaries_are_compared_by_value_and_never_pass(msgperf, tmp_path):
    a = tmp_path / "a.txt"
    shutil.copy(DATA / "osu_latency.txt", a)
    done = msgperf("import", "--from", "osu", a)
    assert done.returncode == 0, done.stderr
    done = msgperf("compare", "1", "1", "--fail-above", "10")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "1 value" in done.stderr and "untested" in done.stdout


@pytest.mark.parametrize("value", ["nan", "-1", "inf", "1e9"])
def test_bad_thresholds_are_one_line_errors(msgperf, tmp_path, value):
    a = write_run(pingpong_run(seed=1), tmp_path / "a.jsonl")
    done = msgperf("compare", a, a, "--fail-above", value)
    assert done.returncode == 1 and "--fail-above" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_json_and_several_runs(msgperf, tmp_path):
    a = write_run(pingpong_run(seed=1, launches=3), tmp_path / "a.jsonl")
    b = write_run(pingpong_run(seed=2, launches=3, scale=1.3), tmp_path / "b.jsonl")
    c = write_run(pingpong_run(seed=3, launches=3), tmp_path / "c.jsonl")
    done = msgperf("compare", a, b, c, "--json", "--fail-above", "5")
    assert done.returncode == 3, done.stderr
    data = json.loads(done.stdout)
    assert len(data) == 2
    assert all(s["verdict"] == "slower" and s["gate"] == "fail" for s in data[0]["sizes"])
    assert data[0]["worst_significant_slowdown"] > 0.2
    assert not any(s["verdict"] in ("slower", "faster") for s in data[1]["sizes"])
    assert data[1]["gate"]["outcome"] == "pass"
    assert all(s["covers"] and s["launches_a"] == 3 for s in data[1]["sizes"])


def test_needs_two_runs(msgperf, tmp_path):
    a = write_run(pingpong_run(seed=1), tmp_path / "a.jsonl")
    done = msgperf("compare", a)
    assert done.returncode == 1 and "two runs" in done.stderr


def test_compare_says_how_the_machines_differ(msgperf, tmp_path):
    from tests.factories import host_facts, with_machine

    cell = "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE"
    a = write_run(with_machine(pingpong_run(seed=1, launches=2), [host_facts()], {cell: 16384}), tmp_path / "a.jsonl")
    b = write_run(with_machine(pingpong_run(seed=2, launches=2),
                               [host_facts(cpu_model="AMD EPYC 7763 64-Core Processor", governor="powersave")],
                               {cell: 65536}), tmp_path / "b.jsonl")
    done = msgperf("compare", a, b, "--no-history")
    assert done.returncode == 0, done.stderr
    assert ("Machines differ: CPU Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz vs AMD EPYC 7763 64-Core Processor; "
            f"frequency governor performance vs powersave; MPI_T {cell} 16384 vs 65536") in " ".join(done.stdout.split())
    machines = json.loads(msgperf("compare", a, b, "--no-history", "--json").stdout)[0]["machines"]
    assert machines["differ"] and [d["fact"] for d in machines["differences"]] == ["CPU", "frequency governor", cell]
    same = msgperf("compare", a, a, "--no-history").stdout
    assert "Machines: the same recorded facts" in same and "Machines differ" not in same
    old = write_run(pingpong_run(seed=3, launches=2), tmp_path / "old.jsonl")  # before msgperf recorded them
    assert "Machines: not recorded in B" in msgperf("compare", a, old, "--no-history").stdout


def test_cannot_tell_says_how_many_launches_would_tell(msgperf, tmp_path):
    """Three launches a side, 5 % apart: a 5 % threshold cannot be told; the reason names the
    launches per side that would tell, the same count in the text, on stderr and in --json."""
    a = write_run(launches_run(seed=1, launches=3, launch_sd=0.05), tmp_path / "a.jsonl")
    b = write_run(launches_run(seed=2, launches=3, launch_sd=0.05), tmp_path / "b.jsonl")
    done = msgperf("compare", a, b, "--fail-above", "5")
    assert done.returncode == 4, done.stdout + done.stderr
    reason = done.stderr.strip().splitlines()
    assert len(reason) == 1
    found = re.search(r"about (\d+) launches per side would resolve a 5 % slowdown: "
                      r"msgperf run --repeat (\d+)$", reason[0])
    assert found and found.group(1) == found.group(2) and int(found.group(1)) > 3
    assert found.group(0) in " ".join(done.stdout.split())
    data = json.loads(msgperf("compare", a, b, "--fail-above", "5", "--json").stdout)[0]
    n = int(found.group(1))
    assert data["gate"]["launches_needed"]["launches_per_side"] == n
    per_size = [s["gate_launches_needed"]["launches_per_side"] for s in data["sizes"]
                if s["gate"] == "cannot tell"]
    assert per_size and max(per_size) == n


def test_one_launch_each_cannot_tell_how_many_launches(msgperf, tmp_path):
    a = write_run(launches_run(seed=1, launches=1, launch_sd=0.0, noise=0.01, n=3000),
                  tmp_path / "a.jsonl")
    b = write_run(launches_run(seed=2, launches=1, launch_sd=0.0, noise=0.01, n=3000, scale=1.08),
                  tmp_path / "b.jsonl")
    done = msgperf("compare", a, b, "--min-effect", "10")
    assert done.returncode == 0, done.stderr
    assert "cannot tell how many: one launch per side measures no spread" in " ".join(done.stdout.split())
    data = json.loads(msgperf("compare", a, b, "--json").stdout)[0]
    assert all(s["launches_needed"]["launches_per_side"] is None for s in data["sizes"]
               if s["verdict"] == "cannot tell")
