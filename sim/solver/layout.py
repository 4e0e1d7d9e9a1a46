"""Melds as integer rows, and laying out the melds behind a solver answer (numba).

A meld row has :data:`MELD_FIELDS` integers ``(kind, key, first, length, colours, jokers)``:

- run: ``kind`` :data:`RUN`, ``key`` the colour, ``first`` its lowest number, ``length``
  its tiles (numbers go on from 13 to 1 where runs wrap), ``jokers`` bit n-1 set where a
  joker stands for number n;
- set: :data:`SET`, ``key`` the number, ``colours`` bit c for every colour present,
  ``jokers`` bit c for the colours jokers stand for;
- pair: :data:`PAIR`, ``key`` the tile kind, ``jokers`` 1 when one of the two is a joker.

The engine keeps the table in this form; :func:`to_meld` turns a row into a
:class:`~sim.tiles.Meld` for people and for the referee.
"""

from __future__ import annotations

from sim.jit import I1, I2, I32_2, boolean, i64, kernel
from sim.solver.runs import AUTOMATON, MOVES, RUN_SPACE, best_runs
from sim.tiles import KINDS, NUMBERS, Meld, kind

RUN, SET, PAIR = 0, 1, 2
MELD_FIELDS = 6
F_KIND, F_KEY, F_FIRST, F_LEN, F_COLOURS, F_JOKERS = range(MELD_FIELDS)
MAX_LAID = 40  # melds one lay-down can hold


@kernel(I1, I1, i64, boolean, I1, I2, I2, *AUTOMATON, *MOVES, I32_2, RUN_SPACE, I2, entry=True)
def lay_out(counts, leaf, forced_kind, cyclic, nsets, set_colours, set_jokers, states, tptr,
            tto, tdj, tk, tnoend, mends, mstarts, mgive, run_table, space, out):
    """Write the melds of a solver leaf (see :func:`sim.solver.kernel.search`) into
    ``out`` as meld rows; returns how many. ``space`` comes from
    :func:`sim.solver.runs.new_run_space`; ``run_table`` tells which colours hold no runs
    at all, so that they are not searched again (jit-compiled)."""
    runs, remaining, counts13 = space[8], space[9], space[10]
    for k in range(KINDS):
        remaining[k] = counts[k]
    count = 0
    forced_in_set = False
    for n in range(NUMBERS):
        r = leaf[n]
        if r < 0:
            continue
        for s in range(nsets[r]):
            colours = set_colours[r, s]
            jokers = set_jokers[r, s]
            jmask = 0
            for c in range(4):  # jokers stand for the first colours missing
                if jokers > 0 and not (colours >> c) & 1:
                    jmask |= 1 << c
                    jokers -= 1
            size = 0
            for c in range(4):
                if (colours >> c) & 1:
                    remaining[c * NUMBERS + n] -= 1
                    size += 1
                    if c * NUMBERS + n == forced_kind:
                        forced_in_set = True
            out[count, F_KIND] = SET
            out[count, F_KEY] = n + 1
            out[count, F_FIRST] = 0
            out[count, F_LEN] = size + set_jokers[r, s]
            out[count, F_COLOURS] = colours | jmask
            out[count, F_JOKERS] = jmask
            count += 1
    for col in range(4):
        any_tile = False
        for n in range(NUMBERS):
            counts13[n] = remaining[col * NUMBERS + n]
            any_tile = any_tile or counts13[n] > 0
        if not any_tile:
            continue
        fpos = 0
        if forced_kind >= 0 and forced_kind // NUMBERS == col and not forced_in_set:
            fpos = forced_kind % NUMBERS + 1
        jokers = leaf[NUMBERS + col]
        if not cyclic and fpos == 0 and jokers <= run_table.shape[1] - 1:
            pattern = 0
            for n in range(NUMBERS - 1, -1, -1):
                pattern = pattern * 3 + counts13[n]
            if run_table[pattern, jokers] == 0:
                continue  # nothing of this colour makes a run
        nruns, _ = best_runs(counts13, jokers, fpos, cyclic, states, tptr, tto, tdj,
                             tk, tnoend, mends, mstarts, mgive, space, runs)
        for i in range(nruns):
            out[count, F_KIND] = RUN
            out[count, F_KEY] = col
            out[count, F_FIRST] = runs[i, 0]
            out[count, F_LEN] = runs[i, 1]
            out[count, F_COLOURS] = 1 << col
            out[count, F_JOKERS] = runs[i, 2]
            count += 1
    return count


def to_meld(row) -> Meld:
    """A meld row as a :class:`~sim.tiles.Meld` (tiles in order, jokers marked)."""
    k, key, first, length, colours, jokers = (int(x) for x in row[:MELD_FIELDS])
    if k == RUN:
        nums = [(first - 1 + i) % NUMBERS + 1 for i in range(length)]
        flags = tuple(bool((jokers >> (n - 1)) & 1) for n in nums)
        return Meld("run", tuple(kind(key, n) for n in nums), flags)
    if k == SET:
        cols = [c for c in range(4) if (colours >> c) & 1]
        return Meld("set", tuple(kind(c, key) for c in cols), tuple(bool((jokers >> c) & 1) for c in cols))
    return Meld("pair", (key, key), (False, bool(jokers)))


def meld_row(meld: Meld) -> tuple[int, ...]:
    """A :class:`~sim.tiles.Meld` (a run or a set) as a meld row: :func:`to_meld`'s inverse."""
    from sim.tiles import colour_of, number_of

    if meld.kind == "run":
        first = number_of(meld.tiles[0])
        jokers = sum(1 << (number_of(k) - 1) for k, j in zip(meld.tiles, meld.jokers, strict=True) if j)
        c = colour_of(meld.tiles[0])
        return (RUN, c, first, len(meld.tiles), 1 << c, jokers)
    if meld.kind == "set":
        colours = sum(1 << colour_of(k) for k in meld.tiles)
        jokers = sum(1 << colour_of(k) for k, j in zip(meld.tiles, meld.jokers, strict=True) if j)
        return (SET, number_of(meld.tiles[0]), 0, len(meld.tiles), colours, jokers)
    raise ValueError(f"{meld.kind}: only runs and sets are meld rows of the tile table")
