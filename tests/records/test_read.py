import json

import msgspec
import numpy as np
import pytest

from msgperf.records.format import (ClockSelfTest, Launch, Measurement, Plan, RankPlacement, RecordError,
                                    RunInfo, encode_launch, encode_launch_end, encode_measurement,
                                    encode_run)
from msgperf.records.runfile_read import parse_run_text, read_run
from tests.factories import replace

PLAN = Plan(patterns=("pingpong",), sizes=(0, 8), buffer="separate", pair=(0, 1), nranks=2,
            precision=0.01, time_budget_s=1.0, min_samples=20, max_samples=1000)
INFO = RunInfo(format_version=1, msgperf_version="0.1.0", command_line="msgperf run", start_time="t", plan=PLAN)
LAUNCH = Launch(index=0, mpi_library="MPICH", mpi_version="4.1", nranks=2,
                ranks=(RankPlacement(0, "a", 0, 0), RankPlacement(1, "a", 1, 0)), pair=(0, 1),
                pair_shares_node=True, clock=ClockSelfTest("c", 1e-9, 2e-8, True, 1e-9, 1e-9),
                environment={"MPIR_CVAR_X": "1"}, start_time="t", end_time="t2", end_cpus=(0, 1))


def measurement(size, samples=(2e-6, 2.2e-6, 2.1e-6)):
    return Measurement(pattern="pingpong", bytes=size, buffer="separate", ranks=(0, 1), k=4, divisor=8,
                       samples_s=np.array(samples), stop_reason="precision", validated=True, first_s=1e-3)


def lines(*records):
    return "".join(json.dumps(r) + "\n" for r in records)


def good_text():
    return lines(encode_run(INFO), encode_launch(LAUNCH), encode_measurement(measurement(0)),
                 encode_measurement(measurement(8)), encode_launch_end(LAUNCH))


def test_round_trip_keeps_every_value():
    run = parse_run_text(good_text()).run
    assert run.info == INFO
    assert run.launches == (LAUNCH,)
    assert [m.bytes for m in run.measurements] == [0, 8]
    m = run.measurements[1]
    np.testing.assert_array_equal(m.samples_s, [2e-6, 2.2e-6, 2.1e-6])
    np.testing.assert_allclose(m.per_message_s, np.array([2e-6, 2.2e-6, 2.1e-6]) / 8)
    assert m.first_s == 1e-3 and m.validated and run.complete and run.missing() == []


def test_truncated_last_line_is_tolerated_and_reported(tmp_path):
    text = good_text()
    cut = text[: text.rindex('{"type": "measurement"') + 40]  # the writer was killed mid-record
    result = parse_run_text(cut)
    assert result.truncated
    assert [m.bytes for m in result.run.measurements] == [0]
    assert not result.run.complete and result.run.missing() == [("pingpong", 8)]


def test_truncated_line_in_the_middle_is_corruption():
    text = good_text().split("\n")
    text[2] = text[2][:30]
    with pytest.raises(RecordError, match="line 3: not valid JSON"):
        parse_run_text("\n".join(text))


@pytest.mark.parametrize("text, fragment", [
    ("", "empty"),
    ("   \n", "empty"),
    ("hello world\n", "not a msgperf run file \\(its first line is not JSON\\)"),
    ('{"type": "measurement"}\n', "first record must be a 'run'"),
    ('[1, 2]\n', "JSON object with a 'type'"),
    ('{"format": "other"}\n', "'type'"),
])
def test_not_run_files(text, fragment):
    with pytest.raises(RecordError, match=fragment):
        parse_run_text(text)


def test_newer_format_version_is_refused_with_advice():
    run = encode_run(INFO)
    run["format_version"] = 99
    with pytest.raises(RecordError, match="newer than this msgperf reads.*upgrade"):
        parse_run_text(lines(run))


@pytest.mark.parametrize("bad", [-998128e-6, 0.0])
def test_negative_or_zero_sample_is_a_fault_naming_the_line(bad):
    m = encode_measurement(measurement(0))
    m["samples_s"][1] = bad
    with pytest.raises(RecordError, match=r"line 3: sample 1 is .* a time must be positive"):
        parse_run_text(lines(encode_run(INFO), encode_launch(LAUNCH), m))


