"""Rummikub rounds (docs/rules.md section K): the engine against the independent referee
(sim.games.rummikub.referee) over random rounds of every house rule, scenario rounds
from fixed tile orders for every end and score line, the referee catching broken
traces, the published JSON schema, and the same data whatever the chunking."""

import copy
import itertools
import json
from fractions import Fraction

import polars as pl
import pytest

import sim
from sim.games.rummikub import engine as e
from sim.games.rummikub import play
from sim.games.rummikub.referee import expected_scores, referee
from sim.games.rummikub.trace import format_trace, round_json
from sim.games.rummikub.trace import rack_points as points
from sim.tiles import KINDS, number_of, tile_name
from tests.decks import deck_from

RUMMIKUB = sim.preset("rummikub")
VARIANTS = {
    "standard": {},
    "open_50": {"open_points": 50},
    "joker_25": {"joker_penalty": 25},
    "wrap_runs": {"wrap_runs": True},
    "locked_jokers": {"locked_jokers": True},
    "easing_open": {"easing_open": True, "open_points": 50},
    "last_call": {"last_call": True},
    "together": {"wrap_runs": True, "locked_jokers": True, "easing_open": True, "last_call": True,
                 "open_points": 50, "joker_penalty": 25},
    "joker_moves_free": {"joker_moves": "free"},
    "locked_jokers_free": {"locked_jokers": True, "joker_moves": "free"},
}
ROUNDS = 35  # per variant, player count and bot mix: 10 x 3 x 2 x 35 = 2,100 rounds


def traced(rules, seed, round_id, policies, deck=None):
    t = play.trace_round(rules, seed, round_id, play.policy_codes(policies, rules.players), deck=deck)
    assert int(t.counters[e.G_ERROR]) == 0
    return t, round_json(t, seed if deck is None else None, round_id if deck is None else None)


def positions(trace):
    """Every event of a traced round with the position its seat met: ``(event, its rack as
    a Counter, the table's melds as text, whether it had opened)``, before the event."""
    from collections import Counter

    racks = [Counter(r) for r in trace["deal"]["racks"]]
    table: list[str] = []
    opened = set()
    for ev in trace["events"]:
        p, action = ev["seat"], ev["action"]
        yield ev, racks[p], table, p in opened
        if action == "draw":
            racks[p][ev["tile"]] += 1
        elif action == "open":
            opened.add(p)
            racks[p] -= Counter("J" if t.startswith("J(") else t for m in ev["melds"] for t in m)
            table = table + [" ".join(m) for m in ev["melds"]]
        elif action == "play":
            racks[p] -= Counter(ev["placed"])
            table = [" ".join(m) for m in ev["table"]]


def _wraps(meld):
    nums = [number_of(sim.tiles.parse_tile(t[2:-1] if t.startswith("J(") else t)) for t in meld]
    return any(b < a for a, b in itertools.pairwise(nums))


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.slow
def test_referee_accepts_every_round_of_every_house_rule(variant):
    """K-SET-1 .. K-END-2 and K-VAR: 2-4 players, both bots alone and mixed. (The pool
    seldom runs dry with these bots: blocked and last-call ends have scenario tests.)"""
    seen = {"wrap": 0, "eased": 0, "out": 0, "freed": 0}
    for players in (2, 3, 4):
        rules = RUMMIKUB.replace(players=players, **VARIANTS[variant])
        for mix in (["greedy"], ["careful", "greedy", "careful", "greedy"][:players]):
            for round_id in range(ROUNDS):
                _, trace = traced(rules, 2026, round_id, mix)
                problems = referee(trace)
                assert problems == [], (variant, players, mix, round_id, problems)
                res = trace["result"]
                seen["out"] += res["finish"] == "out"
                seen["eased"] += any(ev["action"] == "open" and ev["bar"] < rules.open_points
                                     for ev in trace["events"])
                seen["wrap"] += any(_wraps(m) for ev in trace["events"] if ev["action"] == "play"
                                    for m in ev["table"])
                seen["freed"] += sum(len(ev["freed"]) for ev in trace["events"] if ev["action"] == "play")
    assert seen["out"] > 0
    if variant in ("wrap_runs", "together"):
        assert seen["wrap"] > 0  # wrap-around runs are met, not only allowed
    if variant == "easing_open":
        assert seen["eased"] > 0
    # K-JOKER-2: bound table jokers are freed by rack tiles now and then; free ones never need it
    if rules.joker_moves == "bound" and not rules.wrap_runs:
        assert seen["freed"] > 0
    if rules.joker_moves == "free" and not rules.locked_jokers:
        assert seen["freed"] == 0


