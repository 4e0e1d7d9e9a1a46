"""The best lay-down of a card hand (numba): the most points it can meld and lay off this
turn keeping a card to discard, the deadwood left, and whether it can go out.

Cards are indices ``suit * 13 + rank - 1`` (suits S H D C, ranks A=1 .. K=13) and a hand
is a count vector of 52 (two copies at most, with two decks). Table melds are rows
``(kind, key, a, b)``: a set (``MELD_SET``) of rank ``key`` whose suits are the bits of
``a``; a run (``MELD_RUN``) of suit ``key`` from rank ``a`` to ``b``.

A depth-first search takes the lowest card left (by suit, then rank) and tries all it can
do (C-MELD-1): stay in the hand, start a set of its rank with higher suits, start a run
of its suit upwards (ace low only: it is the run's lowest card, the cards below it are
gone), or be laid off on a table meld — completing a set of three with its suit, or
extending a run at its top, or at its foot together with the hand's cards between it and
the run. Hands hold a dozen cards at most, so the search is exhaustive and needs no
bound. Every leaf keeps at least one card: a player may not meld or lay off the last
card, and going out ends with a discard (C-OUT-1, C-OUT-2): a leaf with exactly one card
left is a way out.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sim.deal import STREAM_CARD_DEALS, shuffle_into
from sim.jit import I1, I2, copy_rows, i64, kernel

CARDS = 52
RANKS = 13
SUITS = 4
MELD_SET, MELD_RUN = 0, 1
# Steps of an arrangement, rows (op, a, b, c):
OP_LEAVE = 0  # card a stays in the hand
OP_SET = 1  # a new set of rank a, suits the bits of b
OP_RUN = 2  # a new run of suit a, ranks b..c
OP_LAYOFF = 3  # cards b .. b+c-1 (one suit, consecutive) laid off on table meld a
STEPS = 32  # steps on one path: at most a card each
# Results (the ``result`` array): the best value (-1: no way to keep a card), whether the
# hand can go out, the steps of the best path and of the way out.
R_BEST, R_OUT, R_BEST_STEPS, R_OUT_STEPS, R_LEN = 0, 1, 2, 3, 4


@kernel(i64, inline=True)
def card_value(c):
    """C-SCORE-1: 2-10 their face, J Q K 10, ace 10."""
    rank = c % RANKS + 1
    return 10 if rank == 1 or rank >= 10 else rank


@kernel(inline=True)
def _discard_kept(path, depth, left, forbid):
    """Whether a leaf keeps a card that may be discarded: not when its one card left is
    ``forbid``, the card just taken from the discard pile (C-TURN-1)."""
    if forbid < 0 or left != 1:
        return left >= 1
    for d in range(depth):
        if path[d, 0] == OP_LEAVE:
            return path[d, 1] != forbid
    return True


@kernel(inline=True)
def fits(c, table, nt):
    """Whether card ``c`` lays off by itself on one of the ``nt`` table melds (C-MELD-1): the
    fourth suit of a set of three, or the next card at either end of a run."""
    suit, rank = c // RANKS, c % RANKS + 1
    for i in range(nt):
        kind, key, a, b = table[i, 0], table[i, 1], table[i, 2], table[i, 3]
        if kind == MELD_SET:
            if key == rank and (a >> suit) & 1 == 0 and (a == 7 or a == 11 or a == 13 or a == 14):
                return True
        elif key == suit and (b == rank - 1 or a == rank + 1):
            return True
    return False


@kernel(inline=True)
def useful(h, c, table, nt):
    """Whether card ``c`` could be melded with the cards of ``h`` or laid off now: a quick
    test before the solver is asked (a card failing it adds nothing to a lay-down)."""
    suit, rank = c // RANKS, c % RANKS + 1
    alike = 0
    for s in range(SUITS):
        if s != suit and h[s * RANKS + rank - 1] > 0:
            alike += 1
    if alike >= 2:
        return True
    lo1 = rank >= 2 and h[c - 1] > 0
    lo2 = rank >= 3 and h[c - 2] > 0
    hi1 = rank <= RANKS - 1 and h[c + 1] > 0
    hi2 = rank <= RANKS - 2 and h[c + 2] > 0
    if (lo1 and lo2) or (lo1 and hi1) or (hi1 and hi2):
        return True
    if fits(c, table, nt):
        return True
    # a table run of its suit it reaches with the hand's cards between (the solver lays
    # them off together, at the run's foot or on its top)
    for i in range(nt):
        if table[i, 0] != MELD_RUN or table[i, 1] != suit:
            continue
        low, high = table[i, 2], table[i, 3]
        lo, hi = (rank + 1, low - 1) if low > rank else (high + 1, rank - 1)
        if lo <= hi:
            reach = True
            for r in range(lo, hi + 1):
                if h[suit * RANKS + r - 1] == 0:
                    reach = False
            if reach:
                return True
    return False


@kernel(inline=True)
def _set_size(h, suit, rank, mask):
    """The cards of the set of ``rank`` in the suits of ``mask``, if it holds suit ``suit``
    and no lower one (the search has placed those cards already), has three or more suits
    (C-MELD-1) and the hand holds them all; else 0."""
    if (mask >> suit) & 1 == 0 or mask & ((1 << suit) - 1):
        return 0
    n = 0
    for s in range(SUITS):
        if (mask >> s) & 1:
            if h[s * RANKS + rank - 1] == 0:
                return 0
            n += 1
    return n if n >= 3 else 0


@kernel(inline=True)
def _move_set(h, rank, mask, d):
    """Add ``d`` to the hand's count of each card of the set of ``rank`` in the suits of ``mask``."""
    for s in range(SUITS):
        if (mask >> s) & 1:
            h[s * RANKS + rank - 1] += d


