"""The bots: every choice the rules leave to a player, for each policy (numba).

``greedy`` opens as soon as it legally can (melds if they reach the threshold, else
pairs), then lays down and adds everything it can while keeping a discard, its jokers
included: once opened it adds a joker it cannot use in a meld to a table meld at once
(T-ADD-1), since a joker left on the rack costs 101 (T-VAL-1). It takes the discard
whenever it can use it, presses the joker button at its first draw and throws the tile
that helps its rack least, highest first.

``careful`` prefers melds to pairs (pairs double its penalty, T-SCORE-2): it opens with
pairs only from its third turn on or when the stock runs low; in increasing mode it
holds back a small opening on its first two turns to open bigger and raise the bar for
the others (T-THR-2); after opening it keeps its jokers on the rack for a joker finish
(T-FIN-2), out of new melds and off the table, until the stock runs low or until adding
them lets it go out that turn; it presses the joker button when a joker would likely
let it open, or late; and it avoids discarding a tile the next player, once opened,
could take and add to the table (T-TAKE-3).

``expert`` (:mod:`.expert`, reading only its seat's :mod:`.view`) opens as greedy does
with melds, with pairs from its ``pairs_turn``-th turn (or when the stock runs low, or to
finish); it takes the discard when it will use it this turn, and throws the tile worth
least to its rack by its unseen outs, keeping high tiles before opening and shedding them
after, and not feeding the next player's additions.

``search`` and ``oracle`` (:mod:`.search`) play every choice as the expert does but taking
the discard and the discard itself, which they play out in sampled worlds (the oracle: the
true one).

All play only legal moves, take the discard only when they will use it that turn
(T-TAKE-2, T-TAKE-3), recover jokers whenever they can (T-JOKER-1), lay no new meld on
their opening turn once the opening is down (T-OPEN-3), never throw a joker unless
finishing with it, and finish with a joker whenever they can, also on a turn they open
with the discard just taken.
"""

from __future__ import annotations

import numpy as np

from sim.games.rummy101.core import (
    G_NTABLE,
    G_STOCK,
    OPEN_MELDS,
    OPEN_NONE,
    OPEN_PAIRS,
    PS_OPEN_KIND,
    PS_POLICY,
    PS_TURNS,
    RACK_JOKERS,
    RP_INCREASING,
    RP_KEEP,
    RP_PLAYERS,
    SOLVER_ARRAYS,
    SOLVER_SPACE,
    could_meld,
    find_addition,
    melds_upper_bound,
    melds_value,
    others_opened_pairs,
    pairs_threshold,
    points_threshold,
    rack_tiles,
)
from sim.games.rummy101.expert import X_PAIRS_TURN, expert_discard, holds_jokers
from sim.games.rummy101.view import seat_view
from sim.jit import F2, I1, I2, boolean, i64, kernel
from sim.solver.kernel import most_pairs
from sim.tiles import JOKER, KINDS, NUMBERS

GREEDY, CAREFUL, EXPERT, SEARCH, ORACLE = 0, 1, 2, 3, 4  # indices in sim.games.rummy101.POLICIES
# (the search and the oracle, :mod:`.search`, play every choice but the discard as the expert)
HOLD_BACK_MARGIN = 12  # careful, increasing mode: an opening this close to the bar waits
BUTTON_NEAR = 25  # careful presses the button this close to the opening threshold


@kernel(inline=True)
def stock_left(g, deck_len):
    return deck_len - g[G_STOCK]


@kernel(inline=True)
def needs_tile(rack, tile, value, S, space):
    """Does every best lay-down (worth ``value``, a tile kept back) of ``rack`` use
    ``tile``? Yes when the rack without it, even laid down to the last tile, is worth
    less: a best lay-down leaving ``tile`` out would be a lay-down of that rack."""
    rack[tile] -= 1
    without = melds_value(rack, False, S, space)
    rack[tile] += 1
    return value > without


