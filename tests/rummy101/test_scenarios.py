"""Scenario tests from fixed tile orders: every finish kind (T-FIN-1..3, T-END-1) and every
line of T-SCORE, with the greedy bots, each round also checked by the referee."""

import numpy as np
import pytest

import sim
from sim.games.rummy101 import core, play
from sim.games.rummy101.referee import referee
from sim.games.rummy101.trace import round_json
from tests.decks import deck_from

RUN_R = "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13"
GREEDY = ("greedy",)


def play_deck(players, seats, stock="", preset="rummy101"):
    rules = sim.preset(preset).replace(players=players)
    t = play.trace_round(rules, 0, 0, play.policy_codes(list(GREEDY), players), deck=deck_from(seats, stock))
    assert referee(round_json(t, None, None)) == []
    assert t.counters[core.G_ERROR] == 0
    finish = core.FINISH_NAMES[int(t.counters[core.G_FINISH])]
    return t, finish, int(t.counters[core.G_WINNER]), [int(s) for s in t.players[:, core.PS_SCORE]]


def rack_sum(t, seat):
    return int(t.players[seat, core.PS_RACK_VALUE])


def test_T_FIN_3_one_turn_finish_wins_202_and_costs_each_opponent_404():
    _, finish, winner, scores = play_deck(2, [
        RUN_R + " B1 B2 B3 B4 B5 K11 K12 K13 Y7",
        "K1 B7 Y2 R4 K9 B12 Y5 R8 K3 B10 Y13 R1 K6 B4 Y9 R11 K13 B2 Y6 R7 K10"])
    assert (finish, winner) == ("one_turn", 0)
    assert scores == [202, -404]  # T-SCORE-1, T-SCORE-3


def test_T_FIN_3_one_turn_finish_with_a_joker_wins_404_and_costs_808():
    _, finish, winner, scores = play_deck(2, [
        RUN_R + " B1 B2 B3 B4 B5 K11 K12 K13 J",
        "K1 B7 Y2 R4 K9 B12 Y5 R8 K3 B10 Y13 R1 K6 B4 Y9 R11 K13 B2 Y6 R7 K10"])
    assert (finish, winner) == ("one_turn_joker", 0)
    assert scores == [404, -808]


def test_T_FIN_1_normal_finish_wins_101_and_an_unopened_player_loses_202():
    # Seat 0 opens with 106, keeps Y7 Y9 K12, draws Y8 on its next turn and goes out.
    _, finish, winner, scores = play_deck(2, [
        RUN_R + " B1 B2 B3 B4 B5 Y7 Y9 K12 Y13",
        "K1 K1 K4 K7 K10 K10 K13 B2 B5 B8 B11 Y3 Y6 Y6 Y12 R1 R3 R6 R9 R12 B13"], "K2 Y8")
    assert (finish, winner) == ("normal", 0)
    assert scores == [101, -202]  # T-SCORE-1, T-SCORE-2 (not opened)


def test_T_SCORE_2_melds_opener_loses_its_rack_pairs_opener_twice_it():
    t, finish, winner, scores = play_deck(3, [
        RUN_R + " B1 B2 B3 B4 B5 Y7 Y9 K12 Y13",
        "K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 B11 B12 B13 Y1 Y3 R2 R5 B8",
        "Y5 Y5 Y10 Y10 B9 B9 Y11 Y11 B7 B7 R3 R6 R8 R11 R13 K3 K8 B4 Y2 Y4 B13"], "R4 K6 Y8")
    assert (finish, winner) == ("normal", 0)
    kinds = [int(k) for k in t.players[:, core.PS_OPEN_KIND]]
    assert kinds == [core.OPEN_MELDS, core.OPEN_MELDS, core.OPEN_PAIRS]
    assert rack_sum(t, 1) > 0 and rack_sum(t, 2) > 0
    assert scores == [101, -rack_sum(t, 1), -2 * rack_sum(t, 2)]


