"""The Rummikub referee's turn checks, in plain Python and written apart from the solver and
the engine: whether an opening (K-OPEN-1/2) or a table play (K-PLAY-1, K-JOKER-1/2) is
legal under the rules in force. Each check returns the violations it finds, one line
each naming the rule; an empty list is a legal turn. Whole rounds (whose turn, the bar in
force, draws, the ends and the scores) are checked on top of these once rounds are
played.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from sim.melds import check_meld
from sim.rules import Rules
from sim.tiles import Meld, tile_name

JOKER_TOKEN = "J"


def _tiles(melds: Sequence[Meld]) -> Counter:
    """The tiles of ``melds`` by name, a joker as ``J`` whatever it stands for."""
    return Counter(JOKER_TOKEN if j else tile_name(k) for m in melds for k, j in zip(m.tiles, m.jokers, strict=True))


def _bad_melds(melds: Sequence[Meld], rules: Rules, where: str) -> list[str]:
    out = []
    for meld in melds:
        why = "a pair is not a Rummikub meld" if meld.kind == "pair" else check_meld(meld, rules)
        if why:
            out.append(f"{where} meld {meld} is not valid: {why} (K-MELD-1/2)")
    return out


def check_opening(rack: Counter, melds: Sequence[Meld], bar: int, rules: Rules) -> list[str]:
    """An opening: new melds from the rack only, worth ``bar`` points at least (K-OPEN-1,
    the bar in force; K-OPEN-2, a joker counting as the tile it stands for)."""
    out = _bad_melds(melds, rules, "opening")
    laid = _tiles(melds)
    missing = laid - rack
    if missing:
        out.append(f"the opening lays tiles the rack does not hold: {' '.join(sorted(missing.elements()))} "
                   "(K-OPEN-1: from the rack only)")
    total = sum(m.value for m in melds)  # K-OPEN-2: a joker counts as the tile it stands for
    if total < bar:
        out.append(f"the opening is worth {total} points, below the bar of {bar} (K-OPEN-1)")
    return out


def check_table_play(before: Sequence[Meld], rack: Counter, after: Sequence[Meld], rules: Rules) -> list[str]:
    """A table play after opening (K-PLAY-1): the table afterwards is made of valid melds,
    holds every tile it held (K-JOKER-2: jokers included) and at least one rack tile, all
    from the rack; with ``locked_jokers`` a meld holding a joker is left as it was, or its
    joker is replaced by the exact tile it stands for and goes into another meld (K-JOKER-1)."""
    out = _bad_melds(after, rules, "table")
    old, new = _tiles(before), _tiles(after)
    lost = old - new
    if lost:
        out.append(f"tiles left the table: {' '.join(sorted(lost.elements()))} (K-PLAY-1, K-JOKER-2)")
    played = new - old
    if not played:
        out.append("no rack tile was placed (K-PLAY-1: draw, or pass with the pool empty)")
    extra = played - rack
    if extra:
        out.append(f"tiles placed that the rack does not hold: {' '.join(sorted(extra.elements()))} (K-PLAY-1)")
    if rules.locked_jokers:
        out += _check_locked(before, after)
    return out


def _check_locked(before: Sequence[Meld], after: Sequence[Meld]) -> list[str]:
    """K-VAR ``locked_jokers`` with K-JOKER-1: each meld that held a joker is still on the
    table as it was, or with jokers replaced by the exact tiles they stood for."""
    out = []
    remaining = list(after)
    freed = 0
    for meld in before:
        if not any(meld.jokers):
            continue
        match = next((m for m in remaining if m.kind == meld.kind and m.tiles == meld.tiles
                      and all(j or not jm for j, jm in zip(meld.jokers, m.jokers, strict=True))), None)
        if match is None:
            out.append(f"the locked meld {meld} was changed (K-VAR locked_jokers: only its joker may be "
                       "retrieved, by the exact tile, K-JOKER-1)")
            continue
        remaining.remove(match)
        freed += sum(meld.jokers) - sum(match.jokers)
    if freed and sum(m.joker_count for m in remaining) < freed:
        out.append("a retrieved joker is not in another meld on the table (K-JOKER-1)")
    return out
