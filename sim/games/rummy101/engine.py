"""A whole Rummy 101 round, turn by turn, and chunks of rounds (numba).

The deal (T-SET), then turns in seat order from seat 0 (T-SET-2): take (T-TURN-1,
T-TAKE, T-BTN-1), act (T-OPEN, T-ADD, T-JOKER-1), discard (T-TURN-2) until a player
finishes (T-FIN) or the stock runs out (T-END-1); then the scores (T-SCORE).

The starter's first turn skips the take, and with ``starter_may_open`` (the default,
T-SET-2) it may open before its discard; otherwise that turn is the discard alone. The
opening turn lays all its melds in the opening, then only adds and recovers jokers
(T-OPEN-3). When the stock is empty and the player does not take the discard, the round
ends even if the player still has a joker button (T-END-1: the button replaces a stock
draw that can no longer happen).
"""

from __future__ import annotations

import numpy as np

from sim.deal import deal_round, full_deck
from sim.games.rummy101.bots import (
    USE_ADD,
    USE_MELDS,
    USE_PAIR,
    discard_choice,
    keeps_jokers,
    opening_choice,
    taken_use,
    wants_button,
    wants_discard,
)
from sim.games.rummy101.core import (
    ERR_BAD_MELD,
    ERR_JOKERS,
    ERR_TOO_LONG,
    ERR_UNUSED_DISCARD,
    EV_BUTTON,
    EV_DEAL,
    EV_DISCARD,
    EV_DRAW,
    EV_FINISH,
    EV_OPEN,
    EV_STOCK_OUT,
    EV_TAKE,
    FINISH_JOKER,
    FINISH_NORMAL,
    FINISH_ONE_TURN,
    FINISH_ONE_TURN_JOKER,
    FINISH_STOCK_OUT,
    G_ERROR,
    G_FINISH,
    G_LADDER_PAIRS,
    G_LADDER_POINTS,
    G_LAST_DISCARD,
    G_LAST_DISCARDER,
    G_LEN,
    G_NTABLE,
    G_OPENERS,
    G_STOCK,
    G_TRACE,
    G_TURNS,
    G_WINNER,
    MAX_TABLE,
    MAX_TURNS,
    OPEN_MELDS,
    OPEN_NONE,
    OPEN_PAIRS,
    PS_BUTTON_LEFT,
    PS_BUTTON_TURN,
    PS_JOKERS_LEFT,
    PS_LEN,
    PS_OPEN_KIND,
    PS_OPEN_ORDER,
    PS_OPEN_THRESHOLD,
    PS_OPEN_TURN,
    PS_OPEN_VALUE,
    PS_POLICY,
    PS_RACK_VALUE,
    PS_SCORE,
    PS_TOOK_DISCARD,
    PS_TURNS,
    RACK_JOKERS,
    RP_BUTTON,
    RP_DUPLICATE,
    RP_KEEP,
    RP_PLAYERS,
    RP_RACK,
    RP_STARTER_EXTRA,
    RP_STARTER_MAY_OPEN,
    SOLVER_ARRAYS,
    SOLVER_SPACE,
    TABLE_FIELDS,
    add_tile,
    distinct_tiles,
    event,
    find_addition,
    find_recovery,
    melds_layout,
    others_opened_pairs,
    pairs_layout,
    pairs_threshold,
    points_threshold,
    put_on_table,
    rack_tiles,
    recover_joker,
    score_round,
    take_meld_from_rack,
)
from sim.games.rummy101.view import SEEN, Seen
from sim.jit import F2, I1, I2, I3, U1, boolean, copy_row, copy_rows, i64, kernel, tuple_of
from sim.solver.kernel import LEAF_LEN, new_space
from sim.solver.layout import MAX_LAID, MELD_FIELDS
from sim.solver.runs import new_run_space
from sim.tiles import COUNTS_LEN, JOKER, KINDS

# The scratch copy of the state for trying a joker finish, and everything a round needs
# (see new_round_space): argument types of the kernels (sim.jit).
SCRATCH = tuple_of(I2, I2, I2, I1)
ROUND_SPACE = tuple_of(I2, I2, I2, I1, SOLVER_SPACE, I2, SCRATCH, I1, U1, F2, SEEN)

