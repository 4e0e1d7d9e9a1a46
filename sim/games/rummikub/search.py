"""The ``search`` and ``oracle`` bots of Rummikub (issue 22: determinized Monte Carlo play)
and the rounds they play in (numba).

A search seat plays the expert's turn (:mod:`.expert`) but weighs the one choice the expert
makes on every turn after opening: to lay tiles or to draw (K-PLAY-1: a player may always
draw). Where the expert holds back while its rack could place something, it weighs placing
the most value the table solver finds against drawing; where the expert places that (in
danger), the same two the other way round. A turn that goes out (K-END-1) or could place
nothing is the expert's, unsearched, and so is the opening (K-OPEN-1): searched too,
declining to open looked better in the worlds than it did with the true racks, and the
declines it chose cost 17 points each (heads-up, 12 deals, seed 0-11). Each of the two is
played out in ``samples`` worlds, the same worlds for both so that their luck cancels, to
the end of the round with every seat the expert, and scored by the seat's score less the
others' mean (K-END-1, K-END-2); the expert's own action is kept unless the other beats it
by ``margin`` points a round (fewer worlds when the answer is plain early,
:func:`_settled`). The margin is large (100) because the choice is made on every turn and
its estimate is noisy (the two actions' outcomes differ by 300 points a world, one standard
deviation): with a margin of 0 or 25 the search laid tiles out where the expert would not on
many turns, each of these changes worth about nothing in itself (measured with the true
other rack and 48 pools), and lost 21-27% of the decided heads-up rounds to the expert; with
100 it wins as many rounds as the expert and scores more.

A world is what the seat cannot see dealt again at random from the tiles it has not seen
(:mod:`.view`): the other racks, their sizes kept, and the pool's order. Rummikub has no
discard and no tile goes from the table to a rack, so nothing is known of any other rack
but its size and what its player was seen to do (:func:`_fits`). The other players'
memory of their own last turn (the tile a play must place, the engine's search shortcut)
is forgotten in a world, since it names a tile of their true rack. The oracle's one world
is the true one (it sees the other racks and the pool), and in it the other players play
their own bots, not the expert: the clairvoyant bound of relative skill, whose play-outs
foresee what will happen. (With the expert in their seats it scored 18 points a round
against greedy heads-up where the expert scored 64, 24 rounds: greedy lays out and goes out
far sooner than the expert it was taken for.) The worlds come from Philox on
:data:`sim.deal.STREAM_SEARCH`, counter (round, turn, world and attempt): the same decisions
whatever the chunks or jobs.

The search's kernels are a workload of their own (:data:`sim.games.rummikub.SEARCH_PLAY`),
compiled the first time a search or oracle seat plays.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.deal import shuffle_unseen
from sim.games.family import param_index
from sim.games.rummikub import EXPERT_PARAMS
from sim.games.rummikub.engine import (
    ERR_MEMO,
    FORCE_DRAW,
    FORCE_PLAY,
    MAX_TURNS,
    POLICY_EXPERT,
    POLICY_ORACLE,
    POLICY_SEARCH,
    ROUND_SPACE,
    SCORE_UNIT,
    TRACE,
    next_turn,
    round_out,
    start_round,
)
from sim.games.rummikub.expert import can_go_out, expert_play, opening_melds
from sim.games.rummikub.state import (
    G_DECK,
    G_ERROR,
    G_NTABLE,
    G_POOL,
    G_TRACE,
    G_TURNS,
    LAST_DREW,
    LAST_PASSED,
    PS_DRAWN_SINCE,
    PS_FAILED_AT,
    PS_LAST,
    PS_LEN,
    PS_OPEN_TURN,
    PS_POLICY,
    PS_SCORE,
    RP_PLAYERS,
    RP_WRAP,
    bar_in_force,
    rack_tiles,
)
from sim.games.rummikub.tablesolver import SPACE as TABLE_SPACE
from sim.games.rummikub.tableturn import WORK
from sim.games.rummikub.view import seat_view
from sim.jit import F1, F2, I1, I2, I3, U1, boolean, copy_row, copy_rows, i64, kernel, record_of
from sim.solver.arrays import SOLVER_ARRAYS, SOLVER_SPACE
from sim.solver.layout import MELD_FIELDS
from sim.tiles import COUNTS_LEN

X_SAMPLES = param_index(EXPERT_PARAMS, "samples")
X_MARGIN = param_index(EXPERT_PARAMS, "margin")
NO_CHOICE = -1  # _expert_action: the expert's turn leaves nothing to weigh
MAX_TRIES = 16  # a world dealt again at most this many times for racks that fit what their players did
# The worlds stop early when the answer is plainly the expert's: after FIRST_WORLDS at least,
# once the other action's mean gain is SETTLED standard errors below the margin (most turns: where the expert
# holds back, laying out is worth -80 points a round on average, one world's gain varying by 300).
FIRST_WORLDS = 4
SETTLED = 2.0

# A copy of a round's state (its tile order, racks, table, players and counters), and the
# search's scratch: the state its worlds are dealt from, the sampled world and the copy a
# roll-out plays in, the unseen tiles dealt out, the two actions' summed outcomes and
# random words.
Copy = namedtuple("Copy", "deck racks table ps g")
COPY = record_of(Copy, I1, I2, I2, I2, I1)
SearchSpace = namedtuple("SearchSpace", "pre world roll pool values bits")
SEARCH_SPACE = record_of(SearchSpace, COPY, COPY, COPY, I1, F1, U1)


@kernel(i64, i64, i64, i64)
def _new_copy(players, deck_len, table_rows, g_len):
    return Copy(np.zeros(deck_len, dtype=np.int64), np.zeros((players, COUNTS_LEN), dtype=np.int64),
                np.zeros((table_rows, MELD_FIELDS), dtype=np.int64), np.zeros((players, PS_LEN), dtype=np.int64),
                np.zeros(g_len, dtype=np.int64))


@kernel(i64, i64, i64, i64, entry=True)
def new_search_space(players, deck_len, table_rows, g_len):
    """The search's scratch (:data:`SearchSpace`) for rounds of at most ``deck_len`` tiles,
    allocated once per chunk (jit-compiled)."""
    return SearchSpace(_new_copy(players, deck_len, table_rows, g_len),
                       _new_copy(players, deck_len, table_rows, g_len),
                       _new_copy(players, deck_len, table_rows, g_len), np.zeros(deck_len, dtype=np.int64),
                       np.zeros(2, dtype=np.float64), np.zeros(4, dtype=np.uint64))


@kernel(I1, I2, I2, I2, I1, COPY)
def _copy_into(deck, racks, table, ps, g, dst):
    """Copy a round's state into ``dst``, untraced (jit-compiled)."""
    for j in range(g[G_DECK]):
        dst.deck[j] = deck[j]
    copy_rows(dst.racks, racks)
    for i in range(g[G_NTABLE]):
        copy_row(dst.table[i], table[i])
    copy_rows(dst.ps, ps)
    copy_row(dst.g, g)
    dst.g[G_TRACE] = 0


