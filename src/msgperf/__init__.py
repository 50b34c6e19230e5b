"""msgperf: measure, model and explain message-passing performance.

The run-file types and reader are imported on first use (``msgperf.Run``), not with the
package: every command imports ``msgperf``, and one that needs neither numpy nor the records
(``--help``, ``runs``, ``build``) should not pay for them."""

from msgperf.lazy import lazy_names

__version__ = "0.1.0"

from msgperf.errors import MsgperfError

_LAZY = {"Launch": "msgperf.records.format", "Measurement": "msgperf.records.format",
         "Plan": "msgperf.plan", "Run": "msgperf.records.format",
         "RunInfo": "msgperf.records.format", "read_run": "msgperf.records.runfile_read"}

__all__ = ["__version__", "MsgperfError", "Launch", "Measurement", "Plan", "Run", "RunInfo",
           "read_run"]


__getattr__ = lazy_names('msgperf', _LAZY, globals())