# Per-round and per-player output columns of play_rounds.
R_FINISH, R_WINNER, R_TURNS, R_STOCK_LEFT, R_ERROR = range(5)
R_LEN = 5
(P_OPEN_KIND, P_OPEN_TURN, P_OPEN_VALUE, P_OPEN_THRESHOLD, P_TOOK_DISCARD, P_RACK_VALUE,
 P_JOKERS_LEFT, P_SCORE, P_OPEN_ORDER, P_BUTTON_TURN, P_TURNS) = range(11)
P_LEN = 11


@kernel(i64, I2, i64, I2, I2, I1, I2)
def _lay_rows(p, rows, n, racks, table, g, events):
    for i in range(n):
        if take_meld_from_rack(racks[p], rows[i]):
            put_on_table(table, g, events, p, rows[i])
        else:
            g[G_ERROR] = ERR_BAD_MELD


@kernel(inline=True)
def open_now(p, kind, forced, racks, table, ps, g, rp, events, S, space, rows, keep):
    """Lay the opening down (T-OPEN-1 melds, T-OPEN-2 pairs), holding ``forced`` if taken."""
    rack = racks[p]
    if kind == OPEN_MELDS:
        threshold = points_threshold(g, rp)
        value, n = melds_layout(rack, keep, S, space, rows)
        g[G_LADDER_POINTS] = value  # T-THR-2: the next melds opening must exceed it
    else:
        threshold = pairs_threshold(g, rp)
        n = pairs_layout(rack, forced, True, keep, rows)
        value = n
        g[G_LADDER_PAIRS] = n
    event(events, g, EV_OPEN, p, kind, value, threshold, forced, n)
    _lay_rows(p, rows, n, racks, table, g, events)
    g[G_OPENERS] += 1
    ps[p, PS_OPEN_KIND] = kind
    ps[p, PS_OPEN_TURN] = ps[p, PS_TURNS]
    ps[p, PS_OPEN_VALUE] = value
    ps[p, PS_OPEN_THRESHOLD] = threshold
    ps[p, PS_TOOK_DISCARD] = 1 if forced >= 0 else 0
    ps[p, PS_OPEN_ORDER] = g[G_OPENERS]


@kernel(inline=True)
def use_taken(p, tile, racks, table, ps, g, rp, events, S, space, rows, keep):
    """Use the discard taken by an opened player this turn (T-TAKE-3), the way the bot
    planned when taking it (:func:`sim.games.rummy101.bots.taken_use`)."""
    rack = racks[p]
    how = taken_use(p, tile, racks, table, ps, g, rp, S, space, keep)
    if how == USE_ADD:
        i, side = find_addition(rack, table, g[G_NTABLE], p, ps, tile)
        add_tile(rack, table, g, events, p, tile, i, side)
    elif how == USE_MELDS:
        _, n = melds_layout(rack, keep, S, space, rows)
        _lay_rows(p, rows, n, racks, table, g, events)
    elif how == USE_PAIR:
        n = pairs_layout(rack, tile, False, keep, rows)
        _lay_rows(p, rows, min(n, 1), racks, table, g, events)