@kernel(COPY, COPY)
def _copy(src, dst):
    _copy_into(src.deck, src.racks, src.table, src.ps, src.g, dst)


@kernel(i64, I2, I2, I2, I1, I1, F2, TABLE_SPACE, WORK)
def _expert_action(p, racks, table, ps, g, rp, tune, ts, work):
    """What the expert does this turn, after opening, when drawing is not its only choice:
    ``FORCE_PLAY`` (it places the most value, in danger) or ``FORCE_DRAW`` (it holds back
    while its rack could place something, K-PLAY-1); :data:`NO_CHOICE` before opening,
    when it goes out (K-END-1) or when it can place nothing (jit-compiled)."""
    if ps[p, PS_OPEN_TURN] == 0:
        return NO_CHOICE  # the expert's opening (see the module docstring)
    v = seat_view(p, racks, table, ps, g, rp)
    w, _, nothing = expert_play(v, rp, tune[p], ts, work, False)
    if w > 0:
        return NO_CHOICE if rack_tiles(work[7]) == rack_tiles(v.rack) else FORCE_PLAY  # work[7]: the tiles placed
    if nothing:
        return NO_CHOICE
    w, _, _ = expert_play(v, rp, tune[p], ts, work, True)
    return FORCE_DRAW if w > 0 else NO_CHOICE


