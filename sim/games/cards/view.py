"""What one seat of a card Rummy 101 hand may know (numba): its :class:`View`, built by
:func:`seat_view` from the hand's full state, the only thing the ``expert`` bot reads.

Public at the table, and so in the view:

- the table: every meld laid and every card laid off (C-MELD-1);
- the discard pile: every discard is thrown face up (C-TURN-1), so a player who watches
  knows every card lying in it, not only the top one;
- the last card each seat took from the pile (``takes``; -1: none this hand) and every card
  each seat took from it this hand (``took``, counts): a card taken is seen going into that
  hand;
- every seat's number of cards (``sizes``), the stock left and the match totals;
- from those and the rules, ``line``: the points its own hand must stay under for an
  opponent's rummy not to reach the target (C-SCORE-2, C-MATCH-1; :func:`survival_line`).

Private to the seat: its own hand. Hidden from it: the other hands and the order of the
stock. What the seat has not seen, ``unseen``, is every card of the decks less its hand,
the table and the pile: the other hands and the stock hold these between them, in an
order it cannot know. (A card another seat took from the pile is counted unseen too: it
may have left that hand since, face down in nothing but a meld or a discard, which the
view sees; the bot reads the takes themselves from ``takes`` and ``took``.)

The view refers to the hand's arrays (no copies: a decision reads them as they are when it
is made) and holds none of the hidden ones: no other hand, no stock order.
"""

from __future__ import annotations

from collections import namedtuple

from sim.games.cards.hand import CARDS, MELD_SET, RANKS, SUITS
from sim.jit import I1, I2, f64, i64, kernel, record_of

View = namedtuple("View", "seat hand unseen sizes stock table nt takes took totals line")
VIEW = record_of(View, i64, I1, I1, I1, i64, I2, i64, I1, I2, I1, f64)
MEAN_CARD = 94.0 / 13.0  # C-SCORE-1: the mean value of a card (A 10, 2-9, 10 J Q K 10 each)


@kernel(I2, i64, I1)
def table_counts(table, nt, out):
    """The cards of the ``nt`` table melds as counts into ``out`` (jit-compiled)."""
    out[:] = 0
    for i in range(nt):
        kind, key, a, b = table[i, 0], table[i, 1], table[i, 2], table[i, 3]
        if kind == MELD_SET:
            for s in range(SUITS):
                if (a >> s) & 1:
                    out[s * RANKS + key - 1] += 1
        else:
            for r in range(a, b + 1):
                out[key * RANKS + r - 1] += 1


@kernel(inline=True)
def survival_line(seat, sizes, totals, target, rummy, partners):
    """The points seat ``seat``'s hand must stay under for no opponent's rummy to reach the
    target: a rummy scores ``rummy`` times the cards left in the hands it scores (C-SCORE-1/2;
    C-TEAM-1: not its partner's), each hand but the seat's own counted at :data:`MEAN_CARD` a
    card, and the match ends when the scorer's side reaches the target (C-MATCH-1): the least
    of ``(target - side) / rummy - others`` over the opponents (inlined in :func:`seat_view`)."""
    players = sizes.shape[0]
    line = 1e9
    for o in range(players):
        if o == seat or (partners and o % 2 == seat % 2):
            continue
        side = totals[o] + (totals[(o + 2) % players] if partners else 0)
        others = 0.0
        for q in range(players):
            if q != seat and q != o and not (partners and q % 2 == o % 2):
                others += sizes[q] * MEAN_CARD
        line = min(line, (target - side) / rummy - others)
    return line


@kernel(i64, I2, I2, i64, I1, i64, I1, I2, I1, i64, i64, i64, i64, i64, I1, I1)
def seat_view(seat, hands, table, nt, pile, npile, takes, took, totals, stock, decks, target, rummy, partners,
              unseen, sizes):
    """Seat ``seat``'s view of the hand (see the module docstring): its hand, what it has
    not seen (into ``unseen``), every seat's number of cards (into ``sizes``) and the public
    state; ``takes``: the last card each seat took from the pile, ``took`` every card each
    took this hand, ``totals`` the match's scores so far; ``target``, ``rummy`` and
    ``partners``: the rules' (C-MATCH-1, C-SCORE-2, C-TEAM-1) (jit-compiled)."""
    table_counts(table, nt, unseen)
    for j in range(npile):
        unseen[pile[j]] += 1
    hand = hands[seat]
    for c in range(CARDS):
        left = decks - unseen[c] - hand[c]
        unseen[c] = left if left > 0 else 0
    for q in range(hands.shape[0]):
        n = 0
        for c in range(CARDS):
            n += hands[q, c]
        sizes[q] = n
    return View(seat, hand, unseen, sizes, stock, table, nt, takes, took, totals,
                survival_line(seat, sizes, totals, target, rummy, partners))
