"""The rules of Rummikub (docs/rules.md, section K), its house variants (K-VAR) and its preset."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sim.rules import TileRules

JOKER_MOVES = ("bound", "free")  # K-JOKER-2


@dataclass(frozen=True)
class RummikubRules(TileRules):
    """Rummikub: racks of 14, a first play of 30 points from the rack (K-OPEN-1), the table
    rearranged as a whole, a joker left on a rack costing 30 (K-END-1), and the house
    variants of K-VAR."""

    rack_size: int = 14  # K-SET-1
    open_points: int = 30  # K-OPEN-1
    group_of_three_max_jokers: int = 1  # K-MELD-2
    joker_penalty: int = 30  # K-END-1
    # House variants (K-VAR).
    wrap_runs: bool = False
    locked_jokers: bool = False
    easing_open: bool = False
    easing_step: int = 5
    easing_every: int = 3
    easing_floor: int = 10
    last_call: bool = False
    # K-JOKER-2: a table joker stays bound to the tile it stands for (bound) or may stand
    # for any tile after a rearrangement (free, the reading used before the revision).
    joker_moves: str = "bound"

    earlier_readings: ClassVar[dict] = {"joker_moves": "free"}  # K-JOKER-2 revised
    # K-VAR easing: a step or a floor beyond the highest bar (open_points) changes nothing,
    # nor an interval beyond a player's own turns in a round (at most 1,000: the engine's
    # 2,000 turns); all fit the int16 columns. The scores are float64 and racks as in
    # TileRules.bounds.
    bounds: ClassVar[dict[str, tuple]] = {
        **TileRules.bounds, "easing_step": (0, 1_000), "easing_every": (1, 1_000), "easing_floor": (0, 1_000)}

    def validate(self) -> None:
        super().validate()
        self.need(self.joker_moves in JOKER_MOVES, "joker_moves", "must be bound or free (K-JOKER-2)")


STANDARD = RummikubRules(name="rummikub", family="rummikub")
PRESETS = {"rummikub": STANDARD}
