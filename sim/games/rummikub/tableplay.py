"""The table solver's public face: :func:`table_play`, the best play of a rack onto a
Rummikub table that may be rebuilt as a whole (K-PLAY-1, K-JOKER-1/2).

It reads and checks the table (every meld valid under the rules in force, no tile beyond
the set's copies across rack and table) and hands it to the jit-compiled turn the engine
plays too (:mod:`.tableturn`: the table's jokers bound, freed or locked as the rules say,
K-JOKER-1/2, then the exact solver of :mod:`.table`), so that a play found here is the
play the bots would make.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

import numpy as np

from sim.errors import NotationError, RulesError
from sim.games import resolve_rules
from sim.games.rummikub.tablecall import NOT_READ
from sim.melds import check_meld
from sim.rules import Rules
from sim.solver.layout import MELD_FIELDS, meld_row, to_meld
from sim.tiles import (
    COPIES,
    COUNTS_LEN,
    JOKER,
    KINDS,
    SET_JOKERS,
    Meld,
    Rack,
    as_counts,
    number_of,
    parse_meld,
    tile_name,
)

OBJECTIVES = ("value", "tiles")


class TablePlay:
    """The best play of a rack onto a table (K-PLAY-1).

    ``value``: the rack value placed (a tile at its number, a rack joker at the joker
    penalty, K-END-1); ``tiles``: rack tiles placed; ``played``: those tiles; ``melds``: the
    whole table afterwards (a joker shown with the tile it stands for: a bound joker still
    its tile, K-JOKER-2); ``freed``: the table jokers freed this turn, each as the tile it
    stood for and the rack tile that freed it (K-JOKER-1/2); ``can_play``: at least one
    rack tile placed. ``objective`` says what was maximised, the other measure breaking
    ties.

    ``played`` and ``melds`` may be given as the solver left them (a count vector; meld
    rows, or a function giving the melds): they are made into a :class:`Rack` and
    :class:`Meld` objects when first read, since building them cost more than the solve.
    """

    __slots__ = ("_melds", "_played", "freed", "objective", "tiles", "value")

    def __init__(self, value: int, tiles: int, played, melds, objective: str = "value",
                 freed: tuple[tuple[str, str], ...] = ()):
        for name, v in (("value", value), ("tiles", tiles), ("objective", objective), ("freed", freed),
                        ("_played", played), ("_melds", melds)):
            object.__setattr__(self, name, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"a TablePlay is not changed after it is made (tried to set {name})")

    @property
    def played(self) -> Rack:
        if not isinstance(self._played, Rack):
            object.__setattr__(self, "_played", Rack.from_counts(self._played))
        return self._played

    @property
    def melds(self) -> tuple[Meld, ...]:
        if callable(self._melds):
            object.__setattr__(self, "_melds", tuple(self._melds()))
        elif isinstance(self._melds, np.ndarray):
            object.__setattr__(self, "_melds", tuple(to_meld(r) for r in self._melds))
        return self._melds

    @property
    def can_play(self) -> bool:
        return self.tiles > 0

    def _key(self) -> tuple:
        return (self.value, self.tiles, self.played, self.melds, self.objective, self.freed)

    def __eq__(self, other) -> bool:
        return isinstance(other, TablePlay) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"TablePlay(value={self.value!r}, tiles={self.tiles!r}, played={self.played!r}, "
                f"melds={self.melds!r}, objective={self.objective!r}, freed={self.freed!r})")

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
    remembering 2**16 positions and grows when a position needs more. Made, it has the
    table solver's kernels compiled or loaded, callees first (:func:`sim.jit.prepare`):
    compiled lazily from a first call, a counted kernel reached through one compiled without
    reference counting failed to type (``np.empty`` in ``_memo_spread``)."""

    def __init__(self, memo_bits: int | None = None):
        from sim.games.rummikub import FAMILY, TABLE_SOLVER, tablecall
        from sim.games.rummikub import tablesolver as table
        from sim.games.rummikub.tablecall import BUFFER, buffer_views
        from sim.jit import prepare

        prepare(FAMILY.other_workload(TABLE_SOLVER))
        # the kernels called, kept (an import in each call was a third of a trivial solve's time)
        self._solve, self._play, self._play_text = table.solve, tablecall.play, tablecall.play_text
        self.memo_bits = memo_bits or table.MEMO_BITS
        self.space = table.new_space(self.memo_bits)
        self.out = np.zeros((table.OUT_ROWS, MELD_FIELDS), dtype=np.int64)
        self.placed = np.zeros(COUNTS_LEN, dtype=np.int64)
        # best_play's work arrays, and the table and rack read from text (play_text: meld
        # rows, rack counts, all tiles), in one buffer that play_text takes whole
        self.buffer = np.zeros(BUFFER, dtype=np.int64)
        self.work, self.read = buffer_views(self.buffer)
        load_solve_first()

    def _grow(self) -> None:
        from sim.games.rummikub import tablesolver as table

        if self.memo_bits >= table.MAX_MEMO_BITS:
            raise RuntimeError(f"the table solver needs more memory than 2**{table.MAX_MEMO_BITS} positions")
        self.memo_bits = min(table.MAX_MEMO_BITS, self.memo_bits + 4)
        self.space = table.new_space(self.memo_bits)

    def run(self, table_counts: np.ndarray, rack: np.ndarray, rules: Rules, objective: int,
            table_stands: bool = True, pins: np.ndarray | None = None, cut: int = -1,
            floor: int | None = None) -> tuple[int, int]:
        """The kernel's ``(weight, rows)`` (see :func:`sim.games.rummikub.tablesolver.solve`);
        ``pins``: the table's bound jokers by tile (none: every table joker is free); ``cut``:
        with wrap-around runs, where the circle of numbers is cut (-1: the solver's choice);
        ``floor``: only plays weighing more are sought (by default 0 if ``table_stands``,
        else -1)."""
        pins = _NO_PINS if pins is None else pins
        if floor is None:
            floor = 0 if table_stands else -1
        while True:
            weight, rows = self._solve(table_counts, pins, rack, objective, rules.joker_penalty,
                                       rules.group_of_three_max_jokers, rules.wrap_runs, floor, cut, self.space,
                                       self.out, self.placed)
            if weight != -2:
                return weight, rows
            self._grow()

    def play(self, rack: np.ndarray, rows: np.ndarray, rules: Rules, objective: int) -> tuple[int, int]:
        """One turn's table play (:func:`sim.games.rummikub.tableturn.best_play`) of ``rack``
        onto the meld ``rows``: ``(weight, rows)``, the table afterwards, the tiles placed and
        the jokers freed in :attr:`work`."""
        while True:
            weight, n = self._play(rack, rows, rows.shape[0], objective, rules.joker_penalty,
                                   rules.group_of_three_max_jokers, rules.wrap_runs, rules.locked_jokers,
                                   rules.joker_moves == "bound", self.space, *self.work)
            if weight != -2:
                return int(weight), int(n)
            self._grow()


    def play_text(self, table: str, rack: str, rules: Rules, objective: int) -> tuple[int, int, int, int]:
        """:meth:`play` on a table and a rack as text, read in the kernel
        (:func:`sim.games.rummikub.tablecall.play_text`): ``(weight, rows, value, tiles)``,
        the melds read in ``read[0]`` and the rack in ``read[1]``; weight ``NOT_READ`` when
        the text is left to Python (:func:`read_table`), which names any fault."""
        table_text = np.frombuffer(bytearray(table.encode()), dtype=np.int8)  # writable: the kernel's type
        rack_text = np.frombuffer(bytearray(rack.encode()), dtype=np.int8)
        while True:
            weight, n, value, tiles = self._play_text(table_text, rack_text, objective, rules.joker_penalty,
                                                      rules.group_of_three_max_jokers, rules.wrap_runs,
                                                      rules.locked_jokers, rules.joker_moves == "bound", self.space,
                                                      self.buffer)
            if weight != -2:
                return int(weight), int(n), int(value), int(tiles)
            self._grow()


