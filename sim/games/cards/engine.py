"""Whole matches of card Rummy 101, hand by hand (numba; docs/rules.md section C).

A match is hands dealt until a player (with ``partners``, a team) reaches the target
(C-MATCH-1). The first dealer of match ``m`` is seat ``m % players``, so that every seat
deals first equally often; the deal moves one seat left every hand, washes included
(C-SET-2, C-WASH-1). With ``--duplicate`` the matches come in rotations of one deal: the
same cards hand by hand, every seat moved one place each time (:func:`deal_of`). A hand:
the shuffled deck (Philox, counter ``(block, m, hand, 0)`` on
:data:`sim.deal.STREAM_CARD_MATCHES`, ``m`` the match's deal: the same cards for the same
match and hand in every variant with the same decks) is dealt one card at a time from the dealer's left,
10 cards each with two players and 7 with more (C-SET-1); the next card starts the
discard pile, the rest is the stock, drawn from the front. Turns from the dealer's left
(C-TURN-1): draw the stock's top or the discard's top, lay down melds and lay off onto any
table meld (the hand solver, :mod:`.hand`), discard a card other than the one just taken
from the discard. Every card but one melded or laid off and the last one discarded ends
the hand (C-OUT-1/2); the player to move finding the stock empty washes it (C-WASH-1).
The player going out scores the cards left in the other hands, or with ``partners`` in
the two opponents' hands (C-SCORE-1, C-TEAM-1), times ``rummy_factor`` for going rummy:
out in one turn without having melded or laid off earlier in the hand, every card but the
discard in the player's own new melds (C-SCORE-2; ``rummy_layoffs``: lay-offs allowed).

The bots (``policies`` per seat):

- ``greedy`` (:data:`POLICY_GREEDY`): takes the discard when it adds to what the hand can
  lay down now, lays down the most points the hand solver finds every turn, goes out
  the moment it can and throws its highest card that is in no pair or two-card run draw;
- ``careful`` (:data:`POLICY_CAREFUL`) plays the score: it holds its melds in the hand
  (to go rummy, worth ``rummy_factor`` times the hand) until it can go out, or until an
  opponent is down to three cards, the stock to one card a player, or an opponent is one
  hand from the target (:data:`REACH` points a hand of each of its opponents); in that
  last case it also sheds its highest card whatever it is worth to the hand; and it never
  throws, while it has another choice, a card that lays off on a table meld or that is
  near (same rank, or same suit within two) the last card the next player took from the
  discard pile;
- ``expert`` (:data:`POLICY_EXPERT`, :mod:`.expert`) decides from its seat's view alone
  (:mod:`.view`): it weighs each card by its unseen outs against its points, takes the
  discard when it goes out or is worth more than a stock card, holds its melds for rummy
  while no opponent is close, and does not feed the table or the next player's
  collection.
- ``search`` and ``oracle`` (:data:`POLICY_SEARCH`, :data:`POLICY_ORACLE`) weigh the
  expert's choices by playing them out; they and the matches they play in are
  :mod:`.search`'s (a workload of their own, issue 25), built of this module's pieces.

Every bot sees a discard that goes out: with the cards of the hand between it and a table
run it lays off at the run's foot or top (:func:`.hand.useful`).

Everything here works on integer arrays: ``rp`` the rules (``RP_*``, built by
:func:`sim.games.cards.play.rules_params`), ``hands[p, 52]`` count vectors, ``table``
meld rows ``(kind, key, a, b)`` of :mod:`.hand` in the order they reached the table.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.deal import STREAM_CARD_MATCHES, below, philox_block
from sim.games.cards.expert import (
    X_TAKE,
    X_TAKE_FINISH,
    expert_discard,
    expert_lays,
    finishing_discard,
    finishing_outs,
    hand_worth,
    is_close,
    leaves,
)
from sim.games.cards.hand import (
    CARDS,
    MELD_RUN,
    MELD_SET,
    OP_LAYOFF,
    OP_RUN,
    OP_SET,
    R_BEST,
    R_BEST_STEPS,
    R_LEN,
    R_OUT,
    R_OUT_STEPS,
    RANKS,
    STEPS,
    SUITS,
    card_value,
    fits,
    solve,
    useful,
)
from sim.games.cards.view import seat_view
from sim.jit import F2, I1, I2, I3, U1, boolean, copy_row, i64, kernel, record_of

# The rules as integers (rp).
RP_PLAYERS, RP_SIZE, RP_DECKS, RP_TARGET, RP_PARTNERS, RP_RUMMY, RP_RUMMY_LAYOFFS, RP_DUPLICATE, RP_LEN = range(9)
# RP_DUPLICATE is not a rule: the players with ``--duplicate`` (every match's hands played
# once per seat rotation, see deal_of), else 0.
POLICY_GREEDY, POLICY_CAREFUL, POLICY_EXPERT, POLICY_SEARCH, POLICY_ORACLE = 0, 1, 2, 3, 4
FINISH_OUT, FINISH_RUMMY, FINISH_WASH = 0, 1, 2
GOES_ON = -1  # a turn's finish while the hand goes on
# One row per match (out_m).
M_HANDS, M_WASHES, M_WINNER, M_WINNER_TOTAL, M_RUNNER_UP, M_FIRST_DEALER, M_ERROR, M_LEN = range(8)
# One row per hand (out_h) and one per player and hand (out_p, ``players`` rows per hand).
H_MATCH, H_HAND, H_DEALER, H_FINISH, H_WINNER, H_POINTS, H_TURNS, H_STOCK_LEFT, H_LEN = range(9)
P_MELDED, P_CARDS_LEFT, P_HAND_VALUE, P_SCORE, P_TOTAL, P_LEN = range(6)
# A seat's state in the hand being played (seats).
S_MELDED, S_ANY, S_TURN, S_LEN = range(4)
# The trace: one row per action (EV_*), the hands at each hand's end in ``ends``.
EV_HAND, EV_SEAT, EV_TURN, EV_ACTION, EV_A, EV_B, EV_C, EV_D, EV_FIELDS = range(9)
# draw (card, 0 stock / 1 discard), meld (the row kind, key, a, b), layoff (card, meld
# index), discard (card), out (points, rummy), wash.
ACT_DRAW, ACT_MELD, ACT_LAYOFF, ACT_DISCARD, ACT_OUT, ACT_WASH = range(6)
G_NEVENTS, G_ERROR, G_LEN = range(3)
ERR_TURNS, ERR_HANDS, ERR_TRACE = 1, 2, 3
MAX_MELDS = 40  # 104 cards make 34 melds at most
MAX_TURNS = 5000  # a hand longer than this is an engine error, not a rule
MAX_HANDS = 100_000  # the same for a match
MAX_EVENTS = 200_000  # a traced match
MAX_TRACE_HANDS = 5000
REACH = 20  # careful: an opponent this many points a hand short of the target is one hand away

# What _play_hand and its phases work on, as named records of arrays (numba named
# tuples, passed as their members). The phases allocate nothing and are compiled without
# reference counting (sim.jit): a counted kernel would count every array it reads from a
# record in and out, atomic operations that cost a quarter of the engine's speed. A
# chunk's setup:
# the seed, the rules (rp), each seat's bot, the card orders of a scenario's first hands
# (``fixed``, one row a hand) and each seat's expert constants (``tune``, a row a seat).
Setup = namedtuple("Setup", "seed rp policies fixed tune")
SETUP = record_of(Setup, i64, I1, I1, I2, F2)
# The hand in play, allocated once per chunk: the deck in dealing order, the hands (count
# vectors), the table's melds, the discard pile, each seat's state (S_*), the hand
# solver's arrangements and result, the discard choice's scratch, the last card each seat
# took from the pile (-1: none this hand), the cards each seat took from it and the cards
# each seat threw this hand (counts), and scratch for a seat's view (what it has not
# seen, every seat's number of cards).
HandState = namedtuple("HandState", "deck hands table pile seats paths result kept takes took thrown unseen sizes")
HAND_STATE = record_of(HandState, I1, I2, I2, I1, I2, I3, I1, I1, I1, I2, I2, I1, I1)
# The trace: one row per action (EV_*), the hands at each hand's end, the counters (G_*),
# and whether the chunk is traced at all.
Trace = namedtuple("Trace", "ev ends g tracing")
TRACE = record_of(Trace, I2, I3, I1, boolean)


def match_error(code: int, match_id: int, rules) -> Exception:
    """The error a match's engine reported, as a :class:`~sim.errors.PlayError` naming the
    match and the cap it reached (the caps are limits of play, stated in the README)."""
    from sim.errors import PlayError

    if code == ERR_HANDS:
        return PlayError(f"match {match_id} did not end in {MAX_HANDS:,} hands (every hand a wash? C-WASH-1, "
                         f"C-MATCH-1): {rules.players} players, {rules.deal_size()} cards each, {rules.decks} "
                         f"deck(s), target {rules.target}")
    if code == ERR_TURNS:
        return PlayError(f"a hand of match {match_id} went on for more than {MAX_TURNS:,} turns")
    return PlayError(f"match {match_id}: the engine stopped with error {code}")


@kernel(i64, i64)
def deal_of(match_id, duplicate):
    """``(deal, rotation)`` of match ``match_id``: with ``duplicate`` (the players, ``sim run
    --duplicate``) match ``i`` is rotation ``i % players`` of deal ``i // players``: every hand
    of it is dealt the cards of the same hand of the deal's other rotations, and its first
    dealer is moved ``rotation`` seats on, so that every seat holds every hand once and meets
    the same cards as the others; otherwise every match is its own deal (jit-compiled)."""
    if duplicate == 0:
        return match_id, 0
    return match_id // duplicate, match_id % duplicate


@kernel(i64, i64, i64)
def first_dealer(match_id, duplicate, players):
    """The first dealer of match ``match_id`` (C-SET-2): seat ``match_id % players``, so that every
    seat deals first equally often; a duplicate match's rotation moves it on (:func:`deal_of`)
    (jit-compiled)."""
    deal, rotation = deal_of(match_id, duplicate)
    return (deal + rotation) % players


@kernel(i64, i64, i64, I1, U1)
def shuffle_hand(seed, match_id, hand, deck, bits):
    """Fill ``deck`` with the cards of ``deck.shape[0] // 52`` decks in the order of hand
    ``hand`` of match ``match_id`` (Fisher-Yates driven by Philox; jit-compiled)."""
    n = deck.shape[0]
    for j in range(n):
        deck[j] = j % CARDS
    for j in range(n - 1):
        if j % 4 == 0:
            philox_block(seed, STREAM_CARD_MATCHES, j // 4, match_id, hand, 0, bits)
        pick = j + below(bits[j % 4], n - j)
        deck[j], deck[pick] = deck[pick], deck[j]


@kernel(i64, i64, i64, i64, entry=True)
def hand_deck(seed, match_id, hand, decks):
    """The cards of hand ``hand`` of match ``match_id`` in dealing order (for traces)."""
    deck = np.empty(CARDS * decks, dtype=np.int64)
    shuffle_hand(seed, match_id, hand, deck, np.zeros(4, dtype=np.uint64))
    return deck


@kernel(inline=True)
def _lays_off(path, steps):
    """Whether arrangement ``path`` lays a card off on a table meld."""
    for d in range(steps):
        if path[d, 0] == OP_LAYOFF:
            return True
    return False


@kernel(inline=True)
def _emit(tr, hand, seat, turn, action, a, b, c, d):
    if not tr.tracing:
        return
    ev, g = tr.ev, tr.g
    n = g[G_NEVENTS]
    if n >= ev.shape[0]:
        g[G_ERROR] = ERR_TRACE
        return
    ev[n, EV_HAND], ev[n, EV_SEAT], ev[n, EV_TURN], ev[n, EV_ACTION] = hand, seat, turn, action
    ev[n, EV_A], ev[n, EV_B], ev[n, EV_C], ev[n, EV_D] = a, b, c, d
    g[G_NEVENTS] = n + 1


@kernel(inline=True)
def throw_card(hs, tr, hand, seat, turn, card, npile):
    """C-TURN-1: ``seat`` throws ``card`` face up onto the pile (its ``npile``-th card)."""
    hs.hands[seat, card] -= 1
    hs.pile[npile] = card
    hs.thrown[seat, card] += 1
    _emit(tr, hand, seat, turn, ACT_DISCARD, card, 0, 0, 0)


@kernel(I1, I2, i64, I2, i64, TRACE, i64, i64, i64, counted=False)
def _lay_down(h, table, nt, path, steps, tr, hand, seat, turn):
    """Move the melds and lay-offs of arrangement ``path`` from ``h`` to the table; the
    number of table melds afterwards and the points placed (jit-compiled)."""
    placed = 0
    for d in range(steps):
        op, a, b, c = path[d, 0], path[d, 1], path[d, 2], path[d, 3]
        if op == OP_SET:
            for s in range(SUITS):
                if (b >> s) & 1:
                    h[s * RANKS + a - 1] -= 1
                    placed += card_value(s * RANKS + a - 1)
            table[nt, 0], table[nt, 1], table[nt, 2], table[nt, 3] = MELD_SET, a, b, 0
            _emit(tr, hand, seat, turn, ACT_MELD, MELD_SET, a, b, 0)
            nt += 1
        elif op == OP_RUN:
            for r in range(b, c + 1):
                h[a * RANKS + r - 1] -= 1
                placed += card_value(a * RANKS + r - 1)
            table[nt, 0], table[nt, 1], table[nt, 2], table[nt, 3] = MELD_RUN, a, b, c
            _emit(tr, hand, seat, turn, ACT_MELD, MELD_RUN, a, b, c)
            nt += 1
        elif op == OP_LAYOFF:
            if table[a, 0] == MELD_SET:
                table[a, 2] |= 1 << (b // RANKS)
                h[b] -= 1
                placed += card_value(b)
                _emit(tr, hand, seat, turn, ACT_LAYOFF, b, a, 0, 0)
            elif table[a, 3] == b % RANKS:  # on the run's top (its top rank is the card's rank - 1)
                table[a, 3] += 1
                h[b] -= 1
                placed += card_value(b)
                _emit(tr, hand, seat, turn, ACT_LAYOFF, b, a, 0, 0)
            else:  # at its foot, the nearest card first so that the run stays a run
                for j in range(c - 1, -1, -1):
                    table[a, 2] -= 1
                    h[b + j] -= 1
                    placed += card_value(b + j)
                    _emit(tr, hand, seat, turn, ACT_LAYOFF, b + j, a, 0, 0)
    return nt, placed


@kernel(inline=True)
def _discard_choice(h, path, steps, forbid, table, nt, careful, shed, near, left):
    """The card to throw among those ``path`` keeps (C-TURN-1: not the card taken from the
    discard pile, unless the hand holds a second copy of it); see the module docstring
    for each bot's order of preference. ``left``: scratch for the kept cards' counts."""
    leaves(path, steps, left)
    best, best_key = -1, -1
    for c in range(CARDS):
        if left[c] == 0 or (c == forbid and h[c] < 2):
            continue
        suit, rank = c // RANKS, c % RANKS + 1
        useful = False
        for s in range(SUITS):
            if s != suit and left[s * RANKS + rank - 1] > 0:
                useful = True
        for r in range(max(1, rank - 2), min(RANKS, rank + 2) + 1):
            if r != rank and left[suit * RANKS + r - 1] > 0:
                useful = True
        key = card_value(c) * 100 + rank * SUITS + suit
        if careful:
            safe = not fits(c, table, nt)
            if near >= 0:
                ns, nr = near // RANKS, near % RANKS + 1
                if nr == rank or (ns == suit and abs(nr - rank) <= 2):
                    safe = False
            key += (0 if shed or useful else 10_000) + (100_000 if safe else 0)
        elif not useful:
            key += 10_000
        if key > best_key:
            best, best_key = c, key
    return best


@kernel(inline=True)
def team_total(totals, seat, players, partners):
    if partners:
        return totals[seat % 2] + totals[seat % 2 + 2]
    return totals[seat]


@kernel(inline=True)
def _threatened(hands, seats, totals, seat, rp, stock_left):
    """Whether ``careful`` must stop holding its melds back (the module docstring) and,
    second, whether it should shed its highest cards."""
    players, partners, target = rp[RP_PLAYERS], rp[RP_PARTNERS], rp[RP_TARGET]
    close, shed = stock_left <= players, False
    for o in range(players):
        if o == seat or (partners and o % 2 == seat % 2):
            continue
        if hands[o].sum() <= 3:
            close = True
        against = 2 if partners else players - 1  # the hands whose cards o would score
        if target - team_total(totals, o, players, partners) <= REACH * against:
            close = True
            shed = True
    return close, shed


# --- a hand's phases: the deal, then each turn's draw, and going out or melding and discarding


@kernel(SETUP, HAND_STATE, i64, i64, i64)
def deal_hand(setup, hs, match_id, hand, dealer):
    """Shuffle the deck of hand ``hand`` (or take the scenario's) and deal it: C-SET-1,
    one card at a time from the dealer's left, the next card starting the discard pile;
    every seat's state cleared (jit-compiled)."""
    players, size = setup.rp[RP_PLAYERS], setup.rp[RP_SIZE]
    deck, hands, seats = hs.deck, hs.hands, hs.seats
    if hand < setup.fixed.shape[0]:
        copy_row(deck, setup.fixed[hand])
    else:  # a duplicate match's rotations are dealt the cards of their deal
        shuffle_hand(setup.seed, deal_of(match_id, setup.rp[RP_DUPLICATE])[0], hand, deck, np.zeros(4, dtype=np.uint64))
    hands[:, :] = 0
    for j in range(size * players):
        hands[(dealer + 1 + j) % players, deck[j]] += 1
    hs.pile[0] = deck[size * players]
    seats[:, :] = 0
    hs.takes[:] = -1
    hs.took[:, :] = 0
    hs.thrown[:, :] = 0


@kernel(SETUP, HAND_STATE, I1, i64, i64, i64, i64, counted=False)
def view_of(setup, hs, totals, seat, nt, npile, stock_left):
    """Seat ``seat``'s view of the hand in play (:func:`.view.seat_view`) (jit-compiled)."""
    rp = setup.rp
    return seat_view(seat, hs.hands, hs.table, nt, hs.pile, npile, hs.takes, hs.took, totals, stock_left,
                     rp[RP_DECKS], rp[RP_TARGET], rp[RP_RUMMY], rp[RP_PARTNERS], hs.unseen, hs.sizes)


@kernel(SETUP, HAND_STATE, I1, i64, i64, i64, i64, i64, counted=False)
def expert_takes(setup, hs, totals, seat, nt, npile, stock_left, top):
    """Whether the expert takes ``top``, the discard on the pile: when it goes out with it, or
    when the hand with it is worth more than the hand now and a stock card
    (:mod:`.expert`) (jit-compiled)."""
    rp, tune = setup.rp, setup.tune[seat]
    players = rp[RP_PLAYERS]
    h, table, paths, result, left = hs.hands[seat], hs.table, hs.paths, hs.result, hs.kept
    v = view_of(setup, hs, totals, seat, nt, npile, stock_left)
    close = is_close(v, rp[RP_PARTNERS], tune, players)
    after = (seat + 1) % players
    forbid = -1 if h[top] > 0 else top  # C-TURN-1, two decks: the twin held may be discarded
    h[top] += 1
    solve(h, table, nt, forbid, paths, result)
    out = result[R_OUT] == 1
    leaves(paths[1], result[R_BEST_STEPS], left)
    throw = expert_discard(v, left, forbid, after, close, tune)
    with_it = hand_worth(v, left, result[R_BEST], throw, close, tune)
    if throw >= 0 and tune[X_TAKE_FINISH] > 0:
        with_it += tune[X_TAKE_FINISH] * finishing_outs(v, left, throw, False)
    h[top] -= 1
    if out:
        return True
    if hs.thrown[seat, top] > 0:
        # never a card it threw itself this hand: so each card is taken at most once by
        # each seat, and experts cannot pass the same cards round the pile for ever (seen
        # at 2 players: 8C, 7S, 6H taken and thrown back turn after turn, the stock untouched)
        return False
    # the hand now, after the throw it would make: against it, a stock card's worth (``take``)
    solve(h, table, nt, -1, paths, result)
    leaves(paths[1], result[R_BEST_STEPS], left)
    throw = expert_discard(v, left, -1, after, close, tune)
    now = hand_worth(v, left, result[R_BEST], throw, close, tune)
    if throw >= 0 and tune[X_TAKE_FINISH] > 0:
        now += tune[X_TAKE_FINISH] * finishing_outs(v, left, throw, False)
    return with_it > now + tune[X_TAKE]


@kernel(SETUP, HAND_STATE, TRACE, I1, i64, i64, i64, i64, i64, i64, i64, counted=False)
def _draw(setup, hs, tr, totals, hand, seat, turn, nt, npile, stock, force):
    """C-TURN-1: ``seat`` draws the discard's top if its bot takes it (greedy and careful:
    if it adds to what the hand can lay down now; expert, and search and oracle where they
    do not search: :func:`expert_takes`; ``force`` 1 or 0: the search's choice), else the
    stock's; returns ``(forbid, npile, stock)``, ``forbid`` the card it may not throw (the
    discard taken, unless it holds a second copy) or -1 (jit-compiled)."""
    h, table, paths, result = hs.hands[seat], hs.table, hs.paths, hs.result
    top = hs.pile[npile - 1] if npile > 0 else -1
    take = False
    if top >= 0 and force >= 0:
        take = force == 1
    elif top >= 0 and setup.policies[seat] >= POLICY_EXPERT:
        take = expert_takes(setup, hs, totals, seat, nt, npile, hs.deck.shape[0] - stock, top)
    elif top >= 0 and useful(h, top, table, nt):
        solve(h, table, nt, -1, paths, result)
        without = result[R_BEST]
        twin = h[top] > 0  # C-TURN-1, two decks: the twin held may be discarded
        h[top] += 1
        solve(h, table, nt, -1 if twin else top, paths, result)
        h[top] -= 1
        take = result[R_BEST] > without
    if take:
        npile -= 1
        card, forbid = top, (-1 if h[top] > 0 else top)
        hs.takes[seat] = top
        hs.took[seat, top] += 1
    else:
        card, forbid = hs.deck[stock], -1
        stock += 1
    h[card] += 1
    _emit(tr, hand, seat, turn, ACT_DRAW, card, 1 if take else 0, 0, 0)
    return forbid, npile, stock


@kernel(I1, HAND_STATE, TRACE, i64, i64, i64, i64, i64, i64, counted=False)
def go_out(rp, hs, tr, hand, seat, turn, nt, forbid, npile):
    """C-OUT-1/2: ``seat``, whose hand the solver found can go out (``hs.paths[2]``), lays
    everything down and discards the last card; returns ``(finish, points)``, scored
    from the other hands (C-SCORE-1/2, C-TEAM-1) (jit-compiled)."""
    players, partners = rp[RP_PLAYERS], rp[RP_PARTNERS]
    hands, h, table, paths, result = hs.hands, hs.hands[seat], hs.table, hs.paths, hs.result
    rummy = hs.seats[seat, S_ANY] == 0  # C-SCORE-2: nothing placed earlier in the hand...
    if rummy and rp[RP_RUMMY_LAYOFFS] == 0 and _lays_off(paths[2], result[R_OUT_STEPS]):
        # ...and every card but the discard in its own new melds: an out without
        # lay-offs, if the hand has one, else a plain out
        solve(h, table, 0, forbid, paths, result)
        rummy = result[R_OUT] == 1
        if not rummy:
            solve(h, table, nt, forbid, paths, result)
    nt, placed = _lay_down(h, table, nt, paths[2], result[R_OUT_STEPS], tr, hand, seat, turn)
    hs.seats[seat, S_MELDED] += placed
    last = -1
    for c in range(CARDS):
        if h[c] > 0:
            last = c
    throw_card(hs, tr, hand, seat, turn, last, npile)
    points = 0
    for o in range(players):  # C-SCORE-1, C-TEAM-1
        if o != seat and not (partners and o % 2 == seat % 2):
            for c in range(CARDS):
                points += hands[o, c] * card_value(c)
    if rummy:
        points *= rp[RP_RUMMY]
    _emit(tr, hand, seat, turn, ACT_OUT, points, 1 if rummy else 0, 0, 0)
    return (FINISH_RUMMY if rummy else FINISH_OUT), points


@kernel(SETUP, HAND_STATE, TRACE, I1, i64, i64, i64, i64, i64, i64, i64, counted=False)
def expert_lay_down(setup, hs, tr, totals, hand, seat, turn, nt, npile, stock_left, force):
    """The expert's lay-down in a turn that does not go out: what the solver found
    (``hs.paths[1]``), unless it holds it for rummy (``force`` 1 or 0: it lays or holds,
    whatever the expert would); returns ``nt`` (jit-compiled)."""
    rp, tune = setup.rp, setup.tune[seat]
    h, table, paths, result, seats = hs.hands[seat], hs.table, hs.paths, hs.result, hs.seats
    if result[R_BEST] == 0:
        return nt
    if force < 0:
        v = view_of(setup, hs, totals, seat, nt, npile, stock_left)
        force = 1 if expert_lays(v, result[R_BEST], seats[seat, S_ANY] == 1, rp[RP_PLAYERS], rp[RP_TARGET],
                                 rp[RP_PARTNERS], rp[RP_RUMMY], tune) else 0
    if force == 1:
        nt, placed = _lay_down(h, table, nt, paths[1], result[R_BEST_STEPS], tr, hand, seat, turn)
        seats[seat, S_MELDED] += placed
        seats[seat, S_ANY] = 1
    return nt


@kernel(SETUP, HAND_STATE, I1, i64, i64, i64, i64, i64, counted=False)
def expert_throw(setup, hs, totals, seat, nt, forbid, npile, stock_left):
    """The card the expert throws after :func:`expert_lay_down`: the kept card that costs least
    (:mod:`.expert`) (jit-compiled)."""
    rp, tune = setup.rp, setup.tune[seat]
    players = rp[RP_PLAYERS]
    v = view_of(setup, hs, totals, seat, nt, npile, stock_left)
    leaves(hs.paths[1], hs.result[R_BEST_STEPS], hs.kept)
    close = is_close(v, rp[RP_PARTNERS], tune, players)
    return finishing_discard(v, hs.kept, forbid, (seat + 1) % players, close, tune)


@kernel(I1, boolean, HAND_STATE, TRACE, I1, i64, i64, i64, i64, i64, i64, i64, counted=False)
def _meld_and_discard(rp, careful, hs, tr, totals, hand, seat, turn, nt, forbid, npile, stock_left):
    """A turn of greedy or careful that does not go out: lay down what the solver found
    (``hs.paths[1]``) if the bot does now, then discard (C-TURN-1); returns ``(nt, npile)``
    (jit-compiled)."""
    h, table, paths, result, seats = hs.hands[seat], hs.table, hs.paths, hs.result, hs.seats
    close, shed = False, False
    if careful:
        close, shed = _threatened(hs.hands, seats, totals, seat, rp, stock_left)
    if result[R_BEST] > 0 and (not careful or close or seats[seat, S_ANY] == 1):
        nt, placed = _lay_down(h, table, nt, paths[1], result[R_BEST_STEPS], tr, hand, seat, turn)
        seats[seat, S_MELDED] += placed
        seats[seat, S_ANY] = 1
    near = hs.takes[(seat + 1) % rp[RP_PLAYERS]]
    throw = _discard_choice(h, paths[1], result[R_BEST_STEPS], forbid, table, nt, careful, shed, near, hs.kept)
    throw_card(hs, tr, hand, seat, turn, throw, npile)
    return nt, npile + 1


@kernel(SETUP, HAND_STATE, TRACE, I1, i64, i64, i64, i64, i64, i64, counted=False)
def draw_and_solve(setup, hs, tr, totals, hand, seat, nt, npile, stock, force):
    """The start of seat ``seat``'s turn: counted, the draw (:func:`_draw`; ``force`` as there)
    and the hand solved (``hs.result``: can it go out?); returns ``(turn, forbid, npile,
    stock)`` (jit-compiled)."""
    hs.seats[seat, S_TURN] += 1
    turn = hs.seats[seat, S_TURN]
    forbid, npile, stock = _draw(setup, hs, tr, totals, hand, seat, turn, nt, npile, stock, force)
    solve(hs.hands[seat], hs.table, nt, forbid, hs.paths, hs.result)
    return turn, forbid, npile, stock


@kernel(SETUP, HAND_STATE, TRACE, I1, i64, i64, i64, i64, i64, i64, counted=False)
def take_turn(setup, hs, tr, totals, hand, seat, nt, npile, stock, force):
    """Seat ``seat``'s turn by its bot (search and oracle as the expert; ``force`` 1 or 0:
    it takes the discard or draws, whatever its bot would): draw, go out or lay down and
    throw; returns ``(nt, npile, stock, finish, points)``, ``finish`` :data:`GOES_ON`
    while the hand goes on (jit-compiled)."""
    rp = setup.rp
    turn, forbid, npile, stock = draw_and_solve(setup, hs, tr, totals, hand, seat, nt, npile, stock, force)
    if hs.result[R_OUT]:
        finish, points = go_out(rp, hs, tr, hand, seat, turn, nt, forbid, npile)
        return nt, npile + 1, stock, finish, points
    stock_left = hs.deck.shape[0] - stock
    if setup.policies[seat] >= POLICY_EXPERT:
        nt = expert_lay_down(setup, hs, tr, totals, hand, seat, turn, nt, npile, stock_left, -1)
        throw = expert_throw(setup, hs, totals, seat, nt, forbid, npile, stock_left)
        throw_card(hs, tr, hand, seat, turn, throw, npile)
        npile += 1
    else:
        nt, npile = _meld_and_discard(rp, setup.policies[seat] == POLICY_CAREFUL, hs, tr, totals, hand, seat, turn,
                                      nt, forbid, npile, stock_left)
    return nt, npile, stock, GOES_ON, 0


@kernel(i64, i64)
def new_hand_state(players, cards):
    """A :data:`HandState` for ``players`` and a deck of ``cards``, allocated once per chunk
    (jit-compiled)."""
    return HandState(np.empty(cards, dtype=np.int64), np.zeros((players, CARDS), dtype=np.int64),
                     np.zeros((MAX_MELDS, 4), dtype=np.int64), np.empty(2 * CARDS, dtype=np.int64),
                     np.zeros((players, S_LEN), dtype=np.int64), np.zeros((3, STEPS, 4), dtype=np.int64),
                     np.zeros(R_LEN, dtype=np.int64), np.zeros(CARDS, dtype=np.int64),
                     np.full(players, -1, dtype=np.int64), np.zeros((players, CARDS), dtype=np.int64),
                     np.zeros((players, CARDS), dtype=np.int64), np.zeros(CARDS, dtype=np.int64),
                     np.zeros(players, dtype=np.int64))


# --- hands and matches: the loops, and the pieces the search's loops share (:mod:`.search`)


@kernel(HAND_STATE, TRACE, i64, i64, i64, i64, counted=False)
def hand_stops(hs, tr, hand, seat, stock, turns):
    """Whether the hand ends before seat ``seat`` plays turn ``turns`` of the hand: the stock
    is empty (C-WASH-1: a wash, traced) or the hand has gone on too long (an engine error)
    (jit-compiled)."""
    if stock >= hs.deck.shape[0]:  # C-WASH-1: the player to move finds the stock empty
        _emit(tr, hand, seat, hs.seats[seat, S_TURN] + 1, ACT_WASH, 0, 0, 0, 0)
        return True
    if turns > MAX_TURNS:
        tr.g[G_ERROR] = ERR_TURNS
        return True
    return False


@kernel(SETUP, HAND_STATE, TRACE, i64, i64, i64, I1, i64, i64, i64, i64, i64, I1, I2, counted=False)
def hand_over(setup, hs, tr, match_id, hand, dealer, totals, finish, winner, points, turns, stock, out_h, out_p):
    """Score the hand into ``totals`` and fill its row ``out_h`` and its players' rows
    ``out_p``; returns its finish (jit-compiled)."""
    players = setup.rp[RP_PLAYERS]
    hands, seats = hs.hands, hs.seats
    if winner >= 0:
        totals[winner] += points
    out_h[H_MATCH], out_h[H_HAND], out_h[H_DEALER] = match_id, hand, dealer
    out_h[H_FINISH], out_h[H_WINNER], out_h[H_POINTS] = finish, winner, points
    out_h[H_TURNS], out_h[H_STOCK_LEFT] = turns, max(0, hs.deck.shape[0] - stock)
    for p in range(players):
        value = 0
        for c in range(CARDS):
            value += hands[p, c] * card_value(c)
        out_p[p, P_MELDED] = seats[p, S_MELDED]
        out_p[p, P_CARDS_LEFT] = hands[p].sum()
        out_p[p, P_HAND_VALUE] = value
        out_p[p, P_SCORE] = points if p == winner else 0
        out_p[p, P_TOTAL] = totals[p]
        if tr.tracing and hand < tr.ends.shape[0]:
            copy_row(tr.ends[hand, p], hands[p])
    return finish


@kernel(SETUP, HAND_STATE, TRACE, I1, i64, i64, i64, i64, i64, i64, counted=False)
def play_turns(setup, hs, tr, totals, hand, seat, nt, npile, stock, turns):
    """Play the hand on from seat ``seat``'s turn, ``turns`` turns played, until it ends or a
    search or oracle seat is to move (its turns are :mod:`.search`'s); returns ``(nt, npile,
    stock, seat, turns, finish, winner, points)``, ``finish`` :data:`GOES_ON` and ``seat``
    the searcher to move if the hand goes on (jit-compiled)."""
    players = setup.rp[RP_PLAYERS]
    while not hand_stops(hs, tr, hand, seat, stock, turns + 1):
        if setup.policies[seat] >= POLICY_SEARCH:
            return nt, npile, stock, seat, turns, GOES_ON, -1, 0
        turns += 1
        nt, npile, stock, finish, points = take_turn(setup, hs, tr, totals, hand, seat, nt, npile, stock, -1)
        if finish != GOES_ON:
            return nt, npile, stock, seat, turns, finish, seat, points
        seat = (seat + 1) % players
    return nt, npile, stock, seat, turns, FINISH_WASH, -1, 0


@kernel(SETUP, HAND_STATE, TRACE, i64, i64, i64, I1, I1, I2, counted=False)
def _play_hand(setup, hs, tr, match_id, hand, dealer, totals, out_h, out_p):
    """Play hand ``hand`` of match ``match_id`` dealt by ``dealer``, score it into ``totals``,
    and fill its row ``out_h`` and its players' rows ``out_p``; returns its finish
    (jit-compiled)."""
    players = setup.rp[RP_PLAYERS]
    deal_hand(setup, hs, match_id, hand, dealer)
    first, stock = (dealer + 1) % players, setup.rp[RP_SIZE] * players + 1  # C-SET-2
    _, _, stock, _, turns, finish, winner, points = play_turns(setup, hs, tr, totals, hand, first, 0, 1, stock, 0)
    return hand_over(setup, hs, tr, match_id, hand, dealer, totals, finish, winner, points, turns, stock, out_h, out_p)


@kernel(I1, I1, I2, I1, I1, i64, i64, i64, counted=False)
def hand_played(rp, totals, out_h, g, out_m, row, hand, dealer):
    """After hand ``hand`` of a match (its row ``row`` of ``out_h``; ``out_m`` the match's
    row): returns ``(hand, dealer, over)``: the next hand and its dealer, and whether the
    match is over, someone having reached the target (C-MATCH-1, C-TEAM-1) or the engine
    having failed (the error goes to ``out_m``, for the caller to report with the match's
    id) (jit-compiled)."""
    players = rp[RP_PLAYERS]
    hand += 1
    dealer = (dealer + 1) % players  # C-SET-2, washes too (C-WASH-1)
    if hand >= MAX_HANDS and g[G_ERROR] == 0:
        g[G_ERROR] = ERR_HANDS
    if g[G_ERROR] != 0:
        out_m[M_ERROR] = g[G_ERROR]
        g[G_ERROR] = 0
        return hand, dealer, True
    if out_h[row, H_FINISH] == FINISH_WASH:
        out_m[M_WASHES] += 1
        return hand, dealer, False
    return hand, dealer, team_total(totals, out_h[row, H_WINNER], players, rp[RP_PARTNERS]) >= rp[RP_TARGET]


@kernel(I1, I1, I2, I1, i64, i64, counted=False)
def match_over(rp, totals, out_h, out_m, hands, last):
    """Fill the row ``out_m`` of a match of ``hands`` hands, its last at row ``last`` of
    ``out_h`` (-1: none) (jit-compiled)."""
    players = rp[RP_PLAYERS]
    w = out_h[last, H_WINNER] if last >= 0 else -1
    out_m[M_HANDS] = hands
    if rp[RP_PARTNERS]:
        out_m[M_WINNER] = -1 if w < 0 else w % 2
        out_m[M_WINNER_TOTAL] = team_total(totals, max(w, 0), players, True)
        out_m[M_RUNNER_UP] = team_total(totals, max(w, 0) + 1, players, True)
    else:
        out_m[M_WINNER] = w
        out_m[M_WINNER_TOTAL] = totals[max(w, 0)]
        runner_up = 0
        for p in range(players):
            if p != w and totals[p] > runner_up:
                runner_up = totals[p]
        out_m[M_RUNNER_UP] = runner_up


@kernel(i64, i64, i64, I1, I1, I2, F2, I2, I3, boolean, I1, I2, I2, I2, I1, entry=True)
def play_matches(seed, start, count, rp, policies, fixed, tune, ev, ends, tracing, g, out_m, out_h, out_p, cursor):
    """Play matches ``start .. start+count-1`` (jit-compiled): a row of ``out_m`` each, a
    row of ``out_h`` and ``players`` rows of ``out_p`` per hand from row ``cursor[0]`` on.
    Returns how many matches were played: fewer than ``count`` when the hand rows ran
    out (the caller grows them and goes on from that match; ``cursor`` is left at its
    first hand). ``tune``: each seat's expert constants (a row a seat). Search and oracle
    seats play :func:`.search.search_matches`."""
    players = rp[RP_PLAYERS]
    totals = np.zeros(players, dtype=np.int64)
    setup = Setup(seed, rp, policies, fixed, tune)
    hs = new_hand_state(players, CARDS * rp[RP_DECKS])
    tr = Trace(ev, ends, g, tracing)
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
            _play_hand(setup, hs, tr, m, hand, dealer, totals, out_h[row], out_p[row * players:(row + 1) * players])
            cursor[0] = row + 1
            hand, dealer, over = hand_played(rp, totals, out_h, g, out_m[i], row, hand, dealer)
        match_over(rp, totals, out_h, out_m[i], hand, cursor[0] - 1 if cursor[0] > first_row else -1)
    return count
