"""Imported summaries are ordinary runs: run-file format, store, export and import round trips,
the ``msgperf import --from`` command, and hostile input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from msgperf.cli import main
from msgperf.errors import MsgperfError
from msgperf.commands.export import export_run
from msgperf.records.runfile_write import run_records
from msgperf.records.importers import guess_tool, load_file
from msgperf.records.importers.text import ForeignFormatError, read_text
from msgperf.records.runfile_read import parse_run_text
from msgperf.store.db import open_store
from msgperf.store.identity import content_hash

DATA = Path(__file__).resolve().parents[2] / "data" / "peer-outputs"
FILES = [("osu", p.name) for p in sorted(DATA.glob("osu_*.txt"))] + \
        [("imb", p.name) for p in sorted(DATA.glob("imb_*.txt"))] + [("netpipe", "netpipe_mpich.np")]


def canonical(run) -> list[str]:
    return [json.dumps(r, sort_keys=True) for r in run_records(run)]


@pytest.mark.parametrize("tool, name", FILES)
def test_import_store_export_import_gives_the_same_numbers(tmp_path, tool, name):
    imported, _ = load_file(DATA / name, tool)
    run = imported.run
    # an imported summary round-trips through the run-file format ...
    text = "".join(json.dumps(r) + "\n" for r in run_records(run))
    assert canonical(parse_run_text(text, "x").run) == canonical(run)
    # ... and through the store and a JSON export, bit for bit
    with open_store(tmp_path / "s.db") as store:
        run_id, added = store.add_run(run)
        assert added and store.add_run(load_file(DATA / name, tool)[0].run) == (run_id, False)
        export_run(store.load_run(run_id), store.get_row(run_id), "json", tmp_path / "e.json")
        again, _ = load_file(tmp_path / "e.json")
        assert canonical(again.run) == canonical(run) and content_hash(again.run) == content_hash(run)
        assert store.add_run(again.run) == (run_id, False)
    for a, b in zip(run.measurements, again.run.measurements):
        assert np.array_equal(a.samples_s, b.samples_s) and a.extra == b.extra


def test_guess_tool_on_every_sample():
    for tool, name in FILES:
        assert guess_tool((DATA / name).read_text()) == tool


def test_import_command_with_from(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    names = [str(DATA / n) for t, n in FILES if t == "osu"]
    main(["import", "--db", db, "--from", "osu", *names])
    out = capsys.readouterr().out.splitlines()
    assert [line.rsplit(" ", 1)[1] for line in out] == [str(i) for i in range(1, len(names) + 1)]
    assert "imported osu summary" in out[0]
    main(["import", "--db", db, "--from", "imb", str(DATA / "imb_uniband_biband_pingping.txt"),
          "--label", "imb run"])
    main(["import", "--db", db, "--from", "imb", str(DATA / "imb_uniband_biband_pingping.txt")])
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(f"run {len(names) + 1}") and "already stored" in out[1]
    main(["runs", "--db", db, "--source", "imb"])
    listing = capsys.readouterr().out
    assert "imb-uniband, imb-biband, imb-pingping" in listing and "imb run" in listing
    assert "2026-11-22" in listing  # IMB's own date, not the import time
    with pytest.raises(SystemExit) as exit_info:
        main(["import", "--db", db, "--from", "netpipe", str(DATA / "osu_bw.txt")])
    assert exit_info.value.code == 1
    assert "use --from osu" in capsys.readouterr().err


def test_export_of_an_imported_summary_to_csv(tmp_path):
    run = load_file(DATA / "osu_latency.txt", "osu")[0].run
    out = io.StringIO()
    export_run(run, None, "csv", None, stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 + 23
    assert lines[1].endswith(",osu-latency,,1,separate,0;1,0,one_way,,1,1,1,imported,true,0,1.66e-06,1.66e-06")


def test_hostile_input_is_refused_without_executing_anything(tmp_path):
    binary = tmp_path / "a.out"
    binary.write_bytes(b"\x7fELF\x00\x00\x01")
    with pytest.raises(ForeignFormatError, match="binary data"):
        load_file(binary, "osu")
    big = tmp_path / "big.txt"
    big.write_text("# OSU MPI Latency Test v7.4\n" * 10)
    with pytest.raises(ForeignFormatError, match="larger than"):
        read_text(big, limit=100)
    with pytest.raises(ForeignFormatError, match="no such file"):
        load_file(tmp_path / "missing.txt", "imb")
    with pytest.raises(ForeignFormatError, match="is a directory"):
        load_file(tmp_path, "netpipe")
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "msgperf-export", "export_version": 1, "records": ' + "[" * 100000 + "]" * 100000 + "}")
    with pytest.raises(MsgperfError, match="deep.json: not valid JSON"):
        load_file(deep)
    evil = tmp_path / "evil.txt"  # nothing in a file is ever evaluated
    evil.write_text("# OSU MPI Latency Test v7.4\n# Size   Avg Latency(us)\n1 __import__('os').system('touch pwned')\n")
    with pytest.raises(ForeignFormatError, match="line 3: expected 2 columns"):
        load_file(evil, "osu")
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()
