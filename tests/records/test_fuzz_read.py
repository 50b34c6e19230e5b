"""Hostile run files: the only allowed outcomes are a parsed run or a clean RecordError."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from msgperf.records.format import RecordError
from msgperf.records.runfile_read import parse_run_text

from .test_read import good_text

GOOD = good_text()


def parse_or_clean_error(text: str) -> None:
    try:
        result = parse_run_text(text, "fuzz")
    except RecordError as exc:
        message = str(exc)
        assert message.startswith("fuzz") and "\n" not in message
        return
    assert result.run.info.plan.patterns is not None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_arbitrary_text(text):
    parse_or_clean_error(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(GOOD) - 1), st.integers(0, 40), st.text(max_size=8)), max_size=4))
def test_mutated_valid_files(edits):
    text = GOOD
    for at, cut, insert in edits:
        at = min(at, len(text))
        text = text[:at] + insert + text[at + cut:]
    parse_or_clean_error(text)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children,
                                                                                        max_size=4),
                    max_leaves=12))
def test_wrong_types_in_every_field(value):
    """Replace each field of each record by an arbitrary JSON value."""
    import json
    lines = [json.loads(l) for l in GOOD.splitlines()]
    for i, record in enumerate(lines):
        for key in record:
            if key == "type":
                continue
            broken = [dict(r) for r in lines]
            broken[i][key] = value
            parse_or_clean_error("".join(json.dumps(r) + "\n" for r in broken))


def test_deeply_nested_json_is_a_clean_error():
    parse_or_clean_error("[" * 100000 + "]" * 100000 + "\n")


# ---- values that used to crash the commands after the reader (issue 17, item 10) -------------

import json as _json  # noqa: E402
import random  # noqa: E402

import pytest  # noqa: E402

from .fuzz_commands import command_lines, drive, run_one  # noqa: E402


def _edited(edit) -> str:
    records = [_json.loads(l) for l in GOOD.splitlines()]
    edit(records)
    return "".join(_json.dumps(r) + "\n" for r in records)


def _set(line: int, field: str, value):
    return lambda records: records[line].__setitem__(field, value)


BOUNDARY_CASES = {
    # case: (the file's text, the line named, a fragment of the one-line error)
    "integer >= 2^63": (_edited(_set(2, "bytes", 2 ** 63)), 3, "field 'bytes' is 9223372036854775808, beyond the 64-bit range"),
    "first_s 1e400": (GOOD.replace('"first_s": 0.001', '"first_s": 1e400', 1), 3, "field 'first_s' is not a finite number (inf)"),
    "k of 10^30": (_edited(_set(2, "k", 10 ** 30)), 3, "field 'k' is an integer of 31 digits, beyond the 64-bit range"),
    "k of 2^60": (_edited(_set(2, "k", 2 ** 60)), 3, "field 'k' is 1152921504606846976; it must be from 1 to 9007199254740992"),
    "divisor of 10^15": (_edited(_set(2, "divisor", 10 ** 15)), 3, "at least 1e-15 s per message"),
    "lone surrogate": (_edited(lambda r: r[1]["ranks"][0].__setitem__("host", "a\ud800b")), 2,
                       "field 'ranks[0].host' holds a lone UTF-16 surrogate (\\ud800 at character 1)"),
    "surrogate in a key": (_edited(lambda r: r[2].__setitem__("x\udc00", 1)), 3, "holds a lone UTF-16 surrogate"),
    "negative first_s": (_edited(_set(2, "first_s", -2.5)), 3, "field 'first_s' is -2.5; it must be within (0, 1e+06]"),
    "over-long string": (_edited(lambda r: r[0].__setitem__("command_line", "x" * 70000)), 1,
                         "field 'command_line' is 70,000 characters long; msgperf reads strings of at most 65,536"),
    "huge sample": (_edited(_set(3, "samples_s", [1.0, 2e7])), 4, "sample 1 is 20000000.0 s"),
    "infinite extra field": (GOOD.replace('"stop_reason"', '"x": [1, -1e999], "stop_reason"', 1), 3,
                             "field 'x[1]' is not a finite number (-inf)"),
    "elapsed_s negative": (_edited(_set(2, "elapsed_s", -1.0)), 3, "field 'elapsed_s' is -1.0"),
    "rank 2^40": (_edited(_set(2, "ranks", [0, 2 ** 40])), 3, "field 'ranks' must be a list of rank numbers"),
    "nesting 40 deep": (_edited(_set(2, "deep", _json.loads("[" * 40 + "]" * 40))), 3, "nested more than 32 levels"),
}


@pytest.mark.parametrize("case", sorted(BOUNDARY_CASES))
def test_the_reader_refuses_values_later_commands_cannot_handle(case):
    text, line, fragment = BOUNDARY_CASES[case]
    with pytest.raises(RecordError) as err:
        parse_run_text(text, "fuzz")
    message = str(err.value)
    assert message.startswith(f"fuzz, line {line}: ") and "\n" not in message
    assert fragment in message


@pytest.mark.parametrize("case", ["integer >= 2^63", "first_s 1e400", "lone surrogate", "negative first_s"])
def test_every_command_refuses_them_in_one_line(case, tmp_path, monkeypatch):
    """The cases of the issue, through show, fit, export, report and import: each says so in one
    line naming the file and line (import used to raise OverflowError, export ValueError)."""
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    text, line, fragment = BOUNDARY_CASES[case]
    path = tmp_path / "run.jsonl"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    outcomes = drive(path, tmp_path)
    assert {o.command for o in outcomes} == set(command_lines(path, tmp_path))
    for o in outcomes:
        assert o.status == "clean error", o
        assert o.detail.startswith(f"error: {path}, line {line}: ") and fragment[:40] in o.detail, o


def test_a_fixed_sample_of_mutated_files_through_every_command(tmp_path, monkeypatch):
    """A small fixed-seed sample of what bench/fuzz_readers.py --commands runs by the thousand."""
    monkeypatch.setenv("MSGPERF_CACHE", str(tmp_path / "cache"))
    import bench.fuzz_readers as fuzz
    rng = random.Random(17)
    targets = fuzz.seeds(rich=True)
    statuses = []
    for i in range(24):
        seed_text, _, tool = targets[i % len(targets)]
        path = tmp_path / f"input-{i}{'.txt' if tool else '.jsonl'}"
        path.write_text(fuzz.mutate(seed_text, rng, fields=0.5), encoding="utf-8", errors="surrogatepass")
        only = None if i in (0, 2) else ("show", "fit", "export csv", "import")
        for o in drive(path, tmp_path, tool, only):
            assert o.status in ("ok", "clean error"), (i, o)
            statuses.append(o.status)
    assert "ok" in statuses and "clean error" in statuses  # both paths were exercised


def test_run_one_reports_a_traceback_and_a_hang(monkeypatch):
    """The harness itself can fail: an exception escaping a command, and a command that sleeps."""
    import msgperf.cli

    def boom(args):
        raise ZeroDivisionError("x")
    monkeypatch.setattr(msgperf.cli, "main", boom)
    assert run_one("show", ["show", "x"]).status == "FAILURE"

    def sleepy(args):
        import time
        time.sleep(5)
    monkeypatch.setattr(msgperf.cli, "main", sleepy)
    assert run_one("show", ["show", "x"], hang_s=0.05).status == "HANG"  # 0.3 s wall: the hard stop


def _every_family_records():
    import bench.fuzz_readers as fuzz
    return [_json.loads(l) for l in fuzz.small_every_family().splitlines()]


@pytest.mark.parametrize("value", ["x", -1, None, 1e300, {"a": 1}])
def test_pattern_specific_fields_of_the_wrong_type_name_the_field(value):
    """The fields the analysis reads from `extra` (pairs, pair_median_s, k_messages, loggp's n,
    ...) are checked at the reader: before, a string in `pair_median_s` or n = 1e300 reached the
    analysis (ValueError, TypeError, LinAlgError in show and fit)."""
    from msgperf.records.format import EXTRA_FIELDS
    records = _every_family_records()
    present = {k for r in records if r["type"] == "measurement" for k in r} & set(EXTRA_FIELDS)
    assert {"pairs", "pair_median_s", "k_messages", "n", "active_pairs", "eager"} <= present
    for name in sorted(present):
        broken = [dict(r, **{name: value}) if name in r else r for r in records]
        text = "".join(_json.dumps(r) + "\n" for r in broken)
        if EXTRA_FIELDS[name][0](value):
            continue  # a legal value for this field (None for an eager limit)
        with pytest.raises(RecordError, match=f"field '{name}' must be "):
            parse_run_text(text, "fuzz")


def test_pairs_and_their_times_must_agree():
    records = _every_family_records()
    broken = [dict(r, pair_median_s=r["pair_median_s"][:-1] or [1e-6, 1e-6]) if "pair_median_s" in r else r
              for r in records]
    with pytest.raises(RecordError, match="'pairs' lists .* pairs but 'pair_median_s' .* times"):
        parse_run_text("".join(_json.dumps(r) + "\n" for r in broken), "fuzz")


def test_wrong_pattern_fields_through_show_and_fit(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    records = _every_family_records()
    for name, value in (("pair_median_s", "x"), ("n", 1e300), ("k_messages", {"a": 1}), ("pairs", -1)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(_json.dumps(dict(r, **{name: value}) if name in r else r) + "\n" for r in records))
        for o in drive(path, tmp_path, None, ("show", "fit")):
            assert o.status == "clean error" and f"field '{name}' must be" in o.detail, o


def test_a_long_note_stays_one_line_through_show_and_fit(tmp_path, monkeypatch):
    """Found by bench/fuzz_readers.py --commands: the note about a cut-off last line quotes it, and
    a note longer than the console was wrapped onto a second line (fit then failed the one-line
    rule). A note is printed whole; the terminal wraps it, not msgperf."""
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    path = tmp_path / "osu.txt"
    path.write_text("# OSU MPI Latency Test v7.4\n# Size       Avg Latency(us)\n1    1.66\n"
                    "2" + " " * 30 + "t" + " " * 30 + "1.37" + " " * 30 + "1.35" + " " * 30 + "1.5")
    outcomes = {o.command: o for o in drive(path, tmp_path, "osu", ("show", "fit"))}
    assert outcomes["fit"].status == "clean error", outcomes["fit"]
    assert "needs at least two sizes" in outcomes["fit"].detail
    from click.testing import CliRunner
    from msgperf import cli
    result = CliRunner().invoke(cli.group, ["show", str(path)])
    notes = [line for line in result.stderr.splitlines() if "cut off while printing" in line]
    assert len(notes) == 1 and notes[0].startswith("note: line 4: ") and notes[0].endswith("is left out")
    assert all(line.startswith(("note:", "error:")) for line in result.stderr.splitlines())


# ---- the fuzzer's parallel harness (bench/fuzz_readers.py) ------------------------------------

def _fuzz(capsys, *argv):
    import bench.fuzz_readers as fuzz
    status = fuzz.main(list(argv))
    return status, capsys.readouterr().out


def test_the_inputs_do_not_depend_on_the_number_of_workers(capsys):
    """Input i has its own generator: one worker or three read the same inputs, same outcomes."""
    one = _fuzz(capsys, "--inputs", "400", "--seed", "5", "--workers", "1")
    three = _fuzz(capsys, "--inputs", "400", "--seed", "5", "--workers", "3")
    assert one[0] == three[0] == 0
    counts = [next(line for line in out.splitlines() if "inputs over" in line).split(": ", 1)[1]
              for _, out in (one, three)]
    assert counts[0] == counts[1] and counts[0].endswith("FAILURE 0"), counts
    assert "400 inputs over 16 seed files" in one[1] and "3 workers" in three[1]
    # every input was run, whatever the number of workers: the summary says up to which
    assert all("inputs 0 to 399 of seed 5 all run" in out for _, out in (one, three))


def test_a_run_in_parts_says_where_the_next_part_starts(capsys):
    status, out = _fuzz(capsys, "--inputs", "100", "--first", "60", "--seed", "5", "--workers", "2")
    assert status == 0 and "40 inputs over" in out and "inputs 60 to 99 of seed 5 all run" in out


def test_two_workers_through_every_command(capsys, monkeypatch):
    monkeypatch.setenv("MSGPERF_NO_CACHE", "")
    status, out = _fuzz(capsys, "--commands", "--inputs", "26", "--seed", "3", "--workers", "2",
                        "--report-every", "2", "--refused-every", "13")
    assert status == 0, out
    assert "26 inputs over 18 seed files" in out and "2 workers" in out
    lines = {line.split(":")[0].strip(): line for line in out.splitlines() if line.startswith("  ")}
    import bench.fuzz_readers as fuzz
    for name in fuzz.COMMANDS:
        assert "FAILURE 0, HANG 0" in lines[name], out
    assert "ok 0" not in lines["show"] and "clean error 0" not in lines["show"]  # both paths ran
    import re
    ran = re.search(r"report ran on (\d+) inputs: (\d+) of the (\d+) accepted", out)
    assert ran and int(ran[1]) >= 1 and int(ran[2]) <= int(ran[3]), out
    assert sum(int(n) for n in re.findall(r"(?:ok|clean error) (\d+)", lines["report"])) == int(ran[1])


def test_a_traceback_in_a_worker_fails_the_run(capsys, monkeypatch):
    import msgperf.cli

    def boom(args):
        raise ZeroDivisionError("x")
    monkeypatch.setattr(msgperf.cli, "main", boom)  # the forked workers inherit it
    status, out = _fuzz(capsys, "--commands", "--inputs", "4", "--workers", "2", "--refused-every", "1",
                        "--report-every", "1")
    assert status == 1
    assert "ZeroDivisionError" in out and "  show: ok 0, clean error 0, FAILURE 4, HANG 0" in out


def test_a_worker_stuck_where_the_alarm_cannot_reach_is_killed(capsys, monkeypatch):
    """A command blocked with the alarm signal masked (as C code holding it would be) is past its
    own hard stop: the parent kills the worker and counts a hang."""
    import signal
    import time
    import msgperf.cli

    def stuck(args):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(60)
    monkeypatch.setattr(msgperf.cli, "main", stuck)
    start = time.monotonic()
    status, out = _fuzz(capsys, "--commands", "--inputs", "2", "--workers", "2", "--refused-every", "1",
                        "--hang-s", "0.05", "--kill-after", "1")
    assert status == 1 and time.monotonic() - start < 30
    assert out.count("HANG: still running after") == 2 and "worker 0 killed" in out and "worker 1 killed" in out
    assert "  show: ok 0, clean error 0, FAILURE 0, HANG 2" in out  # one per worker, input 0 and input 1


def test_a_report_with_a_broken_figure_is_a_failure(tmp_path):
    """The fuzzer's check on reports: each figure parses as XML, or the report counts as a failure."""
    import base64

    from tests.records.fuzz_commands import figures_broken

    good = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg"><text>a &amp; b</text></svg>').decode()
    bad = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg"><text>a & b</text></svg>').decode()
    page = tmp_path / "r.html"
    page.write_text(f'<img class="plot" src="data:image/svg+xml;base64,{good}">')
    assert figures_broken(page) == ""
    page.write_text(f'<img src="data:image/svg+xml;base64,{good}"><img src="data:image/svg+xml;base64,{bad}">')
    assert figures_broken(page).startswith("figure 2 of the report is not well-formed SVG")