_NO_PINS = np.zeros(COUNTS_LEN, dtype=np.int64)


@functools.cache
def load_solve_first() -> None:
    """Load the table solver's own machine code (:func:`~sim.games.rummikub.tablesolver.solve`,
    one trivial solve) before any kernel that links it is loaded from the cache: the round
    engine, the turn, the text reader, the batch. Loaded, they all run the copy of the search
    in the first library that held it (read from timings: the load order alone changed the
    speed of every call), and on an AMD EPYC (2026-12-07) the solve's own copy ran twice as
    fast as the text reader's: the free solve 14.5 against 30.0 us median on the bench's
    first 300 positions, the public call 10.4 against 15.7, four-player rounds 1,427-1,466
    against 1,050-1,107 a second. Once a process; every path to the solver calls it first
    (:class:`Solver`, the round engine's :func:`~sim.games.rummikub.play.play_chunk`)."""
    from sim.games.rummikub import tablesolver as table

    table.solve(_NO_PINS, _NO_PINS, _NO_PINS, 1, 0, 1, False, 0, -1, table.new_space(table.MEMO_BITS),
                np.zeros((table.OUT_ROWS, MELD_FIELDS), dtype=np.int64), np.zeros(COUNTS_LEN, dtype=np.int64))


_SOLVER: list[Solver] = []