@kernel(I1, I2, i64, i64, i64, i64, I2, I2, I2, I1, i64)
def _search(h, table, ntable, left, placed, depth, path, best_path, out_path, result, forbid):
    """Every arrangement of the cards of ``h`` from the lowest one on (jit-compiled).
    ``left``: cards kept so far; ``placed``: points melded or laid off so far; ``forbid``:
    the card taken from the discard this turn (-1: none), never the one card kept."""
    x = -1
    for c in range(CARDS):
        if h[c] > 0:
            x = c
            break
    if x < 0:  # every card decided
        if not _discard_kept(path, depth, left, forbid):
            return
        if placed > result[R_BEST]:
            result[R_BEST] = placed
            result[R_BEST_STEPS] = depth
            copy_rows(best_path[:depth], path[:depth])
        if left == 1 and result[R_OUT] == 0:
            result[R_OUT] = 1
            result[R_OUT_STEPS] = depth
            copy_rows(out_path[:depth], path[:depth])
        return
    suit, rank = x // RANKS, x % RANKS + 1
    v = card_value(x)
    # It stays in the hand.
    h[x] -= 1
    path[depth, 0], path[depth, 1] = OP_LEAVE, x
    _search(h, table, ntable, left + 1, placed, depth + 1, path, best_path, out_path, result, forbid)
    h[x] += 1
    # A new set of its rank: two or three of the higher suits (one card each).
    for mask in range(1, 16):
        n = _set_size(h, suit, rank, mask)
        if n == 0:
            continue
        _move_set(h, rank, mask, -1)
        path[depth, 0], path[depth, 1], path[depth, 2] = OP_SET, rank, mask
        _search(h, table, ntable, left, placed + n * v, depth + 1, path, best_path, out_path, result, forbid)
        _move_set(h, rank, mask, 1)
    # A new run from it upwards, three cards or more.
    top = rank
    gain = v
    while top < RANKS and h[x + top - rank + 1] > 0:
        top += 1
        gain += card_value(suit * RANKS + top - 1)
        if top - rank >= 2:
            for r in range(rank, top + 1):
                h[suit * RANKS + r - 1] -= 1
            path[depth, 0], path[depth, 1], path[depth, 2], path[depth, 3] = OP_RUN, suit, rank, top
            _search(h, table, ntable, left, placed + gain, depth + 1, path, best_path, out_path, result, forbid)
            for r in range(rank, top + 1):
                h[suit * RANKS + r - 1] += 1
    # Laid off on a table meld.
    for i in range(ntable):
        kind, key, a, b = table[i, 0], table[i, 1], table[i, 2], table[i, 3]
        if kind == MELD_SET:
            if key == rank and (a >> suit) & 1 == 0 and (a == 7 or a == 11 or a == 13 or a == 14):
                table[i, 2] = a | (1 << suit)  # a set of three gets its fourth suit
                h[x] -= 1
                path[depth, 0], path[depth, 1], path[depth, 2], path[depth, 3] = OP_LAYOFF, i, x, 1
                _search(h, table, ntable, left, placed + v, depth + 1, path, best_path, out_path, result, forbid)
                h[x] += 1
                table[i, 2] = a
        elif key == suit:
            if b == rank - 1:  # on its top; the cards above follow as the search reaches them
                table[i, 3] = rank
                h[x] -= 1
                path[depth, 0], path[depth, 1], path[depth, 2], path[depth, 3] = OP_LAYOFF, i, x, 1
                _search(h, table, ntable, left, placed + v, depth + 1, path, best_path, out_path, result, forbid)
                h[x] += 1
                table[i, 3] = b
            elif a > rank:  # at its foot, with every card between
                ok = True
                for r in range(rank, a):
                    if h[suit * RANKS + r - 1] == 0:
                        ok = False
                if ok:
                    gain = 0
                    for r in range(rank, a):
                        h[suit * RANKS + r - 1] -= 1
                        gain += card_value(suit * RANKS + r - 1)
                    table[i, 2] = rank
                    path[depth, 0], path[depth, 1], path[depth, 2], path[depth, 3] = OP_LAYOFF, i, x, a - rank
                    _search(h, table, ntable, left, placed + gain, depth + 1, path, best_path, out_path, result, forbid)
                    table[i, 2] = a
                    for r in range(rank, a):
                        h[suit * RANKS + r - 1] += 1


