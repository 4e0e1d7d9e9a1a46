"""Melds of the tile games as the rules see them: whether a run or a set is valid under the
rules in force (T-MELD-1..4, K-MELD-1/2, K-VAR ``wrap_runs``). Plain Python, shared by the
Python faces of the solvers, the referees and the tests."""

from __future__ import annotations

import itertools

from sim.rules import Rules
from sim.tiles import NUMBERS, Meld, colour_of, number_of


def check_meld(meld: Meld, rules: Rules) -> str | None:
    """Why ``meld`` is not a valid run or set under ``rules``, or None if it is."""
    tiles = list(meld.tiles)
    if all(meld.jokers):
        return "a meld needs a numbered tile (T-MELD-4)"
    if meld.kind == "set":
        if len(tiles) not in (3, 4):
            return "a set has 3 or 4 tiles (T-MELD-2)"
        if len({number_of(k) for k in tiles}) != 1:
            return "a set has one number"
        if len({colour_of(k) for k in tiles}) != len(tiles):
            return "a set has different colours"
        if len(tiles) == 3 and meld.joker_count > rules.group_of_three_max_jokers:
            return "too many jokers in a group of three (K-MELD-2)"
        return None
    if meld.kind == "run":
        if not 3 <= len(tiles) <= NUMBERS:
            return "a run has 3 to 13 tiles (T-MELD-1)"
        if len({colour_of(k) for k in tiles}) != 1:
            return "a run has one colour"
        nums = [number_of(k) for k in tiles]
        for a, b in itertools.pairwise(nums):
            if b == a + 1 or (rules.wrap_runs and a == NUMBERS and b == 1):
                continue
            return f"{a} is not followed by {b} in a run (T-MELD-1)"
        return None
    return f"unknown meld kind {meld.kind}"