@pytest.mark.slow
def test_K_JOKER_1_locked_jokers_are_retrieved_and_never_moved():
    """With locked_jokers a joker meld stays as it is unless its joker is freed by the exact
    tile (the referee checks every play); over 300 rounds some jokers are freed."""
    rules = RUMMIKUB.replace(locked_jokers=True)
    freed = 0
    for round_id in range(300):
        _, trace = traced(rules, 17, round_id, ["greedy"])
        assert referee(trace) == [], round_id
        before: list[list[str]] = []
        for ev in trace["events"]:
            if ev["action"] == "open":
                before = before + ev["melds"]
            elif ev["action"] == "play":
                jokers_before = {tuple(m) for m in before if any(t.startswith("J(") for t in m)}
                after = {tuple(m) for m in ev["table"]}
                freed += sum(1 for m in jokers_before if m not in after)
                before = ev["table"]
    assert freed > 0


# --- scenario rounds from fixed tile orders ---------------------------------------------------

OUT_IN_ONE = "R1 R2 R3 R4 R5 R6 R7 B10 K10 Y10 R11 B11 K11 Y11"  # 102 points, all melds
JUNK = "K1 B7 Y2 R4 K9 B12 Y5 R8 K3 B10 Y13 R1 K6 B4"  # 85 points, no meld


def test_K_END_1_a_player_who_lays_the_last_tile_wins_the_others_racks():
    rules = RUMMIKUB.replace(players=2)
    _, trace = traced(rules, 0, 0, ["greedy"], deck_from([OUT_IN_ONE, JUNK]))
    assert referee(trace) == []
    assert trace["result"]["finish"] == "out" and trace["result"]["winners"] == [0]
    assert trace["result"]["scores"] == [85, -85]
    assert [ev["action"] for ev in trace["events"]] == ["open", "end"]


@pytest.mark.parametrize("joker_penalty", [30, 25])
def test_K_END_1_a_joker_left_costs_the_joker_penalty(joker_penalty):
    rules = RUMMIKUB.replace(players=2, joker_penalty=joker_penalty)
    _, trace = traced(rules, 0, 0, ["greedy"], deck_from([OUT_IN_ONE, JUNK.replace("B4", "J")]))
    assert referee(trace) == []
    assert trace["result"]["scores"] == [81 + joker_penalty, -(81 + joker_penalty)]


def _tie_deck():
    """Three players, one joker: seats 0 and 1 hold the same tiles all round (the 35 lowest
    kinds, a copy each), seat 2 the rest; the pool's triples keep it so."""
    low = sorted(range(KINDS), key=lambda k: (number_of(k), k))[:35]
    high = [k for k in range(KINDS) if k not in low]
    high_tiles = [tile_name(k) for k in high for _ in range(2)] + ["J"]
    lows = [tile_name(k) for k in low]
    seats = [" ".join(lows[:14]), " ".join(lows[:14]), " ".join(high_tiles[:14])]
    pool = []
    for i in range(21):
        pool += [lows[14 + i], lows[14 + i], high_tiles[14 + i]]
    return deck_from(seats, " ".join(pool), jokers=1), lows, high_tiles


@pytest.mark.parametrize("last_call", [False, True])
def test_K_END_2_tied_lowest_racks_share_the_gain(last_call):
    """Nobody can open (bar 1000): the pool runs dry, then every player passes (K-END-2) or
    has one more turn (last_call); seats 0 and 1 tie lowest and share seat 2's difference."""
    rules = RUMMIKUB.replace(players=3, jokers=1, open_points=1000, last_call=last_call)
    deck, lows, highs = _tie_deck()
    _, trace = traced(rules, 0, 0, ["greedy"], deck)
    assert referee(trace) == []
    low, high = points(lows, 30), points(highs, 30)
    res = trace["result"]
    assert res["finish"] == ("last_call" if last_call else "blocked")
    assert res["winners"] == [0, 1]
    assert res["scores"] == [Fraction(high - low, 2), Fraction(high - low, 2), low - high]
    passes = [ev for ev in trace["events"] if ev["action"] == "pass"]
    assert len(passes) == 3  # K-END-2: a full round of passes; last_call: one more turn each


def test_K_END_2_worked_example_racks_12_30_47():
    """The seed's worked example: racks of 12, 30 and 47 points give +53, -18, -35."""
    racks = [sim.tiles.parse_rack(r) for r in ("R5 B7", "K10 Y10 R10", "R13 B13 K13 Y8")]
    from collections import Counter

    counters = [Counter(str(r).split()) for r in racks]
    assert [points(str(r).split(), 30) for r in racks] == [12, 30, 47]
    winners, scores = expected_scores(counters, "blocked", RUMMIKUB)
    assert winners == [0] and scores == [53, -18, -35]


