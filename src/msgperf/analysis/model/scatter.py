"""How much the per-size times scatter beyond their stated uncertainty (overdispersion).

Each point i of a sweep has a stated scale sigma_i (its own noise plus the model tolerance,
see ``points``). Whether a line *could* fit is judged against the scatter that is really
there, estimated without assuming any model, from the pseudo-residuals of Gasser, Sroka &
Jennen-Steinmetz (Biometrika 73:625, 1986): each interior point against the straight line
through its two neighbours,

    e_i = a_i·y_{i-1} + b_i·y_{i+1} - y_i,   a_i = (x_{i+1} - x_i)/(x_{i+1} - x_{i-1}),  b_i = 1 - a_i,

which is pure noise wherever the curve is locally straight (everywhere, for T = alpha +
beta·b, whatever alpha and beta). Standardised by sqrt(a_i² s_{i-1}² + b_i² s_{i+1}² + s_i²)
they have variance phi; phi is estimated robustly as (1.4826 · median |e|)², so the few
pseudo-residuals that straddle a protocol switch or a spike do not inflate it, and floored
at 1: the scatter is never taken to be smaller than the stated uncertainty.
"""

from __future__ import annotations

import numpy as np

MAD_TO_SIGMA = 1.4826
MIN_POINTS = 5


def overdispersion(x: np.ndarray, y: np.ndarray, sigma: np.ndarray) -> float:
    """phi >= 1 for points sorted by distinct ``x``; 1 when there are too few points."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    sigma = np.asarray(sigma, float)
    if x.size < MIN_POINTS:
        return 1.0
    span = x[2:] - x[:-2]
    a = (x[2:] - x[1:-1]) / span
    b = 1.0 - a
    e = a * y[:-2] + b * y[2:] - y[1:-1]
    scale = np.sqrt(a * a * sigma[:-2] ** 2 + b * b * sigma[2:] ** 2 + sigma[1:-1] ** 2)
    phi = (MAD_TO_SIGMA * float(np.median(np.abs(e / scale)))) ** 2
    return max(1.0, phi)
