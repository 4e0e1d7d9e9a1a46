"""Python face of the card hand solver: hands and table melds in the card notation
(``AS 10H KD``), validated, and the best lay-down as :class:`LayDown`
(``sim.best_lay_down``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.errors import NotationError, RulesError
from sim.games import preset
from sim.rules import Rules
from sim.tiles import card_name, parse_card, parse_hand, split_tokens

RANKS = 13


def card_meld(text: str) -> tuple[int, int, int, int]:
    """A table meld such as ``"7H 7D 7C"`` or ``"AS 2S 3S"`` as a row ``(kind, key, a, b)``
    of :mod:`.hand` (C-MELD-1: a set of 3 or 4 ranks-alike in different suits, a run of
    3 or more of one suit, ace low only); a clear error names what is wrong."""
    from sim.games.cards.hand import MELD_RUN, MELD_SET

    cards = [parse_card(t) for t in split_tokens(text)]
    if len(cards) < 3:
        raise NotationError(f"meld {text!r}: a meld has at least 3 cards (C-MELD-1)")
    ranks = sorted(c % RANKS + 1 for c in cards)
    suits = [c // RANKS for c in cards]
    if len(set(ranks)) == 1:
        if len(cards) > 4 or len(set(suits)) != len(suits):
            raise NotationError(f"meld {text!r}: a set is 3 or 4 cards of one rank in different suits (C-MELD-1)")
        return (MELD_SET, ranks[0], sum(1 << s for s in suits), 0)
    if len(set(suits)) == 1 and ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        return (MELD_RUN, suits[0], ranks[0], ranks[-1])
    raise NotationError(f"meld {text!r}: neither a set (one rank, different suits) nor a run (consecutive "
                        "cards of one suit, ace low: A 2 3, never Q K A) (C-MELD-1)")


def meld_cards(row) -> list[int]:
    """The cards of a table meld row."""
    from sim.games.cards.hand import MELD_SET

    kind, key, a, b = (int(x) for x in row)
    if kind == MELD_SET:
        return [s * RANKS + key - 1 for s in range(4) if (a >> s) & 1]
    return [key * RANKS + r - 1 for r in range(a, b + 1)]


def meld_text(row) -> str:
    return " ".join(card_name(c) for c in meld_cards(row))


@dataclass(frozen=True)
class LayDown:
    """The best lay-down of a hand this turn, keeping a card to discard (C-OUT-2).

    ``value``: points melded and laid off (C-SCORE-1 values); ``deadwood``: the points
    left in the hand; ``melds``: the new melds; ``layoffs``: ``(cards, table meld index)``;
    ``left``: the cards kept; ``can_out``: whether the hand can go out now (every card but
    one melded or laid off, the last one discarded), and ``out``: that arrangement's
    ``(melds, layoffs, discard)``."""

    value: int
    deadwood: int
    melds: tuple[str, ...]
    layoffs: tuple[tuple[str, int], ...]
    left: tuple[str, ...]
    can_out: bool
    out: tuple[tuple[str, ...], tuple[tuple[str, int], ...], str] | None

    def to_dict(self) -> dict:
        return {"value": self.value, "deadwood": self.deadwood, "melds": list(self.melds),
                "layoffs": [{"cards": c, "meld": m} for c, m in self.layoffs], "left": list(self.left),
                "can_out": self.can_out,
                "out": None if self.out is None else {"melds": list(self.out[0]),
                                                       "layoffs": [{"cards": c, "meld": m} for c, m in self.out[1]],
                                                       "discard": self.out[2]}}


def _steps(path: np.ndarray, n: int) -> tuple[list[str], list[tuple[str, int]], list[str]]:
    from sim.games.cards import hand as k

    melds, layoffs, left = [], [], []
    for op, a, b, c in path[:n].tolist():
        if op == k.OP_LEAVE:
            left.append(card_name(a))
        elif op == k.OP_SET:
            melds.append(" ".join(card_name(s * RANKS + a - 1) for s in range(4) if (b >> s) & 1))
        elif op == k.OP_RUN:
            melds.append(" ".join(card_name(a * RANKS + r - 1) for r in range(b, c + 1)))
        else:
            layoffs.append((" ".join(card_name(b + j) for j in range(c)), a))
    return melds, layoffs, left


def card_rules(rules: Rules | str | None) -> Rules:
    rules = preset(rules) if isinstance(rules, str) else (rules or preset("rummy101-cards"))
    if rules.family != "rummy101-cards":
        raise RulesError(f"the card hand solver plays card Rummy 101; {rules.name} is {rules.family} "
                         "(sim.best_opening solves tile racks)")
    return rules


def best_lay_down(hand: str | np.ndarray, rules: Rules | str | None = "rummy101-cards",
                  table: str | list[str] | None = None) -> LayDown:
    """The most points ``hand`` can meld and lay off this turn on the ``table`` melds (a
    list, or one string with ``;`` between melds), keeping a card to discard, and
    whether it can go out (C-MELD-1, C-OUT-1/2). Cards beyond the decks' copies, in the
    hand and the table together, are refused.

    >>> best_lay_down("AS 2S 3S 7H 7D 7C KD").value
    36
    >>> best_lay_down("AS 2S 3S 7H 7D 7C KD").can_out
    True
    """
    from sim.games.cards import FAMILY, HAND_SOLVER
    from sim.games.cards import hand as k
    from sim.jit import prepare

    rules = card_rules(rules)
    counts = parse_hand(hand, rules.decks) if isinstance(hand, str) else np.asarray(hand, dtype=np.int64).copy()
    if counts.shape != (52,) or (counts < 0).any() or (counts > rules.decks).any():
        raise NotationError(f"a hand is a count vector of 52 with at most {rules.decks} of each card")
    if counts.sum() == 0:
        raise NotationError("the hand is empty")
    if counts.sum() > k.STEPS:
        raise NotationError(f"a hand holds at most {k.STEPS} cards here")
    texts = [t for t in (table.split(";") if isinstance(table, str) else (table or [])) if t.strip()]
    rows = np.array([card_meld(t) for t in texts], dtype=np.int64).reshape(-1, 4)
    seen = counts.copy()
    for row, t in zip(rows, texts, strict=True):
        for c in meld_cards(row):
            seen[c] += 1
            if seen[c] > rules.decks:
                raise NotationError(f"too many copies of {card_name(c)} in the hand and the table {t.strip()!r}: "
                                    f"{rules.decks} deck(s) hold {rules.decks}")
    prepare(FAMILY.other_workload(HAND_SOLVER))
    best_path = np.zeros((k.STEPS, 4), dtype=np.int64)
    out_path = np.zeros((k.STEPS, 4), dtype=np.int64)
    result = np.zeros(k.R_LEN, dtype=np.int64)
    k.best_lay_down(np.ascontiguousarray(counts), np.ascontiguousarray(rows), best_path, out_path, result, -1)
    total = int(sum(int(n) * k.card_value(c) for c, n in enumerate(counts)))
    if result[k.R_BEST] < 0:  # a single card: nothing to do but discard it
        return LayDown(0, total, (), (), tuple(card_name(c) for c in np.repeat(np.arange(52), counts)), False, None)
    melds, layoffs, left = _steps(best_path, int(result[k.R_BEST_STEPS]))
    out = None
    if result[k.R_OUT]:
        m, lo, dis = _steps(out_path, int(result[k.R_OUT_STEPS]))
        out = (tuple(m), tuple(lo), dis[0])
    value = int(result[k.R_BEST])
    return LayDown(value, total - value, tuple(melds), tuple(layoffs), tuple(left), bool(result[k.R_OUT]), out)


def deal_hands(seed: int, start: int, count: int, size: int, decks: int = 1) -> np.ndarray:
    """Hands ``start .. start+count-1`` of ``seed`` as a (count, 52) count array, each
    ``size`` cards dealt uniformly from ``decks`` decks (the same hand ``i`` whatever the
    chunk it is dealt in)."""
    from sim.games.cards import FAMILY, HAND_SOLVER
    from sim.games.cards import hand as k
    from sim.jit import prepare

    if not 0 <= seed < 2**63:
        raise ValueError(f"seed must be between 0 and 2**63 - 1, got {seed}")
    if not 1 <= size <= 52 * decks:
        raise ValueError(f"hand size must be 1-{52 * decks}, got {size}")
    prepare(FAMILY.other_workload(HAND_SOLVER))
    out = np.zeros((count, 52), dtype=np.int64)
    k.deal_hands(seed, start, count, size, decks, out)
    return out