def test_K_VAR_easing_open_lowers_the_bar_every_three_turns():
    """Seat 0 holds a 27-point run: below the bar of 30 for three turns, then the bar
    eases to 25 (K-VAR easing_open: 5 points after every 3 turns without opening)."""
    seats = ["R8 R9 R10 B1 K3 Y5 B7 K11 Y13 R1 B4 K6 Y9 B12",
             "R2 B3 K5 Y6 R12 B13 K1 Y3 R5 B6 K8 Y10 R13 B9"]
    pool = "Y2 Y12 K13 K2 Y7 R7"
    eased = RUMMIKUB.replace(players=2, easing_open=True)
    _, trace = traced(eased, 0, 0, ["greedy"], deck_from(seats, pool))
    assert referee(trace) == []
    opening = next(ev for ev in trace["events"] if ev["action"] == "open" and ev["seat"] == 0)
    assert (opening["turn"], opening["bar"], opening["value"]) == (4, 25, 27)
    _, fixed = traced(RUMMIKUB.replace(players=2), 0, 0, ["greedy"], deck_from(seats, pool))
    first = next(ev for ev in fixed["events"] if ev["seat"] == 0 and ev["turn"] == 4)
    assert first["action"] == "draw"  # the bar stays 30 without the house rule


def test_careful_opens_without_its_joker_when_it_can():
    seats = ["R10 R11 R12 B1 K3 Y5 B7 K11 Y13 R1 B4 K6 Y9 J", JUNK]
    rules = RUMMIKUB.replace(players=2)
    _, greedy = traced(rules, 0, 0, ["greedy"], deck_from(seats))
    _, careful = traced(rules, 0, 0, ["careful"], deck_from(seats))
    assert greedy["events"][0]["action"] == "open" and careful["events"][0]["action"] == "open"
    assert any("J(" in t for m in greedy["events"][0]["melds"] for t in m)
    assert careful["events"][0]["melds"] == [["R10", "R11", "R12"]]


# --- the referee catches broken traces ------------------------------------------------------


@pytest.fixture(scope="module")
def clean_trace():
    _, trace = traced(RUMMIKUB, 3, 4, ["greedy"])
    assert referee(trace) == []
    return trace


def _first(trace, action):
    return next(i for i, ev in enumerate(trace["events"]) if ev["action"] == action)


def test_referee_catches_a_wrong_draw(clean_trace):
    bad = copy.deepcopy(clean_trace)
    ev = bad["events"][_first(bad, "draw")]
    ev["tile"] = "R1" if ev["tile"] != "R1" else "R2"
    assert any("draws" in p for p in referee(bad))


def test_referee_catches_a_lost_table_tile(clean_trace):
    bad = copy.deepcopy(clean_trace)
    ev = bad["events"][_first(bad, "play")]
    ev["table"] = ev["table"][1:]
    assert any("K-PLAY-1" in p for p in referee(bad))


def test_referee_catches_a_changed_score_and_an_opening_below_the_bar(clean_trace):
    bad = copy.deepcopy(clean_trace)
    bad["result"]["scores"][0] += 1
    assert any("scores" in p for p in referee(bad))
    bad = copy.deepcopy(clean_trace)
    bad["rules"]["open_points"] = 200
    assert any("K-OPEN-1" in p for p in referee(bad))


@pytest.fixture(scope="module")
def freeing_trace():
    """A round in which a play frees a bound joker whose new place stands for another tile."""
    for round_id in range(40):
        _, trace = traced(RUMMIKUB, 3, round_id, ["greedy"])
        for i, ev in enumerate(trace["events"]):
            if ev["action"] == "play":
                jokers = sorted(t for m in ev["table"] for t in m if t.startswith("J("))
                if ev["freed"] and any(f["joker"] not in jokers for f in ev["freed"]):
                    return trace, i
    raise AssertionError("no freeing found")


def test_K_JOKER_2_referee_catches_an_unsaid_freeing_and_a_false_one(freeing_trace):
    """From the JSON alone: a joker that left its tile without a freeing said in the play
    is caught, and so is a freeing by a tile the play did not place (K-JOKER-1/2)."""
    trace, i = freeing_trace
    assert referee(trace) == []
    bad = copy.deepcopy(trace)
    bad["events"][i]["freed"] = []
    assert any("no longer stand for their tiles" in p and "K-JOKER-2" in p for p in referee(bad))
    bad = copy.deepcopy(trace)
    placed = set(bad["events"][i]["placed"])
    bad["events"][i]["freed"][0]["by"] = next(t for t in ("R1", "B1", "K1", "Y1") if t not in placed)
    assert any("K-JOKER-1" in p for p in referee(bad))
    free = copy.deepcopy(trace)
    free["rules"]["joker_moves"] = "free"
    assert any("joker_moves=free" in p for p in referee(free))


def test_referee_catches_turns_out_of_order(clean_trace):
    bad = copy.deepcopy(clean_trace)
    bad["events"][0], bad["events"][1] = bad["events"][1], bad["events"][0]
    assert any("out of turn" in p for p in referee(bad))


