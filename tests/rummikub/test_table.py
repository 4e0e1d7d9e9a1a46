"""The Rummikub table solver (K-PLAY-1, K-JOKER-1/2, K-MELD-1/2, K-VAR) agrees with the
brute-force references (sim.reference.table) on thousands of small positions — jokers on
the table bound to their tiles (``joker_moves=bound``) or free, freed by a rack tile,
jokers in the rack, wrap-around runs, locked jokers, a 25-point joker, both objectives —
and every arrangement it returns is valid and holds every tile; the referee's turn checks
(sim.games.rummikub.referee) pass every play the solver returns and name each fault of a
broken one."""

import contextlib
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import sim
from sim.errors import NotationError, RulesError
from sim.games.rummikub.referee import check_opening, check_table_play
from sim.melds import check_meld
from sim.reference.table import INFEASIBLE, best_play, best_play_bound, meld_counts
from sim.tiles import JOKER, Rack, parse_meld, parse_rack
from tests.strategies import big_table_positions, bound_positions, table_positions

RUMMIKUB = sim.preset("rummikub")
FREE = RUMMIKUB.replace(joker_moves="free")
VARIANTS = {
    "standard": RUMMIKUB,
    "wrap_runs": RUMMIKUB.replace(wrap_runs=True),
    "locked_jokers": RUMMIKUB.replace(locked_jokers=True),
    "joker_penalty_25": RUMMIKUB.replace(joker_penalty=25),
    "two_jokers_in_three": RUMMIKUB.replace(group_of_three_max_jokers=2),
    "free": FREE,
    "free_wrap_runs": FREE.replace(wrap_runs=True),
    "free_locked_jokers": FREE.replace(locked_jokers=True),
    "free_two_jokers_in_three": FREE.replace(group_of_three_max_jokers=2),
}


def reference(melds, rack, rules, objective="value"):
    """The brute-force answer under the rules' reading of table jokers (K-JOKER-2)."""
    locked = [m for m in melds if any(m.jokers)] if rules.locked_jokers else []
    loose = [m for m in melds if m not in locked]
    if rules.joker_moves == "bound":
        return best_play_bound(loose, rack, rules, objective, locked)
    return best_play(meld_counts(loose), rack, rules, objective, locked)


def _check(melds, rack, rules, objective):
    play = sim.table_play(Rack(tuple(rack)), melds, rules, objective)
    locked = [m for m in melds if any(m.jokers)] if rules.locked_jokers else []
    expected = reference(melds, rack, rules, objective)
    got = play.value if objective == "value" else play.tiles
    assert got == expected, ([str(m) for m in melds], str(Rack(tuple(rack))), [str(m) for m in play.melds])
    # every meld valid, every table tile still there, the rest from the rack (K-JOKER-2)
    for meld in play.melds:
        assert check_meld(meld, rules) is None, (str(meld), check_meld(meld, rules))
    after = np.array(meld_counts(list(play.melds)))
    played = np.array(play.played.counts)
    assert (after == np.array(meld_counts(melds)) + played).all()
    assert (played <= np.array(rack)).all()
    assert play.value == sum(sim.tiles.number_of(k) * int(played[k]) for k in range(JOKER)) \
        + int(played[JOKER]) * rules.joker_penalty
    assert play.can_play == (play.tiles > 0)
    freed = [(t, by) for t, by in play.freed]
    if rules.locked_jokers and rules.joker_moves == "free":  # K-JOKER-1: a frozen meld stays, or its joker
        for m in locked:  # left it for its tile
            kept = [a for a in play.melds if a.tiles == m.tiles]
            assert kept, str(m)
    if play.can_play:  # the referee's turn check, from the melds and the freed jokers alone
        found = check_table_play(melds, _rack_counter(rack), list(play.melds), rules, freed)
        assert found == [], found
    return play


# free_wrap_runs is checked on wrap-around positions below: its brute force is the slowest of all.
@pytest.mark.parametrize("name", sorted(set(VARIANTS) - {"free_wrap_runs"}))
@settings(max_examples=300)
@given(position=table_positions(), objective=st.sampled_from(["value", "tiles"]))
def test_k_play_1_table_solver_matches_reference(name, position, objective):
    melds, rack = position
    _check(melds, rack, VARIANTS[name], objective)


@pytest.mark.parametrize("name", ["wrap_runs", "free_wrap_runs"])
@settings(max_examples=200)
@given(position=table_positions(wrap=True), objective=st.sampled_from(["value", "tiles"]))
def test_k_var_wrap_runs_table_solver_matches_reference(name, position, objective):
    melds, rack = position
    _check(melds, rack, VARIANTS[name], objective)


@pytest.mark.parametrize("name", ["standard", "locked_jokers", "two_jokers_in_three", "wrap_runs"])
@settings(max_examples=300)
@given(position=bound_positions(), objective=st.sampled_from(["value", "tiles"]))
def test_k_joker_2_bound_jokers_and_their_freeing_match_reference(name, position, objective):
    """Tables holding one or two jokers and racks holding the tiles that free them (the
    exact tile, a colour a group of three lacks): the solver, freeing or not, agrees with
    the brute force that knows nothing but the rule."""
    melds, rack = position
    _check(melds, rack, VARIANTS[name], objective)


@pytest.mark.parametrize(
    ("table", "rack", "value", "played"),
    [
        # a run extended at both ends, a joker moved to make room (K-JOKER-2)
        ("R1 R2 R3; B5 B6 J(B7)", "R4 B7 Y9", 11, "R4 B7"),
        # two jokers may share a run, but a group of three holds one (K-MELD-2)
        ("R3 R4 J(R5); R5 B5 J(K5)", "K5", 5, "K5"),
        # both melds grow: R6 ends the run, Y5 completes the group
        ("R3 R4 R5; R5 B5 K5", "Y5 R6", 11, "Y5 R6"),
        # nothing fits: the table stays as it is
        ("R1 R2 R3", "Y9", 0, ""),
        # a rack joker placed is worth the joker penalty (K-END-1)
        ("R1 R2 R3", "J", 30, "J"),
        # K12 and K13 have no meld without a joker: the run that holds it reaches them
        ("K9 K10 J(K11) K12 K13", "K8", 8, "K8"),
        # B12 has no meld without the table's joker, so R3 R4 cannot have it (K-JOKER-2)
        ("B12 J(K12) Y12", "R3 R4", 0, ""),
        # two R7 need a joker each: none is left for R1 R2
        ("R7 B7 J(K7); R7 B7 J(Y7)", "R1 R2", 0, ""),
        # K7 and Y7 free both jokers (a group of four may hold two, K-MELD-2); one makes R1 R2 a run
        ("R7 B7 J(K7); R7 B7 J(Y7)", "K7 Y7 R1 R2", 17, "R1 R2 K7 Y7"),
    ],
)
def test_k_play_1_worked_positions(table, rack, value, played):
    play = sim.table_play(rack, table)
    assert play.value == value
    assert str(play.played) == played


@pytest.mark.parametrize(
    ("table", "rack", "bound", "free", "freed"),
    [
        # K-JOKER-2: the group's joker stays R6, so R1 and the rack joker make nothing; free, it
        # leaves the group of four for a run R1 J J
        ("J(R6) B6 K6 Y6", "R1 J", 0, 31, ()),
        # with the joker's tile on the rack R6 frees it, and it must be placed again: with R1 R2
        ("J(R6) B6 K6 Y6", "R6 R1", 0, 0, ()),
        ("J(R6) B6 K6 Y6", "R6 R1 R2", 9, 9, (("R6", "R6"),)),
        # a group of three's joker is freed by its tile or by the colour the group lacks
        ("R7 B7 J(K7)", "Y7 R1 R2", 10, 10, (("K7", "Y7"),)),
        ("R7 B7 J(K7)", "K7 R1 R2", 10, 10, (("K7", "K7"),)),
        # a freed joker needs a place: the full group has none, so K7 alone cannot free it...
        ("R7 B7 J(K7) Y7", "K7", 0, 0, ()),
        # ...but with R8 R9 it makes them a run
        ("R7 B7 J(K7) Y7", "K7 R8 R9", 24, 24, (("K7", "K7"),)),
        # bound, J(K3) may go only where K3 goes (the run K3 K4 K5 K6), never into R4 J(B4) Y4
        ("R3 B3 J(K3) Y3; K4 K5 K6", "R4 Y4", 0, 8, ()),
    ],
)
def test_k_joker_2_worked_positions(table, rack, bound, free, freed):
    play = sim.table_play(rack, table)
    assert (play.value, play.freed) == (bound, freed), [str(m) for m in play.melds]
    assert sim.table_play(rack, table, FREE).value == free
    assert sim.table_play(rack, table, FREE).freed == ()


def test_k_joker_1_locked_joker_freed_only_by_its_tile():
    locked = RUMMIKUB.replace(locked_jokers=True)
    # the joker stands for R4: R4 frees it, and it must go into another meld that turn
    play = sim.table_play("R4 K9 K10", "R3 J(R4) R5; B9 B10 B11", locked)
    assert "R3 R4 R5" in [str(m) for m in play.melds]
    assert play.value == 23
    # without its exact tile the frozen meld is not touched, not even extended
    play = sim.table_play("R6", "R3 J(R4) R5", locked)
    assert play.value == 0
    assert sim.table_play("R6", "R3 J(R4) R5").value == 6


def test_tiles_objective_places_the_most_tiles():
    # value: Y1 Y3 around the table's Y2 (4 points, 2 tiles); tiles: B1 K1 Y1 (3 tiles)
    value = sim.table_play("B1 K1 Y1 R3 Y3 Y8", "R2 B2 K2 Y2", objective="value")
    tiles = sim.table_play("B1 K1 Y1 R3 Y3 Y8", "R2 B2 K2 Y2", objective="tiles")
    assert (value.value, value.tiles, str(value.played)) == (4, 2, "Y1 Y3")
    assert (tiles.value, tiles.tiles, str(tiles.played)) == (3, 3, "B1 K1 Y1")


@pytest.mark.parametrize(
    ("table", "rack", "message"),
    [
        ("R1 R2", "R3", "table meld 1 (R1 R2) is not valid"),
        ("R1 R2 R4", "R3", "2 is not followed by 4 in a run (T-MELD-1)"),
        ("R1 R2 R3; R1 R2 R3", "R1", "R1 appears 3 times"),
        ("R5 B5 J(K5); R7 R8 J(R9)", "J", "3 jokers"),
    ],
)
def test_bad_tables_are_named(table, rack, message):
    with pytest.raises(NotationError, match=re.escape(message)):
        sim.table_play(rack, table)


def test_k_meld_2_a_group_of_four_may_hold_two_jokers():
    # only a group of three is limited to one joker: R9 extends the run, and the group of
    # four keeps both jokers or, bound to R5 (K-JOKER-2), one joins the run as R5
    for rules in (RUMMIKUB, FREE):
        play = sim.table_play("R9", "R1 R2 R3; B5 K5 J(Y5) J(R5); R6 R7 R8", rules)
        assert (play.value, str(play.played)) == (9, "R9")
        assert all(check_meld(m, rules) is None for m in play.melds)
    bound = [str(m) for m in sim.table_play("R9", "R1 R2 R3; B5 K5 J(Y5) J(R5); R6 R7 R8").melds]
    assert sorted(t for m in bound for t in m.split() if t.startswith("J(")) == ["J(R5)", "J(Y5)"]


