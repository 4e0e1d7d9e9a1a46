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
first, playing nothing: the table as it stands is valid; or a floor the caller gives) and drops a branch whose weight,
plus every rack tile left, cannot beat it (rack tiles no meld of the tiles in play could
hold are set aside first; checking that again at every step cost more than it saved).
What is left after a prefix of tiles (the tiles left, the jokers, the open runs) is the
same position whichever melds consumed the prefix, so an upper bound on each position's
best completion is remembered in a hash table, and a position met again is dropped when
that bound cannot beat the best. A solve starts in a corner of the table small enough to
stay in the core's cache, and is given the whole table when it fills a quarter of it.

Which end of the numbers it starts from matters as much: until the search reaches a rack
tile's number every branch may still place it, so the bound cuts nothing there, and a rack
tile that some meld could hold but no whole table does keeps every arrangement of the
numbers before it open. So the search runs from 13 down (the numbers mirrored in, the melds
mirrored back out) when the rack's tiles have fewer tiles above them than below
(:func:`_descending`): four-player greedy rounds twice as fast.

With wrap-around runs (``wrap_runs``) the circle of numbers is cut where few runs can
cross (:func:`_cuts`), and a run across the cut is formed in two parts: the part after the
cut when the search meets it, the part before the cut, up to 13, only when the search gets
there (:data:`_INCOMING`). Formed whole at the cut, each way the run could reach back past
it was carried through every number between as different tiles left, none of those
positions shared; now only the part after the cut is carried, and the search drops a branch
as soon as no tiles left could complete the part owed (:func:`_far_part`). On 20,000
positions of wrap-around rounds, positions visited: mean 512 to 367, 99th percentile 6,815
to 4,342 (every cut tried counted), the same value on every position; with a cut given up
after 2**15 positions rather than 2**17 (:data:`CUT_BUDGET`), mean 333 and the most 132,015
rather than 405,712; with the cuts after a first one given up tried on a sixteenth of that
budget for one round (see :func:`solve`), mean 327 and the most 71,396; with the part
before the cut owed by whether the part after holds one tile or more, not by how many
(:data:`_OWED_MOST`), mean 290 and 99th percentile 3,741 (4,540 before); with a position
not remembered looked up again with its runs owed two tiles before the cut owed one, its
bound holding when no free joker is left (:func:`_owed_two`), mean 265 and 99th percentile
3,546; with a dear first choice of cut and direction probed against the next two (see
:func:`solve`), mean 220 and 99th percentile 2,572, the most 45,563 rather than 63,386.