# --- the public trace format, the text trace and the tables ---------------------------------


def test_json_traces_match_the_published_schema():
    import jsonschema

    schema = sim.games.family("rummikub").trace_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for players, rules_changes in ((2, {}), (3, {"last_call": True}), (4, {"locked_jokers": True})):
        rules = RUMMIKUB.replace(players=players, **rules_changes)
        for round_id in range(5):
            _, trace = traced(rules, 9, round_id, ["greedy", "careful", "greedy", "careful"][:players])
            validator.validate(json.loads(json.dumps(trace)))
            assert trace["events"][-1]["action"] == "end"


def test_text_trace_shows_racks_tables_and_the_verdict(clean_trace):
    text = sim.games.family_of(RUMMIKUB).trace_text(RUMMIKUB, 3, 4, ["greedy"])
    assert "referee: every turn checked, scores recomputed: no violations" in text
    assert "before:" in text and "after:" in text and "K-OPEN-1" in text
    assert format_trace(clean_trace) in text


def test_tables_are_the_same_whatever_the_chunking():
    family = sim.games.family_of(RUMMIKUB)
    whole = family.chunk_tables(RUMMIKUB, 5, 0, 12, ["greedy"])
    parts = [family.chunk_tables(RUMMIKUB, 5, s, n, ["greedy"]) for s, n in ((0, 5), (5, 7))]
    for name in ("rounds", "players"):
        assert whole[name].equals(pl.concat([p[name] for p in parts]))
    rounds, players = whole["rounds"], whole["players"]
    assert {"finish", "winner_seat", "winners", "turns", "pool_left", "table_tiles", "wrap_runs",
            "locked_jokers", "easing_open", "last_call", "open_points", "joker_penalty"} <= set(rounds.columns)
    assert {"opened", "open_turn", "open_value", "open_threshold", "tiles_placed", "draws", "rack_tiles",
            "rack_value", "jokers_left", "score"} <= set(players.columns)
    # K-END-1/2 are zero-sum, and the tiles are all somewhere
    sums = players.group_by("round_id").agg(pl.col("score").sum())["score"]
    assert sums.abs().max() < 1e-9
    tiles = players.group_by("round_id").agg(pl.col("rack_tiles").sum()).sort("round_id")["rack_tiles"]
    assert (tiles + rounds["pool_left"] + rounds["table_tiles"]).to_list() == [106] * 12


@pytest.mark.parametrize("players", [2, 4])
def test_greedy_places_the_table_solvers_best_every_turn(players):
    """K-PLAY-1 with the greedy bot: each play is worth what ``sim.table_play`` finds for
    that rack and table, and after opening a draw comes only when nothing can be placed
    (the engine skips searches it can prove empty: this checks that shortcut too)."""
    rules = RUMMIKUB.replace(players=players)
    checked = 0
    for round_id in range(6):
        _, trace = traced(rules, 7, round_id, ["greedy"])
        for ev, rack, table, opened in positions(trace):
            action = ev["action"]
            if action in ("draw", "play") and opened:
                best = sim.table_play(" ".join(rack.elements()), table, rules)
                assert (ev["value"] if action == "play" else 0) == (best.value if best.can_play else 0), (round_id, ev)
                checked += 1
    assert checked > 50


def test_K_END_2_tied_winners_pay_no_penalty_in_any_analysis(tmp_path):
    """Blocked rounds whose lowest racks tie share the gain (K-END-2): those winners have
    ``winner_seat`` null and must not enter the penalty statistics as losers (with a
    negative loss). Checked against the players rows read plainly, on two-player expert
    rounds, where ties at the empty pool happen."""
    from sim import analysis, runner
    from sim.games.family import losers

    rules = RUMMIKUB.replace(players=2)
    runner.run(runner.RunSpec(runner.grid_variants(rules, {}), 200, 5, ("expert",), 200), tmp_path / "k",
               jobs=1, progress=False)
    ds = analysis.open_dataset(tmp_path / "k")
    rows = ds.players.select("round_id", "seat", "score", "winners").collect()
    lost = [-r["score"] for r in rows.iter_rows(named=True) if r["seat"] not in r["winners"]]
    assert rows.filter(pl.col("winners").list.len() > 1).height > 0  # the case is met
    assert min(lost) >= 0
    assert analysis.penalties(ds)["mean"][0] == pytest.approx(sum(lost) / len(lost))
    values = analysis.penalty_values(ds)
    assert values["penalty"].min() >= 0 and values["k"].sum() == len(lost)
    per_round = analysis.round_metrics(ds).collect()["mean_penalty"]
    assert per_round.min() >= 0
    tables = {name: pl.concat([pl.read_parquet(f) for f in sorted((tmp_path / "k" / name).rglob("*.parquet"))])
              for name in ("rounds", "players")}
    assert losers(tables).height == len(lost)
