"""Hosts and rank placement, checked before anything is launched (pure functions).

The kernels choose the measured pair(s) from the rank->host map they gather at start-up
(``--placement``); what Python can tell beforehand from ``--hosts`` and ``--ranks-per-node``
is checked here, so an impossible request fails at once with the fix.
"""

from __future__ import annotations

import re

from msgperf.errors import MsgperfError
from msgperf.plan import check_placement

_HOST = re.compile(r"^[A-Za-z0-9_.\-\[\]]+$")


def parse_hosts(text: str | None) -> tuple[str, ...]:
    """``a,b,c`` -> ('a', 'b', 'c'); duplicates are an error (say --ranks-per-node instead)."""
    if not text:
        return ()
    hosts = tuple(h.strip() for h in text.split(","))
    for h in hosts:
        if not h or not _HOST.match(h):
            raise MsgperfError(f"--hosts {text}: {h!r} is not a host name; write names separated by commas, e.g. --hosts node1,node2")
    if len(set(hosts)) != len(hosts):
        raise MsgperfError(f"--hosts {text} names a host twice; name each host once and use --ranks-per-node K")
    return hosts


def expected_hosts(np: int, hosts: tuple[str, ...], ranks_per_node: int | None) -> list[str] | None:
    """The host of each rank that the launch options ask for: K consecutive ranks per host with
    --ranks-per-node K, else round robin over the hosts; None when no hosts are named (the
    launcher or the batch system decides)."""
    if not hosts:
        return None
    if ranks_per_node:
        return [hosts[(r // ranks_per_node) % len(hosts)] for r in range(np)]
    return [hosts[r % len(hosts)] for r in range(np)]


def check_launch(np: int, hosts: tuple[str, ...], ranks_per_node: int | None, placement: str | None) -> None:
    """Raise MsgperfError, with the fix, for a host/placement request that cannot work."""
    if ranks_per_node is not None and ranks_per_node < 1:
        raise MsgperfError(f"--ranks-per-node {ranks_per_node}: use 1 or more")
    if hosts and ranks_per_node and np > len(hosts) * ranks_per_node:
        raise MsgperfError(f"--np {np} is more than --hosts ({len(hosts)}) × --ranks-per-node ({ranks_per_node}) "
                           f"= {len(hosts) * ranks_per_node}; name more hosts or raise --ranks-per-node")
    if placement is None:
        return
    check_placement(placement)
    if placement == "both" and np < 3:
        raise MsgperfError(f"--placement both needs at least 3 ranks (two on one node, one on another), not {np}; "
                           "e.g. --np 4 --hosts a,b --ranks-per-node 2")
    where = expected_hosts(np, hosts, ranks_per_node)
    if where is None:
        return  # the launcher decides: the kernels check the map they gather
    distinct = list(dict.fromkeys(where))
    if placement in ("inter", "both") and len(distinct) < 2:
        raise MsgperfError(f"--placement {placement}: all {np} ranks are on one node ({distinct[0]}); "
                           "run on two nodes, e.g. --hosts a,b")
    if placement in ("intra", "both") and len(distinct) == np:
        raise MsgperfError(f"--placement {placement}: no two ranks share a node ({np} ranks on {len(distinct)} "
                           f"nodes); put two ranks on a node, e.g. --np {2 * len(distinct)} --ranks-per-node 2")


def pairs_per_size(placement: str | None) -> int:
    """How many pairs the kernels measure one after the other (both: intra, then inter)."""
    return 2 if placement == "both" else 1