@kernel(i64, I1, i64, I2, I1, I1, SOLVER_ARRAYS, SOLVER_SPACE, i64, boolean, F2)
def opening_choice(p, rack, forced, ps, g, rp, S, space, deck_len, finishing, tune):
    """How ``p`` opens now from ``rack``: OPEN_NONE, OPEN_MELDS or OPEN_PAIRS.

    ``forced`` is the discard just taken (T-TAKE-2): the opening must hold it, which for
    melds is sure when the rack with it and a tile kept back is worth more than the rack
    without it laid down to the last tile (see :func:`needs_tile`). ``finishing``: the
    opening is part of a finish this turn, so no holding back.
    """
    keep = rp[RP_KEEP] == 1
    value = 0
    if (forced < 0 or could_meld(rack, forced)) and melds_upper_bound(rack) >= points_threshold(g, rp):
        value = melds_value(rack, keep, S, space)
    melds_ok = value > 0 and value >= points_threshold(g, rp)
    if melds_ok and forced >= 0:
        melds_ok = needs_tile(rack, forced, value, S, space)
    need_pairs = pairs_threshold(g, rp)
    # A joker taken cannot open by pairs: it would need a partner, never another joker.
    pairs_ok = need_pairs > 0 and forced != JOKER and most_pairs(rack, forced, keep) >= need_pairs
    if ps[p, PS_POLICY] == GREEDY:
        if melds_ok:
            return OPEN_MELDS
        return OPEN_PAIRS if pairs_ok else OPEN_NONE
    players = rp[RP_PLAYERS]
    stock = stock_left(g, deck_len)
    if ps[p, PS_POLICY] >= EXPERT:
        if melds_ok:
            return OPEN_MELDS
        late = ps[p, PS_TURNS] >= tune[p, X_PAIRS_TURN] or stock < 2 * players
        return OPEN_PAIRS if pairs_ok and (finishing or forced >= 0 or late) else OPEN_NONE
    if melds_ok:
        small = value < points_threshold(g, rp) + HOLD_BACK_MARGIN
        if (rp[RP_INCREASING] and small and forced < 0 and not finishing
                and ps[p, PS_TURNS] <= 2 and stock >= 3 * players):
            return OPEN_NONE
        return OPEN_MELDS
    if pairs_ok and (finishing or forced >= 0 or ps[p, PS_TURNS] >= 3 or stock < 2 * players):
        return OPEN_PAIRS
    return OPEN_NONE


USE_NONE, USE_ADD, USE_MELDS, USE_PAIR = 0, 1, 2, 3


@kernel(i64, i64, I2, I2, I2, I1, I1, SOLVER_ARRAYS, SOLVER_SPACE, boolean)
def taken_use(p, tile, racks, table, ps, g, rp, S, space, keep):
    """How an opened player would use ``tile``, already on its rack, this turn (T-TAKE-3):
    as an addition, in its best new melds (only if every best lay-down holds it), or in
    a new pair with its twin, keeping a tile for the discard when ``keep`` (T-OPEN-4)."""
    rack = racks[p]
    kind = ps[p, PS_OPEN_KIND]
    i, _ = find_addition(rack, table, g[G_NTABLE], p, ps, tile)
    if i >= 0:
        return USE_ADD
    if (kind == OPEN_MELDS and could_meld(rack, tile)
            and needs_tile(rack, tile, melds_value(rack, keep, S, space), S, space)):
        return USE_MELDS
    pairs_allowed = kind == OPEN_PAIRS or others_opened_pairs(ps, rp[RP_PLAYERS], p)
    if pairs_allowed and tile != JOKER and rack[tile] >= 2 and rack_tiles(rack) >= (3 if keep else 2):
        return USE_PAIR
    return USE_NONE


@kernel(inline=True)
def wants_discard(p, tile, racks, table, ps, g, rp, S, space, deck_len, tune):
    """Take the previous player's discard? Only when it will be used this turn."""
    rack = racks[p]
    if tile == JOKER and rack[JOKER] >= RACK_JOKERS:
        return False  # a fifth joker is beyond the solver (recovery stops there too)
    rack[tile] += 1
    use = False
    kind = ps[p, PS_OPEN_KIND]
    if kind == OPEN_NONE:
        use = opening_choice(p, rack, tile, ps, g, rp, S, space, deck_len, False, tune) != OPEN_NONE
    else:
        use = taken_use(p, tile, racks, table, ps, g, rp, S, space, rp[RP_KEEP] == 1) != USE_NONE
    rack[tile] -= 1
    return use


