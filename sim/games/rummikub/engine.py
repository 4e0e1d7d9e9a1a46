"""A whole Rummikub round, turn by turn, and chunks of rounds (numba; docs/rules.md section K).

The deal (K-SET-1: 14 tiles each, seat 0 starts, the rest a pool drawn in order), then
turns in seat order. Before opening a turn lays melds from the rack only, worth the bar
in force (K-OPEN-1/2, ``easing_open`` lowering the player's own bar), or draws. After
opening a turn rebuilds the table with the exact table solver (:mod:`.table`), placing
at least one rack tile (K-PLAY-1, K-JOKER-1/2, ``locked_jokers``), or draws; with the
pool empty it passes. The round ends when a rack is emptied (K-END-1), when every player
has passed in turn with the pool empty (K-END-2), or with ``last_call`` once every player
has had one more turn after the pool ran dry; then the scores.

Everything here is jit-compiled and works on integer arrays:

- ``rp``: the rules as integers (``RP_*``, built by :func:`sim.games.rummikub.play.rules_params`);
- ``racks[p, 53]``: count vectors; ``deck``: the shuffled tiles, the pool being
  ``deck[G_POOL:]``;
- ``table[i]``: meld rows (:mod:`sim.solver.layout`), ``g[G_NTABLE]`` of them;
- ``ps[p]``: what each player has done (``PS_*``); ``g``: the round's counters (``G_*``);
- ``events``: the trace, one row per action (``EV_*``), with the melds of each opening
  and the table after each play in ``ev_rows`` and the rack tiles placed in
  ``ev_placed``; filled only when tracing.

The bots (``POLICY_*``) are choices inside a turn. The two simple ones live here: ``greedy``
opens at the first turn it can with its most valuable melds and then places the most
value the table solver finds; ``careful`` opens without its jokers when it can, and after
opening holds its jokers and plays worth less than :data:`SMALL_PLAY` points back, unless
the play empties its rack or the pool is down to :data:`LOW_POOL` tiles. ``expert``
(:mod:`.expert`) decides from its seat's view (:mod:`.view`), which the engine fills for
it, and its tuning constants, a row per seat of ``tune``.
"""

from __future__ import annotations

import numpy as np

from sim.deal import deal_round, full_deck
from sim.games.rummikub.expert import expert_open, expert_play, keeps_jokers_to_open, opening_melds
from sim.games.rummikub.state import (
    G_CALLS_LEFT,
    G_DECK,
    G_ERROR,
    G_FINISH,
    G_LEN,
    G_NEVENTS,
    G_NTABLE,
    G_PASSES,
    G_POOL,
    G_TABLE_CHANGES,
    G_TRACE,
    G_TURNS,
    G_WINNER,
    G_WINNERS,
    LAST_DREW,
    LAST_LAID,
    LAST_PASSED,
    PS_DRAWN_SINCE,
    PS_DRAWS,
    PS_FAILED_AT,
    PS_JOKERS_LEFT,
    PS_LAST,
    PS_LEN,
    PS_OPEN_THRESHOLD,
    PS_OPEN_TURN,
    PS_OPEN_VALUE,
    PS_POLICY,
    PS_RACK_TILES,
    PS_RACK_VALUE,
    PS_SCORE,
    PS_TILES_PLACED,
    PS_TURNS,
    RP_BOUND,
    RP_DUPLICATE,
    RP_G3MAX,
    RP_JOKER_PENALTY,
    RP_LAST_CALL,
    RP_LOCKED,
    RP_PLAYERS,
    RP_RACK,
    RP_WRAP,
    bar_in_force,
    rack_tiles,
    rack_value,
)
from sim.games.rummikub.tablesolver import OUT_ROWS, PRIMARY
from sim.games.rummikub.tablesolver import SPACE as TABLE_SPACE
from sim.games.rummikub.tableturn import FREED_LEN, WORK, best_play, row_tiles
from sim.games.rummikub.view import seat_view
from sim.jit import F2, I1, I2, I3, U1, boolean, copy_row, copy_rows, i64, kernel, tuple_of
from sim.solver.arrays import SOLVER_ARRAYS, SOLVER_SPACE
from sim.solver.kernel import LEAF_LEN, new_space
from sim.solver.layout import F_LEN, MELD_FIELDS
from sim.solver.runs import new_run_space
from sim.tiles import COUNTS_LEN, JOKER