def test_nan_in_a_run_file_is_rejected():
    text = good_text().replace("2.2e-06", "NaN")
    with pytest.raises(RecordError, match="line 3"):
        parse_run_text(text)


def test_missing_field_names_it():
    m = encode_measurement(measurement(0))
    del m["k"]
    with pytest.raises(RecordError, match="missing field 'k'"):
        parse_run_text(lines(encode_run(INFO), encode_launch(LAUNCH), m))


def test_measurement_of_an_unknown_launch():
    m = encode_measurement(measurement(0))
    m["launch"] = 3
    with pytest.raises(RecordError, match="launch 3, which never started"):
        parse_run_text(lines(encode_run(INFO), encode_launch(LAUNCH), m))


def test_read_run_file_errors(tmp_path):
    with pytest.raises(RecordError, match="no such file"):
        read_run(tmp_path / "missing.jsonl")
    with pytest.raises(RecordError, match="directory"):
        read_run(tmp_path)
    binary = tmp_path / "x.bin"
    binary.write_bytes(b"\x00\x01\x02")
    with pytest.raises(RecordError, match="binary"):
        read_run(binary)
    good = tmp_path / "good.jsonl"
    good.write_text(good_text())
    assert read_run(good).run.path == str(good)


def test_plan_placement_defaults_to_pair_and_is_checked():
    run = encode_run(INFO)
    del run["plan"]["placement"]
    assert parse_run_text(lines(run)).run.info.plan.placement == "pair"
    run["plan"]["placement"] = "inter"
    assert parse_run_text(lines(run)).run.info.plan.placement == "inter"
    run["plan"]["placement"] = "sideways"
    with pytest.raises(RecordError, match="plan.placement"):
        parse_run_text(lines(run))


# ---- the machine: host_facts and mpi_t_cvars of the launch record (optional fields) -----------

def _with_launch(**fields):
    launch = {**encode_launch(LAUNCH), **fields}
    return lines(encode_run(INFO), launch, encode_measurement(measurement(0)), encode_launch_end(LAUNCH))


def test_machine_facts_round_trip_and_older_files_read_without_them():
    from tests.factories import host_facts

    facts = (host_facts("a", physical_cores=None, governor="unknown"),)
    launch = replace(LAUNCH, host_facts=facts, mpi_t_cvars={"btl_sm_eager_limit": 4096, "x": "y", "d": 0.5})
    run = parse_run_text(lines(encode_run(INFO), encode_launch(launch), encode_launch_end(launch))).run
    assert run.launches == (launch,)
    assert '"physical_cores": null' in json.dumps(encode_launch(launch))  # unknown stays unknown
    old = parse_run_text(good_text()).run.launches[0]
    assert old.host_facts == () and old.mpi_t_cvars is None
    assert "host_facts" not in encode_launch(old) and "mpi_t_cvars" not in encode_launch(old)


@pytest.mark.parametrize("fields, message", [
    ({"host_facts": {"host": "a"}}, "'host_facts' must be a list of objects"),
    ({"host_facts": [{"host": "a"}]}, "missing field 'host_facts.0..cpu_model'"),
    ({"mpi_t_cvars": {"x": [1]}}, "'mpi_t_cvars' must map names to numbers or strings"),
    ({"mpi_t_cvars": {"x": True}}, "'mpi_t_cvars' must map names to numbers or strings"),
])
def test_malformed_machine_facts_are_refused(fields, message):
    with pytest.raises(RecordError, match=message):
        parse_run_text(_with_launch(**fields))


def test_a_negative_or_unknown_smt_fact_is_refused():
    from tests.factories import host_facts

    good = msgspec.structs.asdict(host_facts())
    for bad in ({**good, "physical_cores": -1}, {**good, "smt": "maybe"}):
        with pytest.raises(RecordError, match="host_facts"):
            parse_run_text(_with_launch(host_facts=[bad]))