def test_bad_objective_and_family():
    with pytest.raises(RulesError, match="objective"):
        sim.table_play("R1", "R2 R3 R4", objective="points")
    with pytest.raises(RulesError, match="Rummikub"):
        sim.table_play("R1", "R2 R3 R4", "rummy101")


def test_solver_finds_a_table_that_was_scattered():
    """A full table of 40 tiles, rebuilt with two jokers and three rack tiles: the answer
    is valid and keeps every tile (a size the reference cannot reach)."""
    table = ("R1 R2 R3 R4; B1 K1 Y1; R5 B5 K5 Y5; B2 B3 B4; K2 K3 K4 J(K5); Y2 Y3 Y4; "
             "R6 R7 R8; B6 B7 B8; K6 K7 K8; Y6 Y7 J(Y8); R9 B9 K9 Y9; R10 R11 R12 R13")
    play = sim.table_play("Y5 K9 Y10 B13", table)
    assert play.tiles >= 2
    melds = [parse_meld(m) for m in table.split(";")]
    after = np.array(meld_counts(list(play.melds)))
    assert (after == np.array(meld_counts(melds)) + np.array(play.played.counts)).all()
    assert all(check_meld(m, RUMMIKUB) is None for m in play.melds)


@settings(max_examples=60)
@given(position=big_table_positions())
def test_k_play_1_large_tables_hold_and_beat_new_melds_alone(position):
    """Tables of 10 to 70 tiles, beyond the reference: the arrangement is valid, holds every
    tile, passes the referee, and places at least the best new melds the rack alone could
    lay beside the table as it stands (a play that is always legal after opening)."""
    melds, rack = position
    play = sim.table_play(Rack(tuple(rack)), melds)
    after = np.array(meld_counts(list(play.melds)))
    assert (after == np.array(meld_counts(melds)) + np.array(play.played.counts)).all()
    assert all(check_meld(m, RUMMIKUB) is None for m in play.melds)
    alone = sim.best_opening(Rack(tuple(rack)), RUMMIKUB)
    assert play.value >= alone.value
    if play.can_play:
        assert check_table_play(melds, _rack_counter(rack), list(play.melds), RUMMIKUB, play.freed) == []


def test_to_dict_is_json():
    play = sim.table_play("R4", "R1 R2 R3")
    data = json.loads(json.dumps(play.to_dict()))
    assert data == {"value": 4, "tiles": 1, "played": "R4", "melds": ["R1 R2 R3 R4"], "freed": [], "can_play": True,
                    "objective": "value"}
    freed = sim.table_play("Y7 R1 R2", "R7 B7 J(K7)").to_dict()
    assert freed["freed"] == [{"joker": "J(K7)", "by": "Y7"}]


# --- the referee's turn checks (sim.games.rummikub.referee) ---------------------------------


def _rack_counter(rack):
    return Counter(str(Rack(tuple(rack))).split())


@pytest.mark.parametrize("name", ["standard", "locked_jokers", "wrap_runs", "free", "free_locked_jokers"])
@settings(max_examples=150)
@given(position=table_positions())
def test_k_play_1_every_solver_play_passes_the_referee(name, position):
    melds, rack = position
    rules = VARIANTS[name]
    play = sim.table_play(Rack(tuple(rack)), melds, rules)
    found = check_table_play(melds, _rack_counter(rack), list(play.melds), rules, play.freed)
    if play.can_play:
        assert found == [], found
    else:
        assert found == ["no rack tile was placed (K-PLAY-1: draw, or pass with the pool empty)"]


def test_k_play_1_referee_names_each_fault():
    before = [parse_meld("R1 R2 R3"), parse_meld("B5 B6 J(B7)")]
    rack = Counter(["R4", "B7", "Y9"])

    def faults(after, rules=FREE, freed=()):
        return check_table_play(before, rack, [parse_meld(m) for m in after], rules, list(freed))

    assert faults(["R1 R2 R3 R4 J(R5)", "B5 B6 B7"]) == []
    assert faults(["R1 R2 R3 R4", "B5 B6 J(B8)"]) == [
        "table meld B5 B6 J(B8) is not valid: 6 is not followed by 8 in a run (T-MELD-1) (K-MELD-1/2)"]
    assert any("tiles left the table: J" in f for f in faults(["R1 R2 R3 R4", "B5 B6 B7"]))
    assert any("does not hold: K7 K8 K9" in f for f in faults(["R1 R2 R3 R4", "B5 B6 J(B7)", "K7 K8 K9"]))
    assert any("no rack tile" in f for f in faults(["R1 R2 R3", "B5 B6 J(B7)"]))
    locked = FREE.replace(locked_jokers=True)
    # B7 frees the locked joker by the exact tile (K-JOKER-1), and it goes into another meld
    assert faults(["R1 R2 R3 R4 J(R5)", "B5 B6 B7"], locked) == []
    assert any("tiles left the table: J" in f for f in faults(["R1 R2 R3 R4", "B5 B6 B7"], locked))
    # moving the joker inside its locked meld is a change to that meld
    assert faults(["R1 R2 R3", "J(B4) B5 B6 B7"]) == []
    assert any("locked meld B5 B6 J(B7) was changed" in f for f in faults(["R1 R2 R3", "J(B4) B5 B6 B7"], locked))


def test_k_joker_2_referee_checks_bound_jokers_and_their_freeing():
    """K-JOKER-2 (bound): a table joker keeps its tile unless the play frees it with a tile
    placed that turn (its exact tile, or a colour its group of three lacks), and the
    freeing is said in the play; the freed joker is placed again (every tile stays)."""
    before = [parse_meld("R1 R2 R3"), parse_meld("B5 B6 J(B7)"), parse_meld("R7 K7 J(Y7)")]
    rack = Counter(["R4", "B7", "B4", "B7", "Y9"])

    def faults(after, freed=(), rules=RUMMIKUB):
        return check_table_play(before, rack, [parse_meld(m) for m in after], rules, list(freed))

    # B7 frees J(B7), which goes to the end of the red run
    assert faults(["R1 R2 R3 R4 J(R5)", "B5 B6 B7", "R7 K7 J(Y7)"], [("B7", "B7")]) == []
    # the same play without saying so: the joker left its tile
    assert any("no longer stand for their tiles: J(B7)" in f
               for f in faults(["R1 R2 R3 R4 J(R5)", "B5 B6 B7", "R7 K7 J(Y7)"]))
    # a bound joker moved to another place that calls for its tile is fine: J(B7) after B4 B5 B6
    assert faults(["R1 R2 R3 R4", "B4 B5 B6 J(B7)", "R7 K7 J(Y7)"]) == []
    # the group's joker stands for Y7; B7 (a colour the group lacks) frees it too
    assert faults(["R1 R2 R3 R4 J(R5)", "B5 B6 J(B7)", "R7 B7 K7"], [("Y7", "B7")]) == []
    # a freeing by a tile that does not free that joker, or by a tile not placed
    assert any("no joker on the table standing for B7 that R4 frees" in f
               for f in faults(["R1 R2 R3 R4 J(R5)", "B5 B6 B7", "R7 K7 J(Y7)"], [("B7", "R4")]))
    assert any("not placed this turn: B7" in f
               for f in faults(["R1 R2 R3 R4", "B5 B6 J(B7)", "R7 K7 J(Y7)"], [("B7", "B7")]))
    # with the free reading a table joker may stand for anything, and nothing is freed
    assert faults(["R1 R2 R3 R4 J(R5)", "B5 B6 B7", "R7 K7 J(Y7)"], rules=FREE) == []


def test_k_open_1_referee_checks_the_bar_and_the_rack():
    rack = Counter(["R10", "R11", "R12", "B3", "K3", "Y3", "J"])
    rules = RUMMIKUB
    assert check_opening(rack, [parse_meld("R10 R11 R12")], 30, rules) == []
    assert any("below the bar of 50" in f for f in check_opening(rack, [parse_meld("R10 R11 R12")], 50, rules))
    # K-OPEN-2: the joker counts as the tile it stands for
    assert check_opening(rack, [parse_meld("R10 R11 R12 J(R13)")], 46, rules) == []
    assert any("does not hold: B4" in f for f in check_opening(rack, [parse_meld("B3 B4 B5")], 0, rules))


def test_solver_grows_its_memory_for_a_large_position():
    """A solver remembering few positions grows and finds the same play (no lost answer,
    no exponential search when a position needs more memory)."""
    from sim.games.rummikub.tableplay import Solver, read_table, table_counts

    table = ("R1 R2 R3 R4; B1 K1 Y1; R5 B5 K5 Y5; B2 B3 B4; K2 K3 K4 J(K5); Y2 Y3 Y4; "
             "R6 R7 R8; B6 B7 B8; K6 K7 K8; Y6 Y7 J(Y8); R9 B9 K9 Y9; R10 R11 R12 R13")
    counts = table_counts(read_table(table, RUMMIKUB))
    rack = np.array(sim.parse_rack("Y5 K9 Y10 B13 R1 B6").counts, dtype=np.int64)
    small, default = Solver(memo_bits=4), Solver()
    assert small.run(counts, rack, RUMMIKUB, 0) == default.run(counts, rack, RUMMIKUB, 0)
    assert small.memo_bits > 4


def test_solver_widens_its_memo_within_a_solve():
    """A solve that fills a quarter of its first 2**START_BITS slots moves what it
    remembers to the whole table and goes on: the same play as a solver that never had
    more than those slots (and grew by solving again)."""
    from sim.games.rummikub import tablesolver as kernels
    from sim.games.rummikub.tableplay import Solver, read_table, table_counts

    table = ("R4 B4 Y4; B5 B6 B7 B8; R6 R7 R8 R9; R6 J(R7) R8 R9; B7 K7 Y7; Y7 Y8 Y9 Y10; K8 K9 K10 K11 K12; "
             "R10 B10 Y10; K10 K11 K12; R11 B11 Y11; B11 B12 B13; R13 B13 Y13")
    counts = table_counts(read_table(table, RUMMIKUB))
    rack = np.array(sim.parse_rack("Y1 R2 R3 K3 R5 Y5 Y6 Y6 K7 K8 Y9 R12 R12 Y13").counts, dtype=np.int64)
    for objective in (0, 1):
        wide, narrow = Solver(), Solver(memo_bits=kernels.START_BITS)
        got = wide.run(counts, rack, RUMMIKUB, objective)
        assert wide.space[kernels.STATS] > (1 << kernels.START_BITS) // 4  # it widened
        assert got == narrow.run(counts, rack, RUMMIKUB, objective)
        assert (wide.placed == narrow.placed).all()


