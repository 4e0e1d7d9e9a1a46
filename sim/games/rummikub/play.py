"""Python face of the Rummikub round engine: rules and policies as the kernels' integer
arrays, chunks of rounds as arrays, and single traced rounds."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.deal import round_deck
from sim.errors import RulesError
from sim.games.family import policy_codes as seat_codes
from sim.games.family import policy_tune, seat_tune
from sim.games.rummikub import EXPERT_PARAMS, FAMILY, POLICIES, SEARCH_PLAY
from sim.jit import prepare
from sim.rules import Rules
from sim.solver.arrays import solver_arrays


def rules_params(rules: Rules, duplicate: bool = False) -> np.ndarray:
    """The rules as the engine's integer array (``engine.RP_*``); ``duplicate``: deals
    played once per seat rotation (``sim run --duplicate``)."""
    from sim.games.rummikub import state as e

    if rules.family != "rummikub":
        raise RulesError(f"the Rummikub engine plays Rummikub; {rules.name} is {rules.family}")
    rp = np.zeros(e.RP_LEN, dtype=np.int64)
    rp[e.RP_PLAYERS] = rules.players
    rp[e.RP_RACK] = rules.rack_size
    rp[e.RP_JOKERS] = rules.jokers
    rp[e.RP_OPEN_POINTS] = rules.open_points
    rp[e.RP_JOKER_PENALTY] = rules.joker_penalty
    rp[e.RP_G3MAX] = rules.group_of_three_max_jokers
    rp[e.RP_WRAP] = rules.wrap_runs
    rp[e.RP_LOCKED] = rules.locked_jokers
    rp[e.RP_EASING] = rules.easing_open
    rp[e.RP_EASING_STEP] = rules.easing_step
    rp[e.RP_EASING_EVERY] = rules.easing_every
    rp[e.RP_EASING_FLOOR] = rules.easing_floor
    rp[e.RP_LAST_CALL] = rules.last_call
    rp[e.RP_BOUND] = rules.joker_moves == "bound"  # K-JOKER-2
    rp[e.RP_DUPLICATE] = rules.players if duplicate else 0
    return rp


def policy_codes(policies: list[str] | tuple[str, ...], players: int) -> np.ndarray:
    """Policy names per seat as codes; one name is used for every seat."""
    return seat_codes(policies, players, POLICIES)


def seat_budgets(policies: list[str] | tuple[str, ...], players: int,
                 tune: np.ndarray | None = None) -> np.ndarray | None:
    """``tune`` with each seat's search budget from its policy name (``search:32``)."""
    return policy_tune(EXPERT_PARAMS, policies, players, POLICIES, tune)


@dataclass(frozen=True)
class ChunkResult:
    rounds: np.ndarray  # (count, R_LEN)
    players: np.ndarray  # (count, players, P_LEN)


@dataclass(frozen=True)
class TracedRound:
    """One round with every action: ``events`` rows (``EV_*``), the melds of each opening
    or the table after each play in ``rows``, the rack tiles placed in ``placed``."""

    rules: Rules
    deck: np.ndarray
    events: np.ndarray
    rows: np.ndarray
    placed: np.ndarray
    racks: np.ndarray
    players: np.ndarray
    counters: np.ndarray


class _Engine:
    """The scratch of one run of rounds (one per worker): the round's and the table
    solver's, the latter grown when a position needs more memory."""

    def __init__(self, rules: Rules, duplicate: bool = False):
        from sim.games.rummikub import engine as e
        from sim.games.rummikub import tablesolver as table

        self.rules = rules
        self.rp = rules_params(rules, duplicate)
        self.S = solver_arrays(rules.group_of_three_max_jokers)
        self.rs = e.new_round_space(self.S[7].shape[0], rules.players, rules.jokers)
        self.memo_bits = table.MEMO_BITS
        self.ts = table.new_space(self.memo_bits)
        self.sp = None  # the search's scratch, made when a seat searches

    def play(self, seed, start, count, policies, tune, deck, trace, tracing, out_r, out_p) -> None:
        done = 0
        while done < count:
            done += self.rounds(seed, start + done, count - done, policies, tune, deck, trace, tracing, out_r[done:],
                                out_p[done:], True, -1)
            if done < count:  # a position needs a bigger memory: grow it, replay that round
                self.grow(f"round {start + done}")

    def rounds(self, seed, start, count, policies, tune, deck, trace, tracing, out_r, out_p, fresh, stop) -> int:
        """The engine's ``play_rounds``, or the search's ``search_rounds`` when a seat searches
        (compiled then, :data:`SEARCH_PLAY`): the same arguments and return."""
        from sim.games.rummikub import engine as e

        if not (np.asarray(policies) >= e.POLICY_SEARCH).any():
            return e.play_rounds(seed, start, count, self.rp, policies, tune, self.S, self.rs, self.ts, deck, trace,
                                 tracing, out_r, out_p, fresh, stop)
        prepare(FAMILY.other_workload(SEARCH_PLAY))
        from sim.games.rummikub import search
        from sim.games.rummikub import state as st

        if self.sp is None:
            size = max(len(deck), len(self.rs[7]))
            self.sp = search.new_search_space(self.rules.players, size, e.MAX_TABLE, st.G_LEN)
        elif len(self.sp.pool) < len(deck):
            raise ValueError(f"a round of {len(deck)} tiles: the search was set up for {len(self.sp.pool)}")
        return search.search_rounds(seed, start, count, self.rp, policies, tune, self.S, self.rs, self.ts, self.sp,
                                    deck, trace, tracing, out_r, out_p, fresh, stop)

    def grow(self, where: str = "a position") -> None:
        """Give the table solver a memory 16 times bigger (a position needed more)."""
        from sim.games.rummikub import tablesolver as table

        if self.memo_bits >= table.MAX_MEMO_BITS:
            raise RuntimeError(f"{where}: the table solver needs more memory than 2**{table.MAX_MEMO_BITS} positions")
        self.memo_bits = min(table.MAX_MEMO_BITS, self.memo_bits + 4)
        self.ts = table.new_space(self.memo_bits)