@kernel(inline=True)
def _fits(q, w, drawn, rp, S, space, rows, ts, work):
    """Could seat ``q``'s rack in world ``w`` have done what ``q`` did on its last turn, as
    everyone saw it? A player that drew or passed could not go out (K-END-1: every bot goes
    out when it can) or, before opening, could not reach its bar (K-OPEN-1: every bot opens
    when it can), with what it held then: the rack less ``drawn``, the tile that stands for
    its draw (-1: it passed). The table is today's: the one it saw heads-up, a table
    changed since by the players after it with more players."""
    last = w.ps[q, PS_LAST]
    if last != LAST_DREW and last != LAST_PASSED:
        return True
    rack = w.racks[q]
    if drawn >= 0:
        rack[drawn] -= 1
    if w.ps[q, PS_OPEN_TURN] > 0:
        fits = not can_go_out(rack, w.table, w.g[G_NTABLE], rp, ts, work)
    else:
        bar = bar_in_force(q, w.ps, rp)
        value, n = opening_melds(rack, bar, False, rp[RP_WRAP] == 1, S, space, rows)
        fits = n == 0 or value < bar
    if drawn >= 0:
        rack[drawn] += 1
    return fits


@kernel(i64, I1, SEARCH_SPACE, boolean, i64, i64, i64, i64, SOLVER_ARRAYS, SOLVER_SPACE, I2, TABLE_SPACE, WORK)
def _sample_world(p, rp, sp, oracle, seed, round_id, when, world, S, space, rows, ts, work):
    """World ``world`` of seat ``p``'s decision ``when`` into ``sp.world``: the state
    ``sp.pre`` with the other racks and the pool dealt again from the tiles the seat has not
    seen, each rack its size (the oracle: the true state) (jit-compiled).

    A rack dealt at random could have gone out or opened where its player was seen to draw
    (:func:`_fits`); a world with such a rack is dealt again, :data:`MAX_TRIES` times at
    most. With these worlds the mean worth of laying where the expert holds came out as
    with the true other rack (-79 and -74 points a round over 439 heads-up decisions; over
    306 others the two estimates correlated 0.62, decision by decision).
    """
    w = sp.world
    _copy(sp.pre, w)
    if oracle:
        return
    v = seat_view(p, w.racks, w.table, w.ps, w.g, rp)
    pool = sp.pool
    for attempt in range(MAX_TRIES):
        shuffle_unseen(sp.bits, seed, round_id, when, world | (attempt << 32), v.unseen, pool)
        at = 0
        fits = True
        for q in range(rp[RP_PLAYERS]):
            if q == p:
                continue
            w.racks[q, :] = 0
            for _ in range(v.rack_sizes[q]):  # the sizes were read before the racks were cleared
                w.racks[q, pool[at]] += 1
                at += 1
            w.ps[q, PS_FAILED_AT] = 0  # its memory of its true rack (the tile a play must place) forgotten
            w.ps[q, PS_DRAWN_SINCE] = -1
            if fits and v.rack_sizes[q] > 0:
                fits = _fits(q, w, pool[at - 1], rp, S, space, rows, ts, work)
        if fits:
            break
    for j in range(w.g[G_POOL], w.g[G_DECK]):
        w.deck[j] = pool[at]
        at += 1


@kernel(inline=True)
def _outcome(p, ps, players):
    """What a round's end is worth to seat ``p``, in points: its score less the others' mean."""
    others = 0.0
    for q in range(players):
        if q != p:
            others += ps[q, PS_SCORE]
    return (ps[p, PS_SCORE] - others / (players - 1)) / SCORE_UNIT


@kernel(inline=True)
def _settled(values, played, margin):
    """After ``played`` worlds, is the answer plainly the expert's? The mean gain of the other
    action is :data:`SETTLED` standard errors below the margin. (Stopping as early where it
    is as far above lost the search's edge: +4.1 [-8.2, +16.4] points a round against +21.7
    [+8.5, +35.0] with every world, 200 heads-up deals, seed 2027.)"""
    mean = values[0] / played
    spread = np.sqrt(max(values[1] / played - mean * mean, 0.0) / played)
    return mean + SETTLED * spread < margin


