"""The Rummy 101 ``expert`` bot: it decides from what its seat may know (the information-set
property: re-deal the tiles it has not seen and its turn does not change), it makes the
moves a good player makes in worked positions, and the referee passes its rounds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import sim
from sim.deal import round_deck
from sim.games.family import seat_tune
from sim.games.rummy101 import EXPERT_PARAMS, core, play, turns
from sim.games.rummy101 import engine as rnd
from sim.games.rummy101.referee import referee
from sim.games.rummy101.trace import round_json
from sim.games.rummy101.view import Seen
from sim.solver.arrays import solver_arrays
from sim.solver.layout import F_COLOURS, F_FIRST, F_KEY, F_KIND, F_LEN, RUN, SET
from sim.tiles import JOKER, NUMBERS, parse_rack

RUMMY101 = sim.preset("rummy101")


@pytest.fixture(autouse=True, scope="module")
def _compiled():
    from sim.games.rummy101 import FAMILY, TURN_BY_TURN
    from sim.jit import prepare

    FAMILY.prepare(progress=False)
    prepare(FAMILY.other_workload(TURN_BY_TURN), progress=False)


def new_space(rules, tune=None):
    S = solver_arrays(rules.group_of_three_max_jokers)
    tune = seat_tune(EXPERT_PARAMS, rules.players, tune)
    return S, rnd.new_round_space(S[7].shape[0], rules.players, rules.jokers, tune)


def copy_state(rs):
    """The round's state with its own copies of everything a turn changes."""
    racks, table, ps, g, space, rows, scratch, deck, bits, tune, seen = rs
    return (racks.copy(), table.copy(), ps.copy(), g.copy(), space, rows, scratch, deck, bits, tune,
            Seen(seen.pile.copy(), seen.unseen.copy(), seen.sizes.copy()))


def next_turn(rules, deck, rs, S, p, first):
    """Seat ``p``'s actions on its next turn from state ``rs`` (the trace's rows)."""
    events = np.zeros((core.MAX_EVENTS, core.EV_FIELDS), dtype=np.int64)
    n = turns.play_next_turn(p, first, deck, play.rules_params(rules), S, rs, events)
    return events[:n]


def redeal(rs, deck, p, rng):
    """The tiles seat ``p`` has not seen dealt again: the other racks (their sizes kept)
    and the stock below the tile it is about to draw, shuffled together."""
    racks, g = rs[0], rs[3]
    deck = deck.copy()
    below = int(g[core.G_STOCK]) + 1  # the top tile stays: the seat draws it now
    others = [q for q in range(racks.shape[0]) if q != p]
    pool = [k for q in others for k in range(racks.shape[1]) for _ in range(int(racks[q, k]))]
    pool += list(deck[below:])
    pool = rng.permutation(np.array(pool, dtype=np.int64))
    sizes = [int(racks[q].sum()) for q in others]
    racks[others] = 0
    at = 0
    for q, size in zip(others, sizes, strict=True):
        np.add.at(racks[q], pool[at:at + size], 1)
        at += size
    deck[below:] = pool[at:]
    return deck


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(seed=st.integers(0, 10**6), players=st.sampled_from([2, 3, 4]), stop=st.integers(0, 60),
       mode=st.sampled_from(["fixed", "increasing"]), shuffle=st.integers(0, 2**32 - 1))
def test_the_expert_decides_from_what_its_seat_may_know(seed, players, stop, mode, shuffle):
    """Issue 27, part 1: the other racks and the stock's order re-dealt (sizes and the tile
    about to be drawn kept), the expert's turn is the same, action for action."""
    rules = RUMMY101.replace(players=players, threshold_mode=mode)
    policies = play.policy_codes(["expert", "greedy", "careful", "expert"][:players], players)
    deck = np.ascontiguousarray(round_deck(seed, 0, rules.jokers, 0, rules.rack_size, rules.starter_extra))
    S, rs = new_space(rules)
    events = np.zeros((1, core.EV_FIELDS), dtype=np.int64)
    p, first, over = turns.play_until(deck, play.rules_params(rules), policies, S, rs, events, stop)
    assume(not over and policies[p] == 2)
    other = copy_state(rs)
    other_deck = redeal(other, deck, p, np.random.default_rng(shuffle))
    mine = next_turn(rules, deck, copy_state(rs), S, p, first)
    again = next_turn(rules, other_deck, other, S, p, first)
    assert mine.tolist() == again.tolist()


