"""The engine against the independent referee (sim.games.rummy101.referee): thousands of
random rounds for 2, 3 and 4 players, both threshold modes, with and without the joker
button, with both bots; and the referee itself catches broken traces."""

import itertools

import numpy as np
import pytest

import sim
from sim.games.rummy101 import core, play
from sim.games.rummy101.referee import referee

ROUNDS = 200  # per configuration and bot mix: 12 x 2 x 200 = 4,800 rounds


@pytest.mark.parametrize(("players", "mode", "button"),
                         list(itertools.product((2, 3, 4), ("fixed", "increasing"), (0, 1))))
def test_referee_accepts_every_round(players, mode, button):
    rules = sim.preset("rummy101").replace(players=players, threshold_mode=mode, button_jokers=button)
    mixes = [["greedy"], ["careful", "greedy", "careful", "greedy"][:players]]
    checked = 0
    for mix in mixes:
        codes = play.policy_codes(mix, players)
        for round_id in range(ROUNDS):
            t = play.trace_round(rules, 2026, round_id, codes)
            problems = referee(rules, t.deck, t.events)
            assert problems == [], (players, mode, button, mix, round_id, problems)
            assert t.counters[core.G_ERROR] == 0
            checked += 1
    assert checked == 2 * ROUNDS


def _trace():
    rules = sim.preset("rummy101").replace(players=3)
    return rules, play.trace_round(rules, 5, 1, play.policy_codes(["greedy"], 3))


def _first(events, kind):
    return int(np.flatnonzero(events[:, 0] == kind)[0])


def test_referee_catches_a_wrong_draw():
    rules, t = _trace()
    ev = t.events.copy()
    i = _first(ev, core.EV_DRAW)
    ev[i, 3] = (ev[i, 3] + 1) % 52
    assert any("stock's top" in p for p in referee(rules, t.deck, ev))


def test_referee_catches_a_wrong_score():
    rules, t = _trace()
    ev = t.events.copy()
    ev[_first(ev, core.EV_SCORE), 3] += 1
    assert any("T-SCORE" in p for p in referee(rules, t.deck, ev))


def test_referee_catches_an_opening_below_the_threshold():
    rules, t = _trace()
    assert any(referee(rules.replace(open_points=400), t.deck, t.events))


def test_referee_catches_an_out_of_turn_action():
    rules, t = _trace()
    ev = t.events.copy()
    i = _first(ev, core.EV_DISCARD)
    ev[i + 1, 1] = (ev[i + 1, 1] + 1) % 3  # the next turn played by the wrong seat
    assert referee(rules, t.deck, ev)


def test_referee_catches_a_swapped_deck():
    rules, t = _trace()
    deck = t.deck.copy()
    deck[0], deck[-1] = deck[-1], deck[0]
    assert referee(rules, deck, t.events)


def test_bots_never_throw_a_joker_unless_finishing_with_it():
    rules = sim.preset("rummy101-button")
    for round_id in range(150):
        t = play.trace_round(rules, 8, round_id, play.policy_codes(["greedy", "careful"] * 2, 4))
        ev = t.events
        for i in np.flatnonzero((ev[:, 0] == core.EV_DISCARD) & (ev[:, 3] == 52)):
            seat = ev[i, 1]
            finishing = i + 1 < len(ev) and ev[i + 1, 0] == core.EV_FINISH
            only_jokers = _rack_only_jokers(t, i, seat)
            assert finishing or only_jokers, (round_id, i)


def _rack_only_jokers(t, upto, seat):
    """Replay the seat's rack up to event ``upto``: does it hold jokers only?"""
    from collections import Counter

    rules = t.rules
    rack = Counter()
    pos = 0
    for p in range(rules.players):
        size = rules.rack_size + (rules.starter_extra if p == 0 else 0)
        if p == seat:
            rack.update(int(x) for x in t.deck[pos:pos + size])
        pos += size
    from sim.solver.layout import to_meld

    for e in t.events[:upto]:
        if e[1] != seat:
            continue
        if e[0] in (core.EV_DRAW, core.EV_TAKE):
            rack[int(e[3])] += 1
        elif e[0] == core.EV_BUTTON:
            rack[52] += 1
        elif e[0] in (core.EV_DISCARD, core.EV_ADD):
            rack[int(e[3])] -= 1
        elif e[0] == core.EV_RECOVER:
            rack[int(e[4])] -= 1
            rack[52] += 1
        elif e[0] == core.EV_LAY:
            m = to_meld(e[3:9])
            for k, j in zip(m.tiles, m.jokers, strict=True):
                rack[52 if j else k] -= 1
    return all(n == 0 for k, n in rack.items() if k != 52)
