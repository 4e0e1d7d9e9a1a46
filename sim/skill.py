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
  of "75%-win steps" from the weakest to the strongest (Robertie's complexity number);
- :func:`compare`: the standings of bots played on the same deals (``sim tournament``'s);
- ``sim skill``'s run (:func:`spec`: every bot of a ladder in every seat against the first)
  and its measures (:func:`skill`, :func:`format_skill`).

Intervals are 95%, clustered by deal (a deal's rotations and seatings share its luck).
"""

from __future__ import annotations

import itertools
import math
from statistics import NormalDist

import numpy as np
import polars as pl

from sim.errors import SimError
from sim.stats import Z95, ratio_difference, ratio_interval

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


JACKKNIFE_GROUPS = 20  # share_intervals: the deals in this many groups, each left out in turn


def share_intervals(rows: pl.DataFrame, value: str = "score", factors: tuple[str, ...] = FACTORS,
                    groups: int = JACKKNIFE_GROUPS) -> dict[str, dict[str, float]]:
    """95% intervals of :func:`variance_shares`' shares by the grouped jackknife over deals: the
    deals in ``groups`` groups (deal ids modulo ``groups``), the shares fitted with each group
    left out, the spread of those fits giving the standard error (a deal's rows stay together:
    they share its luck)."""
    full = variance_shares(rows, value, factors)["shares"]
    group = rows["deal_id"].to_numpy() % groups
    present = np.unique(group)
    if present.size < 2:
        raise SimError(f"share_intervals: the rows hold {present.size} group(s) of deals; an interval needs two "
                       "or more")
    fits = [variance_shares(rows.filter(pl.Series(group != g)), value, factors)["shares"] for g in present]
    k = present.size
    out = {}
    for f, est in full.items():
        vals = np.array([fit[f] for fit in fits])
        se = math.sqrt((k - 1) / k * float(((vals - vals.mean()) ** 2).sum()))
        out[f] = {"estimate": est, "ci_low": max(0.0, est - Z95 * se), "ci_high": min(1.0, est + Z95 * se)}
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


def deals_text(estimate: float) -> str:
    """The critical repetitions as a count of deals to print: a better player needs at least
    one deal to be ahead, so an estimate below one (a lead far larger than its noise) reads 1."""
    return f"{max(estimate, 1.0):,.0f}"


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


# --- standings: the bots compared on the same deals (sim tournament, sim skill) ---------------------


def compare(rows: pl.DataFrame, policies: list[str], score_label: str = "mean score per round") -> dict:
    """The standings of seat results (:meth:`sim.games.family.Family.seat_results`, every
    seating's rows together): per policy ``mean_score`` (its score per ``per``),
    ``win_share``, ``decided_share`` and ``player_units``; ``pairs`` (each pair's
    differences, paired on the deals); ``ranking`` by mean score, saying for each policy
    whether the next is separated (its difference's interval excludes 0) or overlaps."""
    per = (rows.group_by("deal_id", "policy")
           .agg(pl.len().cast(pl.Float64).alias("n"), pl.col("per").sum(), pl.col("score").sum(),
                pl.col("won").sum(), pl.col("decided").sum())
           .pivot(on="policy", index="deal_id", values=["n", "per", "score", "won", "decided"])
           .fill_null(0).sort("deal_id"))
    out: dict = {"policies": {}, "pairs": [], "ranking": [], "deals": per.height, "score": score_label}

    def col(kind: str, p: str) -> np.ndarray:
        return per[f"{kind}_{p}"].cast(pl.Float64).to_numpy()

    # (key, numerator, denominator, a share?) of each measure: ratios over the deals
    measures = (("mean_score", "score", "per", False), ("win_share", "won", "n", True),
                ("decided_share", "won", "decided", True))
    for p in policies:
        out["policies"][p] = {key: _interval(ratio_interval(col(y, p), col(m, p), share))
                              for key, y, m, share in measures}
        out["policies"][p]["player_units"] = int(col("n", p).sum())
    diffs = {}
    for a, b in itertools.combinations(policies, 2):
        d = {"a": a, "b": b, **{key: _interval(ratio_difference(col(y, a), col(m, a), col(y, b), col(m, b)))
                                for key, y, m, _ in measures[:2]}}
        out["pairs"].append(d)
        diffs[(a, b)] = d["mean_score"]
        diffs[(b, a)] = {"estimate": -d["mean_score"]["estimate"], "ci_low": -d["mean_score"]["ci_high"],
                         "ci_high": -d["mean_score"]["ci_low"]}
    order = sorted(policies, key=lambda p: -out["policies"][p]["mean_score"]["estimate"])
    for i, p in enumerate(order):
        entry = {"rank": i + 1, "policy": p, "mean_score": out["policies"][p]["mean_score"]["estimate"]}
        if i + 1 < len(order):
            d = diffs[(p, order[i + 1])]
            entry["ahead_of_next"] = d
            entry["separated"] = bool(d["ci_low"] > 0)
        out["ranking"].append(entry)
    return out


def _interval(d: dict) -> dict:
    return {"estimate": float(d["estimate"]), "ci_low": float(d["ci_low"]), "ci_high": float(d["ci_high"])}


# --- a skill run: the ladder against a field (``sim skill``) ---------------------------------------
#
# Each bot of the ladder sits in one seat against the field (the beginner in every other seat),
# in each seat in turn, on the same duplicate deals: a variant per bot and seat (partition
# ``probe=expert/probe_seat=2``). So every bot meets the same cards, seats and opponents, and
# two bots compare deal by deal, as a duplicate bridge pair does: a bot "beats" another on a
# deal when it scored more there (the Elo ladder's shares). The rows analysed are the probe
# seats' (the field's own seats tell nothing about the ladder).

KIND = "skill"
LADDER = ("greedy", "careful", "expert", "search", "oracle")  # weakest first, as issue 22 lists them


def ladder(policies: tuple[str, ...], known: tuple[str, ...]) -> tuple[str, ...]:
    """The ladder to play: ``policies`` as given (checked: known, each once, two or more), or
    every bot of :data:`LADDER` the family has."""
    from sim.errors import RulesError
    from sim.games.family import split_policy

    names = policies or tuple(p for p in LADDER if p in known)
    for p in names:
        try:
            split_policy(p, known)
        except RulesError as e:
            raise SimError(f"--policies: {e}") from None
    if len(set(names)) != len(names):
        raise SimError(f"--policies {','.join(names)}: name each policy once")
    if len(names) < 2:
        raise SimError(f"--policies {','.join(names)}: a ladder needs two or more bots, e.g. greedy,expert")
    return names


def spec(variants: tuple, policies: tuple[str, ...], units: int, seed: int, chunk: int):
    """The run of ``sim skill``: for each rules variant (a run's one, or a grid's), a variant
    per bot of the ladder and seat, the first bot (the beginner) in every other seat."""
    from sim import runner

    players = {v.rules.players for v in variants}
    out = []
    for v in variants:
        n = v.rules.players
        for p in policies:
            for seat in range(n):
                seats = tuple(p if s == seat else policies[0] for s in range(n))
                out.append(runner.Variant(v.rules, (*v.partition, ("probe", p), ("probe_seat", str(seat))),
                                          policies=seats))
    step = max(players)
    units, chunk = runner.whole_deals(max(1, units // step), min(chunk, max(1, units // step)), max(players))
    return runner.RunSpec(tuple(out), units, seed, policies, chunk, kind=KIND, duplicate=True)


def probe_rows(ds) -> pl.DataFrame:
    """The probe seats' results of a skill dataset, one row per bot, seat and unit: the
    family's seat results with the variant's other keys, ``policy`` the bot as named (with
    its budget) and ``rate`` its score per round (card matches: per hand)."""
    from sim.games import family as family_named

    if ds.manifest.get("kind") != KIND:
        raise SimError(f"a {ds.manifest.get('kind')!r} dataset, not a skill run (sim skill --out)")
    family = family_named(ds.family)
    rows = []
    for v in ds.variants:
        part = v["partition"]
        where = [pl.col(k).cast(pl.String) == value for k, value in part.items()]
        tables = {name: t.filter(*where) for name, t in ds.tables.items()}
        seat = int(part["probe_seat"])
        r = family.seat_results(tables, ds.keys).collect().filter(pl.col("seat") == seat)
        keys = {k: pl.lit(value) for k, value in part.items() if k not in ("probe", "probe_seat")}
        rows.append(r.with_columns(policy=pl.lit(part["probe"]), **keys))
    rows = pl.concat(rows, how="diagonal_relaxed")
    # in one order whatever the order files are read in: the sums of the measures to the last bit
    order = [c for c in (*[k for k in ds.keys if k not in ("probe", "probe_seat")], "policy", "seat", "deal_id",
                         "dealt_hand") if c in rows.columns]
    return rows.sort(order).with_columns(rate=pl.col("score") / pl.col("per"))


def _beats(a: np.ndarray, b: np.ndarray) -> float:
    """The share of the deals on which ``a`` scored more than ``b`` (ties left out), kept off
    0 and 1 by half a deal so that a rating stays finite."""
    wins, losses = float((a > b).sum()), float((a < b).sum())
    n = wins + losses
    if n == 0:
        return 0.5
    return min(max(wins / n, 0.5 / n), 1 - 0.5 / n)


def measures(rows: pl.DataFrame, policies: tuple[str, ...], score_label: str) -> dict:
    """Everything ``sim skill`` reports of one rules variant's probe rows: the standings
    (each bot's mean score and win shares, the pairwise differences, paired on deals), the
    variance shares of a bot-unit's score (the deal's hand, the seat, the bot, the rest),
    relative skill of each bot between the first (beginner) and the last when it is the
    ``oracle`` (fictive), the critical repetitions of each bot over the one below it, and the
    Elo ladder from the deal-by-deal comparisons."""
    out = compare(rows, list(policies), score_label)
    luck = "dealt_hand" if "dealt_hand" in rows.columns else "deal_id"
    out["variance"] = variance_shares(rows, "rate", (luck, "seat", "policy"))
    out["variance"]["intervals"] = share_intervals(rows, "rate", (luck, "seat", "policy"))
    beginner, top = policies[0], policies[-1]
    out["relative_skill"] = {}
    if top.partition(":")[0] == "oracle":
        for p in policies[1:-1]:
            out["relative_skill"][p] = relative_skill(rows, beginner, p, top, "rate")
    g = _per_deal(rows, policies, "rate")
    out["critical_repetitions"] = [{"a": a, "b": b, **critical_repetitions(g[b] - g[a])}
                                   for a, b in itertools.pairwise(policies)]
    pairs = [(b, a, _beats(g[b], g[a])) for i, a in enumerate(policies) for b in policies[i + 1:]]
    out["elo"] = {**elo_ladder(pairs), "pairs": [{"a": a, "b": b, "share": s} for a, b, s in pairs]}
    return out


def skill(ds) -> dict:
    """A skill dataset's measures (:func:`measures`) for each of its rules variants (the keys
    other than the probe's), with the ladder, the family and the size."""
    from sim.games import family as family_named

    rows = probe_rows(ds)
    family = family_named(ds.family)
    policies = tuple(dict.fromkeys(v["partition"]["probe"] for v in ds.variants))
    keys = [k for k in ds.keys if k not in ("probe", "probe_seat")]
    combos = [dict(c) for c in dict.fromkeys(tuple((k, v["partition"][k]) for k in keys) for v in ds.variants)]
    variants = []
    for combo in combos:
        part = rows.filter(*[pl.col(k).cast(pl.String) == v for k, v in combo.items()]) if combo else rows
        variants.append({"variant": combo, **measures(part, policies, family.score_label)})
    return {"family": ds.family, "unit": family.unit, "units": family.units, "policies": list(policies),
            "field": policies[0],
            "deals": int(rows["deal_id"].n_unique()), "variants": variants}


def _ci(d: dict, fmt: str = "{:.3f}") -> str:
    return f"{fmt.format(d['estimate'])} [{fmt.format(d['ci_low'])}, {fmt.format(d['ci_high'])}]"


def format_skill(s: dict) -> list[str]:
    """A skill run's measures as lines a person reads."""
    lines = [f"{s['family']} skill ladder: {', '.join(s['policies'])}, each in every seat against "
             f"{s['field']} in the others, on {s['deals']:,} deals (each in every seat rotation; the critical "
             f"repetitions count such deals)"]
    for v in s["variants"]:
        name = ", ".join(f"{k}={x}" for k, x in v["variant"].items()) or "the rules as given"
        lines += ["", f"{name}:", f"  {'bot':<10}{v['score']:>30}{'win share':>28}"]
        for p, m in v["policies"].items():
            lines.append(f"  {p:<10}{_ci(m['mean_score'], '{:.2f}'):>30}{_ci(m['win_share'], '{:.1%}'):>28}")
        var = v["variance"]["intervals"]
        lines.append("  variance of a bot's score: " + ", ".join(
            f"{k.replace('_', ' ')} {_ci(x, '{:.1%}')}" for k, x in var.items()))
        bots = list(v["policies"])
        for p, r in v["relative_skill"].items():
            lines.append(f"  relative skill of {p} ({bots[0]} 0, {bots[-1]} 1): {_ci(r)}")
        for c in v["critical_repetitions"]:
            n = deals_text(c["estimate"]) if math.isfinite(c["estimate"]) else ""
            lines.append(f"  {c['b']} over {c['a']}: " + (f"ahead with 95% probability after {n} deal{'s' * (n != '1')}"
                                                         if n else "not ahead on average"))
        elo = v["elo"]
        lines.append("  Elo: " + ", ".join(f"{p} {r:.0f}" for p, r in elo["ratings"].items())
                     + f"; {elo['steps']:.1f} steps of 75% wins from the weakest to the strongest")
    return lines


def tables(s: dict) -> dict[str, pl.DataFrame]:
    """A skill run's measures (:func:`skill`) as tables, a row per variant and bot (or pair):
    ``bots`` (mean score, win share, relative skill, Elo; estimates with ``_ci_low`` and
    ``_ci_high``), ``variance`` (the shares of a bot's score variance), ``repetitions`` (the
    deals until each bot leads the one below it with 95% probability)."""
    bots, variance, reps = [], [], []
    for v in s["variants"]:
        name = ", ".join(f"{k}={x}" for k, x in v["variant"].items()) or "as given"
        for p, m in v["policies"].items():
            row = {"variant": name, "bot": p}
            for key in ("mean_score", "win_share"):
                row |= {key: m[key]["estimate"], f"{key}_ci_low": m[key]["ci_low"], f"{key}_ci_high": m[key]["ci_high"]}
            r = v["relative_skill"].get(p)
            row |= {"relative_skill": r["estimate"] if r else None, "relative_skill_ci_low": r["ci_low"] if r else None,
                    "relative_skill_ci_high": r["ci_high"] if r else None, "elo": v["elo"]["ratings"][p]}
            bots.append(row)
        row = {"variant": name}
        for k, x in v["variance"]["intervals"].items():
            row |= {f"{k}_share": x["estimate"], f"{k}_share_ci_low": x["ci_low"], f"{k}_share_ci_high": x["ci_high"]}
        variance.append({**row, "elo_steps": v["elo"]["steps"]})
        reps += [{"variant": name, "better": c["b"], "than": c["a"],
                  "deals": c["estimate"] if math.isfinite(c["estimate"]) else None} for c in v["critical_repetitions"]]
    return {"bots": pl.DataFrame(bots), "variance": pl.DataFrame(variance), "repetitions": pl.DataFrame(reps)}
