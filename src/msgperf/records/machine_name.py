"""A short name of the machine a launch ran on, for listings: the CPU model without its
trademarks and clock ("Intel Xeon Gold 6248") and its cores ("Intel Xeon Gold 6248, 20 cores")."""

from __future__ import annotations

import re
from typing import Any

_NOISE = re.compile(r"\((?:R|TM|tm|r)\)|\bCPU\b|\bProcessor\b|@.*$")


def cpu_short(model: str) -> str:
    short = " ".join(_NOISE.sub(" ", model).split())
    return short or model.strip() or "unknown"


def machine_name(launch: Any) -> str:
    """'Intel Xeon Gold 6248, 20 cores' for one host; hosts of one model are named once with
    their count ('2× AMD EPYC 7763, 64 cores'); "" when the launch recorded no host facts."""
    names: dict[str, int] = {}
    for h in launch.host_facts:
        cores = h.physical_cores if h.physical_cores is not None else h.logical_cpus
        name = cpu_short(h.cpu_model) + (f", {cores} cores" if cores is not None else "")
        names[name] = names.get(name, 0) + 1
    return "; ".join(f"{n}× {name}" if n > 1 else name for name, n in names.items())
