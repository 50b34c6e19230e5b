"""The few probability distributions msgperf's analysis uses (normal, Student t, binomial,
chi-squared, F), as scipy.special's functions behind the methods of scipy.stats that the code
calls: scipy.special imports in about a third of the time scipy.stats does, and is imported only
on first use, so that reading a cached analysis never pays for either (docs/libraries.md).
tests/analysis/samples/test_distributions.py checks every method against scipy.stats."""

from __future__ import annotations

import math
from typing import Any


def _special() -> Any:
    from scipy import special  # noqa: PLC0415

    return special


class _Normal:
    def ppf(self, q: float) -> float:
        return float(_special().ndtri(q))

    def cdf(self, x: float) -> float:
        return float(_special().ndtr(x))

    def sf(self, x: float) -> float:
        return float(_special().ndtr(-x))


class _FrozenT:
    def __init__(self, df: float) -> None:
        self.df = df

    def ppf(self, q: float) -> float:
        return float(_special().stdtrit(self.df, q))

    def cdf(self, x: float) -> float:
        return float(_special().stdtr(self.df, x))

    def sf(self, x: float) -> float:
        return float(_special().stdtr(self.df, -x))


class _T:
    def __call__(self, df: float) -> _FrozenT:
        return _FrozenT(df)

    def ppf(self, q: float, df: float) -> float:
        return _FrozenT(df).ppf(q)

    def sf(self, x: float, df: float) -> float:
        return _FrozenT(df).sf(x)


class _Binomial:
    def cdf(self, k: float, n: int, p: float) -> float:
        return float(_special().bdtr(math.floor(k), n, p)) if k >= 0 else 0.0

    def ppf(self, q: float, n: int, p: float) -> int:
        """The smallest k with cdf(k) >= q (as scipy.stats.binom.ppf)."""
        k = max(0, int(math.ceil(float(_special().bdtrik(q, n, p)))) - 2)
        while self.cdf(k, n, p) < q and k < n:
            k += 1
        while k > 0 and self.cdf(k - 1, n, p) >= q:
            k -= 1
        return k


class _ChiSquared:
    def ppf(self, q: float, df: float) -> float:
        return float(_special().chdtri(df, 1.0 - q))


class _F:
    def isf(self, q: float, dfn: float, dfd: float) -> float:
        return float(_special().fdtri(dfn, dfd, 1.0 - q))


class _Stats:
    norm = _Normal()
    t = _T()
    binom = _Binomial()
    chi2 = _ChiSquared()
    f = _F()


stats = _Stats()
