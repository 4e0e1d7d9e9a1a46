"""The layout of a Rummikub round's integer arrays: the rules as integers (``RP_*``), what
each player has done (``PS_*``) and the round's counters (``G_*``); and the rules read
straight from them: the opening bar in force (K-OPEN-1, ``easing_open``), a rack's tiles
and its points (K-END-1).

A module of its own so that the round engine (:mod:`.engine`), which changes them, and
the seat's view (:mod:`.view`), which reads what of them a seat may know, share one
layout without importing each other.
"""

from __future__ import annotations

from sim.jit import kernel
from sim.tiles import COUNTS_LEN, JOKER, KINDS, NUMBERS

# --- rules parameters ----------------------------------------------------------------------
(RP_PLAYERS, RP_RACK, RP_JOKERS, RP_OPEN_POINTS, RP_JOKER_PENALTY, RP_G3MAX, RP_WRAP, RP_LOCKED,
 RP_EASING, RP_EASING_STEP, RP_EASING_EVERY, RP_EASING_FLOOR, RP_LAST_CALL, RP_BOUND, RP_DUPLICATE) = range(15)
RP_LEN = 15  # RP_DUPLICATE is not a rule: the players with ``--duplicate`` deals (sim.deal.deal_round), else 0

# --- player state ------------------------------------------------------------------------
(PS_POLICY, PS_TURNS, PS_OPEN_TURN, PS_OPEN_VALUE, PS_OPEN_THRESHOLD, PS_TILES_PLACED, PS_DRAWS,
 PS_RACK_TILES, PS_RACK_VALUE, PS_JOKERS_LEFT, PS_SCORE, PS_FAILED_AT, PS_DRAWN_SINCE, PS_LAST) = range(14)
PS_LEN = 14
# PS_LAST: what the player did on its last turn, as everyone sees it (the search's worlds, .search)
LAST_NONE, LAST_LAID, LAST_DREW, LAST_PASSED = range(4)

# --- round counters ------------------------------------------------------------------------
(G_POOL, G_DECK, G_NTABLE, G_TURNS, G_FINISH, G_WINNER, G_WINNERS, G_PASSES, G_CALLS_LEFT,
 G_NEVENTS, G_ERROR, G_TRACE, G_TABLE_CHANGES) = range(13)
G_LEN = 13


@kernel(inline=True)
def bar_in_force(p, ps, rp):
    """The player's opening bar this turn (K-OPEN-1): ``open_points``, or with
    ``easing_open`` that less ``easing_step`` for every ``easing_every`` of the player's
    own turns gone by without opening, never below ``easing_floor`` (K-VAR)."""
    bar = rp[RP_OPEN_POINTS]
    if rp[RP_EASING] == 1:
        eased = bar - rp[RP_EASING_STEP] * ((ps[p, PS_TURNS] - 1) // rp[RP_EASING_EVERY])
        bar = max(eased, min(bar, rp[RP_EASING_FLOOR]))
    return bar


@kernel(inline=True)
def rack_tiles(rack):
    n = 0
    for k in range(COUNTS_LEN):
        n += rack[k]
    return n


@kernel(inline=True)
def rack_value(rack, joker_penalty):
    """K-END-1: a tile counts its number, a joker the joker penalty in force."""
    v = rack[JOKER] * joker_penalty
    for k in range(KINDS):
        v += rack[k] * (k % NUMBERS + 1)
    return v
