"""Plan -> the launcher's argv, in each launcher's own dialect (pure: no processes started here,
except ``detect_flavor``, which asks the launcher for its version).

Three dialects:

- ``hydra``: MPICH's ``mpiexec`` (the PyPI wheel's, Debian's ``mpiexec.mpich``): ``-n NP``,
  ``-hosts a,b``, ``-ppn K``;
- ``openmpi``: Open MPI's ``mpirun``/``mpiexec``/``orterun``: ``-np NP``, ``--host a:K,b:K``,
  ``--map-by ppr:K:node`` (or ``node``: round robin), ``--bind-to none`` (a daemon per host
  would otherwise bind each rank to core 0 of a small machine), ``--allow-run-as-root`` when
  root, ``--oversubscribe`` when more ranks than slots;
- ``srun`` (SLURM): ``--ntasks``, ``--nodes``, ``--ntasks-per-node``, ``--nodelist``.
"""

from __future__ import annotations

import math
import subprocess
from collections.abc import Sequence
from pathlib import Path

FLAVORS = ("hydra", "openmpi", "srun")

# How each dialect is told the number of ranks, which launch_argv always gives (from --np):
# given in --launcher too, Hydra stops with "duplicate setting: n", Open MPI and srun take one.
_RANK_COUNT = {"hydra": ("-n", "-np", "--n", "--np"), "openmpi": ("-n", "-np", "--n", "--np", "-c"),
               "srun": ("-n", "--ntasks")}


def rank_count_setting(flavor: str, launcher_words: Sequence[str]) -> str | None:
    """The words of ``launcher_words`` (--launcher's, after the launcher itself) that set the
    number of ranks in ``flavor``'s dialect ("-n 3", "--ntasks=3"), or None."""
    flags = _RANK_COUNT.get(flavor, ())
    for i, word in enumerate(launcher_words):
        if word in flags:
            return " ".join(launcher_words[i:i + 2])
        if any(word.startswith(f"{flag}=") for flag in flags):
            return word
    return None


def flavor_from_version(name: str, version_output: str) -> str:
    """Which dialect a launcher speaks, from its name and its ``--version`` output."""
    base = Path(name).name
    if base.startswith("srun"):
        return "srun"
    text = version_output.lower()
    if "open mpi" in text or "openrte" in text or "open-mpi" in text or "orterun" in text:
        return "openmpi"
    if "hydra" in text or "mpich" in text or "intel(r) mpi" in text or "mvapich" in text:
        return "hydra"
    if "openmpi" in base or "orterun" in base:
        return "openmpi"
    return "hydra"


def detect_flavor(launcher: str) -> str:
    """Ask the launcher (``LAUNCHER --version``) which dialect it speaks."""
    if Path(launcher).name.startswith("srun"):
        return "srun"
    try:
        out = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL)
        text = out.stdout + out.stderr
    except (OSError, subprocess.TimeoutExpired):
        text = ""
    return flavor_from_version(launcher, text)


def launch_argv(launcher: str, np: int, program: list[str], *, flavor: str | None = None,
                hosts: tuple[str, ...] | list[str] = (), ranks_per_node: int | None = None,
                is_root: bool = False, cores: int | None = None) -> list[str]:
    """``LAUNCHER <np, hosts, placement> PROGRAM...`` in the launcher's own dialect.

    ``flavor`` defaults to a guess from the name alone (``srun`` or Hydra's ``mpiexec``); pass
    ``detect_flavor(launcher)`` for a real launcher. ``cores`` (slots of this machine) decides
    Open MPI's ``--oversubscribe`` when no hosts are named.
    """
    flavor = flavor or flavor_from_version(launcher, "")
    hosts = tuple(hosts)
    if flavor == "srun":
        argv = [launcher, f"--ntasks={np}"]
        nodes = len(hosts) if hosts else (math.ceil(np / ranks_per_node) if ranks_per_node else None)
        if nodes:
            argv.append(f"--nodes={nodes}")
        if ranks_per_node:
            argv.append(f"--ntasks-per-node={ranks_per_node}")
        if hosts:
            argv.append(f"--nodelist={','.join(hosts)}")
        return [*argv, *program]
    if flavor == "openmpi":
        argv = [launcher, "-np", str(np)]
        if is_root:
            argv.append("--allow-run-as-root")
        if hosts:
            per = ranks_per_node or math.ceil(np / len(hosts))
            argv += ["--host", ",".join(f"{h}:{per}" for h in hosts)]
            argv += ["--map-by", f"ppr:{ranks_per_node}:node" if ranks_per_node else "node"]
            slots = per * len(hosts)
        else:
            if ranks_per_node:
                argv += ["--map-by", f"ppr:{ranks_per_node}:node"]
            slots = cores if cores is not None else None
        argv += ["--bind-to", "none"]
        if slots is not None and np > slots or (not hosts and cores is None):
            argv.append("--oversubscribe")
        return [*argv, *program]
    if flavor != "hydra":
        raise ValueError(f"unknown launcher flavor {flavor!r}; one of {', '.join(FLAVORS)}")
    argv = [launcher, "-n", str(np)]
    if hosts:
        argv += ["-hosts", ",".join(hosts)]
    if ranks_per_node:
        argv += ["-ppn", str(ranks_per_node)]
    return [*argv, *program]