_NO_DECK = np.zeros(0, dtype=np.int64)


def _no_trace():
    from sim.games.rummikub import engine as e
    from sim.tiles import COUNTS_LEN

    return (np.zeros((1, e.EV_FIELDS), dtype=np.int64), np.zeros((1, 1, 6), dtype=np.int64),
            np.zeros((1, COUNTS_LEN), dtype=np.int64))


def play_chunk(rules: Rules, seed: int, start: int, count: int, policies: np.ndarray,
               progress: bool = False, duplicate: bool = False, tune: np.ndarray | None = None) -> ChunkResult:
    """Rounds ``start .. start+count-1`` of ``seed`` (the same rounds whatever the
    chunking). ``progress``: show a progress bar if the engine must be compiled first;
    ``duplicate``: deals played once per seat rotation; ``tune``: the expert's constants
    per seat (None: its defaults)."""
    from sim.games.rummikub import engine as e
    from sim.games.rummikub.tableplay import load_solve_first

    prepare(FAMILY.workload, progress)
    load_solve_first()  # before the engine's kernels: they then run the solver's own code (twice as fast)
    out_r = np.zeros((count, e.R_LEN), dtype=np.int64)
    out_p = np.zeros((count, rules.players, e.P_LEN), dtype=np.int64)
    _Engine(rules, duplicate).play(seed, start, count, policies, seat_tune(EXPERT_PARAMS, rules.players, tune),
                                   _NO_DECK, _no_trace(), False, out_r, out_p)
    return ChunkResult(out_r, out_p)


_TRACING: list[_Engine] = []  # the engine of the last traced round's rules: its scratch serves the next


def trace_round(rules: Rules, seed: int, round_id: int, policies: np.ndarray,
                deck: np.ndarray | None = None, duplicate: bool = False,
                tune: np.ndarray | None = None) -> TracedRound:
    """Play one round with the trace on: round ``round_id`` of ``seed`` (of a duplicate
    run with ``duplicate``), or a given tile order ``deck`` (for scenario tests);
    ``tune``: the expert's constants per seat (None: its defaults)."""
    from sim.games.rummikub import engine as e
    from sim.solver.layout import MELD_FIELDS
    from sim.tiles import COUNTS_LEN

    prepare(FAMILY.workload)
    if deck is None:
        deck = round_deck(seed, round_id, rules.jokers, rules.players if duplicate else 0, rules.rack_size, 0)
    deck = np.ascontiguousarray(deck, dtype=np.int64)
    trace = (np.zeros((e.MAX_EVENTS, e.EV_FIELDS), dtype=np.int64),
             np.zeros((e.MAX_EVENTS, e.MAX_TABLE, MELD_FIELDS), dtype=np.int64),
             np.zeros((e.MAX_EVENTS, COUNTS_LEN), dtype=np.int64))
    out_r = np.zeros((1, e.R_LEN), dtype=np.int64)
    out_p = np.zeros((1, rules.players, e.P_LEN), dtype=np.int64)
    if not _TRACING or _TRACING[0].rules != rules:  # one engine for the traced rounds of the same rules
        _TRACING[:] = [_Engine(rules)]
    engine = _TRACING[0]
    engine.play(seed, round_id, 1, policies, seat_tune(EXPERT_PARAMS, rules.players, tune), deck, trace, True, out_r,
                out_p)
    racks, _, ps, g, *_ = engine.rs
    n = int(g[e.G_NEVENTS])
    events, rows, placed = trace
    return TracedRound(rules, deck.copy(), events[:n].copy(), rows[:n].copy(), placed[:n].copy(),
                       racks.copy(), ps.copy(), g.copy())


