"""The rules of Rummy 101 with tiles (docs/rules.md, section T) and its presets."""

from __future__ import annotations

from dataclasses import dataclass

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

    def validate(self) -> None:
        super().validate()
        need = self.need
        need(self.starter_extra in (0, 1), "starter_extra", "must be 0 or 1")
        need(self.threshold_mode in THRESHOLD_MODES, "threshold_mode", "must be fixed or increasing")
        need(0 <= self.open_pairs <= 13, "open_pairs", "must be 0-13 (0 turns the pairs opening off)")
        need(self.button_jokers in (0, 1), "button_jokers", "must be 0 or 1 (T-BTN-1)")
        for name in ("win_points", "unopened_penalty", "one_turn_penalty"):
            need(getattr(self, name) >= 0, name, "must not be negative")
        for name in ("pairs_penalty_factor", "finish_factor"):
            need(1 <= getattr(self, name) <= 10, name, "must be 1-10")


STANDARD = Rummy101Rules(name="rummy101", family="rummy101")
PRESETS = {
    "rummy101": STANDARD,
    "rummy101-increasing": STANDARD.replace(name="rummy101-increasing", threshold_mode="increasing"),
    "rummy101-button": STANDARD.replace(name="rummy101-button", button_jokers=1),
}
