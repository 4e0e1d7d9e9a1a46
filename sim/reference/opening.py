"""Brute-force reference for the opening solver: exhaustive search over the ways to split
a small rack into melds (T-MELD-1..4, T-VAL-1, T-OPEN-4, T-TAKE-2, K-MELD-2, K-VAR).

The search takes the lowest numbered tile still undecided and tries every meld that
holds it, and leaving it out; memoised on what is left of the rack. Exponential, meant
for racks of a dozen tiles or so.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator

from sim.games import DEFAULT_PRESET, preset
from sim.rules import Rules
from sim.tiles import JOKER, KINDS, NUMBERS, Meld, colour_of, kind, number_of

NO_OPENING = -1  # "no lay-down meets the demand" (a forced tile that fits no meld)

Rem = tuple[int, ...]


def _take(rem: Rem, kinds: list[int], jokers: int) -> Rem | None:
    out = list(rem)
    for k in kinds:
        out[k] -= 1
        if out[k] < 0:
            return None
    out[JOKER] -= jokers
    if out[JOKER] < 0:
        return None
    return tuple(out)


def _run_windows(number: int, wrap: bool) -> Iterator[list[int]]:
    """The number sequences of the runs through ``number`` (T-MELD-1; K-VAR wrap_runs)."""
    if not wrap:
        for a in range(1, number + 1):
            for b in range(max(number, a + 2), NUMBERS + 1):
                yield list(range(a, b + 1))
        return
    for length in range(3, NUMBERS + 1):
        for offset in range(length):
            start = (number - 1 - offset) % NUMBERS
            yield [(start + i) % NUMBERS + 1 for i in range(length)]


def melds_with(rem: Rem, t: int, rules: Rules) -> Iterator[tuple[Meld, Rem]]:
    """Every meld holding the numbered tile ``t`` that ``rem`` can supply, with what is left."""
    col, num = colour_of(t), number_of(t)
    # Runs: every window through num; every other position a tile of the rack or a joker.
    for window in _run_windows(num, rules.wrap_runs):
        others = [n for n in window if n != num]
        for n_jokers in range(min(rem[JOKER], len(others)) + 1):
            for joker_at in itertools.combinations(others, n_jokers):
                reals = [t] + [kind(col, n) for n in others if n not in joker_at]
                left = _take(rem, reals, n_jokers)
                if left is None:
                    continue
                tiles = tuple(kind(col, n) for n in window)
                yield Meld("run", tiles, tuple(n in joker_at for n in window)), left
    # Sets: t with other colours as tiles, jokers standing for colours not present.
    other_colours = [c for c in range(4) if c != col]
    for size in (3, 4):
        for n_real in range(0, size):
            jokers = size - 1 - n_real
            if size == 3 and jokers > rules.group_of_three_max_jokers:
                continue
            for reals in itertools.combinations(other_colours, n_real):
                left = _take(rem, [t] + [kind(c, num) for c in reals], jokers)
                if left is None:
                    continue
                present = {col, *reals}
                stand_in = [c for c in range(4) if c not in present][:jokers]
                cells = sorted([(c, False) for c in present] + [(c, True) for c in stand_in])
                yield Meld("set", tuple(kind(c, num) for c, _ in cells), tuple(j for _, j in cells)), left


def _lowest(rem: Rem) -> int | None:
    numbered = [k for k in range(KINDS) if rem[k]]
    return min(numbered, key=lambda k: (number_of(k), colour_of(k))) if numbered else None


def best_value(counts, rules: Rules | None = None, must_use: int | None = None) -> int:
    """Largest melds value of the rack; ``NO_OPENING`` if ``must_use`` fits no meld."""
    rules = rules or preset(DEFAULT_PRESET)
    rem = tuple(int(x) for x in counts)

    @functools.cache
    def best(rem: Rem, need_left: bool) -> float:
        """Best value of melds from ``rem``; with ``need_left`` some tile must stay unused."""
        t = _lowest(rem)
        if t is None:  # only jokers left: they cannot meld alone (T-MELD-4)
            return float("-inf") if need_left and rem[JOKER] == 0 else 0
        without = list(rem)
        without[t] -= 1
        result = best(tuple(without), False)  # t stays on the rack
        for meld, left in melds_with(rem, t, rules):
            result = max(result, meld.value + best(left, need_left))
        return result

    keep = rules.keep_discard
    if must_use is None:
        return int(best(rem, keep))
    result = float("-inf")
    for meld, left in melds_with(rem, must_use, rules):
        result = max(result, meld.value + best(left, keep))
    return NO_OPENING if result == float("-inf") else int(result)


def most_pairs(counts, rules: Rules | None = None, must_use: int | None = None) -> int:
    """Most pairs (T-MELD-3: two equal tiles, or a tile and a joker), searched exhaustively."""
    rules = rules or preset(DEFAULT_PRESET)
    rem = tuple(int(x) for x in counts)

    @functools.cache
    def best(rem: Rem, need_left: bool) -> float:
        t = _lowest(rem)
        if t is None:  # jokers cannot pair with each other
            return float("-inf") if need_left and rem[JOKER] == 0 else 0
        result = best(_take(rem, [t], 0), False)
        for partner in (t, JOKER):
            left = _take(rem, [t, partner], 0)
            if left is not None:
                result = max(result, 1 + best(left, need_left))
        return result

    if must_use is None:
        return int(best(rem, rules.keep_discard))
    result = float("-inf")
    for partner in (must_use, JOKER):
        left = _take(rem, [must_use, partner], 0)
        if left is not None:
            result = max(result, 1 + best(left, rules.keep_discard))
    return 0 if result == float("-inf") else int(result)
