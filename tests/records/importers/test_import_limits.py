"""The importers and the two-column sample files apply the run file's limits (records/limits.py)
to what they build, once, so no later command meets a value a run file could not hold."""

import pytest

from msgperf.records.importers import parse_foreign
from msgperf.records.importers.text import ForeignFormatError
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