def _check_solve(solver, weight, n, expected, melds, rules, why):
    """A solve's answer against the brute force's best value ``expected``: the same value
    (none when nothing beats the table as it stands, ``n`` -1), every meld valid, and the
    melds holding the table's tiles and the rack tiles the solver says it placed."""
    from sim.games.rummikub.tablesolver import PRIMARY
    from sim.solver.layout import to_meld

    assert (weight // PRIMARY if weight > 0 else 0) == expected, (why, weight, [str(m) for m in melds])
    if n < 0:
        assert expected == 0, why
        return
    after = [to_meld(row) for row in solver.out[:n]]
    for meld in after:
        assert check_meld(meld, rules) is None, (why, str(meld))
    assert (np.array(meld_counts(after)) == np.array(meld_counts(melds)) + solver.placed).all(), why


def _wrap_position(position):
    """A position of wrap-around rounds (``table``: meld texts, ``rack``: text) as the solver
    takes it, the table's jokers bound: ``(rules, melds, table counts, pins, rack counts)``,
    the kernels compiled in order first (sim.jit.prepare: callees first)."""
    from sim.games.rummikub.tableplay import read_table, table_counts
    from sim.tiles import parse_rack

    rules = VARIANTS["wrap_runs"]
    sim.table_play("R1", "R2 R3 R4", rules)
    melds = read_table(position["table"], rules)
    table, pins = table_counts(melds, bound=True)
    return rules, melds, table, pins, np.asarray(parse_rack(position["rack"]).counts, dtype=np.int64)


WRAP_POSITIONS = json.loads((Path(__file__).parent / "data" / "wrap_positions.json").read_text())


@pytest.mark.parametrize("position", WRAP_POSITIONS, ids=[p["rack"] for p in WRAP_POSITIONS])
def test_k_var_wrap_runs_every_cut_of_the_numbers_gives_the_same_best_play(position):
    """With wrap-around runs the solver cuts the circle of numbers where few runs cross
    (tablesolver._cuts). On positions of simulated wrap-around rounds, some of them among the
    slowest when it always cut between 13 and 1 (up to 1.3 million positions visited), the best value
    and the most tiles are the same from all 13 cuts, searched either way (from the cut's 1
    up, from its 13 down: tablesolver._descending), and from the cuts tried in turn when
    each search may visit only a few positions; the play ``sim.table_play`` returns is
    valid and checked by the referee."""
    from sim.games.rummikub.tableplay import Solver
    from sim.games.rummikub.tablesolver import CUT_BUDGET, CUT_LIMIT, OVER_BUDGET, PRIMARY, PROBE_FIRST, PROBE_LIMIT

    rules, melds, table, pins, rack = _wrap_position(position)
    solver = Solver()
    for objective in (0, 1):
        chosen = solver.run(table, rack, rules, objective, pins=pins)[0]
        by_cut = {cut: solver.run(table, rack, rules, objective, pins=pins, cut=cut)[0] for cut in range(26)}
        assert set(by_cut.values()) == {chosen}, (objective, chosen, by_cut)
        # a cut whose search passes its budget gives way to the next (here after 20 positions)
        solver.space[CUT_LIMIT] = 20
        assert solver.run(table, rack, rules, objective, pins=pins)[0] == chosen
        assert solver.space[OVER_BUDGET] == 0
        solver.space[CUT_LIMIT] = CUT_BUDGET
        # the next choices probed when the first is read after 8 positions (or 2)
        for reading in (8, 2):
            solver.space[PROBE_LIMIT] = reading
            assert solver.run(table, rack, rules, objective, pins=pins)[0] == chosen
        solver.space[PROBE_LIMIT] = PROBE_FIRST
    play = sim.table_play(position["rack"], melds, rules)
    assert play.value == solver.run(table, rack, rules, 0, pins=pins)[0] // PRIMARY
    for meld in play.melds:
        assert check_meld(meld, rules) is None, str(meld)
    after = np.array(meld_counts(list(play.melds)))
    assert (after == np.array(meld_counts(melds)) + np.array(play.played.counts)).all()
    if play.can_play:
        assert check_table_play(melds, _rack_counter(rack), list(play.melds), rules, list(play.freed)) == []


# Positions of wrap-around rounds whose first cut (as tablesolver._cuts ranks them) visits
# over a thousand positions where a later cut visits a few hundred or fewer.
SLOW_FIRST_CUT = [
    {"table": ["R12 R13 R1 R2", "K12 J(K13) K1 K2 K3", "B7 B8 B9 B10 B11 B12 B13", "B13 K13 Y13",
               "Y6 Y7 Y8 Y9 Y10 Y11 Y12 Y13", "R9 R10 R11 R12", "B12 K12 Y12", "K9 K10 K11", "Y8 Y9 Y10", "R6 R7 R8 R9",
               "K3 K4 K5 K6 K7 K8 K9", "B5 B6 B7 B8", "R4 R5 R6 R7", "R4 B4 Y4", "B4 K4 Y4"], "rack": "K1 Y1 B3 K5 R8"},
    {"table": ["Y3 Y4 Y5 Y6 Y7", "B7 K7 Y7", "R8 B8 Y8", "J(B9) B10 B11", "B9 B10 B11", "K10 K11 K12 K13 K1",
               "Y11 Y12 J(Y13) Y1", "R12 R13 R1", "R13 B13 K13 Y13", "R2 B2 K2"],
     "rack": "B1 Y2 Y2 R3 K3 R4 K5 R6 K7 Y9 R10 R11 B13"},
]


@pytest.mark.parametrize(("rule", "position"), [
    ("standard", {"table": ["R1 R2 R3", "B5 K5 Y5"], "rack": "R4 R5 K6 K9"}),
    ("wrap_runs", {"table": ["R11 R12 R13", "B1 K1 Y1"], "rack": "R1 R2 K13 Y9"}),
    ("wrap_runs", SLOW_FIRST_CUT[1]),
], ids=["standard", "wrap_runs", "wrap_runs-slow-first-cut"])
def test_k_play_1_a_floor_seeks_only_plays_worth_more(rule, position):
    """A solve given a floor (``Solver.run(floor=...)``, as the bench's ``told_the_answer``
    uses it) seeks only plays weighing more: just under the best it finds the best again,
    at the best it returns the floor and no melds (rows -1)."""
    from sim.games.rummikub.tableplay import Solver, read_table, table_counts
    from sim.tiles import parse_rack

    rules = VARIANTS[rule]
    table, pins = table_counts(read_table(position["table"], rules), bound=True)
    rack = np.asarray(parse_rack(position["rack"]).counts, dtype=np.int64)
    solver = Solver()
    best, rows = solver.run(table, rack, rules, 0, pins=pins)
    assert best > 0 and rows > 0  # every position here has a play
    assert solver.run(table, rack, rules, 0, pins=pins, floor=best - 1) == (best, rows)
    assert solver.run(table, rack, rules, 0, pins=pins, floor=best) == (best, -1)


@pytest.mark.parametrize("first", [200, 1024])
@pytest.mark.parametrize("position", SLOW_FIRST_CUT, ids=[p["rack"] for p in SLOW_FIRST_CUT])
def test_k_var_wrap_runs_cuts_after_the_first_start_on_a_sixteenth_of_its_budget(position, first):
    """With wrap-around runs, a first cut past its budget (``CUT_LIMIT``) gives way to the
    others in the order tablesolver._cuts ranks them, each given a sixteenth of that budget
    for one round, then the whole budget, four times more after each round of all the cuts
    (the first again once its budget beats its own): the positions the solve visits
    (``VISITED_ALL``) are those of that schedule replayed here on each cut's own count (a
    search given up counts its budget and the position that passed it), and the best play is
    the same."""
    from sim.games.rummikub.tableplay import Solver, read_table, table_counts
    from sim.games.rummikub.tablesolver import CUT_LIMIT, PROBE_LIMIT, STATS, VISITED_ALL, _cuts, _descending
    from sim.tiles import parse_rack

    rules = VARIANTS["wrap_runs"]
    sim.table_play("R1", "R2 R3 R4", rules)  # the kernels compiled in order (sim.jit.prepare), callees first
    table, pins = table_counts(read_table(position["table"], rules), bound=True)
    rack = np.asarray(parse_rack(position["rack"]).counts, dtype=np.int64)
    solver = Solver()

    def turned(counts, shift):  # every number m moved to m + shift, 13 wrapping to 1; jokers as they are
        return np.r_[np.roll(counts[:52].reshape(4, 13), shift, axis=1).ravel(), counts[52:]]

    order = _cuts(table, pins, rack)
    cost, values = [], set()
    for shift in order:  # each cut alone, searched the way the solver would
        down = _descending(turned(table, shift), turned(rack, shift))
        values.add(solver.run(table, rack, rules, 0, pins=pins, cut=int(shift) + 13 * int(down))[0])
        cost.append(int(solver.space[STATS + 2]))
    assert len(values) == 1
    assert cost[0] > first  # the first cut is given up
    visited, limit, i, rounds = 0, first, 0, 0
    while cost[i] > limit:
        visited += limit + 1
        while True:
            i += 1
            if rounds == 0 or i == len(order):
                i %= len(order)
                limit = max(1, first >> 4) if rounds == 0 else first if rounds == 1 else limit * 4
                rounds += 1
            if i > 0 or limit > first:
                break
    visited += cost[i]
    solver.space[CUT_LIMIT] = first
    solver.space[PROBE_LIMIT] = 0  # the schedule alone: no choice probed
    assert solver.run(table, rack, rules, 0, pins=pins)[0] in values
    assert solver.space[VISITED_ALL] == visited


def test_k_var_wrap_runs_progress_is_the_share_of_each_depths_options_tried():
    """A search stopped on its budget estimates how much of its tree it has been through
    (tablesolver._progress): each option an equal share of its parent's, those before the
    one in hand done. Two options at the root, the second in hand (a half done), four
    below it, the third in hand (two quarters of that half): three quarters."""
    from sim.games.rummikub.tablesolver import _progress

    progress = _progress.py_func
    assert progress(np.array([2, 4]), np.array([2, 3]), 2) == 0.75
    assert progress(np.array([3, 5]), np.array([1, 1]), 2) == 0.0  # the first option of each: nothing done
    assert progress(np.array([2, 4, 7]), np.array([2, 3, 5]), 1) == 0.5  # only the depths above count


# Positions of the bench's wrap-around rounds (seed 2026) whose first choice of cut and
# direction visits thousands of positions, probing a fifth of that or less.
DEAR_FIRST_CHOICE = [
    {"table": ["R2 R3 R4 R5", "K1 K2 K3", "Y2 J(Y3) Y4 Y5", "Y13 Y1 Y2", "B4 B5 B6", "B4 K4 Y4", "R5 R6 R7",
               "Y5 Y6 Y7 Y8 Y9", "R7 B7 K7", "K7 J(K8) K9 K10 K11", "R8 B8 Y8", "B8 B9 B10 B11 B12", "R9 R10 R11",
               "R9 K9 Y9", "R10 B10 Y10", "K11 K12 K13 K1", "R12 B12 K12", "Y12 Y13 Y1", "R13 B13 K13"],
     "rack": "B1 K3"},
    {"table": ["Y10 Y11 Y12 Y13 Y1", "R11 R12 J(R13) R1", "R11 B11 K11 Y11", "R12 B12 K12", "B13 B1 B2 B3",
               "K13 K1 K2 K3 K4", "Y13 Y1 Y2 Y3 Y4 Y5 Y6 Y7", "R1 R2 R3", "R2 B2 K2", "R3 B3 Y3", "R4 K4 Y4",
               "R5 B5 K5", "B5 B6 B7", "R6 B6 K6", "K6 K7 K8", "R7 B7 Y7", "K7 K8 K9", "R9 K9 Y9"],
     "rack": "R6 Y10 J"},
]


@pytest.mark.parametrize("position", DEAR_FIRST_CHOICE, ids=[p["rack"] for p in DEAR_FIRST_CHOICE])
def test_k_var_wrap_runs_a_dear_first_choice_gives_way_to_a_probe_estimated_cheaper(position):
    """With wrap-around runs, a first choice of cut and direction that would visit many
    positions (read from its progress after ``PROBE_LIMIT`` positions) has the next choices
    probed in a scratch of their own, and the one estimated cheapest goes on: on positions
    whose first choice visits thousands, the solve visits far fewer positions than without
    probing (``PROBE_LIMIT`` 0) and finds the same best play (both objectives), valid and
    checked by the referee."""
    from sim.games.rummikub.tableplay import Solver
    from sim.games.rummikub.tablesolver import PROBE_FIRST, PROBE_LIMIT, VISITED_ALL
    from sim.solver.layout import to_meld

    rules, melds, table, pins, rack = _wrap_position(position)
    solver = Solver()
    assert solver.space[PROBE_LIMIT] == PROBE_FIRST
    for objective in (0, 1):
        solver.space[PROBE_LIMIT] = 0
        alone = solver.run(table, rack, rules, objective, pins=pins)[0]
        without = int(solver.space[VISITED_ALL])
        solver.space[PROBE_LIMIT] = PROBE_FIRST
        best, n = solver.run(table, rack, rules, objective, pins=pins)
        assert best == alone > 0
        if objective == 0:
            assert solver.space[VISITED_ALL] * 5 < without, (solver.space[VISITED_ALL], without)
        after = [to_meld(row) for row in solver.out[:n]]
        for meld in after:
            assert check_meld(meld, rules) is None, str(meld)
        assert check_table_play(melds, _rack_counter(solver.placed), after, rules, []) == []


@settings(max_examples=300)
@given(data=st.data(), objective=st.sampled_from(["value", "tiles"]), limit=st.sampled_from([1, 2, 3, 5, 8]))
def test_k_var_wrap_runs_probing_other_cuts_finds_the_brute_force_best_play(data, objective, limit):
    """However early the first choice of cut and direction is read and the next ones probed
    (``PROBE_LIMIT`` a few positions: the first choice goes on where it stopped, or a probe
    gives the answer, or the choice estimated cheapest starts afresh), the solver finds the
    brute force's best, and every meld it returns is valid and holds the table's tiles and
    the rack tiles it says it placed (a probe's play turned back from its own cut)."""
    from sim.games.rummikub.tableplay import Solver, table_counts
    from sim.games.rummikub.tablesolver import PROBE_LIMIT

    rules = VARIANTS["free_wrap_runs"]  # (bound jokers: the every-cut test above probes too)
    melds, rack = data.draw(table_positions(wrap=True))
    table = table_counts(melds)
    r = np.array(rack, dtype=np.int64)
    expected = reference(melds, rack, rules, objective)
    solver = Solver()
    solver.space[PROBE_LIMIT] = limit
    weight, n = solver.run(table, r, rules, 0 if objective == "value" else 1)
    _check_solve(solver, weight, n, expected, melds, rules, limit)


_ONE_SOLVER = []  # kept from one example to the next


@settings(max_examples=100)
@given(data=st.data(), limit=st.sampled_from([1, 2, 3]))
def test_k_var_wrap_runs_one_solver_probing_solve_after_solve_finds_the_brute_force_best_play(data, limit):
    """The probes' scratch is kept in the solver's space (``tablesolver._PROBE``), its memo
    emptied slot by slot when a probe starts, as the first search's is, rather than made
    anew at every solve that probes: one solver probing in solve after solve finds the brute
    force's best every time, though each position is solved for the most tiles and then for
    the most value (the same positions met again, the bounds a probe remembered for tiles
    too low for value were they read)."""
    from sim.games.rummikub.tableplay import Solver, table_counts
    from sim.games.rummikub.tablesolver import PROBE_LIMIT

    rules = VARIANTS["free_wrap_runs"]
    melds, rack = data.draw(table_positions(wrap=True))
    if not _ONE_SOLVER:
        _ONE_SOLVER.append(Solver())
    solver = _ONE_SOLVER[0]
    solver.space[PROBE_LIMIT] = limit
    for objective in ("tiles", "value"):
        expected = reference(melds, rack, rules, objective)
        weight, n = solver.run(table_counts(melds), np.array(rack, dtype=np.int64), rules,
                               0 if objective == "value" else 1)
        _check_solve(solver, weight, n, expected, melds, rules, (limit, objective))


@pytest.mark.parametrize("name", ["free", "free_wrap_runs"])
@settings(max_examples=150)
@given(data=st.data(), objective=st.sampled_from(["value", "tiles"]), shift=st.integers(0, 12))
def test_k_play_1_the_search_from_13_down_finds_the_same_best_play(name, data, objective, shift):
    """The solver may search the numbers from 13 down (tablesolver._descending): mirrored
    in, its melds mirrored back out. Forced either way (and with wrap-around runs from any
    cut), it finds the brute force's best, and every meld it returns is valid and holds the
    table's tiles and the rack tiles it says it placed."""
    from sim.games.rummikub.tableplay import Solver, table_counts

    rules = VARIANTS[name]
    melds, rack = data.draw(table_positions(wrap=rules.wrap_runs))
    table = table_counts(melds)
    r = np.array(rack, dtype=np.int64)
    expected = reference(melds, rack, rules, objective)
    solver = Solver()
    first = shift if rules.wrap_runs else 0
    for cut in (first, first + 13):
        weight, n = solver.run(table, r, rules, 0 if objective == "value" else 1, cut=cut)
        _check_solve(solver, weight, n, expected, melds, rules, cut)


@pytest.mark.parametrize(("name", "table", "rack"), [
    ("wrap_runs", "B13 B1 B2", "B3"),  # the part after the cut grows by a rack tile: none owed before 13
    ("wrap_runs", "B12 B13 B1", "B11 B2"),  # both parts grow: five in all
    ("wrap_runs", "B12 B13 B1; R1 B1 K1", "B11 B2 B3 J"),  # six would be two runs
    ("wrap_runs", "Y13 Y1 Y2 Y3; K12 K13 K1", "Y12 Y4 K2 K11 J"),
    ("free_wrap_runs", "J(R12) R13 R1; R2 B2 K2", "R11 R3 R4"),  # the joker before 13 or after 1
    ("free_wrap_runs", "K11 J(K12) K13 K1", "K2 K10 J"),
    ("free_wrap_runs", "B11 J(B12) B13 B1; J(R1) R2 R3 R4", "R11"),  # J(B12) B13 B1: a joker before x
    # the part before the cut owed by one tile after it or more (_OWED_MOST): two runs of a
    # colour across the cut, three and two after it, and four after it with two before
    ("wrap_runs", "K13 K1 K2 K3; K12 K13 K1 K2", "K11 K4 K3"),
    ("wrap_runs", "Y12 Y13 Y1 Y2 Y3 Y4; R1 B1 K1", "Y11 Y5 J"),
])
def test_k_var_wrap_runs_a_run_across_the_cut_grows_on_both_sides_of_it(name, table, rack):
    """A run across the cut of the numbers is formed in two parts (tablesolver._options): the
    part after the cut when the search meets its lowest tile, grown as the search goes on,
    then the part before the cut, up to 13, once the search gets there. From every cut,
    searched either way, the brute force's best value and most tiles, every meld valid."""
    from sim.games.rummikub.tableplay import Solver, read_table, table_counts
    from sim.games.rummikub.tablesolver import PRIMARY
    from sim.solver.layout import to_meld
    from sim.tiles import parse_rack

    rules = VARIANTS[name]
    sim.table_play("R1", "R2 R3 R4", rules)  # the kernels compiled in order (sim.jit.prepare), callees first
    melds = read_table(table, rules)
    counts = np.asarray(parse_rack(rack).counts, dtype=np.int64)
    t, pins = table_counts(melds, bound=True) if rules.joker_moves == "bound" else (table_counts(melds), None)
    solver = Solver()
    for objective in ("value", "tiles"):
        expected = reference(melds, list(counts), rules, objective)
        assert expected > 0
        for cut in range(26):
            weight, n = solver.run(t, counts, rules, 0 if objective == "value" else 1, pins=pins, cut=cut)
            assert weight // PRIMARY == expected, (objective, cut, weight)
            after = [to_meld(row) for row in solver.out[:n]]
            for meld in after:
                assert check_meld(meld, rules) is None, (cut, str(meld))
            assert (np.array(meld_counts(after)) == np.array(meld_counts(melds)) + solver.placed).all(), cut


def test_k_var_wrap_runs_the_part_before_the_cut_is_owed_by_one_tile_after_it_or_more():
    """Once the part after the cut of a run across it is closed, the part before the cut is
    owed knowing only whether the part after holds one tile (the part before then needs two:
    12 and 13) or more (one: 13) (tablesolver._OWED_MOST), so the positions between the two
    parts are the same whether the part after holds two, three or four tiles. Here every
    table holds R12 R13 R1 R2 R3 (three after the cut): the positions the search remembers
    between the parts owe that run as two, none as three; the best play is the brute
    force's."""
    from sim.games.rummikub.tableplay import Solver, read_table, table_counts
    from sim.games.rummikub.tablesolver import _OWED, _OWED_MOST, PRIMARY, remembered_keys
    from sim.tiles import parse_rack

    rules = VARIANTS["wrap_runs"]
    sim.table_play("R1", "R2 R3 R4", rules)  # the kernels compiled in order (sim.jit.prepare), callees first
    melds = read_table("R12 R13 R1 R2 R3; B5 B6 B7; K5 K6 K7 K8; R8 B8 Y8", rules)
    rack = np.asarray(parse_rack("Y9 B9 K9 Y7").counts, dtype=np.int64)
    solver = Solver()
    weight, _ = solver.run(table_counts(melds), rack, rules, 0, cut=0)  # cut between 13 and 1, from 1 up
    assert weight // PRIMARY == reference(melds, list(rack), rules, "value") > 0
    runs = remembered_keys(solver.space)[:, 5:7].copy().view(np.uint8).ravel()  # every open run's byte
    owed = Counter(int(v) & 15 for v in runs if v & _OWED)
    assert _OWED_MOST == 2
    assert set(owed) == {2}, owed


def test_k_var_wrap_runs_a_run_owed_two_tiles_before_the_cut_is_looked_up_as_owed_one():
    """A position not remembered whose runs across the cut owe two tiles before it (the part
    after holds one) is looked up again with them owed one (tablesolver._owed_two): that
    position places every tile this one can, so its remembered bound holds. The key with
    every such run (byte _OWED | 1) owed one (_OWED | 2), the other runs as they were, still
    largest first; no such run: False and the key unchanged."""
    from sim.games.rummikub.tablesolver import _OWED, KEY, _owed_two

    def key_of(*runs):  # runs of colour 0 in word 5, largest first
        key = np.arange(KEY, dtype=np.int64)
        key[5] = sum(v << (8 * i) for i, v in enumerate(runs))
        key[6] = (_OWED | 1) << 32  # colour 3's one run, owed two tiles
        return key

    alt = np.zeros(KEY, dtype=np.int64)
    assert _owed_two.py_func(key_of(_OWED | 2, _OWED | 1, 9), alt)
    assert alt.tolist() == [*key_of(_OWED | 2, _OWED | 2, 9)[:6], (_OWED | 2) << 32]
    key = key_of(_OWED | 2, 7)
    key[6] = 0
    assert not _owed_two.py_func(key, alt) and alt.tolist() == key.tolist()


def _counts(tiles):
    """The solver's counts (table ``f``, rack ``o``) of tiles written ``K11`` (rack: ``+K11``)."""
    from sim.games.rummikub.tablesolver import COLOURS, KINDS, NUMBERS

    f = np.zeros(KINDS + 1, dtype=np.int64)
    o = np.zeros(KINDS + 1, dtype=np.int64)
    for tile in tiles.split():
        counts, tile = (o, tile[1:]) if tile.startswith("+") else (f, tile)
        counts["RBKY".index(tile[0]) * NUMBERS + int(tile[1:]) - 1] += 1
    assert COLOURS == 4
    return f, o


def _runs_key(colour, *runs):
    """A key whose only open runs are ``runs`` (bytes: the end, and flags), of one colour."""
    from sim.games.rummikub.tablesolver import KEY

    key = np.zeros(KEY, dtype=np.int64)
    key[5 + colour // 2] = sum(v << (8 * i) for i, v in enumerate(runs)) << (32 * (colour % 2))
    return key


def _with_tiles(f, o, key):
    """``key`` with its tile words written from ``f`` and ``o``, as the search keeps them (a
    nibble a number: table copies, then rack copies from its third bit)."""
    from sim.games.rummikub.tablesolver import KINDS, NUMBERS

    key = key.copy()
    for k in range(KINDS):
        key[k // NUMBERS] += (int(f[k]) + (int(o[k]) << 2)) << (4 * (k % NUMBERS))
    return key


def _values():
    """The solver's weights of the tiles by value (objective 0, jokers at 30)."""
    from sim.games.rummikub.tablesolver import KINDS, NUMBERS, PRIMARY

    weights = np.array([PRIMARY * (k % NUMBERS + 1) + 1 for k in range(KINDS)] + [PRIMARY * 30 + 1])
    return weights.astype(np.int64)


# What tablesolver._stranded calls (inline kernels and helpers), to run it as plain Python.
_STRANDED_HELPERS = ("_left", "_missing", "_unheld", "_homes", "_surely_held", "_copies_left", "_zero_nibbles")


def _in_python(monkeypatch, name, *callees):
    """The solver's kernel ``name`` run as plain Python, the kernels it calls too."""
    from sim.games.rummikub import tablesolver

    for callee in callees:
        monkeypatch.setattr(tablesolver, callee, getattr(tablesolver, callee).py_func)
    kernel = getattr(tablesolver, name).py_func

    def run(*args):
        with np.errstate(over="ignore"):  # the products that wrap, as they do in the compiled code
            return kernel(*args)

    return run


def test_k_play_1_a_tile_with_more_table_copies_than_melds_left_to_hold_them_has_no_table(monkeypatch):
    """Each table copy of a tile needs a meld of its own (tablesolver._stranded, read at
    the first position of each number): with Y10 the lowest tile left, two table K11 have
    one K12 for runs of three and no group of 11: no table (the brute force agrees). Rack
    copies of K12 and K13, an open K run ending at 10, B11 and R11 for a group, or a joker
    each give the second copy a meld. With no free joker left (wrap-around runs), a run
    across the cut takes its 13 from the groups of 13 and from the runs: a K run across the
    cut leaves the second K11 no meld either (the brute force agrees)."""
    from sim.games.rummikub.tablesolver import _INCOMING, _OWED, COLOURS

    kernel = _in_python(monkeypatch, "_stranded", *_STRANDED_HELPERS)

    def stranded(f, o, key, pos, jokers, cyclic):  # no table: -1
        return kernel(f, o, _with_tiles(f, o, key), _values(), pos, jokers, cyclic) < 0

    lowest = (10 - 1) * COLOURS + 3  # Y10: number 10, colour 3
    tiles = "Y10 +Y11 +Y12 K11 K11 K12 K13"
    f, o = _counts(tiles)
    assert stranded(f, o, _runs_key(2), lowest, 0, False)
    table = list(parse_rack("Y10 K11 K11 K12 K13").counts)
    assert best_play(table, list(parse_rack("Y11 Y12").counts), RUMMIKUB) == INFEASIBLE
    assert best_play(table, list(parse_rack("Y11 Y12 K12 K13").counts), RUMMIKUB) == 11 + 12 + 12 + 13
    for more, runs, jokers in [("+K12 +K13", (), 0), ("", (10,), 0), ("B11 +R11", (), 0), ("", (), 1)]:
        f, o = _counts(f"{tiles} {more}")
        assert not stranded(f, o, _runs_key(2, *runs), lowest, jokers, False), (more, runs, jokers)
    for flag in (_OWED | 2, _INCOMING | 3):
        assert stranded(*_counts(tiles), _runs_key(2, flag), lowest, 0, True)
        assert not stranded(*_counts(tiles), _runs_key(2, flag), lowest, 1, True)  # a joker may be its 13
    wrap = VARIANTS["free_wrap_runs"]
    table = list(parse_rack("Y10 K11 K11 K12 K13 K1 K2").counts)
    assert best_play(table, list(parse_rack("Y11 Y12").counts), wrap) == INFEASIBLE
    assert best_play(table, list(parse_rack("Y11 Y12 K12 K13").counts), wrap) == 11 + 12 + 12 + 13
    # wrap-around runs: B13 B13, one for the open B run, the other for a group of 13 with Y13
    # and K13, but with no free joker the K run across the cut takes K13 (its part before it)
    r12 = (12 - 1) * COLOURS  # the lowest tile left: R12
    f, o = _counts("R12 B13 B13 K13 +Y13")
    key = _runs_key(1, 12)
    assert not stranded(f, o, key, r12, 0, True)
    key[6] = _OWED | 2  # colour 2 (K): word 6's low half
    assert stranded(f, o, key, r12, 0, True)
    assert not stranded(f, o, key, r12, 1, True)  # a joker may be its 13
    # one copy of 11 is not stranded while a run of three can hold it; none, with no K12
    assert not stranded(*_counts("Y10 K11 K12 K13"), _runs_key(2), lowest, 0, False)
    assert stranded(*_counts("Y10 K11 K13"), _runs_key(2), lowest, 0, False)


def test_k_play_1_runs_that_reach_a_tile_through_one_copy_before_it_hold_one_copy(monkeypatch):
    """Every run that holds a tile holds the number before it or starts at it
    (tablesolver._homes, with no free joker left): with two open R runs ending at 10 and
    R11 R12 R13 R13 left, each run could reach R13, but both through the one R12, and no
    run can start at 13, so the second R13 has no meld: no table (the brute force agrees on
    the whole table, two R8 R9 R10 beside them). A second R11 and R12 on the rack give it
    one, as a free joker may."""
    from sim.games.rummikub.tablesolver import COLOURS

    kernel = _in_python(monkeypatch, "_stranded", *_STRANDED_HELPERS)

    def stranded(tiles, jokers):
        f, o = _counts(tiles)
        return kernel(f, o, _with_tiles(f, o, _runs_key(0, 10, 10)), _values(), (11 - 1) * COLOURS, jokers, False)

    assert stranded("R11 R12 R13 R13", 0) == -1
    assert stranded("R11 R12 R13 R13 +R11 +R12", 0) >= 0
    assert stranded("R11 R12 R13 R13", 1) >= 0
    table = list(parse_rack("R8 R9 R10 R8 R9 R10 R11 R12 R13 R13").counts)
    assert best_play(table, [0] * len(table), RUMMIKUB) == INFEASIBLE
    assert best_play(table, list(parse_rack("R11 R12").counts), RUMMIKUB) == 11 + 12


def test_k_var_wrap_runs_a_12_that_a_run_across_the_cut_holds_takes_no_run_to_a_13(monkeypatch):
    """With wrap-around runs and no free joker left, the part before the cut of a run across
    it whose part after holds one tile (``R1``) holds a 12 and a 13 of its own, so no other
    run reaches a 13 through that 12 (tablesolver._homes, the 12s and 13s held): with R11
    R12 R13 R13 left, the run across the cut takes R12 and one R13, and the second R13 has
    no meld (no group of 13, no run through a second R12): no table, as the brute force
    finds on the whole table (R11 R12 R13 R13 R1). A second R12 on the rack gives it one, as
    a free joker may."""
    from sim.games.rummikub.tablesolver import _OWED, COLOURS

    kernel = _in_python(monkeypatch, "_stranded", *_STRANDED_HELPERS)

    def stranded(tiles, jokers):
        f, o = _counts(tiles)
        return kernel(f, o, _with_tiles(f, o, _runs_key(0, _OWED | 1)), _values(), (11 - 1) * COLOURS, jokers, True)

    assert stranded("R11 R12 R13 R13", 0) == -1
    assert stranded("R11 R12 R13 R13 +R12", 0) >= 0
    assert stranded("R11 R12 R13 R13", 1) >= 0
    rules = VARIANTS["free_wrap_runs"]
    table = list(parse_rack("R11 R12 R13 R13 R1").counts)
    assert best_play(table, [0] * len(table), rules) == INFEASIBLE
    assert best_play(table, list(parse_rack("R12").counts), rules) == 12


def test_k_play_1_rack_copies_no_meld_left_can_hold_stay_on_the_rack(monkeypatch):
    """Rack copies beyond the melds that could still hold one (tablesolver._stranded) stay on
    the rack whatever the search does, so their weight comes off the bound at the first
    position of each number: with R1 R2 R3 on the table, K7 K7 B7 on the rack have no
    group (two colours of 7) and no run (no K6 or K8): all three lost, and the brute force
    places none. An open K run ending at 6 holds one K7; a joker gives each a meld."""
    from sim.games.rummikub.tablesolver import PRIMARY

    kernel = _in_python(monkeypatch, "_stranded", *_STRANDED_HELPERS)

    def stranded(f, o, key, *rest):
        return kernel(f, o, _with_tiles(f, o, key), *rest)

    f, o = _counts("R1 R2 R3 +K7 +K7 +B7")
    weights = _values()
    seven = PRIMARY * 7 + 1
    assert stranded(f, o, _runs_key(2), weights, 0, 0, False) == 3 * seven
    assert best_play(list(parse_rack("R1 R2 R3").counts), list(parse_rack("K7 K7 B7").counts), RUMMIKUB) == 0
    assert stranded(f, o, _runs_key(2, 6), weights, 0, 0, False) == 2 * seven
    assert stranded(f, o, _runs_key(2), weights, 0, 1, False) == 0
    for cyclic in (False, True):  # a table copy with no meld still leaves no table
        assert stranded(*_counts("R1 R2 R3 K7 +B7"), _runs_key(2), weights, 0, 0, cyclic) == -1


def _stranded_tile_by_tile(f, o, key, weights, pos, jokers, cyclic):
    """tablesolver._stranded without its reading of the key's tile words: every tile left
    counted one by one against the melds that could still hold a copy (plain Python)."""
    from sim.games.rummikub.tablesolver import _INCOMING, _NEAR_MOST, _OWED, COLOURS, MAX_RUN, NUMBERS

    def left(c, q):
        return f[c * NUMBERS + q - 1] + o[c * NUMBERS + q - 1] if n <= q <= NUMBERS else 0

    def missing(c, first, last):
        return sum(1 for q in range(first, last + 1) if left(c, q) == 0)

    def unheld(c, m):
        k = left(c, m)
        return max(0, k - ((held >> (8 * c + 32 * (NUMBERS - m))) & 255)) if NUMBERS - 1 <= m <= NUMBERS else k

    n = pos // COLOURS + 1
    spare = min(jokers, 2)
    lost = 0
    held = 0
    if cyclic and jokers == 0:
        for c in range(COLOURS):
            field = (int(key[5 + c // 2]) >> (32 * (c % 2))) & 0xFFFFFFFF
            while field:
                if field & (_INCOMING | _OWED):
                    held += 1 << (8 * c)
                if field & 255 == _OWED | 1:
                    held += 1 << (8 * c + 32)
                field >>= 8
    for m in range(n, NUMBERS + 1):
        distinct = sum(1 for c in range(COLOURS) if unheld(c, m) > 0)
        copies = sum(min(unheld(c, m), 2) for c in range(COLOURS))
        for c in range(COLOURS):
            y = c * NUMBERS + m - 1
            table, need = f[y], f[y] + o[y]
            if need == 0 or table > 2 or (m == n and c <= pos % COLOURS):
                continue
            if cyclic and m <= _NEAR_MOST and missing(c, 1, m - 1) <= jokers:
                continue
            if cyclic and n <= _NEAR_MOST and m > NUMBERS - MAX_RUN:
                continue
            own = unheld(c, m)
            homes = 0
            if distinct - (1 if own > 0 else 0) + spare >= 2:
                homes = min(2, (copies - min(2, own) + spare) // 2)
            if homes >= need:
                continue
            # the 12s and 13s the runs across the cut hold hold no other run
            below = unheld(c, m - 1)
            before = min(below, unheld(c, m - 2))
            after = unheld(c, m + 1)
            runs = 0
            if before + jokers > 0 or min(after, below) + jokers > 0 or min(after, unheld(c, m + 2)) + jokers > 0:
                runs = min(2, after + jokers) + before + jokers
            field = (int(key[5 + c // 2]) >> (32 * (c % 2))) & 0xFFFFFFFF
            ends = []  # the open runs' ends
            across = 0  # runs across the cut
            while field:
                v = field & 255
                field >>= 8
                if v & (_INCOMING | _OWED):
                    across += 1
                else:
                    ends.append(v & 15)
            if jokers == 0 and m > _NEAR_MOST:  # holding m, its part before the cut holds m + 1 to 13
                across = min([across] + [left(c, q) for q in range(m + 1, NUMBERS + 1)])
            homes += across
            runs += sum(1 for e in ends if e < m and missing(c, e + 1, m - 1) <= jokers)  # open runs reaching it
            if jokers == 0:  # each run holding m holds m - 1 (a copy left or an open run's end) or starts at m
                runs = min(runs, below + ends.count(m - 1) + min(after, unheld(c, m + 2)))
            homes += runs
            if homes < table:
                return -1
            if homes < need:
                lost += min(o[y], need - homes) * weights[y]
    return lost


@st.composite
def _positions_left(draw):
    """Tiles left from a lowest number on (table and rack copies, up to two each, a third
    table copy now and then: a copy pinned by a bound joker), free jokers, and open runs of
    each colour ending below that number, or parts of runs across the cut (wrap_runs)."""
    from sim.games.rummikub.tablesolver import _INCOMING, _OWED, KINDS, NUMBERS

    low = draw(st.integers(1, NUMBERS))
    f = np.zeros(KINDS + 1, dtype=np.int64)
    o = np.zeros(KINDS + 1, dtype=np.int64)
    for k in range(KINDS):
        if k % NUMBERS + 1 >= low and draw(st.integers(0, 2)):
            f[k] = draw(st.sampled_from([0, 0, 1, 1, 2, 3]))
            o[k] = draw(st.sampled_from([0, 0, 1, 2]))
    first = [k for k in range(KINDS) if f[k] + o[k] and k % NUMBERS + 1 == low]
    if not first:
        f[draw(st.integers(0, 3)) * NUMBERS + low - 1] = 1
    pos = min((k % NUMBERS) * 4 + k // NUMBERS for k in range(KINDS) if f[k] + o[k])
    key = np.zeros(7, dtype=np.int64)
    for c in range(4):
        runs = sorted(draw(st.lists(st.one_of(st.integers(1, max(1, low - 1)),
                                              st.sampled_from([_OWED | 1, _OWED | 2, _INCOMING | 2, _INCOMING | 3])),
                                    max_size=3)), reverse=True)
        key[5 + c // 2] |= sum(v << (8 * i) for i, v in enumerate(runs)) << (32 * (c % 2))
    return f, o, key, pos, draw(st.integers(0, 2)), draw(st.booleans())


# B10 (rack) B11 B12 left, no free joker, a B run across the cut owed one tile (_OWED | 1 in
# colour B's byte): its part before the cut takes the one B12, so B11 has no run of three.
_B11_BESIDE_A_HELD_12 = (*_counts("B11 B12 +B10"), np.array([0, 0, 0, 0, 0, 33 << 32, 0]), 37, 0, True)


@settings(max_examples=400, deadline=None)
@given(_positions_left())
@example(_B11_BESIDE_A_HELD_12)
def test_k_play_1_stranded_tiles_read_on_the_key_as_counted_tile_by_tile(position):
    """tablesolver._stranded passes over, on the key's tile words, the tiles a group or a run
    surely holds (_surely_held); what it returns is what counting every tile one by one
    returns, on any tiles left, open runs, free jokers, with and without wrap-around runs.
    Found by hypothesis (2026-12-08): with a run across the cut holding a 12, the words read
    an 11 as held by a run of three through that 12, which it cannot have (the example)."""
    f, o, key, pos, jokers, cyclic = position
    key = _with_tiles(f, o, key)
    with _kernels_in_python(*_STRANDED_HELPERS) as tablesolver:
        fast = tablesolver._stranded.py_func(f, o, key, _values(), pos, jokers, cyclic)
    assert fast == _stranded_tile_by_tile(f, o, key, _values(), pos, jokers, cyclic)


@contextlib.contextmanager
def _kernels_in_python(*names):
    """tablesolver with the kernels ``names`` run as plain Python (a hypothesis test cannot
    take pytest's monkeypatch, made once for all its examples)."""
    from sim.games.rummikub import tablesolver

    saved = {name: getattr(tablesolver, name) for name in names}
    try:
        for name in names:
            setattr(tablesolver, name, saved[name].py_func)
        with np.errstate(over="ignore"):  # the products that wrap, as they do in the compiled code
            yield tablesolver
    finally:
        for name, kernel in saved.items():
            setattr(tablesolver, name, kernel)


@settings(max_examples=200, deadline=None)
@given(_positions_left())
def test_k_play_1_the_lowest_tile_and_runs_extended_read_on_the_key(position):
    """The search's lowest tile left (tablesolver._lowest) and whether an open run can take
    a tile (_extendable), read on the key's tile words, agree with scanning the counts."""
    from sim.games.rummikub.tablesolver import COLOURS, NUMBERS

    f, o, key, pos, jokers, _ = position
    key = _with_tiles(f, o, key)
    with _kernels_in_python("_copies_left") as tablesolver, np.errstate(over="ignore"):  # (a wrapping product)
        assert tablesolver._lowest.py_func(key) == pos
        assert tablesolver._lowest.py_func(np.zeros_like(key)) == -1
        for c in range(COLOURS):
            left = tablesolver._copies_left(key[c])
            for end in range(1, NUMBERS + 1):
                for last in (4, NUMBERS):
                    scanned = any(end + 1 + gap <= last and f[c * NUMBERS + end + gap] + o[c * NUMBERS + end + gap] > 0
                                  for gap in range(min(2, jokers) + 1))
                    assert tablesolver._extendable.py_func(left, end, jokers, last) == scanned, (c, end, last)


def _held_kind_by_kind(f, o, jokers, g3max, cyclic):
    """The obvious reading of which tiles a meld of the tiles left could hold (K-MELD-1/2):
    for each kind with a tile left, a group of its number (three colours or four; two and a
    joker or two, one where a group of three holds one; one colour and two jokers where a
    group of three holds two), or a run of three of its colour through it, 13 to 1 too with
    wrap-around runs, a joker for each number missing."""
    from sim.games.rummikub.tablesolver import COLOURS, KINDS, NUMBERS

    held = set()
    for k in range(KINDS):
        c, n = divmod(k, NUMBERS)
        if f[k] + o[k] == 0:
            continue
        colours = sum(1 for c2 in range(COLOURS) if f[c2 * NUMBERS + n] + o[c2 * NUMBERS + n] > 0)
        group = (colours >= 3 or (colours == 2 and (jokers >= 2 or (jokers >= 1 and g3max >= 1)))
                 or (jokers >= 2 and g3max >= 2))
        starts = [n - 2, n - 1, n] if cyclic else [s for s in (n - 2, n - 1, n) if s >= 0 and s + 2 < NUMBERS]
        kinds = [[c * NUMBERS + (s + q) % NUMBERS for q in range(3)] for s in starts]
        run = any(sum(1 for y in three if f[y] + o[y] == 0) <= jokers for three in kinds)
        if group or run:
            held.add(k)
    return held


@settings(max_examples=400, deadline=None)
@given(_positions_left(), st.integers(0, 3), st.integers(0, 2))
def test_k_meld_2_the_tiles_a_meld_could_hold_read_on_a_bit_per_number(position, jokers, g3max):
    """Which tiles a group or a run of three of the tiles left could hold, worked out on a bit
    per number for each colour (tablesolver._held: what a solve sets aside at its start, or
    fails on), agrees with checking kind by kind, with and without wrap-around runs, for
    every count of jokers and jokers a group of three may hold."""
    from sim.games.rummikub.tablesolver import KINDS, NUMBERS

    f, o, _, _, _, cyclic = position
    with _kernels_in_python("_run_held") as tablesolver:
        masks = tablesolver._held.py_func(f, o, jokers, g3max, cyclic)
    fast = {k for k in range(KINDS) if f[k] + o[k] > 0 and (int(masks[k // NUMBERS]) >> (k % NUMBERS)) & 1}
    assert fast == _held_kind_by_kind(f, o, jokers, g3max, cyclic)


@settings(max_examples=300, deadline=None)
@given(_positions_left())
def test_k_play_1_the_tile_placed_first_at_a_number_has_the_fewest_options(position):
    """The search places first, of the tiles left at the lowest number, the one with the
    fewest options (tablesolver._fail_first; a rack tile before a table tile with as many,
    else the lowest colour). Its count is exact where no joker is left, no run crosses the
    cut and no joker is bound: there the tile it names has as few options as
    tablesolver._options writes for any tile of that number."""
    from sim.games.rummikub.tablesolver import _INCOMING, _OWED, COLOURS, KINDS, NUMBERS, OPEN, OPTIONS

    f, o, key, pos, _, _ = position
    for w in (5, 6):  # the runs across the cut left out: only runs ending below the number
        fields = [(int(key[w]) >> (32 * h)) & 0xFFFFFFFF for h in (0, 1)]
        kept = []
        for field in fields:
            ends = [(field >> (8 * i)) & 255 for i in range(OPEN)]
            ends = [e for e in ends if e and not e & (_INCOMING | _OWED)]
            kept.append(sum(e << (8 * i) for i, e in enumerate(ends)))
        key[w] = kept[0] | (kept[1] << 32)
    f = np.minimum(f, 2)  # no copy pinned by a bound joker
    f[KINDS] = o[KINDS] = 0
    key = _with_tiles(f, o, key)
    nothing = np.zeros(KINDS + 1, dtype=np.int64)
    n = pos // COLOURS
    counts = {}
    with _kernels_in_python("_read_runs", "_run_options", "_far_part", "_number_at"):
        from sim.games.rummikub import tablesolver
        for c in range(COLOURS):
            x = c * NUMBERS + n
            if f[x] + o[x]:
                counts[c] = tablesolver._options.py_func(f, o, nothing, np.full(2, -1), key, x, 0, 1,
                                                         1 if f[x] == 0 else 0, False, False, np.zeros(OPEN, np.int64),
                                                         np.zeros(OPTIONS, np.int64))
        chosen = tablesolver._fail_first.py_func(f, o, key, pos, 0)
    assert chosen // COLOURS == n
    fewest = min(counts.values())
    ties = [c for c in sorted(counts) if counts[c] == fewest]
    rack_only = [c for c in ties if f[c * NUMBERS + n] == 0]
    assert chosen % COLOURS == (rack_only or ties)[0], (counts, chosen % COLOURS)


@pytest.mark.parametrize("name", ["free", "free_wrap_runs", "free_two_jokers_in_three"])
@settings(max_examples=100)
@given(data=st.data(), objective=st.sampled_from(["value", "tiles"]))
def test_k_play_1_any_tile_of_the_lowest_number_placed_first_finds_the_same_best_play(name, data, objective):
    """Which tile of the lowest number the search places first (the fewest options, or the
    lowest colour: ``space[FAIL_FIRST]`` 1 or 0) changes how many positions it visits, not
    what it finds: both find the brute force's best, with valid melds holding the table's
    tiles and the rack tiles placed."""
    from sim.games.rummikub.tableplay import Solver, table_counts
    from sim.games.rummikub.tablesolver import FAIL_FIRST

    rules = VARIANTS[name]
    melds, rack = data.draw(table_positions(wrap=rules.wrap_runs))
    expected = reference(melds, rack, rules, objective)
    solver = Solver()
    assert solver.space[FAIL_FIRST] == 1
    for fail_first in (0, 1):
        solver.space[FAIL_FIRST] = fail_first
        weight, n = solver.run(table_counts(melds), np.array(rack, dtype=np.int64), rules,
                               0 if objective == "value" else 1)
        _check_solve(solver, weight, n, expected, melds, rules, fail_first)


def test_k_play_1_the_tile_with_fewer_options_is_placed_before_the_lowest_of_its_number():
    """At 5 the lowest tile, R5, may start the run R5 R6 R7 or join one of the four groups of
    5 (three of three colours, one of four); B5 may only join a group. Placed first (the
    fewest options), B5 leaves R5 fewer ways to go: the search visits fewer positions than
    with R5 placed first, and finds the same play."""
    from sim.games.rummikub.tableplay import Solver, table_counts
    from sim.games.rummikub.tablesolver import FAIL_FIRST, VISITED_ALL

    rules = VARIANTS["standard"]
    melds = [parse_meld(m) for m in ("R5 B5 Y5", "R6 R7 R8", "K9 K10 K11")]
    rack = np.array(parse_rack("R5 B5 K5 R9").counts, dtype=np.int64)
    solver = Solver()
    found = {}
    for fail_first in (0, 1):
        solver.space[FAIL_FIRST] = fail_first
        found[fail_first] = (solver.run(table_counts(melds), rack, rules, 0)[0], int(solver.space[VISITED_ALL]))
    assert found[1][0] == found[0][0]
    assert found[1][1] < found[0][1], found


def test_k_var_wrap_runs_runs_across_the_cut_each_need_their_own_13(monkeypatch):
    """Two runs of red across the cut each owed two tiles before it (their parts after it
    hold one tile) need R12 R13 each (tablesolver._owed_in_reach counts them together): with
    one R12 and one R13 left either can be made whole, not both; with both copies, or one
    owed only 13 and a second R13, both can."""
    from sim.games.rummikub.tablesolver import _OWED, COLOURS

    in_reach = _in_python(monkeypatch, "_owed_in_reach", "_far_part")
    lowest = (10 - 1) * COLOURS  # R10
    assert in_reach(*_counts("R10 R12 R13"), _runs_key(0, _OWED | 1), lowest)
    assert not in_reach(*_counts("R10 R12 R13"), _runs_key(0, _OWED | 1, _OWED | 1), lowest)
    assert in_reach(*_counts("R10 R12 R13 +R12 +R13"), _runs_key(0, _OWED | 1, _OWED | 1), lowest)
    assert in_reach(*_counts("R10 R12 R13 +R13"), _runs_key(0, _OWED | 2, _OWED | 1), lowest)
    assert not in_reach(*_counts("R10 R12 R13"), _runs_key(0, _OWED | 2, _OWED | 1), lowest)


def test_k_var_wrap_runs_with_a_free_joker_left_the_run_owed_less_bounds_nothing():
    """With a free joker left (here the table's two, ``joker_moves=free``) a part before the cut
    of two tiles may hold it (``J(12) 13``) where the run owed one tile has no place for it, so
    the look-up of tablesolver._owed_two is not made: every one of the 26 choices of cut and
    direction gives the same best play (found on 20,000 bench positions, where the look-up
    made with a free joker left gave a play worth 7 where 10 was best), both objectives."""
    from sim.games.rummikub.tableplay import Solver, read_table, table_counts
    from sim.tiles import parse_rack

    rules = VARIANTS["free_wrap_runs"]
    sim.table_play("R1", "R2 R3 R4", rules)  # the kernels compiled in order (sim.jit.prepare), callees first
    melds = read_table("R6 B6 K6; R5 K5 Y5; R4 B4 K4; R1 R2 R3; R10 J(R11) R12 J(R13) R1 R2; B2 K2 Y2; "
                       "R8 R9 R10 R11; B9 B10 B11; B11 K11 Y11; B8 K8 Y8", rules)
    table = table_counts(melds)
    rack = np.asarray(parse_rack("K2 B3 R5 B7 B7 K12").counts, dtype=np.int64)
    solver = Solver()
    for objective in (0, 1):
        chosen = solver.run(table, rack, rules, objective)[0]
        by_cut = {cut: solver.run(table, rack, rules, objective, cut=cut)[0] for cut in range(26)}
        assert set(by_cut.values()) == {chosen}, (objective, chosen, by_cut)


def test_k_play_1_the_search_starts_from_the_end_where_the_rack_tiles_have_fewer_tiles_before_them():
    """The bound (the rack left) cuts nothing before the search reaches a rack tile's number,
    so the search starts from the end where the rack's tiles have fewer tiles before them
    (tablesolver._descending): here the rack's R12 K12 Y12 (a group) lie above a table of low
    runs and groups, and its B8 and K8 look placeable (B6, B7 and K7 are on the table) but no
    table holds them, so from 13 down; mirrored, from 1 up. The same play either way (the
    group alone), in fewer positions from 13 down."""
    from sim.games.rummikub.tableplay import Solver, read_table, table_counts
    from sim.games.rummikub.tablesolver import STATS, _descending
    from sim.tiles import parse_rack

    sim.table_play("R1", "R2 R3 R4")  # the kernels compiled in order (sim.jit.prepare), callees first
    low = read_table("R1 R2 R3 R4; B1 B2 B3; K2 K3 K4 K5; R5 B5 K5 Y5; Y3 Y4 Y5 Y6; R6 B6 Y6; B7 K7 Y7", RUMMIKUB)
    table = table_counts(low)
    rack = np.asarray(parse_rack("B8 K8 R12 K12 Y12").counts, dtype=np.int64)
    assert _descending(table, rack)
    def mirrored(counts):  # each number m as 14 - m
        return np.concatenate([counts[c * 13:(c + 1) * 13][::-1] for c in range(4)] + [counts[52:]])

    assert not _descending(mirrored(table), mirrored(rack))
    solver = Solver()
    visited = {}
    for cut in (0, 13):
        solver.run(table, rack, RUMMIKUB, 0, cut=cut)
        visited[cut] = (solver.space[STATS + 2], solver.placed.copy())
    assert (visited[0][1] == visited[13][1]).all()
    assert visited[0][1].sum() == 3  # R12 K12 Y12
    assert visited[13][0] < visited[0][0], visited


def test_k_var_wrap_runs_cuts_ranked_by_the_product_of_the_colours_crossing_runs():
    """The search tries each colour's runs across the cut with every choice of the other
    colours', so a cut where four colours each have a few runs that may cross (four tiles
    6 to 9 in each colour: 2 * 1 * 1 * 2 = 4 each, a product of 5**4 = 625) is tried after
    one where a single colour has many (R12 R13 R1 R2 twice: 3 * 2 * 2 * 3 = 36, a product
    of 37), though by their sum (16 against 36) it came first (tablesolver._cuts)."""
    from sim.games.rummikub.tablesolver import _cuts
    from sim.tiles import parse_rack

    sim.table_play("R1", "R2 R3 R4")  # the kernels compiled in order (sim.jit.prepare), callees first
    table = np.asarray(parse_rack("R12 R13 R1 R2 R12 R13 R1 R2 " + " ".join(
        f"{c}{n}" for c in "RBKY" for n in range(6, 10))).counts, dtype=np.int64)
    none = np.zeros_like(table)
    order = list(_cuts(table, none, none))
    between_13_and_1, between_7_and_8 = 0, 6  # shifts: the numbers either side of the cut become 13 and 1
    assert sorted(order) == list(range(13))
    assert order.index(between_13_and_1) < order.index(between_7_and_8)
    # the rack's tiles and the bound jokers' count as the table's
    assert list(_cuts(none, table, none)) == list(_cuts(none, none, table)) == order


def _outcome(call):
    try:
        return call()
    except (NotationError, RulesError) as e:
        return type(e).__name__, str(e)


@st.composite
def _written(draw, wrap=False):
    """A position written as a user might: any case, commas or spaces, a number with a
    leading zero, melds parted by ``;`` with blanks between; or one token spoilt."""
    melds, rack = draw(st.one_of(table_positions(wrap=wrap), bound_positions(), big_table_positions()))

    def token(t):
        t = t.lower() if draw(st.booleans()) else t
        if draw(st.integers(0, 9)) == 0 and t[-1].isdigit() and len(t) == 2:
            t = t[0] + "0" + t[1]
        return t

    def write(tokens):
        return draw(st.sampled_from([" ", ", ", "  ", ",", "\t"])).join(token(t) for t in tokens)

    parts = [write(str(m).split()) for m in melds]
    if draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), draw(st.sampled_from(["", "  ", ",", " , "])))
    table = draw(st.sampled_from(["; ", ";", " ;\n"])).join(parts)
    rack_text = write(str(Rack(tuple(rack))).split())
    spoil = draw(st.sampled_from(["", "", "", "table", "rack"]))
    if spoil:
        text = table if spoil == "table" else rack_text
        bad = draw(st.sampled_from(["J", "R14", "X3", "R0", "J(R3", "J(J)", "R1;", "é", "B5 B5", "R1 B2 K3"]))
        at = draw(st.integers(0, len(text)))
        text = text[:at] + " " + bad + " " + text[at:]
        table, rack_text = (text, rack_text) if spoil == "table" else (table, text)
    return table, rack_text


@pytest.mark.parametrize("name", ["standard", "wrap_runs", "locked_jokers", "two_jokers_in_three", "free"])
@settings(max_examples=300)
@given(data=st.data(), objective=st.sampled_from(["value", "tiles"]))
def test_k_play_1_table_play_from_text_reads_as_python_does(name, data, objective):
    """``sim.table_play`` on text reads the table and the rack in the kernel (issue 26);
    whatever is written, valid or not, the answer (or the error, word for word) is the
    one of reading it in Python first and passing the melds and the rack."""
    from sim.games.rummikub.tableplay import read_table
    from sim.tiles import parse_rack

    rules = VARIANTS[name]
    table, rack = data.draw(_written(wrap=rules.wrap_runs))
    quick = _outcome(lambda: sim.table_play(rack, table, rules, objective))
    python = _outcome(lambda: sim.table_play(parse_rack(rack), read_table(table, rules), rules, objective))
    assert quick == python, (table, rack)
    if isinstance(quick, sim.TablePlay):
        assert quick.to_dict() == python.to_dict()


def _rows(melds, size):
    from sim.solver.layout import meld_row

    rows = np.zeros((size, 6), dtype=np.int64)
    for i, m in enumerate(melds):
        rows[i] = meld_row(m)
    return rows


@pytest.mark.parametrize("name", ["standard", "wrap_runs", "locked_jokers", "free"])
@settings(max_examples=40)
@given(positions=st.lists(st.one_of(table_positions(), bound_positions(), big_table_positions()), min_size=1,
                          max_size=8),
       objective=st.sampled_from(["value", "tiles"]))
def test_k_play_1_table_plays_answers_each_position_as_table_play(name, positions, objective):
    """The batch form (arrays in, arrays out, issue 26) gives every position the answer of
    ``sim.table_play`` on it alone: value, tiles, the tiles placed and the table after."""
    rules = VARIANTS[name]
    size = max(len(m) for m, _ in positions) + 1
    racks = np.array([list(r) for _, r in positions], dtype=np.int64)
    tables = np.stack([_rows(m, size) for m, _ in positions])
    out = sim.table_plays(racks, tables, rules, objective)
    for i, (melds, rack) in enumerate(positions):
        one = sim.table_play(Rack(tuple(rack)), melds, rules, objective)
        assert (out["value"][i], out["tiles"][i]) == (one.value, one.tiles), i
        assert out["played"][i].tolist() == list(one.played.counts)
        after = [str(m) for m in sorted(map(str, one.melds))]
        from sim.solver.layout import to_meld
        got = sorted(str(to_meld(r)) for r in out["melds"][i, :out["rows"][i]])
        assert got == after, i


def test_table_plays_on_the_slowest_wrap_positions_matches_table_play():
    rules = VARIANTS["wrap_runs"]
    from sim.games.rummikub.tableplay import read_table
    from sim.tiles import parse_rack

    melds = [read_table(p["table"], rules) for p in WRAP_POSITIONS]
    size = max(map(len, melds))
    racks = np.array([parse_rack(p["rack"]).counts for p in WRAP_POSITIONS], dtype=np.int64)
    out = sim.table_plays(racks, np.stack([_rows(m, size) for m in melds]), rules)
    assert out["value"].tolist() == [sim.table_play(p["rack"], p["table"], rules).value for p in WRAP_POSITIONS]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r, t: (r[:, :10], t), r"racks: an integer array of shape \(N, 53\)"),
        (lambda r, t: (r, t[:, :, :5]), r"tables: an integer array of shape \(2, M, 6\)"),
        (lambda r, t: (r, t.astype(float)), "tables: an integer array"),
        (lambda r, t: (r, _set(t, (1, 0, 3), 2)), r"position 1: table meld 1 \(R1 R2\) is not valid"),
        (lambda r, t: (r, _set(t, (1, 0, 1), 7)), "position 1: a meld row is not a run or a group"),
        (lambda r, t: (_set(r, (0, 0), 3), t), "position 0: too many copies of R1"),
        (lambda r, t: (_set(r, (0, 0), 2), t), "position 0: R1 appears 3 times across rack and table"),
        (lambda r, t: (r, _set(_set(t, (0, 1, 3), 0), (0, 2), t[0, 1])), "position 0: a meld row follows"),
    ],
)
def test_table_plays_names_the_position_at_fault(change, message):
    from sim.tiles import parse_rack

    racks = np.array([parse_rack("R4 B7 Y9").counts, parse_rack("Y9").counts], dtype=np.int64)
    tables = np.stack([_rows([parse_meld("R1 R2 R3"), parse_meld("B5 B6 J(B7)")], 3),
                       _rows([parse_meld("R1 R2 R3")], 3)])
    with pytest.raises(NotationError, match=message):
        sim.table_plays(*change(racks, tables))


def _set(a, index, value):
    a = a.copy()
    a[index] = value
    return a


def test_a_spent_budget_stays_said_through_later_solves():
    """The expert bounds each solve (tablesolver.BUDGET) and reads OVER_BUDGET after a
    turn of several solves: a later solve within its budget must not clear it, or a turn
    cut short would read as 'no play exists'."""
    from sim.games.rummikub.tableplay import Solver, read_table, table_counts
    from sim.games.rummikub.tablesolver import BUDGET, OVER_BUDGET
    from sim.tiles import parse_rack

    rules = VARIANTS["wrap_runs"]
    sim.table_play("R1", "R2 R3 R4", rules)  # the kernels compiled in order
    solver = Solver()
    solver.space[BUDGET] = 5
    big = WRAP_POSITIONS[2]  # 20 positions visited, unbounded
    table, pins = table_counts(read_table(big["table"], rules), bound=True)
    solver.run(table, np.asarray(parse_rack(big["rack"]).counts, dtype=np.int64), rules, 0, pins=pins)
    assert solver.space[OVER_BUDGET] == 1
    table, pins = table_counts(read_table("R2 R3 R4", rules), bound=True)
    solver.run(table, np.asarray(parse_rack("R1").counts, dtype=np.int64), rules, 0, pins=pins)
    assert solver.space[OVER_BUDGET] == 1


def test_a_solver_made_alone_has_the_table_solvers_kernels_prepared():
    """A Solver made before any public call (as the bench and the tests make one) has the
    table solver's workload compiled or loaded, callees first (sim.jit.prepare): compiled
    lazily from a first call into the kernel, a counted kernel reached through one compiled
    without reference counting failed to type. Run in a fresh process, where nothing else
    prepared it."""
    import subprocess
    import sys

    code = ("from sim import jit\n"
            "from sim.games.rummikub import FAMILY, TABLE_SOLVER\n"
            "from sim.games.rummikub.tableplay import Solver\n"
            "name = FAMILY.other_workload(TABLE_SOLVER).name\n"
            "before = name in jit._READY\n"
            "Solver()\n"
            "print(before, name in jit._READY)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2], timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


def test_the_solvers_own_code_is_loaded_before_the_kernels_that_link_it():
    """The public call and the round engine load the table solver's own entry (one trivial
    solve, ``load_solve_first``) before their kernels, which never call that entry themselves:
    every kernel then runs the search as the solver's own library holds it (on an AMD EPYC,
    2026-12-07, twice as fast as the text reader's copy). Run in fresh processes, where
    nothing else loaded it."""
    import subprocess
    import sys

    paths = {"the public call": "import sim\nsim.table_play('R1', 'R2 R3 R4')\n",
             "the round engine": ("import numpy as np, sim\nfrom sim.games.rummikub.play import play_chunk\n"
                                  "play_chunk(sim.preset('rummikub'), 5, 0, 1, np.zeros(4, dtype=np.int64))\n")}
    for name, call in paths.items():
        code = ("from sim.games.rummikub import tablesolver\n"
                "before = len(tablesolver.solve.overloads)\n" + call +
                "print(before, len(tablesolver.solve.overloads))\n")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parents[2], timeout=600)
        assert done.returncode == 0, f"{name}: {done.stderr}"
        assert done.stdout.split()[-2:] == ["0", "1"], name


def test_k_joker_2_free_jokers_before_a_run_of_three_only_where_no_run_of_three_starts_at_its_tile(monkeypatch):
    """A run of three with jokers below its lowest tile x (tablesolver._options), such as
    ``J(R4) R5 R6``, holds the tiles of the run from x with the jokers above it, ``R5 R6
    J(R7)``, which does all the other can (it may go on past R7, and leaves free jokers as
    much room), and gives way in turn to ``R5 R6 R7`` where an R7 is left: so only runs
    from x are searched, the jokers above it, unless x is a 12 or a 13, where no run of
    three starts. A free joker and ``R12 R13`` make a table, searched either way; a rack
    R11 and R8 are placed beside jokers (the brute force agrees). A search stopped on a
    budget (the expert's) or probing cuts (``wrap_runs``) still tries every such run
    (``above`` false), so the plays the references were played with stay as they were."""
    from sim.games.rummikub.tableplay import Solver, read_table, table_counts
    from sim.games.rummikub.tablesolver import KINDS, OPTIONS

    kernel = _in_python(monkeypatch, "_options", "_read_runs", "_run_options", "_number_at", "_pinned_numbers",
                        "_far_part", "_missing")

    def runs(tiles, jokers, x, above=True):  # (first, length, joker positions) of the runs that may hold x
        f, o = _counts(tiles)
        f[KINDS] = jokers
        out = np.zeros(OPTIONS, dtype=np.int64)
        n = kernel(f, o, np.zeros(KINDS + 1, dtype=np.int64), np.full(2, -1, dtype=np.int64),
                   _with_tiles(f, o, _runs_key(0)), x, jokers, 1, 0, False, above, np.zeros(4, dtype=np.int64), out)
        return {(int(opt >> 4) & 15, int(opt >> 8) & 7, int(opt >> 11) & 31) for opt in out[:n] if opt & 3 == 2}

    r5, r11, r12 = 4, 10, 11  # the kinds of R5, R11 and R12
    for tiles, jokers, x, low, high in [("R5 R6", 1, r5, (4, 3, 0b001), (5, 3, 0b100)),
                                        ("R5", 2, r5, (3, 3, 0b011), (5, 3, 0b110)),
                                        ("R5", 2, r5, (4, 3, 0b101), (5, 3, 0b110)),
                                        ("R11 R12", 1, r11, (10, 3, 0b001), (11, 3, 0b100))]:
        found = runs(tiles, jokers, x)
        assert low not in found and high in found, (tiles, jokers, found)
        assert {low, high} <= runs(tiles, jokers, x, above=False), (tiles, jokers)
    assert (5, 3, 0) in runs("R5 R6 R7", 1, r5) and (4, 3, 0b001) not in runs("R5 R6 R7", 1, r5)
    assert (11, 3, 0b001) in runs("R12 R13", 1, r12) and (10, 3, 0b011) in runs("R12", 2, r12)
    free = VARIANTS["free"]
    for table, rack in [("J(R11) R12 R13", ""), ("J(R11) R12 R13; B12 K12 Y12", "R11"), ("R5 R6 J(R7)", "R8"),
                        ("J(R4) R5 R6; R7 B7 K7", "")]:
        melds = read_table(table.split("; "), free)
        counts = table_counts(melds)
        r = np.array(parse_rack(rack).counts if rack else [0] * (KINDS + 1), dtype=np.int64)
        expected = best_play(meld_counts(melds), list(r), free, "tiles")
        for cut in (0, 13):  # from 1 up, and from 13 down
            solver = Solver()
            weight, n = solver.run(counts, r, free, 1, table_stands=False, cut=cut)
            _check_solve(solver, max(weight, 0), n, expected, melds, free, (table, rack, cut))
            assert n >= 0, (table, rack, cut)
