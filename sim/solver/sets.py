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
    each colour taken, shape (n, 4)), ``jokers`` and ``tiles`` (numbered + jokers), in
    order of jokers needed, so a search with j jokers left stops at the first row needing
    more; "no set" is the last row needing none. ``from_number[row]`` is the lowest number
    where the option can beat runs (see :func:`_from_number`); ``min_jokers[p, n-1]`` is
    the fewest jokers any useful option at number n needs (99 if none). ``splits[row]``
    is one way to lay the option down: a tuple of sets, each ``(colours, jokers)``, also
    as arrays for numba: ``nsets[row]``, ``set_colours[row, i]`` (bit mask of colours)
    and ``set_jokers[row, i]``.
    """

    ptr: np.ndarray
    use: np.ndarray
    jokers: np.ndarray
    tiles: np.ndarray
    from_number: np.ndarray
    min_jokers: np.ndarray
    splits: tuple
    nsets: np.ndarray
    set_colours: np.ndarray
    set_jokers: np.ndarray


def _from_number(use: tuple[int, ...], jokers: int) -> int:
    """Lowest number at which a set option is not beaten by runs of the same tiles.

    One numbered tile with jokers as a set of n's is worth (1 + j) * n; the same tile
    with the same jokers as a run from n upwards is worth more wherever it fits below 13
    (R5 J J: set 15, run R5-J(R6)-J(R7) 18). The runs are always available to the run
    automaton, so such a set option can only matter near the top.
    """
    if sum(use) != 1 or jokers == 0:
        return 1
    size = 1 + jokers
    for n in range(1, 14):
        top_run = max(sum(range(a, a + size)) for a in range(max(1, n - size + 1), min(n, 14 - size) + 1))
        if size * n > top_run:
            return n
    return 14


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
    use_rows, joker_rows, from_rows, splits, min_jokers = [], [], [], [], []
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
        # By jokers needed, then most tiles first: a good answer comes early.
        options.append((0, (0, 0, 0, 0), 0, ()))
        options.sort(key=lambda o: (o[2], o[0] == 0, -o[0]))
        for _, use, jokers, s in options:
            use_rows.append(use)
            joker_rows.append(jokers)
            splits.append(s)
            from_rows.append(_from_number(use, jokers))
        min_jokers.append([
            min((o[2] for o in options if o[0] and _from_number(o[1], o[2]) <= n), default=99)
            for n in range(1, 14)
        ])
        ptr.append(len(use_rows))
    use = np.array(use_rows, dtype=np.int64)
    most = max(len(x) for x in splits)
    set_colours = np.zeros((len(splits), most), dtype=np.int64)
    set_jokers = np.zeros((len(splits), most), dtype=np.int64)
    for row, split_ in enumerate(splits):
        for i, (colours, j) in enumerate(split_):
            set_colours[row, i] = sum(1 << c for c in colours)
            set_jokers[row, i] = j
    jokers = np.array(joker_rows, dtype=np.int64)
    return SetOptions(
        ptr=np.array(ptr, dtype=np.int64),
        use=use,
        jokers=jokers,
        tiles=use.sum(axis=1) + jokers,
        from_number=np.array(from_rows, dtype=np.int64),
        min_jokers=np.array(min_jokers, dtype=np.int64),
        splits=tuple(splits),
        nsets=np.array([len(x) for x in splits], dtype=np.int64),
        set_colours=set_colours,
        set_jokers=set_jokers,
    )
