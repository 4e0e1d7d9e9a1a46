"""Sets at one number (T-MELD-2, K-MELD-1, K-MELD-2): which tiles of that number, and how
many jokers, can be laid down together as sets.

For every count pattern of the four colours at one number (3**4 = 81 patterns) this
module lists the *set options*: how many tiles of each colour go into sets, how many
jokers join them, and one way to split them into sets. Feasibility is decided by plain
exhaustive search, once, in Python. A set has 3 or 4 tiles of different colours and at
least one numbered tile (T-MELD-4); ``group_of_three_max_jokers`` caps jokers in a set
of three (1 in Rummikub, K-MELD-2).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from sim.tiles import MAX_JOKERS

COLOUR_COUNT = 4
PATTERNS_AT_NUMBER = 3**COLOUR_COUNT


def number_pattern(per_colour) -> int:
    """Code of the counts of the four colours at one number: ``sum(count[c] * 3**c)``."""
    return int(sum(int(n) * 3**c for c, n in enumerate(per_colour)))


@dataclass(frozen=True)
class SetOptions:
    """Set options of all 81 patterns as flat arrays for numba.

    Options of pattern ``p`` are rows ``ptr[p]`` to ``ptr[p + 1]`` of ``use`` (tiles of
    each colour taken, shape (n, 4)), ``jokers`` and ``tiles`` (numbered + jokers); the
    last row of every pattern is "no set". ``min_jokers[p]`` is the fewest jokers any real
    option needs (99 if none). ``splits[row]`` is one way to lay the option down: a tuple
    of sets, each ``(colours, jokers)``.
    """

    ptr: np.ndarray
    use: np.ndarray
    jokers: np.ndarray
    tiles: np.ndarray
    min_jokers: np.ndarray
    splits: tuple


def _set_shapes(g3max: int) -> list[tuple[tuple[int, ...], int]]:
    shapes = []
    for size in (3, 4):
        for reals in range(1, size + 1):
            jokers = size - reals
            if size == 3 and jokers > g3max:
                continue
            for colours in itertools.combinations(range(COLOUR_COUNT), reals):
                shapes.append((colours, jokers))
    return shapes


@functools.cache
def set_options(g3max: int) -> SetOptions:
    """All set options for a cap of ``g3max`` jokers in a set of three."""
    shapes = _set_shapes(g3max)

    @functools.cache
    def split(use: tuple[int, ...], jokers: int):
        """One way to lay ``use`` and ``jokers`` down as sets, or None (exhaustive search)."""
        if not any(use):
            return () if jokers == 0 else None
        first = next(c for c in range(COLOUR_COUNT) if use[c])  # some set must take it
        for colours, j in shapes:
            if first not in colours or j > jokers or any(use[c] == 0 for c in colours):
                continue
            rest = tuple(u - (c in colours) for c, u in enumerate(use))
            tail = split(rest, jokers - j)
            if tail is not None:
                return ((colours, j), *tail)
        return None

    ptr = [0]
    use_rows, joker_rows, splits, min_jokers = [], [], [], []
    for p in range(PATTERNS_AT_NUMBER):
        have = [(p // 3**c) % 3 for c in range(COLOUR_COUNT)]
        options = []
        for use in itertools.product(*(range(h + 1) for h in have)):
            for jokers in range(MAX_JOKERS + 1):
                if not any(use):
                    continue
                s = split(tuple(use), jokers)
                if s is not None:
                    options.append((sum(use) + jokers, use, jokers, s))
        # Most tiles first: the search meets a good answer early.
        options.sort(key=lambda o: (-o[0], o[2]))
        options.append((0, (0, 0, 0, 0), 0, ()))
        for _, use, jokers, s in options:
            use_rows.append(use)
            joker_rows.append(jokers)
            splits.append(s)
        min_jokers.append(min((o[2] for o in options[:-1]), default=99))
        ptr.append(len(use_rows))
    use = np.array(use_rows, dtype=np.int64)
    jokers = np.array(joker_rows, dtype=np.int64)
    return SetOptions(
        ptr=np.array(ptr, dtype=np.int64),
        use=use,
        jokers=jokers,
        tiles=use.sum(axis=1) + jokers,
        min_jokers=np.array(min_jokers, dtype=np.int64),
        splits=tuple(splits),
    )
