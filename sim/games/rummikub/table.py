"""The Rummikub table solver (numba): the most value, or the most tiles, a rack can place
on a table that may be rebuilt as a whole (K-PLAY-1), every tile that was on the table
staying on it, jokers included (K-JOKER-2), under K-MELD-1/2 and the ``wrap_runs`` variant.

The table's tiles are *forced* (each must end in a meld), the rack's *optional* (each one
placed earns its weight). A depth-first branch and bound takes the lowest tile left (by
number, then colour) and tries everything that can hold it: extending a run of its colour
that is still open, a new run of three formed from it, a group of its number, and, for a
rack tile, staying on the rack. Two copies of a tile are the same tile, so a meld takes a
table copy before a rack copy, and a table joker before a rack joker. Runs are extended a
tile at a time, as the search reaches the tiles after them, so that how long a run grows
is decided once the tiles are there, not guessed when it is formed. Only arrangements of
a canonical form are searched (see :func:`_options`); every table has one, as good.

Why it is fast on real positions: it seeks only plays worth more than the best so far (at
first, playing nothing: the table as it stands is valid) and drops a branch whose weight,
plus every rack tile left, cannot beat it (rack tiles no meld of the tiles in play could
hold are set aside first; checking that again at every step cost more than it saved).
What is left after a prefix of tiles (the tiles
left, the jokers, the open runs) is the same position whichever melds consumed the
prefix, so an upper bound on each position's best completion is remembered in a hash
table, and a position met again is dropped when that bound cannot beat the best.

``locked_jokers`` is handled by the caller (:mod:`.tableplay`): frozen melds are left out,
and each possible joker retrieval (K-JOKER-1) is one more solve.
"""

from __future__ import annotations

import numpy as np

from sim.jit import I1, I2, boolean, i64, kernel, tuple_of
from sim.solver.layout import F_COLOURS, F_FIRST, F_JOKERS, F_KEY, F_KIND, F_LEN, RUN, SET
from sim.tiles import JOKER, NUMBERS

COLOURS = 4
KINDS = COLOURS * NUMBERS
PRIMARY = 1 << 10  # a rack tile weighs PRIMARY * (objective) + (the other measure): ties broken
MAX_RUN = 5  # runs formed whole (wrap-around runs): longer ones are two
DEPTH = 128  # melds and set-aside tiles on one path: at most the 106 tiles
OPTIONS = 512  # melds one tile can be in
OUT_ROWS = 64  # melds the arrangement may hold (the whole table)
MEMO_BITS = 16  # the remembered positions to start with (2**16 slots, 4 MB)
MAX_MEMO_BITS = 22  # grown by 4 each time a position needs more (up to 256 MB)
_EMPTY = -(1 << 62)
_NO_TABLE = -(1 << 61)  # remembered: no arrangement of the tiles left, whatever the weight
# The key of a position: the tiles left (a word per colour: 4 bits per number, table
# copies and rack copies), the jokers left and the room for free jokers (word 4), and the
# open runs (words 5 and 6: per colour, up to OPEN runs by their end, 8 bits each, largest
# first; where a run starts matters only for the room it leaves free jokers, counted when
# it is formed, see _slots).
KEY = 7
OPEN = 4

# Scratch of one solver (see new_space): the counts left, the path, the options of every
# depth, the remembered bounds, and the best arrangement found.
SPACE = tuple_of(I1, I1, I1, I2, I1, I1, I1, I1, I2, I1, I1, I1, I1)


