"""Drive every command that comes after the reader (show, show --json, fit, export csv/json/run,
report, import) on one input, in-process (click's CliRunner around ``msgperf.cli.main``), and
classify what happened: the only acceptable outcomes are success or a clean one-line
``error: ...`` with exit status 1 (or 3, fit's "not modelled" family); a traceback, any other
exception, a multi-line error or a call that takes more than ``HANG_S`` seconds of CPU (or
``WALL_FACTOR`` times that of wall time) is a failure.

Used by tests/records/test_fuzz_read.py (a small fixed-seed sample) and bench/fuzz_readers.py
(as many mutated inputs as time allows)."""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass
from pathlib import Path

import click
from click.testing import CliRunner

from msgperf import cli

HANG_S = 10.0  # CPU seconds of one command (the machine may be shared: wall time is not the program's)
WALL_FACTOR = 6  # ... and a hard stop at 6 x HANG_S of wall time (a command blocked, not computing)


class Hang(Exception):
    """Raised by the alarm when one command runs longer than HANG_S."""


@click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def _msgperf(args: tuple[str, ...]) -> None:
    cli.main(list(args))


def command_lines(path: Path, work: Path, foreign: str | None = None) -> dict[str, list[str]]:
    """name -> argv of every command that reads ``path`` (``foreign``: a peer tool for import)."""
    f = str(path)
    lines = {
        "show": ["show", f],
        "show --json": ["show", "--json", f],
        "fit": ["fit", f],
        "export csv": ["export", f, "--format", "csv"],
        "export json": ["export", f, "--format", "json"],
        "export run": ["export", f, "--format", "run"],
        "report": ["report", f, "-o", str(work / "report.html")],
        "import": ["import", "--db", str(work / "fuzz.db"), f] + (["--from", foreign] if foreign else []),
    }
    return lines


@dataclass(frozen=True)
class Outcome:
    command: str
    status: str  # "ok", "clean error", "FAILURE", "HANG"
    detail: str = ""
    seconds: float = 0.0  # wall time
    cpu_s: float = 0.0  # CPU time of this process


def _alarm(signum, frame):  # noqa: ARG001
    raise Hang()


def run_one(name: str, argv: list[str], hang_s: float = HANG_S) -> Outcome:
    runner = CliRunner()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, hang_s * WALL_FACTOR)
    start, cpu = time.perf_counter(), time.process_time()
    try:
        result = runner.invoke(_msgperf, argv, catch_exceptions=True)
    except Hang:
        result = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    if result is None or isinstance(result.exception, Hang) or cpu > hang_s:
        return Outcome(name, "HANG", f"{cpu:.1f} s CPU, {seconds:.1f} s wall: msgperf {' '.join(argv)}",
                       seconds, cpu)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback  # noqa: PLC0415
        tb = "".join(traceback.format_exception(*result.exc_info)[-3:])
        return Outcome(name, "FAILURE", f"{type(result.exception).__name__}: {tb}", seconds, cpu)
    if result.exit_code == 0:
        return Outcome(name, "ok", "", seconds, cpu)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    others = [line for line in result.stderr.splitlines() if not line.startswith(("error:", "note:"))]
    if result.exit_code in (1, 3) and errors and not others:
        # import reports one line per failed file and a last summary line; every one is clean
        return Outcome(name, "clean error", errors[0][:1000], seconds, cpu)
    return Outcome(name, "FAILURE", f"exit {result.exit_code}, stderr {result.stderr[-500:]!r}", seconds, cpu)


def figures_broken(report: Path) -> str:
    """Why a figure of the report at ``report`` is not a well-formed SVG document ("" when every one
    is): a browser shows a broken image where a value from the file broke the markup."""
    import base64  # noqa: PLC0415
    import re  # noqa: PLC0415
    import xml.etree.ElementTree as ET  # noqa: PLC0415

    for n, data in enumerate(re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', report.read_text())):
        try:
            ET.fromstring(base64.b64decode(data))
        except ET.ParseError as exc:
            return f"figure {n + 1} of the report is not well-formed SVG: {exc}"
    return ""


def drive(path: Path, work: Path, foreign: str | None = None,
          only: tuple[str, ...] | None = None, hang_s: float = HANG_S) -> list[Outcome]:
    """Every command on ``path``; ``only`` restricts them by name. A report written must also hold
    well-formed figures."""
    outcomes = []
    for name, argv in command_lines(path, work, foreign).items():
        if only is not None and name not in only:
            continue
        outcome = run_one(name, argv, hang_s)
        if name == "report" and outcome.status == "ok" and (broken := figures_broken(work / "report.html")):
            outcome = Outcome(name, "FAILURE", broken, outcome.seconds, outcome.cpu_s)
        outcomes.append(outcome)
    return outcomes
