"""The worked examples of the rules text (seeds/000, docs/rules.md section T and K) through the
public solver API."""

import pytest

import sim

RUMMIKUB = sim.preset("rummikub")


def test_T_OPEN_1_33_plus_36_plus_33_opens_but_the_first_two_do_not():
    three = sim.best_opening("R10 R11 R12  B12 K12 Y12  K10 K11 K12  Y1")
    assert three.value == 102 and three.can_open
    assert sorted(m.value for m in three.melds) == [33, 33, 36]
    two = sim.best_opening("R10 R11 R12  B12 K12 Y12  Y1")
    assert two.value == 69 and not two.can_open


def test_T_MELD_1_12_13_1_is_no_run_but_wraps_with_the_K_VAR_option():
    assert sim.best_opening("R12 R13 R1 B5").value == 0
    assert sim.best_opening("R12 R13 R1", RUMMIKUB).value == 0
    wrap = sim.best_opening("R12 R13 R1", RUMMIKUB.replace(wrap_runs=True))
    assert wrap.value == 26  # the 1 counts 1
    assert [str(m) for m in wrap.melds] == ["R12 R13 R1"]


def test_T_ADD_1_a_blue_6_does_not_extend_a_red_3_4_5():
    assert sim.best_opening("R3 R4 R5 B6 K1").value == 12
    assert sim.best_opening("R3 R4 R5 R6 K1").value == 18


def test_T_MELD_3_two_tiles_of_one_number_in_different_colours_are_no_pair():
    assert sim.best_opening("R5 B5 K1").pairs == 0
    assert sim.best_opening("R5 R5 K1").pairs == 1
    assert sim.best_opening("R5 J K1").pairs == 1  # a joker may replace one of the two
    assert sim.best_opening("J J K1").pairs == 1  # never both


def test_T_OPEN_4_a_rack_of_only_7_8_9_cannot_lay_all_three_down():
    assert sim.best_opening("R7 R8 R9").value == 0
    assert sim.best_opening("R7 R8 R9 K1").value == 24
    assert sim.best_opening("R7 R8 R9", RUMMIKUB).value == 24  # Rummikub has no discard


def test_T_MELD_4_a_joker_meld_worth_33_records_the_tile_it_stands_for():
    o = sim.best_opening("R10 J R12 K1")
    assert o.value == 33
    assert [str(m) for m in o.melds] == ["R10 J(R11) R12"]
    assert o.jokers == ["R11"]


def test_T_OPEN_2_five_pairs_open_without_points():
    o = sim.best_opening("R1 R1 B2 B2 K3 K3 Y4 Y4 R5 J B9")
    assert o.pairs == 5 and o.can_open_pairs and not o.can_open_melds and o.can_open
    assert len(o.pair_melds) == 5


def test_T_TAKE_2_the_discard_taken_must_be_in_the_opening():
    rack = "R10 R11 R12 B12 K12 Y12 K10 K11 K12 Y1 B3"
    assert sim.best_opening(rack).value == 102
    forced = sim.best_opening(rack, must_use="B3")
    assert forced.value == 0 and not forced.can_open_melds
    assert sim.best_opening(rack, must_use="K11").value == 102
    with pytest.raises(sim.NotationError, match="not in the rack"):
        sim.best_opening(rack, must_use="R1")


def test_K_MELD_2_a_group_of_three_holds_one_joker_in_rummikub():
    assert sim.best_opening("R13 J J", RUMMIKUB).value == 36  # a run J(R11) J(R12) R13
    assert sim.best_opening("B13 J J", RUMMIKUB.replace(wrap_runs=False)).value == 36
    assert sim.best_opening("R13 J J B1").value == 39  # rummy101: set R13 J J


def test_a_third_copy_by_joker_R9_R10_J_beside_two_runs_reaches_102():
    o = sim.best_opening("R9 R10 R11 R11 R12 R12 R13 R13 J K1")
    assert o.value == 102 and o.jokers == ["R11"]


def test_bad_input_through_the_api():
    with pytest.raises(sim.NotationError, match="'Q7'"):
        sim.best_opening("R1 Q7")
    with pytest.raises(sim.RulesError, match="unknown preset"):
        sim.best_opening("R1", "poker")
    with pytest.raises(sim.RulesError, match="played with cards"):
        sim.best_opening("R1", "rummy101-cards")
    with pytest.raises(sim.NotationError, match="at most 2"):
        sim.best_opening("R1 J J J")
    assert sim.best_opening("R1 R2 J J J", "rummy101-button").value == 14  # R2 J(R3) J(R4) J(R5)