def _setup(rules: Rules | str, objective: str) -> tuple[Rules, Solver]:
    """The rules checked for a table play (K-PLAY-1 is a Rummikub rule), the objective
    checked, and the solver of this process, its kernels compiled or loaded the first time."""
    rules = resolve_rules(rules)
    if rules.family != "rummikub":
        raise RulesError(f"table play is a Rummikub rule (K-PLAY-1); the rules given are {rules.name}, "
                         f"of the {rules.family} family")
    if objective not in OBJECTIVES:
        raise RulesError(f"objective: must be value or tiles (got {objective!r})")
    if not _SOLVER:
        _SOLVER.append(Solver())  # (its kernels compiled or loaded the first time)
    return rules, _SOLVER[0]


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
    rules, solver = _setup(rules, objective)
    if isinstance(table, str) and isinstance(rack, str):
        # The quick path: read in the kernel, the answer built when it is read (issue 26)
        weight, n, value, tiles = solver.play_text(table, rack, rules, OBJECTIVES.index(objective))
        if weight != NOT_READ:
            if weight <= 0:  # nothing to place: the table stands, as written
                return TablePlay(0, 0, _NOTHING, lambda: read_table(table, rules), objective)
            return _answer(solver, n, objective, value, tiles)
    rack_counts = as_counts(rack)
    melds = read_table(table, rules)
    total = rack_counts + table_counts(melds)
    over = [k for k in range(KINDS) if total[k] > COPIES]
    if over:
        raise NotationError(f"{tile_name(over[0])} appears {int(total[over[0]])} times across rack and table; "
                            f"the set holds {COPIES}")
    if total[JOKER] > SET_JOKERS:
        raise NotationError(f"{int(total[JOKER])} jokers across rack and table; the set holds {SET_JOKERS}")
    rows = np.array([meld_row(m) for m in melds], dtype=np.int64).reshape(len(melds), MELD_FIELDS)
    weight, n = solver.play(np.ascontiguousarray(rack_counts, dtype=np.int64), rows, rules, OBJECTIVES.index(objective))
    if weight <= 0:  # nothing to place: the table stands
        return TablePlay(0, 0, _NOTHING, tuple(melds), objective)
    placed = solver.work[7]
    value = int(placed[:KINDS] @ _NUMBERS) + int(placed[JOKER]) * rules.joker_penalty
    return _answer(solver, n, objective, value, int(placed.sum()))


_NOTHING = np.zeros(COUNTS_LEN, dtype=np.int64)


def _answer(solver: Solver, n: int, objective: str, value: int, tiles: int) -> TablePlay:
    """The play the solver's last turn left in its work arrays (``n`` meld rows after),
    worth ``value`` and placing ``tiles``."""
    placed, freed, after = solver.work[7], solver.work[8], solver.work[9]
    jokers = ()
    if freed[0]:
        jokers = tuple((tile_name(int(freed[1 + 2 * i])), tile_name(int(freed[2 + 2 * i])))
                       for i in range(int(freed[0])))
    return TablePlay(value, tiles, placed.copy(), after[:n].copy(), objective, jokers)


_NUMBERS = np.array([number_of(k) for k in range(KINDS)], dtype=np.int64)