@kernel(I1, I2, i64, i64)
def _out_search(h, table, ntable, left):
    """Whether the cards of ``h``, from the lowest on, can all be melded or laid off on the
    table but one (C-OUT-1), ``left`` cards kept so far: :func:`_search`'s arrangements, but
    never a second card kept, and stopping at the first way out (jit-compiled). ``h`` and
    ``table`` are restored when it returns."""
    x = -1
    for c in range(CARDS):
        if h[c] > 0:
            x = c
            break
    if x < 0:
        return left == 1
    suit, rank = x // RANKS, x % RANKS + 1
    found = False
    if left == 0:  # it is the card kept for the discard
        h[x] -= 1
        found = _out_search(h, table, ntable, left + 1)
        h[x] += 1
    for mask in range(1, 16):  # a new set of its rank, as in _search
        if found:
            return True
        if _set_size(h, suit, rank, mask) > 0:
            _move_set(h, rank, mask, -1)
            found = _out_search(h, table, ntable, left)
            _move_set(h, rank, mask, 1)
    top = rank  # a new run from it upwards
    while not found and top < RANKS and h[x + top - rank + 1] > 0:
        top += 1
        if top - rank >= 2:
            for r in range(rank, top + 1):
                h[suit * RANKS + r - 1] -= 1
            found = _out_search(h, table, ntable, left)
            for r in range(rank, top + 1):
                h[suit * RANKS + r - 1] += 1
    for i in range(ntable):  # laid off on a table meld, as in _search
        if found:
            return True
        kind, key, a, b = table[i, 0], table[i, 1], table[i, 2], table[i, 3]
        if kind == MELD_SET:
            if key == rank and (a >> suit) & 1 == 0 and (a == 7 or a == 11 or a == 13 or a == 14):
                table[i, 2] = a | (1 << suit)
                h[x] -= 1
                found = _out_search(h, table, ntable, left)
                h[x] += 1
                table[i, 2] = a
        elif key == suit:
            if b == rank - 1:
                table[i, 3] = rank
                h[x] -= 1
                found = _out_search(h, table, ntable, left)
                h[x] += 1
                table[i, 3] = b
            elif a > rank:
                ok = True
                for r in range(rank, a):
                    if h[suit * RANKS + r - 1] == 0:
                        ok = False
                if ok:
                    for r in range(rank, a):
                        h[suit * RANKS + r - 1] -= 1
                    table[i, 2] = rank
                    found = _out_search(h, table, ntable, left)
                    table[i, 2] = a
                    for r in range(rank, a):
                        h[suit * RANKS + r - 1] += 1
    return found