# sim.games.rummikub.POLICIES; the search and the oracle (:mod:`.search`) play their turns by
# setting their seat's code to one of the expert's two actions, FORCE_DRAW or FORCE_PLAY,
# for the turn (codes no seat is dealt).
POLICY_GREEDY, POLICY_CAREFUL, POLICY_EXPERT, POLICY_SEARCH, POLICY_ORACLE = range(5)
FORCE_DRAW = 5  # the turn draws (or passes), whatever the rack could place (K-PLAY-1)
FORCE_PLAY = 6  # the turn opens as the expert would, or places the most value it can (the expert in danger)
SMALL_PLAY = 10  # careful: plays worth less are held back (unless they empty the rack)...
LOW_POOL = 10  # ...until the pool is down to this many tiles

FINISH_OUT, FINISH_BLOCKED, FINISH_LAST_CALL = range(3)  # sim.games.rummikub.FINISHES
SCORE_UNIT = 12  # scores are kept in twelfths: a gain shared by 2, 3 or 4 winners is exact (K-END-2)

ERR_NONE, ERR_TOO_LONG, ERR_MEMO, ERR_NO_TABLE, ERR_BAD_MELD, ERR_EVENTS = range(6)

EV_DRAW, EV_OPEN, EV_PLAY, EV_PASS, EV_END = range(5)
# EV_FREED: a play's freed jokers (K-JOKER-1/2), two at most, 6 bits each of the tile
# stood for and of the tile that freed it, plus one: (t + 1) | (by + 1) << 6, then << 12.
EV_TYPE, EV_SEAT, EV_TURN, EV_TILE, EV_VALUE, EV_BAR, EV_ROWS, EV_FREED = range(8)
EV_FIELDS = 8

MAX_TABLE = OUT_ROWS  # melds on the table: 106 tiles make at most 35
MAX_TURNS = 2000
MAX_EVENTS = MAX_TURNS + 8

# Per-round and per-player output columns of play_rounds.
R_FINISH, R_WINNER, R_WINNERS, R_TURNS, R_POOL_LEFT, R_TABLE_TILES, R_ERROR = range(7)
R_LEN = 7
(P_OPEN_TURN, P_OPEN_VALUE, P_OPEN_THRESHOLD, P_TILES_PLACED, P_DRAWS, P_RACK_TILES, P_RACK_VALUE,
 P_JOKERS_LEFT, P_SCORE, P_TURNS) = range(10)
P_LEN = 10

# The table play's work arrays are those of sim.games.rummikub.tableturn.WORK.
ROUND_SPACE = tuple_of(I2, I2, I2, I1, SOLVER_SPACE, I2, WORK, I1, U1)
TRACE = tuple_of(I2, I3, I2)


# --- tiles and melds --------------------------------------------------------------------------


@kernel(inline=True)
def table_tiles(table, n):
    t = 0
    for i in range(n):
        t += table[i, F_LEN]
    return t


@kernel(inline=True)
def event(events, g, kind, p, turn, tile, value, bar, rows):
    """Record an action when tracing (one row per action)."""
    if g[G_TRACE] == 0:
        return -1
    i = g[G_NEVENTS]
    if i >= events.shape[0]:
        g[G_ERROR] = ERR_EVENTS
        return -1
    events[i, EV_TYPE] = kind
    events[i, EV_SEAT] = p
    events[i, EV_TURN] = turn
    events[i, EV_TILE] = tile
    events[i, EV_VALUE] = value
    events[i, EV_BAR] = bar
    events[i, EV_ROWS] = rows
    events[i, EV_FREED] = 0
    g[G_NEVENTS] = i + 1
    return i


# --- opening (K-OPEN-1, K-OPEN-2) ---------------------------------------------------------------


