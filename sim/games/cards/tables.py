"""Chunks of card Rummy 101 matches as the three tables of a run: ``matches`` (one row per
match), ``hands`` (one per hand) and ``players`` (one per player and hand). The columns
are the public schema of the datasets (README, "Datasets")."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.cards import FINISHES, POLICIES
from sim.games.family import deal_columns, policy_column, rules_columns
from sim.rules import Rules
from sim.store import nullable

FINISH = pl.Enum(list(FINISHES))
POLICY = pl.Enum(list(POLICIES))
# The rules fields a card variant is swept over, a column each in the matches table.
VARIANT_FIELDS = ("players", "partners", "target", "decks", "hand_size", "rummy_factor", "rummy_layoffs")
# The tables' declared schemas (README, "Datasets"; tests/shared/test_family_contract.py).
SCHEMAS = {
    "matches": {"match_id": pl.Int64, "deal_id": pl.Int64, "rotation": pl.Int8, "players": pl.Int8,
                "partners": pl.Boolean, "target": pl.Int16, "decks": pl.Int16, "hand_size": pl.Int16,
                "rummy_factor": pl.Int16, "rummy_layoffs": pl.Boolean,
                "deal_size": pl.Int8, "policies": pl.String, "first_dealer": pl.Int8, "hands": pl.Int32,
                "washes": pl.Int32, "winner_seat": pl.Int8, "winner_team": pl.Int8, "winner_total": pl.Int32,
                "runner_up_total": pl.Int32},
    "hands": {"match_id": pl.Int64, "hand": pl.Int32, "dealer_seat": pl.Int8, "finish": FINISH,
              "winner_seat": pl.Int8, "points": pl.Int32, "turns": pl.Int16, "stock_left": pl.Int16},
    "players": {"match_id": pl.Int64, "hand": pl.Int32, "seat": pl.Int8, "team": pl.Int8, "policy": POLICY,
                "melded": pl.Int16, "cards_left": pl.Int8, "hand_value": pl.Int16, "score": pl.Int32,
                "total": pl.Int32},
}


def chunk_tables(rules: Rules, seed: int, start: int, count: int, policies: list[str],
                 drop: tuple[str, ...] = (), duplicate: bool = False,
                 tune: np.ndarray | None = None) -> dict[str, pl.DataFrame]:
    """Play matches ``start .. start+count-1``; the ``matches``, ``hands`` and ``players``
    tables. Columns named in ``drop`` (the hive partition's) are left to the path;
    ``duplicate``: every match played once per seat rotation of its deal, the matches
    carrying ``deal_id`` and ``rotation`` (:func:`sim.games.family.deal_columns`); ``tune``:
    the expert's constants per seat."""
    from sim.games.cards import engine as e
    from sim.games.cards.play import play_chunk, policy_codes, seat_budgets

    res = play_chunk(rules, seed, start, count, policy_codes(policies, rules.players), duplicate=duplicate,
                     tune=seat_budgets(policies, rules.players, tune))
    m, h, p = res.matches, res.hands, res.players
    if (m[:, e.M_ERROR] != 0).any():
        bad = int(np.flatnonzero(m[:, e.M_ERROR])[0])
        raise e.match_error(int(m[bad, e.M_ERROR]), start + bad, rules)
    players = rules.players
    match_id = np.arange(start, start + count, dtype=np.int64)
    winner = m[:, e.M_WINNER]
    matches = pl.DataFrame({
        "match_id": match_id,
        **deal_columns(match_id, players, duplicate),
        **rules_columns(rules, VARIANT_FIELDS, count, narrow=("players",)),
        "deal_size": np.full(count, rules.deal_size(), dtype=np.int8),  # C-SET-1: hand_size 0 by players
        "policies": [",".join(policies)] * count,
        "first_dealer": m[:, e.M_FIRST_DEALER].astype(np.int8),
        "hands": m[:, e.M_HANDS].astype(np.int32),
        "washes": m[:, e.M_WASHES].astype(np.int32),
        # C-MATCH-1 / C-TEAM-1: a seat wins a solo match, a team (0: seats 0 and 2) a partners one
        "winner_seat": nullable(winner, (winner >= 0) & (not rules.partners), np.int8),
        "winner_team": nullable(winner, (winner >= 0) & rules.partners, np.int8),
        "winner_total": m[:, e.M_WINNER_TOTAL].astype(np.int32),
        "runner_up_total": m[:, e.M_RUNNER_UP].astype(np.int32),
    })
    hand_winner = h[:, e.H_WINNER]
    hands = pl.DataFrame({
        "match_id": h[:, e.H_MATCH],
        "hand": h[:, e.H_HAND].astype(np.int32),
        "dealer_seat": h[:, e.H_DEALER].astype(np.int8),
        "finish": pl.Series([FINISHES[i] for i in h[:, e.H_FINISH]], dtype=FINISH),
        "winner_seat": nullable(hand_winner, hand_winner >= 0, np.int8),  # null: a wash
        "points": h[:, e.H_POINTS].astype(np.int32),
        "turns": h[:, e.H_TURNS].astype(np.int16),
        "stock_left": h[:, e.H_STOCK_LEFT].astype(np.int16),
    })
    n = h.shape[0]
    seats = np.tile(np.arange(players, dtype=np.int8), n)
    players_df = pl.DataFrame({
        "match_id": np.repeat(h[:, e.H_MATCH], players),
        "hand": np.repeat(h[:, e.H_HAND], players).astype(np.int32),
        "seat": seats,
        "team": seats % 2 if rules.partners else seats,  # C-TEAM-1: opposite seats together
        "policy": policy_column(policies, players, POLICIES, n),
        "melded": p[:, e.P_MELDED].astype(np.int16),
        "cards_left": p[:, e.P_CARDS_LEFT].astype(np.int8),
        "hand_value": p[:, e.P_HAND_VALUE].astype(np.int16),
        "score": p[:, e.P_SCORE].astype(np.int32),
        "total": p[:, e.P_TOTAL].astype(np.int32),
    })
    keep = [c for c in matches.columns if c not in drop]
    return {"matches": matches.select(keep), "hands": hands, "players": players_df}