def table_plays(racks: np.ndarray, tables: np.ndarray, rules: Rules | str = "rummikub",
                objective: str = "value") -> dict[str, np.ndarray]:
    """:func:`table_play` on many positions at once, arrays in and arrays out (issue 26):
    ``racks`` an int array ``(N, 53)`` of counts (jokers at 52), ``tables`` an int array
    ``(N, M, 6)`` of meld rows (:mod:`sim.solver.layout`: ``kind, key, first, length,
    colours, jokers``; a row of length 0 is no meld, and none follows it). Returns
    ``value`` and ``tiles`` ``(N,)``, ``played`` ``(N, 53)`` (the rack tiles placed) and the
    tables afterwards as ``melds`` ``(N, 64, 6)`` and ``rows`` ``(N,)``; the table as it was
    where nothing is placed. A position with a meld that is not valid, or more copies of a
    tile than the set holds, raises :class:`~sim.errors.NotationError` naming it.

    >>> from sim.solver.layout import meld_row
    >>> from sim.tiles import parse_meld, parse_rack
    >>> racks = np.array([parse_rack("R4 B7 Y9").counts, parse_rack("Y9").counts])
    >>> tables = np.zeros((2, 2, 6), dtype=np.int64)
    >>> tables[0, 0], tables[0, 1] = meld_row(parse_meld("R1 R2 R3")), meld_row(parse_meld("B5 B6 J(B7)"))
    >>> tables[1, 0] = meld_row(parse_meld("R1 R2 R3"))
    >>> out = table_plays(racks, tables)
    >>> out["value"].tolist(), out["tiles"].tolist(), out["rows"].tolist()
    ([11, 0], [2, 0], [2, 1])
    """
    from sim.games.rummikub.tablecall import check_many, play_many
    from sim.games.rummikub.tablesolver import OUT_ROWS
    from sim.solver.layout import F_LEN

    rules, solver = _setup(rules, objective)
    racks = np.asarray(racks)
    tables = np.asarray(tables)
    if racks.ndim != 2 or racks.shape[1] != COUNTS_LEN or racks.dtype.kind not in "iu":
        raise NotationError(f"racks: an integer array of shape (N, {COUNTS_LEN}), got {racks.dtype} {racks.shape}")
    if (tables.ndim != 3 or tables.shape[0] != racks.shape[0] or tables.shape[2] != MELD_FIELDS
            or tables.dtype.kind not in "iu"):
        raise NotationError(f"tables: an integer array of shape ({racks.shape[0]}, M, {MELD_FIELDS}) of meld rows, "
                            f"got {tables.dtype} {tables.shape}")
    if tables.shape[1] > OUT_ROWS:
        raise NotationError(f"tables: at most {OUT_ROWS} melds a table, got room for {tables.shape[1]}")
    racks = np.ascontiguousarray(racks, dtype=np.int64)
    tables = np.ascontiguousarray(tables, dtype=np.int64)
    filled = tables[:, :, F_LEN] > 0
    ntables = filled.sum(axis=1).astype(np.int64)
    gaps = np.flatnonzero(filled.any(axis=1) & (filled.argmin(axis=1) < ntables) & ~filled.all(axis=1))
    if gaps.size:
        raise NotationError(f"position {int(gaps[0])}: a meld row follows a row of length 0 (no meld)")
    bad = check_many(racks, tables, ntables, rules.group_of_three_max_jokers, rules.wrap_runs, solver.read[2])
    if bad >= 0:
        _raise_for(int(bad), racks[bad], tables[bad, :ntables[bad]], rules)
    n = racks.shape[0]
    out = {"value": np.zeros(n, dtype=np.int64), "tiles": np.zeros(n, dtype=np.int64),
           "played": np.zeros((n, COUNTS_LEN), dtype=np.int64),
           "melds": np.zeros((n, OUT_ROWS, MELD_FIELDS), dtype=np.int64), "rows": np.zeros(n, dtype=np.int64)}
    start = 0
    while True:
        start = play_many(racks, tables, ntables, OBJECTIVES.index(objective), rules.joker_penalty,
                          rules.group_of_three_max_jokers, rules.wrap_runs, rules.locked_jokers,
                          rules.joker_moves == "bound", solver.space, *solver.work, out["value"], out["tiles"],
                          out["played"], out["melds"], out["rows"], start)
        if start < 0:
            return out
        solver._grow()


def _raise_for(i: int, rack: np.ndarray, rows: np.ndarray, rules: Rules) -> None:
    """The error of position ``i`` of :func:`table_plays`, in :func:`table_play`'s words."""
    if (rack < 0).any():
        raise NotationError(f"position {i}: a rack cannot hold a negative count")
    try:
        melds = [to_meld(r) for r in rows]
        if any(not 0 <= k < KINDS for m in melds for k in m.tiles):
            raise ValueError("a colour or a number out of range")
    except (ValueError, IndexError) as e:
        raise NotationError(f"position {i}: a meld row is not a run or a group ({e})") from None
    try:
        table_play(Rack.from_counts(rack), melds, rules)
    except NotationError as e:
        raise NotationError(f"position {i}: {e}") from None
    raise NotationError(f"position {i}: a meld row is not a valid run or group: {[str(m) for m in melds]}")
