"""Card Rummy 101 matches (docs/rules.md section C): the engine against the independent referee
(sim.games.cards.referee) over random matches of 2-4 players, solo and partners, one and
two decks and the three bots; scenario hands from fixed card orders for every end and every
scoring line; the referee catching broken traces; the published JSON schema; the tables
and their consistency, the same whatever the chunking and paired across variants."""

import copy
import json
from collections import Counter

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sim
from sim.games.cards import engine as e
from sim.games.cards.play import policy_codes, trace_match
from sim.games.cards.referee import referee, value
from sim.games.cards.trace import format_trace, match_json
from sim.tiles import card_name, parse_card

CARDS = sim.preset("rummy101-cards")
TABLES = [  # players, partners, decks
    (2, False, 1), (3, False, 1), (4, False, 1), (4, True, 1), (4, False, 2), (4, True, 2)]
MIXES = (["greedy"], ["careful"], ["expert"], ["greedy", "careful", "careful", "greedy"],
         ["expert", "greedy", "careful", "expert"])
MATCHES = 90  # per table and bot mix: 6 x 5 x 90 = 2,700 refereed matches, 1,080 of them with experts


def traced(rules, seed, match_id, policies, fixed=None):
    t = trace_match(rules, seed, match_id, policy_codes(policies, rules.players), fixed)
    seats = (policies * rules.players)[:rules.players] if len(policies) == 1 else policies
    return t, match_json(t, seed, match_id, seats)


@pytest.mark.parametrize(("players", "partners", "decks"), TABLES)
@pytest.mark.slow
def test_referee_accepts_every_match(players, partners, decks):
    """C-SET-1 .. C-TEAM-1 over whole matches: every card, meld, lay-off, discard, wash,
    score and total replayed by the referee."""
    rules = CARDS.replace(players=players, partners=partners, decks=decks)
    seen = Counter()
    for mix in MIXES:
        for match_id in range(MATCHES):
            _, trace = traced(rules, 11, match_id, mix[:players] if len(mix) > 1 else mix)
            assert referee(trace) == [], (mix, match_id)
            seen.update(h["result"]["finish"] for h in trace["hands"])
            seen.update(ev["action"] for h in trace["hands"] for ev in h["events"])
    # every end and every action happened somewhere
    assert {"out", "rummy", "wash", "draw", "meld", "layoff", "discard"} <= set(seen), seen


# --- scenario hands from fixed card orders ------------------------------------------------


def cards_of(text):
    return text.split()