def test_T_FIN_2_joker_finish_doubles_every_penalty():
    # Seat 0 keeps K7, seat 1 lays K8 K9 K10, seat 0 draws a joker, adds K7, throws the joker.
    t, finish, winner, scores = play_deck(4, [
        "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R13 B13 K13 Y13 B1 B2 B3 K7 B8",
        "K8 K9 K10 Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B10 B11 B12 R2 R5 B6 K2 Y12 R6",
        "K1 K1 K4 K4 K11 K11 B4 B4 Y10 Y10 R3 R7 R9 R12 B2 B12 Y2 Y5 Y8 K6 K13",
        "R1 R4 R8 R10 B1 B3 B5 B7 B9 B11 B13 K2 K5 K8 K12 Y3 Y4 Y6 Y9 Y12 Y11"], "K3 B10 Y13 J")
    assert (finish, winner) == ("joker", 0)
    kinds = [int(k) for k in t.players[:, core.PS_OPEN_KIND]]
    assert kinds == [core.OPEN_MELDS, core.OPEN_MELDS, core.OPEN_PAIRS, core.OPEN_NONE]
    # T-SCORE-1: +202; T-SCORE-3: melds 2 x sum, pairs 4 x sum, not opened 404
    assert scores == [202, -2 * rack_sum(t, 1), -4 * rack_sum(t, 2), -404]


def test_T_END_1_stock_out_ends_without_winner_each_loses_its_hand_penalty():
    # Round 5 of seed 3, four greedy players: the stock runs out with players opened with
    # melds, with pairs and not at all.
    rules = sim.preset("rummy101")
    t = play.trace_round(rules, 3, 5, play.policy_codes(["greedy"], 4))
    assert referee(round_json(t, None, None)) == []
    assert core.FINISH_NAMES[int(t.counters[core.G_FINISH])] == "stock_out"
    assert int(t.counters[core.G_WINNER]) == -1
    for seat in range(4):
        kind = int(t.players[seat, core.PS_OPEN_KIND])
        expected = {core.OPEN_NONE: -202, core.OPEN_MELDS: -rack_sum(t, seat),
                    core.OPEN_PAIRS: -2 * rack_sum(t, seat)}[kind]
        assert int(t.players[seat, core.PS_SCORE]) == expected
    assert {int(k) for k in t.players[:, core.PS_OPEN_KIND]} == {0, 1, 2}


@pytest.mark.parametrize("factor", [1, 3])
def test_score_table_is_a_rules_parameter(factor):
    rules = sim.preset("rummy101").replace(players=2, finish_factor=factor, unopened_penalty=150)
    deck = deck_from([RUN_R + " B1 B2 B3 B4 B5 K11 K12 K13 J",
                      "K1 B7 Y2 R4 K9 B12 Y5 R8 K3 B10 Y13 R1 K6 B4 Y9 R11 K13 B2 Y6 R7 K10"])
    t = play.trace_round(rules, 0, 0, play.policy_codes(["greedy"], 2), deck=deck)
    assert referee(round_json(t, None, None)) == []
    assert [int(s) for s in t.players[:, core.PS_SCORE]] == [101 * factor**2, -404 * factor]


def test_deck_of_a_round_is_the_same_for_every_variant():
    """Common random numbers: the shuffled tiles depend on the seed and round id only."""
    a = play.trace_round(sim.preset("rummy101").replace(players=2), 9, 4, play.policy_codes(["greedy"], 2))
    b = play.trace_round(sim.preset("rummy101-increasing"), 9, 4, play.policy_codes(["careful"], 4))
    assert np.array_equal(a.deck, b.deck)


# --- the readings of issue 12: T-OPEN-3, T-ADD-1, T-SET-2, every finish -----------------------

