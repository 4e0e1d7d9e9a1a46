"""Interval estimates used by every summary: Wilson intervals for shares, normal
intervals for means. Vectorised over numpy arrays."""

from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(successes, trials, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial share; arrays in, arrays out.

    >>> lo, hi = wilson_interval(50, 100)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.4038, 0.5962)
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    # exact ends where rounding would put 0 or 1 just outside the interval
    lo = np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    hi = np.where(k == n, 1.0, np.clip(centre + half, 0.0, 1.0))
    return lo, hi


def share(flags: np.ndarray) -> dict[str, float]:
    """Estimate and 95% Wilson interval of the share of true ``flags``."""
    n = int(flags.size)
    k = int(np.count_nonzero(flags))
    lo, hi = wilson_interval(k, n)
    return {"estimate": k / n if n else float("nan"), "ci_low": float(lo), "ci_high": float(hi),
            "count": k, "trials": n}


def mean_interval(values: np.ndarray) -> dict[str, float]:
    """Mean with a 95% normal interval (many samples: the CLT applies)."""
    v = np.asarray(values, dtype=float)
    m = float(v.mean())
    half = Z95 * float(v.std(ddof=1)) / np.sqrt(v.size) if v.size > 1 else float("nan")
    return {"estimate": m, "ci_low": m - half, "ci_high": m + half}
