"""Dealing: our Philox equals numpy's, rack i of a seed never depends on chunking, and
dealt racks are uniform over the 106 tiles (T-SET-1) within a stated tolerance."""

import numpy as np
import pytest
from scipy import stats

from sim.deal import deal_racks, philox_block


@pytest.mark.parametrize(("key", "counter"), [((0, 0), (0, 0, 0, 0)), ((7, 9), (5, 1, 0, 0)),
                                              ((2**63 + 11, 3), (2**64 - 2, 7, 2, 1))])
def test_philox_equals_numpy(key, counter):
    gen = np.random.Philox(key=np.array(key, dtype=np.uint64), counter=np.array(counter, dtype=np.uint64))
    expected = gen.random_raw(4)
    # numpy increments the counter before its first block
    c = list(counter)
    c[0] = (c[0] + 1) % 2**64
    if c[0] == 0:
        c[1] += 1
    out = np.zeros(4, dtype=np.uint64)
    philox_block(np.uint64(key[0]), np.uint64(key[1]), np.uint64(c[0]), np.uint64(c[1]),
                 np.uint64(c[2]), np.uint64(c[3]), out)
    assert out.tolist() == expected.tolist()


def test_rack_i_is_the_same_in_any_chunk():
    whole = deal_racks(42, 0, 1000, 22)
    parts = np.vstack([deal_racks(42, s, n, 22) for s, n in ((0, 7), (7, 500), (507, 493))])
    assert np.array_equal(whole, parts)
    assert not np.array_equal(whole, deal_racks(43, 0, 1000, 22))


def test_racks_hold_the_right_number_of_tiles_and_at_most_two_of_each():
    racks = deal_racks(5, 0, 5000, 21)
    assert (racks.sum(axis=1) == 21).all()
    assert racks.max() <= 2


def test_deal_is_uniform_over_the_106_tiles():
    """Every tile kind (and the jokers) lands in a rack with probability 22 * copies / 106.

    Fixed seed; the chi-square goodness-of-fit over the 53 kinds must not reject at 0.1%,
    and the mean jokers per rack must be within 4 standard errors of 44/106."""
    n = 100_000
    racks = deal_racks(2026, 0, n, 22).astype(np.int64)
    totals = racks.sum(axis=0)
    expected = np.full(53, n * 22 * 2 / 106)
    assert stats.chisquare(totals, expected).pvalue > 0.001
    jokers = racks[:, 52]
    se = jokers.std(ddof=1) / np.sqrt(n)
    assert abs(jokers.mean() - 44 / 106) < 4 * se