def test_a_re_deal_changes_what_the_seat_cannot_see():
    """The property above is not empty: a re-deal changes the other racks and, from there,
    how the others play and how rounds end, while the expert's turn stays."""
    rules = RUMMY101.replace(players=2)
    policies = play.policy_codes(["expert", "greedy"], 2)
    changed = 0
    for seed in range(30):
        deck = np.ascontiguousarray(round_deck(seed, 0, rules.jokers, 0, rules.rack_size, rules.starter_extra))
        S, rs = new_space(rules)
        events = np.zeros((1, core.EV_FIELDS), dtype=np.int64)
        p, first, over = turns.play_until(deck, play.rules_params(rules), policies, S, rs, events, 6)
        assert not over and p == 0
        other = copy_state(rs)
        other_deck = redeal(other, deck, p, np.random.default_rng(seed))
        assert not np.array_equal(other[0][1], rs[0][1])  # the opponent's rack is another
        assert next_turn(rules, deck, copy_state(rs), S, p, first).tolist() == \
            next_turn(rules, other_deck, copy_state(other), S, p, first).tolist()
        # the opponent's next turn, from the two states, differs somewhere in 30 rounds
        a, b = copy_state(rs), copy_state(other)
        next_turn(rules, deck, a, S, p, first)
        next_turn(rules, other_deck, b, S, p, first)
        changed += next_turn(rules, deck, a, S, 1, False).tolist() != next_turn(rules, other_deck, b, S, 1,
                                                                                  False).tolist()
    assert changed >= 10


# --- worked positions ----------------------------------------------------------------------------


