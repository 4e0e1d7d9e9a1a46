"""The skill estimators (sim.skill, issue 22) on synthetic duplicate tournaments whose
variance components, gaps and ratings are known: each recovers them within a stated
tolerance (fixed seeds), and bad input gets one clear message."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.errors import SimError
from sim.skill import (
    STEP_ELO,
    critical_repetitions,
    deals_text,
    elo_ladder,
    relative_skill,
    share_intervals,
    variance_shares,
)


def duplicate_rows(deals, seat_effects, policy_effects, deal_sd, residual_sd, seed):
    """A duplicate tournament of known components: every seating of the policies at the
    seats (each used at least once), every deal once per seat rotation; a player-unit's score
    is the deal's luck + its seat's edge + its policy's + noise."""
    rng = np.random.default_rng(seed)
    seats, policies = len(seat_effects), list(policy_effects)
    seatings = [s for s in itertools.product(policies, repeat=seats) if set(s) == set(policies)]
    luck = rng.normal(0.0, deal_sd, deals)
    deal, seat, policy = [], [], []
    for d in range(deals):
        for seating in seatings:
            for rotation in range(seats):
                for s in range(seats):
                    deal.append(d)
                    seat.append(s)
                    policy.append(seating[(s + rotation) % seats])
    deal, seat = np.array(deal), np.array(seat)
    score = (luck[deal] + np.array(seat_effects)[seat] + np.array([policy_effects[p] for p in policy])
             + rng.normal(0.0, residual_sd, deal.size))
    return pl.DataFrame({"deal_id": deal, "seat": seat, "policy": policy, "score": score})


def test_variance_shares_recovers_known_components_of_a_duplicate_design():
    """Deal luck of variance 9, seat edges -1, 0, 0.5, 0.5 (variance 0.375 over the rows),
    policies +1 and -1 (variance 1) and noise of variance 4, 300 deals of two policies at four
    seats (67,200 player-units): each component within its tolerance (the deal's: three
    standard errors of a variance from 300 deals, 1.6; the others 0.05-0.12)."""
    rows = duplicate_rows(300, [-1.0, 0.0, 0.5, 0.5], {"greedy": -1.0, "expert": 1.0}, 3.0, 2.0, seed=7)
    got = variance_shares(rows)["components"]
    assert got["deal_id"] == pytest.approx(9.0, abs=1.6)
    assert got["seat"] == pytest.approx(0.375, abs=0.05)
    assert got["policy"] == pytest.approx(1.0, abs=0.05)
    assert got["residual"] == pytest.approx(4.0, abs=0.12)


def test_share_intervals_cover_the_true_shares_of_known_components():
    """The grouped jackknife's 95% intervals (20 groups of deals): over 40 synthetic
    tournaments of known components (deal luck of variance 9, seat edges of variance 7/18,
    policies +-1, noise of variance 4; 120 deals each, seed 100 onwards), the interval of the
    policy's share and of the deal's holds the true share in at least 34 of the 40 (85%: the
    jackknife from 20 groups is an approximation; at 95% coverage 34 or more happen with
    probability 0.99)."""
    seat_var = float(np.var([-1.0, 0.0, 0.5]))
    total = 9.0 + seat_var + 1.0 + 4.0
    truth = {"deal_id": 9.0 / total, "policy": 1.0 / total}
    covered = {f: 0 for f in truth}
    for seed in range(100, 140):
        rows = duplicate_rows(120, [-1.0, 0.0, 0.5], {"greedy": -1.0, "expert": 1.0}, 3.0, 2.0, seed=seed)
        got = share_intervals(rows)
        for f, share in truth.items():
            assert got[f]["ci_low"] <= got[f]["estimate"] <= got[f]["ci_high"]
            covered[f] += got[f]["ci_low"] <= share <= got[f]["ci_high"]
    assert all(n >= 34 for n in covered.values()), covered


def test_variance_shares_says_nothing_where_a_factor_does_nothing():
    """No deal luck, no seat edge and no policy gap, noise of variance 9: every component but
    the residual comes out near 0. The deals' fitted effects alone vary by about 0.17 (each
    the mean of 54 noisy rows): that noise is taken off. The shares add up to 1."""
    rows = duplicate_rows(200, [0.0, 0.0, 0.0], {"a": 0.0, "b": 0.0}, 0.0, 3.0, seed=11)
    out = variance_shares(rows)
    assert out["components"]["deal_id"] < 0.05
    assert out["components"]["seat"] < 0.01 and out["components"]["policy"] < 0.01
    assert out["components"]["residual"] == pytest.approx(9.0, rel=0.05)
    assert sum(out["shares"].values()) == pytest.approx(1.0)


