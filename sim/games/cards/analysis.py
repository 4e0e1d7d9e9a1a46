"""Answers from card Rummy 101 datasets (the ``matches``, ``hands`` and ``players`` tables of
a run or sweep): who wins matches by seat, team and first dealer, how long matches last,
how hands end and what going rummy is worth, the points of a hand, the chance to come
back from behind, and (through :func:`sim.analysis.compare_variants`) the paired effect
of ``target``, ``decks``, ``partners`` and the deal size.

The functions are reached as ``sim.analysis.<name>`` (this module's ``__all__``) and take
a :class:`sim.analysis.Dataset`. Every interval is a 95% one; those pooling the hands or
players of a match are cluster-robust, a match being one cluster (its hands share the
players and their running totals). ``by`` names the columns to group by: the variant
columns of a sweep and ``players``, ``partners``, ``target``, ``decks``, ``deal_size``
(copied onto every table).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from sim.analysis import (
    DEN,
    NUM,
    Dataset,
    category_shares,
    clustered_intervals,
    clustered_intervals_many,
    group_columns,
    wilson_shares,
    with_intervals,
)
from sim.games.cards.rules import CardRules
from sim.games.family import deal_shape, dealt_hand

__all__ = ["comeback", "first_dealer_wins", "hand_finishes", "hands_per_match", "match_wins", "points_per_hand",
           "rummy_worth"]

# Rules columns of the matches table copied onto the hands and players rows.
FACTS = ("players", "partners", "target", "decks", "hand_size", "deal_size", "rummy_factor", "rummy_layoffs")
DEFAULT_BY = ("players", "partners")


def dataset_tables(path: Path, keys: tuple[str, ...]) -> dict[str, pl.LazyFrame]:
    """The three tables as lazy scans: ``hands`` and ``players`` joined with their match's
    rules columns and ``first_dealer``, ``match_winner_seat``, ``match_winner_team`` and
    ``match_hands``; ``players`` with its hand's ``finish``, ``hand_winner_seat`` and
    ``points`` too."""
    def scan(table: str) -> pl.LazyFrame:
        return pl.scan_parquet(str(Path(path) / table / "**" / "*.parquet"), hive_partitioning=True)

    matches = scan("matches")
    names = matches.collect_schema().names()
    old = {a: b for a, b in CardRules.renamed.items() if a in names and a not in keys}  # data of the one-class rules
    matches, names = matches.rename(old), [old.get(n, n) for n in names]
    facts = [c for c in FACTS if c not in keys and c in names]
    on = ["match_id", *keys]
    m = matches.select(*on, *facts, "first_dealer", pl.col("winner_seat").alias("match_winner_seat"),
                       pl.col("winner_team").alias("match_winner_team"), pl.col("hands").alias("match_hands"))
    hands = scan("hands").join(m, on=on, how="left")
    players = scan("players").join(m, on=on, how="left").join(
        hands.select(*on, "hand", "finish", pl.col("winner_seat").alias("hand_winner_seat"), "points"),
        on=[*on, "hand"], how="left")
    return {"matches": matches, "hands": hands, "players": players}


def seat_results(tables: dict[str, pl.LazyFrame | pl.DataFrame], keys: Sequence[str] = ()) -> pl.LazyFrame:
    """One row per seat and match of a run's ``tables`` (:meth:`sim.games.family.Family.seat_results`):
    ``deal_id`` (a duplicate run's rotations share it; otherwise the match), ``seat``,
    ``policy``, ``won`` (the seat, or with partners its team, won the match: C-MATCH-1,
    C-TEAM-1), ``decided`` (the match has a winner), ``score`` (the seat's points over the
    match), ``per`` (the match's hands, washes included) and ``dealt_hand``
    (:func:`sim.games.family.dealt_hand`)."""
    on = ["match_id", *keys]
    matches = tables["matches"].lazy()
    names = matches.collect_schema().names()
    deal = pl.col("deal_id") if "deal_id" in names else pl.col("match_id").alias("deal_id")
    matches = matches.select(*on, deal, "winner_seat", "winner_team", *(["partners"] if "partners" not in on else []),
                             *deal_shape(names, on))
    per_seat = (tables["players"].lazy().group_by(*on, "seat")
                .agg(pl.col("policy").first().cast(pl.String), pl.col("score").sum().cast(pl.Float64),
                     pl.len().cast(pl.Float64).alias("per")))
    side = pl.when(pl.col("partners")).then(pl.col("seat") % 2 == pl.col("winner_team")).otherwise(
        pl.col("seat") == pl.col("winner_seat"))
    return (per_seat.join(matches, on=on, how="left")
            .select("deal_id", pl.col("seat").cast(pl.Int8), "policy",
                    side.fill_null(False).cast(pl.Float64).alias("won"),
                    pl.coalesce("winner_seat", "winner_team").is_not_null().cast(pl.Float64).alias("decided"),
                    "score", "per", dealt_hand()))


def _winner() -> pl.Expr:
    """The side that won a match: its seat, or with partners its team."""
    return pl.coalesce("winner_seat", "winner_team")


def match_wins(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """The share of matches each seat (with partners: each team, 0 for seats 0 and 2)
    wins (C-MATCH-1, C-TEAM-1).

    Columns: ``*by``, ``side`` (the seat or team), ``k`` (matches won), ``n`` (matches),
    ``share``, ``ci_low``, ``ci_high`` (Wilson). Default ``by``: the variant columns,
    ``players`` and ``partners``.
    """
    group = group_columns(ds, by, DEFAULT_BY)
    lf = ds.rounds.with_columns(_winner().alias("side"))
    return category_shares(ds, lf, group, "side")


def first_dealer_wins(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Match wins by position from the first dealer (C-SET-2: match ``m`` is first dealt by
    seat ``m % players``): position 0 is the seat that deals first, 1 the one that plays
    first, and so on; with partners, 0 is the first dealer's team.

    Columns: ``*by``, ``position``, ``k``, ``n``, ``share``, ``ci_low``, ``ci_high``.
    """
    group = group_columns(ds, by, DEFAULT_BY)
    sides = pl.when(pl.col("partners")).then(2).otherwise(pl.col("players"))
    lf = ds.rounds.with_columns(((_winner().cast(pl.Int16) - pl.col("first_dealer")) % sides).alias("position"))
    return category_shares(ds, lf, group, "position")


def hands_per_match(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """How long matches last: mean hands and washes per match, and the final totals.

    Columns: ``*by``, ``matches``, ``hands``, ``hands_ci_low``, ``hands_ci_high``,
    ``washes``, ``washes_ci_low``, ``washes_ci_high``, ``winner_total``,
    ``runner_up_total``, ``hands_p50``, ``hands_p90``.
    """
    group = group_columns(ds, by, DEFAULT_BY)
    agg = [pl.len().alias("matches"), pl.col("hands").mean(), pl.col("washes").mean(),
           pl.col("winner_total").mean(), pl.col("runner_up_total").mean(),
           pl.col("hands").quantile(0.5).alias("hands_p50"), pl.col("hands").quantile(0.9).alias("hands_p90")]
    df = (ds.rounds.group_by(*group).agg(*agg).sort(*group) if group else ds.rounds.select(*agg)).collect()
    ci = clustered_intervals_many(ds, ds.rounds, group, {"hands_": (pl.col("hands"), False),
                                                 "washes_": (pl.col("washes"), False)})
    df = df.join(ci, on=group, how="left", nulls_equal=True) if group else pl.concat([df, ci], how="horizontal")
    return df.select(*group, "matches", "hands", "hands_ci_low", "hands_ci_high", "washes", "washes_ci_low",
                     "washes_ci_high", "winner_total", "runner_up_total", "hands_p50", "hands_p90")


def hand_finishes(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """How hands end: out (C-OUT-1), rummy (C-SCORE-2) or wash (C-WASH-1), with the mean
    points of the hands ending that way.

    Columns: ``*by``, ``finish``, ``k``, ``n`` (hands), ``share``, ``ci_low``, ``ci_high``
    (a match's hands clustered), ``points``.
    """
    group = group_columns(ds, by, DEFAULT_BY)
    return category_shares(ds, ds.tables["hands"], group, "finish", {"points": pl.col("points")})


def rummy_worth(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """What going rummy is worth: among the hands someone went out of, the share gone
    rummy, the mean points of a rummy hand and of a plain one, and the share of all points
    scored that came from rummy hands.

    Columns: ``*by``, ``hands``, ``points``, ``points_ci_low``, ``points_ci_high`` (the mean
    points of a scored hand), ``rummy_share``, ``rummy_share_ci_low``,
    ``rummy_share_ci_high``, ``rummy_points``, ``rummy_points_ci_low``,
    ``rummy_points_ci_high``, ``out_points``, ``out_points_ci_low``,
    ``out_points_ci_high``, ``points_from_rummy``.
    """
    group = group_columns(ds, by, DEFAULT_BY)
    scored = ds.tables["hands"].filter(pl.col("finish") != "wash")
    rummy = pl.col("finish") == "rummy"
    points = pl.col("points").cast(pl.Float64)
    agg = [pl.len().alias("hands"), points.mean().alias("points"), rummy.mean().alias("rummy_share"),
           points.filter(rummy).mean().alias("rummy_points"), points.filter(~rummy).mean().alias("out_points"),
           (points.filter(rummy).sum() / points.sum()).alias("points_from_rummy")]
    df = (scored.group_by(*group).agg(*agg).sort(*group) if group else scored.select(*agg)).collect()
    ci = clustered_intervals_many(ds, scored, group, {
        "points_": (points, False),
        "rummy_share_": (rummy, True),
        "rummy_points_": (pl.when(rummy).then(points), False),
        "out_points_": (pl.when(~rummy).then(points), False)})
    df = df.join(ci, on=group, how="left", nulls_equal=True) if group else pl.concat([df, ci], how="horizontal")
    return df.select(*group, "hands", *[f"{m}{s}" for m in ("points", "rummy_share", "rummy_points", "out_points")
                                         for s in ("", "_ci_low", "_ci_high")], "points_from_rummy")


def points_per_hand(ds: Dataset, by: Sequence[str] | None = None, width: int = 10) -> pl.DataFrame:
    """The distribution of a scored hand's points (washes left out), in bins of ``width``.

    Columns: ``*by``, ``points`` (the bin's lower edge), ``k``, ``n``, ``share``,
    ``ci_low``, ``ci_high``, ``mean`` (the mean points of the hands of the group).
    """
    group = group_columns(ds, by, DEFAULT_BY)
    scored = ds.tables["hands"].filter(pl.col("finish") != "wash").with_columns(
        (pl.col("points") // width * width).alias("bin"))
    df = category_shares(ds, scored, group, "bin").rename({"bin": "points"})
    means = (scored.group_by(*group).agg(pl.col("points").mean().alias("mean")) if group
             else scored.select(pl.col("points").mean().alias("mean"))).collect()
    return df.join(means, on=group, how="left", nulls_equal=True) if group else df.join(means, how="cross")


def comeback(ds: Dataset, deficits: Sequence[int] = (10, 25, 50, 75, 100),
             by: Sequence[str] | None = None) -> pl.DataFrame:
    """The chance to come back: of the seats (with partners, teams) that trailed the
    leader by at least ``N`` points after some hand, the share that won the match anyway.

    Columns: ``*by``, ``deficit`` (N), ``k`` (won), ``n`` (seats or teams that trailed
    by N), ``share``, ``ci_low``, ``ci_high`` (clustered by match).
    """
    group = group_columns(ds, by, DEFAULT_BY)
    on = ["match_id", *ds.keys]
    side = pl.when(pl.col("partners")).then(pl.col("team")).otherwise(pl.col("seat")).alias("side")
    keep = [c for c in group if c not in on]
    totals = (ds.players.with_columns(side)
              .group_by(*on, *keep, "hand", "side")
              .agg(pl.col("total").sum(), pl.col("match_winner_seat").first(), pl.col("match_winner_team").first()))
    behind = totals.with_columns((pl.col("total").max().over([*on, "hand"]) - pl.col("total")).alias("deficit"))
    worst = (behind.group_by(*on, *keep, "side")
             .agg(pl.col("deficit").max(),
                  (pl.coalesce("match_winner_seat", "match_winner_team").first() == pl.col("side").first())
                  .alias("won")))
    rows = []
    for n in deficits:
        trailed = worst.filter(pl.col("deficit") >= n).with_columns(pl.lit(n).alias("deficit"))
        rows.append(trailed)
    lf = pl.concat(rows)
    keys = [*group, "deficit"]
    df = lf.group_by(*keys).agg(pl.col("won").sum().alias("k"), pl.len().alias("n")).sort(*keys).collect()
    return with_intervals(wilson_shares(df), clustered_intervals(ds, lf, keys, pl.col("won"), True), keys)


# --- the per-match metrics of sim.analysis.compare_variants ------------------------------------------

UNIT_METRICS = {
    "hands": "hands per match, washes included",
    "wash_share": "share of the hands washed out (C-WASH-1), pooled over the matches' hands",
    "rummy_share": "share of the hands won by going rummy (C-SCORE-2), pooled over the matches' hands",
    "mean_points": "mean points of a scored hand, pooled over the matches' hands",
    "seat0_win": "share of matches won by seat 0 (with partners, team 0)",
    "first_dealer_win": "share of matches won by the first dealer (with partners, its team)",
    "first_dealer_edge": "the first dealer's match wins over an even split between the sides",
    "margin": "the winner's total minus the runner-up's",
}


def unit_metrics(ds: Dataset) -> pl.LazyFrame:
    """One row per match and variant with :data:`UNIT_METRICS`. The three over hands are
    ratios (:data:`sim.analysis.NUM`): their paired effects pool the hands of a variant, so
    a longer match does not show more washes by having more hands (it always ends on a
    scored one) and the effects are differences of what :func:`hand_finishes` prints."""
    on = ["match_id", *ds.keys]
    scored = pl.col("finish") != "wash"
    per_match = ds.tables["hands"].group_by(*on).agg(
        (pl.col("finish") == "wash").mean().alias("wash_share"),
        (pl.col("finish") == "rummy").mean().alias("rummy_share"),
        pl.col("points").filter(scored).cast(pl.Float64).mean().alias("mean_points"),
        (pl.col("finish") == "wash").sum().cast(pl.Float64).alias(f"wash_share{NUM}"),
        (pl.col("finish") == "rummy").sum().cast(pl.Float64).alias(f"rummy_share{NUM}"),
        pl.len().cast(pl.Float64).alias(f"wash_share{DEN}"),
        pl.len().cast(pl.Float64).alias(f"rummy_share{DEN}"),
        pl.col("points").filter(scored).sum().cast(pl.Float64).alias(f"mean_points{NUM}"),
        scored.sum().cast(pl.Float64).alias(f"mean_points{DEN}"))
    sides = pl.when(pl.col("partners")).then(2).otherwise(pl.col("players"))
    winner = _winner().cast(pl.Int16)
    matches = ds.rounds.select(
        *on, pl.col("hands").cast(pl.Float64),
        (winner == 0).cast(pl.Float64).alias("seat0_win"),
        (((winner - pl.col("first_dealer")) % sides) == 0).cast(pl.Float64).alias("first_dealer_win"),
        ((((winner - pl.col("first_dealer")) % sides) == 0).cast(pl.Float64)
         - winner.is_not_null().cast(pl.Float64) / sides).alias("first_dealer_edge"),
        (pl.col("winner_total") - pl.col("runner_up_total")).cast(pl.Float64).alias("margin"))
    return matches.join(per_match, on=on)
