"""Which sizes ``msgperf run`` measures again, in short launches of their own, so that the answer's
latency and bandwidth carry an interval across launches.

The launch, not the sample, is the unit of run-to-run variation: samples inside one launch share
its placement, page layout and neighbours, and a second launch draws them anew. Five quiet
default runs on the 2-core VM read 1.11-1.69 µs at 0 B, each ±1 % "within one launch": of 20
quiet runs on MPICH and Open MPI no latency fell inside another's interval (bench/RESULTS.md §28;
§18 and §21 found the same, quiet, on 2 and 16 cores). More samples of the same launch cannot
help; only more launches can. The sweep is one launch, the sizes that make the
answer are few, and an MPI launch costs a few tenths of a second, so the default run measures
those sizes again in ``ANSWER_LAUNCHES`` more launches and the answer's figures are estimated
across all of them (analysis/launches/across_launches.py: random effects, Hartung-Knapp t on
L - 1 degrees of freedom). Four launches were chosen over three: the t quantile falls from 4.30
to 3.18, a third narrower, for one more launch start.

The sizes: the smallest (the latency) and the sweep's peak-bandwidth size with the sweep's sizes
on either side of it (the peak is chosen among sizes measured alike, model/regimes.peak_bandwidth,
and one launch's peak need not be the peak across launches). Not the largest size unless it is one
of those: the kernels fill and check every payload, and six samples of 64 MiB took 0.6 s a launch
on the 2-core VM, more than the other sizes together; "what the largest messages get" keeps the
sweep's interval and says that it covers one launch. Pure: the session gives the sweep's medians as
its records arrived.
"""

from __future__ import annotations

import math
from typing import Mapping

ANSWER_LAUNCHES = 3  # launches after the sweep's one: the answer's figures are estimated across four
ANSWER_PATTERN = "pingpong"  # the pattern the answer describes when a run measures it (result._main)


def answer_sizes(medians: Mapping[int, float]) -> tuple[int, ...]:
    """The sizes to measure again, ascending, from the sweep's median time per size (bytes ->
    seconds); () when no size has a positive time."""
    sizes = sorted(b for b, t in medians.items() if t > 0 and math.isfinite(t))
    if not sizes:
        return ()
    chosen = {sizes[0]}
    sized = [b for b in sizes if b > 0]
    if sized:
        top = sizes.index(max(sized, key=lambda b: b / medians[b]))
        chosen.update(sizes[max(0, top - 1):top + 2])
    return tuple(sorted(chosen))
