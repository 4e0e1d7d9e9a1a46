"""A plain reference for the card hand solver (tests only): every way to lay down a small
hand, found by brute force over subsets, with no ordering trick.

At each step any subset of the cards left that is a valid meld (C-MELD-1) may go down,
or any card that fits a table meld as it stands now may be laid off (a set of three
taking its fourth suit, a run taking the card below its foot or above its top), or the
player stops. The best value keeps at least one card (C-OUT-2); the hand can go out when
some way leaves exactly one card (C-OUT-1).
"""

from __future__ import annotations

import functools
import itertools


def value(card: int) -> int:
    """C-SCORE-1: 2-10 their face, J Q K 10, ace 10."""
    rank = card % 13 + 1
    return 10 if rank == 1 or rank >= 10 else rank


def is_meld(cards: tuple[int, ...]) -> bool:
    """C-MELD-1: a set of 3 or 4 cards of one rank in different suits, or a run of 3 or more
    consecutive cards of one suit, ace low only."""
    if len(cards) < 3:
        return False
    ranks = sorted(c % 13 for c in cards)
    suits = [c // 13 for c in cards]
    if len(set(ranks)) == 1:
        return len(cards) <= 4 and len(set(suits)) == len(suits)
    return len(set(suits)) == 1 and ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def _fits(meld: tuple[int, ...], card: int) -> bool:
    return is_meld(tuple(sorted((*meld, card))))


def solve(hand: tuple[int, ...], table: tuple[tuple[int, ...], ...] = ()) -> tuple[int, bool]:
    """``(best value keeping a card, can go out)`` of ``hand`` (card indices, repeats for
    two decks) onto ``table`` (melds as card tuples). Best value -1: nothing can be kept
    (an empty hand)."""

    @functools.cache
    def best(left: tuple[int, ...], melds: tuple[tuple[int, ...], ...]) -> tuple[int, bool]:
        # (most value placed from here keeping a card, some way leaves exactly one card)
        top = 0 if len(left) >= 1 else -(10**9)
        out = len(left) == 1
        for size in range(3, len(left) + 1):
            for idx in itertools.combinations(range(len(left)), size):
                pick = tuple(left[i] for i in idx)
                if not is_meld(pick):
                    continue
                rest = tuple(c for i, c in enumerate(left) if i not in idx)
                v, o = best(rest, melds)
                top = max(top, v + sum(value(c) for c in pick))
                out = out or o
        for i, card in enumerate(left):
            for m, meld in enumerate(melds):
                if _fits(meld, card):
                    grown = tuple(sorted((*meld, card)))
                    rest = left[:i] + left[i + 1:]
                    v, o = best(rest, tuple(sorted((*melds[:m], grown, *melds[m + 1:]))))
                    top = max(top, v + value(card))
                    out = out or o
        return top, out

    v, o = best(tuple(sorted(hand)), tuple(sorted(tuple(sorted(m)) for m in table)))
    return (v if v >= 0 else -1), o
