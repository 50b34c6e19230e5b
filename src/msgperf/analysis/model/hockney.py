"""The Hockney model T(b) = alpha + beta·b (Hockney, Parallel Computing 20:389, 1994).

alpha is the latency (s), beta the inverse bandwidth (s/B), 1/beta the bandwidth and
n_half = alpha/beta the half-performance length: the size at which half the asymptotic
bandwidth is reached, where the alpha and beta terms are equal (Lawlor's lecture, Saphir 1994).

The line is fitted to the per-size median times by Huber M-estimation (``robust``) on
the scale sigma_i·sqrt(phi) of each point (``points``, ``scatter``). Because sigma_i is
proportional to the time, the fit weighs *relative* misfit: a 64 MiB point (ms) counts as
much as a 1 B point (us), instead of swamping it as it would in plain least squares.

Intervals: alpha and beta from the robust covariance with Student-t quantiles; bandwidth
by inverting beta's interval (1/beta is monotone); n_half = alpha/beta by Fieller's
theorem (Fieller, JRSS B 16:175, 1954), which stays correct when beta is poorly known
(the interval is then unbounded, and reported as such).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from msgperf.analysis.model.points import TOLERANCE, SizePoint, point_arrays
from msgperf.analysis.model.robust import RobustLine, fit_line
from msgperf.analysis.model.scatter import overdispersion
from msgperf.values import Value

INF = float("inf")
NAN = float("nan")


class LineFit(Value):
    """alpha + beta·b over measured sizes [from_bytes, to_bytes], with 95 % (or other) intervals."""

    alpha_s: float
    beta_s_per_byte: float
    alpha_ci_s: tuple[float, float]
    beta_ci_s_per_byte: tuple[float, float]
    bandwidth_bytes_per_s: float  # 1/beta; inf when beta <= 0
    bandwidth_ci_bytes_per_s: tuple[float, float]
    n_half_bytes: float  # alpha/beta; NaN unless both are positive
    n_half_ci_bytes: tuple[float, float]
    covariance: tuple[tuple[float, float], tuple[float, float]]
    dof: int  # points - 2; no intervals when 0
    confidence: float
    from_bytes: int
    to_bytes: int
    n_points: int

    def predict(self, size: float | np.ndarray) -> float | np.ndarray:
        """alpha + beta·size (seconds), for a size or an array of sizes."""
        return self.alpha_s + self.beta_s_per_byte * np.asarray(size, dtype=np.float64)


def fieller_interval(a: float, b: float, vaa: float, vbb: float, vab: float,
                     t: float) -> tuple[float, float]:
    """Fieller's interval for a/b: the rho with (a - rho·b)² <= t²·Var(a - rho·b).

    Bounded only when b differs from 0 at the chosen level (b² > t²·Vbb); otherwise
    (-inf, inf) — the data cannot bound the ratio.
    """
    if not all(math.isfinite(v) for v in (a, b, vaa, vbb, vab, t)):
        return (-INF, INF)
    qa = b * b - t * t * vbb
    qb = -2 * (a * b - t * t * vab)
    qc = a * a - t * t * vaa
    disc = qb * qb - 4 * qa * qc
    if qa <= 0 or disc < 0:
        return (-INF, INF)
    root = math.sqrt(disc)
    return ((-qb - root) / (2 * qa), (-qb + root) / (2 * qa))


def _bandwidth_interval(beta_ci: tuple[float, float]) -> tuple[float, float]:
    lo, hi = beta_ci
    if hi <= 0:
        return (INF, INF)
    return (1.0 / hi, 1.0 / lo if lo > 0 else INF)


def line_fit(robust: RobustLine, x: np.ndarray, confidence: float) -> LineFit:
    """A ``LineFit`` (with derived quantities) from a robust fit over the sizes ``x``."""
    a, b = robust.a, robust.b
    cov = robust.covariance
    alpha_ci, beta_ci = robust.interval(0), robust.interval(1)
    n_half = a / b if a > 0 and b > 0 else NAN
    n_half_ci = fieller_interval(a, b, cov[0, 0], cov[1, 1], cov[0, 1], robust.t) \
        if a > 0 and b > 0 else (NAN, NAN)
    return LineFit(
        alpha_s=a, beta_s_per_byte=b, alpha_ci_s=alpha_ci, beta_ci_s_per_byte=beta_ci,
        bandwidth_bytes_per_s=1.0 / b if b > 0 else INF,
        bandwidth_ci_bytes_per_s=_bandwidth_interval(beta_ci),
        n_half_bytes=n_half, n_half_ci_bytes=n_half_ci,
        covariance=((float(cov[0, 0]), float(cov[0, 1])), (float(cov[1, 0]), float(cov[1, 1]))),
        dof=robust.dof, confidence=confidence, from_bytes=int(x[0]), to_bytes=int(x[-1]),
        n_points=int(x.size))


class HockneyFit(Value):
    """The single line over all sizes, with its residuals and goodness of fit."""

    line: LineFit
    sizes: tuple[int, ...]
    times_s: tuple[float, ...]  # the per-size medians fitted
    residuals_rel: tuple[float, ...]  # (measured - fitted) / fitted
    z: tuple[float, ...]  # residuals in units of each point's scale
    weights: tuple[float, ...]  # Huber weights: below 1 where a point was down-weighted
    rms_rel_residual: float
    max_rel_residual: float  # the largest |relative residual|
    max_rel_residual_bytes: int
    r_squared: float  # weighted, 1 - sum w·r² / sum w·(y - mean_w y)²
    chi2_per_dof: float | None  # against per-size noise alone; None when no size has samples
    phi: float  # overdispersion of the points (``scatter``)
    tolerance: float

    @property
    def alpha_s(self) -> float:
        return self.line.alpha_s

    @property
    def beta_s_per_byte(self) -> float:
        return self.line.beta_s_per_byte


def fit_hockney(points: Sequence[SizePoint], tolerance: float = TOLERANCE,
                confidence: float = 0.95, phi: float | None = None) -> HockneyFit:
    """Fit T(b) = alpha + beta·b to points sorted by distinct size (at least two)."""
    x, y, sigma = point_arrays(points, tolerance)
    if phi is None:
        phi = overdispersion(x, y, sigma)
    scale = sigma * math.sqrt(phi)
    robust = fit_line(x, y, scale, confidence)
    line = line_fit(robust, x, confidence)
    fitted = line.alpha_s + line.beta_s_per_byte * x
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(fitted > 0, (y - fitted) / fitted, np.inf)
    w = 1.0 / (scale * scale)
    mean_w = float(np.sum(w * y) / np.sum(w))
    ss_tot = float(np.sum(w * (y - mean_w) ** 2))
    r2 = 1.0 - float(np.sum(w * (y - fitted) ** 2)) / ss_tot if ss_tot > 0 else 1.0
    u = np.array([p.rel_sd if p.rel_sd else 0.0 for p in points])
    known = u > 1e-12  # a size with samples (an exact synthetic point has no noise to judge by)
    chi2 = None
    if known.sum() > 2:
        with np.errstate(over="ignore"):
            chi2 = float(np.sum(((y - fitted)[known] / (y[known] * u[known])) ** 2)
                         / (known.sum() - 2))
    worst = int(np.argmax(np.abs(rel)))
    return HockneyFit(
        line=line, sizes=tuple(int(v) for v in x), times_s=tuple(float(v) for v in y),
        residuals_rel=tuple(float(v) for v in rel), z=tuple(float(v) for v in robust.z),
        weights=tuple(float(v) for v in robust.weights),
        rms_rel_residual=float(np.sqrt(np.mean(rel * rel))),
        max_rel_residual=float(abs(rel[worst])), max_rel_residual_bytes=int(x[worst]),
        r_squared=r2, chi2_per_dof=chi2, phi=float(phi), tolerance=tolerance)
