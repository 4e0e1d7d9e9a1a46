"""Duplicate card matches (``sim run --duplicate``, ``sim tournament``): a deal is a match's
sequence of hands, played once per seat rotation: hand h of every rotation deals the same
cards, every seat and the first dealer moved one place on each time (C-SET-1, C-SET-2),
so that bots and seats meet the same cards. The bookkeeping: the decks, who holds what,
the first dealer, the ``deal_id`` and ``rotation`` columns, the referee on rotated traces."""

import json

import numpy as np
import pytest

import sim
from sim.analysis import open_dataset
from sim.games.cards.play import play_chunk, policy_codes
from sim.games.cards.referee import referee
from sim.games.cards.trace import trace_json
from tests.shared.test_family_contract import cli

CARDS = sim.preset("rummy101-cards")


@pytest.mark.parametrize(("players", "partners"), [(2, False), (3, False), (4, True)])
def test_c_set_2_every_rotation_deals_the_same_hands_one_seat_on(players, partners):
    rules = CARDS.replace(players=players, partners=partners)
    deal = 5
    traces = [trace_json(rules, 7, deal * players + r, (["greedy", "careful"] * 2)[:players], duplicate=True)
              for r in range(players)]
    first = traces[0]["hands"][0]["dealer_seat"]
    for r, t in enumerate(traces):
        assert referee(t) == [], r
        assert t["hands"][0]["dealer_seat"] == (first + r) % players  # the first dealer moved r seats on
        for h, hand in enumerate(t["hands"][:len(traces[0]["hands"])]):
            base = traces[0]["hands"][h]["deal"]
            assert hand["deal"]["stock"] == base["stock"] and hand["deal"]["upcard"] == base["upcard"]
            for seat in range(players):  # seat s of rotation 0 holds what seat s + r holds in rotation r
                assert hand["deal"]["hands"][(seat + r) % players] == base["hands"][seat], (r, h, seat)


def test_a_plain_run_keys_every_match_on_its_own_deal():
    rules = CARDS.replace(players=2)
    codes = policy_codes(["greedy"], 2)
    plain = play_chunk(rules, 3, 0, 6, codes)
    dup = play_chunk(rules, 3, 0, 6, codes, duplicate=True)
    from sim.games.cards import engine as e

    assert list(plain.matches[:, e.M_FIRST_DEALER]) == [m % 2 for m in range(6)]
    # duplicate: match 2d + r is rotation r of deal d, first dealer (d + r) % 2
    assert list(dup.matches[:, e.M_FIRST_DEALER]) == [(m // 2 + m % 2) % 2 for m in range(6)]
    # rotation 0 of deal d is not match d of the plain run but deal d's cards: match 0 agrees
    assert np.array_equal(plain.hands[plain.hands[:, e.H_MATCH] == 0], dup.hands[dup.hands[:, e.H_MATCH] == 0])


def test_duplicate_matches_carry_their_deal_and_rotation(tmp_path):
    out = tmp_path / "d"
    r = cli("run", "--preset", "rummy101-cards", "--players", 3, "--duplicate", "--matches", 7, "--chunk", 4,
            "--jobs", 1, "--out", out, "--json", "--no-progress")
    assert r.exit_code == 0, r.output
    ds = open_dataset(out)
    m = ds.rounds.collect().sort("match_id")
    assert m.height == 9  # rounded up to whole deals of three rotations; chunks of 3
    assert m["deal_id"].to_list() == [i // 3 for i in range(9)] and m["rotation"].to_list() == [i % 3 for i in range(9)]
    assert ds.cluster == "deal_id"
    assert json.loads((out / "manifest.json").read_text())["duplicate"] is True


def test_a_card_tournament_pairs_the_bots_on_the_same_hands(tmp_path):
    r = cli("tournament", "--preset", "rummy101-cards", "--players", 2, "--policies", "greedy,careful",
            "--matches", 40, "--jobs", 1, "--out", tmp_path / "t", "--json", "--no-progress")
    assert r.exit_code == 0, r.output
    s = json.loads(r.output.strip().splitlines()[-1])
    assert s["unit"] == "match" and s["units"] == 80 and s["deals"] == 20 and s["score"] == "points per hand"
    g, c = s["policies"]["greedy"], s["policies"]["careful"]
    # every match is won by one of the two: their win shares add up to one
    assert g["win_share"]["estimate"] + c["win_share"]["estimate"] == pytest.approx(1)
    assert g["player_units"] == c["player_units"] == 80
