"""Samples kept on disk while a large run is analysed, so that memory holds one measurement's
samples at a time instead of the whole file's (issue: a 200 MB run file must show in bounded
memory).

``SampleSpill`` is an anonymous temporary file (gone when it is closed or the process ends), or
the analysis cache's copy of a large run's samples (analysis_cache.py), to
which the reader appends each measurement's samples as raw float64; a ``SpilledSamples`` names
one measurement's slice and reads it back on each use. Reading back costs one ``pread`` of
8 bytes per sample (the page cache answers; no JSON is parsed again), which is why the samples
are spilled as binary rather than re-read from the run file's text.

Why by hand: numpy's ``memmap`` would keep every page it touched resident and counted as the
process's memory; an explicit read into a short-lived array does not.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from typing import BinaryIO

import numpy as np

from msgperf.values import Value

_DTYPE = np.dtype(np.float64)

# Runs larger than this keep their samples on disk while they are analysed. A run file's JSON
# takes ~23 bytes per sample, an array 8: 32 MiB of run file is ~1.4 M samples, ~11 MiB of arrays
# (the store's measure). Smaller runs are read into memory, as fast as before.
SPILL_ABOVE_FILE_BYTES = 32 << 20
SPILL_ABOVE_SAMPLE_BYTES = 11 << 20


def spill_or_none() -> SampleSpill | None:
    """A new spill, or None where no temporary file can be made (the samples stay in memory)."""
    try:
        return SampleSpill()
    except OSError:
        return None


def spilled(m, spill: SampleSpill | None):
    """Measurement ``m`` with its samples in ``spill`` (``m`` itself without a spill). Raises
    OSError (a full disk): the caller keeps ``m`` as it is."""
    if spill is None:
        return m
    return dataclasses.replace(m, samples_s=spill.keep(m.samples_s))


class SampleSpill:
    """An append-only file of float64 samples: a temporary one, or ``file`` (open for reading, or
    for reading and writing), such as the analysis cache's copy of a large run's samples."""

    def __init__(self, file: BinaryIO | None = None) -> None:
        self._file = tempfile.TemporaryFile(prefix="msgperf-samples-") if file is None else file
        self._end = os.fstat(self._file.fileno()).st_size

    @property
    def size(self) -> int:
        """Bytes held."""
        return self._end

    def keep(self, samples: np.ndarray) -> SpilledSamples:
        """Write ``samples`` to the file; raises OSError (a full disk) with nothing kept."""
        data = memoryview(np.ascontiguousarray(samples, dtype=_DTYPE)).cast("B")
        offset = self._end
        written = 0
        while written < len(data):  # pwrite may write less than asked
            written += os.pwrite(self._file.fileno(), data[written:], offset + written)
        self._end += len(data)
        return SpilledSamples(self, offset, int(samples.size))

    def read(self, offset: int, count: int) -> np.ndarray:
        size = count * _DTYPE.itemsize
        data = os.pread(self._file.fileno(), size, offset)
        if len(data) != size:  # the file was cut under us: a fault, not a measurement
            raise OSError(f"the sample file returned {len(data)} of {size} bytes")
        return np.frombuffer(data, dtype=_DTYPE)  # read-only: nobody may change a measurement

    def __reduce__(self):
        # a spilled run is large: nothing pickles it (the analysis cache keeps its samples apart, analysis_cache.py)
        raise TypeError("samples kept in a temporary file are not pickled")


class SpilledSamples(Value, eq=False):
    """One measurement's samples in a ``SampleSpill``."""

    spill: SampleSpill
    offset: int
    count: int

    def load(self) -> np.ndarray:
        return self.spill.read(self.offset, self.count)
