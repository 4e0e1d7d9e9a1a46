"""The ``search`` and ``oracle`` bots of Rummy 101 (issue 22: determinized Monte Carlo
play) and the rounds they play in (numba).

A search seat plays the expert's turn but for two choices, which it weighs by playing them
out in ``samples`` worlds: where the expert takes the previous player's discard (to use it
that turn, T-TAKE-2, T-TAKE-3), take it or draw from the stock instead; and the discard
(T-TURN-2), the expert's and the next ``options - 1`` the expert would throw. It keeps the
option with the best mean outcome, the expert's own unless another beats it by ``margin``
points a round. A world is what the seat cannot see dealt again at random: the other
racks (their sizes known; a discard taken goes to the table the same turn, so no tile is
known to sit in another rack) and the stock's order, from the tiles it has not seen
(:mod:`.view`); the oracle's one world is the true one (it sees the other racks and the
stock: the clairvoyant bound of relative skill).
Each option is played on in the same worlds, so that their luck cancels between options,
to the end of the round with every seat the expert, and scored by the seat's score less
the others' mean (T-SCORE). The worlds come from Philox on :data:`sim.deal.STREAM_SEARCH`, counter
(round, turn, world): the same decisions whatever the chunks or jobs.

The search's kernels are a workload of their own (:data:`sim.games.rummy101.SEARCH_PLAY`),
compiled the first time a search or oracle seat plays, so that rounds of the other bots do
not wait for them.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.deal import shuffle_unseen
from sim.games.family import param_index
from sim.games.rummy101 import EXPERT_PARAMS
from sim.games.rummy101.bots import EXPERT, ORACLE, SEARCH, wants_discard
from sim.games.rummy101.core import (
    G_LAST_DISCARD,
    G_NTABLE,
    G_STOCK,
    G_TRACE,
    G_TURNS,
    MAX_TABLE,
    PS_LEN,
    PS_POLICY,
    PS_SCORE,
    RP_PLAYERS,
    SOLVER_ARRAYS,
    SOLVER_SPACE,
    TABLE_FIELDS,
    score_round,
)
from sim.games.rummy101.engine import (
    AT_DISCARD,
    ROUND_SPACE,
    TURN_AT_DISCARD,
    TURN_OVER,
    goes_on,
    lay_discard,
    play_turn,
    round_out,
    round_tiles,
    start_round,
)
from sim.games.rummy101.expert import expert_discard
from sim.games.rummy101.view import SEEN, Seen, seat_view
from sim.jit import F1, I1, I2, I3, U1, boolean, copy_row, copy_rows, i64, kernel, record_of
from sim.tiles import COUNTS_LEN, JOKER

X_SAMPLES = param_index(EXPERT_PARAMS, "samples")
X_OPTIONS = param_index(EXPERT_PARAMS, "options")
X_MARGIN = param_index(EXPERT_PARAMS, "margin")
MAX_OPTIONS = 8
POOL = 160  # the tiles a seat may not have seen: the set's 106 and every button joker

# A copy of the round's state (its tile order, racks, table, players, counters and pile),
# and the search's scratch: the state its worlds are dealt from (before the seat's turn for
# the take, up to its discard for the discard), the sampled world and the copy a roll-out
# plays in, the unseen tiles dealt out, the options and their summed
# outcomes, and random words.
Copy = namedtuple("Copy", "deck racks table ps g seen")
COPY = record_of(Copy, I1, I2, I2, I2, I1, SEEN)
SearchSpace = namedtuple("SearchSpace", "pre world roll pool options values bits")
SEARCH_SPACE = record_of(SearchSpace, COPY, COPY, COPY, I1, I1, F1, U1)


@kernel(i64, i64, i64)
def _new_copy(players, deck_len, g_len):
    return Copy(np.zeros(deck_len, dtype=np.int64), np.zeros((players, COUNTS_LEN), dtype=np.int64),
                np.zeros((MAX_TABLE, TABLE_FIELDS), dtype=np.int64), np.zeros((players, PS_LEN), dtype=np.int64),
                np.zeros(g_len, dtype=np.int64),
                Seen(np.zeros(COUNTS_LEN, dtype=np.int64), np.zeros(COUNTS_LEN, dtype=np.int64),
                     np.zeros(players, dtype=np.int64)))


@kernel(i64, i64, i64, entry=True)
def new_search_space(players, deck_len, g_len):
    """The search's scratch (:data:`SearchSpace`), allocated once per chunk (jit-compiled)."""
    return SearchSpace(_new_copy(players, deck_len, g_len), _new_copy(players, deck_len, g_len),
                       _new_copy(players, deck_len, g_len), np.zeros(POOL, dtype=np.int64),
                       np.zeros(MAX_OPTIONS, dtype=np.int64), np.zeros(MAX_OPTIONS, dtype=np.float64),
                       np.zeros(4, dtype=np.uint64))