Most of what a dear search visits has no table at all (73% of the positions remembered by
the 200 dearest of 20,000 ``wrap_runs`` solves): a choice at one number leaves a tile a few
numbers on with no meld to go to, and the search learns it only on reaching that tile,
after every arrangement of the tiles between. So at the first position of each number the
table copies of each tile left are counted against the melds that could still hold one
(:func:`_stranded`; at every position it cost more than it saved), and the runs across the
cut are counted together, each part before the cut needing a 13 of its own, which no
group of 13 then holds (:func:`_owed_in_reach`): positions visited on those 20,000, mean
220 to 147 and 99th percentile 2,572 to 1,510; on the standard game's, mean 89 to 81. The
same count finds rack copies that no meld left can hold: they stay on the rack, so their
weight comes off the bound there (mean 147 to 128, 99th percentile 1,510 to 1,333; the
standard game's 85 to 80, 758 to 655). Counted tile by tile, that count was a fifth of a
``wrap_runs`` search's time (profiled by source line, ``benchmarks/profile_kernels.py
--lines``), most tiles plainly held; so the tiles that melds of the copies left surely hold
are passed over on the key's tile words, a few operations a colour (:func:`_surely_held`),
and the rest counted. The lowest tile left (:func:`_lowest`) and whether an open run can
take a tile (:func:`_extendable`) are read on those words too. The same positions visited
and plays on the bench's 40,000 positions; fastest solve of three sittings each: ``wrap_runs``
median 15.5 to 13.2 us and 99th percentile 394 to 350, the standard game's 11.3 to 10.6 and
142 to 122. Every run that holds a tile holds the number before it or starts at it, so with
no free joker left no more runs can hold it than the copies left of the number before, the
open runs ending there and the runs that may start at it (:func:`_homes`): two open runs
that could each reach ``R13`` through the one ``R12`` left hold one ``R13``, not two.
Positions visited on the bench's 20,000 positions of each rule, the same plays:
``wrap_runs`` mean 126.5 to 115.8 and 99th percentile 1,297 to 1,214, the standard game's
79.7 to 78.7 and 655 to 617. The 12s and 13s held by the runs across the cut hold no other
run, and no more runs across it hold a tile than the fewest copies after it (with no free
joker left): ``wrap_runs`` mean 111.4 to 104.8 and 99th percentile 1,041 to 975 (seed
2027's: 108.1 to 104.0, 1,015 to 961).

Within a number the search places first the tile with the fewest options, not the lowest
colour (:func:`_fail_first`): a tile with one way to go, or none, cuts the ways of placing
the others of its number before it. Positions visited on the bench's 20,000 positions of
each rule, the same plays: ``wrap_runs`` mean 104.8 to 90.6 and 99th percentile 975 to 815
(seed 2027's: 104.0 to 86.5, 961 to 780), the standard game's 78.7 to 65.6 and 617 to 516.

Jokers multiply the search (a joker may stand in almost anywhere), so the joker a table
tile cannot do without is reserved: a table tile that no meld without a joker can hold
(``B12`` in ``B12 J(K12) Y12``) keeps one, and a branch that spends it elsewhere is
dropped at once instead of failing only when the search reaches that tile
(:func:`_jokers_needed`). The helpers that allocate nothing are compiled without
numba's reference counting: counting their array arguments in and out on every call was
a fifth of the time. :func:`solve` too, since the probes' scratch is kept in the space
(:data:`_PROBE`): the views it cut of the space, counted in and out, took a solve that
visits one position from 2.1 to 2.9 us.

A joker bound to its tile (K-JOKER-2, ``joker_moves=bound``) is a *pinned* copy of that
tile: a table tile like the others, a joker only where K-MELD-2 counts jokers (see
:data:`PIN_FIRST`). Freeing jokers (K-JOKER-1) and ``locked_jokers`` are the caller's
(:mod:`.tableturn`): each choice of jokers freed is one more solve, frozen melds left out.
"""

from __future__ import annotations

import functools
from collections import namedtuple

import numpy as np

from sim.jit import I1, I2, boolean, copy_row, i64, kernel, record_of
from sim.solver.layout import F_COLOURS, F_FIRST, F_JOKERS, F_KEY, F_KIND, F_LEN, RUN, SET
from sim.tiles import JOKER, NUMBERS

# The solver's kernels keep their machine code, so that callers link the IR that LLVM's code
# generation rewrote: Rummikub rounds a fifth faster (sim.jit._link_only_libraries).
solver_kernel = functools.partial(kernel, machine_code=True)

COLOURS = 4
KINDS = COLOURS * NUMBERS
PRIMARY = 1 << 10  # a rack tile weighs PRIMARY * (objective) + (the other measure): ties broken
MAX_RUN = 5  # runs formed whole (five of a colour open) and runs across the cut: longer ones are two
DEPTH = 128  # melds and set-aside tiles on one path: at most the 106 tiles
OPTIONS = 512  # melds one tile can be in
OUT_ROWS = 64  # melds the arrangement may hold (the whole table)
MEMO_BITS = 16  # the remembered positions to start with (2**16 slots, 4 MB)
MAX_MEMO_BITS = 22  # grown by 4 each time a position needs more (up to 256 MB)
CUT_BUDGET = 1 << 15  # positions the first cut of the numbers may visit before the others are tried
# (wrap_runs), each on a sixteenth of it for one round (see solve)
# Probing other choices of cut and direction when the first is dear (wrap_runs, see solve):
PROBE_FIRST = 1 << 7  # positions the first choice visits before its progress is read
PROBE_DEAR = 4  # the others are probed when it would visit more than this many times that
PROBE_BUDGET = 1 << 7  # positions each probe may visit
PROBES = 1  # the choices probed, in this order: the first cut the other way, the second cut, ...
PICK_FACTOR = 8  # the one estimated cheapest goes on for this many times its estimate at most
PROBE_MEMO_BITS = 12  # a probe's memo: 2**12 slots (3,072 positions: a probe then stops, -2)
STRANDED_FROM = 64  # positions a standard game's search visits before it looks for stranded tiles
START_BITS = 12  # a solve starts in the first 2**12 slots (256 KB, in the core's cache), most
# meet a few hundred positions; one that fills a quarter of them is given them all
_NO_SLOT = -(1 << 40)  # a depth's memo slot is to be looked up again
_EMPTY = -(1 << 62)
_NO_TABLE = -(1 << 61)  # remembered: no arrangement of the tiles left, whatever the weight
# The key of a position: the tiles left (a word per colour: 4 bits per number, table
# copies and rack copies), the jokers left and the room for free jokers (word 4), and the
# open runs (words 5 and 6: per colour, up to OPEN runs by their end, 8 bits each, largest
# first; where a run starts matters only for the room it leaves free jokers, counted when
# it is formed, see _slots).
KEY = 7
OPEN = 4
# A run across the cut of the numbers (``wrap_runs``) is formed in two parts (see
# _options): its part after the cut, from 1, when the search meets its lowest tile, kept
# among the open runs with the flag _INCOMING (its end), then, once no tile can extend it,
# _OWED (its length, _OWED_MOST for that many or more): the part before the cut, up to 13,
# is owed, and is formed when the search reaches it. So how far the run reaches back past
# the cut is decided there, once, and not at the cut for every arrangement of the numbers
# between; and since the part before the cut needs two tiles after one and one after two or
# more, the positions between are the same whether the part after holds two, three or four.
_INCOMING = 16
_OWED = 32
_OWED_MOST = 2
_OWED_BYTES = _OWED * 0x0101010101010101  # the owed flag of every open run of two colours (a key word)
_FLAGS = 0x3030303030303030  # the flags of every open run of two colours (a key word)
_NEAR_MOST = 4  # a run across the cut takes at most four tiles after it (see _OWED_MOST for all it holds)
# The options that form the two parts (run options, bits 16 on): the part after the cut,
# and the part before it with the length of the part after it owed (from bit 18).
_FROM_CUT = 1 << 16
_TO_CUT = 1 << 17

# Bound jokers (K-JOKER-2, ``joker_moves=bound``): a table joker bound to tile t is a
# *pinned* copy of t: forced like a table tile and counted among t's copies (``f``), so
# that every canonical argument above holds for it as for a numbered tile, but a joker
# for K-MELD-2 (a group of three holds at most ``g3max``). A meld takes a pinned copy
# before a real one (the real copy elsewhere can only make its meld hold fewer jokers),
# except a group of three, which is tried with and without each pinned copy it could
# hold. Word 4 of the key counts the pinned copies left of the (at most two) kinds the
# jokers are bound to, from bit 8, two bits each.
PIN_FIRST = 1 << 30  # _change: a meld that takes pinned copies first
_PIN_SHIFT = 16  # record bit 16 + q: the meld's q-th tile was a pinned copy

# Scratch of one solver (see new_space), one array so that a call from Python passes one
# argument (a tuple of thirteen took a microsecond to pass): the counts left (forced,
# optional, placed on the path, pinned), the kinds the pinned jokers stand for, each
# depth's options, option count, next option, rack record, entry weight and key, the best
# path and its records, the counters (memo entries, best path length, positions visited,
# free jokers placed, the search budget and whether it was spent), then the remembered
# positions (key + bound) and the slots used, to clear them.
SPACE = I1
_F = 0
_O = _F + KINDS + 1
_PLACED = _O + KINDS + 1
_PIN = _PLACED + KINDS + 1
_PIN_KINDS = _PIN + KINDS + 1
_OPTIONS = _PIN_KINDS + 2
_N_OPTS = _OPTIONS + DEPTH * OPTIONS
_NEXT = _N_OPTS + DEPTH
_TOOK = _NEXT + DEPTH
_ENTRY_W = _TOOK + DEPTH
_KEYS = _ENTRY_W + DEPTH
_BEST_PATH = _KEYS + DEPTH * (KEY + 1)
_BEST_TOOK = _BEST_PATH + DEPTH
STATS = _BEST_TOOK + DEPTH  # the counters: [memo entries, best path length, positions visited, free jokers]
# A caller may bound a solve's search (the expert bot, sim.games.rummikub.expert): at most
# space[BUDGET] positions visited per solve (0, as new_space leaves it: no bound), the best
# play found by then returned and space[OVER_BUDGET] set to 1 (the caller clears it).
BUDGET = STATS + 4
OVER_BUDGET = STATS + 5
# With wrap-around runs, the positions the first cut of the numbers may visit before the
# others are tried (see solve); new_space sets CUT_BUDGET, a test may set less.
CUT_LIMIT = STATS + 6
# The positions visited by every cut a solve tried, those given up included (the counter
# STATS + 2 holds the last cut's alone): what a solve cost, whatever the machine's load.
VISITED_ALL = STATS + 7
# The positions the first choice of cut and direction visits before the next ones may be
# probed (see solve); new_space sets PROBE_FIRST, a test may set less, 0 probes none.
PROBE_LIMIT = STATS + 8
# Whether the search places first, of the tiles left at the lowest number, the one with
# the fewest options (1, as new_space sets; see _fail_first), or the lowest (0, for tests).
FAIL_FIRST = STATS + 9
# Where the first search stopped on its budget, to go on from there (Scratch.state, see _search).
_STATE = 7
_STATE_AT = STATS + 10
# The small arrays of Scratch, in space too rather than allocated at every solve (with the
# table turned and the cuts ranked, fourteen allocations): each kind's weight, the
# table tiles that need a joker, the position's key, a colour's open runs, a meld's tiles,
# a key looked up again; per depth: cut by the bound, a table found below, the memo slot
# probed.
_SMALL_SIZES = (KINDS + 1, KINDS, KEY, OPEN, 8, KEY, DEPTH, DEPTH, DEPTH)
_SMALL_PARTS = tuple(sum(_SMALL_SIZES[:i]) for i in range(len(_SMALL_SIZES) + 1))  # where each begins
_SMALL = _SMALL_PARTS[-1]
_SMALL_AT = _STATE_AT + _STATE
# A count vector to turn the tiles placed back in (see _answer), and the cuts in the order
# tried with their scores (see _rank_cuts).
_SPARE = _SMALL_AT + _SMALL
_ORDER = _SPARE + KINDS + 1
# The remembered positions, from a multiple of 8 words: each one's key and bound (KEY + 1 = 8
# words) then fills one 64-byte cache line of a space new_space aligns, whatever the layout
# before them (it fell on a line's start by chance until the small arrays came in). Before
# them, after the one search's scratch above (_HEAD words), the scratch of the searches that
# probe other choices of cut and direction (see solve): laid out as a space of its own with
# a memo of 2**PROBE_MEMO_BITS slots, then the rack tiles its best play places. Kept here,
# its memo emptied slot by slot as the first search's is, rather than allocated at every
# solve that probes (a quarter of a megabyte filled, 12 us: 4% of a 99th-percentile solve).
_HEAD = (_ORDER + 2 * NUMBERS + 7) // 8 * 8
_PROBE = _HEAD
_PROBE_SPACE = _HEAD + (1 << PROBE_MEMO_BITS) * (KEY + 2)
_PROBE_PLACED = _PROBE + _PROBE_SPACE
_MEMO = (_PROBE_PLACED + KINDS + 1 + 7) // 8 * 8


# The scratch of one solve by name, as the search reads it: the views of ``space`` above,
# the small arrays among them (_SMALL). The search and its helpers are compiled without
# reference counting, so reading a member costs nothing.
Scratch = namedtuple("Scratch", "f o placed pin pin_kinds options n_opts next_opt took entry_w keys best_path "
                                "best_took stats memo memo_used weights needy key runs tiles here cut found probe "
                                "state")
SCRATCH = record_of(Scratch, I1, I1, I1, I1, I1, I2, I1, I1, I1, I1, I2, I1, I1, I1, I1, I1, I1, I1, I1, I1, I1,
                    I1, I1, I1, I1, I1)
# A search stopped by its budget keeps where it was in ``state`` (see _search), to go on
# from there: the weight placed, the rack left, the best, the depth, the lowest tile, the
# memo's mask; and the positions the whole search would visit, estimated from how much of
# each depth's options it had tried (see _progress).


def remembered_keys(space: np.ndarray) -> np.ndarray:
    """The keys (:data:`KEY` words each) of the positions the last search of a solve in
    ``space`` remembered, for tests and benchmarks that look at where a search went."""
    slots = (space.shape[0] - _MEMO) // (KEY + 2)
    memo = space[_MEMO:_MEMO + slots * (KEY + 1)].reshape(slots, KEY + 1)
    return memo[memo[:, KEY] != _EMPTY, :KEY]


def new_space(memo_bits: int) -> np.ndarray:
    """Scratch for :func:`solve`, remembering up to 3/4 of ``2**memo_bits`` positions."""
    slots = 1 << memo_bits
    size = _MEMO + slots * (KEY + 2)
    whole = np.zeros(size + 8, dtype=np.int64)
    skip = (-whole.ctypes.data % 64) // 8  # words to the first cache line (see _MEMO)
    space = whole[skip:skip + size]
    space[_MEMO:_MEMO + slots * (KEY + 1)] = _EMPTY
    space[_PROBE + _HEAD:_PROBE + _HEAD + (1 << PROBE_MEMO_BITS) * (KEY + 1)] = _EMPTY
    space[CUT_LIMIT] = CUT_BUDGET
    space[PROBE_LIMIT] = PROBE_FIRST
    space[FAIL_FIRST] = 1
    return space


# Options: 0 leaves the tile on the rack; a group is 1 | colours << 2 | jokers << 6 |
# number << 8 | pinned << 12 (a group of three: bit q, its q-th tile is a pinned copy); a
# run is 2 | colour << 2 | first << 4 | length << 8 | joker positions << 11
# (bit q: the q-th tile of the run is a joker), with _FROM_CUT or _TO_CUT | owed length << 18
# for the two parts of a run across the cut; extending an open run is 3 | colour << 2 |
# the run as stored (its end, and _INCOMING for a part after the cut) << 4 | jokers << 12.


@solver_kernel(inline=True)
def _number_at(first, q, cyclic):
    m = first + q
    if cyclic and m > NUMBERS:
        m -= NUMBERS
    return m


_ALL_NUMBERS = (1 << NUMBERS) - 1  # a bit per number, 1 to 13


@solver_kernel(inline=True)
def _run_held(p, jokers, cyclic):
    """The numbers of one colour (``p``: a bit per number with a tile left) that a run of
    three could hold, with ``jokers`` for the tiles missing: every number of each three in
    a row (13 to 1 too if ``cyclic``) with at most that many missing."""
    if cyclic:
        p |= p << NUMBERS  # the circle laid out twice: a three from 12 or 13 reads on past 13
    a, b, c = p, p >> 1, p >> 2  # each start's first, second and third number
    if jokers == 0:
        starts = a & b & c
    elif jokers == 1:
        starts = (a & b) | (a & c) | (b & c)
    elif jokers == 2:
        starts = a | b | c
    else:
        starts = np.int64(_ALL_NUMBERS)
    starts &= _ALL_NUMBERS if cyclic else _ALL_NUMBERS >> 2  # a run from 12 or 13 only round the circle
    held = starts | (starts << 1) | (starts << 2)
    if cyclic:
        held |= held >> NUMBERS
    return held & _ALL_NUMBERS


@solver_kernel(I1, I1, i64, i64, boolean, counted=False)
def _held(f, o, jokers, g3max, cyclic):
    """For each colour, the numbers (a bit each, 1 to 13 from bit 0) whose tile a meld formed
    from the tiles left (table ``f`` and rack ``o`` alike) and ``jokers`` could hold: a
    group of its number, or a run of three of its colour, with jokers for the tiles
    missing; read only where a tile is left. Worked out on a bit per number: at every
    solve's start (twice with a joker in play), a loop over the kinds and the runs of three
    was an eighth of a median solve's fixed cost (jit-compiled)."""
    p0 = np.int64(0)
    p1 = np.int64(0)
    p2 = np.int64(0)
    p3 = np.int64(0)
    for n in range(NUMBERS):
        bit = np.int64(1) << n
        if f[n] + o[n] > 0:
            p0 |= bit
        if f[NUMBERS + n] + o[NUMBERS + n] > 0:
            p1 |= bit
        if f[2 * NUMBERS + n] + o[2 * NUMBERS + n] > 0:
            p2 |= bit
        if f[3 * NUMBERS + n] + o[3 * NUMBERS + n] > 0:
            p3 |= bit
    # the numbers with a tile left of three colours or four; two with a joker or two; one with two
    groups = (p0 & p1 & (p2 | p3)) | (p2 & p3 & (p0 | p1))
    if jokers >= 2 or (jokers >= 1 and g3max >= 1):
        groups |= (p0 & p1) | ((p0 | p1) & (p2 | p3)) | (p2 & p3)
    if jokers >= 2 and g3max >= 2:
        groups |= p0 | p1 | p2 | p3
    return (groups | _run_held(p0, jokers, cyclic), groups | _run_held(p1, jokers, cyclic),
            groups | _run_held(p2, jokers, cyclic), groups | _run_held(p3, jokers, cyclic))


@solver_kernel(I1, I1, I1, i64, counted=False)
def _joker_in_reach(f, o, key, y):
    """Whether an open run of ``y``'s colour could reach tile ``y`` without another joker:
    it ends below ``y`` and every number between has a tile left. Such a run may hold
    the joker ``y``'s meld needs already (jit-compiled)."""
    c = y // NUMBERS
    m = y % NUMBERS + 1
    field = (key[5 + c // 2] >> (32 * (c % 2))) & 0xFFFFFFFF
    while field:
        end = field & 255
        field >>= 8
        if end & (_INCOMING | _OWED):
            return True  # a run across the cut: its part before the cut is still to come, it may hold y
        end &= 15
        if end >= m:
            continue
        reach = True
        for n in range(end + 1, m):
            k = c * NUMBERS + n - 1
            if f[k] + o[k] == 0:
                reach = False
                break
        if reach:
            return True
    return False


@solver_kernel(I1, I1, I1, I1, i64, counted=False)
def _jokers_needed(f, o, key, needy, count):
    """How many more jokers the table tiles left in ``needy[:count]`` need, 0 to 2: those
    kinds had no meld without a joker when the solve began, and tiles are only taken away,
    so each copy left ends in a meld with a joker. In canonical form (a run of four or
    more has no joker at an end) that joker is taken when the meld is formed or, for a
    run, when the run reaches the tile; a tile an open run may reach without a joker more
    is not counted (see :func:`_joker_in_reach`). Two copies of one kind, or tiles of
    different colours and numbers, cannot share a meld, so need two (jit-compiled)."""
    need = 0
    first = -1
    for i in range(count):
        y = needy[i]
        if f[y] == 0 or _joker_in_reach(f, o, key, y):
            continue
        if f[y] >= 2:
            return 2
        if first < 0:
            first = y
            need = 1
            continue
        for j in range(i):  # the tiles counted before y: can y share a meld with each?
            z = needy[j]
            if (f[z] > 0 and z // NUMBERS != y // NUMBERS and z % NUMBERS != y % NUMBERS
                    and not _joker_in_reach(f, o, key, z)):
                return 2
    return need


@solver_kernel(I1, i64, I1, counted=False)
def _read_runs(key, c, runs):
    """The open runs of colour ``c`` (each by its end, 0 for none) into ``runs``."""
    field = (key[5 + c // 2] >> (32 * (c % 2))) & 0xFFFFFFFF
    for i in range(OPEN):
        runs[i] = (field >> (8 * i)) & 255


@solver_kernel(I1, i64, I1, counted=False)
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


@solver_kernel(i64)
def _slots(run):
    """Room an open run (its end) leaves above it for free jokers, 2 at most; the room
    below it was counted when it was formed, so runs differing only in where they start
    are one position (jit-compiled)."""
    return min(2, NUMBERS - (run & 15))


@solver_kernel(inline=True)
def _extendable(left, end, jokers, last):
    """Whether a run of a colour ending at ``end`` can take a tile left up to ``last``:
    ``end + 1``, or ``end + 2`` or ``end + 3`` after as many jokers (``left``: the colour's
    numbers with a copy left, :func:`_copies_left`)."""
    reach = min(end + 1 + min(2, jokers), last) - end  # the numbers after the end it may take
    return reach > 0 and (left >> (4 * end)) & ((np.int64(1) << (4 * reach)) - 1) != 0


@solver_kernel(I1, I1, I1, I1, i64, counted=False)
def _close_runs(f, o, key, runs, colours):
    """Close the open runs that no tile left can extend: a run ending at e takes a tile
    e + 1, or e + 2 or e + 3 after as many jokers; each closed run leaves room for free
    jokers, but the part after the cut of a run across it (``wrap_runs``) becomes the part
    before the cut owed, by its length up to :data:`_OWED_MOST` (jit-compiled). Works on the
    key's packed runs: those kept stay largest first. Only the ``colours`` (bit c) whose
    tiles the last step took (:func:`_touched`): the others' runs were closed at the parent
    and nothing they could take has gone."""
    room = (key[4] >> 4) & 3
    jokers = f[KINDS] + o[KINDS]
    for c in range(COLOURS):
        if not (colours >> c) & 1:
            continue
        word = 5 + c // 2
        shift = 32 * (c % 2)
        field = (key[word] >> shift) & 0xFFFFFFFF
        if not field:
            continue  # no open run of this colour
        left = _copies_left(key[c])
        if field & (_INCOMING * 0x01010101):  # the part after the cut of a run across it, still open
            _read_runs(key, c, runs)
            closed = False
            for i in range(OPEN):
                v = runs[i]
                if v & _INCOMING and not _extendable(left, v & 15, jokers, _NEAR_MOST):
                    runs[i] = _OWED | min(v & 15, _OWED_MOST)
                    closed = True
            if closed:
                _write_runs(key, c, runs)
                field = (key[word] >> shift) & 0xFFFFFFFF
        kept = np.int64(0)
        n_kept = 0
        for i in range(OPEN):
            end = (field >> (8 * i)) & 255
            if end == 0:
                break  # the runs are stored largest first: no more
            if end & (_INCOMING | _OWED):
                kept |= end << (8 * n_kept)  # seen to above
                n_kept += 1
                continue
            if _extendable(left, end, jokers, NUMBERS):
                kept |= end << (8 * n_kept)
                n_kept += 1
            else:
                room = min(2, room + _slots(end))
        if kept != field:
            key[word] = (key[word] & ~(np.int64(0xFFFFFFFF) << shift)) | (kept << shift)
    key[4] = (key[4] & ~np.int64(48)) | (room << 4)


@solver_kernel(inline=True)
def _pinned_numbers(pin, pin_kinds):
    """The numbers at which a bound joker is left (bit ``m - 1`` for number ``m``; the
    jokers' kinds are ``pin_kinds``, at most two). There a free joker may stand for a
    tile with a copy left: that copy may be the other tile of a group of three holding
    the bound joker, where the free joker cannot take its place (K-MELD-2), as in
    ``B3 J(B4) B5`` beside ``J(R4) B4 K4``."""
    numbers = 0
    for i in range(2):
        k = pin_kinds[i]
        if k >= 0 and pin[k] > 0:
            numbers |= 1 << (k % NUMBERS)
    return numbers


@solver_kernel(inline=True)
def _run_options(f, o, c, first, length, p, pinned, jokers, ends, tag, out, count):
    """Write to ``out`` from ``count`` the runs of colour ``c`` from ``first`` (up to 13, then
    1 on), ``length`` tiles, the ``p``-th of them the tile placed: a joker where no tile of
    the number is left, and, where a bound joker is left, with and without one (see
    :func:`_pinned_numbers`); none with a joker at ``ends`` (bits by position); returns the
    new count."""
    need = 0  # positions no tile is left for: jokers
    used = 0
    may = 0  # positions a joker may take though a tile is left (bound jokers near)
    for q in range(length):
        if q != p:
            m = _number_at(first, q, True)
            k = c * NUMBERS + m - 1
            if f[k] + o[k] == 0:
                need |= 1 << q
                used += 1
            elif (pinned >> (m - 1)) & 1:
                may |= 1 << q
    extra = 0
    while True:  # the subsets of ``may``, none first
        mask = need | extra
        n_jokers = used
        for q in range(length):
            n_jokers += (extra >> q) & 1
        if n_jokers <= jokers and not mask & ends:
            out[count] = 2 | (c << 2) | (first << 4) | (length << 8) | (mask << 11) | tag
            count += 1
        extra = (extra - may) & may
        if extra == 0:
            break
    return count


@solver_kernel(I1, I1, I1, I1, I1, i64, i64, i64, i64, boolean, boolean, I1, I1, counted=False)
def _options(f, o, pin, pin_kinds, key, x, jokers, g3max, may_leave, cyclic, above, runs, out):
    """Every meld that can hold tile ``x``, the lowest left, then (a rack tile) leaving it
    on the rack, written to ``out``; returns how many (jit-compiled).

    Only arrangements of a canonical form are searched; every table has one, as good:
    - a run is formed at its lowest numbered tile with three tiles and extended a tile at
      a time as the search reaches the tiles after it (``runs``: its open runs), a joker
      or two before the tile where its number has no copy left; a run of four or more has
      no joker at an end, and a group of four no joker (take it out: the meld stands, the
      joker is free, and free jokers join melds with room at the end). Any run when five
      of its colour are open is formed whole, three to five tiles: a longer one is two;
    - a run across the cut of the numbers (``wrap_runs``; five tiles at most would do, a
      longer one being two, one of them not across) is formed in two parts: after the cut, from 1 up
      to its lowest tile (jokers before it) when the search meets that tile, kept open and
      grown like any run up to four tiles; before the cut, from the search's lowest tile
      up to 13, when the search gets there, knowing only whether the part after holds one
      tile or more (:data:`_OWED_MOST`), so that the run may hold up to seven. Each part
      holds a tile: a run whose part holds only jokers is a run not across the cut with the
      jokers at its other end (three tiles) or has a joker at an end (more);
    - a joker stands only for a tile none of whose copies is left when its meld is formed.
      Else swap it with the copy in the meld formed last: both melds stand, or that meld
      is a group of three holding the other joker where K-MELD-2 allows one, and its other
      tile then makes a run with the two jokers; a copy left on the rack would score more.
      A bound joker cannot join such a run, so at a number where one is left a joker may
      stand for any tile (:func:`_pinned_numbers`);
    - with ``above``, a run of three holds no joker below its lowest tile x, unless x is a
      12 or a 13 (no run of three starts there): ``J(R4) R5 R6`` holds the tiles of ``R5
      R6 J(R7)``, which may go on past R7 and leaves free jokers as much room (below R5,
      where the other stood), and where an R7 is left, that run gives way to ``R5 R6 R7``
      as above; only where no bound joker is left, whose copies that swap may not hold.
      The search passes ``above`` only where it searches through (no budget, no cut of
      wrap-around runs): a search stopped on a budget, or probing other cuts, returns the
      best play found by then, which dropping those runs changes among plays of equal
      worth, and the references were played with them (issue 26: to be played again). On
      the bench's 20,000 positions of ``joker_moves=free`` rounds, positions visited: mean
      270.7 to 217.8, 99th percentile 3,285 to 2,545, the same best plays; the standard
      game's and ``wrap_runs``' positions barely have such runs.
    Longer melds come first: they place more, so good plays are found early."""
    c = x // NUMBERS
    n = x % NUMBERS + 1
    pinned = _pinned_numbers(pin, pin_kinds)
    count = 0
    longest = MAX_RUN
    _read_runs(key, c, runs)
    previous = -1
    owed = False
    for i in range(OPEN):
        v = runs[i]
        if v == 0:
            longest = 3  # room to keep the run open: formed with three tiles
            continue
        if v & _OWED:
            owed = True
            continue
        end = v & 15
        gap = n - 1 - end
        if (v != previous and 0 <= gap <= 2 and gap <= jokers
                and (not v & _INCOMING or (end + gap + 1 <= _NEAR_MOST
                                           and _far_part(f, o, c, end + gap + 1, n + 1, jokers - gap)))):
            out[count] = 3 | (c << 2) | (v << 4) | (gap << 12)
            count += 1
        previous = v
    if owed:  # the part before the cut of a run across it, from x up to 13
        previous = -1
        for i in range(OPEN):
            v = runs[i]
            if not v & _OWED or v == previous:
                continue
            previous = v
            near = v & 15
            for p in range(3):  # jokers before x: only in a run of three (else one at its end)
                length = NUMBERS + 1 - n + p
                if p > jokers or not 3 <= length + near <= MAX_RUN or (p > 0 and length + near > 3):
                    continue
                count = _run_options(f, o, c, n - p, length, p, pinned, jokers, 0,
                                     _TO_CUT | (near << 18), out, count)
    for length in range(MAX_RUN, 2, -1):
        for p in range(length):
            first = n - p
            if first < 1 or first + length - 1 > NUMBERS:
                continue  # across the cut (wrap_runs): formed in two parts, below
            if length > longest:
                continue
            if p > jokers:
                continue  # the numbers before x have no tile of its colour left: each a joker
            if above and length == 3 and p > 0 and n + 2 <= NUMBERS and not pinned:
                continue  # jokers before x: the run of three from x holds as much (see above)
            ends = 0 if length == 3 else 1 | (1 << (length - 1))
            count = _run_options(f, o, c, first, length, p, pinned, jokers, ends, 0, out, count)
    # A run across the cut (wrap_runs): its part after the cut, 1 to x (jokers before x, no
    # tile of x's colour is left there), if the runs of x's colour have room to keep it and
    # a tile of x's colour is left late enough for the part before the cut (five in all).
    if cyclic and n <= _NEAR_MOST and n - 1 <= jokers and runs[OPEN - 1] == 0:
        for near in range(n, _NEAR_MOST + 1):  # it may grow
            if _far_part(f, o, c, near, n + 1, jokers - (n - 1)):
                out[count] = 2 | (c << 2) | (1 << 4) | (n << 8) | (((1 << (n - 1)) - 1) << 11) | _FROM_CUT
                count += 1
                break
    left = 0  # other colours with a tile of this number left
    others = 0
    for c2 in range(COLOURS):
        k2 = c2 * NUMBERS + n - 1
        if c2 != c and f[k2] + o[k2] > 0:
            left |= 1 << c2
            others += 1
    if others == 3:  # a group of four, no joker
        out[count] = 1 | (15 << 2) | (n << 8)
        count += 1
    free = 3 - others  # colours with no tile of this number left: jokers may stand for them
    if (pinned >> (n - 1)) & 1:
        free = 3  # ... or, beside a bound joker, for a colour with a tile left (see _pinned_numbers)
    sub = 0
    while True:  # groups of three: the subsets of the other colours, smallest first
        real = 1
        for c2 in range(COLOURS):
            real += (sub >> c2) & 1
        jn = 3 - real
        if 0 <= jn <= jokers and jn <= free and jn <= g3max:
            colours = sub | (1 << c)
            # Pinned copies (bound jokers) are jokers here (K-MELD-2): by tile position q,
            # those the group must take (no real copy left) and those it may.
            must = 0
            may = 0
            q = 0
            for c2 in range(COLOURS):
                if (colours >> c2) & 1:
                    k2 = c2 * NUMBERS + n - 1
                    if pin[k2] > 0:
                        if f[k2] - pin[k2] + o[k2] == 0:
                            must |= 1 << q
                        else:
                            may |= 1 << q
                    q += 1
            extra = 0
            while True:  # the subsets of ``may``, none first
                pins = must | extra
                used = 0
                for b in range(3):
                    used += (pins >> b) & 1
                if jn + used <= g3max:
                    out[count] = 1 | (colours << 2) | (jn << 6) | (n << 8) | (pins << 12)
                    count += 1
                extra = (extra - may) & may
                if extra == 0:
                    break
        sub = (sub - left) & left  # the next subset of ``left``
        if sub == 0:
            break
    if may_leave:
        out[count] = 0
        count += 1
    return count


@solver_kernel(I1, I1, i64, counted=False)
def _memo_find(memo, key, mask):
    """Slot of position ``key`` (KEY words) in ``memo``, or -1 - the empty slot it would
    take (jit-compiled)."""
    # Each word times its own odd constant, summed (independent products, not a chain:
    # the slot is known sooner), then the high half folded in (a product's low bits see
    # only the words' low bits) and mixed once more.
    h = (np.uint64(key[0]) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(key[1]) * np.uint64(0xC2B2AE3D27D4EB4F)
         + np.uint64(key[2]) * np.uint64(0x165667B19E3779F9) + np.uint64(key[3]) * np.uint64(0xD6E8FEB86659FD93)
         + np.uint64(key[4]) * np.uint64(0xFF51AFD7ED558CCD) + np.uint64(key[5]) * np.uint64(0xC4CEB9FE1A85EC53)
         + np.uint64(key[6]) * np.uint64(0x94D049BB133111EB))
    h = (h ^ (h >> np.uint64(32))) * np.uint64(0xBF58476D1CE4E5B9)
    i = np.int64(h >> np.uint64(40)) & mask
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


@solver_kernel(I1, I1, counted=False)
def _owed_two(key, alt):
    """``key`` with every run across the cut whose part before the cut is owed two tiles (the
    part after it holds one) owed one instead, into ``alt``; False when none is. With no free
    joker left, the position in ``alt`` places every tile this one can, so a bound remembered
    for it bounds this one: a part before the cut of two or three tiles completes either run
    (of three to seven), and one of four (10 to 13, three to five with the part after) is an
    ordinary run of 10 to 12 and the part 13. (A free joker may be what a part of two takes,
    ``J(12) 13``, where the other run has no place for it: then it does not hold.)
    (jit-compiled)"""
    any_one = False
    for i in range(KEY):
        alt[i] = key[i]
    for word in range(5, 7):
        v = key[word]
        for b in range(8):
            if ((v >> (8 * b)) & 255) == (_OWED | 1):
                v += np.int64(1) << (8 * b)  # the runs stay largest first: owed ones are the largest
                any_one = True
        alt[word] = v
    return any_one


@solver_kernel(I1, I1, i64, i64)
def _memo_spread(memo, used, count, mask):
    """Move the ``count`` positions remembered (``used``: their slots, updated) to their
    slots under ``mask``, a larger table (jit-compiled)."""
    moved = np.empty(count * (KEY + 1), dtype=np.int64)
    for i in range(count):
        s = used[i] * (KEY + 1)
        for j in range(KEY + 1):
            moved[i * (KEY + 1) + j] = memo[s + j]
        memo[s + KEY] = _EMPTY
    here = np.empty(KEY, dtype=np.int64)
    for i in range(count):
        for j in range(KEY):
            here[j] = moved[i * (KEY + 1) + j]
        slot = -1 - _memo_find(memo, here, mask)
        for j in range(KEY + 1):
            memo[slot * (KEY + 1) + j] = moved[i * (KEY + 1) + j]
        used[i] = slot


@solver_kernel(i64, I1, counted=False)
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


@solver_kernel(I1, I1, I1, I1, I1, I1, I1, i64, i64, i64, counted=False)
def _change(f, o, placed, pin, pin_kinds, key, tiles, size, took, sign):
    """Take (``sign`` 1) the meld ``tiles[:size]`` from the tiles left, or give it back (-1)
    as ``took`` recorded; returns the record: bit q for a tile taken from the rack, bit
    16 + q for a pinned copy, the rack jokers from bit 8 (jit-compiled). The weight
    gained is ``weights`` summed over the record. Taking, ``took`` says which copies:
    :data:`PIN_FIRST`, a pinned copy first, or bit 16 + q, a pinned copy for tile q and
    none for the others; then a table copy before a rack copy."""
    record = 0
    jokers = 0
    for q in range(size):
        k = tiles[q]
        if k < 0:
            jokers += 1
            continue
        shift = 4 * (k % NUMBERS)
        word = k // NUMBERS
        if sign < 0:
            pinned = ((took >> (_PIN_SHIFT + q)) & 1) == 1
            from_rack = ((took >> q) & 1) == 1
        else:
            pinned = pin[k] > 0 and (((took >> (_PIN_SHIFT + q)) & 1) == 1 or (took & PIN_FIRST) != 0)
            from_rack = not pinned and f[k] - pin[k] == 0
        if pinned:
            pin[k] -= sign
            f[k] -= sign
            key[word] -= sign << shift
            key[4] -= sign << (8 + (0 if pin_kinds[0] == k else 2))
            record |= 1 << (_PIN_SHIFT + q)
        elif from_rack:
            o[k] -= sign
            placed[k] += sign
            key[word] -= sign << (shift + 2)
            record |= 1 << q
        else:
            f[k] -= sign
            key[word] -= sign << shift
    if jokers:
        rack_jokers = (took >> 8) & 3 if sign < 0 else max(0, jokers - f[KINDS])
        table_jokers = jokers - rack_jokers
        f[KINDS] -= sign * table_jokers
        o[KINDS] -= sign * rack_jokers
        placed[KINDS] += sign * rack_jokers
        key[4] -= sign * (table_jokers + (rack_jokers << 2))
        record |= rack_jokers << 8
    return record


@solver_kernel(I1, I1, i64, counted=False)
def _gain(weights, tiles, record):
    """The weight of the rack tiles in ``record`` (see :func:`_change`) (jit-compiled)."""
    g = ((record >> 8) & 3) * weights[KINDS]
    for q in range(8):
        if (record >> q) & 1:
            g += weights[tiles[q]]
    return g


@solver_kernel(I2, i64, i64, boolean, counted=False)
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


# --- the phases of a solve: set up, the search's steps, the table written out -----------------


@solver_kernel(inline=True)
def _source(j, shift, mirrored):
    """The number (from 0) of the caller's tiles that the search's number ``j`` (from 0)
    holds: the numbers turned by ``shift`` (:func:`_cuts`), then mirrored if ``mirrored``
    (:func:`_descending`)."""
    m = (NUMBERS - 1 - j if mirrored else j) - shift
    return m + NUMBERS if m < 0 else m


@solver_kernel(I1, I1, I1, i64, i64, i64, boolean, i64, boolean, SCRATCH, I1, counted=False)
def _begin(table, pins, rack, objective, joker_value, g3max, cyclic, shift, mirrored, sc, placed_out):
    """Set a solve up on the numbers turned by ``shift`` (:func:`_cuts`) and ``mirrored``
    (:func:`_descending`), read from the caller's counts as they are (:func:`_source`): the
    counts left (rack tiles no meld can hold set aside), each kind's weight (by its number
    as the caller gave it), the table tiles that need a joker in ``needy``, the first
    position's ``key``; returns ``(needy tiles, weight of the rack left)``, -1 tiles when a
    table tile no meld can hold makes every table fail (jit-compiled)."""
    f, o, placed, pin, pin_kinds, weights, needy, key = sc.f, sc.o, sc.placed, sc.pin, sc.pin_kinds, sc.weights, \
        sc.needy, sc.key
    pin_kinds[0] = -1
    pin_kinds[1] = -1
    for j in range(NUMBERS):
        m = _source(j, shift, mirrored)
        weight = PRIMARY * (m + 1) + 1 if objective == 0 else PRIMARY + m + 1
        for k0 in range(0, KINDS, NUMBERS):
            k = k0 + j
            src = k0 + m
            weights[k] = weight
            f[k] = table[src] + pins[src]
            o[k] = rack[src]
            pin[k] = pins[src]
            placed[k] = 0
            placed_out[k] = 0
    for k in range(KINDS):  # in the search's order of kinds: the first is pin_kinds[0]
        if pin[k] > 0:
            pin_kinds[0 if pin_kinds[0] < 0 else 1] = k
    weights[KINDS] = PRIMARY * joker_value + 1 if objective == 0 else PRIMARY + joker_value
    pin[KINDS] = 0
    f[KINDS] = table[JOKER]
    o[KINDS] = rack[JOKER]
    placed[KINDS] = 0
    placed_out[KINDS] = 0
    jokers_in_play = f[KINDS] + o[KINDS]
    h0, h1, h2, h3 = _held(f, o, jokers_in_play, g3max, cyclic)
    for c in range(COLOURS):
        held = h0 if c == 0 else h1 if c == 1 else h2 if c == 2 else h3
        for k in range(c * NUMBERS, (c + 1) * NUMBERS):
            if f[k] + o[k] > 0 and not (held >> (k - c * NUMBERS)) & 1:
                if f[k] > 0:
                    return -1, 0  # a table tile no meld can hold
                o[k] = 0  # a rack tile no meld can hold: set aside
    # Table tiles no meld without a joker can hold: a branch that spends the jokers they
    # need elsewhere is dropped as soon as it has (a table joker held in a meld where its
    # tile is missing otherwise makes the search try that joker everywhere before it).
    n_needy = 0
    if jokers_in_play > 0:
        h0, h1, h2, h3 = _held(f, o, 0, g3max, cyclic)
        for c in range(COLOURS):
            held = h0 if c == 0 else h1 if c == 1 else h2 if c == 2 else h3
            for k in range(c * NUMBERS, (c + 1) * NUMBERS):
                if f[k] > 0 and not (held >> (k - c * NUMBERS)) & 1:
                    needy[n_needy] = k
                    n_needy += 1
    rem = o[KINDS] * weights[KINDS]
    for c in range(COLOURS):
        # f + 4 o in 4 bits: with two jokers bound to a tile whose copies are both on the
        # table, f is 4 and o is 0, a field no position of that solve can share
        word = np.int64(0)
        for n in range(NUMBERS):
            k = c * NUMBERS + n
            word += (f[k] + (o[k] << 2)) << (4 * n)
            rem += o[k] * weights[k]
        key[c] = word
    key[4] = f[KINDS] | (o[KINDS] << 2)
    for i in range(2):
        if pin_kinds[i] >= 0:
            key[4] |= pin[pin_kinds[i]] << (8 + 2 * i)
    return n_needy, rem


@solver_kernel(I1, counted=False)
def _lowest(key):
    """The place (number, then colour: ``pos % COLOURS`` the colour) of the lowest tile
    left, -1 when every numbered tile is placed, read on the key's tile words: a number's
    nibble of colour bits, the lowest bit set found by a de Bruijn sequence (jit-compiled)."""
    places = (_copies_left(key[0]) | (_copies_left(key[1]) << 1) | (_copies_left(key[2]) << 2)
              | (_copies_left(key[3]) << 3))
    if places == 0:
        return -1
    return _DE_BRUIJN_PLACE[np.uint64(places & -places) * np.uint64(_DE_BRUIJN) >> np.uint64(58)]


_DE_BRUIJN = 0x03F79D71B4CB0A89  # each 6-bit window of it is distinct: bit i's window names i
_DE_BRUIJN_PLACE = np.argsort([((_DE_BRUIJN << i) & 0xFFFFFFFFFFFFFFFF) >> 58 for i in range(64)]).astype(np.int64)


@solver_kernel(I1, I1, i64, i64, i64, i64, counted=False)
def _far_part(f, o, c, near, low, jokers):
    """Whether the part before the cut of a run across it (``wrap_runs``) can still be formed
    from the tiles left: colour ``c`` up to 13, with ``near`` tiles after the cut (as owed,
    see :data:`_OWED_MOST`) three to five in all, a tile left where it starts (a joker there
    only in a run of three), and ``jokers`` at most where none is; before ``low``, the
    search's lowest number, no tile is left (jit-compiled)."""
    k0 = c * NUMBERS - 1
    missing = 0  # of the numbers from m to 13
    for m in range(NUMBERS, NUMBERS - MAX_RUN + near, -1):
        here = m >= low and f[k0 + m] + o[k0 + m] > 0
        if not here:
            missing += 1
        length = NUMBERS + 1 - m + near
        if length >= 3 and missing <= jokers and missing < NUMBERS + 1 - m and (here or length == 3):
            return True
    return False


@solver_kernel(inline=True)
def _left(f, o, c, q, n):
    """The copies of colour ``c``'s number ``q`` left, none below the lowest number ``n``."""
    return f[c * NUMBERS + q - 1] + o[c * NUMBERS + q - 1] if n <= q <= NUMBERS else 0


@solver_kernel(inline=True)
def _missing(f, o, c, first, last, n):
    """The numbers ``first`` to ``last`` of colour ``c`` with no tile left (a joker each)."""
    missing = 0
    for q in range(first, last + 1):
        if _left(f, o, c, q, n) == 0:
            missing += 1
    return missing


@solver_kernel(inline=True)
def _unheld(f, o, c, m, n, held):
    """The copies of colour ``c``'s number ``m`` left, less the 12s and 13s that runs across
    the cut hold (``held``, see :func:`_stranded`)."""
    k = _left(f, o, c, m, n)
    return max(0, k - ((held >> (8 * c + 32 * (NUMBERS - m))) & 255)) if NUMBERS - 1 <= m <= NUMBERS else k


# A number's nibble in a key word (see KEY): the table copies in its low two bits, the rack
# copies in its high two; _NIBBLE_ONES holds a 1 in the low bit of each of the 13.
_NIBBLE_ONES = 0x1111111111111
_NIBBLE_LOW3 = 0x7777777777777
_NIBBLE_HIGH = 0x8888888888888


@solver_kernel(inline=True)
def _copies_left(word):
    """The numbers of one colour (the key's ``word``) with a copy left, table or rack: a bit
    at each number's nibble (see :data:`_NIBBLE_ONES`)."""
    return ((word | (word >> 1)) | ((word | (word >> 1)) >> 2)) & _NIBBLE_ONES


@solver_kernel(inline=True)
def _surely_held(word, jokers, grouped):
    """The numbers of one colour (the key's ``word``) whose copies left, one or two, melds of
    the copies left surely hold, as :func:`_stranded` would count them: one copy with a
    group (``grouped``: the numbers with copies left of three colours or four) or a run of
    three of its colour; two with two runs (two copies of each of the next two numbers, of
    the two before, or of the numbers either side; or a copy of each of the two numbers
    either side) or a group and a run; either with a free joker left. They have melds
    whatever it would count, so it looks only at the others."""
    left = _copies_left(word)
    copies = (word & (3 * _NIBBLE_ONES)) + ((word >> 2) & (3 * _NIBBLE_ONES))  # per nibble, 6 at most
    ones = _zero_nibbles(copies ^ _NIBBLE_ONES)
    twos = _zero_nibbles(copies ^ (2 * _NIBBLE_ONES))
    if jokers > 0:
        return ones | twos
    pairs = ((copies >> 1) | (copies >> 2) | (copies >> 3)) & _NIBBLE_ONES  # two copies left or more
    below = left << 4  # at number m: a copy of m - 1 left
    above = left >> 4
    run = (below & (left << 8)) | (below & above) | (above & (left >> 8))
    runs = (((pairs >> 4) & ((pairs >> 8) | (pairs << 4))) | ((pairs << 4) & (pairs << 8))
            | (below & (left << 8) & above & (left >> 8)))
    return (ones & (grouped | run)) | (twos & (runs | (grouped & run)))


@solver_kernel(inline=True)
def _zero_nibbles(word):
    """A bit at each of the 13 nibbles of ``word`` that is 0 (see :data:`_NIBBLE_ONES`)."""
    return (~(((word & _NIBBLE_LOW3) + _NIBBLE_LOW3) | word) & _NIBBLE_HIGH) >> 3


@solver_kernel(I1, I1, I1, I1, i64, i64, boolean, counted=False)
def _stranded(f, o, key, weights, pos, jokers, cyclic):
    """The copies of each tile left, from the lowest (place ``pos``) up, against the melds
    that could still hold one: groups of its number (two other colours or jokers each),
    runs of its colour from the tiles left and ``jokers`` (through the next number, or
    ending at it), and open runs that can reach it. Each copy needs a meld of its own, so a
    tile with more table copies than such melds leaves the position no table (returns -1);
    the search would find that out only when it reaches the tile, after trying every way
    of placing the tiles before it. Otherwise returns the weight (``weights``) of the rack
    copies beyond those melds, which stay on the rack whatever the search does there. With
    no free joker left, the 13s (and 12s) that the parts before the cut of runs across it
    must take (``wrap_runs``, see :func:`_owed_in_reach`) are in no group and no other run,
    and no more of those runs hold a tile than the fewest copies after it. The key's tile
    words mirror ``f`` and ``o``, as in the search: the tiles whose one or two copies left
    melds surely hold are passed over on them (:func:`_surely_held`, a few operations a
    colour), and the rest counted one by one (:func:`_homes`) (jit-compiled)."""
    n = pos // COLOURS + 1
    spare = min(jokers, 2)
    lost = np.int64(0)
    # per colour, a byte each: the 13s taken by runs across the cut (bits 0-31), and the 12s (32-63)
    held = 0
    if cyclic and jokers == 0:
        for c in range(COLOURS):
            field = (key[5 + c // 2] >> (32 * (c % 2))) & 0xFFFFFFFF
            while field:
                if field & (_INCOMING | _OWED):
                    held += np.int64(1) << (8 * c)
                if field & 255 == _OWED | 1:
                    held += np.int64(1) << (8 * c + 32)  # its part after the cut holds one tile
                field >>= 8
    grouped = _copies_left(key[0]) + _copies_left(key[1]) + _copies_left(key[2]) + _copies_left(key[3])
    grouped = ((grouped + _NIBBLE_ONES) >> 2) & _NIBBLE_ONES  # three colours or four: a group for each
    if held:
        grouped &= ~(np.int64(0x11) << (4 * (NUMBERS - 2)))  # 12s and 13s a run across the cut may take
    for c in range(COLOURS):
        word = key[c]
        sure = _surely_held(word, jokers, grouped)
        if held:
            # 12s and 13s: the runs across the cut take some; and the 10s and 11s, whose runs of
            # three the key's words would read through those 12s
            sure &= ~(np.int64(0x1111) << (4 * (NUMBERS - 4)))
        rest = word & ~(sure * 15)  # the numbers to count (none below n has a tile left)
        if c <= pos % COLOURS:  # the lowest tile, and the colours before it at its number (none left)
            rest &= ~(np.int64(15) << (4 * (n - 1)))
        # A bit at each number with a copy to count, taken lowest first: going through every
        # number from n up, most with nothing to count, was a tenth of the count's time.
        numbers = _copies_left(rest)
        while numbers:
            bit = numbers & -numbers
            numbers ^= bit
            m = (_DE_BRUIJN_PLACE[np.uint64(bit) * np.uint64(_DE_BRUIJN) >> np.uint64(58)] >> 2) + 1
            y = c * NUMBERS + m - 1
            table = f[y]
            need = table + o[y]
            if table > 2:
                continue  # copies pinned by bound jokers, let be
            if cyclic and m <= _NEAR_MOST and _missing(f, o, c, 1, m - 1, n) <= jokers:
                continue  # the part after the cut of a run across it may yet hold it
            if cyclic and n <= _NEAR_MOST and m > NUMBERS - MAX_RUN:
                continue  # ... or its part before the cut, the run begun after the lowest tile
            homes = _homes(f, o, key, c, m, n, need, jokers, spare, held)
            if homes < table:
                return -1
            if homes < need:
                lost += min(o[y], need - homes) * weights[y]
    return lost


@solver_kernel(inline=True)
def _homes(f, o, key, c, m, n, need, jokers, spare, held):
    """The melds that could still hold a copy of colour ``c``'s number ``m`` (see
    :func:`_stranded`): groups, then, if they are fewer than ``need``, runs. With no free
    joker left, no more runs than the copies of ``m - 1`` left, the open runs ending there
    and the runs that may start at ``m`` (the fewer copies of ``m + 1`` and ``m + 2``):
    every run that holds ``m`` holds ``m - 1`` or starts at ``m``. So two open runs that
    could each reach ``R13`` through the one ``R12`` left give two copies of ``R13`` one
    run, not two. The 12s and 13s ``held`` by runs across the cut hold no other run (a run
    across it whose part after holds ``R1`` takes the one ``R12`` an ``R11 R12 R13`` would
    need), and a run across the cut holds ``m`` (past the numbers its part after may reach)
    only through every number after ``m``. Only how many up to ``need`` matters to the count,
    so the runs across the cut are counted first and the count stops once there are enough:
    two thirds of the tiles counted were 12s and 13s that those runs hold (their copies left
    are not passed over on the key, :func:`_stranded`), and each was counted through groups
    and runs before."""
    field = (key[5 + c // 2] >> (32 * (c % 2))) & 0xFFFFFFFF
    across = 0
    if field & _FLAGS:
        rest = field
        while rest:
            if rest & (_INCOMING | _OWED):
                across += 1  # a run across the cut: its part before the cut is still to come
            rest >>= 8
        if jokers == 0 and m > _NEAR_MOST:
            # past the numbers a part after the cut may reach, the part before the cut of a run
            # across it that holds m holds every number after m up to 13: no more such runs
            # than the fewest copies of those numbers
            for q in range(m + 1, NUMBERS + 1):
                across = min(across, _left(f, o, c, q, n))
        if across >= need:
            return across
    distinct = 0
    copies = 0  # of each colour at m, two at most
    for c2 in range(COLOURS):
        k = _unheld(f, o, c2, m, n, held)
        if k > 0:
            distinct += 1
            copies += min(k, 2)
    own = _unheld(f, o, c, m, n, held)
    homes = 0
    if distinct - (1 if own > 0 else 0) + spare >= 2:  # groups
        homes = min(2, (copies - min(2, own) + spare) // 2)
    if homes + across >= need:
        return homes + across
    if held:  # (read apart: through _unheld, the standard game's 99th percentile was 5% slower)
        below = _unheld(f, o, c, m - 1, n, held)
        before = min(below, _unheld(f, o, c, m - 2, n, held))
        after = _unheld(f, o, c, m + 1, n, held)
        starting = min(after, _unheld(f, o, c, m + 2, n, held))
    else:
        below = _left(f, o, c, m - 1, n)
        before = min(below, _left(f, o, c, m - 2, n))
        after = _left(f, o, c, m + 1, n)
        starting = min(after, _left(f, o, c, m + 2, n))
    runs = 0
    if before + jokers > 0 or min(after, below) + jokers > 0 or starting + jokers > 0:  # a run of three
        runs = min(2, after + jokers) + before + jokers
    adjacent = 0  # open runs ending at m - 1
    while field:
        v = field & 255
        field >>= 8
        if v & (_INCOMING | _OWED):
            continue  # counted above
        if v & 15 == m - 1:
            adjacent += 1
        elif v & 15 < m and _missing(f, o, c, (v & 15) + 1, m - 1, n) <= jokers:
            runs += 1  # an open run that can reach it
    runs += adjacent
    if jokers == 0:
        # Each run that holds m holds m - 1 too (a copy left or an open run's end) or starts
        # at m (with m + 1 and m + 2): however many runs could reach m, no more than that.
        runs = min(runs, below + adjacent + starting)
    return homes + runs + across


@solver_kernel(I1, I1, I1, i64, counted=False)
def _owed_in_reach(f, o, key, pos):
    """Whether every run across the cut (``wrap_runs``, see :data:`_INCOMING`) may still be
    made whole (:func:`_far_part`) from the lowest tile left (place ``pos``, -1: none) on;
    a part after the cut still open may yet take more tiles (jit-compiled)."""
    if pos < 0:
        return False
    low = pos // COLOURS + 1
    jokers = f[KINDS] + o[KINDS]
    short = 0  # copies of 13, and of 12, that the runs across the cut need and no tile left gives
    for c in range(COLOURS):
        field = (key[5 + c // 2] >> (32 * (c % 2))) & 0xFFFFFFFF
        across = 0
        ones = 0
        while field:
            v = field & 255
            field >>= 8
            if not v & (_INCOMING | _OWED):
                break  # stored largest first: no more
            reach = False
            for near in range(v & 15, (_NEAR_MOST if v & _INCOMING else v & 15) + 1):
                if _far_part(f, o, c, near, low, jokers):
                    reach = True
                    break
            if not reach:
                return False
            across += 1
            ones += 1 if v == _OWED | 1 else 0
        if across:  # each run's part before the cut holds a 13 of its own, and a 12 after one tile
            k = c * NUMBERS + NUMBERS - 1
            short += max(0, across - f[k] - o[k]) + max(0, ones - f[k - 1] - o[k - 1])
    return short <= jokers


@solver_kernel(I1, I1, counted=False)
def _joker_room(key, runs):
    """Room for free jokers once every numbered tile is placed, 2 at most: the closed
    runs' and groups' (word 4 of the key) and every open run's (jit-compiled)."""
    room = (key[4] >> 4) & 3
    for c in range(COLOURS):
        _read_runs(key, c, runs)
        for i in range(OPEN):
            if runs[i]:
                room += _slots(runs[i])
    return min(2, room)


@solver_kernel(i64, I2, I1, I1, I1, I1, I1, I1, i64, counted=False)
def _keep_best(depth, options, next_opt, took, best_path, best_took, placed, placed_out, extra):
    """A new best: keep the path to ``depth`` (each depth's option and its record) and the
    rack tiles placed, ``extra`` free rack jokers more (jit-compiled)."""
    for d in range(depth):
        best_path[d] = options[d, next_opt[d] - 1]
        best_took[d] = took[d]
    for k in range(KINDS + 1):
        placed_out[k] = placed[k]
    placed_out[KINDS] += extra


@solver_kernel(I1, I1, I1, I2, I1, I1, i64, i64, i64, counted=False)
def _remember(memo, memo_used, stats, keys, probe, here, depth, bound, memo_mask):
    """Remember that every completion of the position at ``depth`` (``keys[depth]``) is
    worth at most ``bound`` (or :data:`_NO_TABLE`); returns the memo's mask, widened to
    every slot when a quarter of the first ones fill, or -1 when the memo is full and
    could be bigger (the solve returns -2) (jit-compiled)."""
    slot = probe[depth]
    if slot == _NO_SLOT or (slot < 0 and memo[(-1 - slot) * (KEY + 1) + KEY] != _EMPTY):
        # the empty slot found on entry was taken since: look again
        for i in range(KEY):
            here[i] = keys[depth, i]
        slot = _memo_find(memo, here, memo_mask)
    if slot >= 0:
        if bound < memo[slot * (KEY + 1) + KEY]:
            memo[slot * (KEY + 1) + KEY] = bound
    elif stats[0] >= (memo_mask + 1) * 3 // 4 and memo_mask + 1 == memo_used.shape[0]:
        if memo_mask + 1 < (1 << MAX_MEMO_BITS):
            return -1  # a position bigger than the memory: the caller grows it
    else:
        if stats[0] >= (memo_mask + 1) // 4 and memo_mask + 1 < memo_used.shape[0]:
            # a quarter full: a big search, given every slot at once
            memo_mask = memo_used.shape[0] - 1
            _memo_spread(memo, memo_used, stats[0], memo_mask)
            probe[:depth] = _NO_SLOT  # the slots moved
            for i in range(KEY):
                here[i] = keys[depth, i]
            slot = _memo_find(memo, here, memo_mask)
        s = -1 - slot
        for i in range(KEY):
            memo[s * (KEY + 1) + i] = keys[depth, i]
        memo[s * (KEY + 1) + KEY] = bound
        memo_used[stats[0]] = s
        stats[0] += 1
    return memo_mask


@solver_kernel(i64, I1, I1, I1, I1, I1, I1, I1, I1, counted=False)
def _take_meld(opt, f, o, placed, pin, pin_kinds, key, tiles, runs):
    """Form or extend the meld of option ``opt`` (its tiles in ``tiles``) from the tiles
    left, and track its run or its room for free jokers in the key; returns the record of
    :func:`_change` (jit-compiled)."""
    size = _meld_tiles(opt, tiles)
    kind = opt & 3
    copies = PIN_FIRST  # which copies: a group of three says, the other melds take pinned ones first
    if kind == 1 and (opt >> 2) & 15 != 15:
        copies = ((opt >> 12) & 7) << _PIN_SHIFT
    record = _change(f, o, placed, pin, pin_kinds, key, tiles, size, copies, 1)
    c = (opt >> 2) & 3
    room = (key[4] >> 4) & 3
    if kind == 3:  # a run extended: it ends at the tile now
        _read_runs(key, c, runs)
        v = (opt >> 4) & 255
        for i in range(OPEN):
            if runs[i] == v:
                runs[i] = (v & _INCOMING) | (tiles[0] % NUMBERS + 1)
                break
        _write_runs(key, c, runs)
    elif kind == 1:  # a group of three has room for one joker
        room = min(2, room + 4 - size)
    elif opt & _FROM_CUT:  # a run across the cut: its part after it, kept open
        _read_runs(key, c, runs)
        runs[OPEN - 1] = _INCOMING | size  # the last is free (_options)
        _write_runs(key, c, runs)
    elif opt & _TO_CUT:  # ... and its part before the cut: the run is whole
        _read_runs(key, c, runs)
        owed = _OWED | ((opt >> 18) & 7)
        for i in range(OPEN):
            if runs[i] == owed:
                runs[i] = 0
                break
        _write_runs(key, c, runs)
        room = 2  # a run of five at most: room for both jokers
    else:
        tracked = False
        first = (opt >> 4) & 15
        if size == 3 and first + 2 <= NUMBERS:
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
    return record


@solver_kernel(I1, I1, i64, I2, counted=False)
def _rows_of_path(best_path, best_took, steps, out):
    """The melds of the best path (its first ``steps`` options and their records) as meld
    rows in ``out``, each run extension added to its run; returns how many rows, free
    jokers not yet placed (jit-compiled)."""
    rows = 0
    for d in range(steps):
        opt = best_path[d]
        if opt == 0:
            continue
        pinned = best_took[d] >> _PIN_SHIFT  # bit q: the meld's q-th tile is a bound joker
        if opt & 3 == 1:
            colours = (opt >> 2) & 15
            jokers = (opt >> 6) & 3
            jmask = 0
            q = 0
            for c in range(COLOURS):
                if (colours >> c) & 1:
                    if (pinned >> q) & 1:
                        jmask |= 1 << c  # a bound joker standing for its colour
                    q += 1
                elif jokers > 0:  # free jokers stand for the first colours missing
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
            # the part after the cut of a run across it (wrap_runs) is a row of first 0 until the
            # part before it is formed: from 1, its length is its end
            from_cut = 0 if (opt >> 4) & _INCOMING else 1
            for r in range(rows):
                if (out[r, F_KIND] == RUN and out[r, F_KEY] == c and (out[r, F_FIRST] > 0) == from_cut
                        and out[r, F_FIRST] + out[r, F_LEN] - from_cut == end):
                    for i in range(gap):
                        out[r, F_JOKERS] |= 1 << (end + i)  # a joker stands for end + 1 + i
                    if pinned & 1:
                        out[r, F_JOKERS] |= 1 << (end + gap)  # the tile reached is a bound joker
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
                if ((mask | pinned) >> q) & 1:
                    jbits |= 1 << (_number_at(first, q, True) - 1)
            if opt & _TO_CUT:  # the part before the cut of a run across it: joined to its part after
                near = (opt >> 18) & 7
                for r in range(rows):
                    # owed by its length up to _OWED_MOST: of two such parts, either may take this one
                    if (out[r, F_KIND] == RUN and out[r, F_KEY] == c and out[r, F_FIRST] == 0
                            and min(out[r, F_LEN], _OWED_MOST) == near):
                        out[r, F_FIRST] = first
                        out[r, F_LEN] += length
                        out[r, F_JOKERS] |= jbits
                        break
                continue
            if opt & _FROM_CUT:
                first = 0  # until its part before the cut is formed
            out[rows, F_KIND] = RUN
            out[rows, F_KEY] = c
            out[rows, F_FIRST] = first
            out[rows, F_LEN] = length
            out[rows, F_COLOURS] = 1 << c
            out[rows, F_JOKERS] = jbits
        rows += 1
    return rows


# The search's steps (solve's ``mode``).
_ENTER = 0  # enter a position: bound, memo, the lowest tile's options
_TRY = 1  # try the position's next option, or remember it searched through
_BACK = 2  # back up to the parent, giving its option's tiles back


@solver_kernel(inline=True)
def _touched(opt):
    """The colours whose tiles or runs option ``opt`` (a meld) changes, bit c; every colour
    when it takes a free joker (the jokers left reach every colour's runs)."""
    kind = opt & 3
    if kind == 1:
        return 15 if (opt >> 6) & 3 else (opt >> 2) & 15
    if (kind == 2 and (opt >> 11) & 31) or (kind == 3 and (opt >> 12) & 3):
        return 15
    return 1 << ((opt >> 2) & 3)


@solver_kernel(inline=True)
def _fail_first(f, o, key, pos, jokers):
    """The place of the tile the search places next (fail first): of the tiles left at the
    lowest tile's number (``pos``), the one with the fewest options (:func:`_options`), a
    rack tile before a table tile with as many, else the lowest colour. Every tile of a
    number has the same groups, so only the runs each could start or extend and leaving it
    on the rack are counted: exactly where no joker is left, no run crosses the cut and no
    joker is bound (then the joker positions, the bound jokers' variants and where a part
    of a run across the cut may end are not told apart). Any tile of the lowest number may
    go first: the canonical form of :func:`_options` asks only that the numbers below are
    placed."""
    nb = pos // COLOURS
    best = pos
    fewest = 1 << 30
    for c in range(pos % COLOURS, COLOURS):
        xc = c * NUMBERS + nb
        if f[xc] + o[xc] == 0:
            continue
        g = 0 if f[xc] > 0 else 1  # leaving it on the rack
        field = (key[5 + c // 2] >> (32 * (c % 2))) & 0xFFFFFFFF
        if nb + 2 < NUMBERS:  # a new run from it, of three
            miss = (1 if f[xc + 1] + o[xc + 1] == 0 else 0) + (1 if f[xc + 2] + o[xc + 2] == 0 else 0)
            if miss <= jokers:
                g += 1
                # ... of four and five when its colour has no room left, no joker at an end
                if miss == 0 and field >> 24 != 0 and nb + 3 < NUMBERS and f[xc + 3] + o[xc + 3] > 0:
                    g += 1
                    if nb + 4 < NUMBERS and f[xc + 4] + o[xc + 4] > 0:
                        g += 1
        if nb >= 1 and nb + 1 < NUMBERS and jokers >= 1 + (1 if f[xc + 1] + o[xc + 1] == 0 else 0):
            g += 1  # ... after a joker
        if nb >= 2 and jokers >= 2:
            g += 1  # ... after two
        if g > fewest:
            continue
        previous = 0
        while field:  # the open runs it may extend (one option for runs alike), and the parts owed
            v = field & 255
            field >>= 8
            if v == previous:
                continue
            previous = v
            if v & _OWED:
                if nb + 1 >= 9 + (v & 15):  # a part before the cut from it to 13, five tiles at most
                    g += 1
                continue
            gap = nb - (v & 15)
            if 0 <= gap <= min(2, jokers):
                g += 1
        if g < fewest or (g == fewest and f[xc] == 0 and f[best % COLOURS * NUMBERS + nb] > 0):
            fewest = g
            best = nb * COLOURS + c
    return best


@solver_kernel(I1, I1, i64, counted=False)
def _progress(n_opts, next_opt, depth):
    """How much of its tree a search stopped at ``depth`` has been through, by the options
    tried at each depth above: each option an equal share of its parent's (a tree's size
    estimated from a depth-first prefix, as a solver of satisfiability reports progress)
    (jit-compiled)."""
    done = 0.0
    share = 1.0
    for d in range(depth):
        done += share * (next_opt[d] - 1) / n_opts[d]
        share /= n_opts[d]
    return done


@solver_kernel(SCRATCH, i64, i64, i64, boolean, i64, I1, boolean, counted=False)
def _search(sc, n_needy, rem, g3max, cyclic, best, placed_out, resume):
    """The depth-first search of a solve set up by :func:`_begin` (``rem``: the weight of the
    rack left), a step at a time (``mode``): enter a position, try its next option, back up.
    Returns the best weight found (``best`` when nothing beats it), the best path in
    ``sc.best_path`` (``sc.stats[1]`` steps, -1 for none), or -2 when the memo is too small;
    the best found so far once ``sc.stats[4]`` positions are visited, if that is not 0
    (:data:`BUDGET`), where it stopped kept in ``sc.state`` to go on from there with
    ``resume`` (jit-compiled)."""
    f, o, placed, pin, pin_kinds, key, runs, tiles, weights = (sc.f, sc.o, sc.placed, sc.pin, sc.pin_kinds, sc.key,
                                                               sc.runs, sc.tiles, sc.weights)
    options, n_opts, next_opt, took, entry_w, keys = sc.options, sc.n_opts, sc.next_opt, sc.took, sc.entry_w, sc.keys
    cut, found, probe, stats, memo, memo_used = sc.cut, sc.found, sc.probe, sc.stats, sc.memo, sc.memo_used
    memo_mask = min(memo_used.shape[0], 1 << START_BITS) - 1  # widened if the search needs
    up_bound = 0  # what the parent learns when a position stops: cut by the bound, a table found
    up_found = 0
    w = np.int64(0)
    depth = 0
    mode = _ENTER
    touched = 15  # the colours whose runs may have closed since the parent's were (bit c): all at first
    low = 0  # where the search for the lowest tile starts
    state = sc.state
    above = not cyclic and stats[4] == 0  # runs of three take their jokers above their lowest tile (_options)
    if resume:  # where the search stopped on its budget: the position it was to enter
        w, rem, best, depth, low, memo_mask = state[0], state[1], state[2], state[3], state[4], state[5]
        stats[2] -= 1
    while True:
        if mode == _ENTER:
            stats[2] += 1
            if stats[4] > 0 and stats[2] > stats[4]:
                stats[5] = 1  # the caller's budget spent: the best found so far (see BUDGET)
                break
            up_bound = 1  # if this position stops here: cut by the bound
            up_found = 0
            if w + rem <= best:
                mode = _BACK
                continue
            if n_needy and _jokers_needed(f, o, key, sc.needy, n_needy) > f[KINDS] + o[KINDS]:
                up_bound = 0  # no table, whatever the weight
                mode = _BACK
                continue
            pos = _lowest(key)
            if (key[5] | key[6]) & _FLAGS and not _owed_in_reach(f, o, key, pos):
                up_bound = 0  # a run across the cut (wrap_runs) can no longer be made whole
                mode = _BACK
                continue
            if pos < 0:
                # Every numbered tile placed; the jokers left join melds with room (a run
                # shorter than 13, a group of three), the table's first.
                room = _joker_room(key, runs)
                up_bound = 0
                if f[KINDS] <= room:
                    up_found = 1
                    extra = min(o[KINDS], room - f[KINDS])
                    if w + extra * weights[KINDS] > best:
                        best = w + extra * weights[KINDS]
                        stats[1] = depth
                        stats[3] = f[KINDS] + extra
                        _keep_best(depth, options, next_opt, took, sc.best_path, sc.best_took, placed, placed_out,
                                   extra)
                mode = _BACK
                continue
            low = pos
            x = (pos % COLOURS) * NUMBERS + pos // COLOURS
            if key[5] | key[6]:  # open runs: close those no tile left can extend
                _close_runs(f, o, key, runs, touched)
            slot = _memo_find(memo, key, memo_mask)
            probe[depth] = slot
            if slot >= 0 and memo[slot * (KEY + 1) + KEY] + w <= best:
                if memo[slot * (KEY + 1) + KEY] == _NO_TABLE:
                    up_bound = 0
                mode = _BACK
                continue
            if (slot < 0 and (key[5] | key[6]) & _OWED_BYTES and f[KINDS] + o[KINDS] == 0
                    and _owed_two(key, sc.here)):
                # Not remembered, but the same position with its runs owed two tiles owed
                # one may be: it places as much at least (see _owed_two), so its bound holds.
                slot = _memo_find(memo, sc.here, memo_mask)
                if slot >= 0 and memo[slot * (KEY + 1) + KEY] + w <= best:
                    if memo[slot * (KEY + 1) + KEY] == _NO_TABLE:
                        up_bound = 0
                    mode = _BACK
                    continue
            if ((cyclic or stats[2] > STRANDED_FROM)
                    and (depth == 0 or keys[depth - 1, KEY] // COLOURS < pos // COLOURS)):
                # The first position of a number: a table tile left stranded, or rack tiles
                # that no meld left can hold, so that the rest cannot beat the best (checked
                # at every position, it cost more than the positions it saved; in the
                # standard game's cheap searches, more than it saved too).
                lost = _stranded(f, o, key, weights, pos, f[KINDS] + o[KINDS], cyclic)
                if lost < 0 or w + rem - lost <= best:
                    up_bound = 0 if lost < 0 else 1  # no table, whatever the weight; or cut by the bound
                    mode = _BACK
                    continue
            entry_w[depth] = w
            cut[depth] = 0
            found[depth] = 0
            for i in range(KEY):
                keys[depth, i] = key[i]
            if stats[9]:  # FAIL_FIRST
                low = _fail_first(f, o, key, pos, f[KINDS] + o[KINDS])
                x = (low % COLOURS) * NUMBERS + low // COLOURS
            keys[depth, KEY] = low
            may_leave = 1 if f[x] == 0 else 0
            n_opts[depth] = _options(f, o, pin, pin_kinds, key, x, f[KINDS] + o[KINDS], g3max, may_leave, cyclic, above,
                                     runs, options[depth])
            next_opt[depth] = 0
            mode = _TRY
        elif mode == _TRY:
            if next_opt[depth] == n_opts[depth]:
                # every completion of this position is worth at most best - its entry weight
                bound = best - entry_w[depth]
                if not cut[depth] and not found[depth]:
                    bound = _NO_TABLE  # searched through, nothing stands: whatever the weight
                up_bound = cut[depth]
                up_found = found[depth]
                memo_mask = _remember(memo, memo_used, stats, keys, probe, sc.here, depth, bound, memo_mask)
                if memo_mask < 0:
                    return -2  # a position bigger than the memory: the caller grows it
                mode = _BACK
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
                touched = 1 << (low % COLOURS)
            else:
                took[depth] = _take_meld(opt, f, o, placed, pin, pin_kinds, key, tiles, runs)
                touched = _touched(opt)
                g = _gain(weights, tiles, took[depth])
                w += g
                rem -= g
            depth += 1
            mode = _ENTER
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
                _change(f, o, placed, pin, pin_kinds, key, tiles, size, took[depth], -1)
                w -= g
                rem += g
            for i in range(KEY):
                key[i] = keys[depth, i]
            mode = _TRY
    if stats[5] == 1:  # stopped on its budget (kept out of the loop, whose code it would slow)
        state[0], state[1], state[2], state[3], state[4], state[5] = w, rem, best, depth, low, memo_mask
        done = _progress(n_opts, next_opt, depth)
        state[6] = np.int64(min(stats[2] / done, 1e15)) if done > 0 else np.int64(1e15)
    return best


@solver_kernel(I1, I1, I1, I1, counted=False)
def _rank_cuts(table, pins, rack, order):
    """With wrap-around runs (K-VAR ``wrap_runs``), where to cut the circle of numbers: the
    shifts that make the numbers either side of a cut the new 13 and 1 (0: between 13 and
    1, as in the standard game), the fewest crossing runs first. The search forms every
    run that crosses the cut in two parts (see :func:`_options`) and carries what the
    part after the cut owes through every position between; where few runs can cross (a
    colour with few tiles either side), positions met again are the same and the memo
    finds them. Each colour's crossing runs are tried with every choice of the other
    colours', so a cut is scored by the product over colours of one plus that colour's
    runs that may cross, not their sum: on 20,000 positions of wrap-around rounds, with the
    crossing runs formed whole at the cut as they were then, the positions visited (the
    budgets of the cuts given up included) fell from a mean of 842 to 607 and a 99th
    percentile of 12,718 to 8,996 (the best cut for each position: 184 and 2,193); by a
    sum, against the 13-1 cut alone, the median was 62 against 218 on 1,948 positions.
    With the runs formed in two parts, of the ways to rank cuts tried on the same positions
    (the rack's tiles before them, as :func:`_descending` weighs them, alone or with the
    product; a least-squares fit on counts about the cut) none did better than the product.
    The shifts in ``order[:13]``, their scores after them (jit-compiled)."""
    score = order[NUMBERS:]
    for sh in range(NUMBERS):
        score[sh] = 1
    for k0 in range(0, KINDS, NUMBERS):
        # the copies of the numbers (from 0) a - 1, a, a + 1 and a + 2 of a colour, round the
        # circle, for the cut between a and a + 1: read once each as a goes round
        before = table[k0 + NUMBERS - 1] + pins[k0 + NUMBERS - 1] + rack[k0 + NUMBERS - 1]
        here = table[k0] + pins[k0] + rack[k0]
        after = table[k0 + 1] + pins[k0 + 1] + rack[k0 + 1]
        beyond = table[k0 + 2] + pins[k0 + 2] + rack[k0 + 2]
        for a in range(NUMBERS):
            # the runs of three or more that may cross: a tile either side, one more beside
            score[NUMBERS - 1 - a] *= 1 + (before + 1) * here * after * (beyond + 1)
            k = k0 + (a + 3 if a + 3 < NUMBERS else a + 3 - NUMBERS)
            before, here, after, beyond = here, after, beyond, table[k] + pins[k] + rack[k]
    for sh in range(NUMBERS):  # sorted by insertion, ties: the smaller shift first
        i = sh
        while i > 0 and score[order[i - 1]] > score[sh]:
            order[i] = order[i - 1]
            i -= 1
        order[i] = sh


@solver_kernel(I1, I1, I1, entry=True)
def _cuts(table, pins, rack):
    """The shifts of the circle of numbers in the order a solve tries them
    (:func:`_rank_cuts`) (jit-compiled)."""
    order = np.empty(2 * NUMBERS, dtype=np.int64)
    _rank_cuts(table, pins, rack, order)
    return order[:NUMBERS].copy()


@solver_kernel(inline=True)
def _descending_turned(table, rack, shift):
    """:func:`_descending` of the counts with every number ``m`` moved to ``m + shift`` (13
    wrapping to 1), read where they are."""
    below = np.int64(0)
    above = np.int64(0)
    seen = np.int64(0)  # tiles of the numbers below n
    total = np.int64(0)
    for k in range(KINDS):
        total += table[k] + rack[k]
    for n in range(NUMBERS):
        m = n - shift if n >= shift else n - shift + NUMBERS
        here = np.int64(0)
        mine = np.int64(0)
        for k in range(m, KINDS, NUMBERS):
            here += table[k] + rack[k]
            mine += rack[k]
        below += mine * seen
        above += mine * (total - seen - here)
        seen += here
    return above < below


@solver_kernel(I1, I1, entry=True)
def _descending(table, rack):
    """Whether to search from 13 down rather than from 1 up (the standard game). The search
    weighs every rack tile until it reaches the tile's number: until then each branch may
    still place it, so the bound (the rack left) cuts nothing, and a rack tile no table can
    place keeps every arrangement below it open. So the search starts from the end where the
    rack's tiles have fewer tiles before them: the sum over rack tiles of the tiles (table and
    rack) of lower numbers, against the same of higher numbers. On 20,000 positions of greedy
    rounds of 2-4 players the positions visited fell by 29% (the better of the two directions
    for each position: by 47%) (jit-compiled)."""
    return _descending_turned(table, rack, 0)


@solver_kernel(I2, i64, counted=False)
def _mirror_rows(out, rows):
    """Meld rows found on mirrored tiles (every number ``m`` moved to ``14 - m``, see
    :func:`_source`) mirrored back: a run's first number and its jokers (by number), a
    group's number (jit-compiled)."""
    for r in range(rows):
        if out[r, F_KIND] == RUN:
            out[r, F_FIRST] = NUMBERS - (out[r, F_FIRST] + out[r, F_LEN] - 2) % NUMBERS  # from its last
            bits = np.int64(0)
            for m in range(NUMBERS):
                if (out[r, F_JOKERS] >> m) & 1:
                    bits |= np.int64(1) << (NUMBERS - 1 - m)
            out[r, F_JOKERS] = bits
        else:
            out[r, F_KEY] = NUMBERS + 1 - out[r, F_KEY]


@solver_kernel(I2, i64, i64, counted=False)
def _turn_rows(out, rows, shift):
    """Meld rows found on tiles turned by ``shift`` (every number ``m`` moved to ``m +
    shift``, 13 wrapping to 1, see :func:`_source`) turned back: a run's first number and
    its jokers (by number), a group's number (jit-compiled)."""
    for r in range(rows):
        if out[r, F_KIND] == RUN:
            out[r, F_FIRST] = (out[r, F_FIRST] - 1 - shift) % NUMBERS + 1
            bits = np.int64(0)
            for m in range(NUMBERS):
                if (out[r, F_JOKERS] >> m) & 1:
                    bits |= np.int64(1) << ((m - shift) % NUMBERS)
            out[r, F_JOKERS] = bits
        else:
            out[r, F_KEY] = (out[r, F_KEY] - 1 - shift) % NUMBERS + 1


@solver_kernel(inline=True)
def _scratch(f, o, placed, pin, pin_kinds, options, n_opts, next_opt, took, entry_w, keys, best_path, best_took,
             stats, memo, memo_used, state, small):
    """The scratch of one search (:class:`Scratch`): these arrays, and the small ones
    (:data:`_SMALL`) cut from ``small`` (jit-compiled)."""
    at = _SMALL_PARTS
    return Scratch(f, o, placed, pin, pin_kinds, options, n_opts, next_opt, took, entry_w, keys, best_path, best_took,
                   stats, memo, memo_used, small[at[0]:at[1]], small[at[1]:at[2]], small[at[2]:at[3]],
                   small[at[3]:at[4]], small[at[4]:at[5]], small[at[5]:at[6]], small[at[6]:at[7]], small[at[7]:at[8]],
                   small[at[8]:at[9]], state)


@solver_kernel(inline=True)
def _scratch_of(space, memo_at):
    """The scratch of one search laid out in ``space``, its memo from ``memo_at`` to the
    end: the slots, then the slots used (jit-compiled)."""
    slots = (space.shape[0] - memo_at) // (KEY + 2)
    return _scratch(space[_F:_O], space[_O:_PLACED], space[_PLACED:_PIN], space[_PIN:_PIN_KINDS],
                    space[_PIN_KINDS:_OPTIONS], space[_OPTIONS:_N_OPTS].reshape((DEPTH, OPTIONS)),
                    space[_N_OPTS:_NEXT], space[_NEXT:_TOOK], space[_TOOK:_ENTRY_W], space[_ENTRY_W:_KEYS],
                    space[_KEYS:_BEST_PATH].reshape((DEPTH, KEY + 1)), space[_BEST_PATH:_BEST_TOOK],
                    space[_BEST_TOOK:STATS], space[STATS:_STATE_AT], space[memo_at:memo_at + slots * (KEY + 1)],
                    space[memo_at + slots * (KEY + 1):], space[_STATE_AT:_SMALL_AT], space[_SMALL_AT:_SPARE])


@solver_kernel(I1, I1, I1, i64, i64, i64, boolean, i64, i64, SCRATCH, I1, counted=False)
def _setup(table, pins, rack, objective, joker_value, g3max, cyclic, shift, direction, sc, placed_out):
    """Set a search up on the numbers turned by ``shift`` (:func:`_source`), from 13 down if
    ``direction`` is 1, from 1 up if 0, as :func:`_descending` chooses if -1 and the other
    way if 2 (the numbers mirrored), its memo emptied: returns ``(needy
    tiles, weight of the rack left, mirrored)`` (see :func:`_begin`). The counts are read
    where they are, not turned and mirrored into copies first: six copies were a tenth of
    a median ``wrap_runs`` solve's fixed cost (jit-compiled)."""
    mirrored = (direction == 1 or (direction < 0 and _descending_turned(table, rack, shift))
                or (direction == 2 and not _descending_turned(table, rack, shift)))
    sc.key[:] = 0  # _begin adds the tiles in (a search before left its last position)
    n_needy, rem = _begin(table, pins, rack, objective, joker_value, g3max, cyclic, shift, mirrored, sc, placed_out)
    stats, memo = sc.stats, sc.memo
    for i in range(stats[0]):
        memo[sc.memo_used[i] * (KEY + 1) + KEY] = _EMPTY
    stats[0] = 0
    stats[1] = -1
    stats[2] = 0
    stats[5] = 0
    return n_needy, rem, mirrored


@solver_kernel(SCRATCH, boolean, i64, boolean, I2, I1, I1, counted=False)
def _answer(sc, cyclic, shift, mirrored, out, placed_out, spare):
    """The best play a search found (:func:`_search`), on the numbers as they were: its melds
    in ``out`` (returns how many, -1 for none) and the rack tiles it places in
    ``placed_out`` (``spare``: a count vector to turn them in) (jit-compiled)."""
    if sc.stats[1] < 0:
        return -1
    rows = _rows_of_path(sc.best_path, sc.best_took, sc.stats[1], out)
    if mirrored:
        _mirror_rows(out, rows)
    _place_jokers(out, rows, sc.stats[3], cyclic)
    if shift:
        _turn_rows(out, rows, shift)
    if mirrored or shift:
        copy_row(spare, placed_out)
        for j in range(NUMBERS):
            m = _source(j, shift, mirrored)
            for k0 in range(0, KINDS, NUMBERS):
                placed_out[k0 + m] = spare[k0 + j]
    return rows


@solver_kernel(I1, I1, I1, i64, i64, i64, boolean, i64, i64, SPACE, I2, I1, entry=True, counted=False)
def solve(table, pins, rack, objective, joker_value, g3max, cyclic, floor, cut, space, out, placed_out):
    """The best play of ``rack`` onto ``table`` (count vectors of 53, jokers at 52; the
    table's free jokers at 52, its bound jokers in ``pins``, by the tile each stands for,
    at most two, K-JOKER-2): returns ``(weight, rows)``. The weight is ``PRIMARY *
    primary + secondary``, primary the objective (0: value, a rack joker at
    ``joker_value``; 1: tiles), secondary the other; the table afterwards is in
    ``out[:rows]`` as meld rows (a bound joker still standing for its tile) and the rack
    tiles placed in ``placed_out``. Only plays weighing more than ``floor`` are sought:
    -1 for any arrangement of the tiles, 0 when the table as it stands is valid (only
    plays worth more than nothing), more when a caller already holds a play that good
    (the incumbent of a branch and bound over several solves); ``rows`` is -1 when there
    is none (weight ``floor``). ``cut``: -1, where the circle of numbers is cut (with
    ``cyclic``, as :func:`_cuts` orders them) and which way the search runs (as
    :func:`_descending` chooses) are the solver's; else a shift (``cut % 13``, with
    ``cyclic``: to check that every cut agrees) and from 13 down if ``cut >= 13``.
    Weight -1: the tiles cannot form a table; -2: ``space`` remembers too few positions
    for this one, make a bigger one and solve again (jit-compiled)."""
    sc = _scratch_of(space, _MEMO)
    stats = sc.stats
    # Wrap-around runs (K-VAR): the numbers turned so that the search starts where few runs
    # cross (see _cuts); the melds and the tiles placed are turned back at the end. The
    # ranking of the choices of cut and direction is often wrong where it matters most: on
    # 20,000 positions of wrap-around rounds the first choice visited 326 positions on
    # average and 3,741 at the 99th percentile, the best of the 26 choices 60 and 451, and on
    # the slowest 2% only two choices in 26 are within twice the best, at any rank. So once
    # the first choice has visited PROBE_FIRST positions (PROBE_LIMIT) its progress is read
    # (_progress: the share of its options tried, depth by depth) and, when it would visit
    # over PROBE_DEAR times that, it waits where it stopped while the next PROBES choices
    # (the first cut's other direction, then the second cut, ...) are searched on
    # PROBE_BUDGET positions each in a scratch of their own (a probe that finishes gives the
    # answer); one probe of 128 positions after 128 rather than two of 256 after 256: on the
    # bench's 20,000 wrap_runs positions of seeds 2026 and 2027, 99th percentile 1,214 to
    # 1,041 and 1,125 to 1,015 positions visited, mean 115.8 to 111.4 and 107.1 to 108.1
    # (probes of 64 after 64, or two, or a pick past twice the first, did worse on one seed
    # or both). The one estimated cheapest, if cheaper than the first, goes on there for
    # PICK_FACTOR times its estimate at most (the estimate can be badly wrong: unbounded,
    # one position went from 10,592 positions to 88,697); past that, or with none cheaper,
    # the first goes on where it stopped.
    # Should the first pass CUT_BUDGET positions, the other cuts are tried in turn on a
    # sixteenth of that budget, then on the whole budget, then the budget grows fourfold
    # after each round of all the cuts (the first again): a bad first cut costs a few budgets,
    # not minutes (a caller's own budget, BUDGET, still bounds each search, and no probe
    # is made under one). When a cut is given up, a few other cuts are often as cheap as the
    # best, which the round of small budgets finds, and it costs at most 12 small budgets
    # more when none is (a turn's solves above a floor are often all dear).
    if cyclic and cut < 0:
        _rank_cuts(table, pins, rack, space[_ORDER:_ORDER + 2 * NUMBERS])
        order = space[_ORDER:_ORDER + NUMBERS]
    else:
        space[_ORDER] = cut % NUMBERS if cyclic and cut > 0 else 0
        order = space[_ORDER:_ORDER + 1]
    caller = stats[4]
    spent = stats[5]  # a caller's budget spent by an earlier solve stays said (OVER_BUDGET)
    first = space[CUT_LIMIT] if order.shape[0] > 1 else 0  # the first cut's budget
    limit = first
    rounds = 0  # 0: the first cut alone; then rounds of every cut
    attempt = 0
    direction = -1 if cut < 0 else (1 if cut >= NUMBERS else 0)
    reading = space[PROBE_LIMIT]  # where the first choice's progress is read
    probing = order.shape[0] > 1 and caller == 0 and 0 < reading < first
    resume = False
    stats[7] = 0  # VISITED_ALL
    floor = max(np.int64(-1), floor)
    # One call of _search for every search (inlined once): step 0 the first choice and the
    # cuts after it in sc; steps 1 to last the probes in psc, then the one going on.
    step = 0
    psc, p_placed = sc, placed_out  # made when the first is dear
    p_n, p_rem, p_mirrored, p_shift = np.int64(0), np.int64(0), False, np.int64(0)
    n_needy, rem, mirrored, shift = np.int64(0), np.int64(0), False, np.int64(0)
    last = 0
    pick = 0  # the choice estimated cheapest (0: the first)
    cheapest = np.int64(0)
    best = floor
    while True:
        # (_setup, _search and _answer each called once in solve: each call is compiled in)
        if step == 0:
            shift = order[attempt]
            direction_now = direction
            direction = -1 if cut < 0 else direction
            budget = caller if limit == 0 or (0 < caller <= limit) else limit
            if probing:
                budget = reading
            cur, cur_placed, cur_resume, cur_shift = sc, placed_out, resume, shift
        else:
            # the choices after the first (the first cut the other way, the second cut),
            # then the one estimated cheapest going on, on a budget of its own
            choice, budget, cur_resume = step, min(reading, PROBE_BUDGET), False
            if step > last:
                choice, budget, cur_resume = pick, PICK_FACTOR * cheapest, pick == last
            direction_now = 2 if choice % 2 else -1
            cur, cur_placed, cur_shift = psc, p_placed, order[choice // 2]
        if not cur_resume:
            cur_n, cur_rem, cur_mirrored = _setup(table, pins, rack, objective, joker_value, g3max, cyclic, cur_shift,
                                                  direction_now, cur, cur_placed)
            if cur_n < 0:
                if step == 0:
                    return -1, 0  # a table tile no meld can hold
                step = 0  # (the same tiles: not when the first choice could begin)
                resume = True
                continue
            if step == 0:
                n_needy, rem, mirrored = cur_n, cur_rem, cur_mirrored
            else:
                p_n, p_rem, p_mirrored, p_shift = cur_n, cur_rem, cur_mirrored, cur_shift
        elif step == 0:
            cur_n, cur_rem = n_needy, rem
        else:
            cur_n, cur_rem = p_n, p_rem
        before = cur.stats[2] if cur_resume else 0  # the positions a search resumed had visited
        cur.stats[4] = budget
        cur.stats[5] = 0
        found = _search(cur, cur_n, cur_rem, g3max, cyclic, floor, cur_placed, cur_resume)
        stats[7] += cur.stats[2] - before
        if step > 0:  # a probe, or the one going on
            if found != -2 and psc.stats[5] == 0:  # searched through: the answer
                stats[5] = 0  # (the first stopped on its budget, not a caller's)
                copy_row(placed_out, p_placed)
                best, sc, shift, mirrored = found, psc, p_shift, p_mirrored
                break
            if found != -2 and step <= last and psc.state[6] < cheapest:
                cheapest = psc.state[6]
                pick = step
            step += 1
            if found == -2 or step > last + 1 or (step > last and pick == 0):
                step = 0  # past its budget, its memo full, or none cheaper: the first goes on where it stopped
                resume = True
            continue
        resume = False
        stats[4] = caller
        if found == -2:
            return -2, 0  # a position bigger than the memory: the caller grows it
        best = found
        if probing and stats[5] == 1:
            probing = False
            resume = True  # the first goes on where it stopped, now or after the probes
            if sc.state[6] > PROBE_DEAR * reading:
                cheapest = sc.state[6]
                probe_space = space[_PROBE:_PROBE + _PROBE_SPACE]
                probe_space[FAIL_FIRST] = space[FAIL_FIRST]
                psc = _scratch_of(probe_space, _HEAD)
                p_placed = space[_PROBE_PLACED:_PROBE_PLACED + KINDS + 1]
                last = min(PROBES, 2 * order.shape[0] - 1)
                step = 1
            continue
        if stats[5] == 1 and limit > 0 and not 0 < caller <= limit:
            while True:  # past this cut's budget: the next cut
                attempt += 1
                if rounds == 0 or attempt == order.shape[0]:
                    attempt %= order.shape[0]
                    # one round of small budgets, then the first cut's, fourfold after each round
                    limit = max(np.int64(1), first >> 4) if rounds == 0 else first if rounds == 1 else limit * 4
                    rounds += 1
                if attempt > 0 or limit > first:
                    break
            continue
        break
    stats[5] |= spent
    rows = _answer(sc, cyclic, shift, mirrored, out, placed_out, space[_SPARE:_ORDER])
    return (best, rows) if rows >= 0 else (floor, -1)

