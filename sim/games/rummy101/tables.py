"""Chunks of Rummy 101 rounds as the two tables of a run: ``rounds`` (one row per round)
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
from sim.games.rummy101 import FINISHES, OPEN_KINDS, POLICIES
from sim.rules import Rules
from sim.store import nullable

FINISH = pl.Enum(list(FINISHES))
OPEN_KIND = pl.Enum(list(OPEN_KINDS))
POLICY = pl.Enum(list(POLICIES))
# The rules fields a column each in the rounds table (and a partition of a sweep).
VARIANT_FIELDS = ("players", "threshold_mode", "open_points", "open_pairs", "button_jokers", "starter_may_open")
# The tables' declared schemas (README, "Datasets"; tests/shared/test_family_contract.py).
SCHEMAS = {
    "rounds": round_schema(
        {"players": pl.Int8, "threshold_mode": pl.String, "open_points": pl.Int16, "open_pairs": pl.Int8,
         "button_jokers": pl.Int8, "starter_may_open": pl.Boolean},
        {"finish": FINISH, "winner_seat": pl.Int8, "turns": pl.Int16, "stock_left": pl.Int16}),
    "players": players_schema(POLICY, {
        "open_kind": OPEN_KIND, "open_turn": pl.Int16, "open_value": pl.Int16, "open_threshold": pl.Int16,
        "open_order": pl.Int8, "took_discard": pl.Boolean, "rack_value": pl.Int16, "jokers_left": pl.Int8,
        "score": pl.Int32, "turns": pl.Int16, "button_turn": pl.Int16}),
}


def chunk_tables(rules: Rules, seed: int, start: int, count: int, policies: list[str],
                 drop: tuple[str, ...] = (), duplicate: bool = False,
                 tune: np.ndarray | None = None) -> dict[str, pl.DataFrame]:
    """Play rounds ``start .. start+count-1`` (``duplicate``: deals played once per seat
    rotation; ``tune``: the expert's constants per seat); the ``rounds`` and ``players``
    tables. Columns named in ``drop`` (the hive partition's) are left to the path."""
    from sim.games.rummy101 import core
    from sim.games.rummy101 import engine as rnd
    from sim.games.rummy101.play import play_chunk, policy_codes, seat_budgets

    codes = policy_codes(policies, rules.players)
    res = play_chunk(rules, seed, start, count, codes, duplicate=duplicate,
                     tune=seat_budgets(policies, rules.players, tune))
    r, p = res.rounds, res.players
    check_engine_errors(r[:, rnd.R_ERROR], start)
    round_id = np.arange(start, start + count, dtype=np.int64)
    winner = r[:, rnd.R_WINNER]
    rounds = pl.DataFrame({
        "round_id": round_id,
        **deal_columns(round_id, rules.players, duplicate),
        **rules_columns(rules, VARIANT_FIELDS, count, narrow=("players", "open_pairs", "button_jokers")),
        "policies": [",".join(policies)] * count,
        "finish": pl.Series([FINISHES[i] for i in r[:, rnd.R_FINISH]], dtype=FINISH),
        "winner_seat": nullable(winner, winner >= 0, np.int8),  # T-END-1: no winner
        "turns": r[:, rnd.R_TURNS].astype(np.int16),
        "stock_left": r[:, rnd.R_STOCK_LEFT].astype(np.int16),
    })
    n, players = count, rules.players
    kind = p[:, :, rnd.P_OPEN_KIND].reshape(-1)
    opened = kind != core.OPEN_NONE

    def when_opened(col: np.ndarray, dtype) -> pl.Series:
        return nullable(col, opened, dtype)

    flat = p.reshape(n * players, rnd.P_LEN)
    players_df = pl.DataFrame({
        "round_id": np.repeat(round_id, players),
        "seat": np.tile(np.arange(players, dtype=np.int8), n),
        "policy": policy_column(policies, players, POLICIES, n),
        "opened": opened,
        "open_kind": pl.Series([None, *OPEN_KINDS][k] for k in kind).cast(OPEN_KIND),
        "open_turn": when_opened(flat[:, rnd.P_OPEN_TURN], np.int16),
        "open_value": when_opened(flat[:, rnd.P_OPEN_VALUE], np.int16),
        "open_threshold": when_opened(flat[:, rnd.P_OPEN_THRESHOLD], np.int16),
        "open_order": when_opened(flat[:, rnd.P_OPEN_ORDER], np.int8),
        "took_discard": when_opened(flat[:, rnd.P_TOOK_DISCARD], np.bool_),
        "rack_value": flat[:, rnd.P_RACK_VALUE].astype(np.int16),
        "jokers_left": flat[:, rnd.P_JOKERS_LEFT].astype(np.int8),
        "score": flat[:, rnd.P_SCORE].astype(np.int32),
        "turns": flat[:, rnd.P_TURNS].astype(np.int16),
        "button_turn": nullable(flat[:, rnd.P_BUTTON_TURN], flat[:, rnd.P_BUTTON_TURN] > 0, np.int16),
    })
    keep_rounds = [c for c in rounds.columns if c not in drop]
    return {"rounds": rounds.select(keep_rounds), "players": players_df}
