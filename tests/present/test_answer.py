"""The answer block that opens show and run (analysis/answer.py, present/answer_text.py): every
number in it is a field of ``show --json``'s "answer", it fits the first screen of an 80×24
terminal with the table's first rows, and the default table keeps the sweep's own sizes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from msgperf import units
from msgperf.present.run_tables import plus_minus
from tests.cli_in_process import cli
from tests.factories import replace

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDED = [DATA / "kernel-runs" / "mpich-cell32k-switch-refined.jsonl",
            DATA / "kernel-runs" / "openmpi-busy-0-1M.jsonl",
            DATA / "peer-outputs" / "osu_latency.txt",
            DATA / "kernel-runs" / "mpich-cell64k-no-step-at-probe.jsonl",
            DATA / "kernel-runs" / "mpich-cell32k-cma256k-refined.jsonl",
            DATA / "peer-outputs" / "osu_bw.txt"]
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _show(capsys, monkeypatch, *args) -> str:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = cli(capsys, "show", *args)
    assert code == 0, err
    return out


def _renderings(value: float) -> list[str]:
    """Every way the block may print a number of the answer."""
    out = [units.seconds(value), units.rate(value), units.size(value), units.percent(value),
           units.percent(value, signed=True, decimals=0), f"{100 * value:.0f}"]
    if float(value).is_integer():
        out.append(units.exact_bytes(int(value)))
    return out


def _allowed(answer) -> set[str]:
    """The numbers the fields of the answer can put in the block: each numeric field formatted,
    each interval as units.interval prints it, and the numbers inside its text fields."""
    found: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            if node.get("low") is not None and node.get("high") is not None:
                for unit in ("s", "B/s", "B"):
                    found.update(NUMBER.findall(units.interval(node["low"], node["high"], unit)))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
        elif isinstance(node, str):
            found.update(NUMBER.findall(node))
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            for text in _renderings(node):
                found.update(NUMBER.findall(text))

    walk(answer)
    return found


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.name)
def test_every_number_in_the_block_is_a_field_of_show_json(path, capsys, monkeypatch):
    answer = json.loads(_show(capsys, monkeypatch, path, "--json"))["answer"]
    brief = _show(capsys, monkeypatch, path, "--brief").splitlines()
    start = next(i for i, line in enumerate(brief) if line.startswith(answer["series"] + ":"))
    block = [line for line in brief[start:] if not line.startswith("more:")]  # after the heading and title
    numbers = [n for line in block for n in NUMBER.findall(line)]
    assert numbers, brief
    missing = sorted(set(numbers) - _allowed(answer))
    assert not missing, f"numbers in the block that are no field of show --json: {missing}\n" + "\n".join(brief)


def test_the_json_answer_holds_what_the_block_says(capsys, monkeypatch):
    path = RECORDED[4]  # its eager step is read from two sizes of one refinement launch
    answer = json.loads(_show(capsys, monkeypatch, path, "--json"))["answer"]
    block = _show(capsys, monkeypatch, path, "--brief")
    assert units.seconds(answer["latency"]["value"]) in block and answer["latency"]["covers"] in block
    assert units.rate(answer["peak_bandwidth"]["value"]) in block
    assert units.size(answer["peak_bandwidth"]["bytes"]) in block
    assert units.exact_bytes(int(answer["eager_limit"]["value"])) in block
    (eager,) = [s for s in answer["switches"] if "eager_rendezvous" in s["kinds"]]
    assert eager["step"] == answer["eager_step"] and eager["step"]["measurable"] is True
    assert units.seconds(eager["step"]["step"]["value"]) in block
    assert [w["fix"] for w in answer["warnings"]][-1] == "msgperf run --repeat 3"


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.name)
def test_the_answer_and_the_first_rows_fit_an_80x24_screen(path, capsys, monkeypatch):
    lines = _show(capsys, monkeypatch, path).splitlines()
    rows = [i for i, line in enumerate(lines) if line.startswith("│")]
    assert len(rows) >= 3, "\n".join(lines)
    screen = lines[:rows[2] + 1]  # up to the table's third row
    assert len(screen) <= 24, "\n".join(screen)
    assert all(len(line) <= 80 for line in screen), "\n".join(line for line in screen if len(line) > 80)


def test_the_table_keeps_the_sweep_and_the_sizes_that_carry_a_switch(capsys, monkeypatch):
    path = RECORDED[0]  # a sweep of powers of two, refined around two switches
    default = _show(capsys, monkeypatch, path)
    every = _show(capsys, monkeypatch, path, "--all")
    sizes = lambda text: [line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│")]
    shown, listed = sizes(default), sizes(every)
    assert {"4 KiB", "8 KiB", "16 KiB", "32 KiB", "1 MiB"} <= set(shown)  # the sweep's own sizes
    assert {"32067 B", "32765 B"} <= set(shown)  # the gap the eager switch lies in
    assert "19487 B" not in shown and "19487 B" in listed  # a refinement size beside no switch
    assert set(shown) < set(listed)
    assert f"{len(listed) - len(shown)} sizes a refinement added" in " ".join(default.split())


def test_detail_holds_the_fine_print_and_the_default_does_not(capsys, monkeypatch):
    path = RECORDED[0]
    default, detail = _show(capsys, monkeypatch, path), _show(capsys, monkeypatch, path, "--detail")
    for fine_print in ("Machine", "machine, launch 0", "first message per size", "Anomalies", "Caveats",
                       "zero-byte latency", "stopped by"):
        assert fine_print not in default and fine_print in detail, fine_print
    assert "more: --detail" in default and "more: --detail" not in detail


def test_an_interval_wider_than_its_value_is_not_printed_as_a_percentage():
    class Row:
        class interval:  # noqa: N801 - the attribute of a row
            halfwidth_rel = 816.137

    assert plus_minus(Row) == ">100%"
    Row.interval.halfwidth_rel = 0.009
    assert plus_minus(Row) == "0.9%"


def test_the_report_opens_with_the_same_block_and_links_its_details(capsys, monkeypatch, tmp_path):
    import html as html_module

    from msgperf.loader import load_analyzed
    from msgperf.present.answer_text import answer_lines
    from msgperf.present.report import build_report

    loaded, result = load_analyzed(str(RECORDED[0]), None)
    page = build_report([(result, loaded.run)])
    opening = page.index("<pre class='answer'>")
    assert opening < page.index("<figure>")  # above the plots
    block = html_module.unescape(page[opening:page.index("</pre>", opening)].split(">", 1)[1])
    assert block.splitlines() == answer_lines(result)
    shown = _show(capsys, monkeypatch, RECORDED[0], "--brief").splitlines()
    start = next(i for i, line in enumerate(shown) if line.startswith("pingpong:"))
    in_terminal = [line for line in shown[start:] if not line.startswith("more:")]
    # the same lines (the terminal's heading, a long path here, may leave room for fewer warnings)
    assert in_terminal == block.splitlines()[1:][:len(in_terminal)] and len(in_terminal) >= 10
    for target in re.findall(r"<a href='#([^']+)'>", page[opening:]):
        assert f"id='{target}'" in page, target
    assert "#run1-pingpong" in page and "#run1-conditions" in page and "#run1-machine" in page


def test_every_table_of_the_default_view_fits_80_columns(capsys, monkeypatch, tmp_path):
    from tests.factories import every_family_run, write_run

    path = write_run(every_family_run(), tmp_path / "every.jsonl")
    default = _show(capsys, monkeypatch, path)
    detail = _show(capsys, monkeypatch, path, "--detail")
    boxed = lambda text: [line for line in text.splitlines() if line[:1] in "┏┃┡│└"]
    assert boxed(default) and all(len(line) <= 80 for line in boxed(default)), \
        "\n".join(line for line in boxed(default) if len(line) > 80)
    assert max(len(line) for line in boxed(detail)) > 80  # --detail keeps every column
    assert "--detail adds: gain interval, predicted separate, predicted combined" in " ".join(default.split())


def test_many_switches_and_warnings_stay_within_the_block(tmp_path):

    from msgperf.loader import load_analyzed
    from msgperf.present.answer_text import MAX_LINES, answer_lines

    result = load_analyzed(str(RECORDED[0]), None)[1]
    a = result.answer
    crowded = replace(a, switches=a.switches * 5, warnings=a.warnings * 3)
    lines = answer_lines(replace(result, answer=crowded), reserved=1)
    assert len(lines) == MAX_LINES - 1
    assert any("more switches: msgperf show RUN --detail" in line for line in lines)  # those left out, counted
    assert lines[-1] == f"  ! and {len(crowded.warnings) - 1} more warnings: msgperf show RUN --detail"
    assert lines[-2] == f"  ! {a.warnings[0].text} → {a.warnings[0].fix}"  # the first one in full


def test_only_a_size_short_of_its_precision_is_marked(capsys, monkeypatch):
    imported = _show(capsys, monkeypatch, DATA / "peer-outputs" / "osu_bw.txt")  # one value per size: no target
    rows = [line for line in imported.splitlines() if line.startswith("│")]
    assert rows and not any("*" in line for line in rows) and "stopped by" not in imported
    busy = _show(capsys, monkeypatch, RECORDED[1])  # sizes that ran out of their time budget
    assert "│ >100%* │" in busy and "*: stopped by time_budget before the precision" in " ".join(busy.split())


@pytest.mark.parametrize("path", RECORDED[1:4], ids=lambda p: p.name)
def test_every_link_of_the_reports_answer_has_its_section(path):
    from msgperf.loader import load_analyzed
    from msgperf.present.report import build_report

    loaded, result = load_analyzed(str(path), None)
    page = build_report([(result, loaded.run)])
    targets = re.findall(r"<a href='#([^']+)'>", page)
    assert targets and all(f"id='{t}'" in page for t in targets), targets


def test_a_step_across_two_launches_cannot_be_told(capsys, monkeypatch):
    """32067 B and 32765 B of this run come from two launches, each at a level of its own: their
    difference is not the switch's step, and no interval of one launch covers it."""
    answer = json.loads(_show(capsys, monkeypatch, RECORDED[0], "--json"))["answer"]
    step = answer["eager_step"] or next(s["step"] for s in answer["switches"] if "eager_rendezvous" in s["kinds"])
    assert step["below"]["launches"] != step["above"]["launches"]
    assert step["step"]["value"] is None and "two launches" in step["step"]["why_not"]
    assert "crossing it cannot tell" in " ".join(_show(capsys, monkeypatch, RECORDED[0], "--brief").split())


