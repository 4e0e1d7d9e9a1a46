"""One Rummy 101 round with tiles, played by bots, in numba (docs/rules.md section T).

Everything here is jit-compiled and works on integer arrays:

- ``rp``: the rules as integers (``RP_*``, built by :func:`sim.games.rummy101.play.rules_params`);
- ``racks[p, 53]``: count vectors; ``deck``: the shuffled 106 tiles, the stock being
  ``deck[G_STOCK:]``;
- ``table[i]``: meld rows (:mod:`sim.solver.layout`) with the owner in ``T_OWNER``;
- ``ps[p]``: what each player has done (``PS_*``); ``g``: the round's counters (``G_*``);
- ``events``: the trace, one row per action (``EV_*``), filled only when tracing.

A turn (T-TURN-1, T-TURN-2) is take, act, discard. The bots' choices live in
:mod:`sim.games.rummy101.bots`; this module owns the rules: what may be taken, laid, added,
recovered and discarded, when the round ends and what everyone scores.
"""

from __future__ import annotations

from sim.games.rummy101 import FINISHES
from sim.jit import I1, I2, boolean, i64, kernel
from sim.solver.arrays import SOLVER_ARRAYS, SOLVER_SPACE  # noqa: F401 (the engine's argument types)
from sim.solver.kernel import best_score, search, tiles_of, value_of
from sim.solver.layout import (
    F_COLOURS,
    F_FIRST,
    F_JOKERS,
    F_KEY,
    F_KIND,
    F_LEN,
    MELD_FIELDS,
    PAIR,
    RUN,
    SET,
    lay_out,
)
from sim.tiles import COUNTS_LEN, JOKER, KINDS, MAX_JOKERS, NUMBERS

# --- rules parameters ----------------------------------------------------------------------
(RP_PLAYERS, RP_RACK, RP_STARTER_EXTRA, RP_SET_JOKERS, RP_OPEN_POINTS, RP_OPEN_PAIRS,
 RP_INCREASING, RP_BUTTON, RP_KEEP, RP_WIN, RP_UNOPENED, RP_PAIRS_FACTOR, RP_FINISH_FACTOR,
 RP_ONE_TURN_PENALTY, RP_JOKER_PENALTY, RP_STARTER_MAY_OPEN, RP_DUPLICATE) = range(17)
RP_LEN = 17  # RP_DUPLICATE is not a rule: the players with ``--duplicate`` deals (sim.deal.deal_round), else 0

# --- player state ------------------------------------------------------------------------
(PS_OPEN_KIND, PS_OPEN_TURN, PS_OPEN_VALUE, PS_OPEN_THRESHOLD, PS_TOOK_DISCARD, PS_TURNS,
 PS_BUTTON_LEFT, PS_BUTTON_TURN, PS_OPEN_ORDER, PS_POLICY, PS_SCORE, PS_RACK_VALUE,
 PS_JOKERS_LEFT) = range(13)
PS_LEN = 13
OPEN_NONE, OPEN_MELDS, OPEN_PAIRS = 0, 1, 2

# --- round counters ------------------------------------------------------------------------
(G_STOCK, G_LAST_DISCARD, G_LAST_DISCARDER, G_LADDER_POINTS, G_LADDER_PAIRS, G_OPENERS,
 G_NTABLE, G_TURNS, G_FINISH, G_WINNER, G_NEVENTS, G_ERROR, G_TRACE) = range(13)
G_LEN = 13

FINISH_NORMAL, FINISH_JOKER, FINISH_ONE_TURN, FINISH_ONE_TURN_JOKER, FINISH_STOCK_OUT = range(5)
FINISH_NAMES = FINISHES

ERR_NONE, ERR_UNUSED_DISCARD, ERR_TOO_LONG, ERR_EVENTS, ERR_BAD_MELD, ERR_JOKERS = 0, 1, 2, 3, 4, 5
RACK_JOKERS = MAX_JOKERS  # the most jokers a rack may hold: the opening solver's range

T_OWNER = MELD_FIELDS
TABLE_FIELDS = MELD_FIELDS + 1
MAX_TABLE = 80
MAX_TURNS = 600
DECK_TILES = 106

