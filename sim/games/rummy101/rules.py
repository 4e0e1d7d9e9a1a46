"""The rules of Rummy 101 with tiles (docs/rules.md, section T) and its presets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sim.rules import TileRules

THRESHOLD_MODES = ("fixed", "increasing")  # T-THR


@dataclass(frozen=True)
class Rummy101Rules(TileRules):
    """Rummy 101 with tiles: racks of 21 (22 for the starter), opening with 101 points or
    five pairs, a fixed or increasing threshold, the joker button and the penalty table.

    Scores (T-SCORE-1..3, T-END-1): the winner gains ``win_points``, doubled by a joker or
    one-turn finish (``finish_factor``) and again for both; an opponent loses
    ``unopened_penalty``, or the rack sum (times ``pairs_penalty_factor`` after a pairs
    opening), times ``finish_factor`` after a joker finish; ``one_turn_penalty`` each
    after a one-turn finish (times ``finish_factor`` with a joker)."""

    starter_extra: int = 1  # T-SET-2
    # T-SET-2 Decision: the starter's first turn skips only the take, and may open and lay
    # down before its discard; false: that first turn is the discard alone.
    starter_may_open: bool = True
    open_pairs: int = 5  # T-OPEN-2; 0 turns the pairs opening off
    threshold_mode: str = "fixed"  # T-THR
    keep_discard: bool = True  # T-OPEN-4: a tile must remain for the discard
    button_jokers: int = 0  # T-BTN-1
    win_points: int = 101
    unopened_penalty: int = 202
    pairs_penalty_factor: int = 2
    finish_factor: int = 2
    one_turn_penalty: int = 404

    # The int32 score column's worst cases are far inside these: a winner's 10,000 x 10 x 10
    # (T-SCORE-1), a loser's rack of 6,728 (TileRules.bounds) x 10 x 10 after a pairs
    # opening and a joker finish (T-SCORE-2/3), 10,000 x 10 unopened or after a one-turn
    # finish. 10,000 is about a hundred times the standard 101 points, 25 times the 404.
    bounds: ClassVar[dict[str, tuple]] = {
        **TileRules.bounds, "starter_extra": (0, 1), "open_pairs": (0, 13, "0 turns the pairs opening off"),
        "button_jokers": (0, 1, "T-BTN-1"), "win_points": (0, 10_000), "unopened_penalty": (0, 10_000),
        "one_turn_penalty": (0, 10_000), "pairs_penalty_factor": (1, 10), "finish_factor": (1, 10)}

    def validate(self) -> None:
        super().validate()
        self.need(self.threshold_mode in THRESHOLD_MODES, "threshold_mode", "must be fixed or increasing")


STANDARD = Rummy101Rules(name="rummy101", family="rummy101")
PRESETS = {
    "rummy101": STANDARD,
    "rummy101-increasing": STANDARD.replace(name="rummy101-increasing", threshold_mode="increasing"),
    "rummy101-button": STANDARD.replace(name="rummy101-button", button_jokers=1),
}
