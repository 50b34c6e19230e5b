"""One vocabulary of pattern names: imported OSU, IMB and NetPIPE runs carry the names of
msgperf's own compatibility modes, and files or stored runs of the older underscore names read
under the new ones."""

from __future__ import annotations

import json
import shutil

import numpy as np

from msgperf.records.pattern_names import pattern_name
from msgperf.records.runfile_read import read_run
from tests.factories import make_run, measurement, write_run

from .importers.test_import_osu import DATA


def test_legacy_names_map_to_the_vocabulary_and_others_stay():
    assert pattern_name("osu_latency") == "osu-latency"
    assert pattern_name("osu_latency_mt") == "osu-latency-mt"
    assert pattern_name("imb_pingpong") == "imb-pingpong"
    assert pattern_name("netpipe_pingpong") == "netpipe-pingpong"
    for same in ("pingpong", "pingpong-nb", "eager-probe", "osu-bw", "my_pattern"):
        assert pattern_name(same) == same


def test_a_run_file_written_with_underscore_names_reads_with_the_new_ones(tmp_path):
    path = write_run(make_run([measurement("osu-latency", s, np.full(10, 2e-6)) for s in (1, 2, 4)],
                              source="osu", catalog=False), tmp_path / "old.jsonl")
    text = path.read_text().replace('"osu-latency"', '"osu_latency"')
    assert '"osu_latency"' in text
    path.write_text(text)
    run = read_run(path).run
    assert run.info.plan.patterns == ("osu-latency",)
    assert {m.pattern for m in run.measurements} == {"osu-latency"}


def test_an_imported_osu_output_and_a_msgperf_osu_latency_run_are_compared(msgperf, tmp_path):
    rng = np.random.default_rng(0)
    mine = write_run(make_run([measurement("osu-latency", s, 2 * (1.6e-6 + s * 1e-10) * np.exp(0.01 * rng.standard_normal(50)))
                               for s in (1, 2, 4, 8, 16, 32, 64)]), tmp_path / "mine.jsonl")
    theirs = tmp_path / "osu_latency.txt"
    shutil.copy(DATA / "osu_latency.txt", theirs)
    done = msgperf("compare", mine, theirs, "--json")
    assert done.returncode == 0, done.stderr
    assert "no pattern in common" not in done.stderr
    compared = json.loads(done.stdout)
    assert "osu-latency" in json.dumps(compared)
    listed = msgperf("import", "--from", "osu", theirs)
    assert listed.returncode == 0, listed.stderr
    runs = msgperf("runs", "--pattern", "osu_*")  # the old glob still finds it
    assert runs.returncode == 0 and "osu-latency" in runs.stdout, runs.stdout + runs.stderr


def test_the_reproduced_loops_are_the_kernels_compatibility_modes():
    """REPRODUCED names what the kernels' catalog holds of the tools' loops (osu-, imb-, netpipe-):
    compare's hint names only patterns msgperf run accepts."""
    from msgperf.records.pattern_names import REPRODUCED
    from tests.catalog_data import committed_catalog

    assert REPRODUCED == {p.name for p in committed_catalog(2) if p.name.startswith(("osu-", "imb-", "netpipe-"))}


def test_an_older_reduce_local_record_reads_as_time_per_call(tmp_path):
    """Kernels before 2026-12-07 labelled reduce-local's time per call "copy" (a memcpy's): the
    tables said "per copy: median (time of one memcpy)"."""
    from msgperf.analysis.tables import pattern_facts

    from tests.factories import replace

    run = make_run([replace(measurement("reduce-local", 1024, np.full(20, 4e-7), divisor=1), metric="copy")])
    older = tmp_path / "older.jsonl"
    write_run(run, older)
    text = older.read_text().replace('"per_call"', '"copy"')  # the catalog entry of those kernels too
    older.write_text(text)
    assert '"per_call"' not in text
    back = read_run(older).run
    assert {m.metric for m in back.measurements} == {"per_call"}
    assert pattern_facts(back, "reduce-local").time_words.startswith("time of one call")
