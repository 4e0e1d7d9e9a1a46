"""The table play's entries from Python (:func:`sim.table_play`): :func:`.tableturn.best_play`
with its work arrays passed one by one, and the same on a table and a rack read from their
text in the kernel (:func:`play_text`: reading the text and building the answer in Python
cost about 60 times the solve, issue 26). A module of its own so that the round engine,
which calls ``best_play`` from numba, does not compile it."""

from __future__ import annotations

import numpy as np

from sim.games.rummikub.tablesolver import OUT_ROWS, SPACE
from sim.games.rummikub.tableturn import FREED_LEN, add_row, best_play
from sim.jit import I1, I2, I3, I8_1, boolean, i64, kernel
from sim.solver.layout import F_COLOURS, F_FIRST, F_JOKERS, F_KEY, F_KIND, F_LEN, MELD_FIELDS, RUN, SET
from sim.tiles import COPIES, JOKER, KINDS, NUMBERS, SET_JOKERS


@kernel(I1, I2, i64, i64, i64, i64, boolean, boolean, boolean, SPACE, I1, I1, I1, I1, I1, I2, I2, I1, I1, I2,
        entry=True)
def play(rack, table, ntable, objective, joker_value, g3max, cyclic, locked, bound, ts, base, loose, r, placed,
         pins, out, best_rows, best_placed, freed, new_table):
    """:func:`.tableturn.best_play` called from Python (``sim.table_play``), for every rack
    tile (``use_jokers``) and no tile it must place, its work arrays passed one by one
    (:data:`.tableturn.WORK`, :func:`buffer_views`) (jit-compiled)."""
    return best_play(rack, table, ntable, objective, joker_value, g3max, cyclic, locked, bound, ts,
                     (base, loose, r, placed, pins, out, best_rows, best_placed, freed, new_table), True, -1, 0)


# --- the table and the rack read from text (sim.table_play's quick path) ---------------------------

# A text this reader does not take (a plain joker in a meld, a pair, a meld beyond the rules,
# more copies than the set holds, any other character): Python reads it and names the fault.
NOT_READ = -3
_COLOUR_LETTERS = (82, 66, 75, 89)  # R B K Y (upper case; lower case is 32 more)


@kernel(I8_1, i64, i64, I1, counted=False)
def _read_tile(text, start, end, out):
    """The tile ``text[start:end]``: ``out[0]`` its kind (JOKER for a plain ``J``),
    ``out[1]`` 1 for a joker written with its tile (``J(R6)``, ``out[0]`` that tile);
    returns False for anything else (jit-compiled)."""
    joker = 0
    if end - start == 1 and (text[start] == 74 or text[start] == 106):  # J
        out[0] = JOKER
        out[1] = 0
        return True
    if end - start >= 5 and (text[start] == 74 or text[start] == 106) and text[start + 1] == 40 \
            and text[end - 1] == 41:  # J( ... )
        joker = 1
        start += 2
        end -= 1
    if end - start < 2 or end - start > 3:
        return False
    colour = -1
    for c in range(4):
        if text[start] == _COLOUR_LETTERS[c] or text[start] == _COLOUR_LETTERS[c] + 32:
            colour = c
    if colour < 0:
        return False
    number = 0
    for i in range(start + 1, end):
        if text[i] < 48 or text[i] > 57:
            return False
        number = number * 10 + text[i] - 48
    if number < 1 or number > NUMBERS:
        return False
    out[0] = colour * NUMBERS + number - 1
    out[1] = joker
    return True


@kernel(inline=True)
def _separator(ch):
    return ch == 32 or ch == 9 or ch == 10 or ch == 13 or ch == 44  # space, tab, newlines, comma


