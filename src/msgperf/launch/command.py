"""Plan -> the launcher's argv (pure: no processes started here)."""

from __future__ import annotations

from pathlib import Path


def launch_argv(launcher: str, np: int, program: list[str]) -> list[str]:
    """``mpiexec -n NP PROGRAM...`` in the launcher's own dialect."""
    name = Path(launcher).name
    if name.startswith("srun"):
        return [launcher, f"--ntasks={np}", *program]
    return [launcher, "-n", str(np), *program]