# --- trace events: (type, player, turn, a, b, c, d, e, f, g) --------------------------------
(EV_DEAL, EV_DRAW, EV_TAKE, EV_BUTTON, EV_OPEN, EV_LAY, EV_ADD, EV_RECOVER, EV_DISCARD,
 EV_FINISH, EV_STOCK_OUT, EV_SCORE) = range(12)
EV_FIELDS = 10
MAX_EVENTS = 4000
ADD_LOW, ADD_HIGH, ADD_SET = 0, 1, 2


@kernel(inline=True)
def event(events, g, kind, p, a=0, b=0, c=0, d=0, e=0, f=0, h=0):
    """Append one trace row when tracing (jit-compiled)."""
    if g[G_TRACE] == 0:
        return
    i = g[G_NEVENTS]
    if i >= events.shape[0]:
        g[G_ERROR] = ERR_EVENTS
        return
    events[i, 0] = kind
    events[i, 1] = p
    events[i, 2] = g[G_TURNS]
    events[i, 3] = a
    events[i, 4] = b
    events[i, 5] = c
    events[i, 6] = d
    events[i, 7] = e
    events[i, 8] = f
    events[i, 9] = h
    g[G_NEVENTS] = i + 1


# --- small helpers -------------------------------------------------------------------------


@kernel(I1)
def rack_tiles(rack):
    n = 0
    for k in range(COUNTS_LEN):
        n += rack[k]
    return n


@kernel(inline=True)
def distinct_tiles(rack):
    """How many kinds of tile but the joker the rack holds: the discards it may choose
    between (T-TURN-2: a joker is thrown only as the last tile, T-FIN-2)."""
    n = 0
    for k in range(KINDS):
        if rack[k] > 0:
            n += 1
    return n


@kernel(I1, i64)
def rack_points(rack, joker_value):
    """Sum of the rack: numbers, and ``joker_value`` per joker (T-VAL-1, T-SCORE-2)."""
    v = rack[JOKER] * joker_value
    for k in range(KINDS):
        v += rack[k] * (k % NUMBERS + 1)
    return v


@kernel(I1, I1)
def points_threshold(g, rp):
    """Points a melds opening needs now (T-THR-1; T-THR-2: more than the last one)."""
    if rp[RP_INCREASING] and g[G_LADDER_POINTS] > 0:
        return max(rp[RP_OPEN_POINTS], g[G_LADDER_POINTS] + 1)
    return rp[RP_OPEN_POINTS]


@kernel(I1, I1)
def pairs_threshold(g, rp):
    """Pairs a pairs opening needs now (T-THR-1, T-THR-2); 0: no pairs opening."""
    if rp[RP_OPEN_PAIRS] == 0:
        return 0
    if rp[RP_INCREASING] and g[G_LADDER_PAIRS] > 0:
        return max(rp[RP_OPEN_PAIRS], g[G_LADDER_PAIRS] + 1)
    return rp[RP_OPEN_PAIRS]


@kernel(I2, i64, i64)
def others_opened_pairs(ps, players, p):
    """T-OPEN-5: new pairs after a melds opening only once another player opened with pairs."""
    for q in range(players):
        if q != p and ps[q, PS_OPEN_KIND] == OPEN_PAIRS:
            return True
    return False


@kernel(I1, i64)
def meld_tile_at(row, i):
    """Kind shown at position ``i`` of a meld row and whether a joker holds it."""
    if row[F_KIND] == RUN:
        n = (row[F_FIRST] - 1 + i) % NUMBERS + 1
        return row[F_KEY] * NUMBERS + n - 1, (row[F_JOKERS] >> (n - 1)) & 1 == 1
    if row[F_KIND] == SET:
        seen = 0
        for c in range(4):
            if (row[F_COLOURS] >> c) & 1:
                if seen == i:
                    return c * NUMBERS + row[F_KEY] - 1, (row[F_JOKERS] >> c) & 1 == 1
                seen += 1
        return -1, False
    return row[F_KEY], i == 1 and row[F_JOKERS] == 1