@kernel(i64, entry=True)
def new_space(memo_bits):
    """Scratch for :func:`solve`, remembering up to 3/4 of ``2**memo_bits`` positions
    (jit-compiled)."""
    memo = 1 << memo_bits
    return (
        np.zeros(KINDS + 1, dtype=np.int64),  # forced (table) tiles left, jokers at KINDS
        np.zeros(KINDS + 1, dtype=np.int64),  # optional (rack) tiles left
        np.zeros(KINDS + 1, dtype=np.int64),  # rack tiles placed on the current path
        np.zeros((DEPTH, OPTIONS), dtype=np.int64),  # options of each depth
        np.zeros(DEPTH, dtype=np.int64),  # options at each depth
        np.zeros(DEPTH, dtype=np.int64),  # the next option to try at each depth
        np.zeros(DEPTH, dtype=np.int64),  # what the applied option took from the rack
        np.zeros(DEPTH, dtype=np.int64),  # weight on entering each depth
        np.zeros((DEPTH, KEY + 1), dtype=np.int64),  # key of each depth's position + its tile
        np.full(memo * (KEY + 1), _EMPTY, dtype=np.int64),  # remembered positions: key + bound
        np.zeros(memo, dtype=np.int64),  # slots used, to clear them
        np.zeros(DEPTH, dtype=np.int64),  # the best path's options
        np.zeros(4, dtype=np.int64),  # memo entries, best path length, positions visited
    )


# Options: 0 leaves the tile on the rack; a group is 1 | colours << 2 | jokers << 6 |
# number << 8; a run is 2 | colour << 2 | first << 4 | length << 8 | joker positions << 11
# (bit q: the q-th tile of the run is a joker).


@kernel(inline=True)
def _number_at(first, q, cyclic):
    m = first + q
    if cyclic and m > NUMBERS:
        m -= NUMBERS
    return m


@kernel(I1, I1, i64, i64, i64, boolean)
def _alive(f, o, k, jokers, g3max, cyclic):
    """Whether a meld holding kind ``k`` can still be formed from the tiles left (table
    ``f`` and rack ``o`` alike) and ``jokers`` (jit-compiled)."""
    c = k // NUMBERS
    n = k % NUMBERS + 1
    others = 0
    for c2 in range(COLOURS):
        k2 = c2 * NUMBERS + n - 1
        if c2 != c and f[k2] + o[k2] > 0:
            others += 1
    if others >= 2 or (others == 1 and jokers >= 1 and g3max >= 1) or (others == 1 and jokers >= 2):
        return True
    if others == 0 and jokers >= 2 and g3max >= 2:
        return True
    for first in range(n - 2, n + 1):
        if not cyclic and (first < 1 or first + 2 > NUMBERS):
            continue
        missing = 0
        for q in range(3):
            m = first + q
            if m < 1:
                m += NUMBERS
            elif m > NUMBERS:
                m -= NUMBERS
            if m != n and f[c * NUMBERS + m - 1] + o[c * NUMBERS + m - 1] == 0:
                missing += 1
        if missing <= jokers:
            return True
    return False