@kernel(i64, I2, I2, I2, I1, I1, F2, SOLVER_ARRAYS, SOLVER_SPACE, I2, TRACE)
def try_open(p, racks, table, ps, g, rp, tune, S, space, rows, trace):
    """Open now if the rack's melds reach the bar (K-OPEN-1), with the most valuable melds
    (``careful``: the most valuable without jokers, if those reach it; ``expert``: as
    :func:`.expert.expert_open` decides from the seat's view). The melds come from the
    rack only and the table is not touched (K-OPEN-2). True if opened."""
    events, ev_rows, ev_placed = trace
    if ps[p, PS_POLICY] == FORCE_DRAW:
        return False
    rack = racks[p]
    bar = bar_in_force(p, ps, rp)
    cyclic = rp[RP_WRAP] == 1
    # What the seat knows: the expert decides from it alone, the others need only their rack.
    v = seat_view(p, racks, table, ps, g, rp)
    expert = ps[p, PS_POLICY] == POLICY_EXPERT or ps[p, PS_POLICY] == FORCE_PLAY
    keep = keeps_jokers_to_open(tune[p]) if expert else ps[p, PS_POLICY] == POLICY_CAREFUL
    value, n = opening_melds(v.rack, bar, keep, cyclic, S, space, rows)
    if n == 0 or value < bar:
        return False
    if expert:
        value, n = expert_open(v, rp, tune[p], rows, value, n)
    before = rack_tiles(rack)
    for i in range(n):
        row_tiles(rows[i], rack, -1)
        copy_row(table[g[G_NTABLE]], rows[i])
        g[G_NTABLE] += 1
    for k in range(COUNTS_LEN):
        if rack[k] < 0:
            g[G_ERROR] = ERR_BAD_MELD
    ps[p, PS_OPEN_TURN] = ps[p, PS_TURNS]
    g[G_TABLE_CHANGES] += 1
    ps[p, PS_OPEN_VALUE] = value
    ps[p, PS_OPEN_THRESHOLD] = bar
    ps[p, PS_TILES_PLACED] += before - rack_tiles(rack)
    e = event(events, g, EV_OPEN, p, ps[p, PS_TURNS], -1, value, bar, n)
    if e >= 0:
        copy_rows(ev_rows[e, :n], rows[:n])
        for i in range(n):
            row_tiles(rows[i], ev_placed[e], 1)
    return True


# --- table play (K-PLAY-1, K-JOKER-1/2) --------------------------------------------------------