class Round:
    """A round played turn by turn from Python, its whole state at hand between turns: for
    positions in tests (worked positions, the information-set property). ``deck``: the tile
    order (the racks dealt from its start, the pool the rest); every action is traced."""

    def __init__(self, rules: Rules, deck: np.ndarray, policies: list[str], tune: np.ndarray | None = None):
        from sim.games.rummikub import engine as e
        from sim.solver.layout import MELD_FIELDS
        from sim.tiles import COUNTS_LEN

        prepare(FAMILY.workload)
        self.rules = rules
        self.deck = np.ascontiguousarray(deck, dtype=np.int64)
        self.codes = policy_codes(policies, rules.players)
        self.tune = seat_tune(EXPERT_PARAMS, rules.players, seat_budgets(policies, rules.players, tune))
        self.engine = _Engine(rules)
        self.trace = (np.zeros((e.MAX_EVENTS, e.EV_FIELDS), dtype=np.int64),
                      np.zeros((e.MAX_EVENTS, e.MAX_TABLE, MELD_FIELDS), dtype=np.int64),
                      np.zeros((e.MAX_EVENTS, COUNTS_LEN), dtype=np.int64))
        self.racks, self.table, self.ps, self.g = self.engine.rs[:4]
        self.g[e.G_TRACE] = 1
        self.over = self._play(True, 0)

    def set_position(self, racks: list[str], table: list[str], opened: list[bool], seat: int = 0,
                     pool: str | None = None) -> None:
        """Replace the round by a position built by hand: each seat's rack, the table's melds
        (``"R1 R2 R3"``, a bound joker as ``J(R4)``), who has opened, whose turn it is, and
        the pool in the order it will be drawn (None: the rest of the set, in tile order).
        Every player has had four turns (the bar in force is ``open_points``)."""
        from sim.games.rummikub import engine as e
        from sim.games.rummikub.tableplay import read_table, table_counts
        from sim.solver.layout import meld_row
        from sim.tiles import COPIES, KINDS, parse_rack, parse_tile

        counts = [np.array(parse_rack(r).counts, dtype=np.int64) for r in racks]
        melds = read_table(table, self.rules)
        on_table = table_counts(melds)
        if pool is None:
            left = np.array([COPIES] * KINDS + [self.rules.jokers], dtype=np.int64) - on_table - sum(counts)
            pool_tiles = [k for k in range(KINDS + 1) for _ in range(int(left[k]))]
        else:
            pool_tiles = [parse_tile(t) for t in pool.split()]
        held = [k for c in counts for k in range(len(c)) for _ in range(int(c[k]))]
        placed = [k for k in range(len(on_table)) for _ in range(int(on_table[k]))]
        self.deck = np.array(held + placed + pool_tiles, dtype=np.int64)
        self.racks[:, :] = 0
        for p, c in enumerate(counts):
            self.racks[p, :] = c
        self.table[:, :] = 0
        for i, m in enumerate(melds):
            self.table[i] = meld_row(m)
        players = self.rules.players
        self.ps[:, :] = 0
        self.ps[:, e.PS_POLICY] = self.codes
        self.ps[:, e.PS_TURNS] = 4
        self.ps[:, e.PS_OPEN_TURN] = [1 if o else 0 for o in opened]
        self.g[e.G_NTABLE] = len(melds)
        self.g[e.G_POOL] = len(held) + len(placed)
        self.g[e.G_DECK] = len(self.deck)
        self.g[e.G_TURNS] = 4 * players + seat
        self.g[e.G_TABLE_CHANGES] = 1
        self.over = False

    def _play(self, fresh: bool, turns: int) -> bool:
        from sim.games.rummikub import engine as e

        eng = self.engine
        state = [a.copy() for a in (self.racks, self.table, self.ps, self.g)]
        out_r = np.zeros((1, e.R_LEN), dtype=np.int64)
        out_p = np.zeros((1, self.rules.players, e.P_LEN), dtype=np.int64)
        stop = (0 if fresh else int(self.g[e.G_TURNS])) + turns
        while True:
            over = eng.rounds(0, 0, 1, self.codes, self.tune, self.deck, self.trace, True, out_r, out_p, fresh, stop)
            if int(self.g[e.G_ERROR]) != e.ERR_MEMO:
                break
            eng.grow()  # a position needs more memory: the same turns again from where they started
            for a, saved in zip((self.racks, self.table, self.ps, self.g), state, strict=True):
                a[...] = saved
        if int(self.g[e.G_ERROR]) != e.ERR_NONE:
            raise RuntimeError(f"the round stopped with engine error {int(self.g[e.G_ERROR])}")
        return bool(over)

    def play(self, turns: int = 1) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Play ``turns`` more turns (fewer if the round ends): their actions, each its event
        (an ``EV_*`` row), the melds laid or the table after a play, and the rack tiles placed."""
        from sim.games.rummikub import engine as e

        first = int(self.g[e.G_NEVENTS])
        if not self.over:
            self.over = self._play(False, turns)
        events, rows, placed = self.trace
        return [(events[i].copy(), rows[i, :events[i, e.EV_ROWS]].copy(), placed[i].copy())
                for i in range(first, int(self.g[e.G_NEVENTS]))]

    @property
    def seat(self) -> int:
        """The seat whose turn is next."""
        from sim.games.rummikub import engine as e

        return int(self.g[e.G_TURNS]) % self.rules.players

    def view(self, p: int):
        """What seat ``p`` knows now (:class:`sim.games.rummikub.view.View`)."""
        from sim.games.rummikub.view import seat_view

        return seat_view(p, self.racks, self.table, self.ps, self.g, self.engine.rp)

