"""The card hand solver (issue 10, part 1): the best lay-down against a brute-force
reference (C-MELD-1, C-OUT-1, C-OUT-2), every arrangement it returns checked card by
card, worked hands, notation errors, dealt hands and their statistics."""

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import sim
from sim.cli import app
from sim.games.cards.handplay import card_meld, meld_cards
from sim.reference import cards as ref
from sim.tiles import card_name, parse_card

CARDS = sim.preset("rummy101-cards")
TWO_DECKS = CARDS.replace(decks=2, players=4)


def _meld_strategy():
    """A valid table meld (C-MELD-1) as card indices."""
    sets = st.tuples(st.integers(0, 12), st.sets(st.integers(0, 3), min_size=3, max_size=4)).map(
        lambda t: tuple(s * 13 + t[0] for s in sorted(t[1])))
    runs = st.tuples(st.integers(0, 3), st.integers(0, 10), st.integers(3, 6)).map(
        lambda t: tuple(t[0] * 13 + r for r in range(t[1], min(13, t[1] + t[2]))))
    return st.one_of(sets, runs).filter(lambda m: len(m) >= 3)


@st.composite
def positions(draw, decks: int):
    """A hand of 1-8 cards and 0-3 table melds, within the decks' copies."""
    copies = Counter()
    table = []
    for meld in draw(st.lists(_meld_strategy(), max_size=3)):
        if all(copies[c] < decks for c in meld):
            copies.update(meld)
            table.append(meld)
    hand = []
    for c in draw(st.lists(st.integers(0, 51), min_size=1, max_size=8)):
        if copies[c] < decks:
            copies[c] += 1
            hand.append(c)
    if not hand:
        hand = [next(c for c in range(52) if copies[c] < decks)]
    return tuple(hand), tuple(table)


def _check_arrangement(hand, table, melds, layoffs, left):
    """Every card of the hand is in one new meld, one lay-off or left; every new meld is
    valid; each lay-off fits the table meld as it stands then."""
    used = Counter()
    for m in melds:
        cards = [parse_card(t) for t in m.split()]
        assert ref.is_meld(tuple(cards)), m
        used.update(cards)
    grown = [list(m) for m in table]
    for cards_text, i in layoffs:
        cards = [parse_card(t) for t in cards_text.split()]
        new = grown[i] + cards
        assert ref.is_meld(tuple(new)), (grown[i], cards)
        grown[i] = new
        used.update(cards)
    used.update(parse_card(t) for t in left)
    assert used == Counter(hand)
    assert len(left) >= 1  # C-OUT-2: a card is kept for the discard


def _solve(hand, table, rules):
    text = " ".join(card_name(c) for c in hand)
    return sim.best_lay_down(text, rules, [" ".join(card_name(c) for c in m) for m in table])


@pytest.mark.parametrize("rules", [CARDS, TWO_DECKS], ids=["one deck", "two decks"])
def test_best_lay_down_agrees_with_brute_force(rules):
    @settings(max_examples=400)
    @given(positions(rules.decks))
    def check(position):
        hand, table = position
        got = _solve(hand, table, rules)
        value, can_out = ref.solve(hand, table)
        assert (got.value, got.can_out) == (value, can_out)
        assert got.deadwood == sum(ref.value(c) for c in hand) - got.value
        _check_arrangement(hand, table, got.melds, got.layoffs, got.left)
        assert sum(ref.value(parse_card(t)) for t in got.left) == got.deadwood
        if got.can_out:
            melds, layoffs, discard = got.out
            _check_arrangement(hand, table, melds, layoffs, [discard])

    check()