def meld_row(text: str, owner: int) -> np.ndarray:
    """A table meld row (sim.solver.layout) from its tiles, e.g. ``R5 R6 R7`` or ``K9 B9 Y9``."""
    tiles = parse_rack(text).tiles()
    row = np.zeros(core.TABLE_FIELDS, dtype=np.int64)
    cols = {k // NUMBERS for k in tiles}
    nums = sorted(k % NUMBERS + 1 for k in tiles)
    if len(cols) == 1:
        row[F_KIND], row[F_KEY], row[F_FIRST] = RUN, cols.pop(), nums[0]
    else:
        row[F_KIND], row[F_KEY] = SET, nums[0]
        for c in cols:
            row[F_COLOURS] |= 1 << c
    row[F_LEN] = len(tiles)
    row[core.T_OWNER] = owner
    return row


def position(racks: list[str], table: list[tuple[str, int]], opened: list[int], stock: str,
             last_discard: str = "", policies=("expert", "greedy"), tune=None):
    """A round's state set by hand: the racks, the table's melds (with their owners), the
    seats opened with melds, the stock's top tiles; seat 0 to move. Returns what
    :func:`next_turn` needs."""
    players = len(racks)
    rules = RUMMY101.replace(players=players)
    S, rs = new_space(rules, tune)
    rack_arr, table_arr, ps, g, *_ = rs
    seen = rs[-1]
    for q, text in enumerate(racks):
        for k in parse_rack(text).tiles():
            rack_arr[q, k] += 1
    for i, (text, owner) in enumerate(table):
        table_arr[i] = meld_row(text, owner)
    g[core.G_NTABLE] = len(table)
    codes = play.policy_codes(list(policies), players)
    for q in range(players):
        ps[q, core.PS_POLICY] = codes[q]
        ps[q, core.PS_TURNS] = 5
        if q in opened:
            ps[q, core.PS_OPEN_KIND] = core.OPEN_MELDS
    g[core.G_LAST_DISCARD], g[core.G_LAST_DISCARDER] = -1, -1
    if last_discard:
        g[core.G_LAST_DISCARD] = parse_rack(last_discard).tiles()[0]
        g[core.G_LAST_DISCARDER] = players - 1
        seen.pile[g[core.G_LAST_DISCARD]] += 1
    g[core.G_TURNS] = 20
    # the stock: the given tiles on top, then whatever of the set is not on the racks or table
    used = rack_arr.sum(axis=0).copy()
    for i in range(len(table)):
        for k in parse_rack(table[i][0]).tiles():
            used[k] += 1
    used += seen.pile
    top = list(parse_rack(stock).tiles()) if stock else []
    for k in top:
        used[k] += 1
    rest = [k for k in range(53) for _ in range(max(0, (2 if k < JOKER else rules.jokers) - int(used[k])))]
    deck = np.array([0] * 60 + top + rest, dtype=np.int64)
    g[core.G_STOCK] = 60
    return rules, deck, rs, S


def actions(events):
    names = {core.EV_DRAW: "draw", core.EV_TAKE: "take", core.EV_DISCARD: "discard", core.EV_ADD: "add",
             core.EV_LAY: "lay", core.EV_OPEN: "open", core.EV_FINISH: "finish"}
    return [(names.get(int(e[0]), int(e[0])), int(e[3])) for e in events]


def tile(text: str) -> int:
    return parse_rack(text).tiles()[0]


def test_the_expert_does_not_feed_an_opened_next_player_an_addition():
    """T-TAKE-3: not opened itself, it keeps R8 (the next player could add it to R5 R6 R7)
    and throws the K1 that helps nobody; greedy throws the highest useless tile, R8."""
    racks = ["R8 K1 B3 B4 Y10 Y11 K13 B13 R13", "R1 R2 B6 B7 Y7"]
    for policy, thrown in (("expert", "K1"), ("greedy", "R8")):
        rules, deck, rs, S = position(racks, [("R5 R6 R7", 1)], opened=[1], stock="Y2",
                                      policies=(policy, "greedy"))
        got = [a for a in actions(next_turn(rules, deck, rs, S, 0, False)) if a[0] == "discard"]
        assert got == [("discard", tile(thrown))], policy


def test_the_expert_takes_the_discard_that_lets_it_go_out():
    """T-TAKE-3, T-FIN-1: opened, holding Y3 Y4 K1, it takes the Y5 just thrown, lays Y3 Y4
    Y5 and goes out throwing K1."""
    rules, deck, rs, S = position(["Y3 Y4 K1", "R1 R2 B6 B7 Y7 K9 K10"], [("R5 R6 R7", 0)], opened=[0, 1],
                                  stock="B12", last_discard="Y5")
    got = actions(next_turn(rules, deck, rs, S, 0, False))
    assert got[0] == ("take", tile("Y5")) and got[-1] == ("finish", core.FINISH_NORMAL)


@pytest.mark.parametrize(("opponent", "releases"), [("R1 R2", True), ("R1 R2 B6 B7 Y7 K9 K10 K11", False)])
def test_the_expert_releases_its_joker_when_an_opponent_is_about_to_go_out(opponent, releases):
    """T-FIN-2 against T-SCORE-2: opened, with a joker it could add to the table, it holds
    it for a joker finish while the opponent holds many tiles, and adds it (a joker left on
    the rack costs 101) once the opponent is down to two."""
    rules, deck, rs, S = position(["J B3 K5 Y9 Y12", opponent], [("R5 R6 R7", 1)], opened=[0, 1], stock="B11")
    got = actions(next_turn(rules, deck, rs, S, 0, False))
    assert (("add", JOKER) in got) == releases, got


def test_the_expert_opens_with_melds_as_soon_as_it_can():
    """T-OPEN-1: 101 points in hand after the draw, it opens at once."""
    rules, deck, rs, S = position(["R11 R12 R13 B11 B12 B13 K11 K12 K13 Y1 Y5 K2", "R1 R2 B6 B7 Y7 K9 K10"], [],
                                  opened=[], stock="Y11")
    got = actions(next_turn(rules, deck, rs, S, 0, False))
    assert got[1][0] == "open"


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_referee_passes_expert_rounds(players):
    """Every action of the expert's rounds (every seat expert, and mixed with the others)
    legal by the referee's reading of section T: 2,400 rounds over the table sizes."""
    for mix in (["expert"], ["expert", "greedy", "careful", "expert"][:players]):
        for preset in ("rummy101", "rummy101-increasing", "rummy101-button"):
            rules = sim.preset(preset).replace(players=players)
            codes = play.policy_codes(mix, players)
            for round_id in range(67):
                t = play.trace_round(rules, 5, round_id, codes)
                assert t.counters[core.G_ERROR] == 0
                assert referee(round_json(t, 5, round_id)) == [], (preset, mix, round_id)
