"""The machine in show's Machine block and in the report (present/machine_text.py, report.py)."""

from __future__ import annotations

from msgperf.analysis.result import analyze
from msgperf.present.machine_text import host_lines
from msgperf.present.report import build_report
from tests.factories import host_facts, pingpong_run, with_machine, write_run

CVARS = {"MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": 8192, "MPIR_CVAR_BCAST_IPC_READ_MSG_SIZE_THRESHOLD": 256}


def test_show_prints_the_machine_block_with_detail_only(msgperf, tmp_path):
    run = with_machine(pingpong_run(), [host_facts(physical_cores=None)], CVARS)
    path = write_run(run, tmp_path / "r.jsonl")
    assert "Machine" not in msgperf("show", path).stdout  # the fine print: behind --detail
    out = " ".join(msgperf("show", path, "--detail").stdout.split())
    assert ("Machine node01: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz · ? cores, 80 logical CPUs, 80 usable, "
            "SMT on · 192 GiB · Rocky Linux 9.2, Linux 5.14.0-284 x86_64 · governor performance") in out
    assert ("MPI_T thresholds (MPIR_CVAR_…): CH4_SHM_POSIX_IQUEUE_CELL_SIZE=8192; "
            "1 other variables in the run file") in out


def test_an_old_run_file_still_shows_and_says_its_machine_was_not_recorded(msgperf, tmp_path):
    done = msgperf("show", write_run(pingpong_run(), tmp_path / "old.jsonl"), "--detail")
    assert done.returncode == 0, done.stderr
    assert "Machine: not recorded (the run file is from before msgperf recorded its machine)" in done.stdout
    assert "one-way" in done.stdout  # the tables as before


def test_the_report_has_a_machine_section_with_every_mpi_t_variable():
    run = with_machine(pingpong_run(), [host_facts()], CVARS)
    page = build_report([(analyze(run), run)])
    section = page[page.index("<h3>Machine</h3>"):page.index("<h3>", page.index("<h3>Machine</h3>") + 5)]
    assert "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz" in section and "192 GiB" in section
    assert "MPI_T variables (2)" in section and "MPIR_CVAR_BCAST_IPC_READ_MSG_SIZE_THRESHOLD" in section
    old = pingpong_run()
    assert "not recorded (the run file is from before msgperf recorded its machine)" in build_report([(analyze(old), old)])


def test_hosts_alike_share_one_line():
    hosts = tuple(host_facts(f"n{i:02}") for i in range(64)) + (host_facts("big", memory_bytes=1 << 40),)
    lines = host_lines(hosts)
    assert len(lines) == 2
    assert lines[0].startswith("n00, n01, n02 +61: Intel(R) Xeon(R) Gold 6248") and "192 GiB" in lines[0]
    assert lines[1].startswith("big: ") and "1 TiB" in lines[1]
