"""The importers and the two-column sample files apply the run file's limits (records/limits.py)
to what they build, once, so no later command meets a value a run file could not hold."""

import os
import subprocess
import sys

import pytest

from msgperf.records.importers import parse_foreign
from msgperf.records.importers.text import ForeignFormatError
from msgperf.records.limits import MAX_SIZES
from msgperf.records.samples_text import SamplesTextError, parse_samples_text

OSU = "# OSU MPI Latency Test v7.4\n# Size       Avg Latency(us)\n1    1.66\n{size}    {latency}\n"


@pytest.mark.parametrize("size, latency, fragment", [
    ("99999999999999999", "1.5", "line 4: message size 99999999999999999 B is beyond 2^53 B"),
    ("8", "1e-20", "line 4: time per message 1e-26 s is outside [1e-15, 1e+06] s; not a measurement"),
    ("8", "1e15", "line 4: time per message 1000000000.0 s is outside [1e-15, 1e+06] s"),
])
def test_osu_values_beyond_the_limits_name_the_line(size, latency, fragment):
    with pytest.raises(ForeignFormatError) as err:
        parse_foreign("osu", OSU.format(size=size, latency=latency), "osu.txt")
    assert str(err.value).startswith("osu.txt, line 4: ") and fragment in str(err.value)


@pytest.mark.parametrize("line, fragment", [
    ("1e30 1e-6", "line 2: the size 1e30 is beyond 2^53 bytes; not a message size"),
    ("8 1e-20", "line 2: the time 1e-20 s is outside [1e-15, 1e+06] s"),
    ("8 2e6", "line 2: the time 2e6 s is outside [1e-15, 1e+06] s"),
])
def test_sample_files_beyond_the_limits_name_the_line(line, fragment):
    with pytest.raises(SamplesTextError) as err:
        parse_samples_text(f"0 1e-6\n{line}\n", "s.txt")
    assert str(err.value).startswith("s.txt, line 2: ") and fragment in str(err.value)


def _osu_sweep(count: int) -> str:
    rows = "".join(f"{s}    {1.0 + s / 1e4:.2f}\n" for s in range(1, count + 1))
    return "# OSU MPI Latency Test v7.4\n# Size       Avg Latency(us)\n" + rows


def test_more_sizes_per_pattern_than_a_run_may_plan_are_refused_at_their_line():
    assert len(parse_foreign("osu", _osu_sweep(MAX_SIZES), "osu.txt").run.measurements) == MAX_SIZES
    with pytest.raises(ForeignFormatError) as err:
        parse_foreign("osu", _osu_sweep(MAX_SIZES + 1), "osu.txt")
    assert str(err.value).startswith(f"osu.txt, line {MAX_SIZES + 3}: more than 4,096 message sizes of osu-latency")
    with pytest.raises(SamplesTextError, match=r"s.txt, line 4097: more than 4,096 distinct message sizes"):
        parse_samples_text("".join(f"{s} 1e-6\n" for s in range(MAX_SIZES + 1)), "s.txt")


def test_show_of_an_osu_output_with_100000_sizes_answers_in_bounded_memory(tmp_path):
    # The piecewise search over every size once asked for a 100,000 x 100,000 array (a
    # traceback); now the import refuses the output, in one line, within 2 GiB and seconds.
    path = tmp_path / "osu.txt"
    path.write_text(_osu_sweep(100_000))
    limit = 2 << 30
    code = (f"import resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit})); "
            f"from msgperf.cli import main; main(['show', {str(path)!r}])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "MSGPERF_NO_CACHE": "1", "OPENBLAS_NUM_THREADS": "1"})
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "line 4099: more than 4,096 message sizes of osu-latency" in done.stderr