# Seat 0 opens on its first turn with K6 J(K7) K8 among its melds; seat 1 opens on its
# first turn (after drawing K9) holding K7, which frees that joker, and B5 B6, which a
# joker would make a run of.
OPENERS = ["R10 R11 R12 R13 B10 B11 B12 B13 J K1 Y1 K3 Y5 R7 B1 Y7 K6 R4 B4 Y3 K8 R1",
           "K10 K11 K12 K13 Y9 Y10 Y11 Y12 Y13 K7 B5 B6 R2 Y3 R5 K2 Y6 R8 B9 K4 B1"]


def _turn(trace, seat, turn):
    return [e for e in trace["events"] if e["seat"] == seat and e["turn"] == turn]


def _scenario(policy, seats, stock, players=2, **rules):
    r = sim.preset("rummy101").replace(players=players, **rules)
    t = play.trace_round(r, 0, 0, play.policy_codes([policy], players), deck=deck_from(seats, stock))
    trace = round_json(t, None, None)
    assert referee(trace) == []
    return trace


def test_T_OPEN_3_a_joker_freed_on_the_opening_turn_goes_into_an_addition_not_a_new_meld():
    trace = _scenario("greedy", OPENERS, "K9 Y8")
    actions = [e["action"] for e in _turn(trace, 1, 1)]
    assert actions == ["draw", "open", "recover", "add", "discard"]
    recover, add = _turn(trace, 1, 1)[2:4]
    assert recover["tile"] == "K7"  # T-JOKER-1: the exact tile the joker stood for
    assert add["tile"].startswith("J(")  # T-ADD-1: greedy adds the joker rather than keep it


def test_T_OPEN_3_and_T_JOKER_1_careful_keeps_the_freed_joker_on_its_rack():
    trace = _scenario("careful", OPENERS, "K9 Y8")
    assert [e["action"] for e in _turn(trace, 1, 1)] == ["draw", "open", "recover", "discard"]
    # No meld with that joker on the opening turn; the joker stays on the rack (it would
    # make B5 B6 J(B7), which must wait for a later turn).
    opening = _turn(trace, 1, 1)[1]
    assert all("J(" not in t for m in opening["melds"] for t in m)


# Seat 0 cannot open and throws its least useful tile, Y13; seat 1 takes it into an opening
# that lays everything but its joker.
NO_OPENING = "R1 R3 R5 R7 R9 K1 K3 K5 K7 K9 B1 B3 B5 Y1 Y3 Y5 Y7 Y9 K11 B6 B7 Y13"
TAKER = "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 Y11 Y12 B8 B9 B10 B11 B12 J"


def test_T_FIN_2_an_unopened_player_who_takes_the_discard_may_finish_with_a_joker():
    trace = _scenario("greedy", [NO_OPENING, TAKER], "K13 Y8")
    actions = [e["action"] for e in _turn(trace, 1, 1)]
    assert actions == ["take", "open", "discard", "finish"]
    assert _turn(trace, 1, 1)[2]["tile"] == "J"
    assert trace["result"]["finish"] == "one_turn_joker"  # nobody had opened: T-FIN-3 with a joker
    assert trace["result"]["scores"] == [-808, 404]  # T-SCORE-1, T-SCORE-3


def test_T_SET_2_starter_may_open_false_makes_the_first_turn_the_discard_alone():
    deck = [RUN_R + " B1 B2 B3 B4 B5 K11 K12 K13 Y7",
            "K1 B7 Y2 R4 K9 B12 Y5 R8 K3 B10 Y13 R1 K6 B4 Y9 R11 K13 B2 Y6 R7 K10"]
    trace = _scenario("greedy", deck, "", starter_may_open=False)
    assert [e["action"] for e in _turn(trace, 0, 1)] == ["discard"]
    finish = next(e for e in trace["events"] if e["action"] == "finish")
    assert (finish["seat"], finish["turn"]) == (0, 2)  # one turn later than the starter who may open
    allowed = _scenario("greedy", deck, "")
    finish = next(e for e in allowed["events"] if e["action"] == "finish")
    assert (finish["seat"], finish["turn"], finish["kind"]) == (0, 1, "one_turn")