def deck_of(rules, dealer, hands, upcard, stock=()):
    """The card order dealing ``hands`` (one list per seat) from ``dealer``'s left, then the
    upcard, then ``stock`` first and every card not named after it."""
    players = rules.players
    size = rules.deal_size()
    order = []
    for j in range(size * players):
        seat = (dealer + 1 + j) % players
        order.append(hands[seat][j // players])
    order += [upcard, *stock]
    named = Counter(order)
    rest = [card_name(c) for c in range(52) for _ in range(rules.decks - named.get(card_name(c), 0))]
    assert not (named - Counter(card_name(c) for c in range(52) for _ in range(rules.decks)))
    return np.array([parse_card(c) for c in order + rest], dtype=np.int64)


def points(cards):
    return sum(value(c) for c in cards)


SEAT1_RUMMY = cards_of("AS 2S 3S 4H 5H 6H 7D 7C 7S KD")  # with 4S drawn: ten melded, KD discarded
JUNK0 = cards_of("2D 5C 9H JH QS 3C 8S 10D 6D AC")  # nothing melds, 4S/QC/KD do not fit


def test_C_SCORE_2_going_rummy_doubles_the_hand():
    """Seat 1 (the dealer's left, C-SET-2) draws 4S, melds ten cards at once and discards
    KD: out in one turn with nothing melded before, twice seat 0's cards (C-SCORE-1/2)."""
    rules = CARDS.replace(players=2)
    deck = deck_of(rules, 0, [JUNK0, SEAT1_RUMMY], "QC", ["4S"])
    _, trace = traced(rules, 0, 0, ["greedy"], deck)
    hand = trace["hands"][0]
    assert referee(trace) == []
    assert hand["result"]["finish"] == "rummy" and hand["result"]["winner_seat"] == 1
    assert hand["result"]["points"] == 2 * points(JUNK0) == 2 * 73
    assert [ev["action"] for ev in hand["events"]] == ["draw", "meld", "meld", "meld", "discard", "out"]
    assert hand["events"][-2]["card"] == "KD"


@pytest.mark.parametrize("factor", [1, 3])
def test_C_SCORE_2_the_rummy_factor_is_a_rules_field(factor):
    rules = CARDS.replace(players=2, rummy_factor=factor)
    _, trace = traced(rules, 0, 0, ["greedy"], deck_of(rules, 0, [JUNK0, SEAT1_RUMMY], "QC", ["4S"]))
    assert trace["hands"][0]["result"]["points"] == factor * points(JUNK0)
    assert referee(trace) == []


def test_C_OUT_1_going_out_after_melding_earlier_is_not_rummy():
    """Seat 1 melds AS-4S and three 9s on its first turn (keeping 2H and KD, throwing KD),
    then lays 5S off on its run and discards 2H: out, single points (C-OUT-1, C-SCORE-2)."""
    rules = CARDS.replace(players=2)
    seat1 = cards_of("AS 2S 3S 4S 9H 9D 9C KD 2H QH")
    junk = cards_of("3D 5C 8H JC QS 3C 7S 10D 6D AC")
    deck = deck_of(rules, 0, [junk, seat1], "4H", ["JD", "8D", "5S"])
    _, trace = traced(rules, 0, 0, ["greedy"], deck)
    hand = trace["hands"][0]
    assert referee(trace) == []
    res = hand["result"]
    assert res["finish"] == "out" and res["winner_seat"] == 1
    assert res["points"] == points(res["left"][0]) > 0
    assert any(ev["action"] == "layoff" and ev["card"] == "5S" for ev in hand["events"])


# Seat 1 (careful, holding its melds for rummy) and seat 0 (greedy, melding 10C JC QC on
# its first turn); on its second turn seat 1 goes out in one turn, nothing placed before.
SEAT1_HELD = cards_of("AS 2S 3S 4H 5H 6H 7D 7C 7S 9C")
SEAT0_CLUBS = cards_of("10C JC QC 2D 4D 8H JH KS 3C 6D")


def _one_turn_out(rules, second_draw):
    """Seat 1 draws KD and throws it, seat 0 draws 8S, melds its clubs and throws KS, then
    seat 1 draws ``second_draw`` and goes out."""
    deck = deck_of(rules, 0, [SEAT0_CLUBS, SEAT1_HELD], "QD", ["KD", "8S", second_draw])
    _, trace = traced(rules, 0, 0, ["greedy", "careful"], deck)
    assert referee(trace) == []
    return trace["hands"][0]


@pytest.mark.parametrize(("layoffs", "finish", "factor"), [(False, "out", 1), (True, "rummy", 2)])
def test_C_SCORE_2_a_one_turn_out_with_a_layoff_is_rummy_only_with_rummy_layoffs(layoffs, finish, factor):
    """With 2H drawn seat 1 goes out only by laying 9C off on seat 0's 10C JC QC: all at
    once, but not all in its own melds, so a plain out (C-SCORE-2 revised); with
    ``rummy_layoffs`` (the earlier reading) it is rummy and doubles."""
    rules = CARDS.replace(players=2, rummy_layoffs=layoffs)
    hand = _one_turn_out(rules, "2H")
    res = hand["result"]
    assert res["winner_seat"] == 1 and res["finish"] == finish
    assert res["points"] == factor * points(res["left"][0]) == factor * 41
    assert any(ev["action"] == "layoff" and ev["card"] == "9C" and ev["seat"] == 1 for ev in hand["events"])
    assert hand["events"][-1]["rummy"] is layoffs


def test_C_SCORE_2_an_out_in_own_melds_is_preferred_to_one_with_a_layoff():
    """With 7H drawn seat 1 can go out either by laying 9C off and throwing 7H, or by
    melding 4H-7H and throwing 9C: the engine takes the second, rummy (C-SCORE-2)."""
    hand = _one_turn_out(CARDS.replace(players=2), "7H")
    res = hand["result"]
    assert res["finish"] == "rummy" and res["points"] == 2 * 41
    assert not any(ev["action"] == "layoff" for ev in hand["events"])
    assert hand["events"][-2] == {"seat": 1, "turn": 2, "action": "discard", "card": "9C"}


def test_C_SCORE_2_referee_catches_a_rummy_with_a_layoff():
    rules = CARDS.replace(players=2)
    deck = deck_of(rules, 0, [SEAT0_CLUBS, SEAT1_HELD], "QD", ["KD", "8S", "2H"])
    _, trace = traced(rules, 0, 0, ["greedy", "careful"], deck)
    bad = copy.deepcopy(trace)
    bad["hands"][0]["result"]["finish"] = "rummy"
    bad["hands"][0]["events"][-1]["rummy"] = True
    assert any("C-SCORE-2" in p for p in referee(bad))
    bad["rules"]["rummy_layoffs"] = True  # the earlier reading: then it is rummy, and doubles
    assert any("points" in p for p in referee(bad))


def test_C_TURN_1_with_two_decks_the_twin_of_the_card_taken_may_be_discarded():
    """Four players, two decks: seat 1 takes the upcard 7H holding its twin, melds 5H 6H 7H
    and the four 8s, and discards the other 7H: out, and rummy (C-TURN-1 decision: the
    restriction is on the card taken, not on its twin)."""
    rules = CARDS.replace(players=4, decks=2)
    seat1 = cards_of("5H 6H 7H 8C 8D 8S 8H")
    others = [cards_of("2D 4C 9S JH QS 3C KD"), seat1, cards_of("10D 6D AC 4D QH QD 2C"),
              cards_of("KH KC 6C 9C 2H 5D 10H")]
    _, trace = traced(rules, 0, 0, ["greedy"], deck_of(rules, 0, others, "7H"))
    hand = trace["hands"][0]
    assert referee(trace) == []
    assert hand["events"][0] == {"seat": 1, "turn": 1, "action": "draw", "card": "7H", "from": "discard"}
    assert hand["events"][-2] == {"seat": 1, "turn": 1, "action": "discard", "card": "7H"}
    assert hand["result"]["finish"] == "rummy" and hand["result"]["winner_seat"] == 1


def test_C_TEAM_1_the_partners_cards_count_nothing():
    """Four players as partners: seat 1 goes rummy on its first turn and scores the cards
    of seats 0 and 2 only (times two); seat 3's count nothing (C-TEAM-1, C-SCORE-2)."""
    rules = CARDS.replace(players=4, partners=True)
    seat1 = cards_of("AS 2S 3S 7D 7C 7S KD")  # 4S drawn: seven melded, KD discarded
    others = [cards_of("2D 5C 9H JH QS 3C 8S"), seat1, cards_of("10D 6D AC 4D 8H QD 2C"),
              cards_of("KH KC 6C 9C 2H 5D 10H")]
    deck = deck_of(rules, 0, others, "JC", ["4S"])
    _, trace = traced(rules, 0, 0, ["greedy"], deck)
    res = trace["hands"][0]["result"]
    assert referee(trace) == []
    assert res["finish"] == "rummy" and res["winner_seat"] == 1
    assert res["points"] == 2 * (points(others[0]) + points(others[2]))
    assert res["totals"] == [0, res["points"], 0, 0]
    solo = CARDS.replace(players=4)  # the same deal solo: seat 3's cards count too
    _, solo_trace = traced(solo, 0, 0, ["greedy"], deck)
    assert solo_trace["hands"][0]["result"]["points"] == 2 * sum(points(others[s]) for s in (0, 2, 3))


def _no_out_deal(rules):
    """Two players with 25 cards each and one stock card. Seat 1 starts holding KS and KH,
    seat 0 the other kings and the queens and jacks of spades and hearts, the upcard is
    QS: seat 1 can neither meld its kings nor use the upcard, so it draws the stock's
    last card and cannot go out."""
    seat0_fixed = cards_of("KD KC JS QH JH QD QC")
    seat1_fixed = cards_of("KS KH")
    pool = [card_name(c) for c in range(52) if card_name(c) not in [*seat0_fixed, *seat1_fixed, "QS"]]
    seat0 = seat0_fixed + pool[:18]
    seat1 = seat1_fixed + pool[18:41]
    return deck_of(rules, 0, [seat0, seat1], "QS", pool[41:])


def test_C_WASH_1_the_player_finding_the_stock_empty_washes_the_hand():
    """One card in the stock: once it is drawn, the next player to move finds the stock
    empty and the hand is a wash even though the discard could be taken; nobody scores,
    and the deal moves one seat left (C-WASH-1, C-SET-2). Target 1: the next hand that
    someone goes out of ends the match (C-MATCH-1)."""
    rules = CARDS.replace(players=2, hand_size=25, target=1)
    _, trace = traced(rules, 0, 0, ["greedy"], _no_out_deal(rules))
    assert referee(trace) == []
    first = trace["hands"][0]
    assert first["result"]["finish"] == "wash" and first["result"]["winner_seat"] is None
    assert first["result"]["scores"] == [0, 0] and first["result"]["totals"] == [0, 0]
    events = first["events"]
    assert events[0] == {"seat": 1, "turn": 1, "action": "draw", "card": first["deal"]["stock"][0], "from": "stock"}
    assert events[-2]["action"] == "discard" and events[-1] == {"seat": 0, "turn": 1, "action": "wash"}
    assert [h["dealer_seat"] for h in trace["hands"]] == [(0 + k) % 2 for k in range(len(trace["hands"]))]
    # the match ends on the first hand someone goes out of
    finishes = [h["result"]["finish"] for h in trace["hands"]]
    assert finishes[-1] != "wash" and set(finishes[:-1]) == {"wash"}
    assert trace["result"]["washes"] == len(finishes) - 1


def test_a_long_match_traced_after_its_rows_grew_is_clean():
    """A match of hundreds of hands (one stock card, most hands washed) outgrows the first
    rows the engine is given; it is replayed with more, and its trace holds each hand once."""
    rules = CARDS.replace(players=4, hand_size=12)
    _, trace = traced(rules, 1, 0, ["greedy"])
    assert len(trace["hands"]) > 64 and referee(trace) == []


def test_C_MATCH_1_totals_run_on_until_the_target():
    rules = CARDS.replace(players=3, target=150)
    for match_id in range(20):
        t, trace = traced(rules, 4, match_id, ["greedy"])
        totals = [h["result"]["totals"] for h in trace["hands"]]
        assert max(totals[-1]) >= 150 and all(max(x) < 150 for x in totals[:-1])
        assert trace["result"]["winner_seat"] == int(np.argmax(totals[-1]))
        assert int(t.match[e.M_WINNER_TOTAL]) == max(totals[-1])


def test_C_TURN_1_a_card_taken_from_the_discard_is_not_thrown_back():
    """Every turn that took the discard (one deck: no second copy) throws another card."""
    rules = CARDS.replace(players=4)
    took = 0
    for match_id in range(30):
        _, trace = traced(rules, 2, match_id, ["careful", "greedy"] * 2)
        assert referee(trace) == []
        for hand in trace["hands"]:
            ev = hand["events"]
            for i, x in enumerate(ev):
                if x["action"] == "draw" and x["from"] == "discard":
                    took += 1
                    throw = next(y for y in ev[i + 1:] if y["action"] == "discard")
                    assert throw["card"] != x["card"]
    assert took > 50


# --- the referee catches broken traces ------------------------------------------------------


@pytest.fixture(scope="module")
def clean_trace():
    _, trace = traced(CARDS.replace(players=3), 3, 1, ["greedy"])
    assert referee(trace) == []
    assert any(ev["action"] == "layoff" for h in trace["hands"] for ev in h["events"])
    return trace


def _first(trace, action, **where):
    for h in trace["hands"]:
        for ev in h["events"]:
            if ev["action"] == action and all(ev.get(k) == v for k, v in where.items()):
                return h, ev
    raise AssertionError(f"no {action}")


def test_referee_catches_a_wrong_draw(clean_trace):
    bad = copy.deepcopy(clean_trace)
    _, ev = _first(bad, "draw", **{"from": "stock"})
    ev["card"] = "AS" if ev["card"] != "AS" else "2S"
    assert any("stock's top" in p for p in referee(bad))


def test_referee_catches_a_false_meld_and_a_bad_layoff(clean_trace):
    bad = copy.deepcopy(clean_trace)
    _, ev = _first(bad, "meld")
    ev["cards"] = ev["cards"][:2]
    assert any("C-MELD-1" in p for p in referee(bad))
    bad = copy.deepcopy(clean_trace)
    _, ev = _first(bad, "layoff")
    ev["meld"] = 99
    assert any("no table meld" in p for p in referee(bad))


def test_referee_catches_the_taken_card_thrown_back(clean_trace):
    bad = copy.deepcopy(clean_trace)
    hand, ev = _first(bad, "draw", **{"from": "discard"})
    i = hand["events"].index(ev)
    throw = next(y for y in hand["events"][i + 1:] if y["action"] == "discard")
    throw["card"] = ev["card"]
    assert any("C-TURN-1" in p or "does not hold" in p for p in referee(bad))


def test_referee_catches_wrong_points_totals_and_a_match_too_long(clean_trace):
    bad = copy.deepcopy(clean_trace)
    scored = next(h for h in bad["hands"] if h["result"]["winner_seat"] is not None)
    scored["result"]["points"] += 1
    assert any("C-SCORE-1/2" in p for p in referee(bad))
    bad = copy.deepcopy(clean_trace)
    bad["result"]["totals"][0] += 5
    assert any("final totals" in p for p in referee(bad))
    bad = copy.deepcopy(clean_trace)
    bad["rules"]["target"] = 1  # the match should have ended on its first scored hand
    first_scored = next(k for k, h in enumerate(bad["hands"]) if h["result"]["winner_seat"] is not None)
    assert first_scored < len(bad["hands"]) - 1  # the fixture's match goes on after a scored hand
    assert any("C-MATCH-1" in p for p in referee(bad))
    bad = copy.deepcopy(clean_trace)
    bad["hands"][1]["dealer_seat"] = bad["hands"][0]["dealer_seat"]
    assert any("C-SET-2" in p for p in referee(bad))


def test_referee_catches_a_missed_wash():
    rules = CARDS.replace(players=2, hand_size=25, target=1)
    _, trace = traced(rules, 0, 0, ["greedy"], _no_out_deal(rules))
    bad = copy.deepcopy(trace)
    wash = bad["hands"][0]["events"][-1]
    wash.update(action="draw", card=bad["hands"][0]["deal"]["upcard"], **{"from": "discard"})
    assert any("C-WASH-1" in p for p in referee(bad))


# --- the public trace format, the text trace and the tables ---------------------------------


def test_json_traces_match_the_published_schema():
    import jsonschema

    schema = sim.games.family("rummy101-cards").trace_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for players, partners, decks in TABLES:
        rules = CARDS.replace(players=players, partners=partners, decks=decks)
        for match_id in range(3):
            _, trace = traced(rules, 9, match_id, ["greedy", "careful", "greedy", "careful"][:players])
            validator.validate(json.loads(json.dumps(trace)))
            assert ("winner_team" in trace["result"]) == partners


def test_text_trace_shows_the_hands_and_the_verdict(clean_trace):
    rules = CARDS.replace(players=3)
    text = sim.games.family_of(rules).trace_text(rules, 3, 1, ["greedy"])
    assert "referee: every card and every score checked: no violations" in text
    assert "C-SET-2" in text and "C-MELD-1" in text and "Match over" in text
    assert format_trace(clean_trace) in text


def test_tables_are_consistent_and_the_same_whatever_the_chunking():
    rules = CARDS.replace(players=4, partners=True)
    family = sim.games.family_of(rules)
    whole = family.chunk_tables(rules, 5, 0, 30, ["greedy"])
    parts = [family.chunk_tables(rules, 5, s, n, ["greedy"]) for s, n in ((0, 11), (11, 19))]
    for name in family.tables:
        assert whole[name].equals(pl.concat([p[name] for p in parts]))
    matches, hands, players = whole["matches"], whole["hands"], whole["players"]
    assert {"match_id", "players", "partners", "target", "decks", "policies", "hands", "washes", "winner_seat",
            "winner_team", "winner_total", "runner_up_total"} <= set(matches.columns)
    assert {"match_id", "hand", "dealer_seat", "finish", "winner_seat", "points", "turns",
            "stock_left"} <= set(hands.columns)
    assert {"match_id", "hand", "seat", "team", "policy", "melded", "cards_left", "hand_value", "score",
            "total"} <= set(players.columns)
    per_match = hands.group_by("match_id").agg(pl.len().alias("n"), (pl.col("finish") == "wash").sum().alias("w"))
    joined = matches.join(per_match, on="match_id")
    assert (joined["hands"] == joined["n"]).all() and (joined["washes"] == joined["w"]).all()
    # a hand's points go to the player going out; team totals reach the target at the end only
    won = players.group_by("match_id", "hand").agg(pl.col("score").sum()).join(hands, on=["match_id", "hand"])
    assert (won["score"] == won["points"]).all()
    last = players.join(matches.select("match_id", "hands"), on="match_id").filter(
        pl.col("hand") == pl.col("hands") - 1)
    team = last.group_by("match_id", "team").agg(pl.col("total").sum()).join(
        matches.select("match_id", "winner_team", "winner_total", "runner_up_total", "target"), on="match_id")
    top = team.filter(pl.col("team") == pl.col("winner_team"))
    assert (top["total"] == top["winner_total"]).all() and (top["total"] >= top["target"]).all()
    other = team.filter(pl.col("team") != pl.col("winner_team"))
    assert (other["total"] == other["runner_up_total"]).all() and (other["total"] < other["target"]).all()
    assert matches["winner_seat"].is_null().all() and matches["winner_team"].is_not_null().all()
    assert (matches["first_dealer"] == matches["match_id"] % 4).all()


def test_variants_share_their_deals_by_match_and_hand():
    """Sweeps pair matches by id: the same cards for the same match and hand whatever the
    target, so greedy's first hands (which the target cannot change) are identical."""
    family = sim.games.family_of(CARDS)
    a = family.chunk_tables(CARDS.replace(target=101), 8, 0, 20, ["greedy"])["hands"]
    b = family.chunk_tables(CARDS.replace(target=500), 8, 0, 20, ["greedy"])["hands"]
    first = [t.filter(pl.col("hand") == 0).sort("match_id") for t in (a, b)]
    assert first[0].equals(first[1])
    assert b.height > a.height


@pytest.mark.parametrize("settings", [["jokers=2"], ["open_points=51"], ["decks=2"], ["partners=true"]])
def test_bad_rules_are_refused_with_one_line(tmp_path, settings):
    from typer.testing import CliRunner

    from sim.cli import app

    args = ["run", "--preset", "rummy101-cards", "--players", "3", "--matches", "5", "--out", str(tmp_path / "x")]
    for s in settings:
        args += ["--set", s]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and res.output.count("error:") == 1 and not (tmp_path / "x").exists()


@pytest.mark.slow
def test_runs_are_the_same_whatever_the_jobs_and_chunks(tmp_path):
    """Same seed, same data with one worker and chunks of 7 as with two workers and chunks
    of 10; a sweep of deal sizes (hand_size) and rummy factors writes its partitions."""
    from sim import runner

    rules = CARDS.replace(players=3)
    for name, jobs, chunk in (("a", 1, 7), ("b", 2, 10)):
        spec = runner.RunSpec((runner.Variant(rules),), 30, 4, ("greedy", "careful", "greedy"), chunk)
        runner.run(spec, tmp_path / name, jobs=jobs, progress=False)
    for table in ("matches", "hands", "players"):
        a = runner.scan(tmp_path / "a", table).collect().sort("match_id", maintain_order=True)
        b = runner.scan(tmp_path / "b", table).collect().sort("match_id", maintain_order=True)
        assert a.equals(b), table
    variants = runner.grid_variants(CARDS.replace(players=4), {"hand_size": ["7", "9"], "rummy_factor": ["2", "3"]})
    runner.run(runner.RunSpec(variants, 20, 4, ("careful",), 20, kind="sweep"), tmp_path / "s", jobs=1,
               progress=False)
    m = runner.scan(tmp_path / "s", "matches").collect()
    assert sorted(m.group_by("hand_size", "deal_size").len().rows()) == [(7, 7, 40), (9, 9, 40)]
    assert m.group_by("rummy_factor").len().height == 2


def test_cli_traces_several_matches_as_json_lines():
    from typer.testing import CliRunner

    from sim.cli import app

    res = CliRunner().invoke(app, ["run", "--preset", "rummy101-cards", "--players", "2", "--trace", "0-2", "--json"])
    assert res.exit_code == 0
    traces = [json.loads(line) for line in res.stdout.splitlines()]
    assert [t["match_id"] for t in traces] == [0, 1, 2] and all(referee(t) == [] for t in traces)


@st.composite
def match_settings(draw):
    players = draw(st.integers(2, 4))
    four = players == 4
    changes = {"players": players, "partners": four and draw(st.booleans()),
               "decks": draw(st.sampled_from([1, 2])) if four else 1,
               "target": draw(st.sampled_from([1, 30, 101, 250])),
               "hand_size": draw(st.sampled_from([0, 0, 5, 9])), "rummy_factor": draw(st.integers(1, 4))}
    mix = draw(st.lists(st.sampled_from(["greedy", "careful", "expert"]), min_size=players, max_size=players))
    return CARDS.replace(**changes), mix, draw(st.integers(0, 2**40)), draw(st.integers(0, 10**6))


@given(match_settings())
@settings(max_examples=80)
def test_referee_accepts_matches_of_any_settings(case):
    """Hypothesis: any seat count, partners, decks, target, deal size, rummy factor, bot mix,
    seed and match id give a match the referee finds clean."""
    rules, mix, seed, match_id = case
    _, trace = traced(rules, seed, match_id, mix)
    assert referee(trace) == []


@pytest.mark.parametrize("partners", [False, True])
def test_until_ci_statistics_of_every_card_metric(partners):
    """Each --until-ci metric of card matches from a chunk's statistics equals the value
    computed from the tables (a match one cluster)."""
    from sim.precision import parse_target
    from sim.stats import cluster_interval

    rules = CARDS.replace(players=4, partners=partners)
    family = sim.games.family_of(rules)
    tables = family.chunk_tables(rules, 6, 0, 40, ["greedy", "careful", "greedy", "careful"])
    m, h = tables["matches"], tables["hands"]
    winner = m["winner_team" if partners else "winner_seat"]
    scored = h.filter(pl.col("finish") != "wash")
    expected = {"win_seat_1": (winner == 1).mean(), "mean_hands": m["hands"].mean(),
                "p_wash": (h["finish"] == "wash").mean(), "p_rummy": (h["finish"] == "rummy").mean(),
                "mean_points": scored["points"].mean()}
    for metric, want in expected.items():
        target = parse_target(f"{metric}=0.01", family.metrics, rules.players)
        est, lo, hi = cluster_interval(family.chunk_stats(target, tables), share=metric.startswith(("p_", "win")))
        assert abs(est - want) < 1e-12 and lo <= est <= hi, metric


# --- deals that cannot be played (C-DEAL-1) and matches that do not end ------------------------


def test_C_DEAL_1_a_deal_leaving_no_stock_is_refused():
    from sim.errors import RulesError

    with pytest.raises(RulesError, match=r"3 hands of 17 cards and the upcard leave no card for the stock.*C-DEAL-1"):
        CARDS.replace(players=3, hand_size=17)
    assert CARDS.replace(players=3, hand_size=16).deal_size() == 16  # 48 + the upcard: three in the stock
    with pytest.raises(RulesError, match="C-DEAL-1"):
        CARDS.replace(players=4, hand_size=26, decks=2)  # 104 cards dealt, the upcard, nothing left


@pytest.mark.parametrize("order", [["--players", "3", "--set", "hand_size=16"],
                                   ["--set", "hand_size=16", "--players", "3"]])
def test_flags_mean_the_same_in_any_order(order):
    """--set is validated together with --players, whatever comes first: three hands of 16
    fit in one deck, four do not."""
    from typer.testing import CliRunner

    from sim.cli import app

    res = CliRunner().invoke(app, ["run", "--preset", "rummy101-cards", *order, "--trace", "0", "--json"])
    assert res.exit_code == 0, res.output
    trace = json.loads(res.stdout)
    assert trace["players"] == 3 and trace["rules"]["hand_size"] == 16 and referee(trace) == []


def test_cli_refuses_a_deal_without_stock_and_a_players_conflict_in_one_line():
    from typer.testing import CliRunner

    from sim.cli import app

    for args in (["--set", "players=3", "--set", "hand_size=17", "--trace", "0"],
                 ["--players", "3", "--set", "players=2", "--trace", "0"]):
        res = CliRunner().invoke(app, ["run", "--preset", "rummy101-cards", *args])
        assert res.exit_code == 2 and res.output.count("error:") == 1, res.output
        assert "Traceback" not in res.output


def test_a_match_that_does_not_end_is_one_error_line(tmp_path, monkeypatch):
    """The engine stops a match after MAX_HANDS hands (every hand a wash, C-WASH-1): the run
    ends in one error line naming the match and the cap, not a traceback."""
    from typer.testing import CliRunner

    from sim.cli import app
    from sim.games.cards import play as match

    real = match.play_chunk

    def stuck(*args, **kwargs):
        res = real(*args, **kwargs)
        res.matches[0, e.M_ERROR] = e.ERR_HANDS
        return res

    monkeypatch.setattr(match, "play_chunk", stuck)
    res = CliRunner().invoke(app, ["run", "--preset", "rummy101-cards", "--players", "2", "--matches", "3", "--jobs",
                                   "1", "--no-progress", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and res.output.count("error:") == 1, res.output
    assert f"did not end in {e.MAX_HANDS:,} hands" in res.output
