"""How much playing well matters: estimators of skill and luck from duplicate tournaments
(issue 22's measures), for any family. They name no game: they read seat results, one row per
player and unit (a round, or a card match's hand), with the unit's deal, the seat, the
policy that played it and its score, as :meth:`sim.games.family.Family.seat_results` gives
them for a tournament's dataset.

- :func:`variance_shares`: the share of a player-unit's score that goes with the deal, the
  seat, the policy, and what is left (the variance components of the duplicate design);
- :func:`relative_skill`: (G_skilled - G_beginner) / (G_fictive - G_beginner), Dreef, Borm
  and van der Genugten (2004), where the fictive player knows the chance outcomes;
- :func:`critical_repetitions`: how many units until the better player is ahead with 95%
  probability (Fiedler and Rock, 2009);
- :func:`elo_ladder`: Elo ratings from the pairwise shares of decided units, and the number
  of "75%-win steps" from the weakest to the strongest (Robertie's complexity number).

Intervals are 95%, clustered by deal (a deal's rotations and seatings share its luck).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import polars as pl

from sim.errors import SimError
from sim.stats import Z95

# An Elo difference of 400 log10(3) points is a 75% expected score: one "75%-win step".
STEP_ELO = 400.0 * math.log10(3.0)
BACKFIT_ROUNDS = 200  # the alternating means of variance_shares stop before this when settled
BACKFIT_TOLERANCE = 1e-10
FACTORS = ("deal_id", "seat", "policy")  # variance_shares' default; ("dealt_hand", ...) for the cards' luck


def _codes(column: pl.Series) -> tuple[np.ndarray, int]:
    """A column's values as codes 0..k-1 and k."""
    values, codes = np.unique(column.to_numpy(), return_inverse=True)
    return codes.astype(np.int64), len(values)


def variance_shares(rows: pl.DataFrame, value: str = "score", factors: tuple[str, ...] = FACTORS) -> dict:
    """The variance of ``value`` over the rows split into an additive effect of each factor
    (by default the deal, the seat and the policy) and the residual, each as a variance and
    as a share of their sum.

    The effects are the least-squares fit of ``value = mean + sum of one effect per level of
    each factor + residual`` (alternating means, which needs no balance). The variance of a
    factor is that of its fitted effects over the rows less the noise they carry, the
    residual variance over the rows of a level (method of moments: a deal seen in eight rows
    has effects noisy by a residual variance over eight); it is 0 when that leaves nothing.
    """
    missing = [c for c in (value, *factors) if c not in rows.columns]
    if missing:
        raise SimError(f"variance_shares: the rows have no column {missing[0]!r} (they have {', '.join(rows.columns)})")
    y = rows[value].cast(pl.Float64).to_numpy()
    n = y.size
    if n < 2:
        raise SimError(f"variance_shares: {n} row(s); the variance of a score needs two or more")
    coded = [_codes(rows[f]) for f in factors]
    effects = [np.zeros(k) for _, k in coded]
    counts = [np.bincount(c, minlength=k).astype(float) for c, k in coded]
    mean = float(y.mean())
    fitted = np.full(n, mean)
    for _ in range(BACKFIT_ROUNDS):
        change = 0.0
        for j, (codes, k) in enumerate(coded):
            partial = y - fitted + effects[j][codes]
            new = np.bincount(codes, weights=partial - mean, minlength=k) / np.maximum(counts[j], 1.0)
            new -= np.average(new, weights=counts[j])  # each factor's effects average 0 over the rows
            fitted += new[codes] - effects[j][codes]
            change = max(change, float(np.abs(new - effects[j]).max()))
            effects[j] = new
        if change < BACKFIT_TOLERANCE:
            break
    residual = y - fitted
    df = n - 1 - sum(k - 1 for _, k in coded)
    sigma2 = float((residual ** 2).sum() / df) if df > 0 else float("nan")
    out: dict = {"rows": n, "components": {}}
    for f, (codes, k), e in zip(factors, coded, effects, strict=True):
        raw = float(np.average(e[codes] ** 2))
        noise = sigma2 * (k - 1) / n  # the mean, over rows, of sigma2 / rows of their level, less the grand mean's
        out["components"][f] = max(raw - noise, 0.0)
    out["components"]["residual"] = sigma2
    total = sum(out["components"].values())
    out["shares"] = {f: (v / total if total > 0 else float("nan")) for f, v in out["components"].items()}
    return out


