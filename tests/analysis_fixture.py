"""A tiny hand-made sweep (threshold_mode fixed / increasing, 2 players, 3 rounds) whose
answers are worked out by hand in tests/test_analysis.py."""

import json

import polars as pl

import sim
from sim import runner
from sim.games.rummy101.tables import FINISH, OPEN_KIND, POLICY
from sim.store import provenance, write_parquet

N = None
ROUNDS = {  # variant -> rows: (finish, winner, turns)
    "fixed": [("normal", 0, 10), ("stock_out", N, 40), ("joker", 1, 12)],
    "increasing": [("normal", 0, 10), ("stock_out", N, 38), ("normal", 1, 14)],
}
# (open_kind, open_turn, open_value, open_threshold, open_order, took_discard, rack_value, score)
PLAYERS = {
    "fixed": [
        [("melds", 2, 105, 101, 1, False, 0, 101), ("pairs", 3, 5, 5, 2, True, 20, -40)],
        [(N, N, N, N, N, N, 90, -202), ("melds", 1, 110, 101, 1, False, 7, -7)],
        [("melds", 4, 120, 101, 1, True, 15, -30), ("melds", 5, 101, 101, 2, False, 0, 202)],
    ],
    "increasing": [
        [("melds", 2, 105, 101, 1, False, 0, 101), ("melds", 3, 107, 106, 2, False, 12, -12)],
        [(N, N, N, N, N, N, 80, -202), (N, N, N, N, N, N, 70, -202)],
        [("melds", 2, 130, 101, 1, False, 9, -9), ("melds", 6, 131, 131, 2, False, 0, 101)],
    ],
}


def build(path) -> None:
    base = sim.preset("rummy101").replace(players=2)
    variants = runner.grid_variants(base, {"threshold_mode": ["fixed", "increasing"]})
    spec = runner.RunSpec(variants, 3, 0, ("greedy",), 3, kind="sweep")
    path.mkdir(parents=True, exist_ok=True)
    (path / "manifest.json").write_text(json.dumps(spec.manifest()))
    for v in variants:
        mode = v.rules.threshold_mode
        rounds = pl.DataFrame({
            "round_id": pl.Series([0, 1, 2], dtype=pl.Int64),
            "players": pl.Series([2] * 3, dtype=pl.Int8),
            "open_points": pl.Series([101] * 3, dtype=pl.Int16),
            "open_pairs": pl.Series([5] * 3, dtype=pl.Int8),
            "button_jokers": pl.Series([0] * 3, dtype=pl.Int8),
            "starter_may_open": [True] * 3,
            "policies": ["greedy"] * 3,
            "finish": pl.Series([r[0] for r in ROUNDS[mode]], dtype=FINISH),
            "winner_seat": pl.Series([r[1] for r in ROUNDS[mode]], dtype=pl.Int8),
            "turns": pl.Series([r[2] for r in ROUNDS[mode]], dtype=pl.Int16),
            "stock_left": pl.Series([0] * 3, dtype=pl.Int16),
        })
        rows = [(rid, seat, *p) for rid, seats in enumerate(PLAYERS[mode]) for seat, p in enumerate(seats)]
        cols = list(zip(*rows, strict=True))
        players = pl.DataFrame({
            "round_id": pl.Series(cols[0], dtype=pl.Int64),
            "seat": pl.Series(cols[1], dtype=pl.Int8),
            "policy": pl.Series(["greedy"] * len(rows), dtype=POLICY),
            "opened": [k is not None for k in cols[2]],
            "open_kind": pl.Series(cols[2], dtype=OPEN_KIND),
            "open_turn": pl.Series(cols[3], dtype=pl.Int16),
            "open_value": pl.Series(cols[4], dtype=pl.Int16),
            "open_threshold": pl.Series(cols[5], dtype=pl.Int16),
            "open_order": pl.Series(cols[6], dtype=pl.Int8),
            "took_discard": pl.Series(cols[7], dtype=pl.Boolean),
            "rack_value": pl.Series(cols[8], dtype=pl.Int16),
            "jokers_left": pl.Series([0] * len(rows), dtype=pl.Int8),
            "score": pl.Series(cols[9], dtype=pl.Int32),
            "turns": pl.Series([3] * len(rows), dtype=pl.Int16),
            "button_turn": pl.Series([None] * len(rows), dtype=pl.Int16),
        })
        meta = provenance("rounds", v.rules.to_json(), 0, partition=v.subdir)
        write_parquet(rounds, path / "rounds" / v.subdir / "part-0000000000.parquet", meta)
        write_parquet(players, path / "players" / v.subdir / "part-0000000000.parquet", meta)