@kernel(I1, i64, I1)
def _read_runs(key, c, runs):
    """The open runs of colour ``c`` (end | start << 4, 0 for none) into ``runs``."""
    field = (key[5 + c // 2] >> (32 * (c % 2))) & 0xFFFFFFFF
    for i in range(OPEN):
        runs[i] = (field >> (8 * i)) & 255


@kernel(I1, i64, I1)
def _write_runs(key, c, runs):
    """Store ``runs`` as colour ``c``'s open runs, largest first (one form per position)."""
    for i in range(1, OPEN):
        v = runs[i]
        j = i
        while j > 0 and runs[j - 1] < v:
            runs[j] = runs[j - 1]
            j -= 1
        runs[j] = v
    field = np.int64(0)
    for i in range(OPEN):
        field |= runs[i] << (8 * i)
    shift = 32 * (c % 2)
    word = 5 + c // 2
    key[word] = (key[word] & ~(np.int64(0xFFFFFFFF) << shift)) | (field << shift)


@kernel(i64)
def _slots(run):
    """Room an open run (its end) leaves above it for free jokers, 2 at most; the room
    below it was counted when it was formed, so runs differing only in where they start
    are one position (jit-compiled)."""
    return min(2, NUMBERS - (run & 15))


@kernel(I1, I1, I1, I1)
def _close_runs(f, o, key, runs):
    """Close the open runs that no tile left can extend: a run ending at e takes a tile
    e + 1, or e + 2 or e + 3 after as many jokers; each closed run leaves room for free
    jokers (jit-compiled)."""
    room = (key[4] >> 4) & 3
    jokers = f[KINDS] + o[KINDS]
    for c in range(COLOURS):
        _read_runs(key, c, runs)
        changed = False
        for i in range(OPEN):
            if runs[i] == 0:
                continue
            end = runs[i] & 15
            open_ = False
            for gap in range(min(2, jokers) + 1):
                m = end + 1 + gap
                if m <= NUMBERS and f[c * NUMBERS + m - 1] + o[c * NUMBERS + m - 1] > 0:
                    open_ = True
                    break
            if not open_:
                room = min(2, room + _slots(runs[i]))
                runs[i] = 0
                changed = True
        if changed:
            _write_runs(key, c, runs)
    key[4] = (key[4] & ~np.int64(48)) | (room << 4)


@kernel(I1, I1, I1, i64, i64, i64, i64, boolean, I1, I1)
def _options(f, o, key, x, jokers, g3max, may_leave, cyclic, runs, out):
    """Every meld that can hold tile ``x``, the lowest left, then (a rack tile) leaving it
    on the rack, written to ``out``; returns how many (jit-compiled).

    Only arrangements of a canonical form are searched; every table has one, as good:
    - a run is formed at its lowest numbered tile with three tiles and extended a tile at
      a time as the search reaches the tiles after it (``runs``: its open runs), a joker
      or two before the tile where its number has no copy left; a run of four or more has
      no joker at an end, and a group of four no joker (take it out: the meld stands, the
      joker is free, and free jokers join melds with room at the end). A run through 13
      and 1 (``wrap_runs``), or any run when five of its colour are open, is formed
      whole, three to five tiles: a longer one is two, and at most one of them wraps;
    - a joker stands only for a tile none of whose copies is left when its meld is formed.
      Else swap it with the copy in the meld formed last: both melds stand, or that meld
      is a group of three holding the other joker where K-MELD-2 allows one, and its other
      tile then makes a run with the two jokers; a copy left on the rack would score more.
    Longer melds come first: they place more, so good plays are found early."""
    c = x // NUMBERS
    n = x % NUMBERS + 1
    count = 0
    longest = MAX_RUN
    _read_runs(key, c, runs)
    previous = -1
    for i in range(OPEN):
        v = runs[i]
        if v == 0:
            longest = 3  # room to keep the run open: formed with three tiles
            continue
        gap = n - 1 - v
        if v != previous and 0 <= gap <= 2 and gap <= jokers:
            out[count] = 3 | (c << 2) | (v << 4) | (gap << 12)
            count += 1
        previous = v
    for length in range(MAX_RUN, 2, -1):
        for p in range(length):
            first = n - p
            wraps = first < 1 or first + length - 1 > NUMBERS
            if wraps and not cyclic:
                continue
            if not wraps and length > longest:
                continue
            if first < 1:
                first += NUMBERS
            need = 0  # positions no tile is left for: jokers
            used = 0
            for q in range(length):
                if q != p:
                    k = c * NUMBERS + _number_at(first, q, cyclic) - 1
                    if f[k] + o[k] == 0:
                        need |= 1 << q
                        used += 1
            ends = 0 if length == 3 else 1 | (1 << (length - 1))
            if used <= jokers and not need & ends:
                out[count] = 2 | (c << 2) | (first << 4) | (length << 8) | (need << 11)
                count += 1
    left = 0  # other colours with a tile of this number left
    for c2 in range(COLOURS):
        k2 = c2 * NUMBERS + n - 1
        if c2 != c and f[k2] + o[k2] > 0:
            left |= 1 << c2
    for size in (4, 3):
        for sub in range(16):
            if (sub & left) != sub or (sub >> c) & 1:
                continue
            colours = sub | (1 << c)
            real = 0
            free = 0  # missing colours with no tile left: jokers may stand for them
            for c2 in range(COLOURS):
                if (colours >> c2) & 1:
                    real += 1
                elif not (left >> c2) & 1:
                    free += 1
            jn = size - real
            if jn < 0 or jn > jokers or jn > free or (size == 3 and jn > g3max) or (size == 4 and jn > 0):
                continue
            out[count] = 1 | (colours << 2) | (jn << 6) | (n << 8)
            count += 1
    if may_leave:
        out[count] = 0
        count += 1
    return count


@kernel(I1, I1, i64)
def _memo_find(memo, key, mask):
    """Slot of position ``key`` (KEY words) in ``memo``, or -1 - the empty slot it would
    take (jit-compiled)."""
    h = np.int64(0)
    for i in range(KEY):
        h = (h ^ key[i]) * np.int64(-7046029254386353131)
    i = (h >> 17) & mask
    while True:
        base = i * (KEY + 1)
        if memo[base + KEY] == _EMPTY:
            return -1 - i
        same = True
        for j in range(KEY):
            if memo[base + j] != key[j]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & mask


@kernel(i64, I1)
def _meld_tiles(opt, tiles):
    """The kinds of the meld of option ``opt`` in ``tiles`` (-1 for a joker); returns its
    size. For a run extended, the tile and the jokers before it (jit-compiled)."""
    if opt & 3 == 3:
        c = (opt >> 2) & 3
        gap = (opt >> 12) & 3
        tiles[0] = c * NUMBERS + ((opt >> 4) & 15) + gap  # the number after the end and the gap
        for i in range(gap):
            tiles[1 + i] = -1
        return 1 + gap
    if opt & 3 == 1:
        colours = (opt >> 2) & 15
        n = (opt >> 8) & 15
        size = 0
        for c in range(COLOURS):
            if (colours >> c) & 1:
                tiles[size] = c * NUMBERS + n - 1
                size += 1
        for _ in range((opt >> 6) & 3):
            tiles[size] = -1
            size += 1
        return size
    c = (opt >> 2) & 3
    first = (opt >> 4) & 15
    length = (opt >> 8) & 7
    mask = (opt >> 11) & 31
    for q in range(length):
        m = first + q
        if m > NUMBERS:
            m -= NUMBERS
        tiles[q] = -1 if (mask >> q) & 1 else c * NUMBERS + m - 1
    return length


@kernel(I1, I1, I1, I1, I1, i64, i64, i64)
def _change(f, o, placed, key, tiles, size, took, sign):
    """Take (``sign`` 1) the meld ``tiles[:size]`` from the tiles left, a table copy before a
    rack copy, or give it back (-1) as ``took`` recorded; returns the record: bit q for a
    tile taken from the rack, the rack jokers from bit 8 (jit-compiled). The weight gained
    is ``weights`` summed over the record."""
    record = 0
    jokers = 0
    for q in range(size):
        k = tiles[q]
        if k < 0:
            jokers += 1
            continue
        shift = 4 * (k % NUMBERS)
        word = k // NUMBERS
        from_rack = ((took >> q) & 1) == 1 if sign < 0 else f[k] == 0
        if from_rack:
            o[k] -= sign
            placed[k] += sign
            key[word] -= sign << (shift + 2)
            record |= 1 << q
        else:
            f[k] -= sign
            key[word] -= sign << shift
    if jokers:
        rack_jokers = took >> 8 if sign < 0 else max(0, jokers - f[KINDS])
        table_jokers = jokers - rack_jokers
        f[KINDS] -= sign * table_jokers
        o[KINDS] -= sign * rack_jokers
        placed[KINDS] += sign * rack_jokers
        key[4] -= sign * (table_jokers + (rack_jokers << 2))
        record |= rack_jokers << 8
    return record


@kernel(I1, I1, i64)
def _gain(weights, tiles, record):
    """The weight of the rack tiles in ``record`` (see :func:`_change`) (jit-compiled)."""
    g = (record >> 8) * weights[KINDS]
    for q in range(8):
        if (record >> q) & 1:
            g += weights[tiles[q]]
    return g


@kernel(I2, i64, i64, boolean)
def _place_jokers(out, rows, jokers, cyclic):
    """Put ``jokers`` free jokers into the melds ``out[:rows]`` with room: a run grows at its
    high end (its low end at 13), a group of three gains a colour (jit-compiled)."""
    for r in range(rows):
        while jokers > 0:
            if out[r, F_KIND] == RUN and out[r, F_LEN] < NUMBERS:
                last = out[r, F_FIRST] + out[r, F_LEN]  # the number after the run
                if last > NUMBERS and cyclic:
                    last -= NUMBERS
                if last <= NUMBERS:
                    out[r, F_JOKERS] |= 1 << (last - 1)
                else:
                    out[r, F_FIRST] -= 1
                    out[r, F_JOKERS] |= 1 << (out[r, F_FIRST] - 1)
                out[r, F_LEN] += 1
            elif out[r, F_KIND] == SET and out[r, F_LEN] == 3:
                for c in range(COLOURS):
                    if not (out[r, F_COLOURS] >> c) & 1:
                        out[r, F_COLOURS] |= 1 << c
                        out[r, F_JOKERS] |= 1 << c
                        break
                out[r, F_LEN] += 1
            else:
                break
            jokers -= 1


@kernel(I1, I1, i64, i64, i64, boolean, boolean, SPACE, I2, I1, entry=True)
def solve(table, rack, objective, joker_value, g3max, cyclic, beat_nothing, space, out, placed_out):
    """The best play of ``rack`` onto ``table`` (count vectors of 53, jokers at 52): returns
    ``(weight, rows)``. The weight is ``PRIMARY * primary + secondary``, primary the
    objective (0: value, a rack joker at ``joker_value``; 1: tiles), secondary the other;
    the table afterwards is in ``out[:rows]`` as meld rows and the rack tiles placed in
    ``placed_out``. ``beat_nothing``: the table as it stands is valid, so only plays worth
    more than nothing are sought, and ``rows`` is -1 when there is none. Weight -1: the
    tiles cannot form a table; -2: ``space`` remembers too few positions for this one,
    make a bigger one and solve again (jit-compiled)."""
    f, o, placed, options, n_opts, next_opt, took, entry_w, keys, memo, memo_used, best_path, stats = space
    weights = np.zeros(KINDS + 1, dtype=np.int64)
    for k in range(KINDS):
        n = k % NUMBERS + 1
        weights[k] = PRIMARY * n + 1 if objective == 0 else PRIMARY + n
    weights[KINDS] = PRIMARY * joker_value + 1 if objective == 0 else PRIMARY + joker_value
    total = np.zeros(KINDS, dtype=np.int64)
    for k in range(KINDS):
        f[k] = table[k]
        o[k] = rack[k]
        total[k] = table[k] + rack[k]
    f[KINDS] = table[JOKER]
    o[KINDS] = rack[JOKER]
    placed[:] = 0
    placed_out[:] = 0
    jokers_in_play = f[KINDS] + o[KINDS]
    dead = np.zeros(KINDS, dtype=np.int64)
    for k in range(KINDS):
        if total[k] > 0 and not _alive(f, o, k, jokers_in_play, g3max, cyclic):
            if f[k] > 0:
                return -1, 0  # a table tile no meld can hold
            dead[k] = 1
    for k in range(KINDS):
        if dead[k]:
            o[k] = 0  # a rack tile no meld can hold: set aside
    key = np.zeros(KEY, dtype=np.int64)
    runs = np.zeros(OPEN, dtype=np.int64)
    rem = o[KINDS] * weights[KINDS]
    for k in range(KINDS):
        key[k // NUMBERS] += (f[k] | (o[k] << 2)) << (4 * (k % NUMBERS))
        rem += o[k] * weights[k]
    key[4] = f[KINDS] | (o[KINDS] << 2)
    # the memo starts empty
    memo_mask = (memo_used.shape[0]) - 1
    for i in range(stats[0]):
        memo[memo_used[i] * (KEY + 1) + KEY] = _EMPTY
    stats[0] = 0
    stats[1] = -1
    stats[2] = 0
    best = np.int64(0) if beat_nothing else np.int64(-1)
    tiles = np.zeros(8, dtype=np.int64)
    here = np.zeros(KEY, dtype=np.int64)
    cut = np.zeros(DEPTH, dtype=np.int64)  # a branch below was cut by the bound
    found = np.zeros(DEPTH, dtype=np.int64)  # a table was found below
    up_bound = 0
    up_found = 0
    w = np.int64(0)
    depth = 0
    mode = 0  # 0: enter a position, 1: try its next option, 2: back up
    low = 0  # where the search for the lowest tile starts
    while True:
        if mode == 0:
            stats[2] += 1
            up_bound = 1  # what the parent learns if this position stops here: cut by the bound
            up_found = 0
            if w + rem <= best:
                mode = 2
                continue
            x = -1
            for pos in range(low, KINDS):
                k = (pos % COLOURS) * NUMBERS + pos // COLOURS
                if f[k] + o[k] > 0:
                    x = k
                    low = pos
                    break
            if x < 0:
                # Every numbered tile placed; the jokers left join melds with room (a run
                # shorter than 13, a group of three), the table's first.
                room = (key[4] >> 4) & 3
                for c in range(COLOURS):
                    _read_runs(key, c, runs)
                    for i in range(OPEN):
                        if runs[i]:
                            room += _slots(runs[i])
                room = min(2, room)
                up_bound = 0
                if f[KINDS] <= room:
                    up_found = 1
                    extra = min(o[KINDS], room - f[KINDS])
                    if w + extra * weights[KINDS] > best:
                        best = w + extra * weights[KINDS]
                        stats[1] = depth
                        stats[3] = f[KINDS] + extra
                        for d in range(depth):
                            best_path[d] = options[d, next_opt[d] - 1]
                        for k in range(KINDS + 1):
                            placed_out[k] = placed[k]
                        placed_out[KINDS] += extra
                mode = 2
                continue
            _close_runs(f, o, key, runs)
            slot = _memo_find(memo, key, memo_mask)
            if slot >= 0 and memo[slot * (KEY + 1) + KEY] + w <= best:
                if memo[slot * (KEY + 1) + KEY] == _NO_TABLE:
                    up_bound = 0
                mode = 2
                continue
            entry_w[depth] = w
            cut[depth] = 0
            found[depth] = 0
            for i in range(KEY):
                keys[depth, i] = key[i]
            keys[depth, KEY] = low
            may_leave = 1 if f[x] == 0 else 0
            n_opts[depth] = _options(f, o, key, x, f[KINDS] + o[KINDS], g3max, may_leave, cyclic, runs,
                                     options[depth])
            next_opt[depth] = 0
            mode = 1
        elif mode == 1:
            if next_opt[depth] == n_opts[depth]:
                # every completion of this position is worth at most best - its entry weight
                for i in range(KEY):
                    here[i] = keys[depth, i]
                slot = _memo_find(memo, here, memo_mask)
                bound = best - entry_w[depth]
                if not cut[depth] and not found[depth]:
                    bound = _NO_TABLE  # searched through, nothing stands: whatever the weight
                up_bound = cut[depth]
                up_found = found[depth]
                if slot >= 0:
                    if bound < memo[slot * (KEY + 1) + KEY]:
                        memo[slot * (KEY + 1) + KEY] = bound
                elif stats[0] >= (memo_mask + 1) * 3 // 4:
                    if memo_mask + 1 < (1 << MAX_MEMO_BITS):
                        return -2, 0  # a position bigger than the memory: the caller grows it
                else:
                    s = -1 - slot
                    for i in range(KEY):
                        memo[s * (KEY + 1) + i] = keys[depth, i]
                    memo[s * (KEY + 1) + KEY] = bound
                    memo_used[stats[0]] = s
                    stats[0] += 1
                mode = 2
                continue
            opt = options[depth, next_opt[depth]]
            next_opt[depth] += 1
            low = keys[depth, KEY]
            if opt == 0:  # leave the tile on the rack
                x = (low % COLOURS) * NUMBERS + low // COLOURS
                o[x] -= 1
                key[x // NUMBERS] -= np.int64(1) << (4 * (x % NUMBERS) + 2)
                rem -= weights[x]
                took[depth] = 0
            else:
                size = _meld_tiles(opt, tiles)
                record = _change(f, o, placed, key, tiles, size, 0, 1)
                kind = opt & 3
                c = (opt >> 2) & 3
                room = (key[4] >> 4) & 3
                if kind == 3:  # a run extended: it ends at the tile now
                    _read_runs(key, c, runs)
                    v = (opt >> 4) & 15
                    for i in range(OPEN):
                        if runs[i] == v:
                            runs[i] = tiles[0] % NUMBERS + 1
                            break
                    _write_runs(key, c, runs)
                elif kind == 1:  # a group of three has room for one joker
                    room = min(2, room + 4 - size)
                else:
                    tracked = False
                    first = (opt >> 4) & 15
                    if size == 3 and first + 2 <= NUMBERS:  # wrap-around runs are formed whole
                        _read_runs(key, c, runs)
                        for i in range(OPEN):
                            if runs[i] == 0:
                                runs[i] = first + 2
                                room = min(2, room + min(2, first - 1))  # the room below it
                                tracked = True
                                break
                        if tracked:
                            _write_runs(key, c, runs)
                    if not tracked:
                        room = 2  # a run of five at most: room for both jokers
                key[4] = (key[4] & ~np.int64(48)) | (room << 4)
                took[depth] = record
                g = _gain(weights, tiles, record)
                w += g
                rem -= g
            depth += 1
            mode = 0
        else:
            depth -= 1
            if depth < 0:
                break
            cut[depth] |= up_bound
            found[depth] |= up_found
            opt = options[depth, next_opt[depth] - 1]
            low = keys[depth, KEY]
            if opt == 0:
                x = (low % COLOURS) * NUMBERS + low // COLOURS
                o[x] += 1
                rem += weights[x]
            else:
                size = _meld_tiles(opt, tiles)
                g = _gain(weights, tiles, took[depth])
                _change(f, o, placed, key, tiles, size, took[depth], -1)
                w -= g
                rem += g
            for i in range(KEY):
                key[i] = keys[depth, i]
            mode = 1
    if stats[1] < 0:
        return (0 if beat_nothing else -1), -1
    rows = 0
    for d in range(stats[1]):
        opt = best_path[d]
        if opt == 0:
            continue
        if opt & 3 == 1:
            colours = (opt >> 2) & 15
            jokers = (opt >> 6) & 3
            jmask = 0
            for c in range(COLOURS):  # jokers stand for the first colours missing
                if jokers > 0 and not (colours >> c) & 1:
                    jmask |= 1 << c
                    jokers -= 1
            size = 0
            for c in range(COLOURS):
                size += (colours >> c) & 1
            out[rows, F_KIND] = SET
            out[rows, F_KEY] = (opt >> 8) & 15
            out[rows, F_FIRST] = 0
            out[rows, F_LEN] = size + ((opt >> 6) & 3)
            out[rows, F_COLOURS] = colours | jmask
            out[rows, F_JOKERS] = jmask
        elif opt & 3 == 3:  # extend a run of that colour ending there (any: the same tiles)
            c = (opt >> 2) & 3
            end = (opt >> 4) & 15
            gap = (opt >> 12) & 3
            for r in range(rows):
                if (out[r, F_KIND] == RUN and out[r, F_KEY] == c
                        and out[r, F_FIRST] + out[r, F_LEN] - 1 == end):
                    for i in range(gap):
                        out[r, F_JOKERS] |= 1 << (end + i)  # a joker stands for end + 1 + i
                    out[r, F_LEN] += gap + 1
                    break
            continue
        else:
            c = (opt >> 2) & 3
            first = (opt >> 4) & 15
            length = (opt >> 8) & 7
            mask = (opt >> 11) & 31
            jbits = 0
            for q in range(length):
                if (mask >> q) & 1:
                    jbits |= 1 << (_number_at(first, q, True) - 1)
            out[rows, F_KIND] = RUN
            out[rows, F_KEY] = c
            out[rows, F_FIRST] = first
            out[rows, F_LEN] = length
            out[rows, F_COLOURS] = 1 << c
            out[rows, F_JOKERS] = jbits
        rows += 1
    _place_jokers(out, rows, stats[3], cyclic)
    return best, rows