@kernel(I8_1, i64, i64, I1, I1, I1, counted=False)
def _meld_tiles_of(text, start, end, kinds, jokers, tile):
    """The tiles of the meld ``text[start:end]`` in ``kinds`` and ``jokers`` (each written
    with its tile); returns how many, 0 for a part holding only spaces, -1 for a text not
    read here (a comma alone, a plain joker, more than 13 tiles); ``tile``: scratch of two
    (jit-compiled)."""
    count = 0
    i = start
    commas = False
    while i < end:
        if _separator(text[i]):
            commas = commas or text[i] == 44
            i += 1
            continue
        j = i
        while j < end and not _separator(text[j]):
            j += 1
        if count == NUMBERS or not _read_tile(text, i, j, tile) or tile[0] == JOKER:
            return -1
        kinds[count] = tile[0]
        jokers[count] = tile[1]
        count += 1
        i = j
    return -1 if count == 0 and commas else count


@kernel(I1, I1, i64, i64, boolean, I1, counted=False)
def _meld_row_of(kinds, jokers, count, g3max, cyclic, row):
    """The meld row (:mod:`sim.solver.layout`) of tiles written in order, if they make a
    valid run or group under the rules (K-MELD-1/2, wrap_runs): returns False otherwise
    (jit-compiled)."""
    if count < 3:
        return False  # a pair is no Rummikub meld; fewer is no meld
    n_jokers = 0
    same_number = True
    same_colour = True
    for q in range(count):
        n_jokers += jokers[q]
        same_number = same_number and kinds[q] % NUMBERS == kinds[0] % NUMBERS
        same_colour = same_colour and kinds[q] // NUMBERS == kinds[0] // NUMBERS
    if n_jokers == count:
        return False  # a meld needs a numbered tile
    if same_number:
        if count > 4 or (count == 3 and n_jokers > g3max):
            return False
        colours = 0
        joker_bits = 0
        for q in range(count):
            bit = 1 << (kinds[q] // NUMBERS)
            if colours & bit:
                return False  # a group has different colours
            colours |= bit
            if jokers[q]:
                joker_bits |= bit
        row[F_KIND] = SET
        row[F_KEY] = kinds[0] % NUMBERS + 1
        row[F_FIRST] = 0
        row[F_LEN] = count
        row[F_COLOURS] = colours
        row[F_JOKERS] = joker_bits
        return True
    if not same_colour:
        return False
    joker_bits = 0
    for q in range(count):
        m = kinds[q] % NUMBERS + 1
        if q > 0:
            before = kinds[q - 1] % NUMBERS + 1
            if not (m == before + 1 or (cyclic and before == NUMBERS and m == 1)):
                return False
        if jokers[q]:
            joker_bits |= 1 << (m - 1)
    row[F_KIND] = RUN
    row[F_KEY] = kinds[0] // NUMBERS
    row[F_FIRST] = kinds[0] % NUMBERS + 1
    row[F_LEN] = count
    row[F_COLOURS] = 1 << (kinds[0] // NUMBERS)
    row[F_JOKERS] = joker_bits
    return True


@kernel(I8_1, I8_1, i64, boolean, I2, I1, I1)
def read_text(table_text, rack_text, g3max, cyclic, rows, rack, total):
    """The table (melds parted by ``;``) as meld rows in ``rows`` and the rack as counts in
    ``rack``, read from their text as :func:`sim.table_play` reads them when every meld is
    valid under the rules and no tile is written more often than the set holds: returns
    the number of melds, or :data:`NOT_READ` (jit-compiled)."""
    kinds = np.empty(NUMBERS, dtype=np.int64)
    jokers = np.empty(NUMBERS, dtype=np.int64)
    tile = np.empty(2, dtype=np.int64)
    rack[:] = 0
    i = 0
    n = rack_text.shape[0]
    while i < n:
        if _separator(rack_text[i]):
            i += 1
            continue
        j = i
        while j < n and not _separator(rack_text[j]):
            j += 1
        if not _read_tile(rack_text, i, j, tile) or tile[1]:
            return NOT_READ
        rack[tile[0]] += 1
        i = j
    for k in range(KINDS + 1):
        total[k] = rack[k]
    melds = 0
    start = 0
    n = table_text.shape[0]
    for end in range(n + 1):
        if end < n and table_text[end] != 59:  # ;
            continue
        count = _meld_tiles_of(table_text, start, end, kinds, jokers, tile)
        start = end + 1
        if count == 0:
            continue
        if count < 0 or melds == rows.shape[0] or not _meld_row_of(kinds, jokers, count, g3max, cyclic, rows[melds]):
            return NOT_READ
        add_row(rows[melds], total, 1)
        melds += 1
    for k in range(KINDS):
        if total[k] > COPIES:
            return NOT_READ
    if total[KINDS] > SET_JOKERS:
        return NOT_READ
    return melds


@kernel(I1, i64)
def placed_value(placed, joker_value):
    """``(value, tiles)`` of the rack tiles ``placed`` (a count vector): each tile at its
    number, a joker at ``joker_value`` (K-END-1) (jit-compiled)."""
    value = placed[KINDS] * joker_value
    tiles = placed[KINDS]
    for k in range(KINDS):
        value += placed[k] * (k % NUMBERS + 1)
        tiles += placed[k]
    return value, tiles


# play_text's arrays in one buffer: a call from Python types every array it is given, and
# thirteen cost it about 8 us, half the solve. By offset: best_play's work arrays
# (tableturn.WORK), then the melds read, the rack read and every tile (read_text).
_N = KINDS + 1
_ROWS = OUT_ROWS * MELD_FIELDS
_AT = tuple(int(x) for x in np.cumsum((0, _N, _N, _N, _N, _N, _ROWS, _ROWS, _N, FREED_LEN, _ROWS, _ROWS, _N, _N)))
BUFFER = _AT[-1]
_SHAPED = (5, 6, 9, 10)  # the meld rows among them


def buffer_views(buffer: np.ndarray) -> tuple[tuple, tuple]:
    """The arrays of a :data:`BUFFER`-long buffer as :func:`play_text` sees them:
    (best_play's work arrays, (melds read, rack read, every tile))."""
    views = [buffer[_AT[i]:_AT[i + 1]] for i in range(len(_AT) - 1)]
    for i in _SHAPED:
        views[i] = views[i].reshape(OUT_ROWS, MELD_FIELDS)
    return tuple(views[:10]), tuple(views[10:])


@kernel(I8_1, I8_1, i64, i64, i64, boolean, boolean, boolean, SPACE, I1, entry=True)
def play_text(table_text, rack_text, objective, joker_value, g3max, cyclic, locked, bound, ts, buffer):
    """:func:`play` on a table and a rack given as text (:func:`read_text`), its arrays in
    ``buffer`` (:func:`buffer_views`): returns
    ``(weight, rows after, value, tiles)``, the value and tiles placed as
    :func:`placed_value` counts them, the weight :data:`NOT_READ` when the text is left to
    Python (jit-compiled)."""
    base, loose, r, placed, pins = (buffer[_AT[0]:_AT[1]], buffer[_AT[1]:_AT[2]], buffer[_AT[2]:_AT[3]],
                                    buffer[_AT[3]:_AT[4]], buffer[_AT[4]:_AT[5]])
    out = buffer[_AT[5]:_AT[6]].reshape((OUT_ROWS, MELD_FIELDS))
    best_rows = buffer[_AT[6]:_AT[7]].reshape((OUT_ROWS, MELD_FIELDS))
    best_placed, freed = buffer[_AT[7]:_AT[8]], buffer[_AT[8]:_AT[9]]
    new_table = buffer[_AT[9]:_AT[10]].reshape((OUT_ROWS, MELD_FIELDS))
    rows = buffer[_AT[10]:_AT[11]].reshape((OUT_ROWS, MELD_FIELDS))
    rack, total = buffer[_AT[11]:_AT[12]], buffer[_AT[12]:_AT[13]]
    melds = read_text(table_text, rack_text, g3max, cyclic, rows, rack, total)
    if melds < 0:
        return np.int64(NOT_READ), 0, 0, 0
    w, n = best_play(rack, rows, melds, objective, joker_value, g3max, cyclic, locked, bound, ts,
                     (base, loose, r, placed, pins, out, best_rows, best_placed, freed, new_table), True, -1, 0)
    value, tiles = placed_value(best_placed, joker_value)
    return w, n, value, tiles


# --- many positions at once (sim.table_plays) -------------------------------------------------------


@kernel(I1, i64, boolean)
def row_ok(row, g3max, cyclic):
    """Whether a meld row is a valid run or group under the rules (K-MELD-1/2, wrap_runs),
    its jokers among its tiles and not all of them (jit-compiled)."""
    length = row[F_LEN]
    jokers = 0
    for b in range(NUMBERS):
        jokers += (row[F_JOKERS] >> b) & 1
    if row[F_JOKERS] < 0 or jokers >= length:
        return False
    if row[F_KIND] == SET:
        colours = 0
        for c in range(4):
            colours += (row[F_COLOURS] >> c) & 1
        return (1 <= row[F_KEY] <= NUMBERS and 3 <= length <= 4 and 0 <= row[F_COLOURS] < 16 and colours == length
                and row[F_JOKERS] & ~row[F_COLOURS] == 0 and (length == 4 or jokers <= g3max))
    if row[F_KIND] == RUN:
        if not (0 <= row[F_KEY] < 4 and 1 <= row[F_FIRST] <= NUMBERS and 3 <= length <= NUMBERS
                and row[F_COLOURS] == 1 << row[F_KEY]):
            return False
        if row[F_FIRST] + length - 1 > NUMBERS and not cyclic:
            return False
        numbers = 0
        for q in range(length):
            numbers |= 1 << ((row[F_FIRST] - 1 + q) % NUMBERS)
        return row[F_JOKERS] & ~numbers == 0
    return False


@kernel(I2, I3, I1, i64, boolean, I1, entry=True)
def check_many(racks, tables, ntables, g3max, cyclic, total):
    """The first position whose table holds a meld that is not valid, or more copies of a
    tile across rack and table than the set holds, or -1 (jit-compiled)."""
    for i in range(racks.shape[0]):
        for k in range(KINDS + 1):
            total[k] = racks[i, k]
            if racks[i, k] < 0:
                return i
        for m in range(ntables[i]):
            if not row_ok(tables[i, m], g3max, cyclic):
                return i
            add_row(tables[i, m], total, 1)
        for k in range(KINDS):
            if total[k] > COPIES:
                return i
        if total[KINDS] > SET_JOKERS:
            return i
    return -1


@kernel(I2, I3, I1, i64, i64, i64, boolean, boolean, boolean, SPACE, I1, I1, I1, I1, I1, I2, I2, I1, I1, I2,
        I1, I1, I2, I3, I1, i64, entry=True)
def play_many(racks, tables, ntables, objective, joker_value, g3max, cyclic, locked, bound, ts, base, loose, r,
              placed, pins, out, best_rows, best_placed, freed, new_table, values, tiles, played, after, nafter,
              start):
    """:func:`play` on each position from ``start`` on (``racks[i]``, the ``ntables[i]``
    first rows of ``tables[i]``): the value and tiles placed, the rack tiles placed and the
    table afterwards (the table as it was when nothing is placed). Returns -1, or the
    position the solver's memory was too small for (make it bigger and go on from there)
    (jit-compiled)."""
    for i in range(start, racks.shape[0]):
        w, n = best_play(racks[i], tables[i], ntables[i], objective, joker_value, g3max, cyclic, locked, bound, ts,
                         (base, loose, r, placed, pins, out, best_rows, best_placed, freed, new_table), True, -1, 0)
        if w == -2:
            return i
        played[i, :] = 0
        if w <= 0:
            values[i] = 0
            tiles[i] = 0
            nafter[i] = ntables[i]
            for m in range(ntables[i]):
                for f in range(after.shape[2]):
                    after[i, m, f] = tables[i, m, f]
            continue
        for k in range(KINDS + 1):
            played[i, k] = best_placed[k]
        values[i], tiles[i] = placed_value(best_placed, joker_value)
        nafter[i] = n
        for m in range(n):
            for f in range(after.shape[2]):
                after[i, m, f] = new_table[m, f]
    return -1
