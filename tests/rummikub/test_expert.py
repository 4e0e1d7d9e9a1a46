"""The Rummikub ``expert`` (sim.games.rummikub.expert): it decides from its seat's view
only (the information-set property, hypothesis), it makes the moves a good player makes
in positions built by hand (go out, release a joker and play rather than draw when an
opponent is about to go out, hold back otherwise, open lean), its constants reach the
kernels per seat, and the referee accepts its rounds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sim
from sim.deal import round_deck
from sim.games.family import expert_tune
from sim.games.rummikub import EXPERT_PARAMS, POLICIES
from sim.games.rummikub import engine as e
from sim.games.rummikub.play import Round
from sim.games.rummikub.referee import referee
from sim.games.rummikub.view import View
from sim.tiles import JOKER, KINDS, tile_name
from tests.rummikub.test_rounds import VARIANTS, positions, traced

RUMMIKUB = sim.preset("rummikub")


def _deck(players: int, seed: int, round_id: int) -> np.ndarray:
    return round_deck(seed, round_id, RUMMIKUB.jokers, 0, RUMMIKUB.rack_size, 0)


def _same_view(a: View, b: View) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def _same_actions(a: list, b: list) -> bool:
    return len(a) == len(b) and all(all(np.array_equal(x, y) for x, y in zip(u, v, strict=True))
                                    for u, v in zip(a, b, strict=True))


def _redeal(r: Round, p: int, rng: np.random.Generator) -> None:
    """Deal again every tile seat ``p`` has not seen (the other racks, their sizes kept, and
    the pool after the tile ``p`` is about to draw), as another shuffle could have."""
    pool, deck_len = int(r.g[e.G_POOL]), int(r.g[e.G_DECK])
    others = [q for q in range(r.rules.players) if q != p]
    hidden = [k for q in others for k in range(JOKER + 1) for _ in range(int(r.racks[q, k]))]
    hidden += [int(k) for k in r.deck[pool + 1:deck_len]]
    rng.shuffle(hidden)
    at = 0
    for q in others:
        size = int(r.racks[q].sum())
        r.racks[q, :] = 0
        for k in hidden[at:at + size]:
            r.racks[q, k] += 1
        at += size
    r.deck[pool + 1:deck_len] = hidden[at:]


def _position(players: int, seed: int, turns: int, mix: list[str], bot: str = "expert") -> tuple[Round, int] | None:
    """The round of ``seed`` after ``turns`` turns, the seat to move playing ``bot``."""
    rules = RUMMIKUB.replace(players=players)
    p = turns % players
    policies = [mix[q % len(mix)] for q in range(players)]
    policies[p] = bot
    r = Round(rules, _deck(players, seed, 0), policies)
    r.play(turns)
    return None if r.over else (r, p)


@settings(max_examples=60)
@given(players=st.integers(2, 4), seed=st.integers(0, 10**6), turns=st.integers(0, 70),
       mix=st.sampled_from([["expert"], ["greedy"], ["careful", "greedy", "expert"]]), shuffle=st.integers(0, 2**32))
def test_the_expert_decides_from_its_view_only(players, seed, turns, mix, shuffle):
    """Issue part 1: re-deal the tiles the seat to move has not seen (the other racks, their
    sizes kept, and the pool after the tile it is about to draw): its view is the same and
    so is its next turn, action for action."""
    check_decides_from_view(players, seed, turns, mix, shuffle, "expert")


def check_decides_from_view(players: int, seed: int, turns: int, mix: list[str], shuffle: int, bot: str) -> None:
    """The information-set property for ``bot``: the seat to move's view and next turn are
    the same after the tiles it has not seen are dealt again."""
    position = _position(players, seed, turns, mix, bot)
    if position is None:
        return
    a, p = position
    b, _ = _position(players, seed, turns, mix, bot)
    _redeal(b, p, np.random.default_rng(shuffle))
    assert _same_view(a.view(p), b.view(p))
    assert _same_actions(a.play(1), b.play(1))


def test_the_redeal_changes_what_the_seat_cannot_see_and_the_test_sees_a_changed_rack():
    """The property above can fail: the re-deal really moves the hidden tiles, and the same
    comparison tells two turns apart when the seat's rack differs by one tile (what a seat
    that peeked at another rack and took a tile from it would hold), here at openings."""
    mix = ["careful", "greedy", "expert"]
    moved, told_apart = 0, 0
    for seed in range(30):
        turns = seed % 3  # the seat's first turn: its opening, a choice a rack tile changes
        a, p = _position(3, seed, turns, mix)
        b, _ = _position(3, seed, turns, mix)
        _redeal(b, p, np.random.default_rng(seed))
        moved += not np.array_equal(a.racks, b.racks)
        c, _ = _position(3, seed, turns, mix)
        q = (p + 1) % 3
        mine = int(np.flatnonzero(c.racks[p, :KINDS] > c.racks[q, :KINDS])[0])
        theirs = int(np.flatnonzero(c.racks[q, :KINDS] > c.racks[p, :KINDS])[-1])
        c.racks[p, mine] -= 1
        c.racks[q, mine] += 1
        c.racks[q, theirs] -= 1
        c.racks[p, theirs] += 1
        assert not _same_view(a.view(p), c.view(p))
        told_apart += not _same_actions(a.play(1), c.play(1))
    assert moved == 30 and told_apart >= 5


# --- worked positions --------------------------------------------------------------------------

JUNK = "R1 B4 K9 Y12 R13 B11 K2 Y6 R8 B13"  # ten tiles that make no meld


def _turn(position: dict, policy: str = "expert", players: int = 2, tune: dict | None = None):
    """Seat 0's one turn in a position built by hand: its action, the melds or table after, the tiles placed."""
    rules = RUMMIKUB.replace(players=players)
    policies = [policy] + ["greedy"] * (players - 1)
    r = Round(rules, _deck(players, 0, 0), policies, expert_tune(EXPERT_PARAMS, players, tune))
    r.set_position(**position)
    (ev, rows, placed), *_ = r.play(1)
    return int(ev[e.EV_TYPE]), rows, placed, r