@kernel(inline=True)
def lay_more(p, racks, table, ps, g, rp, events, S, space, rows, keep, no_jokers, took, opening_turn):
    """After opening: recover jokers (T-JOKER-1), lay down new melds (T-OPEN-5) or pairs
    (T-OPEN-5, T-OPEN-6) and add tiles (T-ADD-1), keeping a tile for the discard when
    ``keep`` (T-OPEN-4). On the opening turn only recoveries and additions (T-OPEN-3:
    every meld laid that turn belongs to the opening). ``no_jokers``: new melds without
    jokers, and jokers added to the table only when that empties the rack but for the
    discard (the bot holds them for a joker finish, T-FIN-2).

    The best lay-down takes every meld the rack holds and additions only take tiles away,
    so one pass suffices unless a joker comes back to the rack. Returns how the rack's
    count of ``took`` moved through joker recoveries, which do not count as using the
    discard taken (T-TAKE-3): tiles of that kind put in place of a joker, minus, for a
    joker taken, the jokers taken back."""
    rack = racks[p]
    players = rp[RP_PLAYERS]
    swapped = 0
    while True:
        while True:
            i, tile = find_recovery(rack, table, g[G_NTABLE])
            if i < 0:
                break
            recover_joker(rack, table, g, events, p, i, tile)
            if tile == took:
                swapped += 1
            elif took == JOKER:
                swapped -= 1
        kind = ps[p, PS_OPEN_KIND]
        if kind == OPEN_MELDS and not opening_turn:
            saved = rack[JOKER]
            if no_jokers:
                rack[JOKER] = 0
            _, n = melds_layout(rack, keep and rack[JOKER] == saved, S, space, rows)
            rack[JOKER] = saved
            _lay_rows(p, rows, n, racks, table, g, events)
        pairs_allowed = kind == OPEN_PAIRS or (kind == OPEN_MELDS and others_opened_pairs(ps, players, p))
        if pairs_allowed and not opening_turn:
            n = pairs_layout(rack, -1, not no_jokers, keep, rows)
            _lay_rows(p, rows, n, racks, table, g, events)
        added = True
        while added:  # an addition can make room for the next (R6 after R7 is added)
            added = False
            for k in range(KINDS):
                while rack[k] > 0 and (not keep or rack_tiles(rack) > 1):
                    i, side = find_addition(rack, table, g[G_NTABLE], p, ps, k)
                    if i < 0:
                        break
                    add_tile(rack, table, g, events, p, k, i, side)
                    added = True
        # T-ADD-1: jokers as additions (a joker left on the rack costs 101, T-VAL-1).
        goes_out = rack_tiles(rack) - rack[JOKER] <= 1
        while rack[JOKER] > 0 and (not no_jokers or goes_out) and (not keep or rack_tiles(rack) > 1):
            i, side = find_addition(rack, table, g[G_NTABLE], p, ps, JOKER)
            if i < 0:
                break
            add_tile(rack, table, g, events, p, JOKER, i, side)
        if find_recovery(rack, table, g[G_NTABLE])[0] < 0:
            return swapped


@kernel(i64, i64, I2, I2, I2, I1, I1, I2, SOLVER_ARRAYS, SOLVER_SPACE, I2, i64, boolean, boolean, F2, SEEN)
def act(p, took, racks, table, ps, g, rp, events, S, space, rows, deck_len, keep, finishing, tune, seen):
    """Everything between the take and the discard (T-TURN-1 step 2). Returns False if a
    discard taken was not used (T-TAKE-2, T-TAKE-3): a bot error."""
    before = racks[p, took] if took >= 0 else 0
    opening_turn = ps[p, PS_OPEN_KIND] == OPEN_NONE
    if opening_turn:
        choice = opening_choice(p, racks[p], took, ps, g, rp, S, space, deck_len, finishing, tune)
        if choice == OPEN_NONE:
            return took < 0
        open_now(p, choice, took, racks, table, ps, g, rp, events, S, space, rows, keep)
    elif took >= 0:
        use_taken(p, took, racks, table, ps, g, rp, events, S, space, rows, keep)
    no_jokers = not finishing and keeps_jokers(p, racks, table, ps, g, rp, deck_len, tune, seen)
    swapped = lay_more(p, racks, table, ps, g, rp, events, S, space, rows, keep, no_jokers, took,
                       opening_turn)
    return took < 0 or racks[p, took] + swapped < before


@kernel(inline=True)
def _copy_state(racks, table, ps, g, c_racks, c_table, c_ps, c_g):
    copy_rows(c_racks, racks)
    n = g[G_NTABLE]
    copy_rows(c_table[:n], table[:n])
    copy_rows(c_ps, ps)
    copy_row(c_g, g)
    c_g[G_TRACE] = 0


@kernel(inline=True)
def joker_finish_possible(p, took, racks, table, ps, g, rp, events, S, space, rows, deck_len,
                          scratch, tune, seen):
    """Could ``p`` lay down everything but one joker this turn and throw it (T-FIN-2)?
    Tried on a copy of the state."""
    c_racks, c_table, c_ps, c_g = scratch
    _copy_state(racks, table, ps, g, c_racks, c_table, c_ps, c_g)
    c_racks[p, JOKER] -= 1
    used = act(p, took, c_racks, c_table, c_ps, c_g, rp, events, S, space, rows, deck_len, False, True, tune, seen)
    return used and c_ps[p, PS_OPEN_KIND] != OPEN_NONE and rack_tiles(c_racks[p]) == 0


