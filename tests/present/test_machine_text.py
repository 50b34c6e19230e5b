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


def test_an_mpich_ch4_build_shows_only_ch4_variables_as_thresholds(msgperf):
    """A recorded MPICH 5.0.2 run ('MPICH Device: ch4:ucx ofi'): its MPI_T variables include ch3's
    and nemesis's (CH3_EAGER_MAX_MSG_SIZE=131072 beside a measured 8112 B); they are no threshold of
    this build, and stay in the run file and --json."""
    import json
    from pathlib import Path

    from msgperf.analysis.tables.machine import mpi_device, run_machine
    from msgperf.records.runfile_read import read_run
    path = Path(__file__).parents[1] / "data" / "kernel-runs" / "mpich-cell32k-switch-refined.jsonl"
    run = read_run(path).run
    assert mpi_device(run.launches[-1].mpi_library) == "ch4"
    machine = run_machine(run)
    names = [n for n, _ in machine.thresholds]
    assert "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE" in names and all(n.startswith("MPIR_CVAR_CH4_") for n in names)
    assert sorted(machine.other_devices) == ["MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE", "MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ",
                                             "MPIR_CVAR_NEMESIS_SHM_READY_EAGER_MAX_SZ"]
    assert machine.cvars["MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE"] == 131072  # still recorded
    out = " ".join(msgperf("show", path, "--detail").stdout.split())
    line = out[out.index("MPI_T thresholds"):]
    line = line[:line.index("use") + 3]
    assert line.startswith("MPI_T thresholds of ch4 (MPIR_CVAR_…): CH4_") and "CH3_" not in line and "NEMESIS" not in line
    assert line.endswith("3 of them ch3's, a device this build does not use")


def test_without_a_device_every_point_to_point_variable_is_a_threshold():
    from msgperf.analysis.tables.machine import mpi_device, of_other_device
    assert mpi_device("Open MPI v4.1.4, package: Debian OpenMPI") is None
    assert mpi_device("MPICH Version: 3.4\nMPICH configure: --with-device=ch3:nemesis") == "ch3"
    assert not of_other_device("MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE", None)
    assert of_other_device("MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE", "ch3")
    assert not of_other_device("MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ", "ch3")