def _per_deal(rows: pl.DataFrame, policies: tuple[str, ...], value: str) -> dict[str, np.ndarray]:
    """Each policy's mean ``value`` per deal, over the deals every one of ``policies`` played."""
    known = set(rows["policy"].unique().to_list())
    for p in policies:
        if p not in known:
            raise SimError(f"no rows of policy {p!r} (the rows hold {', '.join(sorted(known))})")
    wide = (rows.filter(pl.col("policy").is_in(policies))
            .group_by("deal_id", "policy").agg(pl.col(value).cast(pl.Float64).mean())
            .pivot(on="policy", index="deal_id", values=value).drop_nulls().sort("deal_id"))
    if wide.height < 2:
        raise SimError(f"{wide.height} deal(s) played by all of {', '.join(policies)}: an interval needs two or more")
    return {p: wide[p].to_numpy() for p in policies}


def _ratio_of_sums(a: np.ndarray, c: np.ndarray) -> dict[str, float]:
    """sum(a) / sum(c) over clusters, with its linearised cluster-robust 95% interval."""
    sc = c.sum()
    if sc == 0:
        return {"estimate": float("nan"), "ci_low": float("nan"), "ci_high": float("nan")}
    est = a.sum() / sc
    z = (a - est * c) / sc
    g = z.size
    se = float(np.sqrt(g / (g - 1) * (z * z).sum()))
    return {"estimate": float(est), "ci_low": float(est - Z95 * se), "ci_high": float(est + Z95 * se)}


def relative_skill(rows: pl.DataFrame, beginner: str, skilled: str, fictive: str, value: str = "score") -> dict:
    """Relative skill (Dreef, Borm and van der Genugten, 2004): how much of the way from the
    ``beginner`` to the ``fictive`` player (one who knows the chance outcomes) the ``skilled``
    player goes, (G_skilled - G_beginner) / (G_fictive - G_beginner), each G a policy's mean
    ``value`` on the deals all three played; 0: skill is worth nothing beyond the beginner's,
    1: the skilled player does as well as foreknowledge."""
    g = _per_deal(rows, (beginner, skilled, fictive), value)
    out = _ratio_of_sums(g[skilled] - g[beginner], g[fictive] - g[beginner])
    out["deals"] = int(g[beginner].size)
    out["learning"] = float((g[skilled] - g[beginner]).mean())
    out["chance"] = float((g[fictive] - g[skilled]).mean())
    return out


def critical_repetitions(differences: np.ndarray, level: float = 0.95) -> dict[str, float]:
    """How many independent units the better player needs to be ahead in total with
    probability ``level`` (Fiedler and Rock, 2009), from the paired per-unit differences of
    its score over the other's (normal approximation: (z sd / mean) squared, z the
    ``level`` quantile); its interval from the mean's 95% interval. Infinite when the mean
    is not above 0."""
    d = np.asarray(differences, dtype=float)
    if d.size < 2:
        raise SimError(f"critical_repetitions: {d.size} difference(s); it needs two or more")
    if not 0.5 < level < 1.0:
        raise SimError(f"critical_repetitions: level must be between 0.5 and 1 (got {level})")
    z = NormalDist().inv_cdf(level)
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    half = Z95 * sd / math.sqrt(d.size)

    def units(m: float) -> float:
        return math.inf if m <= 0 else (z * sd / m) ** 2

    return {"estimate": units(mean), "ci_low": units(mean + half), "ci_high": units(mean - half),
            "mean": mean, "sd": sd}


def elo_ladder(pairs: list[tuple[str, str, float]]) -> dict:
    """Elo ratings from pairwise shares: each ``(a, b, share)`` is the share of the decided
    units between ``a`` and ``b`` that ``a`` won. A share ``s`` says a leads b by
    400 log10(s / (1 - s)) points; the ratings are the least-squares fit of every pair's
    lead, the weakest at 0. ``steps``: the span from the weakest to the strongest in
    "75%-win steps" (400 log10(3) points each, Robertie's complexity number)."""
    names = sorted({p for a, b, _ in pairs for p in (a, b)})
    if len(names) < 2:
        raise SimError("elo_ladder: it needs pairs of at least two players")
    index = {p: i for i, p in enumerate(names)}
    rows, leads = [], []
    for a, b, share in pairs:
        if not 0.0 < share < 1.0:
            raise SimError(f"elo_ladder: {a} against {b} won a share of {share}; a lead needs a share strictly "
                           "between 0 and 1")
        row = np.zeros(len(names))
        row[index[a]], row[index[b]] = 1.0, -1.0
        rows.append(row)
        leads.append(400.0 * math.log10(share / (1.0 - share)))
    rows.append(np.ones(len(names)))  # the ratings are fixed up to a constant: their sum 0, then shifted
    leads.append(0.0)
    fit, *_ = np.linalg.lstsq(np.array(rows), np.array(leads), rcond=None)
    fit -= fit.min()
    ratings = {p: float(fit[index[p]]) for p in names}
    return {"ratings": dict(sorted(ratings.items(), key=lambda kv: kv[1])),
            "steps": float(fit.max() / STEP_ELO)}
