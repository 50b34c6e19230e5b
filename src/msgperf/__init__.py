"""msgperf: measure, model and explain message-passing performance."""

__version__ = "0.1.0"

from msgperf.errors import MsgperfError
from msgperf.records.format import Launch, Measurement, Plan, Run, RunInfo
from msgperf.records.runfile_read import read_run

__all__ = ["__version__", "MsgperfError", "Launch", "Measurement", "Plan", "Run", "RunInfo",
           "read_run"]
