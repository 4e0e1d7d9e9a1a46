"""The opening solver's public face: :func:`best_opening` for one rack, with the melds that
reach it, and :func:`opening_values` / :func:`evaluate_racks` for batches on the hot path.

These functions validate their input, pick the arrays for the rules in force and hand
over to the jit-compiled search in :mod:`sim.solver.kernel`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from sim.errors import NotationError, RulesError
from sim.games import DEFAULT_PRESET, resolve_rules
from sim.jit import Workload, prepare
from sim.rules import Rules, TileRules
from sim.solver import batch, kernel, layout, runs, sets
from sim.tiles import (
    COUNTS_LEN,
    JOKER,
    KINDS,
    MAX_JOKERS,
    Meld,
    Rack,
    as_counts,
    colour_of,
    number_of,
    parse_tile,
    tile_name,
)

DIRECT_JOKERS = MAX_JOKERS  # the automaton used outside the table covers every rack

# What each entry point compiles (sim.jit): one rack with its melds, or batches of racks.
OPENING_WORKLOAD = Workload("the opening solver", ("sim.solver.runs", "sim.solver.kernel", "sim.solver.layout"))
BATCH_WORKLOAD = Workload("the batch opening solver", ("sim.solver.runs", "sim.solver.kernel", "sim.solver.batch"))


@dataclass(frozen=True)
class Opening:
    """The best opening a rack allows under the rules in force (T-OPEN, K-OPEN-1).

    ``value`` is the largest total of disjoint runs and sets (T-VAL-1), keeping a tile for
    the discard where the game has one (T-OPEN-4), with ``melds`` reaching it; ``pairs``
    is the most pairs (T-MELD-3) under the same condition. With ``must_use``, both count
    only lay-downs holding that tile (T-TAKE-2); ``value`` is 0 when none does.
    """

    value: int
    melds: tuple[Meld, ...]
    pairs: int
    pair_melds: tuple[Meld, ...]
    can_open_melds: bool
    can_open_pairs: bool
    left: Rack
    rules_name: str = field(default=DEFAULT_PRESET)

    @property
    def can_open(self) -> bool:
        return self.can_open_melds or self.can_open_pairs

    @property
    def jokers(self) -> list[str]:
        """The tile each melded joker stands for, in meld order."""
        return [tile_name(k) for m in self.melds for k, j in zip(m.tiles, m.jokers, strict=True) if j]

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "melds": [str(m) for m in self.melds],
            "jokers": self.jokers,
            "pairs": self.pairs,
            "pair_melds": [str(m) for m in self.pair_melds],
            "can_open": self.can_open,
            "can_open_melds": self.can_open_melds,
            "can_open_pairs": self.can_open_pairs,
            "left": str(self.left),
        }


@dataclass(frozen=True)
class _Arrays:
    g_ptr: np.ndarray
    g_use: np.ndarray
    g_jokers: np.ndarray
    g_tiles: np.ndarray
    g_from: np.ndarray
    g_minj: np.ndarray
    table: np.ndarray
    states: np.ndarray
    tptr: np.ndarray
    tto: np.ndarray
    tdj: np.ndarray
    tk: np.ndarray
    tnoend: np.ndarray

    def args(self) -> tuple:
        return (self.g_ptr, self.g_use, self.g_jokers, self.g_tiles, self.g_from, self.g_minj, self.table,
                self.states, self.tptr, self.tto, self.tdj, self.tk, self.tnoend)


@functools.cache
def _arrays(g3max: int) -> _Arrays:
    g = sets.set_options(g3max)
    a = runs.automaton(DIRECT_JOKERS)
    return _Arrays(g.ptr, g.use, g.jokers, g.tiles, g.from_number, g.min_jokers, runs.run_table(), a.states,
                   a.tptr, a.tto, a.tdj, a.tk, a.tnoend)


def max_jokers(rules: Rules) -> int:
    """Most jokers one rack can hold: the set's, plus every player's button joker (T-BTN-1)."""
    return min(MAX_JOKERS, rules.jokers + rules.button_jokers * rules.players)


def _solver_rules(rules: Rules | str | None) -> Rules:
    rules = resolve_rules(rules)
    if not isinstance(rules, TileRules):
        raise RulesError(
            f"the opening solver covers the games with tiles; {rules.name} is played with cards, "
            "which have no opening requirement (docs/rules.md, C)"
        )
    return rules


def _check_jokers(jokers: int, rules: Rules, where: str = "the rack") -> None:
    limit = max_jokers(rules)
    if jokers > limit:
        raise NotationError(
            f"{where} holds {jokers} jokers; under {rules.name} a rack holds at most {limit}"
        )


def best_opening(rack: Rack | str | np.ndarray, rules: Rules | str | None = None,
                 must_use: str | None = None) -> Opening:
    """The best opening of ``rack`` under ``rules`` (default ``rummy101``).

    >>> o = best_opening("R10 R11 R12 B11 K11 Y11 K12 Y12 B12 R13 K13 Y13 B5")
    >>> o.value, o.can_open
    (141, True)
    >>> best_opening("R7 R8 R9").value  # T-OPEN-4: a tile must stay for the discard
    0
    """
    rules = _solver_rules(rules)
    counts = as_counts(rack)
    if not counts.any():
        raise NotationError("the rack is empty: give its tiles, e.g. R7 R8 R9 K12 B12 Y12 J")
    _check_jokers(int(counts[JOKER]), rules)
    forced = -1
    if must_use is not None:
        forced = parse_tile(must_use)
        if forced == JOKER:
            raise NotationError("must_use takes a numbered tile (the discard taken), not a joker")
        if counts[forced] == 0:
            raise NotationError(
                f"must_use tile {tile_name(forced)} is not in the rack; the rack must include "
                "the discard taken (T-TAKE-2)"
            )
    prepare(OPENING_WORKLOAD)
    arrays = _arrays(rules.group_of_three_max_jokers)
    keep, cyclic = rules.keep_discard, rules.wrap_runs
    work = counts.copy()
    space = kernel.new_space(arrays.states.shape[0])
    score, aside = kernel.best_score(work, forced, keep, cyclic, *arrays.args(), space)
    pairs = int(kernel.most_pairs(counts, forced, keep))
    pair_melds = _pair_melds(counts, pairs, forced)
    if score <= kernel.NEG // 2:
        value, melds = 0, ()
    else:
        if aside >= 0:
            work[aside] -= 1
        leaf = np.full(kernel.LEAF_LEN, -1, dtype=np.int64)
        again = kernel.search(work, forced, cyclic, *arrays.args(), True, leaf, space)
        if again != score:
            raise AssertionError(f"solver replay disagrees: {again} != {score}")
        melds = _melds_from_leaf(work, leaf, rules, forced)
        value = int(kernel.value_of(score))
        if sum(m.value for m in melds) != value:
            raise AssertionError(f"rebuilt melds {melds} do not add up to {value}")
    left = counts.copy()
    for m in melds:
        for k, j in zip(m.tiles, m.jokers, strict=True):
            left[JOKER if j else k] -= 1
    return Opening(
        value=value,
        melds=melds,
        pairs=pairs,
        pair_melds=pair_melds,
        can_open_melds=value > 0 and value >= rules.open_points,
        can_open_pairs=rules.has_pairs_opening and pairs >= rules.open_pairs,
        left=Rack(tuple(int(x) for x in left)),
        rules_name=rules.name,
    )


def _melds_from_leaf(counts: np.ndarray, leaf: np.ndarray, rules: Rules, forced: int) -> tuple[Meld, ...]:
    g = sets.set_options(rules.group_of_three_max_jokers)
    a = runs.automaton(DIRECT_JOKERS)
    rows = np.zeros((layout.MAX_LAID, layout.MELD_FIELDS), dtype=np.int64)
    count = layout.lay_out(counts, leaf, forced, rules.wrap_runs, g.nsets, g.set_colours,
                           g.set_jokers, *a.arrays(), *a.moves(), runs.run_table(),
                           runs.new_run_space(a.states.shape[0]), rows)
    return tuple(layout.to_meld(r) for r in rows[:count])


def _pair_melds(counts: np.ndarray, pairs: int, forced: int) -> tuple[Meld, ...]:
    """One way to lay down ``pairs`` pairs, the forced tile among them."""
    out: list[Meld] = []
    order = sorted(range(KINDS), key=lambda k: (k != forced, number_of(k), colour_of(k)))
    for k in order:
        for _ in range(int(counts[k]) // 2):
            out.append(Meld("pair", (k, k), (False, False)))
    jokers = int(counts[JOKER])
    for k in order:
        if jokers and counts[k] % 2 == 1:
            out.append(Meld("pair", (k, k), (False, True)))
            jokers -= 1
    for i, m in enumerate(list(out)):
        if jokers >= 2 and not any(m.jokers):  # split R5 R5 into R5 J(R5), R5 J(R5)
            out[i] = Meld("pair", m.tiles, (False, True))
            out.append(Meld("pair", m.tiles, (False, True)))
            jokers -= 2
    out.sort(key=lambda m: m.tiles[0] != forced)
    return tuple(out[:pairs])


def _check_batch(racks: np.ndarray, rules: Rules) -> np.ndarray:
    arr = np.asarray(racks)
    if arr.ndim != 2 or arr.shape[1] != COUNTS_LEN:
        raise NotationError(f"racks must be an (N, {COUNTS_LEN}) count array, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise NotationError(f"racks must hold integers, got dtype {arr.dtype}")
    bad = (arr[:, :KINDS] < 0).any(axis=1) | (arr[:, :KINDS] > 2).any(axis=1)
    bad |= (arr[:, JOKER] < 0) | (arr[:, JOKER] > max_jokers(rules))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise NotationError(
            f"rack {i} is not a possible rack: counts 0-2 per tile and at most "
            f"{max_jokers(rules)} jokers under {rules.name}"
        )
    return np.ascontiguousarray(arr, dtype=np.int8)


def evaluate_racks(racks: np.ndarray, rules: Rules | str | None = None) -> dict[str, np.ndarray]:
    """Best melds value and most pairs of every rack of an (N, 53) count array, in parallel.

    Returns arrays ``value`` (int16), ``pairs`` (int8) and ``can_open_melds``,
    ``can_open_pairs``, ``can_open`` (bool) against the rules' opening thresholds.
    """
    rules = _solver_rules(rules)
    arr = _check_batch(racks, rules)
    value = np.empty(arr.shape[0], dtype=np.int16)
    pairs = np.empty(arr.shape[0], dtype=np.int8)
    prepare(BATCH_WORKLOAD)
    batch.opening_values_kernel(arr, rules.keep_discard, rules.wrap_runs,
                                 *_arrays(rules.group_of_three_max_jokers).args(), value, pairs)
    return classify(value, pairs, rules)


def classify(value: np.ndarray, pairs: np.ndarray, rules: Rules) -> dict[str, np.ndarray]:
    """Opening flags from values and pairs under the rules' fixed-mode thresholds."""
    can_melds = (value > 0) & (value >= rules.open_points)
    can_pairs = (pairs >= rules.open_pairs) if rules.has_pairs_opening else np.zeros_like(can_melds)
    return {
        "value": value,
        "pairs": pairs,
        "can_open_melds": can_melds,
        "can_open_pairs": can_pairs,
        "can_open": can_melds | can_pairs,
    }


def opening_values(counts: np.ndarray, rules: Rules | str | None = None) -> np.ndarray:
    """Best melds value of every rack of ``counts`` (N, 53), keep-a-discard applied per the
    rules (T-OPEN-4), computed in parallel. Columns 0-51 are tile kinds
    ``colour * 13 + number - 1`` (colours R, B, K, Y), column 52 the jokers."""
    return evaluate_racks(counts, rules)["value"]