def test_relative_skill_is_the_share_of_the_way_to_foreknowledge():
    """Without noise the skilled player is 2 points a unit over the beginner and the fictive
    8: relative skill 0.25 exactly. With noise (500 deals) the interval holds 0.25."""
    rng = np.random.default_rng(3)
    luck = rng.normal(0.0, 5.0, 500)

    def rows(noise):
        parts = [pl.DataFrame({"deal_id": np.arange(500), "policy": p,
                               "score": luck + gap + rng.normal(0.0, noise, 500)})
                 for p, gap in (("greedy", 0.0), ("expert", 2.0), ("oracle", 8.0))]
        return pl.concat(parts)

    assert relative_skill(rows(0.0), "greedy", "expert", "oracle")["estimate"] == pytest.approx(0.25)
    noisy = relative_skill(rows(3.0), "greedy", "expert", "oracle")
    assert noisy["ci_low"] < 0.25 < noisy["ci_high"] and noisy["ci_high"] - noisy["ci_low"] < 0.2
    assert noisy["deals"] == 500


def test_critical_repetitions_agree_with_playing_the_units_out():
    """Paired differences of mean 0.5 and spread 2: (1.645 x 2 / 0.5)^2 = 43.3 units. Brute
    force: in 20,000 series of that many units (the estimate, rounded up) the better player
    is ahead in about 95% of them (tolerance 1.5 points)."""
    rng = np.random.default_rng(5)
    out = critical_repetitions(rng.normal(0.5, 2.0, 50_000))
    assert out["estimate"] == pytest.approx(43.3, rel=0.1)  # the mean of 50,000 is within 0.018 (2 SE)
    assert out["ci_low"] < out["estimate"] < out["ci_high"]
    n = math.ceil(out["estimate"])
    ahead = (rng.normal(0.5, 2.0, (20_000, n)).sum(axis=1) > 0).mean()
    assert ahead == pytest.approx(0.95, abs=0.015)
    assert critical_repetitions(np.array([-1.0, 0.5, -0.2]))["estimate"] == math.inf


def test_a_lead_far_above_its_noise_shows_after_one_deal_not_zero():
    """(1.645 x 0.5 / 3)^2 = 0.08 of a deal: printed as 1, the fewest deals there are."""
    out = critical_repetitions(np.random.default_rng(5).normal(3.0, 0.5, 1_000))
    assert out["estimate"] < 0.1
    assert deals_text(out["estimate"]) == "1" and deals_text(112.4) == "112"


@given(st.lists(st.floats(-600, 600), min_size=2, max_size=5))
@settings(max_examples=60, deadline=None)
def test_elo_ladder_recovers_the_ratings_that_made_the_shares(ratings):
    """Shares made from known ratings (the logistic Elo curve, every pair) give back the
    ratings, the weakest at 0, and the span in 75%-win steps."""
    names = [f"p{i}" for i in range(len(ratings))]
    pairs = [(names[i], names[j], 1.0 / (1.0 + 10 ** ((ratings[j] - ratings[i]) / 400.0)))
             for i, j in itertools.combinations(range(len(names)), 2)]
    out = elo_ladder(pairs)
    low = min(ratings)
    for name, r in zip(names, ratings, strict=True):
        assert out["ratings"][name] == pytest.approx(r - low, abs=1e-6)
    assert out["steps"] == pytest.approx((max(ratings) - low) / STEP_ELO, abs=1e-9)


def test_one_75_percent_win_is_one_step():
    assert elo_ladder([("careful", "greedy", 0.75)])["steps"] == pytest.approx(1.0)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: elo_ladder([("a", "b", 1.0)]), "strictly between 0 and 1"),
    (lambda: variance_shares(pl.DataFrame({"deal_id": [1, 2], "score": [1.0, 2.0]})), "no column 'seat'"),
    (lambda: relative_skill(pl.DataFrame({"deal_id": [1, 2], "policy": ["a", "b"], "score": [1.0, 2.0]}),
                            "a", "b", "oracle"), "no rows of policy 'oracle'"),
    (lambda: critical_repetitions(np.array([1.0, 2.0]), level=1.5), "level must be between"),
])
def test_bad_input_gets_one_clear_message(call, message):
    with pytest.raises(SimError, match=message):
        call()