@kernel(inline=True)
def wants_button(p, racks, ps, g, rp, S, space, deck_len):
    """Press the joker button instead of drawing (T-BTN-1)?"""
    if racks[p, JOKER] >= RACK_JOKERS:
        return False
    if ps[p, PS_POLICY] != CAREFUL:
        return True
    stock = stock_left(g, deck_len)
    rack = racks[p]
    if ps[p, PS_OPEN_KIND] == OPEN_NONE:
        near = melds_value(rack, rp[RP_KEEP] == 1, S, space) >= points_threshold(g, rp) - BUTTON_NEAR
        return near or stock <= 2 * rp[RP_PLAYERS]
    # Opened: a joker may carry the last few tiles out (a second joker on a rack of jokers
    # could not be used).
    return rack[JOKER] == 0 and (rack_tiles(rack) <= 3 or stock <= rp[RP_PLAYERS])


@kernel(inline=True)
def keeps_jokers(p, racks, table, ps, g, rp, deck_len, tune, seen):
    """Lay down new melds without jokers after opening, holding them for a joker finish
    (T-FIN-2): careful while the stock lasts, the expert while every opponent holds more
    than ``joker_hold`` tiles (:func:`.expert.holds_jokers`)."""
    if ps[p, PS_POLICY] >= EXPERT:
        return holds_jokers(seat_view(p, racks, table, ps, g, rp, deck_len, seen), rp, tune[p])
    return ps[p, PS_POLICY] == CAREFUL and stock_left(g, deck_len) > 2 * rp[RP_PLAYERS]


@kernel(I1, i64, boolean)
def _usefulness(rack, k, pairs_matter):
    """How much a tile helps its rack: neighbours in its colour, its number in other
    colours, and its twin where pairs matter."""
    col = k // NUMBERS
    num = k % NUMBERS + 1
    score = 0
    for d in (-2, -1, 1, 2):
        m = num + d
        if 1 <= m <= NUMBERS and rack[col * NUMBERS + m - 1] > 0:
            score += 4 if abs(d) == 1 else 2
    for c in range(4):
        if c != col and rack[c * NUMBERS + num - 1] > 0:
            score += 3
    if pairs_matter and rack[k] >= 2:
        score += 5
    return score


@kernel(inline=True)
def discard_choice(p, racks, table, ps, g, rp, deck_len, tune, seen, S, space):
    """The tile to throw (T-TURN-2): the least useful, the highest of those first; never a
    joker while another tile is left. Careful avoids tiles the next player, if opened,
    could add to the table; the expert judges from its view (:func:`.expert.expert_discard`)."""
    if ps[p, PS_POLICY] >= EXPERT:
        return expert_discard(seat_view(p, racks, table, ps, g, rp, deck_len, seen), rp, tune[p], S, space)
    rack = racks[p]
    players = rp[RP_PLAYERS]
    nxt = (p + 1) % players
    kind = ps[p, PS_OPEN_KIND]
    pairs_matter = kind == OPEN_PAIRS or kind == OPEN_NONE
    avoid_table = ps[p, PS_POLICY] == CAREFUL and ps[nxt, PS_OPEN_KIND] != OPEN_NONE
    best = -1
    best_key = np.int64(1) << 40
    for k in range(KINDS):
        if rack[k] == 0:
            continue
        key = _usefulness(rack, k, pairs_matter) * 100 - (k % NUMBERS + 1)
        if avoid_table:
            i, _ = find_addition(rack, table, g[G_NTABLE], nxt, ps, k)
            if i >= 0:
                key += 10_000
        if key < best_key:
            best_key = key
            best = k
    return JOKER if best < 0 else best
