"""The relative misfit below which one straight line is enough for a curve (no breakpoint).

A module of its own, without numpy, so that ``msgperf fit`` can show it as its option's default
without importing the analysis (``msgperf fit --help`` needs none)."""

TOLERANCE = 0.01
