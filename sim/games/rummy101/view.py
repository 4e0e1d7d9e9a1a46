"""What one seat of a Rummy 101 round may know (numba): its :class:`View`, built from the
round's full state by :func:`seat_view`, the only thing the ``expert`` bot reads.

What is public at the table, and so in the view:

- the table: every meld laid, with the tile each joker stands for (T-OPEN, T-ADD, T-JOKER-1);
- the discards lying in the pile: every discard is thrown face up (T-TURN-2); one taken goes
  to the table the same turn (T-TAKE-2, T-TAKE-3), so no tile is ever known to sit in
  another rack;
- every player's public record (``ps``: whether, how, when and for how much it opened, its
  turns, its joker button, T-BTN-1) and rack size;
- the round's counters (``g``: the last discard and who threw it, the opening ladders of
  T-THR-2, the turn) and the size of the stock.

Private to the seat: its own rack. Hidden from it: the other racks and the order of the
stock. What the seat has not seen, ``unseen``, is every tile of the set (and every button
joker pressed so far) less its rack, the table and the pile: the other racks and the stock
hold these between them, in an order it cannot know. ``hidden`` is their number.

The view refers to the state's arrays (no copies: a decision reads them as they are when it
is made) and holds none of the hidden ones: no other rack, no stock order.
"""

from __future__ import annotations

from collections import namedtuple

from sim.games.rummy101.core import (
    G_NTABLE,
    G_STOCK,
    PS_BUTTON_LEFT,
    RP_BUTTON,
    RP_PLAYERS,
    RP_SET_JOKERS,
    meld_tile_at,
)
from sim.jit import I1, I2, i64, kernel, record_of
from sim.solver.layout import F_LEN
from sim.tiles import COUNTS_LEN, JOKER, KINDS

View = namedtuple("View", "seat rack unseen hidden sizes stock table ntable ps g pile")
VIEW = record_of(View, i64, I1, I1, i64, I1, i64, I2, i64, I2, I1, I1)

# What a round keeps for its seats' views, allocated once per chunk: the discards lying in
# the pile (counts), and scratch for one view's unseen tiles and rack sizes.
Seen = namedtuple("Seen", "pile unseen sizes")
SEEN = record_of(Seen, I1, I1, I1)


@kernel(I2, i64, I1)
def table_counts(table, ntable, out):
    """The tiles of the ``ntable`` table melds as counts into ``out``, a melded joker at
    JOKER (jit-compiled)."""
    out[:] = 0
    for i in range(ntable):
        for pos in range(table[i, F_LEN]):
            k, is_joker = meld_tile_at(table[i], pos)
            out[JOKER if is_joker else k] += 1


@kernel(i64, I2, I2, I2, I1, I1, i64, SEEN)
def seat_view(p, racks, table, ps, g, rp, deck_len, seen):
    """Seat ``p``'s view of the round (see the module docstring): its rack, what it has not
    seen and the public state (jit-compiled)."""
    unseen = seen.unseen
    table_counts(table, g[G_NTABLE], unseen)
    players = rp[RP_PLAYERS]
    pressed = 0  # button jokers pressed so far (T-BTN-1): in play beyond the set's
    for q in range(players):
        pressed += rp[RP_BUTTON] - ps[q, PS_BUTTON_LEFT]
        n = 0
        for k in range(COUNTS_LEN):
            n += racks[q, k]
        seen.sizes[q] = n
    rack = racks[p]
    hidden = 0
    for k in range(COUNTS_LEN):
        total = 2 if k < KINDS else rp[RP_SET_JOKERS] + pressed
        left = total - unseen[k] - rack[k] - seen.pile[k]
        unseen[k] = left if left > 0 else 0
        hidden += unseen[k]
    return View(p, rack, unseen, hidden, seen.sizes, deck_len - g[G_STOCK], table, g[G_NTABLE], ps, g, seen.pile)
