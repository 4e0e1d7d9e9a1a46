"""The rules of Rummy 101 with cards (docs/rules.md, section C) and its preset."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sim.rules import Rules


@dataclass(frozen=True)
class CardRules(Rules):
    """Card Rummy 101: hands of 7 (10 with two players) from one or two 52-card decks
    (C-SET-1), matches to ``target`` points (C-MATCH-1), partners across the table with
    four players (C-TEAM-1), and going rummy worth ``rummy_factor`` times the hand
    (C-SCORE-2)."""

    hand_size: int = 0  # C-SET-1: 0 means 10 cards with 2 players, else 7
    decks: int = 1
    target: int = 101
    partners: bool = False
    rummy_factor: int = 2  # C-SCORE-2: going rummy multiplies the hand's points
    # C-SCORE-2: whether a one-turn out with lay-offs on table melds counts as rummy.
    rummy_layoffs: bool = False

    # The one-class rules called the hand size rack_size and the rummy factor finish_factor.
    renamed: ClassVar[dict] = {"rack_size": "hand_size", "finish_factor": "rummy_factor"}
    earlier_readings: ClassVar[dict] = {"rummy_layoffs": True}  # C-SCORE-2 revised
    # A chunk's hand rows grow with the target (sim/games/cards/play.py: 4 + target / 25 a
    # match at first, doubled when they run out): matches to 1,000, ten times the standard
    # 101, take 140 hands on average with two players, a chunk of 1,000 of them 63 MB at
    # most. The int16 and int32 columns hold the worst cases: a hand's points, 104 cards of
    # 10 x 10 for going rummy; a total, the target and one hand's points more.
    bounds: ClassVar[dict[str, tuple]] = {
        **Rules.bounds, "hand_size": (0, 26, "0: 10 cards with two players, else 7"), "decks": (1, 2),
        "target": (1, 1_000), "rummy_factor": (1, 10)}

    def validate(self) -> None:
        super().validate()
        need = self.need
        need(self.decks == 1 or self.players == 4, "decks", "two decks only with four players (C-SET-1)")
        need(not self.partners or self.players == 4, "partners", "partners need four players (C-TEAM-1)")
        need(self.hand_size not in (1, 2), "hand_size", "must be 0 (by players) or 3-26")
        # C-DEAL-1: every hand and the upcard come from the decks, and a card is left for the stock.
        need(self.players * self.deal_size() + 2 <= 52 * self.decks, "hand_size",
             f"{self.players} hands of {self.deal_size()} cards and the upcard leave no card for the stock of "
             f"{self.decks} deck(s) of 52 (C-DEAL-1)")

    def deal_size(self, starter: bool = False) -> int:
        """Cards dealt to one player (C-SET-1; the starter gets no more)."""
        return self.hand_size or (10 if self.players == 2 else 7)


STANDARD = CardRules(name="rummy101-cards", family="rummy101-cards")
PRESETS = {"rummy101-cards": STANDARD}
