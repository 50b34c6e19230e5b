"""A launcher for ``measure`` that starts no MPI: each launch runs tests/launch/fake_kernels.py,
which replays recorded kernel output into the run file at a chosen pace and ends the way the
test asks (completes, exits non-zero, hangs, dies, leaves a partial last line).

    launcher = FakeLauncher(Behaviour(after=2, then="die", partial=True), Behaviour())
    measure(request, launcher=launcher)   # launch 1 dies mid-record; a later launch completes

Behaviours are used one per launch, in order; launches beyond them complete normally.
``launcher.commands`` keeps every command line, ``launcher.kernel_args(i)`` the kernel options
of launch i, so a test can check what msgperf asked of the kernels.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAKE_KERNELS = HERE / "fake_kernels.py"
RECORDING = HERE.parent / "data" / "kernel-runs" / "pingpong-unexpected-ring.jsonl"


@dataclass(frozen=True)
class Behaviour:
    """How one launch goes. ``after``: measurement records written before it ends early (None:
    it completes; -1: before it opens the run file, as a launcher that cannot start ranks);
    ``then``: "exit" (with ``code``), "hang" (until the watchdog stops it) or "die" (SIGKILL);
    ``partial``: first write half of the next record (a killed writer's last line); ``log``:
    lines the launcher prints (they land in the launch log); ``pace_s``: delay before each
    measurement record; ``curve``: (alpha_s, seconds_per_byte, step_bytes, step_s): the recorded
    samples of each size are scaled so that its median is alpha + bytes × seconds_per_byte, plus
    step_s from step_bytes on (a switch whose place is known), keeping their relative spread; an
    optional fifth item, ((bytes, factor), ...), moves those sizes off the curve by that factor;
    ``environment``: (name, value) pairs the launch record lists as its MPI environment (a CVAR
    set by the user)."""

    after: int | None = None
    then: str = "exit"
    code: int = 1
    partial: bool = False
    log: tuple[str, ...] = ()
    pace_s: float = 0.0
    curve: tuple | None = None
    environment: tuple[tuple[str, str], ...] = ()


class FakeLauncher:
    def __init__(self, *behaviours: Behaviour, recording: Path = RECORDING, every: Behaviour | None = None) -> None:
        self.behaviours = list(behaviours)
        self.every = every or Behaviour()  # the behaviour of launches beyond ``behaviours``
        self.recording = recording
        self.commands: list[list[str]] = []

    def command(self, np: int, kernel_args) -> list[str]:
        behaviour = self.behaviours.pop(0) if self.behaviours else self.every
        spec = {**dataclasses.asdict(behaviour), "np": np, "recording": str(self.recording)}
        argv = [sys.executable, str(FAKE_KERNELS), json.dumps(spec), *kernel_args]
        argv += ["--launcher-line", shlex.join(argv)]
        self.commands.append(argv)
        return argv

    def environment(self, np: int):
        return None

    def catalog(self, np: int):
        """The kernels' catalog as committed (tests/data/catalog.json), for the nearest rank count."""
        from tests.catalog_data import RANKS, committed_catalog

        return committed_catalog(np if np in RANKS else 2)

    def kernel_args(self, launch: int) -> list[str]:
        """The kernel options msgperf gave launch ``launch`` (0-based, this launcher's order)."""
        return self.commands[launch][3:]
