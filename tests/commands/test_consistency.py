"""One run with a pattern of every family: every quantity that appears in more than one output
(show, show --json, fit --json, summary --json, summary, advise --json, advise, the HTML report)
has the same value everywhere — because each is one field of the one analysis result."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

from msgperf import units
from msgperf.analysis.result import analyze
from msgperf.cli import main
from msgperf.records.runfile_read import read_run
from tests.factories import every_family_run, write_run


def run_cli(capsys, *argv):
    code = 0
    try:
        main([str(a) for a in argv])
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _text(page: str) -> str:
    """The report's visible text (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    run = every_family_run()
    return run, write_run(run, tmp_path_factory.mktemp("every") / "every.jsonl")


def test_every_shared_quantity_is_the_same_everywhere(outputs, capsys, tmp_path):
    run, path = outputs
    result = analyze(run)
    show = run_cli(capsys, "show", path, "--detail")
    first_screen = run_cli(capsys, "show", path)
    shown = json.loads(run_cli(capsys, "show", path, "--json"))
    rows, answer = shown["rows"], shown["answer"]
    fit = json.loads(run_cli(capsys, "fit", path, "--json"))
    fit_text = run_cli(capsys, "fit", path)
    (saphir,) = json.loads(run_cli(capsys, "summary", path, "--json"))
    summary_text = run_cli(capsys, "summary", path)
    advice = json.loads(run_cli(capsys, "advise", path, "-k", "8", "-s", "1K", "--json"))
    advice_text = run_cli(capsys, "advise", path, "-k", "8", "-s", "1K")
    report = tmp_path / "r.html"
    run_cli(capsys, "report", path, "-o", report)
    page = _text(report.read_text())

    main_series = result.main.model
    ch, line = main_series.sweep.characteristics, main_series.sweep.hockney.line
    assert fit["series"] == saphir["series"] == advice["series"] == "pingpong"

    # zero-byte latency: the 0 B ping-pong median in every output
    zero = next(r for r in rows if r["pattern"] == "pingpong" and r["bytes"] == 0)["median_s"]
    assert zero == fit["zero_byte_latency_s"] == saphir["zero_byte_latency_s"] == ch.zero_byte_latency_s
    assert units.seconds(zero) in show and units.seconds(zero) in fit_text and units.seconds(zero) in page
    assert units.seconds(zero) in summary_text

    # asymptotic latency and bandwidth, peak bandwidth (Saphir's definitions): fit = summary = show = report
    assert fit["asymptotic_latency_s"] == saphir["asymptotic_latency_s"] == ch.asymptotic_latency_s
    assert fit["asymptotic_bandwidth_bytes_per_s"] == saphir["bandwidth_bytes_per_s"]
    assert fit["peak_bandwidth_bytes_per_s"] == saphir["peak_bandwidth_bytes_per_s"]
    for value in (units.seconds(ch.asymptotic_latency_s), units.rate(ch.asymptotic_bandwidth_bytes_per_s),
                  units.rate(ch.peak_bandwidth_bytes_per_s)):
        assert value in show and value in fit_text and value in page, value
    assert units.mb_per_s(saphir["bandwidth_bytes_per_s"]) in summary_text
    assert units.mb_per_s(saphir["peak_bandwidth_bytes_per_s"]) in summary_text

    # α, β, n½ of the Hockney line: fit = advise's model = summary's n½ = report
    assert fit["alpha_s"] == advice["model"]["alpha_s"] == line.alpha_s
    assert fit["beta_s_per_byte"] == advice["model"]["beta_s_per_byte"]
    assert saphir["n_half_bytes"] == pytest.approx(fit["n_half_bytes"], rel=1e-15)
    assert units.seconds(line.alpha_s) in page and units.seconds(line.alpha_s) in show
    assert units.size(fit["n_half_bytes"]) in page and units.size(fit["n_half_bytes"]) in summary_text

    # the answer block (show's default output): the same latency, bandwidths, n½ and eager limit
    assert answer["latency"]["value"] == zero and answer["latency"]["bytes"] == 0
    assert answer["peak_bandwidth"]["value"] == fit["peak_bandwidth_bytes_per_s"]
    assert answer["peak_bandwidth"]["bytes"] == fit["peak_bandwidth_size"]
    assert answer["large_bandwidth"]["value"] == fit["asymptotic_bandwidth_bytes_per_s"]
    assert answer["n_half"]["value"] == fit["n_half_bytes"]
    assert answer["eager_limit"]["value"] == saphir["eager_limit_bytes"]
    assert [[s["low_bytes"], s["high_bytes"]] for s in answer["switches"]] == fit["breakpoints_bytes"]
    for value in (units.seconds(zero), units.rate(ch.peak_bandwidth_bytes_per_s),
                  units.rate(ch.asymptotic_bandwidth_bytes_per_s), units.size(fit["n_half_bytes"]), "16000 B"):
        assert value in first_screen, value

    # eager limit: show --json's probe rows = summary = report
    eager = {r["eager_limit_bytes"] for r in rows if r["pattern"] == "eager-probe"}
    assert eager == {saphir["eager_limit_bytes"]} == {16000}
    assert "16000 B" in page and "16000 B" in summary_text and "16000 B" in show

    # copy speed b_c and the buffered bandwidth b_e: summary = report; advise uses the same b_c
    b_c, b_e = saphir["copy_speed_bytes_per_s"], saphir["effective_buffered_bandwidth_bytes_per_s"]
    memcpy_largest = max((r for r in rows if r["pattern"] == "memcpy"), key=lambda r: r["bytes"])
    assert b_c == memcpy_largest["bandwidth_bytes_per_s"]
    assert b_e == pytest.approx(b_c * saphir["bandwidth_bytes_per_s"] / (b_c + saphir["bandwidth_bytes_per_s"]),
                                rel=1e-15)
    assert units.rate(b_c) in page and units.rate(b_e) in page and units.mb_per_s(b_c) in summary_text
    assert advice["buffering"]["copy_bandwidth_bytes_per_s"] == b_c
    assert units.rate(b_c) in advice_text

    # the combine pattern at k = 8, s = 1 KiB: advise's measured times = show's combine table
    separate = next(r for r in rows if r["pattern"] == "combine" and r["variant"] == "k8-separate"
                    and r["bytes"] == 1024)["median_s"]
    combined = next(r for r in rows if r["pattern"] == "combine" and r["variant"] == "k8-combined"
                    and r["bytes"] == 1024)["median_s"]
    assert advice["measured_by_combine"] and advice["measured_apart_s"] == separate
    assert advice["measured_combined_s"] == combined
    assert units.seconds(separate) in show and units.seconds(separate) in advice_text
    assert units.ratio(separate / combined) in show and units.ratio(separate / combined) in advice_text
    # ... and its prediction in show's combine table equals advise's prediction
    assert units.seconds(advice["apart_s"]) in show and units.seconds(advice["combined_s"]) in show

    # the hardware floor: summary's ratio = report's
    assert units.ratio(saphir["floor_ratio"]) in page and units.ratio(saphir["floor_ratio"]) in summary_text