# play_turn is a kernel of its own, not inlined: numba's inlining copies a helper's IR
# block by block, each copy with all the helper's variables, and play_turn (with all that
# is inlined into it) would cost play_rounds half its compile time.
@kernel(inline=True)
def lay_discard(p, tile, g, seen):
    """``p``'s discard ``tile`` lies on the pile, face up (T-TURN-2): every seat sees it."""
    g[G_LAST_DISCARD] = tile
    g[G_LAST_DISCARDER] = p
    seen.pile[tile] += 1


# What play_turn returns: the round goes on, it is over, or (``force`` AT_DISCARD) the turn
# stopped before a discard its player may choose.
TURN_ON, TURN_OVER, TURN_AT_DISCARD = 0, 1, 2
AT_DISCARD = -2  # play_turn's ``force``: stop before the discard


@kernel(i64, boolean, I1, I2, I2, I2, I1, I1, I2, SOLVER_ARRAYS, SOLVER_SPACE, I2, SCRATCH, F2, SEEN, i64, i64)
def play_turn(p, first, deck, racks, table, ps, g, rp, events, S, space, rows, scratch, tune, seen, take, force):
    """One turn of player ``p``: TURN_OVER when the round is over, else TURN_ON. ``take``:
    -1 the bot takes the discard or not; 0 it draws (the search's choice, :mod:`.search`,
    where the bot would take it); 1 it takes it (where the bot would). ``force``: -1 the
    bot's discard; a tile: that discard (the search's choice); AT_DISCARD: stop before a
    discard the player may choose (TURN_AT_DISCARD), or play the turn on when it has none
    to choose (a joker finish, one tile left)."""
    deck_len = deck.shape[0]
    g[G_TURNS] += 1
    ps[p, PS_TURNS] += 1
    openers_before = g[G_OPENERS]
    opened_before = ps[p, PS_OPEN_KIND] != OPEN_NONE
    rack = racks[p]
    took = -1
    if not first:
        d = g[G_LAST_DISCARD]
        if d >= 0 and (take == 1 or (take < 0 and wants_discard(p, d, racks, table, ps, g, rp, S, space, deck_len,
                                                                 tune))):
            rack[d] += 1
            seen.pile[d] -= 1  # off the pile, onto the table this turn (T-TAKE-2, T-TAKE-3)
            took = d
            g[G_LAST_DISCARD] = -1
            event(events, g, EV_TAKE, p, d)  # T-TAKE-1..4
        elif g[G_STOCK] >= deck_len:
            event(events, g, EV_STOCK_OUT, p)  # T-END-1
            g[G_FINISH] = FINISH_STOCK_OUT
            g[G_WINNER] = -1
            return TURN_OVER
        elif ps[p, PS_BUTTON_LEFT] > 0 and wants_button(p, racks, ps, g, rp, S, space, deck_len):
            rack[JOKER] += 1  # T-BTN-1: an extra joker, not one of the 106
            ps[p, PS_BUTTON_LEFT] -= 1
            ps[p, PS_BUTTON_TURN] = ps[p, PS_TURNS]
            event(events, g, EV_BUTTON, p)
        else:
            tile = deck[g[G_STOCK]]
            g[G_STOCK] += 1
            rack[tile] += 1
            event(events, g, EV_DRAW, p, tile)
    joker_finish = False
    # A joker finish keeps one joker back; a joker just taken must itself go into a meld.
    spare = rack[JOKER] - (1 if took == JOKER else 0)
    discard_only = first and rp[RP_STARTER_MAY_OPEN] == 0  # T-SET-2 with starter_may_open false
    if spare > 0 and not discard_only:
        joker_finish = joker_finish_possible(p, took, racks, table, ps, g, rp, events, S, space,
                                             rows, deck_len, scratch, tune, seen)
    if discard_only:
        used = True
    elif joker_finish:
        rack[JOKER] -= 1
        used = act(p, took, racks, table, ps, g, rp, events, S, space, rows, deck_len, False, True, tune, seen)
        rack[JOKER] += 1
    else:
        used = act(p, took, racks, table, ps, g, rp, events, S, space, rows, deck_len,
                   rp[RP_KEEP] == 1, False, tune, seen)
    if not used:
        g[G_ERROR] = ERR_UNUSED_DISCARD
    if rack[JOKER] > RACK_JOKERS:
        g[G_ERROR] = ERR_JOKERS
    if force == AT_DISCARD and not joker_finish and distinct_tiles(rack) > 1:
        return TURN_AT_DISCARD
    if joker_finish:
        tile = JOKER
    elif force >= 0:
        tile = force
    else:
        tile = discard_choice(p, racks, table, ps, g, rp, deck_len, tune, seen, S, space)
    rack[tile] -= 1
    event(events, g, EV_DISCARD, p, tile)
    if rack_tiles(rack) == 0:  # T-FIN-1
        one_turn = openers_before == 0 and not opened_before  # T-FIN-3
        if one_turn:
            finish = FINISH_ONE_TURN_JOKER if tile == JOKER else FINISH_ONE_TURN
        else:
            finish = FINISH_JOKER if tile == JOKER else FINISH_NORMAL  # T-FIN-2
        g[G_FINISH] = finish
        g[G_WINNER] = p
        event(events, g, EV_FINISH, p, finish)
        return TURN_OVER
    lay_discard(p, tile, g, seen)
    return TURN_ON


