"""Brute-force reference for the Rummikub table solver (K-PLAY-1, K-JOKER-1/2, K-MELD-1/2,
K-VAR): the most a rack can place onto a table that may be rebuilt as a whole.

Every tile on the table must stay on it (K-JOKER-2), so the table's tiles are
*mandatory* and the rack's *optional*. The search takes the lowest mandatory tile and
tries every meld that holds it (the other tiles taken from the table first: two copies
of a tile are the same tile), then the mandatory jokers, then the rack alone, memoised
on what is left. With ``locked_jokers`` a meld holding a joker is left out, except that
its joker may be freed by the exact tile it stands for, and must then be placed (K-JOKER-1).
Exponential: meant for a dozen or two tiles.
"""

from __future__ import annotations

import functools
import itertools

from sim.reference.opening import melds_with
from sim.rules import Rules
from sim.tiles import COUNTS_LEN, JOKER, KINDS, Meld, number_of

INFEASIBLE = float("-inf")


def _lowest(counts: tuple[int, ...]) -> int | None:
    numbered = [k for k in range(KINDS) if counts[k]]
    return min(numbered, key=lambda k: (number_of(k), k // 13)) if numbered else None


def _split(meld: Meld, mandatory: tuple[int, ...], optional: tuple[int, ...]):
    """Take a meld's tiles from the mandatory ones first; what is left of each, and the
    optional tiles used (kinds, jokers as JOKER)."""
    m, o = list(mandatory), list(optional)
    used: list[int] = []
    for k, is_joker in zip(meld.tiles, meld.jokers, strict=True):
        kind = JOKER if is_joker else k
        if m[kind] > 0:
            m[kind] -= 1
        elif o[kind] > 0:
            o[kind] -= 1
            used.append(kind)
        else:
            return None
    return tuple(m), tuple(o), used


def best_play(table_counts, rack_counts, rules: Rules, objective: str = "value",
              locked: list[Meld] | None = None) -> float:
    """The most value (or tiles) the rack can place; 0 when nothing can be placed but the
    table stands; ``INFEASIBLE`` when the table itself is no valid arrangement.

    ``table_counts`` holds the table's loose tiles (the melds that may be rebuilt);
    ``locked`` the melds frozen by ``locked_jokers``, which are not in ``table_counts``.
    """

    def worth(kind: int) -> int:
        if objective == "tiles":
            return 1
        return rules.joker_penalty if kind == JOKER else number_of(kind)

    @functools.cache
    def best(mandatory: tuple[int, ...], optional: tuple[int, ...]) -> float:
        t = _lowest(mandatory)
        if t is None and mandatory[JOKER] == 0:
            return best_rack(optional)
        result = INFEASIBLE
        both = tuple(a + b for a, b in zip(mandatory, optional, strict=True))
        starts = [t] if t is not None else [k for k in range(KINDS) if optional[k]]  # a joker needs company
        for s in starts:
            for meld, _ in melds_with(both, s, rules):
                if t is None and not any(meld.jokers):
                    continue
                split = _split(meld, mandatory, optional)
                if split is None:
                    continue
                m, o, used = split
                if t is None and m[JOKER] == mandatory[JOKER]:
                    continue  # it must place a mandatory joker
                rest = best(m, o)
                if rest != INFEASIBLE:
                    result = max(result, sum(worth(k) for k in used) + rest)
        return result

    @functools.cache
    def best_rack(optional: tuple[int, ...]) -> float:
        t = _lowest(optional)
        if t is None:
            return 0
        skip = list(optional)
        skip[t] -= 1
        result = best_rack(tuple(skip))
        for meld, left in melds_with(optional, t, rules):
            gained = sum(worth(JOKER if j else k) for k, j in zip(meld.tiles, meld.jokers, strict=True))
            result = max(result, gained + best_rack(left))
        return result

    table = tuple(int(x) for x in table_counts)
    rack = tuple(int(x) for x in rack_counts)
    # K-JOKER-1 with locked jokers: each frozen joker may be freed by its exact tile.
    frees = [k for meld in (locked or []) for k, j in zip(meld.tiles, meld.jokers, strict=True) if j]
    result = INFEASIBLE
    for chosen in itertools.chain.from_iterable(itertools.combinations(range(len(frees)), n)
                                                for n in range(len(frees) + 1)):
        r, t, gained = list(rack), list(table), 0
        for i in chosen:
            r[frees[i]] -= 1
            t[JOKER] += 1
            gained += worth(frees[i])
        if min(r) < 0:
            continue
        got = best(tuple(t), tuple(r))
        if got != INFEASIBLE:
            result = max(result, gained + got)
    return result


def meld_counts(melds: list[Meld]) -> list[int]:
    """The tiles of some melds as a count vector (jokers at ``JOKER``)."""
    counts = [0] * COUNTS_LEN
    for m in melds:
        for k, j in zip(m.tiles, m.jokers, strict=True):
            counts[JOKER if j else k] += 1
    return counts
