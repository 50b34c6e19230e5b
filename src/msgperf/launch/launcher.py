"""Kernel arguments -> the command line that runs them: the injectable part of a session.

``measure`` (launch/session.py) asks a ``Launcher`` for the command of each launch and runs it
with ``job.execute``. ``MpiLauncher`` is the real one: the kernels compiled against the chosen
MPI, started by its ``mpiexec`` (or ``--launcher``) in that launcher's dialect. Tests pass a
launcher whose command replays recorded kernel output instead (tests/launch/fake_launcher.py).
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from typing import Protocol

from msgperf.errors import MsgperfError
from msgperf.records.format import PatternInfo
from msgperf.launch.build import Kernel, build_kernel
from msgperf.launch.catalog import pattern_catalog
from msgperf.launch.dialects import detect_flavor, launch_argv, rank_count_setting
from msgperf.values import Value


class Launcher(Protocol):
    """What a session needs to start one launch of the kernels."""

    def command(self, np: int, kernel_args: Sequence[str]) -> list[str]:
        """The full command line that runs the kernels with ``kernel_args`` on ``np`` ranks."""

    def environment(self, np: int) -> Mapping[str, str] | None:
        """The launch's environment (None: msgperf's own)."""

    def catalog(self, np: int) -> tuple[PatternInfo, ...]:
        """The kernels' pattern catalog for ``np`` ranks (validates the plan, counts records)."""


# When there are more ranks than cores, MPICH's busy-polling ranks take the cores from the ranks
# that have work: these make its progress loop yield the core (sched_yield) after every poll.
# Recorded in the launch record's environment, so the run says it was oversubscribed.
OVERSUBSCRIBED_ENV = {"MPIR_CVAR_POLLS_BEFORE_YIELD": "1", "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1"}


def launch_env(np: int, cores: int | None = None) -> dict[str, str] | None:
    """The environment of the launch: the parent's, plus yielding polls when oversubscribed
    (a setting the user made in the environment wins)."""
    cores = cores if cores is not None else (os.cpu_count() or 1)
    if np <= cores:
        return None
    return {**OVERSUBSCRIBED_ENV, **os.environ}


def split_launcher(text: str) -> list[str]:
    """--launcher as words, the way a shell would split it; one-line errors for what cannot be."""
    try:
        argv = shlex.split(text)
    except ValueError as exc:  # "No closing quotation", "No escaped character"
        raise MsgperfError(f"--launcher {text!r}: {str(exc).lower()}; close the quote or drop it, "
                           "e.g. --launcher \"mpiexec -bind-to core\"") from None
    if not argv:
        raise MsgperfError("--launcher is empty; name a launcher (mpiexec, mpirun, srun) or leave the option out")
    return argv


def resolve_launcher(launcher: str | None, kernel: Kernel) -> list[str]:
    """The launcher's argv: --launcher as given (a bare mpiexec/mpirun means the selected MPI's
    own, beside its mpicc), else the MPI's mpiexec, else srun inside a SLURM allocation."""
    if launcher is not None:
        argv = split_launcher(launcher)
        if argv[0] in ("mpiexec", "mpirun"):
            suffix = kernel.mpicc.name[len("mpicc"):] if kernel.mpicc.name.startswith("mpicc") else ""
            beside = kernel.mpicc.parent / f"{argv[0]}{suffix}"
            if beside.is_file():
                argv[0] = str(beside)
        return argv
    if kernel.mpiexec:
        return [str(kernel.mpiexec)]
    if os.environ.get("SLURM_JOB_ID") and shutil.which("srun"):
        return ["srun"]
    raise MsgperfError(f"no mpiexec found beside {kernel.mpicc}; pass --launcher CMD (mpiexec, mpirun or srun)")


class MpiLauncher(Value):
    """The kernels built against an MPI, started by a real launcher in its own dialect."""

    kernel: Kernel
    launcher_argv: tuple[str, ...]
    flavor: str
    hosts: tuple[str, ...] = ()
    ranks_per_node: int | None = None

    @classmethod
    def prepare(cls, *, launcher: str | None = None, mpicc: str | None = None, hosts: tuple[str, ...] = (),
                ranks_per_node: int | None = None) -> "MpiLauncher":
        """Build the kernels (cached) and find the launcher; slow only on the first build."""
        kernel = build_kernel(mpicc)
        argv = resolve_launcher(launcher, kernel)
        flavor = detect_flavor(argv[0])
        twice = rank_count_setting(flavor, argv[1:])
        if twice is not None:  # else Hydra says only "error parsing parameters", after the run file is made
            raise MsgperfError(f"--launcher {launcher!r} sets the number of ranks ({twice}), which msgperf sets "
                               f"from --np: drop {twice} from --launcher and give --np instead")
        return cls(kernel=kernel, launcher_argv=tuple(argv), flavor=flavor, hosts=tuple(hosts),
                   ranks_per_node=ranks_per_node)

    def command(self, np: int, kernel_args: Sequence[str]) -> list[str]:
        dialect = launch_argv(self.launcher_argv[0], np, [], flavor=self.flavor, hosts=self.hosts,
                              ranks_per_node=self.ranks_per_node, is_root=os.geteuid() == 0, cores=os.cpu_count())
        argv = [self.launcher_argv[0], *dialect[1:], *self.launcher_argv[1:], str(self.kernel.path), *kernel_args]
        return [*argv, "--launcher-line", shlex.join(argv)]

    def environment(self, np: int) -> Mapping[str, str] | None:
        return launch_env(np)

    def catalog(self, np: int) -> tuple[PatternInfo, ...]:
        return pattern_catalog(self.kernel.path, np)