def _placed(placed: np.ndarray) -> str:
    return " ".join(sorted(tile_name(k) for k in range(JOKER + 1) for _ in range(int(placed[k]))))


def test_K_END_1_the_expert_goes_out_when_the_table_can_be_rebuilt_around_its_rack():
    """B7 Y7 go out only by taking K7 off K4-K7 into a group: the expert goes out (and wins
    at once) however far the opponent is from going out."""
    position = {"racks": ["B7 Y7", JUNK], "table": ["R5 R6 R7 R8", "K4 K5 K6 K7"], "opened": [True, True]}
    kind, _, placed, r = _turn(position)
    assert kind == e.EV_PLAY and _placed(placed) == "B7 Y7"
    assert r.over and int(r.g[e.G_FINISH]) == e.FINISH_OUT


def test_K_END_1_the_expert_goes_out_with_its_joker():
    position = {"racks": ["B9 J", JUNK], "table": ["K9 R9 Y9", "R2 R3 R4"], "opened": [True, True]}
    kind, _, placed, r = _turn(position)
    assert kind == e.EV_PLAY and _placed(placed) == "B9 J" and r.over


def test_K_JOKER_1_the_expert_releases_its_joker_when_an_opponent_is_about_to_go_out():
    """The opponent holds one tile: a joker kept costs the joker penalty when it goes out
    (K-END-1), so the expert places it; careful keeps it (it looks only at the pool)."""
    position = {"racks": ["J R9 B2 Y13", "K12"], "table": ["K5 K6 K7", "R1 R2 R3"], "opened": [True, True]}
    kind, _, placed, _ = _turn(position)
    assert kind == e.EV_PLAY and placed[JOKER] == 1
    kind, _, _, _ = _turn(position, "careful")
    assert kind == e.EV_DRAW


def test_K_PLAY_1_the_expert_plays_rather_than_draws_when_an_opponent_is_down_to_one_tile():
    """Facing an opponent down to one tile the expert places the most value it can (what
    ``sim.table_play`` finds: R1-R3, a group of 13s and B11 with the 11s, 56 points);
    with the opponent far from going out it holds the same tiles back and draws (K-PLAY-1,
    revised). (At two tiles the tuned expert holds back too: playing there cost it 3 to 4
    points a round in the tuning, four players.)"""
    rack = "R1 R2 R3 B4 K9 Y12 R13 B13 Y13 B11 K11"
    table = ["K5 K6 K7", "Y1 Y2 Y3", "R11 Y11 K11"]
    kind, _, placed, _ = _turn({"racks": [rack, "K12"], "table": table, "opened": [True, True]})
    best = sim.table_play(rack, table, RUMMIKUB)
    assert kind == e.EV_PLAY and _placed(placed) == " ".join(sorted(str(best.played).split()))
    assert best.value == 56
    kind, _, _, _ = _turn({"racks": [rack, JUNK], "table": table, "opened": [True, True]})
    assert kind == e.EV_DRAW