def test_the_eager_step_is_read_across_the_limit_not_beside_it():
    """A switch whose bracket holds the limit but whose most likely gap lies below it gives no
    step of its own: the step is read from the sizes either side of the limit."""
    from msgperf.analysis.answer import Figure, Switch, _eager_step, step_between
    from msgperf.analysis.tables.eager import EagerLimit

    sizes = {31256: 5.0e-6, 32067: 5.1e-6, 32688: 5.2e-6, 32689: 7.0e-6}
    measured = {b: Figure(t, t * 0.99, t * 1.01, "within one launch", b, launches=(1,)) for b, t in sizes.items()}
    wrong = Switch(16384, 65536, 31256, 32067, ("eager_rendezvous",), "eager → rendezvous", (),
                   step_between(measured[31256], measured[32067]))
    eager = EagerLimit(limit_bytes=32688, low_bytes=32688, high_bytes=32689, probe_max_bytes=None, rows=())
    step, why = _eager_step(eager, [wrong], measured)
    assert why == "" and (step.below.bytes, step.above.bytes) == (32688, 32689)


def test_a_probe_that_saw_no_size_wait_has_no_limit_to_cross():
    """Every size up to the probe's largest (64 KiB) went eagerly: the limit lies above it, and the
    step between 64 KiB and the next size measured is no crossing of it."""
    from msgperf.analysis.answer import Figure, _eager, _eager_step
    from msgperf.analysis.tables.eager import EagerLimit

    sizes = {65536: 12.0e-6, 65537: 12.1e-6, 66000: 15.0e-6}
    measured = {b: Figure(t, t * 0.99, t * 1.01, "within one launch", b, launches=(1,)) for b, t in sizes.items()}
    open_above = EagerLimit(limit_bytes=None, low_bytes=65536, high_bytes=None, probe_max_bytes=65536, rows=())
    step, why = _eager_step(open_above, [], measured)
    assert step is None and why == "no eager limit to cross: no size up to the probe's 64 KiB waited"
    limit = _eager(open_above, "msgperf")
    assert limit.value is None and "no size up to its maximum wait" in limit.why_not