@pytest.mark.parametrize("rules", [CARDS, TWO_DECKS], ids=["one deck", "two decks"])
def test_C_OUT_1_goes_out_agrees_with_the_reference(rules):
    """``goes_out``, the expert's quick test of a way out (no best lay-down sought, the first
    way out ends the search), against the brute-force reference's can-go-out; the hand and
    the table come back as they were."""
    from sim.games.cards import FAMILY
    from sim.games.cards.hand import goes_out

    FAMILY.prepare(progress=False)

    @settings(max_examples=400)
    @given(positions(rules.decks))
    def check(position):
        hand, table = position
        h = np.bincount(np.array(hand, dtype=np.int64), minlength=52).astype(np.int64)
        rows = np.array([card_meld(" ".join(card_name(c) for c in m)) for m in table] or np.zeros((0, 4)),
                        dtype=np.int64).reshape(-1, 4)
        before = (h.copy(), rows.copy())
        assert goes_out(h, rows, len(table)) == ref.solve(hand, table)[1]
        assert np.array_equal(h, before[0]) and np.array_equal(rows, before[1])

    check()


@pytest.mark.parametrize("hand, table, value, can_out, left", [
    ("AS 2S 3S 7H 7D 7C KD", None, 36, True, ["KD"]),  # C-OUT-1: two melds, KD discarded
    ("AS 2S 3S 7H 7D 7C", None, 21, False, ["AS", "2S", "3S"]),  # C-OUT-2: the last card is never melded
    ("QS KS AS 5D", None, 0, False, None),  # ace low only: Q-K-A is no run (C-MELD-1)
    ("2S 3S 9H KD", "4S 5S 6S; 9D 9C 9S", 14, True, ["KD"]),  # lay-offs at a run's foot and on a set
    ("7S 8S KD", "4S 5S 6S", 15, True, ["KD"]),  # a run extended upwards a card at a time
    ("5H 5D 5C 5S 9D", None, 20, True, ["9D"]),  # a set of four
    ("AS KD", "2S 3S 4S", 10, True, ["KD"]),
    ("KD", None, 0, True, ["KD"]),  # one card: discarding it goes out
])
def test_worked_hands(hand, table, value, can_out, left):
    got = sim.best_lay_down(hand, "rummy101-cards", table)
    assert (got.value, got.can_out) == (value, can_out)
    if left is not None:
        assert sorted(got.left) == sorted(left)


def test_two_decks_hold_two_copies_and_sets_never_repeat_a_suit():
    got = sim.best_lay_down("7H 7H 7D 7C", TWO_DECKS)
    assert got.value == 21 and sorted(got.left) == ["7H"]
    with pytest.raises(sim.NotationError, match="too many copies of '7H'"):
        sim.best_lay_down("7H 7H 7D", CARDS)
    with pytest.raises(sim.NotationError, match="too many copies of 4S in the hand and the table"):
        sim.best_lay_down("4S 9D", CARDS, "3S 4S 5S")


@pytest.mark.parametrize("meld, message", [
    ("QS KS AS", "neither a set"),
    ("7H 7H 7D", "different suits"),
    ("7H 8H", "at least 3 cards"),
    ("7H 8X 9H", "unknown card '8X'"),
])
def test_bad_table_melds_are_named(meld, message):
    with pytest.raises(sim.NotationError, match=message):
        card_meld(meld)


def test_table_meld_rows_round_trip():
    for text in ("AS 2S 3S 4S", "7H 7D 7C", "JC QC KC"):
        assert sorted(card_name(c) for c in meld_cards(card_meld(text))) == sorted(text.split())


def test_tile_rules_are_refused_with_the_right_pointer():
    with pytest.raises(sim.RulesError, match=r"sim\.best_opening solves tile racks"):
        sim.best_lay_down("AS 2S 3S", "rummy101")