def test_K_END_2_with_the_pool_dry_the_expert_places_what_it_can_but_heads_up_it_holds():
    """The pool is empty: with three players the expert places the most value it can (its
    rack is what it pays, K-END-1/2); heads-up it passes, since what it places would let
    the other player go out (expert.POOL_DANGER_PLAYERS)."""
    rack = "R1 R2 R3 B4 K9 Y12 R13"
    other = "B1 K3 Y5 R7 B9 K11 Y13 R12 B2 K4"
    kind, _, placed, _ = _turn({"racks": [rack, JUNK, other], "table": ["K5 K6 K7"], "opened": [True] * 3,
                                "pool": ""}, players=3)
    assert kind == e.EV_PLAY and _placed(placed) == "R1 R2 R3"
    kind, _, _, _ = _turn({"racks": [rack, JUNK], "table": ["K5 K6 K7"], "opened": [True, True], "pool": ""})
    assert kind == e.EV_PASS


def test_K_OPEN_1_the_expert_opens_with_the_fewest_tiles_that_reach_the_bar():
    """Two runs of 33 and 30 points and a group of 36: one meld reaches the bar of 30, the
    group of three tiles with the most points; the others stay on the rack."""
    rack = "R10 R11 R12 B9 B10 B11 K12 Y12 B12 Y1 R4"
    kind, rows, _, _ = _turn({"racks": [rack, JUNK], "table": [], "opened": [False, False]})
    assert kind == e.EV_OPEN and len(rows) == 1 and rows[0, 3] == 3


def test_the_expert_tune_rows_are_per_seat():
    """Two experts with other constants meet: the seat's row decides (here: a seat that sees
    danger in an opponent's ten tiles plays what the other seat holds back)."""
    position = {"racks": ["R1 R2 R3 B4 K9 Y12 R13", JUNK], "table": ["K5 K6 K7"], "opened": [True, True]}
    holds, plays = _turn(position)[0], _turn(position, tune=[{"danger_tiles": 10}, {}])[0]
    assert holds == e.EV_DRAW and plays == e.EV_PLAY


def test_expert_is_the_third_policy():
    assert POLICIES.index("expert") == e.POLICY_EXPERT == 2
    assert sim.games.family_of(RUMMIKUB).expert_params == EXPERT_PARAMS


# --- the referee over expert rounds ---------------------------------------------------------

EXPERT_ROUNDS = 40  # per variant, player count and seat mix: 10 x 3 x 2 x 40 = 2,400 rounds


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.slow
def test_referee_accepts_every_expert_round_of_every_house_rule(variant):
    """K-SET-1 .. K-END-2 and K-VAR with the expert in every seat and beside the other bots,
    2-4 players: every turn legal, every score right (the referee replays the JSON)."""
    outs = 0
    for players in (2, 3, 4):
        rules = RUMMIKUB.replace(players=players, **VARIANTS[variant])
        for mix in (["expert"], ["expert", "careful", "greedy", "expert"][:players]):
            for round_id in range(EXPERT_ROUNDS):
                _, trace = traced(rules, 2027, round_id, mix)
                problems = referee(trace)
                assert problems == [], (variant, players, mix, round_id, problems)
                outs += trace["result"]["finish"] == "out"
    assert outs > 0


@pytest.mark.parametrize("players", [2, 4])
def test_K_END_1_the_expert_never_draws_when_it_could_go_out(players):
    """After opening, each time the expert draws or passes, ``sim.table_play`` cannot place
    its whole rack on that table (the expert's go-out search misses nothing)."""
    rules = RUMMIKUB.replace(players=players)
    checked = 0
    for round_id in range(4):
        _, trace = traced(rules, 8, round_id, ["expert"])
        for ev, rack, table, opened in positions(trace):
            if ev["action"] in ("draw", "pass") and opened:
                best = sim.table_play(" ".join(rack.elements()), table, rules)
                assert best.tiles < sum(rack.values()), (round_id, ev)
                checked += 1
    assert checked > 50