def test_the_peak_bandwidth_is_a_measured_one_not_a_rescaled_refinement_size():
    """This run's refinement launch ran at 0.86x the sweep's level; its sizes enter the model on the
    sweep's level, but a bandwidth read there is the model's, not a measurement (it gave 20.3 GB/s
    at 597051 B where no size measured more than 17.7 GB/s)."""
    from msgperf.analysis.result import analyze
    from msgperf.records.runfile_read import read_run

    result = analyze(read_run(RECORDED[4]).run)
    main = next(s for s in result.series if s.key.pattern == "pingpong")
    rescaled = set(main.model.aligned_bytes)
    assert rescaled  # the case this test is about
    peak = result.answer.peak_bandwidth
    assert peak.bytes not in rescaled
    measured = [p.bytes / p.time_s for p in main.model.sweep.points if p.bytes and p.bytes not in rescaled]
    assert peak.value == pytest.approx(max(measured), rel=1e-12)


def test_the_narrow_regime_s_sizes_are_flagged_in_fit_and_listed_in_json(capsys, monkeypatch):
    """The default MPICH run whose refinement measured 8113 B and 8189 B between the eager limit and
    CMA's threshold: fit's table flags them REGIME (not SPIKE/DIP), and fit --json lists the regime."""
    run = DATA / "kernel-runs" / "mpich-default-narrow-regime.jsonl"
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = cli(capsys, "fit", run)
    assert code == 0, err
    rows = {line.split()[0] + " " + line.split()[1]: line for line in out.splitlines() if line.startswith((" 8113 B", " 8189 B"))}
    assert set(rows) == {"8113 B", "8189 B"} and all("REGIME" in r and "SPIKE" not in r and "DIP" not in r
                                                     for r in rows.values())
    code, out, err = cli(capsys, "fit", run, "--json")
    assert code == 0, err
    found = json.loads(out)
    text = json.dumps(found)
    assert '"narrow_regimes": [{"lower_bytes": 8112, "upper_bytes": 8191, "sizes_bytes": [8113, 8189]}]' in text


def test_show_detail_gives_every_warning_and_switch_instead_of_pointing_to_itself():
    """A tester's --detail printed "! and 2 more warnings: msgperf show RUN --detail"."""
    from msgperf.analysis.answer import Warning
    from msgperf.analysis.result import analyze
    from msgperf.present.answer_text import answer_lines
    from msgperf.records.runfile_read import read_run

    result = analyze(read_run(RECORDED[0]).run)
    many = tuple(Warning(f"kind{i}", f"warning number {i}", "fix") for i in range(20))
    result = replace(result, answer=replace(result.answer, warnings=many))
    cut = answer_lines(result)
    assert any("more warnings: msgperf show RUN --detail" in line for line in cut)
    whole = answer_lines(result, whole=True)
    assert not any("msgperf show RUN --detail" in line for line in whole)
    assert sum("! warning number" in line for line in whole) == 20
