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


def share(flags: np.ndarray, clusters=None) -> dict[str, float]:
    """Estimate and 95% Wilson interval of the share of true ``flags``; with ``clusters``
    (an id per flag: the deal of a duplicate run), the interval is cluster-robust
    (:func:`cluster_interval`)."""
    n = int(flags.size)
    k = int(np.count_nonzero(flags))
    if clusters is not None and n:
        _, lo, hi = cluster_interval(cluster_stats(np.asarray(flags, dtype=float), clusters), share=True)
    else:
        lo, hi = wilson_interval(k, n)
    return {"estimate": k / n if n else float("nan"), "ci_low": float(lo), "ci_high": float(hi),
            "count": k, "trials": n}


def mean_interval(values: np.ndarray, clusters=None) -> dict[str, float]:
    """Mean with a 95% normal interval (many samples: the CLT applies); with ``clusters``,
    cluster-robust."""
    v = np.asarray(values, dtype=float)
    if clusters is not None and v.size:
        m, lo, hi = cluster_interval(cluster_stats(v, clusters), share=False)
        return {"estimate": m, "ci_low": lo, "ci_high": hi}
    m = float(v.mean())
    half = Z95 * float(v.std(ddof=1)) / np.sqrt(v.size) if v.size > 1 else float("nan")
    return {"estimate": m, "ci_low": m - half, "ci_high": m + half}


# --- intervals that know which samples belong together ----------------------------------------
#
# The players of one round (and, with --duplicate, the rounds of one deal) are not
# independent samples. Pooled metrics are ratio estimators sum(y) / sum(m) over clusters
# (a round's players, a deal's rounds); their variance is estimated from the cluster
# totals (the cluster-robust "sandwich" estimator), which is right whatever the
# correlation inside a cluster. The sufficient statistics add over chunks, so
# ``--until-ci`` can accumulate them as it goes.

CLUSTER_FIELDS = 6  # clusters, items, sum y_c, sum y_c**2, sum y_c * m_c, sum m_c**2


def cluster_stats(values, clusters=None, codes: bool = False) -> np.ndarray:
    """Sufficient statistics of ``values`` grouped by ``clusters`` (one id per value;
    None: every value its own cluster): ``(G, n, Σy_c, Σy_c², Σy_c·m_c, Σm_c²)`` with
    ``y_c`` a cluster's total and ``m_c`` its size. They add over disjoint clusters.
    ``codes``: the ids are already small integers from 0 (:func:`cluster_codes`; some may
    be absent), which spares sorting them again for each of many values."""
    y = np.asarray(values, dtype=float)
    if codes and clusters is not None:
        ids = np.asarray(clusters)
        if np.all(ids[1:] > ids[:-1]):  # every value its own cluster (the rounds of a run)
            clusters = None
    if clusters is None:
        return np.array([y.size, y.size, y.sum(), (y * y).sum(), y.sum(), y.size], dtype=float)
    idx = np.asarray(clusters) if codes else np.unique(np.asarray(clusters), return_inverse=True)[1]
    sizes = np.bincount(idx)
    present = sizes > 0
    yc = np.bincount(idx, weights=y)[present]
    mc = sizes[present].astype(float)
    return np.array([yc.size, y.size, yc.sum(), (yc * yc).sum(), (yc * mc).sum(), (mc * mc).sum()], dtype=float)


def cluster_codes(clusters) -> np.ndarray:
    """Cluster ids as integers from 0 (the same order), for :func:`cluster_stats` ``codes``."""
    ids = np.asarray(clusters)
    if ids.ndim == 1 and ids.size and np.all(ids[1:] >= ids[:-1]):  # sorted already: no sort
        return np.r_[0, np.cumsum(ids[1:] != ids[:-1])]
    return np.unique(ids, return_inverse=True)[1]


