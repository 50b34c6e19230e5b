"""How each MPI is told to use an algorithm: MPICH's control variables (CVARs), Open MPI's
tuned-component MCA parameters. The names were checked against MPICH 5.0 (the CVARs' own
descriptions in libmpi) and Open MPI 4.1 (``ompi_info --param coll tuned --level 9``).

MPICH's ch4 device picks collectives of its own (shared-memory ones among them) before the
generic algorithms that ``MPIR_CVAR_<COLL>_INTRA_ALGORITHM`` selects; ``MPIR_CVAR_DEVICE_COLLECTIVES
=none`` hands every collective to the generic layer so that the selection applies.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

MPICH_DEVICE = ("MPIR_CVAR_DEVICE_COLLECTIVES", "none")

# (collective, algorithm) -> MPICH's value of MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM
MPICH = {
    ("allreduce", "recursive_doubling"): "recursive_doubling",
    ("allreduce", "reduce_scatter_allgather"): "reduce_scatter_allgather",
    ("allreduce", "ring"): "ring",
    ("bcast", "binomial"): "binomial",
    ("bcast", "scatter_recursive_doubling_allgather"): "scatter_recursive_doubling_allgather",
    ("bcast", "scatter_ring_allgather"): "scatter_ring_allgather",
    ("alltoall", "bruck"): "brucks",
    ("alltoall", "pairwise"): "pairwise",
    ("alltoall", "scattered"): "scattered",
    ("reduce", "binomial"): "binomial",
    ("reduce", "reduce_scatter_gather"): "reduce_scatter_gather",
    ("allgather", "recursive_doubling"): "recursive_doubling",
    ("allgather", "bruck"): "brucks",
    ("allgather", "ring"): "ring",
    ("reduce_scatter_block", "recursive_halving"): "recursive_halving",
    ("reduce_scatter_block", "pairwise"): "pairwise",
    ("barrier", "dissemination"): "k_dissemination",
}

# (collective, algorithm) -> Open MPI's coll_tuned_<collective>_algorithm number (4.1)
OPENMPI = {
    ("allreduce", "reduce_bcast"): 2,  # nonoverlapping: tuned reduce, then tuned bcast
    ("allreduce", "recursive_doubling"): 3,
    ("allreduce", "ring"): 4,
    ("allreduce", "reduce_scatter_allgather"): 6,  # rabenseifner
    ("bcast", "binomial"): 6,
    ("bcast", "scatter_recursive_doubling_allgather"): 8,  # scatter_allgather
    ("bcast", "scatter_ring_allgather"): 9,
    ("alltoall", "scattered"): 1,  # linear: every isend/irecv posted at once
    ("alltoall", "pairwise"): 2,
    ("alltoall", "bruck"): 3,  # modified bruck
    ("reduce", "binomial"): 5,
    ("reduce", "reduce_scatter_gather"): 7,  # rabenseifner
    ("allgather", "bruck"): 2,
    ("allgather", "recursive_doubling"): 3,
    ("allgather", "ring"): 4,
    ("reduce_scatter_block", "recursive_halving"): 3,
    ("barrier", "linear"): 1,
    ("barrier", "dissemination"): 4,  # bruck: the dissemination barrier
}


def mpi_family(library: str) -> str:
    """"mpich", "openmpi" or "" from the MPI's library version string."""
    text = library.lower()
    if "open mpi" in text or "openmpi" in text:
        return "openmpi"
    if "mpich" in text or "mvapich" in text or "intel(r) mpi" in text:
        return "mpich"
    return ""


def steps_family(library: str, device: str | None = None) -> str:
    """Whose own algorithm steps apply (``Algorithm.family_steps``, read from MPICH 5.0's ch4 and
    Open MPI 4.1's sources): "openmpi", "mpich" for MPICH itself on ch4 (``device``; unsaid: ch4 from
    MPICH 4 on, its default since), "" for the rest (MVAPICH and Intel MPI, MPICH's derivatives,
    and ch3, which send a rank's message to itself as a copy): the formulas' common steps."""
    family = mpi_family(library)
    text = library.lower()
    if family != "mpich":
        return family
    if "mvapich" in text or "intel" in text:
        return ""
    if device is not None:
        return "mpich" if device == "ch4" else ""
    version = re.search(r"\bmpich(?:\s+version:)?\s+(\d+)\.", text)
    return "mpich" if version is not None and int(version.group(1)) >= 4 else ""


# MPICH ch4's own shared-memory collectives (release_gather): which collectives it has them for
MPICH_DEVICE_OWN = frozenset({"bcast", "reduce", "allreduce", "barrier"})


def own_collectives(steps: str, collective: str, environments: Iterable[Mapping[str, str]]) -> str:
    """What the MPI may run by default instead of the modelled algorithms, in words, where a launch
    (its ``environments``) left it on; "" otherwise. ``steps``: ``steps_family`` ("mpich": MPICH
    itself on ch4). Its ch4 runs a bcast, reduce, allreduce or barrier of its own within a node
    (shared-memory release_gather): its bcast of 8 B back to back took 0.29 µs so, 1.3 µs with
    MPIR_CVAR_DEVICE_COLLECTIVES=none, where the binomial's one message takes 1.2 µs
    (bench/bcast_stream.c)."""
    name, off = MPICH_DEVICE
    if (steps != "mpich" or collective not in MPICH_DEVICE_OWN
            or all(str(env.get(name, "")).lower() == off for env in environments)):
        return ""
    return (f"MPICH's ch4 may run collectives of its own within a node (shared-memory release_gather), which no "
            f"model here describes; with {name}={off} it runs the algorithms above")


def selection(family: str, collective: str, algorithm: str) -> tuple[tuple[str, str], ...]:
    """The environment that selects ``algorithm`` for ``collective`` in this MPI; () when it has no
    way to select it (or the MPI is not known)."""
    if family == "mpich" and (collective, algorithm) in MPICH:
        return (MPICH_DEVICE, (f"MPIR_CVAR_{collective.upper()}_INTRA_ALGORITHM", MPICH[(collective, algorithm)]))
    if family == "openmpi" and (collective, algorithm) in OPENMPI:
        return (("OMPI_MCA_coll_tuned_use_dynamic_rules", "1"),
                (f"OMPI_MCA_coll_tuned_{collective}_algorithm", str(OPENMPI[(collective, algorithm)])))
    return ()


def selection_words(family: str, collective: str, algorithm: str) -> str:
    env = selection(family, collective, algorithm)
    if not env:
        return ""
    return " ".join(f"{k}={v}" for k, v in env)
