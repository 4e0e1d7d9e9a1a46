"""Chunks of Rummikub rounds as the two tables of a run: ``rounds`` (one row per round)
and ``players`` (one row per player per round). The columns are the public schema of
the datasets (README, "Datasets")."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.family import (
    check_engine_errors,
    deal_columns,
    players_schema,
    policy_column,
    round_schema,
    rules_columns,
)
from sim.games.rummikub import FINISHES, POLICIES
from sim.rules import Rules
from sim.store import nullable

FINISH = pl.Enum(list(FINISHES))
POLICY = pl.Enum(list(POLICIES))
# The K-VAR fields, a column each in the rounds table (and a partition of a sweep).
VARIANT_FIELDS = ("open_points", "joker_penalty", "wrap_runs", "locked_jokers", "easing_open",
                  "easing_step", "easing_every", "easing_floor", "last_call", "joker_moves")
# The tables' declared schemas (README, "Datasets"; tests/shared/test_family_contract.py).
SCHEMAS = {
    "rounds": round_schema(
        {"players": pl.Int8, "open_points": pl.Int16, "joker_penalty": pl.Int16, "wrap_runs": pl.Boolean,
         "locked_jokers": pl.Boolean, "easing_open": pl.Boolean, "easing_step": pl.Int16, "easing_every": pl.Int16,
         "easing_floor": pl.Int16, "last_call": pl.Boolean, "joker_moves": pl.String},
        {"finish": FINISH, "winner_seat": pl.Int8, "winners": pl.List(pl.Int8), "turns": pl.Int16,
         "pool_left": pl.Int16, "table_tiles": pl.Int16}),
    "players": players_schema(POLICY, {
        "open_turn": pl.Int16, "open_value": pl.Int16, "open_threshold": pl.Int16, "tiles_placed": pl.Int16,
        "draws": pl.Int16, "turns": pl.Int16, "rack_tiles": pl.Int16, "rack_value": pl.Int16, "jokers_left": pl.Int8,
        "score": pl.Float64}),
}


def chunk_tables(rules: Rules, seed: int, start: int, count: int, policies: list[str],
                 drop: tuple[str, ...] = (), duplicate: bool = False,
                 tune: np.ndarray | None = None) -> dict[str, pl.DataFrame]:
    """Play rounds ``start .. start+count-1`` (``duplicate``: deals played once per seat
    rotation); the ``rounds`` and ``players`` tables. Columns named in ``drop`` (the
    hive partition's) are left to the path."""
    from sim.games.rummikub import engine as e
    from sim.games.rummikub.play import play_chunk, policy_codes, seat_budgets

    codes = policy_codes(policies, rules.players)
    res = play_chunk(rules, seed, start, count, codes, duplicate=duplicate,
                     tune=seat_budgets(policies, rules.players, tune))
    r, p = res.rounds, res.players
    check_engine_errors(r[:, e.R_ERROR], start)
    players = rules.players
    round_id = np.arange(start, start + count, dtype=np.int64)
    winner = r[:, e.R_WINNER]
    mask = r[:, e.R_WINNERS]
    winners = [[s for s in range(players) if (m >> s) & 1] for m in mask]
    rounds = pl.DataFrame({
        "round_id": round_id,
        **deal_columns(round_id, rules.players, duplicate),
        **rules_columns(rules, ("players", *VARIANT_FIELDS), count, narrow=("players",)),
        "policies": [",".join(policies)] * count,
        "finish": pl.Series([FINISHES[i] for i in r[:, e.R_FINISH]], dtype=FINISH),
        "winner_seat": nullable(winner, winner >= 0, np.int8),  # null: a shared win (K-END-2)
        "winners": pl.Series(winners, dtype=pl.List(pl.Int8)),
        "turns": r[:, e.R_TURNS].astype(np.int16),
        "pool_left": r[:, e.R_POOL_LEFT].astype(np.int16),
        "table_tiles": r[:, e.R_TABLE_TILES].astype(np.int16),
    })
    flat = p.reshape(count * players, e.P_LEN)
    opened = flat[:, e.P_OPEN_TURN] > 0

    def when_opened(col: int) -> pl.Series:
        return nullable(flat[:, col], opened, np.int16)

    players_df = pl.DataFrame({
        "round_id": np.repeat(round_id, players),
        "seat": np.tile(np.arange(players, dtype=np.int8), count),
        "policy": policy_column(policies, players, POLICIES, count),
        "opened": opened,
        "open_turn": when_opened(e.P_OPEN_TURN),
        "open_value": when_opened(e.P_OPEN_VALUE),
        "open_threshold": when_opened(e.P_OPEN_THRESHOLD),
        "tiles_placed": flat[:, e.P_TILES_PLACED].astype(np.int16),
        "draws": flat[:, e.P_DRAWS].astype(np.int16),
        "turns": flat[:, e.P_TURNS].astype(np.int16),
        "rack_tiles": flat[:, e.P_RACK_TILES].astype(np.int16),
        "rack_value": flat[:, e.P_RACK_VALUE].astype(np.int16),
        "jokers_left": flat[:, e.P_JOKERS_LEFT].astype(np.int8),
        # K-END-2: a gain shared by tied winners may be a fraction (kept exactly in twelfths)
        "score": flat[:, e.P_SCORE] / e.SCORE_UNIT,
    })
    keep_rounds = [c for c in rounds.columns if c not in drop]
    return {"rounds": rounds.select(keep_rounds), "players": players_df}
