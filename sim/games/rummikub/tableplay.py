"""The table solver's public face: :func:`table_play`, the best play of a rack onto a
Rummikub table that may be rebuilt as a whole (K-PLAY-1, K-JOKER-1/2).

It reads and checks the table (every meld valid under the rules in force, no tile beyond
the set's copies across rack and table) and hands it to the jit-compiled turn the engine
plays too (:mod:`.tableturn`: the table's jokers bound, freed or locked as the rules say,
K-JOKER-1/2, then the exact solver of :mod:`.table`), so that a play found here is the
play the bots would make.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from sim.errors import NotationError, RulesError
from sim.games import resolve_rules
from sim.melds import check_meld
from sim.rules import Rules
from sim.solver.layout import MELD_FIELDS, to_meld
from sim.tiles import COPIES, COUNTS_LEN, JOKER, KINDS, SET_JOKERS, Meld, Rack, as_counts, number_of, parse_meld

OBJECTIVES = ("value", "tiles")


@dataclass(frozen=True)
class TablePlay:
    """The best play of a rack onto a table (K-PLAY-1).

    ``value``: the rack value placed (a tile at its number, a rack joker at the joker
    penalty, K-END-1); ``tiles``: rack tiles placed; ``played``: those tiles; ``melds``: the
    whole table afterwards (a joker shown with the tile it stands for: a bound joker still
    its tile, K-JOKER-2); ``freed``: the table jokers freed this turn, each as the tile it
    stood for and the rack tile that freed it (K-JOKER-1/2); ``can_play``: at least one
    rack tile placed. ``objective`` says what was maximised, the other measure breaking
    ties.
    """

    value: int
    tiles: int
    played: Rack
    melds: tuple[Meld, ...]
    objective: str = "value"
    freed: tuple[tuple[str, str], ...] = ()

    @property
    def can_play(self) -> bool:
        return self.tiles > 0

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "tiles": self.tiles,
            "played": str(self.played),
            "melds": [str(m) for m in self.melds],
            "freed": [{"joker": f"J({t})", "by": by} for t, by in self.freed],
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


def table_counts(melds: Sequence[Meld], bound: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """The tiles of ``melds`` as a count vector (jokers at JOKER); with ``bound``, the
    count vector without the jokers and the jokers by the tile each stands for (the table
    solver's ``table`` and ``pins``, K-JOKER-2)."""
    counts = np.zeros(COUNTS_LEN, dtype=np.int64)
    pins = np.zeros(COUNTS_LEN, dtype=np.int64)
    for m in melds:
        for k, j in zip(m.tiles, m.jokers, strict=True):
            if j and bound:
                pins[k] += 1
            else:
                counts[JOKER if j else k] += 1
    return (counts, pins) if bound else counts


class Solver:
    """The search's scratch, kept between solves (one per thread of work). It starts by
    remembering 2**16 positions and grows when a position needs more."""

    def __init__(self, memo_bits: int | None = None):
        from sim.games.rummikub import tablesolver as table
        from sim.games.rummikub.tableturn import new_work

        self.memo_bits = memo_bits or table.MEMO_BITS
        self.space = table.new_space(self.memo_bits)
        self.out = np.zeros((table.OUT_ROWS, MELD_FIELDS), dtype=np.int64)
        self.placed = np.zeros(COUNTS_LEN, dtype=np.int64)
        self.work = new_work()

    def _grow(self) -> None:
        from sim.games.rummikub import tablesolver as table

        if self.memo_bits >= table.MAX_MEMO_BITS:
            raise RuntimeError(f"the table solver needs more memory than 2**{table.MAX_MEMO_BITS} positions")
        self.memo_bits = min(table.MAX_MEMO_BITS, self.memo_bits + 4)
        self.space = table.new_space(self.memo_bits)

    def run(self, table_counts: np.ndarray, rack: np.ndarray, rules: Rules, objective: int,
            table_stands: bool = True, pins: np.ndarray | None = None, cut: int = -1) -> tuple[int, int]:
        """The kernel's ``(weight, rows)`` (see :func:`sim.games.rummikub.tablesolver.solve`);
        ``pins``: the table's bound jokers by tile (none: every table joker is free); ``cut``:
        with wrap-around runs, where the circle of numbers is cut (-1: the solver's choice)."""
        from sim.games.rummikub import tablesolver as table

        pins = _NO_PINS if pins is None else pins
        while True:
            weight, rows = table.solve(table_counts, pins, rack, objective, rules.joker_penalty,
                                       rules.group_of_three_max_jokers, rules.wrap_runs, 0 if table_stands else -1,
                                       cut, self.space, self.out, self.placed)
            if weight != -2:
                return int(weight), int(rows)
            self._grow()

    def play(self, rack: np.ndarray, rows: np.ndarray, rules: Rules, objective: int) -> tuple[int, int]:
        """One turn's table play (:func:`sim.games.rummikub.tableturn.best_play`) of ``rack``
        onto the meld ``rows``: ``(weight, rows)``, the table afterwards, the tiles placed and
        the jokers freed in :attr:`work`."""
        from sim.games.rummikub.tablecall import play

        while True:
            weight, n = play(rack, rows, rows.shape[0], objective, rules.joker_penalty,
                             rules.group_of_three_max_jokers, rules.wrap_runs, rules.locked_jokers,
                             rules.joker_moves == "bound", self.space, *self.work)
            if weight != -2:
                return int(weight), int(n)
            self._grow()


_NO_PINS = np.zeros(COUNTS_LEN, dtype=np.int64)
_SOLVER: list[Solver] = []


def table_play(rack: Rack | str | np.ndarray, table: Iterable[str | Meld] | str, rules: Rules | str = "rummikub",
               objective: str = "value") -> TablePlay:
    """The best play of ``rack`` onto ``table`` under ``rules`` (K-PLAY-1): the most rack
    value placed (``objective="tiles"``: the most rack tiles), the table afterwards made
    only of valid melds and still holding every tile it held, its jokers bound to their
    tiles unless freed (K-JOKER-1/2, ``joker_moves``; ``locked_jokers``).

    >>> p = table_play("R4 B7 Y9", "R1 R2 R3; B5 B6 J(B7)")
    >>> p.value, str(p.played), p.freed
    (11, 'R4 B7', (('B7', 'B7'),))
    """
    from sim.games.rummikub import FAMILY, TABLE_SOLVER
    from sim.jit import prepare
    from sim.solver.layout import meld_row
    from sim.tiles import tile_name

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
        raise NotationError(f"{tile_name(over[0])} appears {int(total[over[0]])} times across rack and table; "
                            f"the set holds {COPIES}")
    if total[JOKER] > SET_JOKERS:
        raise NotationError(f"{int(total[JOKER])} jokers across rack and table; the set holds {SET_JOKERS}")
    prepare(FAMILY.other_workload(TABLE_SOLVER))
    if not _SOLVER:
        _SOLVER.append(Solver())
    solver = _SOLVER[0]
    rows = np.array([meld_row(m) for m in melds], dtype=np.int64).reshape(len(melds), MELD_FIELDS)
    weight, n = solver.play(np.ascontiguousarray(rack_counts, dtype=np.int64), rows, rules, OBJECTIVES.index(objective))
    if weight <= 0:  # nothing to place: the table stands
        return TablePlay(value=0, tiles=0, played=Rack.from_counts(np.zeros(COUNTS_LEN, dtype=np.int64)),
                         melds=tuple(melds), objective=objective)
    placed, freed, after = solver.work[7], solver.work[8], solver.work[9]
    played = Rack.from_counts(placed.copy())
    value = sum(int(placed[k]) * number_of(k) for k in range(KINDS)) + int(placed[JOKER]) * rules.joker_penalty
    return TablePlay(value=value, tiles=len(played), played=played, melds=tuple(to_meld(r) for r in after[:n]),
                     objective=objective,
                     freed=tuple((tile_name(int(freed[1 + 2 * i])), tile_name(int(freed[2 + 2 * i])))
                                 for i in range(int(freed[0]))))
