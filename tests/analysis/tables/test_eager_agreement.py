"""The eager probe's records must agree (analysis/tables/eager.py ``disagreement``): every record of one probe
(each size, each launch) carries the limit its bisection found, and each record's eager yes/no must
agree with its own limit. On a loaded machine Open MPI's probe gave 1023, 2091 or 4040 B across the
records of one run, one saying "1 KiB: eager yes" beside its own limit of 1023 B, and show printed
one of them. Disagreeing records make the limit "cannot tell (...)" in the answer, the tables, the
report, summary and --json, and no switch is labelled from it."""

from __future__ import annotations

import json
from pathlib import Path

from msgperf.analysis.result import analyze
from msgperf.present.pattern_tables import eager as eager_table
from msgperf.records.runfile_read import read_run
from tests.factories import write_run
from tests.factories import replace

RUN = Path(__file__).parents[2] / "data" / "curves" / "mpich-default-1K-1M.jsonl"  # the probe: 8112 B


def _edited(run, size: int, **fields):
    ms = tuple(replace(m, extra={**m.extra, **fields})
               if (m.pattern, m.bytes) == ("eager-probe", size) else m for m in run.measurements)
    return replace(run, measurements=ms)


def _disagreeing():
    # one record's bisection found 2091 B, the others 8112 B
    return _edited(read_run(RUN).run, 2048, eager_limit_bytes=2091, eager_limit_low_bytes=2091,
                   eager_limit_high_bytes=2092)


def test_records_that_disagree_on_the_limit_make_it_cannot_tell_and_label_nothing():
    result = analyze(_disagreeing())
    e = result.answer.eager_limit
    assert e.value is None and e.low is None and e.why_not == "the probe's records disagree: 2091 B, 8112 B"
    assert result.eager.disagreement == e.why_not and not result.eager.agreed
    assert result.answer.eager_step is None
    labels = [l.text for s in result.series for l in s.labels]
    assert labels and not any("eager-probe" in t for t in labels)
    assert all("eager-probe" not in s.evidence for s in result.answer.switches)
    assert result.saphir[0].eager_limit_bytes is None and "2091 B, 8112 B" in result.saphir[0].eager_limit_why_not
    assert all(r.regime == "" for p in result.variant_pairs for r in p.rows)
    assert "cannot tell (the probe's records disagree: 2091 B, 8112 B)" in eager_table(result).note


def test_a_record_whose_eager_yes_contradicts_its_own_limit_is_cannot_tell():
    # the 1 KiB record says eager yes beside its own limit of 1023 B (the other records say 1023 B too)
    run = read_run(RUN).run
    for m in run.measurements:
        if m.pattern == "eager-probe":
            run = _edited(run, m.bytes, eager_limit_bytes=1023, eager_limit_low_bytes=1023, eager_limit_high_bytes=1024,
                          eager=m.bytes <= 1023 or m.bytes == 1024)
    result = analyze(run)
    assert result.answer.eager_limit.why_not == "1024 B: eager yes beside its own limit of 1023 B"


def test_records_that_agree_keep_the_limit_and_its_label():
    result = analyze(read_run(RUN).run)
    assert result.eager.agreed and result.answer.eager_limit.value == 8112
    assert any(l.text == "eager → rendezvous (eager-probe: 8112 B)" for s in result.series for l in s.labels)
    assert result.saphir[0].eager_limit_bytes == 8112 and result.saphir[0].eager_limit_why_not == ""


def test_every_output_says_cannot_tell_for_a_disagreeing_probe(msgperf, tmp_path):
    path = write_run(_disagreeing(), tmp_path / "probe.jsonl")
    shown = msgperf("show", path)
    assert shown.returncode == 0, shown.stderr
    assert "cannot tell: the probe's records disagree: 2091 B, 8112 B" in shown.stdout
    assert "8112 B (eager-probe" not in shown.stdout
    as_json = json.loads(msgperf("show", "--json", path).stdout)
    assert as_json["answer"]["eager_limit"]["value"] is None
    assert as_json["answer"]["eager_limit"]["why_not"] == "the probe's records disagree: 2091 B, 8112 B"
    summary = msgperf("summary", path)
    assert "eager limit cannot tell (the probe's records disagree: 2091 B, 8112 B)" in summary.stdout
    summary_json = json.loads(msgperf("summary", "--json", path).stdout)
    row = summary_json[0] if isinstance(summary_json, list) else summary_json["rows"][0]
    assert row["eager_limit_bytes"] is None and "2091 B, 8112 B" in row["eager_limit_why_not"]
    report = tmp_path / "r.html"
    made = msgperf("report", path, "-o", report)
    assert made.returncode == 0, made.stderr
    assert "cannot tell (the probe&#39;s records disagree: 2091 B, 8112 B)" in report.read_text()  # escaped
