"""A large run keeps its samples in a temporary file while it is read and analysed: every output
is the same as with the samples in memory, memory holds about one measurement, and nothing that
cannot be kept (a full disk, the analysis cache) loses a result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from msgperf.records import runfile_read, spilled_samples
from msgperf.records.runfile_read import read_run
from tests.cli_in_process import cli

DATA = Path(__file__).resolve().parents[1] / "data" / "kernel-runs"
ROOT = Path(__file__).resolve().parents[2]
RUN_FILES = sorted(DATA.glob("*.jsonl"))


@pytest.fixture
def spill_everything(monkeypatch):
    monkeypatch.setattr(runfile_read, "SPILL_ABOVE_FILE_BYTES", 0)


def test_a_spilled_run_holds_the_same_samples_bit_for_bit(spill_everything):
    assert RUN_FILES, "tests/data/kernel-runs holds real run files"
    for path in RUN_FILES:
        run = read_run(path).run
        assert all(m.spilled for m in run.measurements)
        for m, held in zip(run.measurements, (m.samples_s for m in run.measurements)):
            assert not held.flags.writeable  # nobody may change a measurement through it
            assert np.array_equal(m.samples_s, held) and m.samples_s.dtype == np.float64
    with open(RUN_FILES[0]) as f:
        first = next(json.loads(line) for line in f if '"type": "measurement"' in line or '"type":"measurement"' in line)
    assert read_run(RUN_FILES[0]).run.measurements[0].samples_s.tolist() == first["samples_s"]


@pytest.mark.parametrize("path", RUN_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("command", [("show",), ("show", "--json"), ("fit",), ("summary",), ("export", "--format", "run")])
def test_every_output_is_the_same_with_the_samples_on_disk(capsys, monkeypatch, path, command):
    """Real run files with refinement launches, a repeated size, several patterns."""
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    in_memory = cli(capsys, command[0], path, *command[1:])
    monkeypatch.setattr(runfile_read, "SPILL_ABOVE_FILE_BYTES", 0)
    on_disk = cli(capsys, command[0], path, *command[1:])
    assert in_memory[0] == 0 and len(in_memory[1]) > 200
    assert on_disk == in_memory


def test_compare_is_the_same_with_the_samples_on_disk(capsys, monkeypatch):
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    a, b = RUN_FILES[0], RUN_FILES[1]
    in_memory = cli(capsys, "compare", a, b, "--no-history")
    monkeypatch.setattr(runfile_read, "SPILL_ABOVE_FILE_BYTES", 0)
    assert cli(capsys, "compare", a, b, "--no-history") == in_memory and "ratio" in in_memory[1].lower()


def test_a_full_disk_while_spilling_keeps_the_samples_in_memory(spill_everything, monkeypatch):
    calls = []

    def full(self, samples):
        calls.append(samples.size)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(spilled_samples.SampleSpill, "keep", full)
    run = read_run(RUN_FILES[0]).run
    assert len(calls) == 1  # it stops trying after the first refusal
    assert not any(m.spilled for m in run.measurements) and run.measurements[-1].samples_s.size > 0


def test_no_temporary_directory_keeps_the_samples_in_memory(spill_everything, monkeypatch):
    monkeypatch.setattr(spilled_samples.tempfile, "TemporaryFile", lambda **kw: (_ for _ in ()).throw(OSError(13, "no")))
    run = read_run(RUN_FILES[0]).run
    assert run.measurements and not any(m.spilled for m in run.measurements)


def test_the_analysis_cache_keeps_a_spilled_run_and_gives_the_same_output(capsys, monkeypatch, tmp_path, spill_everything):
    monkeypatch.setenv("MSGPERF_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("MSGPERF_NO_CACHE", raising=False)
    first = cli(capsys, "fit", RUN_FILES[0])
    again = cli(capsys, "fit", RUN_FILES[0])
    assert first[0] == 0 and again == first
    kept = sorted(p.suffix for p in (tmp_path / "cache" / "analysis").iterdir())
    assert kept == [".npz", ".samples"]  # the entry and the samples beside it, no temporary
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    monkeypatch.setattr(runfile_read, "SPILL_ABOVE_FILE_BYTES", 1 << 40)
    assert cli(capsys, "fit", RUN_FILES[0]) == first  # the same as with the samples in memory


def test_a_large_stored_run_is_loaded_with_its_samples_on_disk(tmp_path, monkeypatch):
    from msgperf.store import db as store_db
    from msgperf.store.db import open_store

    path = RUN_FILES[0]
    run = read_run(path).run
    with open_store(tmp_path / "m.db") as store:
        run_id, _ = store.add_run(run)
    monkeypatch.setattr(store_db, "SPILL_ABOVE_SAMPLE_BYTES", 0)
    with open_store(tmp_path / "m.db", create=False) as store:
        stored = store.load_run(run_id)
    assert all(m.spilled for m in stored.measurements)
    assert all(np.array_equal(a.samples_s, b.samples_s) for a, b in zip(run.measurements, stored.measurements))


PEAK = """
import resource, sys
from msgperf.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def _peak_kib(*args: str | Path, cache: Path | None = None) -> int:
    env = {**os.environ, "MSGPERF_NO_CACHE": "1"} if cache is None else {**os.environ, "MSGPERF_CACHE": str(cache)}
    if cache is not None:
        env.pop("MSGPERF_NO_CACHE", None)
    done = subprocess.run([sys.executable, "-c", PEAK, *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert "error" not in done.stderr, done.stderr
    return int(done.stderr.strip().splitlines()[-1])


def test_show_of_a_large_run_file_holds_about_one_measurement(tmp_path):
    """An 80 MiB run file (20 measurements x 150,000 samples, 1.2 MB of samples each; 24 MB of
    samples in all): show's peak memory stays within 30 MiB of showing a 4-measurement file, also
    when the analysis cache keeps it and when it is read back from there. With
    the samples in memory it was ~2.5 x the file above it (bench/RESULTS.md)."""
    big, small = tmp_path / "big.jsonl", tmp_path / "small.jsonl"
    for out, measurements, samples in ((big, 20, 150_000), (small, 4, 1_000)):
        subprocess.run([sys.executable, ROOT / "bench" / "big_run_file.py", out, "--measurements", str(measurements),
                        "--samples", str(samples)], check=True, capture_output=True, timeout=300)
    assert big.stat().st_size > 60 << 20
    base, large = _peak_kib("show", small), _peak_kib("show", big)
    assert large - base < 30 << 10, (base, large)
    # with the analysis cache: writing the entry and reading it back keep the bound too
    cache = tmp_path / "cache"
    writing, reading = _peak_kib("show", big, cache=cache), _peak_kib("show", big, cache=cache)
    assert sorted(p.suffix for p in (cache / "analysis").iterdir()) == [".npz", ".samples"]
    assert writing - base < 30 << 10 and reading - base < 30 << 10, (base, writing, reading)
