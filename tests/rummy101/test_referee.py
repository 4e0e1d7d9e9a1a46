"""The engine against the independent referee (sim.games.rummy101.referee), which reads
the JSON traces: thousands of random rounds for 2, 3 and 4 players, both threshold
modes, with and without the joker button, with both bots and both readings of the
starter's first turn; and the referee itself catches broken traces."""

import copy
import itertools
import json

import pytest

import sim
from sim.games.rummy101 import play
from sim.games.rummy101.referee import referee
from sim.games.rummy101.trace import round_json, trace_json

ROUNDS = 150  # per configuration and bot mix: 12 x 2 x 150 = 3,600 rounds, and 600 more below


def _traced(rules, seed, round_id, policies):
    t = play.trace_round(rules, seed, round_id, play.policy_codes(policies, rules.players))
    assert int(t.counters[play.core.G_ERROR]) == 0
    return round_json(t, seed, round_id)


@pytest.mark.parametrize(("players", "mode", "button"),
                         list(itertools.product((2, 3, 4), ("fixed", "increasing"), (0, 1))))
@pytest.mark.slow
def test_referee_accepts_every_round(players, mode, button):
    rules = sim.preset("rummy101").replace(players=players, threshold_mode=mode, button_jokers=button)
    mixes = [["greedy"], ["careful", "greedy", "careful", "greedy"][:players]]
    for mix in mixes:
        for round_id in range(ROUNDS):
            trace = _traced(rules, 2026, round_id, mix)
            assert referee(trace) == [], (players, mode, button, mix, round_id, referee(trace))


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.slow
def test_T_SET_2_starter_may_not_open_rounds_are_clean(players):
    rules = sim.preset("rummy101").replace(players=players, starter_may_open=False)
    for round_id in range(150):
        trace = _traced(rules, 7, round_id, ["greedy", "careful"] * (players // 2))
        assert referee(trace) == [], (round_id, referee(trace))
        starter_first = [e for e in trace["events"] if e["seat"] == 0 and e["turn"] == 1]
        assert [e["action"] for e in starter_first] == ["discard"]


@pytest.mark.slow
def test_T_OPEN_3_no_new_melds_after_the_opening_in_thousands_of_rounds():
    """Every meld laid on an opening turn is in the opening: after it only additions and
    recoveries (counted over 600 four-player rounds, both bots)."""
    rules = sim.preset("rummy101-button")
    after_opening = {"add": 0, "recover": 0}
    for round_id in range(300):
        for mix in (["greedy"], ["careful"]):
            trace = _traced(rules, 11, round_id, mix)
            assert referee(trace) == []
            current, opened = None, False
            for e in trace["events"]:
                if (e["seat"], e["turn"]) != current:
                    current, opened = (e["seat"], e["turn"]), False
                if e["action"] == "open":
                    opened = True
                elif opened:
                    assert e["action"] in ("add", "recover", "discard", "finish"), (round_id, e)
                    after_opening[e["action"]] = after_opening.get(e["action"], 0) + 1
    assert after_opening["add"] > 0  # the case is met, not vacuous


def test_T_ADD_1_jokers_are_added_and_the_referee_follows_them():
    rules = sim.preset("rummy101-button")
    added = 0
    for round_id in range(200):
        trace = _traced(rules, 3, round_id, ["greedy"])
        assert referee(trace) == []
        added += sum(1 for e in trace["events"] if e["action"] == "add" and e["tile"].startswith("J("))
    assert added > 0


def test_json_trace_is_valid_json_and_carries_the_frame():
    rules = sim.preset("rummy101").replace(players=3)
    trace = trace_json(rules, 5, 1, ["greedy"] * 3)
    again = json.loads(json.dumps(trace))
    assert again == trace
    assert set(trace) >= {"family", "rules", "seed", "round_id", "players", "policies", "deal", "events", "result"}
    assert trace["family"] == "rummy101" and trace["round_id"] == 1 and trace["players"] == 3
    assert len(trace["deal"]["racks"][0]) == 22 and len(trace["deal"]["racks"][1]) == 21
    assert len(trace["deal"]["stock"]) == 106 - 22 - 21 - 21
    for e in trace["events"]:
        assert {"seat", "turn", "action"} <= set(e)


# --- the referee catches broken traces -----------------------------------------------------------


def _trace():
    rules = sim.preset("rummy101").replace(players=3)
    return trace_json(rules, 5, 1, ["greedy"] * 3)


def _first(trace, action):
    return next(e for e in trace["events"] if e["action"] == action)


def test_referee_catches_a_wrong_draw():
    t = copy.deepcopy(_trace())
    e = _first(t, "draw")
    e["tile"] = "R1" if e["tile"] != "R1" else "R2"
    assert any("stock's top" in p for p in referee(t))


def test_referee_catches_a_wrong_score():
    t = copy.deepcopy(_trace())
    t["result"]["scores"][0] += 1
    assert any("T-SCORE" in p for p in referee(t))


def test_referee_catches_an_opening_below_the_threshold():
    t = copy.deepcopy(_trace())
    t["rules"]["open_points"] = 400
    assert any("T-OPEN-1" in p for p in referee(t))


def test_referee_catches_an_out_of_turn_action():
    t = copy.deepcopy(_trace())
    events = t["events"]
    i = next(i for i, e in enumerate(events) if e["action"] == "discard")
    events[i + 1]["seat"] = (events[i + 1]["seat"] + 1) % 3
    assert referee(t)


def test_referee_catches_a_swapped_deal():
    t = copy.deepcopy(_trace())
    t["deal"]["stock"][0], t["deal"]["racks"][1][0] = t["deal"]["racks"][1][0], t["deal"]["stock"][0]
    assert referee(t)


def test_referee_catches_a_meld_laid_after_the_opening_T_OPEN_3():
    t = copy.deepcopy(_trace())
    t["rules"]["open_points"] = 30  # what is left of the opening still opens
    events = t["events"]
    i, e = next((i, e) for i, e in enumerate(events) if e["action"] == "open" and len(e["melds"]) >= 2)
    last = e["melds"].pop()
    e["value"] -= sum(int(x.split("(")[-1].rstrip(")")[1:]) for x in last)
    events.insert(i + 1, {"seat": e["seat"], "turn": e["turn"], "action": "lay", "melds": [last]})
    assert any("T-OPEN-3" in p for p in referee(t))


@pytest.mark.slow
def test_json_traces_match_the_published_schema():
    """The format is a public interface (README, "JSON traces"): every trace of 2-4
    players, both bots, with the button, validates against the schema shipped with it."""

    import jsonschema

    schema = sim.games.family("rummy101").trace_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    actions = set()
    for players, mix in ((2, ["greedy"]), (3, ["careful"]), (4, ["greedy", "careful"] * 2)):
        rules = sim.preset("rummy101-button").replace(players=players)
        for round_id in range(40):
            seats = mix[:players] if len(mix) > 1 else mix * players
            trace = json.loads(json.dumps(trace_json(rules, 9, round_id, seats)))
            errors = sorted(validator.iter_errors(trace), key=str)
            assert not errors, (players, round_id, errors[0].message)
            actions |= {e["action"] for e in trace["events"]}
    assert actions >= {"draw", "take", "button", "open", "lay", "add", "discard", "finish"}
