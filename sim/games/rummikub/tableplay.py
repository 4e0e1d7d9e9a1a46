"""The table solver's public face: :func:`table_play`, the best play of a rack onto a
Rummikub table that may be rebuilt as a whole (K-PLAY-1, K-JOKER-1/2).

It reads and checks the table (every meld valid under the rules in force, no tile beyond
the set's copies across rack and table), sets aside the melds ``locked_jokers`` freezes
(trying each retrieval of their jokers by the exact tile, K-JOKER-1), and hands the rest
to the jit-compiled programme of :mod:`.table`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from sim.errors import NotationError, RulesError
from sim.melds import check_meld
from sim.rules import Rules, resolve_rules
from sim.solver.layout import MELD_FIELDS, to_meld
from sim.tiles import COPIES, COUNTS_LEN, JOKER, KINDS, SET_JOKERS, Meld, Rack, as_counts, number_of, parse_meld

OBJECTIVES = ("value", "tiles")


@dataclass(frozen=True)
class TablePlay:
    """The best play of a rack onto a table (K-PLAY-1).

    ``value``: the rack value placed (a tile at its number, a rack joker at the joker
    penalty, K-END-1); ``tiles``: rack tiles placed; ``played``: those tiles; ``melds``: the
    whole table afterwards (a joker shown with the tile it stands for); ``can_play``: at
    least one rack tile placed. ``objective`` says what was maximised, the other measure
    breaking ties.
    """

    value: int
    tiles: int
    played: Rack
    melds: tuple[Meld, ...]
    objective: str = "value"

    @property
    def can_play(self) -> bool:
        return self.tiles > 0

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "tiles": self.tiles,
            "played": str(self.played),
            "melds": [str(m) for m in self.melds],
            "can_play": self.can_play,
            "objective": self.objective,
        }


def read_table(table: Iterable[str | Meld] | str, rules: Rules) -> list[Meld]:
    """The table's melds from ``"R1 R2 R3; B5 K5 J(Y5)"``, strings or :class:`Meld` objects,
    each checked under ``rules``; an error names the meld at fault."""
    if isinstance(table, str):
        table = [part for part in table.split(";") if part.strip()]
    melds = []
    for i, item in enumerate(table):
        meld = item if isinstance(item, Meld) else parse_meld(item)
        why = "a pair is not a Rummikub meld (K-MELD-1)" if meld.kind == "pair" else check_meld(meld, rules)
        if why:
            raise NotationError(f"table meld {i + 1} ({meld}) is not valid: {why}")
        melds.append(meld)
    return melds


def table_counts(melds: Sequence[Meld]) -> np.ndarray:
    """The tiles of ``melds`` as a count vector (jokers at JOKER)."""
    counts = np.zeros(COUNTS_LEN, dtype=np.int64)
    for m in melds:
        for k, j in zip(m.tiles, m.jokers, strict=True):
            counts[JOKER if j else k] += 1
    return counts


class Solver:
    """The search's scratch, kept between solves (one per thread of work). It starts by
    remembering 2**16 positions and grows when a position needs more."""

    def __init__(self, memo_bits: int | None = None):
        from sim.games.rummikub import table

        self.memo_bits = memo_bits or table.MEMO_BITS
        self.space = table.new_space(self.memo_bits)
        self.out = np.zeros((table.OUT_ROWS, MELD_FIELDS), dtype=np.int64)
        self.placed = np.zeros(COUNTS_LEN, dtype=np.int64)

    def run(self, table_counts: np.ndarray, rack: np.ndarray, rules: Rules, objective: int,
            table_stands: bool = True) -> tuple[int, int]:
        """The kernel's ``(weight, rows)`` (see :func:`sim.games.rummikub.table.solve`)."""
        from sim.games.rummikub import table

        while True:
            weight, rows = table.solve(table_counts, rack, objective, rules.joker_penalty,
                                       rules.group_of_three_max_jokers, rules.wrap_runs, table_stands,
                                       self.space, self.out, self.placed)
            if weight != -2:
                return int(weight), int(rows)
            self.memo_bits = min(table.MAX_MEMO_BITS, self.memo_bits + 4)
            self.space = table.new_space(self.memo_bits)

    def solve(self, table_counts: np.ndarray, rack: np.ndarray, rules: Rules, objective: int,
              table_stands: bool = True):
        """``(weight, melds)`` of the best play, melds None when the table is best left as it
        stands (``table_stands``: it is a valid arrangement); weight -1 when the tiles cannot
        form a table."""
        weight, rows = self.run(table_counts, rack, rules, objective, table_stands)
        if rows < 0:
            return weight, None
        return weight, [to_meld(r) for r in self.out[:rows]]


