"""Reproducible randomness and dealing: racks drawn uniformly from the full tile set.

Randomness is counter-based: Philox4x64-10 (the generator behind ``numpy.random.Philox``),
keyed by the run's seed and a stream number, with the rack (or round) index in the
counter. Rack ``i`` of a seed is therefore the same whatever the number of jobs or the
chunk it falls in, and no generator state is shared between threads.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sim.jit import I1, I8_1, I8_2, U1, Workload, i64, kernel, prepare, u64
from sim.tiles import COUNTS_LEN, JOKER, KINDS

STREAM_DEAL_STATS = 1  # stream numbers keep the deals of different jobs apart
STREAM_ROUNDS = 2
STREAM_CARD_DEALS = 3
STREAM_CARD_MATCHES = 4  # hand h of match m: counter (block, m, h, 0)
STREAM_SEARCH = 5  # the search bots' worlds: counter (block, match or round, decision, world)

DEAL_WORKLOAD = Workload("dealing", ("sim.deal",))  # sim.jit: the kernels deal_racks needs

_M0 = np.uint64(0xD2E7470EE14C6C93)
_M1 = np.uint64(0xCA5A826395121157)
_W0 = np.uint64(0x9E3779B97F4A7C15)
_W1 = np.uint64(0xBB67AE8584CAA73B)
_LO32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@kernel(inline=True)
def _mulhilo(a, b):
    """High and low 64-bit halves of the 128-bit product ``a * b`` (jit-compiled)."""
    a_lo = a & _LO32
    a_hi = a >> _S32
    b_lo = b & _LO32
    b_hi = b >> _S32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> _S32) + (hi_lo & _LO32) + lo_hi
    hi = hi_hi + (hi_lo >> _S32) + (cross >> _S32)
    return hi, a * b


@kernel(u64, u64, u64, u64, u64, u64, U1, entry=True)
def philox_block(key0, key1, c0, c1, c2, c3, out):
    """Philox4x64-10 of counter (c0..c3) under key (key0, key1) into ``out[0:4]``
    (jit-compiled). Equals ``numpy.random.Philox`` output for the same key and counter."""
    k0 = np.uint64(key0)
    k1 = np.uint64(key1)
    x0 = np.uint64(c0)
    x1 = np.uint64(c1)
    x2 = np.uint64(c2)
    x3 = np.uint64(c3)
    for r in range(10):
        if r > 0:
            k0 += _W0
            k1 += _W1
        hi0, lo0 = _mulhilo(_M0, x0)
        hi1, lo1 = _mulhilo(_M1, x2)
        x0, x1, x2, x3 = hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0
    out[0] = x0
    out[1] = x1
    out[2] = x2
    out[3] = x3


@kernel(inline=True)
def below(r, m):
    """An integer uniform in [0, m) from 64 random bits (multiply-shift; bias < m / 2**64)."""
    hi, _ = _mulhilo(r, np.uint64(m))
    return np.int64(hi)


@kernel(I1, i64)
def fill_deck(deck, jokers):
    """Write the tiles of the set as kinds into ``deck``: two of every numbered tile, then
    ``jokers`` jokers (jit-compiled)."""
    for k in range(KINDS):
        deck[2 * k] = k
        deck[2 * k + 1] = k
    for j in range(jokers):
        deck[2 * KINDS + j] = JOKER


@kernel(i64, entry=True)
def full_deck(jokers):
    """The tiles of the set as kinds, two of every numbered tile and ``jokers`` jokers."""
    deck = np.empty(2 * KINDS + jokers, dtype=np.int64)
    fill_deck(deck, jokers)
    return deck


@kernel(i64, i64, i64, I1, i64, U1, entry=True)
def shuffle_into(seed, stream, index, deck, size, bits):
    """Philox-driven Fisher-Yates of the first ``size`` positions of ``deck``, in place:
    item ``index`` of ``seed`` on ``stream``; ``bits`` is scratch for four random words
    (jit-compiled)."""
    n = deck.shape[0]
    for j in range(min(size, n - 1)):
        if j % 4 == 0:
            philox_block(seed, stream, j // 4, index, 0, 0, bits)
        pick = j + below(bits[j % 4], n - j)
        deck[j], deck[pick] = deck[pick], deck[j]


@kernel(U1, i64, i64, i64, i64, i64, I1, i64, i64)
def shuffle_part(bits, seed, stream, c1, c2, c3, items, first, end):
    """Philox-driven Fisher-Yates of ``items[first:end]``, in place: counter ``(block, c1, c2,
    c3)`` of ``seed`` on ``stream`` (the searches' worlds: their match or round, decision and
    world); ``bits`` is scratch for four random words (jit-compiled)."""
    for j in range(first, end - 1):
        i = j - first
        if i % 4 == 0:
            philox_block(seed, stream, i // 4, c1, c2, c3, bits)
        pick = j + below(bits[i % 4], end - j)
        items[j], items[pick] = items[pick], items[j]


@kernel(inline=True)
def shuffle_unseen(bits, seed, c1, c2, c3, unseen, pool):
    """A search's world: the tiles counted in ``unseen`` written into ``pool`` and shuffled
    by counter ``(c1, c2, c3)`` of ``seed`` on :data:`STREAM_SEARCH`; returns how many."""
    n = 0
    for k in range(unseen.shape[0]):
        for _ in range(unseen[k]):
            pool[n] = k
            n += 1
    shuffle_part(bits, seed, STREAM_SEARCH, c1, c2, c3, pool, 0, n)
    return n


@kernel(i64, i64, i64, I1, i64, I8_1)
def deal_rack_into(seed, stream, index, deck, size, out_counts):
    """Deal rack ``index`` of ``seed``: the first ``size`` tiles of a shuffle of ``deck``
    (modified in place), as counts (jit-compiled)."""
    shuffle_into(seed, stream, index, deck, size, np.empty(4, dtype=np.uint64))
    for k in range(COUNTS_LEN):
        out_counts[k] = 0
    for j in range(size):
        out_counts[deck[j]] += 1


@kernel(i64, i64, i64, i64, i64, i64, I8_2, parallel=True, entry=True)
def _deal_racks(seed, stream, start, count, size, jokers, out):
    for i in prange(count):
        deck = full_deck(jokers)
        deal_rack_into(seed, stream, start + i, deck, size, out[i])


def deal_racks(seed: int, start: int, count: int, size: int, jokers: int = 2,
               stream: int = STREAM_DEAL_STATS) -> np.ndarray:
    """Racks ``start .. start+count-1`` of ``seed`` as an (count, 53) int8 count array,
    each dealt uniformly from the 104 numbered tiles and ``jokers`` jokers."""
    if not 0 <= seed < 2**63:
        raise ValueError(f"seed must be between 0 and 2**63 - 1, got {seed}")
    if not 1 <= size <= 2 * KINDS + jokers:
        raise ValueError(f"rack size must be 1-{2 * KINDS + jokers}, got {size}")
    prepare(DEAL_WORKLOAD)
    out = np.zeros((count, COUNTS_LEN), dtype=np.int8)
    _deal_racks(seed, stream, start, count, size, jokers, out)
    return out


@kernel(i64, i64, I1, U1)
def shuffle_round(seed, round_id, deck, bits):
    """Fill ``deck`` with the shuffled tiles of round ``round_id`` (a round of any tile
    family): the same for every variant and player count (common random numbers)."""
    fill_deck(deck, deck.shape[0] - 2 * KINDS)
    shuffle_into(seed, STREAM_ROUNDS, round_id, deck, deck.shape[0] - 1, bits)


@kernel(I1, i64, i64, i64, i64)
def rotate_hands(deck, players, rack, extra, rotation):
    """Move the dealt hands of ``deck`` ``rotation`` seats on, in place: seat ``s`` gets
    the ``rack`` tiles seat ``s - rotation`` would have had. The starter's ``extra``
    tiles (T-SET-2's 22nd), the stock and the pool stay where they are, so every
    rotation is a legal deal (jit-compiled). Deals are laid out as the engines deal
    them: seat 0's rack and extra tiles first, then each seat's rack in turn."""
    n = players * rack + extra
    hands = deck[:n].copy()
    for s in range(players):
        src = (s - rotation) % players
        at = 0 if s == 0 else s * rack + extra
        frm = 0 if src == 0 else src * rack + extra
        for j in range(rack):
            deck[at + j] = hands[frm + j]


@kernel(i64, i64, I1, U1, i64, i64, i64)
def deal_round(seed, round_id, deck, bits, duplicate, rack, extra):
    """Fill ``deck`` with the tiles of round ``round_id`` in dealing order. ``duplicate``
    0: every round its own shuffle. ``duplicate`` = the players (``sim run
    --duplicate``): round ``round_id`` is rotation ``round_id % players`` of deal
    ``round_id // players``, its hands moved that many seats on (:func:`rotate_hands`),
    so each deal is played once with every hand at every seat."""
    if duplicate == 0:
        shuffle_round(seed, round_id, deck, bits)
        return
    shuffle_round(seed, round_id // duplicate, deck, bits)
    if round_id % duplicate:
        rotate_hands(deck, duplicate, rack, extra, round_id % duplicate)


@kernel(i64, i64, i64, i64, i64, i64, entry=True)
def round_deck(seed, round_id, set_jokers, duplicate, rack, extra):
    """The tiles of round ``round_id`` in dealing order as a new array (for traces;
    ``duplicate``, ``rack``, ``extra`` as in :func:`deal_round`)."""
    deck = full_deck(set_jokers)
    deal_round(seed, round_id, deck, np.zeros(4, dtype=np.uint64), duplicate, rack, extra)
    return deck
