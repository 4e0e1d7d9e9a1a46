"""The ``search`` and ``oracle`` bots of card Rummy 101 (issue 22: determinized Monte Carlo
play) and the matches they play in (numba).

A search seat plays the expert's turn (:mod:`.expert`), but where the expert weighs a
choice (take the discard or draw; lay its melds down or hold them for rummy, C-SCORE-2;
which card to throw) it tries each option in ``samples`` worlds and keeps the best mean
outcome. A world is what the seat cannot see, dealt again at random: the other hands (their
sizes known, and the cards it saw each take from the pile and not since seen put back in
them) and the stock's order, from the cards it has not seen; the oracle's one world is the
true one. Each option is played on in the same worlds (so that the worlds' luck cancels
between options) to the end of the hand, every seat playing the expert (:func:`_roll_out`),
and scored by :func:`_outcome`. The worlds come from Philox on
:data:`sim.deal.STREAM_SEARCH`, counter (match, hand and turn, world): the same decisions
whatever the chunks or jobs.

The search's kernels are a workload of their own (:data:`sim.games.cards.SEARCH_PLAY`),
compiled the first time a search or oracle seat plays (issue 25: the engine compiles
without them). The matches it plays in (:func:`search_matches`) are the engine's
(:func:`.engine.play_matches`) loops, with the engine's pieces, and a search or oracle seat's
turns by :func:`search_turn`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.deal import STREAM_SEARCH, shuffle_part
from sim.games.cards.engine import (
    CARDS,
    EV_FIELDS,
    FINISH_WASH,
    G_LEN,
    G_NEVENTS,
    GOES_ON,
    HAND_STATE,
    M_FIRST_DEALER,
    M_WASHES,
    MAX_TURNS,
    POLICY_EXPERT,
    POLICY_ORACLE,
    POLICY_SEARCH,
    R_BEST,
    R_BEST_STEPS,
    R_LEN,
    R_OUT,
    RP_DECKS,
    RP_DUPLICATE,
    RP_PARTNERS,
    RP_PLAYERS,
    RP_RUMMY,
    RP_SIZE,
    RP_TARGET,
    S_ANY,
    S_LEN,
    S_TURN,
    SETUP,
    STEPS,
    TRACE,
    HandState,
    Setup,
    Trace,
    deal_hand,
    draw_and_solve,
    expert_lay_down,
    expert_takes,
    expert_throw,
    first_dealer,
    go_out,
    hand_over,
    hand_played,
    match_over,
    new_hand_state,
    play_turns,
    take_turn,
    team_total,
    throw_card,
    view_of,
)
from sim.games.cards.expert import (
    X_MARGIN,
    X_OPTIONS,
    X_SAMPLES,
    expert_discard,
    expert_lays,
    is_close,
    leaves,
    throw_cost,
)
from sim.games.cards.hand import solve
from sim.jit import F1, F2, I1, I2, I3, U1, boolean, copy_row, copy_rows, i64, kernel, record_of

# The search's scratch: the setup every seat of a roll-out plays by (all expert), the sampled
# world and the copy a roll-out plays in, a trace that records nothing, the unseen cards
# dealt out, the options' summed outcomes and the options themselves.
SearchSpace = namedtuple("SearchSpace", "setup world roll quiet pool values options costs bits")
SEARCH_SPACE = record_of(SearchSpace, SETUP, HAND_STATE, HAND_STATE, TRACE, I1, F1, I1, F1, U1)
MAX_OPTIONS = 8


@kernel(HAND_STATE, HAND_STATE, i64, i64, counted=False)
def _copy_state(src, dst, nt, npile):
    """Copy the hand in play (its first ``nt`` table melds and ``npile`` pile cards) from
    ``src`` into ``dst`` (jit-compiled)."""
    copy_row(dst.deck, src.deck)
    copy_rows(dst.hands, src.hands)
    for i in range(nt):
        copy_row(dst.table[i], src.table[i])
    for i in range(npile):
        dst.pile[i] = src.pile[i]
    copy_rows(dst.seats, src.seats)
    copy_row(dst.takes, src.takes)
    copy_rows(dst.took, src.took)
    copy_rows(dst.thrown, src.thrown)


@kernel(SETUP, HAND_STATE, SEARCH_SPACE, I1, i64, i64, i64, i64, i64, i64, i64, counted=False)
def _sample_world(setup, hs, sp, totals, seat, nt, npile, stock, match_id, when, world):
    """World ``world`` of seat ``seat``'s decision ``when`` into ``sp.world``: the hand in
    play with the other hands and the stock dealt again from what the seat has not seen
    (the oracle: the true hand) (jit-compiled).

    Another seat's hand keeps the cards the seat saw it take from the pile (and has not
    seen since); the rest is dealt at random, with one more card for each card it drew from
    the stock, and it throws those extra cards back by the expert's judgement (they go to
    the stock): a hand that has drawn ten times holds the cards it chose to keep, not ten
    random ones. Without that filter the search plays against opponents far slower to go
    out than they are (measured: 25% of the matches against expert, 54% with the true hands).
    """
    w = sp.world
    _copy_state(hs, w, nt, npile)
    if setup.policies[seat] == POLICY_ORACLE:
        return
    players = setup.rp[RP_PLAYERS]
    v = view_of(setup, hs, totals, seat, nt, npile, hs.deck.shape[0] - stock)
    pool, unseen = sp.pool, v.unseen
    for o in range(players):  # the cards each other seat was seen to take, still unseen, stay with it
        if o == seat:
            continue
        w.hands[o, :] = 0
        room = v.sizes[o]
        for c in range(CARDS):
            k = min(hs.took[o, c], unseen[c], room)
            w.hands[o, c] = k
            unseen[c] -= k
            room -= k
    n = 0
    for c in range(CARDS):
        for _ in range(unseen[c]):
            pool[n] = c
            n += 1
    shuffle_part(sp.bits, setup.seed, STREAM_SEARCH, match_id, when, world, pool, 0, n)
    needs = 0  # the cards still to deal to the other hands
    for o in range(players):
        if o != seat:
            needs += v.sizes[o] - w.hands[o].sum()
    at, back = 0, n  # dealt from the front; thrown back after the end
    for o in range(players):
        if o == seat:
            continue
        h = w.hands[o]
        need = v.sizes[o] - h.sum()
        extra = max(0, w.seats[o, S_TURN] - hs.took[o].sum())  # its draws from the stock
        extra = max(0, min(extra, n - at - needs))
        needs -= need
        for _ in range(need + extra):
            h[pool[at]] += 1
            at += 1
        for _ in range(extra):
            vo = view_of(setup, w, totals, o, nt, npile, w.deck.shape[0] - stock)
            solve(h, w.table, nt, -1, w.paths, w.result)
            leaves(w.paths[1], w.result[R_BEST_STEPS], w.kept)
            tune = setup.tune[o]
            c = expert_discard(vo, w.kept, -1, (o + 1) % players, is_close(vo, setup.rp[RP_PARTNERS], tune, players),
                               tune)
            if c < 0:
                c = 0
                while h[c] == 0:
                    c += 1
            h[c] -= 1
            pool[back] = c
            back += 1
    m = stock
    for j in range(at, back):  # the stock: what is left, and the cards thrown back, shuffled
        if m < w.deck.shape[0]:
            w.deck[m] = pool[j]
            m += 1
    shuffle_part(sp.bits, setup.seed, STREAM_SEARCH, match_id, when | 2, world, w.deck, stock, m)


@kernel(SETUP, HAND_STATE, SEARCH_SPACE, I1, i64, i64, i64, i64, i64, i64, counted=False)
def _throw_options(setup, hs, sp, totals, seat, nt, forbid, npile, stock_left, throw):
    """The throws the search tries into ``sp.options``: the expert's ``throw`` first, then
    the kept cards (``hs.kept``) that cost it least, ``options`` in all; returns how many
    (jit-compiled)."""
    rp, tune = setup.rp, setup.tune[seat]
    players = rp[RP_PLAYERS]
    v = view_of(setup, hs, totals, seat, nt, npile, stock_left)
    close = is_close(v, rp[RP_PARTNERS], tune, players)
    costs, options, left = sp.costs, sp.options, hs.kept
    for c in range(CARDS):
        ok = left[c] > 0 and not (c == forbid and v.hand[c] < 2) and c != throw
        costs[c] = throw_cost(v, left, c, (seat + 1) % players, close, tune) if ok else np.inf
    options[0] = throw
    count = 1
    most = min(MAX_OPTIONS, max(1, int(tune[X_OPTIONS])))
    while count < most:
        best = -1
        for c in range(CARDS):
            if costs[c] < np.inf and (best < 0 or costs[c] < costs[best]):
                best = c
        if best < 0:
            break
        options[count] = best
        costs[best] = np.inf
        count += 1
    return count


@kernel(I1, I1, i64, i64, i64, i64)
def _outcome(rp, totals, seat, finish, winner, points):
    """What the end of a roll-out is worth to ``seat``: +-1 for the hand that wins the match
    (C-MATCH-1, C-TEAM-1), else +- half the share of what the winner still needed; 0 for a
    wash (jit-compiled)."""
    if finish == FINISH_WASH or winner < 0:
        return 0.0
    players, partners = rp[RP_PLAYERS], rp[RP_PARTNERS]
    need = max(1, rp[RP_TARGET] - team_total(totals, winner, players, partners))
    worth = 1.0 if points >= need else 0.5 * points / need
    return worth if winner == seat or (partners and winner % 2 == seat % 2) else -worth


@kernel(SEARCH_SPACE, I1, i64, i64, i64, i64, i64, counted=False)
def _roll_out(sp, totals, hand, seat, nt, npile, stock):
    """Play the hand in ``sp.roll`` on from ``seat``'s turn to its end, every seat the expert;
    its :func:`_outcome` for nobody yet: returns ``(finish, winner, points)`` (jit-compiled)."""
    hs = sp.roll
    players = sp.setup.rp[RP_PLAYERS]
    n = hs.deck.shape[0]
    for _ in range(MAX_TURNS):
        if stock >= n:  # C-WASH-1
            return FINISH_WASH, -1, 0
        nt, npile, stock, finish, points = take_turn(sp.setup, hs, sp.quiet, totals, hand, seat, nt, npile, stock, -1)
        if finish != GOES_ON:
            return finish, seat, points
        seat = (seat + 1) % players
    return FINISH_WASH, -1, 0


@kernel(SETUP, HAND_STATE, TRACE, SEARCH_SPACE, I1, i64, i64, i64, i64, i64, i64, counted=False)
def search_turn(setup, hs, tr, sp, totals, match_id, hand, seat, nt, npile, stock):
    """A turn of the search or the oracle (this module's docstring): as :func:`.engine.take_turn` returns
    (jit-compiled)."""
    rp, tune = setup.rp, setup.tune[seat]
    players = rp[RP_PLAYERS]
    samples = 1 if setup.policies[seat] == POLICY_ORACLE else max(1, int(tune[X_SAMPLES]))
    margin = 0.0 if setup.policies[seat] == POLICY_ORACLE else tune[X_MARGIN]
    seats, values, options = hs.seats, sp.values, sp.options
    when = (hand << 24) | (seats[seat, S_TURN] << 3)
    top = hs.pile[npile - 1] if npile > 0 else -1
    force = -1
    if top >= 0 and hs.thrown[seat, top] == 0:  # take or draw, unless the take goes out
        h = hs.hands[seat]
        h[top] += 1
        solve(h, hs.table, nt, -1 if h[top] > 1 else top, hs.paths, hs.result)
        h[top] -= 1
        if hs.result[R_OUT] == 0:
            values[0], values[1] = 0.0, 0.0
            for k in range(samples):
                _sample_world(setup, hs, sp, totals, seat, nt, npile, stock, match_id, when, k)
                for take in range(2):
                    _copy_state(sp.world, sp.roll, nt, npile)
                    a, b, c, finish, points = take_turn(sp.setup, sp.roll, sp.quiet, totals, hand, seat, nt, npile,
                                                    stock, take)
                    winner = seat
                    if finish == GOES_ON:
                        finish, winner, points = _roll_out(sp, totals, hand, (seat + 1) % players, a, b, c)
                    values[take] += _outcome(rp, totals, seat, finish, winner, points)
            expert = 1 if expert_takes(setup, hs, totals, seat, nt, npile, hs.deck.shape[0] - stock, top) else 0
            # the expert's choice unless the other did better by the margin, a mean over the worlds
            force = 1 - expert if values[1 - expert] > values[expert] + margin * samples else expert
    turn, forbid, npile, stock = draw_and_solve(setup, hs, tr, totals, hand, seat, nt, npile, stock, force)
    if hs.result[R_OUT]:
        finish, points = go_out(rp, hs, tr, hand, seat, turn, nt, forbid, npile)
        return nt, npile + 1, stock, finish, points
    stock_left = hs.deck.shape[0] - stock
    lay = -1
    if hs.result[R_BEST] > 0 and seats[seat, S_ANY] == 0 and rp[RP_RUMMY] > 1:  # lay down or hold for rummy
        values[0], values[1] = 0.0, 0.0
        for k in range(samples):
            _sample_world(setup, hs, sp, totals, seat, nt, npile, stock, match_id, when | 4, k)
            for lays in range(2):
                w = sp.roll
                _copy_state(sp.world, w, nt, npile)
                copy_rows(w.paths[1], hs.paths[1])
                copy_row(w.result, hs.result)
                at = expert_lay_down(setup, w, sp.quiet, totals, hand, seat, turn, nt, npile, stock_left, lays)
                throw_card(w, sp.quiet, hand, seat, turn, expert_throw(setup, w, totals, seat, at, forbid, npile,
                                                                    stock_left), npile)
                finish, winner, points = _roll_out(sp, totals, hand, (seat + 1) % players, at, npile + 1, stock)
                values[lays] += _outcome(rp, totals, seat, finish, winner, points)
        v = view_of(setup, hs, totals, seat, nt, npile, stock_left)
        expert = 1 if expert_lays(v, hs.result[R_BEST], False, players, rp[RP_TARGET], rp[RP_PARTNERS],
                                  rp[RP_RUMMY], tune) else 0
        lay = 1 - expert if values[1 - expert] > values[expert] + margin * samples else expert
    nt = expert_lay_down(setup, hs, tr, totals, hand, seat, turn, nt, npile, stock_left, lay)
    # the options: the expert's throw, then the kept cards that cost it least
    throw = expert_throw(setup, hs, totals, seat, nt, forbid, npile, stock_left)
    count = _throw_options(setup, hs, sp, totals, seat, nt, forbid, npile, stock_left, throw)
    if count > 1:
        values[:count] = 0.0
        for k in range(samples):
            _sample_world(setup, hs, sp, totals, seat, nt, npile, stock, match_id, when | 4, k)
            for i in range(count):
                _copy_state(sp.world, sp.roll, nt, npile)
                throw_card(sp.roll, sp.quiet, hand, seat, turn, options[i], npile)
                finish, winner, points = _roll_out(sp, totals, hand, (seat + 1) % players, nt, npile + 1, stock)
                values[i] += _outcome(rp, totals, seat, finish, winner, points)
        best = 0
        for i in range(1, count):
            if values[i] > values[best] + (margin * samples if best == 0 else 1e-9):
                best = i
        throw = options[best]
    throw_card(hs, tr, hand, seat, turn, throw, npile)
    return nt, npile + 1, stock, GOES_ON, 0


@kernel(SETUP, HAND_STATE)
def new_search_space(setup, hs):
    """The search's scratch (:data:`SearchSpace`) for the hand ``hs``, allocated once per chunk
    (jit-compiled)."""
    players, decks = setup.rp[RP_PLAYERS], setup.rp[RP_DECKS]
    experts = np.full(players, POLICY_EXPERT, dtype=np.int64)
    quiet = Trace(np.zeros((1, EV_FIELDS), dtype=np.int64), np.zeros((1, players, CARDS), dtype=np.int64),
                  np.zeros(G_LEN, dtype=np.int64), False)
    return SearchSpace(Setup(setup.seed, setup.rp, experts, setup.fixed, setup.tune),
                       new_hand_state(players, hs.deck.shape[0]), new_hand_state(players, hs.deck.shape[0]), quiet,
                       np.zeros(2 * CARDS * decks, dtype=np.int64), np.zeros(MAX_OPTIONS, dtype=np.float64),
                       np.zeros(MAX_OPTIONS, dtype=np.int64), np.zeros(CARDS, dtype=np.float64),
                       np.zeros(4, dtype=np.uint64))


@kernel(SETUP, HAND_STATE, TRACE, SEARCH_SPACE, i64, i64, i64, I1, I1, I2, counted=False)
def _play_hand(setup, hs, tr, sp, match_id, hand, dealer, totals, out_h, out_p):
    """:func:`.engine._play_hand` with search or oracle seats, each of their turns by
    :func:`search_turn` (jit-compiled)."""
    players = setup.rp[RP_PLAYERS]
    deal_hand(setup, hs, match_id, hand, dealer)
    nt, npile, stock, seat, turns = 0, 1, setup.rp[RP_SIZE] * players + 1, (dealer + 1) % players, 0  # C-SET-2
    while True:
        nt, npile, stock, seat, turns, finish, winner, points = play_turns(setup, hs, tr, totals, hand, seat, nt,
                                                                           npile, stock, turns)
        if finish != GOES_ON:
            break
        turns += 1  # the searcher's
        nt, npile, stock, finish, points = search_turn(setup, hs, tr, sp, totals, match_id, hand, seat, nt, npile,
                                                       stock)
        if finish != GOES_ON:
            winner = seat
            break
        seat = (seat + 1) % players
    return hand_over(setup, hs, tr, match_id, hand, dealer, totals, finish, winner, points, turns, stock, out_h, out_p)


@kernel(i64, i64, i64, I1, I1, I2, F2, I2, I3, boolean, I1, I2, I2, I2, I1, entry=True)
def search_matches(seed, start, count, rp, policies, fixed, tune, ev, ends, tracing, g, out_m, out_h, out_p, cursor):
    """:func:`.engine.play_matches` with search or oracle seats: the same arguments and
    return (jit-compiled)."""
    players = rp[RP_PLAYERS]
    totals = np.zeros(players, dtype=np.int64)
    setup = Setup(seed, rp, policies, fixed, tune)
    hs = new_hand_state(players, CARDS * rp[RP_DECKS])
    tr = Trace(ev, ends, g, tracing)
    sp = new_search_space(setup, hs)
    for i in range(count):
        m, first_row, first_event = start + i, cursor[0], g[G_NEVENTS]
        totals[:] = 0
        hand, dealer = 0, first_dealer(m, rp[RP_DUPLICATE], players)
        out_m[i, M_FIRST_DEALER], out_m[i, M_WASHES] = dealer, 0
        over = False
        while not over:
            row = cursor[0]
            if row >= out_h.shape[0]:  # replayed from its first hand once the caller has grown the rows
                cursor[0], g[G_NEVENTS] = first_row, first_event
                return i
            _play_hand(setup, hs, tr, sp, m, hand, dealer, totals, out_h[row], out_p[row * players:(row + 1) * players])
            cursor[0] = row + 1
            hand, dealer, over = hand_played(rp, totals, out_h, g, out_m[i], row, hand, dealer)
        match_over(rp, totals, out_h, out_m[i], hand, cursor[0] - 1 if cursor[0] > first_row else -1)
    return count


@kernel(I1, F2, I1, I2, I2, i64, I1, i64, I1, I2, I1, I1, i64, i64, i64, I2, entry=True)
def play_one_turn(rp, tune, policies, hands, table, nt, pile, npile, takes, took, laid, totals, seat, drawn, stock, ev):
    """Play seat ``seat``'s turn from a given position, with the trace on (for worked positions
    and the information-set property): ``hands``, the ``nt`` table melds, the ``npile`` cards
    of the pile (its top last), the last card each seat took (``takes``) and every card each
    took this hand (``took``, counts), whether each seat
    has laid anything down this hand (``laid``) and the match ``totals``; the stock's top card
    is ``drawn`` and ``stock`` cards lie under it.
    The arrays are played on; the turn's actions go to ``ev`` (``EV_*`` rows); returns their
    number (jit-compiled)."""
    players = rp[RP_PLAYERS]
    deck = np.full(stock + 1, drawn, dtype=np.int64)
    setup = Setup(0, rp, policies, np.zeros((0, CARDS), dtype=np.int64), tune)
    seats = np.zeros((players, S_LEN), dtype=np.int64)
    for p in range(players):
        seats[p, S_ANY] = laid[p]
    hs = HandState(deck, hands, table, pile, seats, np.zeros((3, STEPS, 4), dtype=np.int64),
                   np.zeros(R_LEN, dtype=np.int64), np.zeros(CARDS, dtype=np.int64), takes, took,
                   np.zeros((players, CARDS), dtype=np.int64), np.zeros(CARDS, dtype=np.int64),
                   np.zeros(players, dtype=np.int64))
    g = np.zeros(G_LEN, dtype=np.int64)
    tr = Trace(ev, np.zeros((1, players, CARDS), dtype=np.int64), g, True)
    if policies[seat] >= POLICY_SEARCH:
        search_turn(setup, hs, tr, new_search_space(setup, hs), totals, 0, 0, seat, nt, npile, 0)
    else:
        take_turn(setup, hs, tr, totals, 0, seat, nt, npile, 0, -1)
    return g[G_NEVENTS]