@kernel(I1, I2, I2, I2, I1, I1, COPY)
def _copy_into(deck, racks, table, ps, g, pile, dst):
    """Copy a round's state into ``dst``, untraced (jit-compiled)."""
    copy_row(dst.deck, deck)
    copy_rows(dst.racks, racks)
    for i in range(g[G_NTABLE]):
        copy_row(dst.table[i], table[i])
    copy_rows(dst.ps, ps)
    copy_row(dst.g, g)
    dst.g[G_TRACE] = 0
    copy_row(dst.seen.pile, pile)


@kernel(COPY, COPY)
def _copy(src, dst):
    _copy_into(src.deck, src.racks, src.table, src.ps, src.g, src.seen.pile, dst)


@kernel(i64, I1, SEARCH_SPACE, boolean, i64, i64, i64, i64)
def _sample_world(p, rp, sp, oracle, seed, round_id, when, world):
    """World ``world`` of seat ``p``'s decision ``when`` into ``sp.world``: the state up to
    its discard (``sp.pre``) with the other racks and the stock dealt again from the tiles
    it has not seen, each rack its size (the oracle: the true state) (jit-compiled).

    Unlike the card search's worlds, the other racks are not filtered by what their players
    chose to keep (dealt a tile more for each draw and made to throw those back by the
    expert's judgement): measured on 300 duplicate deals (seed 7) against the expert, that
    cost fifteen times the time and won nothing (46.9% of the decided rounds against 45-48%),
    and thrown back by greedy's judgement (cheap) no more (44.3%).
    """
    w = sp.world
    _copy(sp.pre, w)
    if oracle:
        return
    deck_len = w.deck.shape[0]
    v = seat_view(p, w.racks, w.table, w.ps, w.g, rp, deck_len, w.seen)
    pool = sp.pool
    shuffle_unseen(sp.bits, seed, round_id, when, world, v.unseen, pool)
    at = 0
    for q in range(rp[RP_PLAYERS]):
        if q == p:
            continue
        w.racks[q, :] = 0
        for _ in range(v.sizes[q]):  # the sizes were read before the racks were cleared
            w.racks[q, pool[at]] += 1
            at += 1
    for j in range(w.g[G_STOCK], deck_len):
        w.deck[j] = pool[at]
        at += 1


@kernel(i64, COPY, I1, F1, SOLVER_ARRAYS, SOLVER_SPACE, I1)
def _discard_options(p, pre, rp, tune, S, space, options):
    """The discards the search tries into ``options``: the expert's, then the one it would
    throw without that tile, and so on, ``options`` in all (never a joker, T-TURN-2); returns
    how many (jit-compiled)."""
    rack = pre.racks[p]
    v = seat_view(p, pre.racks, pre.table, pre.ps, pre.g, rp, pre.deck.shape[0], pre.seen)
    most = min(MAX_OPTIONS, max(1, int(tune[X_OPTIONS])))
    saved = np.zeros(MAX_OPTIONS, dtype=np.int64)
    count = 0
    while count < most:
        tile = expert_discard(v, rp, tune, S, space)
        if tile == JOKER:
            break
        options[count] = tile
        saved[count] = rack[tile]
        rack[tile] = 0
        count += 1
    for i in range(count):
        rack[options[i]] = saved[i]
    return count


@kernel(i64, COPY, I1, SOLVER_ARRAYS, ROUND_SPACE, I2)
def _roll_out(p, roll, rp, S, rs, events):
    """Play the round in ``roll`` on from seat ``p``'s turn to its end, every seat the expert,
    and score it (T-SCORE) (jit-compiled)."""
    _, _, _, _, space, rows, scratch, _, _, tune, _ = rs
    players = rp[RP_PLAYERS]
    while True:
        if not goes_on(play_turn(p, False, roll.deck, roll.racks, roll.table, roll.ps, roll.g, rp, events, S, space,
                                 rows, scratch, tune, roll.seen, -1, -1), roll.g):
            break
        p = (p + 1) % players
    score_round(roll.racks, roll.ps, roll.g, rp, events)


@kernel(inline=True)
def _outcome(p, ps, players):
    """What a round's end is worth to seat ``p``: its score less the others' mean (T-SCORE)."""
    others = 0.0
    for q in range(players):
        if q != p:
            others += ps[q, PS_SCORE]
    return ps[p, PS_SCORE] - others / (players - 1)