@kernel(I1, I2, i64, entry=True)
def goes_out(h, table, nt):
    """Whether ``h`` can go out on the first ``nt`` table melds (C-OUT-1): :func:`solve`'s
    ``R_OUT`` with no card forbidden, found without the best lay-down (jit-compiled)."""
    return _out_search(h, table, nt, 0)


@kernel(inline=True)
def solve(h, table, nt, forbid, paths, result):
    """The search on ``h`` and the first ``nt`` table melds into ``result`` (``R_*``), with
    ``paths`` (3, STEPS, 4) its scratch: the best and the out arrangements in ``paths[1]`` and
    ``paths[2]``."""
    result[:] = 0
    result[R_BEST] = -1
    _search(h, table, nt, 0, 0, 0, paths[0], paths[1], paths[2], result, forbid)


@kernel(I1, I2, I2, I2, I1, i64, entry=True)
def best_lay_down(hand, table, best_path, out_path, result, forbid):
    """The best lay-down of ``hand`` onto the ``table`` melds (see the module docstring):
    ``result`` gets ``R_*``, the paths their steps (jit-compiled). ``hand`` and ``table``
    are restored when it returns; ``forbid``: the card taken from the discard pile this
    turn, which the card kept to discard may not be (-1: none)."""
    path = np.zeros((STEPS, 4), dtype=np.int64)
    result[:] = 0
    result[R_BEST] = -1
    _search(hand, table, table.shape[0], 0, 0, 0, path, best_path, out_path, result, forbid)


@kernel(I2, I2, entry=True, parallel=True)
def lay_down_batch(hands, out):
    """For every hand (rows of ``hands``, no table): ``out[i] = (best value, can go out,
    the hand's points)``, in parallel (jit-compiled)."""
    for i in prange(hands.shape[0]):
        h = hands[i].copy()
        table = np.zeros((0, 4), dtype=np.int64)
        path = np.zeros((STEPS, 4), dtype=np.int64)
        best_path = np.zeros((STEPS, 4), dtype=np.int64)
        out_path = np.zeros((STEPS, 4), dtype=np.int64)
        result = np.zeros(R_LEN, dtype=np.int64)
        result[R_BEST] = -1
        _search(h, table, 0, 0, 0, 0, path, best_path, out_path, result, -1)
        total = 0
        for c in range(CARDS):
            total += hands[i, c] * card_value(c)
        out[i, 0] = result[R_BEST]
        out[i, 1] = result[R_OUT]
        out[i, 2] = total


@kernel(i64, i64, i64, i64, i64, I2, entry=True, parallel=True)
def deal_hands(seed, start, count, size, decks, out):
    """Hands ``start .. start+count-1`` of ``seed``: ``size`` cards each, dealt uniformly
    from ``decks`` 52-card decks, as count vectors in ``out`` (jit-compiled). Hand ``i``
    depends on nothing else (a Philox stream of its own, :mod:`sim.deal`)."""
    for i in prange(count):
        deck = np.empty(CARDS * decks, dtype=np.int64)
        for j in range(CARDS * decks):
            deck[j] = j % CARDS
        shuffle_into(seed, STREAM_CARD_DEALS, start + i, deck, size, np.empty(4, dtype=np.uint64))
        for c in range(CARDS):
            out[i, c] = 0
        for j in range(size):
            out[i, deck[j]] += 1