@kernel(i64, I1, I1, F2, SOLVER_ARRAYS, ROUND_SPACE, TABLE_SPACE, SEARCH_SPACE, TRACE, i64, i64)
def search_turn(p, deck, rp, tune, S, rs, ts, sp, trace, seed, round_id):
    """A turn of the search or the oracle (the module docstring): True when the round is
    over, scored (jit-compiled)."""
    racks, table, ps, g, space, rows, work, _, _ = rs
    players = rp[RP_PLAYERS]
    me = ps[p, PS_POLICY]
    action = _expert_action(p, racks, table, ps, g, rp, tune, ts, work)
    if action != NO_CHOICE:
        oracle = me == POLICY_ORACLE
        samples = 1 if oracle else max(1, int(tune[p, X_SAMPLES]))
        margin = 0.0 if oracle else tune[p, X_MARGIN]
        other = FORCE_DRAW + FORCE_PLAY - action
        pre, roll, values = sp.pre, sp.roll, sp.values
        _copy_into(deck, racks, table, ps, g, pre)
        for q in range(players):
            # the search's copies play the expert in every seat; the oracle's, which sees how
            # every player plays too, the other players' own bots (a search or oracle seat: the expert)
            if not oracle or q == p or pre.ps[q, PS_POLICY] >= POLICY_SEARCH:
                pre.ps[q, PS_POLICY] = POLICY_EXPERT
        values[:] = 0.0  # the sum of the other action's gains over the expert's, and of their squares
        played = 0
        for k in range(samples):
            _sample_world(p, rp, sp, oracle, seed, round_id, g[G_TURNS], k, S, space, rows, ts, work)
            gain = 0.0
            for t in range(2):
                _copy(sp.world, roll)
                roll.ps[p, PS_POLICY] = action if t == 0 else other
                over = next_turn(roll.deck, roll.racks, roll.table, roll.ps, roll.g, rp, tune, S, space, rows, ts,
                                 work, trace)
                roll.ps[p, PS_POLICY] = POLICY_EXPERT
                while not over:
                    over = next_turn(roll.deck, roll.racks, roll.table, roll.ps, roll.g, rp, tune, S, space, rows,
                                     ts, work, trace)
                gain += _outcome(p, roll.ps, players) * (-1.0 if t == 0 else 1.0)
            values[0] += gain
            values[1] += gain * gain
            played = k + 1
            if played >= FIRST_WORLDS and played < samples and _settled(values, played, margin):
                break
        if values[0] > margin * played:
            action = other
    ps[p, PS_POLICY] = POLICY_EXPERT if action == NO_CHOICE else action
    over = next_turn(deck, racks, table, ps, g, rp, tune, S, space, rows, ts, work, trace)
    ps[p, PS_POLICY] = me
    return over


@kernel(i64, i64, i64, I1, I1, F2, SOLVER_ARRAYS, ROUND_SPACE, TABLE_SPACE, SEARCH_SPACE, I1, TRACE, boolean, I2,
        I3, boolean, i64, entry=True)
def search_rounds(seed, start, count, rp, policies, tune, S, rs, ts, sp, deck_in, trace, tracing, out_rounds,
                  out_players, fresh, stop):
    """:func:`.engine.play_rounds` with search or oracle seats, each of their turns by
    :func:`search_turn`; the same arguments and return (jit-compiled)."""
    racks, table, ps, g, space, rows, work, _, _ = rs
    players = rp[RP_PLAYERS]
    last = stop if stop >= 0 else MAX_TURNS + 1
    for i in range(count):
        deck = start_round(seed, start + i, deck_in, rp, policies, rs, tracing, fresh)
        over = False
        while not over and g[G_TURNS] < last:
            p = g[G_TURNS] % players
            if ps[p, PS_POLICY] == POLICY_SEARCH or ps[p, PS_POLICY] == POLICY_ORACLE:
                over = search_turn(p, deck, rp, tune, S, rs, ts, sp, trace, seed, start + i)
            else:
                over = next_turn(deck, racks, table, ps, g, rp, tune, S, space, rows, ts, work, trace)
        if g[G_ERROR] == ERR_MEMO or not over:
            return i
        round_out(i, rs, rp, out_rounds, out_players)
    return count