def test_cli_solve_prints_a_card_hand_and_json():
    res = CliRunner().invoke(app, ["solve", "--preset", "rummy101-cards", "AS 2S 3S 7H 7D 7C KD"])
    assert res.exit_code == 0, res.output
    assert "AS 2S 3S" in res.output and "can go out: yes, discarding KD" in res.output
    res = CliRunner().invoke(app, ["solve", "--preset", "rummy101-cards", "--json", "--table", "4S 5S 6S",
                                   "2S 3S 9H"])
    got = json.loads(res.stdout)
    assert got["value"] == 5 and got["layoffs"] == [{"cards": "2S 3S", "meld": 0}] and got["left"] == ["9H"]
    bad = CliRunner().invoke(app, ["solve", "--preset", "rummy101-cards", "AS 2S 1S"])
    assert bad.exit_code == 2 and "unknown card '1S'" in bad.output


def test_dealt_hands_are_uniform_and_reproducible():
    from sim.games.cards.handplay import deal_hands

    a = deal_hands(5, 0, 2000, 7, decks=1)
    b = np.concatenate([deal_hands(5, 0, 700, 7, decks=1), deal_hands(5, 700, 1300, 7, decks=1)])
    assert (a == b).all() and (a.sum(axis=1) == 7).all() and a.max() == 1
    freq = a.sum(axis=0) / a.sum()  # every card 1/52: tolerance 5 sigma of 14,000 draws
    assert np.abs(freq - 1 / 52).max() < 5 * np.sqrt(1 / 52 * 51 / 52 / 14_000)
    two = deal_hands(5, 0, 500, 10, decks=2)
    assert two.max() == 2 and (two.sum(axis=1) == 10).all()


def test_card_deal_stats_agree_with_the_reference_and_whatever_the_workers(tmp_path):
    from sim import dealstats

    a = dealstats.run_deal_stats(CARDS, 7, 600, seed=3, jobs=1, progress=False, chunk=600)
    b = dealstats.run_deal_stats(CARDS, 7, 600, seed=3, jobs=2, progress=False, chunk=250)
    assert a.table.equals(b.table) and a.table.columns == ["hand_id", "melded", "deadwood", "can_meld", "can_out"]
    from sim.games.cards.handplay import deal_hands

    hands = deal_hands(3, 0, 200, 7, decks=1)
    for row, h in zip(a.table.head(200).iter_rows(named=True), hands, strict=True):
        cards = tuple(np.repeat(np.arange(52), h))
        value, can_out = ref.solve(cards)
        assert (row["melded"], row["can_out"], row["can_meld"]) == (value, can_out, value > 0)
        assert row["melded"] + row["deadwood"] == sum(ref.value(c) for c in cards)
    s = a.summary()
    assert s["p_meld"]["estimate"] == pytest.approx(a.table["can_meld"].mean())
    assert s["p_meld"]["ci_low"] < s["p_meld"]["estimate"] < s["p_meld"]["ci_high"]


def test_cli_card_deal_stats_json_until_ci_and_errors(tmp_path):
    out = tmp_path / "h.parquet"
    res = CliRunner().invoke(app, ["deal-stats", "--preset", "rummy101-cards", "--rack-size", "10", "--samples",
                                   "200000", "--until-ci", "p_meld=0.01", "--json", "--out", str(out),
                                   "--no-progress", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    p = got["p_meld"]
    assert set(p) >= {"estimate", "ci_low", "ci_high"} and (p["ci_high"] - p["ci_low"]) / 2 <= 0.01
    assert got["hands"] == 50_000 and "p_out" in got and "deadwood" in got  # one chunk was enough
    bad = CliRunner().invoke(app, ["deal-stats", "--preset", "rummy101-cards", "--rack-size", "53",
                                   "--out", str(tmp_path / "x.parquet")])
    assert bad.exit_code == 2 and "rack-size: must be 1-52" in bad.output and not (tmp_path / "x.parquet").exists()
    bad = CliRunner().invoke(app, ["deal-stats", "--preset", "rummy101-cards", "--until-ci", "p_open=0.01",
                                   "--out", str(tmp_path / "y.parquet")])
    assert bad.exit_code == 2 and "unknown metric 'p_open'" in bad.output