@kernel(i64, i64, i64, F2, entry=True)
def new_round_space(n_states, players, set_jokers, tune):
    """Everything one round needs, allocated once per chunk; ``tune``: each seat's row of
    the expert's constants (:func:`sim.games.family.expert_tune`)."""
    return (
        np.zeros((players, COUNTS_LEN), dtype=np.int64),  # racks
        np.zeros((MAX_TABLE, TABLE_FIELDS), dtype=np.int64),  # table
        np.zeros((players, PS_LEN), dtype=np.int64),  # player state
        np.zeros(G_LEN, dtype=np.int64),  # round counters
        (new_space(n_states), new_run_space(n_states), np.empty(LEAF_LEN, dtype=np.int64)),
        np.zeros((MAX_LAID, MELD_FIELDS), dtype=np.int64),  # meld rows
        (np.zeros((players, COUNTS_LEN), dtype=np.int64),
         np.zeros((MAX_TABLE, TABLE_FIELDS), dtype=np.int64),
         np.zeros((players, PS_LEN), dtype=np.int64),
         np.zeros(G_LEN, dtype=np.int64)),  # scratch copy for trying a joker finish
        full_deck(set_jokers),  # the round's tiles
        np.zeros(4, dtype=np.uint64),  # random words for the shuffle
        tune,
        Seen(np.zeros(COUNTS_LEN, dtype=np.int64), np.zeros(COUNTS_LEN, dtype=np.int64),
             np.zeros(players, dtype=np.int64)),  # the pile and a view's scratch (sim.games.rummy101.view)
    )


@kernel(inline=True)
def start_round(deck, rp, policies, rs, events, trace):
    """Clear the round state ``rs`` and deal ``deck`` (T-SET-1, T-SET-2)."""
    racks, ps, g, seen = rs[0], rs[2], rs[3], rs[10]
    players = rp[RP_PLAYERS]
    racks[:, :] = 0
    seen.pile[:] = 0
    ps[:, :] = 0
    g[:] = 0
    g[G_LAST_DISCARD] = -1
    g[G_LAST_DISCARDER] = -1
    g[G_WINNER] = -1
    g[G_TRACE] = 1 if trace else 0
    pos = 0
    for p in range(players):  # T-SET-2: seat 0 starts with one tile more
        size = rp[RP_RACK] + (rp[RP_STARTER_EXTRA] if p == 0 else 0)
        for _ in range(size):
            racks[p, deck[pos]] += 1
            pos += 1
        ps[p, PS_POLICY] = policies[p]
        ps[p, PS_BUTTON_LEFT] = rp[RP_BUTTON]
        event(events, g, EV_DEAL, p, size)
    g[G_STOCK] = pos


@kernel(inline=True)
def goes_on(status, g):
    """After a turn that returned ``status``: whether the round goes on, not when it is over
    (T-FIN-1, T-END-1) or has run too long (an engine error)."""
    if status == TURN_OVER:
        return False
    if g[G_TURNS] >= MAX_TURNS:
        g[G_ERROR] = ERR_TOO_LONG
        return False
    return True


