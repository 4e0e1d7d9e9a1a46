"""The numba opening solver agrees with the brute-force reference (sim.reference.opening)
on thousands of small racks: melds value, pairs, forced tiles (T-TAKE-2), keep-a-discard
(T-OPEN-4), jokers (T-MELD-4) and the Rummikub options (K-MELD-2, K-VAR wrap_runs)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sim
from sim.melds import check_meld
from sim.reference.opening import NO_OPENING, best_value, most_pairs
from sim.tiles import JOKER, KINDS, Rack
from tests.strategies import racks

RUMMY101 = sim.preset("rummy101")
BUTTON = sim.preset("rummy101-button")
RUMMIKUB = sim.preset("rummikub")
WRAP = RUMMIKUB.replace(wrap_runs=True)
NO_DISCARD = RUMMY101.replace(keep_discard=False)


def _assert_solution(counts, rules, opening, must_use=None):
    """The melds returned are valid, disjoint, from the rack, add up, and keep a discard."""
    used = np.zeros(len(counts), dtype=int)
    for meld in opening.melds:
        assert check_meld(meld, rules) is None, (str(meld), check_meld(meld, rules))
        for k, j in zip(meld.tiles, meld.jokers, strict=True):
            used[JOKER if j else k] += 1
    assert (used <= np.asarray(counts)).all()
    assert sum(m.value for m in opening.melds) == opening.value
    if rules.keep_discard and opening.melds:
        assert used.sum() < sum(counts), "T-OPEN-4: a tile must remain for the discard"
    if must_use is not None and opening.melds:
        assert any(must_use in m.tiles and not j for m in opening.melds
                   for k, j in zip(m.tiles, m.jokers, strict=True) if k == must_use)


def _check(counts, rules, must_use=None):
    forced = None if must_use is None else sim.tiles.tile_name(must_use)
    opening = sim.best_opening(Rack(tuple(counts)), rules, must_use=forced)
    expected = best_value(counts, rules, must_use)
    assert opening.value == max(expected, 0), (str(Rack(tuple(counts))), rules.name)
    assert opening.pairs == most_pairs(counts, rules, must_use)
    _assert_solution(counts, rules, opening, must_use)
    return opening


@settings(max_examples=1500)
@given(racks(max_tiles=11, max_jokers=2))
@pytest.mark.slow
def test_rummy101_melds_and_pairs_match_reference(counts):
    _check(counts, RUMMY101)


@settings(max_examples=300)
@given(racks(max_tiles=9, max_jokers=4))
@pytest.mark.slow
def test_button_jokers_up_to_four_match_reference(counts):
    _check(counts, BUTTON)


@settings(max_examples=600)
@given(racks(max_tiles=10, max_jokers=2), st.data())
def test_forced_tile_T_TAKE_2_matches_reference(counts, data):
    present = [k for k in range(KINDS) if counts[k]]
    if not present:
        return
    forced = data.draw(st.sampled_from(present))
    _check(counts, RUMMY101, forced)


@settings(max_examples=500)
@given(racks(max_tiles=10, max_jokers=2))
@pytest.mark.slow
def test_rummikub_group_of_three_one_joker_K_MELD_2(counts):
    _check(counts, RUMMIKUB)


@settings(max_examples=400)
@given(racks(max_tiles=9, max_jokers=2, wrap=True))
@pytest.mark.slow
def test_rummikub_wrap_runs_K_VAR(counts):
    _check(counts, WRAP)


@settings(max_examples=500)
@given(st.lists(st.integers(0, 2), min_size=13, max_size=13), st.integers(0, 2))
def test_k_var_wrap_runs_a_colour_no_run_can_cross_13_1_in_has_the_runs_of_a_line(counts13, jokers):
    """K-VAR ``wrap_runs``: the search reads a colour's runs from the run table of numbers in a
    line when no run could hold both 13 and 1 (``kernel._may_wrap``: each of the two without
    a tile takes a joker); there the wrap-around runs' best score, at most 0, 1 or 2 jokers,
    is the table's, and ``_may_wrap`` says so whenever a run across 13-1 beats them."""
    from sim.solver import api, kernel
    from sim.solver.runs import colour_runs

    arrays = api._arrays(WRAP.group_of_three_max_jokers)
    space = kernel.new_space(arrays.states.shape[0])
    out = np.empty(kernel.MAXJ + 1, dtype=np.int64)
    colour_runs(np.array(counts13, dtype=np.int64), jokers, 0, True, arrays.states, arrays.tptr, arrays.tto,
                arrays.tdj, arrays.tk, arrays.tnoend, space[2], space[3], space[4], space[5][6], space[10], out)
    pattern = sum(c * 3**n for n, c in enumerate(counts13))
    in_a_line = arrays.table[pattern, :jokers + 1].tolist()
    assert kernel._may_wrap.py_func(pattern, jokers) or out[:jokers + 1].tolist() == in_a_line, (counts13, jokers)
    if counts13[0] and counts13[12] and (counts13[1] or counts13[11]):
        assert kernel._may_wrap.py_func(pattern, 0)  # e.g. 12 13 1 or 13 1 2 of real tiles


@settings(max_examples=300)
@given(racks(max_tiles=9, max_jokers=2))
def test_without_keep_a_discard(counts):
    _check(counts, NO_DISCARD)


@settings(max_examples=200)
@given(st.lists(racks(max_tiles=11, max_jokers=2), min_size=1, max_size=20))
def test_batch_opening_values_equal_single_solves(batch):
    arr = np.array(batch, dtype=np.int8)
    values = sim.opening_values(arr, RUMMY101)
    single = [sim.best_opening(Rack(tuple(c))).value for c in batch]
    assert values.tolist() == single
    assert NO_OPENING < 0