@kernel(I1, I1)
def take_meld_from_rack(rack, row):
    """Remove a meld's tiles from the rack; False (rack untouched) if it lacks one."""
    ok = True
    for i in range(row[F_LEN]):  # take the tiles one by one, putting them back on failure
        k, is_joker = meld_tile_at(row, i)
        k = JOKER if is_joker else k
        if rack[k] == 0:
            for j in range(i):
                kj, jj = meld_tile_at(row, j)
                rack[JOKER if jj else kj] += 1
            ok = False
            break
        rack[k] -= 1
    return ok


@kernel(I2, I1, I2, i64, I1)
def put_on_table(table, g, events, p, row):
    """Lay a meld row down as player ``p``'s (T-OPEN-1, T-OPEN-5, T-OPEN-6)."""
    i = g[G_NTABLE]
    for f in range(MELD_FIELDS):
        table[i, f] = row[f]
    table[i, T_OWNER] = p
    g[G_NTABLE] = i + 1
    event(events, g, EV_LAY, p, row[F_KIND], row[F_KEY], row[F_FIRST], row[F_LEN],
          row[F_COLOURS], row[F_JOKERS], i)


@kernel(inline=True)
def _has(rack, col, num):
    return 1 if 1 <= num <= NUMBERS and rack[col * NUMBERS + num - 1] > 0 else 0


@kernel(I1, i64)
def could_meld(rack, tile):
    """Could ``tile`` (on the rack) sit in any run or set of this rack? A quick necessary
    test before asking the solver: two neighbours of its colour, or two other colours of
    its number, jokers making up what is missing (T-MELD-1, T-MELD-2, T-MELD-4)."""
    jokers = rack[JOKER]
    if tile == JOKER or jokers >= 2:
        return True
    col = tile // NUMBERS
    num = tile % NUMBERS + 1
    need = 2 - jokers
    for first in (num - 2, num - 1, num):  # the three runs of three holding num
        if first < 1 or first + 2 > NUMBERS:
            continue
        have = 0
        for m in (first, first + 1, first + 2):
            if m != num:
                have += _has(rack, col, m)
        if have >= need:
            return True
    others = 0
    for c in range(4):
        if c != col:
            others += _has(rack, c, num)
    return others >= need


@kernel(I1)
def melds_upper_bound(rack):
    """More than any melds opening of the rack can be worth: the tiles that could sit in
    some meld, and 13 a joker. Lets a player below the threshold skip the solver."""
    bound = 13 * rack[JOKER]
    for k in range(KINDS):
        if rack[k] > 0 and could_meld(rack, k):
            bound += rack[k] * (k % NUMBERS + 1)
    return bound


# --- the solver, as the engine uses it -------------------------------------------------------


@kernel(inline=True)
def melds_value(rack, keep, S, space):
    """Best melds value of a rack keeping a discard (T-OPEN-4), or 0."""
    (g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj, run_table, states, tptr, tto, tdj, tk, tnoend,
     _, _, _, _, _, _) = S
    s, _ = best_score(rack, -1, keep, False, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj,
                      run_table, states, tptr, tto, tdj, tk, tnoend, space[0])
    v = value_of(s)
    return v if v > 0 else 0


@kernel(inline=True)
def melds_layout(rack, keep, S, space, out):
    """Best melds of a rack keeping a discard: ``(value, rows)`` into ``out``."""
    (g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj, run_table, states, tptr, tto, tdj, tk, tnoend,
     mends, mstarts, mgive, nsets, set_colours, set_jokers) = S
    search_space, run_space, leaf = space
    s = search(rack, -1, False, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj, run_table, states,
               tptr, tto, tdj, tk, tnoend, True, leaf, search_space)
    aside = -1
    if keep and s > 0 and tiles_of(s) >= rack_tiles(rack):
        # The best lay-down empties the rack (T-OPEN-4): set a tile aside, then record.
        s, aside = best_score(rack, -1, keep, False, g_ptr, g_use, g_jokers, g_tiles, g_from,
                              g_minj, run_table, states, tptr, tto, tdj, tk, tnoend, search_space)
        if aside >= 0:
            rack[aside] -= 1
            search(rack, -1, False, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj, run_table,
                   states, tptr, tto, tdj, tk, tnoend, True, leaf, search_space)
    v = value_of(s)
    n = 0
    if v > 0:
        n = lay_out(rack, leaf, -1, False, nsets, set_colours, set_jokers, states, tptr, tto, tdj,
                    tk, tnoend, mends, mstarts, mgive, run_table, run_space, out)
    if aside >= 0:
        rack[aside] += 1
    return (v if v > 0 else 0), n


