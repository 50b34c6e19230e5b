"""The launch_host record from two snapshots of the launching node: steal and other work over the
launch computed from /proc/stat-like figures, the record read back by the run-file reader."""

from __future__ import annotations

import json

import pytest

from msgperf.launch.host_load import Snapshot, launch_host_record, snapshot
from msgperf.records.format import RecordError, encode_launch, encode_run
from msgperf.records.runfile_read import parse_run_text
from tests.factories import launch, make_run, measurement


def snap(t, busy, idle, steal, own, load=1.0):
    return Snapshot(monotonic_s=t, load=(load, 0.5, 0.25), runnable=3,
                    cpu_s={"busy": busy, "idle": idle, "steal": steal, "total": busy + idle + steal}, own_cpu_s=own)


def test_other_work_is_busy_time_minus_msgperf_and_its_launch():
    # 2 s on 2 cores = 4 CPU-seconds: 3.5 busy, of which the launch used 2.0: others 1.5 s = 0.75 cores.
    before, after = snap(10.0, 100.0, 50.0, 1.0, 5.0, 0.8), snap(12.0, 103.5, 50.3, 1.2, 7.0, 1.9)
    record = launch_host_record(4, before, after, {"MPIR_CVAR_POLLS_BEFORE_YIELD": "1"})
    assert record["type"] == "launch_host" and record["launch"] == 4
    assert record["interval_s"] == pytest.approx(2.0)
    assert record["other_cores"] == pytest.approx(0.75)
    assert record["steal_fraction"] == pytest.approx(0.2 / 4.0)
    assert record["before"]["load_1m"] == 0.8 and record["after"]["load_1m"] == 1.9
    assert record["progress"] == {"MPIR_CVAR_POLLS_BEFORE_YIELD": "1"}
    assert record["usable_cores"] >= 1


def test_without_proc_figures_are_none_not_zero(tmp_path):
    s = snapshot(proc=tmp_path)  # no loadavg, no stat
    assert s.load is None and s.cpu_s is None
    record = launch_host_record(0, s, s, {})
    assert record["other_cores"] is None and record["steal_fraction"] is None and record["before"] is None


def _text(*records):
    return "".join(json.dumps(r) + "\n" for r in records)


def test_the_reader_attaches_launch_host_to_its_launch_and_rejects_a_stray_one():
    run = make_run([measurement("pingpong", 0, [1e-6] * 10)])
    record = launch_host_record(0, snap(0, 1, 1, 0, 0), snap(1, 1.5, 1.5, 0, 0.2), {})
    text = _text(encode_run(run.info), encode_launch(launch(0)), record)
    host = parse_run_text(text).run.launches[0].host
    assert host is not None and host.other_cores == pytest.approx(0.3) and host.usable_cores == record["usable_cores"]
    with pytest.raises(RecordError, match="launch_host' for launch 7, which never started"):
        parse_run_text(_text(encode_run(run.info), encode_launch(launch(0)), {**record, "launch": 7}))
    with pytest.raises(RecordError, match="field 'other_cores' must be a number, got str"):
        parse_run_text(_text(encode_run(run.info), encode_launch(launch(0)), {**record, "other_cores": "x"}))
