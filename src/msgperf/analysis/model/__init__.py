"""Model: time against size (line and piecewise fits, where a switch lies, its labels, regimes,
LogGP)."""