@kernel(inline=True)
def round_tiles(seed, round_id, deck_in, rs, rp):
    """The tile order of round ``round_id`` of ``seed`` (T-SET-1), dealt into the round
    space's buffer, or ``deck_in`` when it is not empty (scenario rounds)."""
    if deck_in.shape[0] > 0:
        return deck_in
    deck_buffer, bits = rs[7], rs[8]
    deal_round(seed, round_id, deck_buffer, bits, rp[RP_DUPLICATE], rp[RP_RACK], rp[RP_STARTER_EXTRA])
    return deck_buffer


@kernel(inline=True)
def play_round(deck, rp, policies, S, rs, events, trace, stop):
    """Play one round from the tile order ``deck`` (jit-compiled); results stay in ``rs``.
    ``stop`` >= 0: stop before the round's turn ``stop + 1`` (after ``stop`` turns), unscored.
    Returns ``(seat to move, whether it is the round's first turn, whether it is over)``."""
    racks, table, ps, g, space, rows, scratch, _, _, tune, seen = rs
    players = rp[RP_PLAYERS]
    start_round(deck, rp, policies, rs, events, trace)
    p = 0
    first = True
    while True:
        if g[G_TURNS] == stop:
            return p, first, False
        if not goes_on(play_turn(p, first, deck, racks, table, ps, g, rp, events, S, space, rows, scratch, tune, seen,
                                 -1, -1), g):
            break
        first = False
        p = (p + 1) % players
    score_round(racks, ps, g, rp, events)
    return p, first, True


@kernel(inline=True)
def round_out(i, deck_len, players, ps, g, out_rounds, out_players):
    """Row ``i`` of the output arrays from a round played to its end (``R_*``, ``P_*``)."""
    out_rounds[i, R_FINISH] = g[G_FINISH]
    out_rounds[i, R_WINNER] = g[G_WINNER]
    out_rounds[i, R_TURNS] = g[G_TURNS]
    out_rounds[i, R_STOCK_LEFT] = deck_len - g[G_STOCK]
    out_rounds[i, R_ERROR] = g[G_ERROR]
    for p in range(players):
        out_players[i, p, P_OPEN_KIND] = ps[p, PS_OPEN_KIND]
        out_players[i, p, P_OPEN_TURN] = ps[p, PS_OPEN_TURN]
        out_players[i, p, P_OPEN_VALUE] = ps[p, PS_OPEN_VALUE]
        out_players[i, p, P_OPEN_THRESHOLD] = ps[p, PS_OPEN_THRESHOLD]
        out_players[i, p, P_TOOK_DISCARD] = ps[p, PS_TOOK_DISCARD]
        out_players[i, p, P_RACK_VALUE] = ps[p, PS_RACK_VALUE]
        out_players[i, p, P_JOKERS_LEFT] = ps[p, PS_JOKERS_LEFT]
        out_players[i, p, P_SCORE] = ps[p, PS_SCORE]
        out_players[i, p, P_OPEN_ORDER] = ps[p, PS_OPEN_ORDER]
        out_players[i, p, P_BUTTON_TURN] = ps[p, PS_BUTTON_TURN]
        out_players[i, p, P_TURNS] = ps[p, PS_TURNS]


# counted=False: it allocates nothing; see sim.jit.kernel
@kernel(i64, i64, i64, I1, I1, SOLVER_ARRAYS, ROUND_SPACE, I1, I2, boolean, I2, I3, entry=True, counted=False)
def play_rounds(seed, start, count, rp, policies, S, rs, deck_in, events, trace, out_rounds, out_players):
    """Play rounds ``start .. start+count-1`` of ``seed`` into the output arrays (``R_*``
    per round, ``P_*`` per player), one after another, in the scratch ``rs`` of
    :func:`new_round_space` (jit-compiled). A non-empty ``deck_in`` replaces the shuffled
    tiles (scenario rounds); ``trace`` fills ``events``. The one entry point of the
    engine: the runner and the trace share its compiled code."""
    players = rp[RP_PLAYERS]
    ps, g = rs[2], rs[3]
    for i in range(count):
        deck = round_tiles(seed, start + i, deck_in, rs, rp)
        play_round(deck, rp, policies, S, rs, events, trace, -1)
        round_out(i, deck.shape[0], players, ps, g, out_rounds, out_players)