@kernel(inline=True)
def _pair_row(out, n, k, with_joker):
    out[n, F_KIND] = PAIR
    out[n, F_KEY] = k
    out[n, F_FIRST] = 0
    out[n, F_LEN] = 2
    out[n, F_COLOURS] = 1 << (k // NUMBERS)
    out[n, F_JOKERS] = 1 if with_joker else 0


@kernel(I1, i64, boolean, boolean, I2)
def pairs_layout(rack, forced, use_jokers, keep, out):
    """Most pairs of a rack (T-MELD-3) as pair rows, the ``forced`` tile's pair first,
    keeping a discard (T-OPEN-4); jokers only with ``use_jokers``. Returns the count."""
    n = 0
    left = rack_tiles(rack)
    jokers = rack[JOKER] if use_jokers else 0
    floor = 1 if keep else 0
    singles_done = -1
    if forced == JOKER:
        forced = -1
    if forced >= 0 and left - 2 >= floor:
        if rack[forced] >= 2:
            _pair_row(out, n, forced, False)
            n += 1
            left -= 2
        elif rack[forced] == 1 and jokers > 0:
            _pair_row(out, n, forced, True)
            n += 1
            left -= 2
            jokers -= 1
            singles_done = forced
    for k in range(KINDS):  # two equal tiles
        pairs = rack[k] // 2 - (1 if k == forced and rack[k] >= 2 and n > 0 else 0)
        for _ in range(pairs):
            if left - 2 < floor:
                break
            _pair_row(out, n, k, False)
            n += 1
            left -= 2
    for k in range(KINDS):  # a tile and a joker (never two jokers)
        if rack[k] % 2 == 1 and k != singles_done and jokers > 0 and left - 2 >= floor:
            _pair_row(out, n, k, True)
            n += 1
            left -= 2
            jokers -= 1
    for i in range(n):  # two spare jokers split a pair of equal tiles into two
        if jokers < 2 or left - 2 < floor:
            break
        if out[i, F_JOKERS] == 0:
            out[i, F_JOKERS] = 1
            _pair_row(out, n, out[i, F_KEY], True)
            n += 1
            left -= 2
            jokers -= 2
    return n


# --- additions and joker recovery ----------------------------------------------------------


@kernel(I1, I2, i64, i64, I2, i64)
def find_addition(rack, table, ntable, p, ps, tile):
    """Where ``tile`` may be added (T-ADD-1): ``(meld index, side)`` or ``(-1, -1)``.

    A run grows at either end by the next tile of its colour; a set of three takes its
    missing colour; pairs take nothing (T-OPEN-6). A joker may go wherever a tile could,
    standing for that tile (T-ADD-1 Decision); a run takes it at its high end first. Only
    after one's own opening.
    """
    if ps[p, PS_OPEN_KIND] == OPEN_NONE:
        return -1, -1
    col = tile // NUMBERS
    num = tile % NUMBERS + 1
    for i in range(ntable):
        kind = table[i, F_KIND]
        if kind == RUN and (tile == JOKER or table[i, F_KEY] == col):
            first = table[i, F_FIRST]
            last = first + table[i, F_LEN] - 1
            if tile == JOKER:
                if last < NUMBERS:
                    return i, ADD_HIGH
                if first > 1:
                    return i, ADD_LOW
            elif num == first - 1:
                return i, ADD_LOW
            elif num == last + 1 and last < NUMBERS:
                return i, ADD_HIGH
        elif kind == SET and table[i, F_LEN] == 3 and (
                tile == JOKER or (table[i, F_KEY] == num and not (table[i, F_COLOURS] >> col) & 1)):
            return i, ADD_SET
    return -1, -1


@kernel(I1, I2, I1, I2, i64, i64, i64, i64)
def add_tile(rack, table, g, events, p, tile, i, side):
    """Add ``tile`` from the rack to table meld ``i`` (T-ADD-1); a joker stands for the
    tile the meld is extended with, kept in the meld's joker mask (for T-JOKER-1)."""
    rack[tile] -= 1
    if side == ADD_LOW:
        table[i, F_FIRST] -= 1
        table[i, F_LEN] += 1
        shown = table[i, F_KEY] * NUMBERS + table[i, F_FIRST] - 1
    elif side == ADD_HIGH:
        table[i, F_LEN] += 1
        shown = table[i, F_KEY] * NUMBERS + table[i, F_FIRST] + table[i, F_LEN] - 2
    else:
        col = tile // NUMBERS
        if tile == JOKER:  # the one colour the set of three lacks
            col = 0
            while (table[i, F_COLOURS] >> col) & 1:
                col += 1
        table[i, F_COLOURS] |= 1 << col
        table[i, F_LEN] += 1
        shown = col * NUMBERS + table[i, F_KEY] - 1
    if tile == JOKER:  # joker masks: bit n-1 for number n in a run, bit c for colour c in a set
        table[i, F_JOKERS] |= 1 << (shown // NUMBERS if side == ADD_SET else shown % NUMBERS)
    event(events, g, EV_ADD, p, tile, i, side, shown)


@kernel(I1, I2, i64)
def find_recovery(rack, table, ntable):
    """A melded joker the rack holds the exact tile for (T-JOKER-1): ``(meld, tile)``.
    None once the rack holds :data:`RACK_JOKERS` jokers: the solver's limit (recovering is
    a right, not a duty)."""
    if rack[JOKER] >= RACK_JOKERS:
        return -1, -1
    for i in range(ntable):
        if table[i, F_JOKERS] == 0:
            continue
        for pos in range(table[i, F_LEN]):
            k, is_joker = meld_tile_at(table[i], pos)
            if is_joker and rack[k] > 0:
                return i, k
    return -1, -1


@kernel(I1, I2, I1, I2, i64, i64, i64)
def recover_joker(rack, table, g, events, p, i, tile):
    """Replace the joker standing for ``tile`` in meld ``i`` by the tile; the joker goes
    to the rack and stays wild (T-JOKER-1)."""
    rack[tile] -= 1
    rack[JOKER] += 1
    kind = table[i, F_KIND]
    if kind == RUN:
        table[i, F_JOKERS] &= ~(1 << (tile % NUMBERS))
    elif kind == SET:
        table[i, F_JOKERS] &= ~(1 << (tile // NUMBERS))
    else:
        table[i, F_JOKERS] = 0
    event(events, g, EV_RECOVER, p, i, tile)


# --- scoring -------------------------------------------------------------------------------


@kernel(I2, I2, I1, I1, I2)
def score_round(racks, ps, g, rp, events):
    """Scores at the end of the round (T-SCORE-1..3, T-END-1, T-END-2)."""
    players = rp[RP_PLAYERS]
    finish = g[G_FINISH]
    winner = g[G_WINNER]
    factor = rp[RP_FINISH_FACTOR]
    for p in range(players):
        ps[p, PS_RACK_VALUE] = rack_points(racks[p], rp[RP_JOKER_PENALTY])
        ps[p, PS_JOKERS_LEFT] = racks[p, JOKER]
        if p == winner:
            gain = rp[RP_WIN]
            if finish == FINISH_JOKER or finish == FINISH_ONE_TURN:
                gain *= factor
            elif finish == FINISH_ONE_TURN_JOKER:
                gain *= factor * factor
            ps[p, PS_SCORE] = gain
            continue
        if finish == FINISH_ONE_TURN or finish == FINISH_ONE_TURN_JOKER:
            loss = rp[RP_ONE_TURN_PENALTY] * (factor if finish == FINISH_ONE_TURN_JOKER else 1)
        else:
            kind = ps[p, PS_OPEN_KIND]
            if kind == OPEN_NONE:
                loss = rp[RP_UNOPENED]
            elif kind == OPEN_MELDS:
                loss = ps[p, PS_RACK_VALUE]
            else:
                loss = rp[RP_PAIRS_FACTOR] * ps[p, PS_RACK_VALUE]
            if finish == FINISH_JOKER:
                loss *= factor
        ps[p, PS_SCORE] = -loss
    for p in range(players):
        event(events, g, EV_SCORE, p, ps[p, PS_SCORE], ps[p, PS_RACK_VALUE])
