"""Robust straight-line fits y = a + b·x with a known scale per point (Huber M-estimation).

Each point i has a scale s_i (seconds): the fit minimises sum_i rho((y_i - a - b·x_i) / s_i)
with Huber's rho (Huber, Ann. Math. Stat. 35:73, 1964; *Robust Statistics*, 1981, §7):
quadratic for |z| <= c, linear beyond, c = 1.345 (95 % efficiency at the normal). It is
solved by iteratively reweighted least squares (Holland & Welsch, Commun. Stat. A6:813,
1977); the problem is convex, so IRLS from the least-squares start reaches the one optimum.
A few wild points therefore pull on the line only linearly, not quadratically.

``fit_lines`` solves many subsets of the same points at once (the piecewise search);
``fit_line`` solves one and adds the covariance of (a, b), in Huber's (1981)
sandwich form (§7.6; statsmodels RLM calls it "H1"),
    Cov = K² · [sum psi(z)² / (n - p)] / m² · (X'S⁻²X)⁻¹,
    m = mean psi'(z),  K = 1 + (p / n) · var(psi') / m²,
with Student-t quantiles on n - p degrees of freedom for the intervals.
"""

from __future__ import annotations

import numpy as np

from msgperf.analysis.samples import stats
from msgperf.values import Value

HUBER_C = 1.345


def huber_deviance(z: np.ndarray, c: float = HUBER_C) -> np.ndarray:
    """2·rho(z): z² inside [-c, c], 2c|z| - c² outside (the deviance of Huber's density)."""
    a = np.abs(z)
    return np.where(a <= c, a * a, 2 * c * a - c * c)


def _scaled(x: np.ndarray, y: np.ndarray, s: np.ndarray):
    """Rescale to O(1) numbers: x by its largest value, y and s by the median of y."""
    xs = float(np.max(np.abs(x))) or 1.0
    ys = float(np.median(np.abs(y))) or 1.0
    return x / xs, y / ys, s / ys, xs, ys


def fit_lines(x: np.ndarray, y: np.ndarray, s: np.ndarray, masks: np.ndarray,
              c: float = HUBER_C, iterations: int = 100,
              tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Huber fits of y = a + b·x on each row of ``masks`` (bool, shape (m, n)).

    Returns (a, b, deviance) arrays of length m; each row needs two distinct x values.
    A row stops iterating once its deviance changes by less than ``tol`` (relative).
    """
    xn, yn, sn, xs, ys = _scaled(np.asarray(x, float), np.asarray(y, float), np.asarray(s, float))
    inside = np.asarray(masks, dtype=bool)
    w0_all = inside / (sn * sn)
    m = inside.shape[0]
    a, b = np.zeros(m), np.zeros(m)
    deviance = np.full(m, np.inf)
    h_all = np.ones_like(w0_all)
    active = np.arange(m)
    for _ in range(iterations):
        w0, h = w0_all[active], h_all[active]
        w = w0 * h
        total = w.sum(axis=1)
        xm = (w @ xn) / total
        ym = (w @ yn) / total
        dx = xn[None, :] - xm[:, None]
        b_new = np.einsum("ij,ij,j->i", w, dx, yn) / np.einsum("ij,ij->i", w, dx * dx)
        a_new = ym - b_new * xm
        z = (yn[None, :] - a_new[:, None] - b_new[:, None] * xn[None, :]) / sn[None, :]
        dev_new = np.sum(huber_deviance(z, c) * inside[active], axis=1)
        a[active], b[active] = a_new, b_new
        h_all[active] = np.minimum(1.0, c / np.maximum(np.abs(z), 1e-300))
        moving = np.abs(deviance[active] - dev_new) > tol * np.maximum(1.0, dev_new)
        deviance[active] = dev_new
        active = active[moving]
        if active.size == 0:
            break
    return a * ys, b * ys / xs, deviance


class RobustLine(Value, eq=False):
    """One Huber fit with its covariance; ``z`` are residuals in units of each point's scale."""

    a: float
    b: float
    covariance: np.ndarray  # 2x2, for (a, b); NaN when there are no degrees of freedom
    dof: int
    t: float  # Student-t quantile for the requested confidence (NaN when dof < 1)
    z: np.ndarray
    weights: np.ndarray  # Huber weights min(1, c/|z|): 1 = full weight
    deviance: float

    def interval(self, which: int) -> tuple[float, float]:
        est = (self.a, self.b)[which]
        half = self.t * float(np.sqrt(self.covariance[which, which]))
        if not np.isfinite(half):
            return (float("-inf"), float("inf"))
        return (est - half, est + half)


def fit_line(x: np.ndarray, y: np.ndarray, s: np.ndarray, confidence: float = 0.95,
             c: float = HUBER_C) -> RobustLine:
    """Huber fit of y = a + b·x with per-point scales ``s`` and the H1 covariance."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    s = np.asarray(s, float)
    a_arr, b_arr, dev = fit_lines(x, y, s, np.ones((1, x.size), dtype=bool), c,
                                  iterations=1000, tol=1e-13)
    a, b = float(a_arr[0]), float(b_arr[0])
    z = (y - a - b * x) / s
    psi = np.clip(z, -c, c)
    dpsi = (np.abs(z) <= c).astype(float)
    n, p = x.size, 2
    dof = n - p
    weights = np.minimum(1.0, c / np.maximum(np.abs(z), 1e-300))
    if dof < 1:
        cov = np.full((2, 2), np.nan)
        t = float("nan")
    else:
        m = max(float(dpsi.mean()), 1.0 / n)
        k = 1 + p / n * float(dpsi.var()) / (m * m)
        factor = k * k * float(np.sum(psi * psi)) / dof / (m * m)
        # (X' S^-2 X)^-1 in scaled units for conditioning, then back to seconds and bytes.
        xs = float(np.max(np.abs(x))) or 1.0
        xt = np.column_stack([np.ones_like(x), x / xs]) / s[:, None]
        inv = np.linalg.inv(xt.T @ xt)
        unscale = np.array([[1.0, 1.0 / xs], [1.0 / xs, 1.0 / xs ** 2]])
        cov = factor * inv * unscale
        t = float(stats.t.ppf(0.5 + confidence / 2, dof))
    return RobustLine(a=a, b=b, covariance=cov, dof=dof, t=t, z=z, weights=weights,
                      deviance=float(dev[0]))