def test_every_model_heading_says_what_its_time_is(outputs, capsys):
    _, path = outputs
    show = run_cli(capsys, "show", path, "--detail")
    headings = re.findall(r"^Model of (.+?) \(launch 0\): (.+)$", show, re.M)
    words = dict(headings)
    assert words["pingpong"] == "one-way time = half a round trip"
    assert words["loggp"] == "round-trip time"  # its samples are round trips, never called one-way
    assert words["sendrecv"] == "time per iteration"
    assert words["memcpy"] == "time of one memcpy"


def test_the_copy_speed_is_one_value_when_launches_differ(capsys, tmp_path):
    """memcpy measured in three launches at different speeds: its time per size is the estimate
    across launches (the row's time), so summary's b_c and advise's b_c are the same number (advise
    once took the median of the pooled samples, another value whenever launches differ)."""
    from tests.factories import CURVE, factors, make_run, measurement

    rng = np.random.default_rng(3)
    sizes = (1 << 10, 1 << 14, 1 << 18, 1 << 20)
    ms = []
    for launch_index, (speed, n) in enumerate(((1.0, 40), (1.3, 200), (1.1, 90))):
        ms += [measurement("pingpong", s, 2 * CURVE(s) * factors(60, 0.02, rng), launch_index) for s in sizes]
        ms += [measurement("memcpy", s, speed * s / 5e9 * factors(n, 0.02, rng), launch_index, divisor=1)
               for s in sizes]
    path = write_run(make_run(ms, launches=3), tmp_path / "launches.jsonl")
    (saphir,) = json.loads(run_cli(capsys, "summary", path, "--json"))
    advice = json.loads(run_cli(capsys, "advise", path, "-k", "8", "-s", "1K", "--json"))
    row = max((r for r in analyze(read_run(path).run).rows if r.pattern == "memcpy"), key=lambda r: r.bytes)
    assert row.time_s != row.stats.median  # the launches differ: the two readings of the time differ
    assert advice["buffering"]["copy_bandwidth_bytes_per_s"] == saphir["copy_speed_bytes_per_s"]
    assert saphir["copy_speed_bytes_per_s"] == row.bytes / row.time_s
