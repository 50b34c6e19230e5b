"""A short name of the MPI library a launch ran on, from MPI_Get_library_version's text."""

from __future__ import annotations

import re
from typing import Any


def mpi_name(launch: Any) -> str:
    """A short MPI name from MPI_Get_library_version's (often multi-line) text: "MPICH 5.0.2",
    "Open MPI v5.0.5". ``mpi_version`` (the MPI standard) is added only when the library
    text carries no version of its own."""
    lines = [line for line in launch.mpi_library.splitlines() if line.strip()]
    name = re.sub(r"\s*\bVersion:\s*", " ", lines[0] if lines else "").split(",")[0]
    name = " ".join(name.split())
    if not re.search(r"\d", name):
        name = f"{name or 'MPI'} {launch.mpi_version.strip()}".strip()
    return name
