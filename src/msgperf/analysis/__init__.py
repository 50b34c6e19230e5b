"""Pure analysis over arrays: statistics, model fits, comparisons. No I/O, no printing."""