def cluster_se(acc: np.ndarray) -> tuple:
    """Estimate and cluster-robust standard error of the ratio mean from
    :func:`cluster_stats` (with the small-sample factor G / (G - 1)); ``acc`` may also be
    a (6, k) array of k groups' statistics, giving arrays."""
    g, n, sy, syy, sym, smm = (np.asarray(x, dtype=float) for x in acc)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(n > 0, sy / n, np.nan)
        resid = np.maximum(syy - 2 * est * sym + est * est * smm, 0.0)
        se = np.where(g >= 2, np.sqrt(g / (g - 1) * resid) / n, np.nan)
    if est.ndim == 0:
        return float(est), float(se)
    return est, se


def cluster_interval(acc: np.ndarray, share: bool) -> tuple:
    """(estimate, ci_low, ci_high) of a pooled metric from :func:`cluster_stats` (or
    arrays of them, as :func:`cluster_se`). A mean: normal interval with the
    cluster-robust error. A share: Wilson interval on the effective sample size
    n / deff, deff being the cluster-robust variance over the binomial one (so a share
    keeps Wilson's behaviour near 0 and 1)."""
    est, se = cluster_se(acc)
    est_a, se_a = np.asarray(est, dtype=float), np.asarray(se, dtype=float)
    if not share:
        lo, hi = est_a - Z95 * se_a, est_a + Z95 * se_a
    else:
        n = np.asarray(acc[1], dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            iid = est_a * (1 - est_a) / n
            n_eff = np.where((iid > 0) & (se_a > 0), n * iid / (se_a * se_a), n)
        lo, hi = wilson_interval(est_a * n_eff, n_eff)
    if est_a.ndim == 0:
        return float(est_a), float(lo), float(hi)
    return est_a, np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


def clustered(values, clusters, share: bool = False) -> dict[str, float]:
    """A pooled share or mean of ``values`` with its cluster-robust 95% interval:
    ``{estimate, ci_low, ci_high, n, clusters}``."""
    acc = cluster_stats(values, clusters)
    est, lo, hi = cluster_interval(acc, share)
    return {"estimate": est, "ci_low": lo, "ci_high": hi, "n": int(acc[1]), "clusters": int(acc[0])}


def ratio_interval(y, m, share: bool = False) -> dict[str, float]:
    """A pooled ratio sum(y) / sum(m) from per-cluster totals ``y`` and sizes ``m`` (aligned
    arrays; a cluster of size 0 is left out) with its cluster-robust 95% interval
    (:func:`cluster_interval`; a share when ``share``): ``{estimate, ci_low, ci_high, n,
    clusters}``."""
    y, m = np.asarray(y, dtype=float), np.asarray(m, dtype=float)
    y, m = y[m > 0], m[m > 0]
    acc = np.array([y.size, m.sum(), y.sum(), (y * y).sum(), (y * m).sum(), (m * m).sum()], dtype=float)
    est, lo, hi = cluster_interval(acc, share)
    return {"estimate": est, "ci_low": lo, "ci_high": hi, "n": float(acc[1]), "clusters": int(acc[0])}


def ratio_difference(ya, ma, yb, mb) -> dict[str, float]:
    """The difference of two pooled means sum(ya)/sum(ma) - sum(yb)/sum(mb) measured on the
    same clusters (arrays of per-cluster totals and sizes, aligned), with its
    cluster-robust 95% interval (linearised: each cluster's contribution to both means).
    Pairing on clusters removes what they share (a deal's luck) from the difference."""
    ya, ma, yb, mb = (np.asarray(x, dtype=float) for x in (ya, ma, yb, mb))
    na, nb = ma.sum(), mb.sum()
    ea, eb = ya.sum() / na, yb.sum() / nb
    z = (ya - ea * ma) / na - (yb - eb * mb) / nb
    g = z.size
    se = float(np.sqrt(g / (g - 1) * (z * z).sum())) if g > 1 else float("nan")
    d = ea - eb
    return {"estimate": float(d), "ci_low": d - Z95 * se, "ci_high": d + Z95 * se}