@kernel(i64, boolean, I1, I1, SOLVER_ARRAYS, ROUND_SPACE, SEARCH_SPACE, i64, i64, I2)
def search_turn(p, first, deck, rp, S, rs, sp, seed, round_id, events):
    """A turn of the search or the oracle (the module docstring): as
    :func:`.engine.play_turn` returns (jit-compiled)."""
    racks, table, ps, g, space, rows, scratch, _, _, tune, seen = rs
    players = rp[RP_PLAYERS]
    oracle = ps[p, PS_POLICY] == ORACLE
    samples = 1 if oracle else max(1, int(tune[p, X_SAMPLES]))
    margin = 0.0 if oracle else tune[p, X_MARGIN]
    pre, values = sp.pre, sp.values
    _copy_into(deck, racks, table, ps, g, seen.pile, pre)
    pre.ps[:, PS_POLICY] = EXPERT  # the copies play the expert in every seat (its own turn's other choices too)
    take = -1
    d = g[G_LAST_DISCARD]
    if not first and d >= 0 and wants_discard(p, d, pre.racks, pre.table, pre.ps, pre.g, rp, S, space,
                                              deck.shape[0], tune):
        # the expert takes the discard (T-TAKE-2, T-TAKE-3): or draw instead? Each played out
        # from here in the same worlds (the stock's next tile unknown), the expert's choice kept
        # unless the draw does better by the margin
        values[0], values[1] = 0.0, 0.0
        when = (g[G_TURNS] + 1) | (1 << 20)
        for k in range(samples):
            _sample_world(p, rp, sp, oracle, seed, round_id, when, k)
            for t in range(2):
                roll = sp.roll
                _copy(sp.world, roll)
                if play_turn(p, False, roll.deck, roll.racks, roll.table, roll.ps, roll.g, rp, events, S, space,
                             rows, scratch, tune, roll.seen, t, -1) == TURN_OVER:
                    score_round(roll.racks, roll.ps, roll.g, rp, events)
                else:
                    _roll_out((p + 1) % players, roll, rp, S, rs, events)
                values[t] += _outcome(p, roll.ps, players)
        take = 0 if values[0] > values[1] + margin * samples else 1
    force = -1
    if play_turn(p, first, pre.deck, pre.racks, pre.table, pre.ps, pre.g, rp, events, S, space, rows, scratch, tune,
                 pre.seen, take, AT_DISCARD) == TURN_AT_DISCARD:
        options = sp.options
        count = _discard_options(p, pre, rp, tune[p], S, space, options)
        if count > 1:
            values[:count] = 0.0
            when = pre.g[G_TURNS]
            for k in range(samples):
                _sample_world(p, rp, sp, oracle, seed, round_id, when, k)
                for i in range(count):
                    roll = sp.roll
                    _copy(sp.world, roll)
                    roll.racks[p, options[i]] -= 1
                    lay_discard(p, options[i], roll.g, roll.seen)
                    _roll_out((p + 1) % players, roll, rp, S, rs, events)
                    values[i] += _outcome(p, roll.ps, players)
            best = 0  # the expert's discard unless another did better by the margin, a mean over the worlds
            for i in range(1, count):
                if values[i] > values[best] + (margin * samples if best == 0 else 1e-9):
                    best = i
            force = options[best]
    return play_turn(p, first, deck, racks, table, ps, g, rp, events, S, space, rows, scratch, tune, seen, take,
                     force)


@kernel(i64, i64, i64, I1, I1, SOLVER_ARRAYS, ROUND_SPACE, SEARCH_SPACE, I1, I2, boolean, I2, I3, entry=True)
def search_rounds(seed, start, count, rp, policies, S, rs, sp, deck_in, events, trace, out_rounds, out_players):
    """:func:`.engine.play_rounds` with search or oracle seats: each of their turns by
    :func:`search_turn` (jit-compiled)."""
    racks, table, ps, g, space, rows, scratch, _, _, tune, seen = rs
    players = rp[RP_PLAYERS]
    for i in range(count):
        deck = round_tiles(seed, start + i, deck_in, rs, rp)
        start_round(deck, rp, policies, rs, events, trace)
        p, first = 0, True
        while True:
            if policies[p] >= SEARCH:
                status = search_turn(p, first, deck, rp, S, rs, sp, seed, start + i, events)
            else:
                status = play_turn(p, first, deck, racks, table, ps, g, rp, events, S, space, rows, scratch, tune,
                                   seen, -1, -1)
            if not goes_on(status, g):
                break
            first = False
            p = (p + 1) % players
        score_round(racks, ps, g, rp, events)
        round_out(i, deck.shape[0], players, ps, g, out_rounds, out_players)