@kernel(i64, I2, I2, I2, I1, I1, F2, TABLE_SPACE, WORK, TRACE)
def try_play(p, racks, table, ps, g, rp, tune, ts, work, trace):
    """After opening: place tiles if the bot wants to (K-PLAY-1). True if it played."""
    events, ev_rows, ev_placed = trace
    best_placed, freed, new_table = work[7], work[8], work[9]
    rack = racks[p]
    ntable = g[G_NTABLE]
    penalty, g3max, cyclic = rp[RP_JOKER_PENALTY], rp[RP_G3MAX], rp[RP_WRAP] == 1
    locked, bound = rp[RP_LOCKED] == 1, rp[RP_BOUND] == 1
    policy = ps[p, PS_POLICY]
    if policy == FORCE_DRAW:
        return False
    if policy == POLICY_EXPERT or policy == FORCE_PLAY:
        w, n, nothing = expert_play(seat_view(p, racks, table, ps, g, rp), rp, tune[p], ts, work,
                                    policy == FORCE_PLAY)
        if nothing:
            ps[p, PS_FAILED_AT] = g[G_TABLE_CHANGES] + 1
            ps[p, PS_DRAWN_SINCE] = -1
    else:
        # Nothing could be placed last turn and the table has not changed since: a play now
        # must place the tile drawn since, which makes the search far shorter.
        must = -1
        if ps[p, PS_FAILED_AT] == g[G_TABLE_CHANGES] + 1 and rp[RP_LOCKED] == 0:
            must = ps[p, PS_DRAWN_SINCE]
            if must < 0:
                return False  # nothing drawn either (the pool is empty): still nothing to place
        w, n = best_play(rack, table, ntable, 0, penalty, g3max, cyclic, locked, bound, ts, work, True, must, 0)
        if w == 0:
            ps[p, PS_FAILED_AT] = g[G_TABLE_CHANGES] + 1
            ps[p, PS_DRAWN_SINCE] = -1
        # careful: the whole play if it empties the rack or the pool runs low, else only a play
        # without jokers worth SMALL_PLAY at least
        if (w > 0 and ps[p, PS_POLICY] == POLICY_CAREFUL and rack_tiles(best_placed) < rack_tiles(rack)
                and g[G_DECK] - g[G_POOL] > LOW_POOL):
            if best_placed[JOKER] > 0:  # else the best play is the best without jokers already
                w, n = best_play(rack, table, ntable, 0, penalty, g3max, cyclic, locked, bound, ts, work, False,
                                 must, 0)
            if 0 <= w < SMALL_PLAY * PRIMARY:
                w = 0
    if w == -2:
        g[G_ERROR] = ERR_MEMO
    if w <= 0:
        return False
    placed_tiles = rack_tiles(best_placed)
    for k in range(COUNTS_LEN):
        rack[k] -= best_placed[k]
        if rack[k] < 0:
            g[G_ERROR] = ERR_BAD_MELD
    if table_tiles(new_table, n) != table_tiles(table, ntable) + placed_tiles:
        g[G_ERROR] = ERR_NO_TABLE  # the engine checks itself: every table tile kept
    copy_rows(table[:n], new_table[:n])
    g[G_NTABLE] = n
    g[G_TABLE_CHANGES] += 1
    ps[p, PS_FAILED_AT] = 0
    ps[p, PS_TILES_PLACED] += placed_tiles
    e = event(events, g, EV_PLAY, p, ps[p, PS_TURNS], -1, w // PRIMARY, 0, n)
    if e >= 0:
        copy_rows(ev_rows[e, :n], table[:n])
        copy_row(ev_placed[e], best_placed)
        for i in range(min(2, freed[0])):
            events[e, EV_FREED] |= ((freed[1 + 2 * i] + 1) | ((freed[2 + 2 * i] + 1) << 6)) << (12 * i)
    return True


# --- turns, ends and scores (K-END-1, K-END-2, last_call) ------------------------------------------


@kernel(inline=True)
def play_turn(p, deck, racks, table, ps, g, rp, tune, S, space, rows, ts, work, trace):
    """One turn of player ``p``; True when the round is over."""
    events = trace[0]
    players = rp[RP_PLAYERS]
    g[G_TURNS] += 1
    ps[p, PS_TURNS] += 1
    turn = ps[p, PS_TURNS]
    calls_before = g[G_CALLS_LEFT]
    if ps[p, PS_OPEN_TURN] == 0:
        acted = try_open(p, racks, table, ps, g, rp, tune, S, space, rows, trace)
        bar = bar_in_force(p, ps, rp)
    else:
        acted = try_play(p, racks, table, ps, g, rp, tune, ts, work, trace)
        bar = 0
    if g[G_ERROR] != ERR_NONE:
        return True
    if acted:
        ps[p, PS_LAST] = LAST_LAID
        g[G_PASSES] = 0
        if rack_tiles(racks[p]) == 0:  # K-END-1
            g[G_FINISH] = FINISH_OUT
            g[G_WINNER] = p
            return True
    elif g[G_POOL] < g[G_DECK]:
        tile = deck[g[G_POOL]]
        g[G_POOL] += 1
        racks[p, tile] += 1
        ps[p, PS_DRAWS] += 1
        ps[p, PS_LAST] = LAST_DREW
        if ps[p, PS_FAILED_AT] > 0 and ps[p, PS_DRAWN_SINCE] < 0:
            ps[p, PS_DRAWN_SINCE] = tile  # the one tile a play next turn must place
        else:
            ps[p, PS_FAILED_AT] = 0
        event(events, g, EV_DRAW, p, turn, tile, 0, bar, 0)
        if g[G_POOL] == g[G_DECK] and rp[RP_LAST_CALL] == 1:
            g[G_CALLS_LEFT] = players  # last_call: one more turn each from the next player
    else:
        g[G_PASSES] += 1
        ps[p, PS_LAST] = LAST_PASSED
        event(events, g, EV_PASS, p, turn, -1, 0, bar, 0)
        if rp[RP_LAST_CALL] == 0 and g[G_PASSES] >= players:  # K-END-2
            g[G_FINISH] = FINISH_BLOCKED
            return True
    if calls_before > 0:
        g[G_CALLS_LEFT] -= 1
        if g[G_CALLS_LEFT] == 0:
            g[G_FINISH] = FINISH_LAST_CALL  # scored as K-END-2
            return True
    return False


@kernel(inline=True)
def score_round(racks, ps, g, rp):
    """Scores in twelfths (SCORE_UNIT). K-END-1: each other player loses the value of the
    rack, the winner gains the sum. K-END-2 (and ``last_call``): the lowest rack wins and
    gains from each other player the difference between their racks; tied lowest racks
    share the gain equally."""
    players = rp[RP_PLAYERS]
    low = np.int64(1) << 40
    for p in range(players):
        v = rack_value(racks[p], rp[RP_JOKER_PENALTY])
        ps[p, PS_RACK_VALUE] = v
        ps[p, PS_RACK_TILES] = rack_tiles(racks[p])
        ps[p, PS_JOKERS_LEFT] = racks[p, JOKER]
        low = min(low, v)
    if g[G_FINISH] == FINISH_OUT:
        low = 0  # the winner's empty rack
    gain = 0
    winners = 0
    mask = 0
    for p in range(players):
        gain += ps[p, PS_RACK_VALUE] - low
        if ps[p, PS_RACK_VALUE] == low and (g[G_FINISH] != FINISH_OUT or p == g[G_WINNER]):
            winners += 1
            mask |= 1 << p
    for p in range(players):
        if (mask >> p) & 1:
            ps[p, PS_SCORE] = gain * SCORE_UNIT // winners
        else:
            ps[p, PS_SCORE] = -(ps[p, PS_RACK_VALUE] - low) * SCORE_UNIT
    g[G_WINNERS] = mask
    g[G_WINNER] = -1
    if winners == 1:
        for p in range(players):
            if (mask >> p) & 1:
                g[G_WINNER] = p


@kernel(inline=True)
def deal(deck, rp, policies, rs):
    """Deal a round from the tile order ``deck`` into ``rs`` (K-SET-1: 14 tiles each, seat 0
    first, the rest the pool)."""
    racks, _, ps, g, _, _, _, _, _ = rs
    racks[:, :] = 0
    ps[:, :] = 0
    tracing = g[G_TRACE]
    g[:] = 0
    g[G_TRACE] = tracing
    g[G_WINNER] = -1
    g[G_CALLS_LEFT] = -1
    g[G_DECK] = deck.shape[0]
    pos = 0
    for p in range(rp[RP_PLAYERS]):
        for _ in range(rp[RP_RACK]):
            racks[p, deck[pos]] += 1
            pos += 1
        ps[p, PS_POLICY] = policies[p]
    g[G_POOL] = pos


@kernel(I1, I2, I2, I2, I1, I1, F2, SOLVER_ARRAYS, SOLVER_SPACE, I2, TABLE_SPACE, WORK, TRACE)
def next_turn(deck, racks, table, ps, g, rp, tune, S, space, rows, ts, work, trace):
    """The turn of the seat whose turn it is (seat 0 starts, then in seat order); True when
    the round is over, then scored. A kernel of its own, not inlined: the engine's rounds,
    the search's and its roll-outs share one compiled copy of the turn, and it compiles
    beside the kernels it does not call (a second process) rather than within
    :func:`play_rounds`."""
    p = g[G_TURNS] % rp[RP_PLAYERS]
    over = play_turn(p, deck, racks, table, ps, g, rp, tune, S, space, rows, ts, work, trace)
    if not over and g[G_TURNS] >= MAX_TURNS:
        g[G_ERROR] = ERR_TOO_LONG
        over = True
    if over:
        score_round(racks, ps, g, rp)
        event(trace[0], g, EV_END, p, ps[p, PS_TURNS], -1, g[G_FINISH], g[G_WINNERS], 0)  # p: the last to play
    return over


@kernel(inline=True)
def play_until(deck, rp, tune, S, rs, ts, trace, stop):
    """Play the round in ``rs`` on, seat after seat, until it is over (True, scored) or
    ``stop`` turns (all seats together) have been played (False)."""
    racks, table, ps, g, space, rows, work, _, _ = rs
    while g[G_TURNS] < stop:
        if next_turn(deck, racks, table, ps, g, rp, tune, S, space, rows, ts, work, trace):
            return True
    return False


@kernel(i64, i64, i64, entry=True)
def new_round_space(n_states, players, set_jokers):
    """Everything one round needs but the table solver's scratch, allocated once per chunk."""
    return (
        np.zeros((players, COUNTS_LEN), dtype=np.int64),  # racks
        np.zeros((MAX_TABLE, MELD_FIELDS), dtype=np.int64),  # table
        np.zeros((players, PS_LEN), dtype=np.int64),  # player state
        np.zeros(G_LEN, dtype=np.int64),  # round counters
        (new_space(n_states), new_run_space(n_states), np.empty(LEAF_LEN, dtype=np.int64)),
        np.zeros((MAX_TABLE, MELD_FIELDS), dtype=np.int64),  # opening melds
        (np.zeros(COUNTS_LEN, dtype=np.int64), np.zeros(COUNTS_LEN, dtype=np.int64),
         np.zeros(COUNTS_LEN, dtype=np.int64), np.zeros(COUNTS_LEN, dtype=np.int64),
         np.zeros(COUNTS_LEN, dtype=np.int64), np.zeros((OUT_ROWS, MELD_FIELDS), dtype=np.int64),
         np.zeros((OUT_ROWS, MELD_FIELDS), dtype=np.int64), np.zeros(COUNTS_LEN, dtype=np.int64),
         np.zeros(FREED_LEN, dtype=np.int64), np.zeros((MAX_TABLE, MELD_FIELDS), dtype=np.int64)),
        # ^ tableturn.WORK, as tablecall.buffer_views makes it in Python (this function is compiled)
        full_deck(set_jokers),  # the round's tiles
        np.zeros(4, dtype=np.uint64),  # random words for the shuffle
    )


@kernel(inline=True)
def start_round(seed, round_id, deck_in, rp, policies, rs, tracing, fresh):
    """The round's tiles (``deck_in``, or round ``round_id`` of ``seed`` shuffled into the
    scratch) and, when ``fresh``, its deal; returns the tiles."""
    deck_buffer, bits = rs[7], rs[8]
    deck = deck_in
    if deck_in.shape[0] == 0:
        deal_round(seed, round_id, deck_buffer, bits, rp[RP_DUPLICATE], rp[RP_RACK], 0)
        deck = deck_buffer
    rs[3][G_TRACE] = 1 if tracing else 0
    if fresh:
        deal(deck, rp, policies, rs)
    return deck


@kernel(inline=True)
def round_out(i, rs, rp, out_rounds, out_players):
    """A round over, into row ``i`` of the output arrays (``R_*``, ``P_*``)."""
    _, table, ps, g, _, _, _, _, _ = rs
    players = rp[RP_PLAYERS]
    out_rounds[i, R_FINISH] = g[G_FINISH]
    out_rounds[i, R_WINNER] = g[G_WINNER]
    out_rounds[i, R_WINNERS] = g[G_WINNERS]
    out_rounds[i, R_TURNS] = g[G_TURNS]
    out_rounds[i, R_POOL_LEFT] = g[G_DECK] - g[G_POOL]
    out_rounds[i, R_TABLE_TILES] = table_tiles(table, g[G_NTABLE])
    out_rounds[i, R_ERROR] = g[G_ERROR]
    for p in range(players):
        out_players[i, p, P_OPEN_TURN] = ps[p, PS_OPEN_TURN]
        out_players[i, p, P_OPEN_VALUE] = ps[p, PS_OPEN_VALUE]
        out_players[i, p, P_OPEN_THRESHOLD] = ps[p, PS_OPEN_THRESHOLD]
        out_players[i, p, P_TILES_PLACED] = ps[p, PS_TILES_PLACED]
        out_players[i, p, P_DRAWS] = ps[p, PS_DRAWS]
        out_players[i, p, P_RACK_TILES] = ps[p, PS_RACK_TILES]
        out_players[i, p, P_RACK_VALUE] = ps[p, PS_RACK_VALUE]
        out_players[i, p, P_JOKERS_LEFT] = ps[p, PS_JOKERS_LEFT]
        out_players[i, p, P_SCORE] = ps[p, PS_SCORE]
        out_players[i, p, P_TURNS] = ps[p, PS_TURNS]


# counted=False: it allocates nothing; see sim.jit.kernel
@kernel(i64, i64, i64, I1, I1, F2, SOLVER_ARRAYS, ROUND_SPACE, TABLE_SPACE, I1, TRACE, boolean, I2, I3, boolean,
        i64, entry=True, counted=False)
def play_rounds(seed, start, count, rp, policies, tune, S, rs, ts, deck_in, trace, tracing, out_rounds,
                out_players, fresh, stop):
    """Play rounds ``start .. start+count-1`` of ``seed`` into the output arrays (``R_*``
    per round, ``P_*`` per player) in the scratch ``rs`` of :func:`new_round_space` and
    ``ts`` of :func:`sim.games.rummikub.tablesolver.new_space`. A non-empty ``deck_in`` replaces
    the shuffled tiles (scenario rounds); ``tracing`` fills ``trace``. Returns the rounds
    played: fewer than ``count`` when round ``start`` + that number needs a table solver
    with more memory (``ERR_MEMO``; the caller grows ``ts`` and goes on from there).
    Rounds turn by turn (positions for tests, :class:`sim.games.rummikub.play.Round`):
    ``fresh`` False goes on with the round in ``rs`` instead of dealing one, and ``stop``
    (-1: none) ends the play when the round has had that many turns, all seats together,
    the round's state left in ``rs`` (0 rounds played, unless it is over)."""
    g = rs[3]
    for i in range(count):
        deck = start_round(seed, start + i, deck_in, rp, policies, rs, tracing, fresh)
        over = play_until(deck, rp, tune, S, rs, ts, trace, stop if stop >= 0 else MAX_TURNS + 1)
        if g[G_ERROR] == ERR_MEMO or not over:
            return i
        round_out(i, rs, rp, out_rounds, out_players)
    return count

