"""Golden text of every terminal renderer, from one deterministic hand-built result
(tests/factories.every_family_run): a changed table is a visible diff in tests/data/golden/.

After an intended change, regenerate with  MSGPERF_UPDATE_GOLDEN=1 pytest tests/present/test_golden.py
and read the diff before committing it."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from msgperf.analysis.result import analyze
from msgperf.present.advice_text import render_advice
from msgperf.present.model_text import render_series
from msgperf.present.pattern_tables import render_pattern_tables
from msgperf.present.report import headline_html
from msgperf.present.run_tables import render_tables
from msgperf.present.saphir_table import render_saphir
from msgperf.present.terminal import console
from tests.factories import every_family_run

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
UPDATE = os.environ.get("MSGPERF_UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="module")
def result():
    return analyze(every_family_run())


def _render(draw) -> str:
    out = console(record=True, width=110, file=io.StringIO())
    draw(out)
    return "\n".join(line.rstrip() for line in out.export_text().splitlines()) + "\n"


def _check(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text)
    assert path.exists(), f"{path} missing: run with MSGPERF_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(), f"{name} changed; if intended, regenerate with MSGPERF_UPDATE_GOLDEN=1"


def test_run_tables(result):
    _check("run_tables.txt", _render(lambda c: render_tables(c, result)))


def test_pattern_tables(result):
    _check("pattern_tables.txt", _render(lambda c: render_pattern_tables(c, result)))


def test_model_of_the_main_series(result):
    _check("model_pingpong.txt", _render(lambda c: render_series(c, result.main, result)))


def test_saphir_table(result):
    _check("saphir.txt", _render(lambda c: render_saphir(c, result.saphir)))


def test_advice(result):
    advice = result.advise(8, 1024)
    _check("advice.txt", _render(lambda c: render_advice(c, advice, result.main)))


def test_report_headline(result):
    _check("report_headline.html", headline_html(result) + "\n")


# ---- the answer block of show and run, on recorded runs ------------------------------------

DATA = GOLDEN.parent
ANSWER_RUNS = {
    "answer_mpich_switch.txt": DATA / "kernel-runs" / "mpich-cell32k-switch-refined.jsonl",
    "answer_openmpi.txt": DATA / "kernel-runs" / "openmpi-busy-0-1M.jsonl",
    "answer_osu_import.txt": DATA / "peer-outputs" / "osu_latency.txt",
    "answer_no_switch.txt": DATA / "kernel-runs" / "mpich-cell64k-no-step-at-probe.jsonl",
}


def _recorded(path: Path):
    from msgperf.loader import load_analyzed

    return load_analyzed(str(path), None)[1]


@pytest.mark.parametrize("name", sorted(ANSWER_RUNS))
def test_answer_block_of_recorded_runs(name):
    from msgperf.present.answer_text import MAX_LINES, answer_lines, render_answer

    result = _recorded(ANSWER_RUNS[name])
    assert all(len(line) <= 80 for line in answer_lines(result)), answer_lines(result)
    out = console(record=True, width=80, file=io.StringIO())
    render_answer(out, result, "msgperf run RUN")
    text = "\n".join(line.rstrip() for line in out.export_text().splitlines()) + "\n"
    lines = text.splitlines()
    assert len(lines) <= MAX_LINES and all(len(line) <= 80 for line in lines), text
    _check(name, text)
