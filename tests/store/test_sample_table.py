"""The CSV export as data, never formulas, and streamed (issue 17, item 9)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from msgperf.commands.export import export_run
from msgperf.records.runfile_read import read_run, stream_run
from msgperf.store.sample_table import CSV_CHUNK_ROWS, FORMULA_PREFIXES, csv_text, write_csv
from tests.factories import stored_run, write_run_file
from tests.cli_in_process import cli
from tests.records.fuzz_commands import run_one
from tests.factories import replace

FORMULAS = ["=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)", "\t=1", "\r=1"]


@pytest.mark.parametrize("text", FORMULAS)
def test_a_formula_prefix_is_neutralised(text):
    assert csv_text(text) == "'" + text
    assert text.startswith(FORMULA_PREFIXES)


@pytest.mark.parametrize("text", ["node01", "", "MPICH 5.0.2", "a=b", "1;2", "'quoted"])
def test_other_strings_are_unchanged(text):
    assert csv_text(text) == text


def hostile_run():
    run = stored_run(3, samples=5)
    launch = run.launches[0]
    ranks = tuple(replace(r, host="=HYPERLINK(\"http://evil\",\"x\")") for r in launch.ranks)
    launch = replace(launch, ranks=ranks, mpi_library="@SUM(1+1)")
    ms = tuple(replace(m, timing="+cmd|' /C calc'!A0", variant="-x", pattern="\tpp")
               for m in run.measurements)
    info = replace(run.info, start_time="=1+1")
    return replace(run, launches=(launch,), measurements=ms, info=info)


def test_every_string_cell_is_data_and_numbers_stay_numbers(tmp_path):
    run = hostile_run()
    out = io.StringIO()
    write_csv(run, None, out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert len(rows) == 5 * len(run.measurements)
    for row in rows:
        for name, value in row.items():
            assert not value.startswith(FORMULA_PREFIXES), (name, value)
    first = rows[0]
    assert first["hosts"] == "'=HYPERLINK(\"http://evil\",\"x\")"
    assert first["mpi"].startswith("'@SUM(1+1)")
    assert first["timing"] == "'+cmd|' /C calc'!A0" and first["variant"] == "'-x" and first["pattern"] == "'\tpp"
    assert first["run_start_time"] == "'=1+1"
    m = run.measurements[0]
    assert float(first["sample_s"]) == m.samples_s[0] and int(first["bytes"]) == m.bytes  # not quoted


def test_the_streamed_export_of_a_run_file_is_the_export_of_the_loaded_run(tmp_path):
    run = hostile_run()
    big = replace(run.measurements[1], samples_s=np.random.default_rng(1).uniform(1e-6, 2e-6,
                                                                                              CSV_CHUNK_ROWS * 2 + 5))
    run = replace(run, measurements=(run.measurements[0], big) + run.measurements[2:])
    path = write_run_file(run, tmp_path / "run.jsonl")
    whole = io.StringIO()
    write_csv(read_run(path).run, None, whole)
    header, measurements = stream_run(path)
    assert header.run.measurements == () and header.measured == tuple((m.pattern, m.bytes) for m in run.measurements)
    streamed = io.StringIO()
    write_csv(header.run, None, streamed, measurements(), header.measured)
    assert streamed.getvalue() == whole.getvalue()
    rows = list(csv.DictReader(io.StringIO(whole.getvalue())))
    mine = [r for r in rows if r["measurement"] == "1"]
    assert [int(r["sample"]) for r in mine] == list(range(big.samples_s.size))  # across chunk boundaries
    assert [float(r["sample_s"]) for r in mine] == big.samples_s.tolist()
    # and through the command, to a file
    out = tmp_path / "out.csv"
    assert run_one("export", ["export", str(path), "-o", str(out)]).status == "ok"
    assert out.read_text() == whole.getvalue()


def test_a_cut_off_run_file_exports_what_it_holds_with_a_note(tmp_path):
    run = stored_run(4, samples=5)
    path = write_run_file(run, tmp_path / "run.jsonl")
    text = path.read_text()
    path.write_text(text[:text.rindex('{"type": "measurement"') + 30])  # killed mid-record
    outcome = run_one("export", ["export", str(path), "--format", "csv", "-o", str(tmp_path / "x.csv")])
    assert outcome.status == "ok"
    rows = list(csv.DictReader(open(tmp_path / "x.csv")))
    assert len(rows) == 5 * (len(run.measurements) - 1)


def test_export_to_a_file_is_the_same_as_to_stdout(tmp_path):
    run = hostile_run()
    out = io.StringIO()
    export_run(run, None, "csv", None, stdout=out)
    export_run(run, None, "csv", tmp_path / "x.csv")
    assert (tmp_path / "x.csv").read_text() == out.getvalue()


@pytest.mark.parametrize("from_file", [True, False])
def test_the_tidy_layout_joined_is_the_wide_table(tmp_path, from_file):
    """--csv-layout tidy: nothing repeated per sample row; joined on `measurement` the two tables
    are the wide CSV cell for cell (formula cells neutralised the same way)."""
    run = hostile_run()
    path = write_run_file(run, tmp_path / "run.jsonl")
    wide = io.StringIO()
    write_csv(read_run(path).run, None, wide)
    if from_file:
        outcome = run_one("export", ["export", str(path), "--csv-layout", "tidy", "-o", str(tmp_path / "t.csv")])
    else:  # a stored run: loaded whole
        from msgperf.store.db import open_store
        with open_store(tmp_path / "s.db") as store:
            run_id, _ = store.add_run(read_run(path).run)
        outcome = run_one("export", ["export", str(run_id), "--db", str(tmp_path / "s.db"), "--csv-layout", "tidy",
                                     "-o", str(tmp_path / "t.csv")])
        wide = io.StringIO()
        with open_store(tmp_path / "s.db") as store:
            write_csv(store.load_run(run_id), store.get_row(run_id), wide)
    assert outcome.status == "ok", outcome
    samples = list(csv.DictReader(open(tmp_path / "t.csv")))
    table = {r["measurement"]: r for r in csv.DictReader(open(tmp_path / "t.measurements.csv"))}
    assert list(samples[0]) == ["measurement", "sample", "sample_s", "per_message_s"]
    joined = [{**{k: v for k, v in table[s["measurement"]].items() if k != "n_samples"}, **s} for s in samples]
    assert joined == list(csv.DictReader(io.StringIO(wide.getvalue())))
    assert [int(r["n_samples"]) for r in table.values()] == [m.samples_s.size for m in run.measurements]


def test_the_tidy_layout_needs_an_output_file(tmp_path):
    outcome = run_one("export", ["export", str(write_run_file(stored_run(5), tmp_path / "r.jsonl")),
                                 "--csv-layout", "tidy"])
    assert outcome.detail == ("error: --csv-layout tidy writes two tables: give -o FILE.csv (the measurements "
                              "go to FILE.measurements.csv)")


def test_a_long_prefix_makes_smaller_chunks(monkeypatch):
    """A 60,000-character host on every row: the rows of one write stay near CSV_CHUNK_CHARS
    (before, 8192 such rows were built into one string of ~1 GB)."""
    run = stored_run(6, samples=50)
    launch = run.launches[0]
    launch = replace(launch, ranks=tuple(replace(r, host="h" * 60000) for r in launch.ranks))
    run = replace(run, launches=(launch,))
    import msgperf.store.sample_table as table
    monkeypatch.setattr(table, "WIDE_CELL_CHARS", 10**6)  # whole cells, as the chunks must bear them
    writes = []

    class Sink(io.StringIO):
        def write(self, text):
            writes.append(len(text))
            return super().write(text)
    out = Sink()
    write_csv(run, None, out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert len(rows) == 50 * len(run.measurements) and rows[0]["hosts"] == "h" * 60000
    from msgperf.store.sample_table import CSV_CHUNK_CHARS
    assert max(writes) < CSV_CHUNK_CHARS + 61000


def long_string_run(samples: int = 500):
    """Hosts, MPI and timing text of 60,000 characters each, the longest strings a run file holds
    being 65,536: the wide CSV once repeated them on every sample row (3.8 MB -> 5.5 GB)."""
    run = stored_run(4, samples=samples)
    launch = run.launches[0]
    ranks = tuple(replace(r, host=f"node{i}-" + "h" * 60_000) for i, r in enumerate(launch.ranks))
    launch = replace(launch, ranks=ranks, mpi_library="M" * 60_000)
    ms = tuple(replace(m, timing="=" + "t" * 60_000) for m in run.measurements)
    return replace(run, launches=(launch,), measurements=ms)


@pytest.mark.parametrize("from_file", [True, False])
def test_the_default_csv_of_a_run_with_long_strings_stays_near_the_run_files_size(tmp_path, capsys, from_file):
    run = long_string_run()
    path = write_run_file(run, tmp_path / "run.jsonl")
    if from_file:
        args = ["export", str(path), "-o", str(tmp_path / "x.csv")]
    else:  # a stored run: loaded whole
        from msgperf.store.db import open_store
        with open_store(tmp_path / "s.db") as store:
            run_id, _ = store.add_run(read_run(path).run)
        args = ["export", str(run_id), "--db", str(tmp_path / "s.db"), "--format", "csv", "-o", str(tmp_path / "x.csv")]
    code, _, err = cli(capsys, *args)
    assert code == 0, err
    assert err.startswith("note: the wide CSV cut the string cells of hosts, mpi, timing longer than 128 characters")
    size, source = (tmp_path / "x.csv").stat().st_size, path.stat().st_size
    # was 60,000 x 3 characters on each of 2,000 rows: 360 MB from a 0.4 MB run file
    short = io.StringIO()
    write_csv(stored_run(4, samples=500), None, short)
    assert size < 10 * source and size < 2.5 * len(short.getvalue()), (size, source, len(short.getvalue()))
    rows = list(csv.DictReader(open(tmp_path / "x.csv")))
    assert len(rows) == 500 * len(run.measurements)
    first = rows[0]
    assert first["timing"] == "'=" + "t" * 62 + "...[cut: 60,002 characters]"
    assert first["hosts"].startswith("node0-hhh") and first["hosts"].endswith("...[cut: 120,013 characters]")
    assert [float(r["sample_s"]) for r in rows[:500]] == run.measurements[0].samples_s.tolist()
    # the tidy layout writes them whole, once per measurement
    assert run_one("export", ["export", str(path), "--csv-layout", "tidy", "-o", str(tmp_path / "t.csv")]).status == "ok"
    table = list(csv.DictReader(open(tmp_path / "t.measurements.csv")))
    assert table[0]["timing"] == "'=" + "t" * 60_000 and table[0]["mpi"].startswith("M" * 60_000)


def test_short_cells_are_never_cut():
    out = io.StringIO()
    assert write_csv(hostile_run(), None, out) == ()
    assert "[cut:" not in out.getvalue()
