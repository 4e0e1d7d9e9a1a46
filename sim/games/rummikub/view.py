"""What one seat may know of a Rummikub round: its view (numba), the only thing the
``expert`` bot (:mod:`.expert`) decides from.

:func:`seat_view` fills a :class:`View` for seat ``p`` from the round's full state, copying
what is public or the seat's own and nothing else:

- ``rack``: the seat's own tiles (a count vector, jokers at JOKER);
- ``table``, ``ntable``: the melds on the table, every tile face up, each bound joker with
  the tile it stands for (K-JOKER-2: named aloud when laid);
- ``rack_sizes``: every player's rack size, seat by seat (the tiles are face down, their
  number is in plain sight);
- ``open_turns``, ``open_values``: each player's own turn of opening (0: not yet) and its
  points: the opening is laid face up (K-OPEN-1);
- ``draws``: the tiles each player has drawn (everyone sees a draw, not the tile);
- ``pool``: the tiles left in the pool; ``calls_left``: with ``last_call``, the turns left
  once the pool ran dry (-1 before); ``passes``: the passes in a row with the pool empty
  (K-END-2): all three follow from the actions everyone sees;
- ``unseen``: the tiles the seat has not seen, the whole set (two of each kind and the
  jokers in play) less its rack and the table. Rummikub has no discard, and no tile goes
  from the table to a rack (K-JOKER-1), so a seat never learns a tile of another rack:
  the unseen tiles are the other racks and the pool together, in an order nobody knows;
- ``seat``, ``players``, ``turn`` (the seat's own turns, this one counted), ``bar`` (its
  opening bar in force, K-OPEN-1 with ``easing_open``);
- ``must``: what the seat remembers of its own last turn: -1 nothing, :data:`NOTHING` when
  no play can exist (nothing placed last turn, the table unchanged since and nothing
  drawn), else the tile drawn since a turn that could place nothing, the table unchanged:
  any play now places it (the engine's search shortcut, from the seat's own rack and
  the public count of table changes).

The pool's order, the other racks and the other players' own memories are not in it.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.rummikub.state import (
    G_CALLS_LEFT,
    G_DECK,
    G_NTABLE,
    G_PASSES,
    G_POOL,
    G_TABLE_CHANGES,
    PS_DRAWN_SINCE,
    PS_DRAWS,
    PS_FAILED_AT,
    PS_OPEN_TURN,
    PS_OPEN_VALUE,
    PS_TURNS,
    RP_JOKERS,
    RP_LOCKED,
    RP_PLAYERS,
    bar_in_force,
)
from sim.games.rummikub.tableturn import row_tiles
from sim.jit import I1, I2, copy_row, i64, kernel, record_of
from sim.tiles import COUNTS_LEN, JOKER

NOTHING = -2  # View.must: no play can exist this turn

View = namedtuple("View", "seat players turn bar pool calls_left passes must ntable rack table rack_sizes "
                          "open_turns open_values draws unseen")
VIEW = record_of(View, i64, i64, i64, i64, i64, i64, i64, i64, i64, I1, I2, I1, I1, I1, I1, I1)


@kernel(i64, I2, I2, I2, I1, I1, entry=True)
def seat_view(p, racks, table, ps, g, rp):
    """The view of seat ``p`` (see the module docstring) from the full state: the round's
    racks, table, player state and counters and the rules (jit-compiled; from Python too,
    for tests)."""
    players = rp[RP_PLAYERS]
    ntable = g[G_NTABLE]
    rack = np.empty(COUNTS_LEN, dtype=np.int64)
    copy_row(rack, racks[p])
    seen_table = np.zeros((max(ntable, 1), table.shape[1]), dtype=np.int64)
    unseen = np.full(COUNTS_LEN, 2, dtype=np.int64)
    unseen[JOKER] = rp[RP_JOKERS]
    for i in range(ntable):
        copy_row(seen_table[i], table[i])
        row_tiles(table[i], unseen, -1)
    for k in range(COUNTS_LEN):
        unseen[k] -= rack[k]
    rack_sizes = np.zeros(players, dtype=np.int64)
    open_turns = np.zeros(players, dtype=np.int64)
    open_values = np.zeros(players, dtype=np.int64)
    draws = np.zeros(players, dtype=np.int64)
    for q in range(players):
        n = 0
        for k in range(COUNTS_LEN):
            n += racks[q, k]
        rack_sizes[q] = n
        open_turns[q] = ps[q, PS_OPEN_TURN]
        open_values[q] = ps[q, PS_OPEN_VALUE]
        draws[q] = ps[q, PS_DRAWS]
    must = -1
    if ps[p, PS_FAILED_AT] == g[G_TABLE_CHANGES] + 1 and rp[RP_LOCKED] == 0:
        must = ps[p, PS_DRAWN_SINCE] if ps[p, PS_DRAWN_SINCE] >= 0 else NOTHING
    return View(p, players, ps[p, PS_TURNS], bar_in_force(p, ps, rp), g[G_DECK] - g[G_POOL], g[G_CALLS_LEFT],
                g[G_PASSES], must, ntable, rack, seen_table, rack_sizes, open_turns, open_values, draws, unseen)

