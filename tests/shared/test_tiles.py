"""Notation (docs/rules.md, Notation): tiles, racks, melds and cards read and printed; bad
tokens named in the error."""

import numpy as np
import pytest

import sim
from sim.tiles import JOKER, kind, parse_card, parse_hand, tile_name


def test_tile_kinds_follow_colour_order_R_B_K_Y():
    assert sim.parse_tile("R1") == 0
    assert sim.parse_tile("b1") == 13
    assert sim.parse_tile("K13") == 38
    assert sim.parse_tile("Y13") == 51
    assert sim.parse_tile("j") == JOKER
    assert [tile_name(k) for k in (0, 13, 38, 51, JOKER)] == ["R1", "B1", "K13", "Y13", "J"]


def test_rack_reads_case_insensitive_with_spaces_or_commas():
    a = sim.parse_rack("R7 r8 R9, K12 B12,Y12   J")
    b = sim.parse_rack("r7,r8,r9 k12 b12 y12 j")
    assert a == b
    assert len(a) == 7 and a.jokers == 1
    assert str(a) == "R7 R8 R9 B12 K12 Y12 J"
    assert sim.parse_rack(str(a)) == a


@pytest.mark.parametrize(
    ("text", "named"),
    [("R7 X9", "'X9'"), ("R0", "'R0'"), ("R14 B2", "'R14'"), ("B-3", "'B-3'"), ("7R", "'7R'"),
     ("RR", "'RR'")],
)
def test_bad_token_is_rejected_naming_it(text, named):
    with pytest.raises(sim.NotationError) as e:
        sim.parse_rack(text)
    assert named in str(e.value)


def test_more_copies_than_the_set_holds_is_rejected_T_SET_1():
    with pytest.raises(sim.NotationError, match="R7"):
        sim.parse_rack("R7 R7 R7")
    with pytest.raises(sim.NotationError, match="jokers"):
        sim.parse_rack("J J J J J")
    assert len(sim.parse_rack("R7 R7 J J J J")) == 6


def test_count_vectors_are_validated():
    with pytest.raises(sim.NotationError, match="R1"):
        sim.Rack.from_counts([3] + [0] * 52)
    with pytest.raises(sim.NotationError, match="53"):
        sim.Rack.from_counts([0] * 52)
    counts = np.zeros(53, dtype=int)
    counts[kind(2, 5)] = 2
    assert str(sim.Rack.from_counts(counts)) == "K5 K5"


def test_meld_prints_joker_with_the_tile_it_stands_for():
    m = sim.parse_meld("R5 J(R6) R7")
    assert (m.kind, m.value, m.joker_count) == ("run", 18, 1)
    assert str(m) == "R5 J(R6) R7"
    assert sim.parse_meld("b8 k8 y8 j(r8)").kind == "set"
    with pytest.raises(sim.NotationError, match="stands for"):
        sim.parse_meld("R5 J R7")
    with pytest.raises(sim.NotationError, match="neither"):
        sim.parse_meld("R5 B6 K7")


def test_cards_notation():
    assert parse_card("AS") == 0
    assert parse_card("10h") == 13 + 9
    assert parse_card("KD") == 26 + 12
    assert parse_hand("AS 10H KD").sum() == 3
    with pytest.raises(sim.NotationError, match="'1S'"):
        parse_card("1S")
    with pytest.raises(sim.NotationError, match="AS"):
        parse_hand("AS AS")