_SOLVER: list[Solver] = []


def table_play(rack: Rack | str | np.ndarray, table: Iterable[str | Meld] | str, rules: Rules | str = "rummikub",
               objective: str = "value") -> TablePlay:
    """The best play of ``rack`` onto ``table`` under ``rules`` (K-PLAY-1): the most rack
    value placed (``objective="tiles"``: the most rack tiles), the table afterwards made
    only of valid melds and still holding every tile it held (K-JOKER-2).

    >>> p = table_play("R4 B7 Y9", "R1 R2 R3; B5 B6 J(B7)")
    >>> p.value, str(p.played)
    (11, 'R4 B7')
    """
    from sim.games.rummikub import TABLE_SOLVER_WORKLOAD
    from sim.games.rummikub.table import PRIMARY
    from sim.jit import prepare

    rules = resolve_rules(rules)
    if rules.family != "rummikub":
        raise RulesError(f"table play is a Rummikub rule (K-PLAY-1); the rules given are {rules.name}, "
                         f"of the {rules.family} family")
    if objective not in OBJECTIVES:
        raise RulesError(f"objective: must be value or tiles (got {objective!r})")
    rack_counts = as_counts(rack)
    melds = read_table(table, rules)
    total = rack_counts + table_counts(melds)
    over = [k for k in range(KINDS) if total[k] > COPIES]
    if over:
        from sim.tiles import tile_name

        raise NotationError(f"{tile_name(over[0])} appears {int(total[over[0]])} times across rack and table; "
                            f"the set holds {COPIES}")
    if total[JOKER] > SET_JOKERS:
        raise NotationError(f"{int(total[JOKER])} jokers across rack and table; the set holds {SET_JOKERS}")
    prepare(TABLE_SOLVER_WORKLOAD)
    if not _SOLVER:
        _SOLVER.append(Solver())
    solver = _SOLVER[0]
    code = OBJECTIVES.index(objective)
    frozen = [m for m in melds if any(m.jokers)] if rules.locked_jokers else []
    loose = [m for m in melds if not any(m.jokers)] if rules.locked_jokers else melds
    # K-JOKER-1 with locked jokers: each frozen joker may be freed by its exact tile.
    spots = [(i, p) for i, m in enumerate(frozen) for p, j in enumerate(m.jokers) if j]
    best = None
    for n in range(len(spots) + 1):
        for chosen in itertools.combinations(spots, n):
            r = rack_counts.copy()
            kept = list(frozen)
            for i, p in chosen:
                k = frozen[i].tiles[p]
                r[k] -= 1
                jokers = list(kept[i].jokers)
                jokers[p] = False
                kept[i] = Meld(kept[i].kind, kept[i].tiles, tuple(jokers))
            if (r < 0).any():
                continue
            t = table_counts(loose)
            t[JOKER] += n
            weight, arranged = solver.solve(t, r, rules, code, table_stands=n == 0)
            if weight < 0:
                continue
            if arranged is None:  # nothing beats the table as it stands
                arranged = list(loose)
                solver.placed[:] = 0
            freed = [frozen[i].tiles[p] for i, p in chosen]
            extra = sum(PRIMARY * (number_of(k) if code == 0 else 1) + (1 if code == 0 else number_of(k))
                        for k in freed)
            if best is None or weight + extra > best[0]:
                played = rack_counts - r + solver.placed
                best = (weight + extra, kept + arranged, played)
    if best is None:
        raise NotationError("the table is not a valid arrangement of its tiles")
    weight, arranged, played = best
    played_rack = Rack.from_counts(played)
    value = sum(int(played[k]) * number_of(k) for k in range(KINDS)) + int(played[JOKER]) * rules.joker_penalty
    return TablePlay(value=value, tiles=len(played_rack), played=played_rack, melds=tuple(arranged),
                     objective=objective)
