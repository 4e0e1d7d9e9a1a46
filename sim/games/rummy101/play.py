"""Python face of the round engine: rules and policies as the kernels' integer arrays,
chunks of rounds as arrays, and single traced rounds."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.deal import round_deck
from sim.errors import RulesError
from sim.games.family import policy_codes as seat_codes
from sim.games.family import policy_tune, seat_tune
from sim.games.rummy101 import EXPERT_PARAMS, FAMILY, POLICIES, SEARCH_PLAY, core
from sim.games.rummy101 import engine as rnd
from sim.games.rummy101.bots import SEARCH
from sim.jit import prepare
from sim.rules import Rules
from sim.solver.arrays import solver_arrays


def rules_params(rules: Rules, duplicate: bool = False) -> np.ndarray:
    """The rules as the engine's integer array (``core.RP_*``); ``duplicate``: deals played
    once per seat rotation (``sim run --duplicate``)."""
    if rules.family != "rummy101":
        raise RulesError(f"the round engine plays Rummy 101 with tiles; {rules.name} is {rules.family}")
    rp = np.zeros(core.RP_LEN, dtype=np.int64)
    rp[core.RP_PLAYERS] = rules.players
    rp[core.RP_RACK] = rules.rack_size
    rp[core.RP_STARTER_EXTRA] = rules.starter_extra
    rp[core.RP_SET_JOKERS] = rules.jokers
    rp[core.RP_OPEN_POINTS] = rules.open_points
    rp[core.RP_OPEN_PAIRS] = rules.open_pairs
    rp[core.RP_INCREASING] = rules.threshold_mode == "increasing"
    rp[core.RP_BUTTON] = rules.button_jokers
    rp[core.RP_KEEP] = rules.keep_discard
    rp[core.RP_WIN] = rules.win_points
    rp[core.RP_UNOPENED] = rules.unopened_penalty
    rp[core.RP_PAIRS_FACTOR] = rules.pairs_penalty_factor
    rp[core.RP_FINISH_FACTOR] = rules.finish_factor
    rp[core.RP_ONE_TURN_PENALTY] = rules.one_turn_penalty
    rp[core.RP_JOKER_PENALTY] = rules.joker_penalty
    rp[core.RP_STARTER_MAY_OPEN] = rules.starter_may_open
    rp[core.RP_DUPLICATE] = rules.players if duplicate else 0
    return rp


def policy_codes(policies: list[str] | tuple[str, ...], players: int) -> np.ndarray:
    """Policy names per seat as codes; one name is used for every seat."""
    return seat_codes(policies, players, POLICIES)


def seat_budgets(policies: list[str] | tuple[str, ...], players: int,
                 tune: np.ndarray | None = None) -> np.ndarray | None:
    """``tune`` with each seat's search budget from its policy name (``search:32``)."""
    return policy_tune(EXPERT_PARAMS, policies, players, POLICIES, tune)


def _play(rules: Rules, seed: int, start: int, count: int, policies: np.ndarray, tune: np.ndarray | None,
          deck: np.ndarray, events: np.ndarray, trace: bool, duplicate: bool = False, progress: bool = False):
    """Play rounds into fresh output arrays: the engine's ``play_rounds``, or the search's
    ``search_rounds`` when a seat searches (compiled then, :data:`SEARCH_PLAY`); returns
    ``(round space, rounds, players)``."""
    prepare(FAMILY.workload, progress)
    rp = rules_params(rules, duplicate)
    S = solver_arrays(rules.group_of_three_max_jokers)
    rs = rnd.new_round_space(S[7].shape[0], rules.players, rules.jokers, seat_tune(EXPERT_PARAMS, rules.players, tune))
    out_r = np.zeros((count, rnd.R_LEN), dtype=np.int64)
    out_p = np.zeros((count, rules.players, rnd.P_LEN), dtype=np.int64)
    if (policies >= SEARCH).any():
        prepare(FAMILY.other_workload(SEARCH_PLAY), progress)
        from sim.games.rummy101 import search

        sp = search.new_search_space(rules.players, rs[7].shape[0], core.G_LEN)
        search.search_rounds(seed, start, count, rp, policies, S, rs, sp, deck, events, trace, out_r, out_p)
    else:
        rnd.play_rounds(seed, start, count, rp, policies, S, rs, deck, events, trace, out_r, out_p)
    return rs, out_r, out_p


@dataclass(frozen=True)
class ChunkResult:
    rounds: np.ndarray  # (count, R_LEN)
    players: np.ndarray  # (count, players, P_LEN)


_NO_DECK = np.zeros(0, dtype=np.int64)
_NO_EVENTS = np.zeros((1, core.EV_FIELDS), dtype=np.int64)


def play_chunk(rules: Rules, seed: int, start: int, count: int, policies: np.ndarray,
               progress: bool = False, duplicate: bool = False, tune: np.ndarray | None = None) -> ChunkResult:
    """Rounds ``start .. start+count-1`` of ``seed`` (same rounds whatever the chunking).
    ``progress``: show a progress bar if the engine must be compiled first;
    ``duplicate``: deals played once per seat rotation; ``tune``: the expert's constants
    per seat (:func:`sim.games.family.expert_tune`; None: the defaults)."""
    _, out_r, out_p = _play(rules, seed, start, count, policies, tune, _NO_DECK, _NO_EVENTS, False, duplicate,
                            progress)
    return ChunkResult(out_r, out_p)


@dataclass(frozen=True)
class TracedRound:
    """One round with every action: ``events`` rows ``(type, player, turn, a..g)``."""

    rules: Rules
    deck: np.ndarray
    events: np.ndarray
    table: np.ndarray
    racks: np.ndarray
    players: np.ndarray
    counters: np.ndarray


def trace_round(rules: Rules, seed: int, round_id: int, policies: np.ndarray,
                deck: np.ndarray | None = None, duplicate: bool = False,
                tune: np.ndarray | None = None) -> TracedRound:
    """Play one round with the trace on: round ``round_id`` of ``seed`` (of a duplicate
    run with ``duplicate``), or a given tile order ``deck`` (for scenario tests)."""
    if deck is None:
        deck = round_deck(seed, round_id, rules.jokers, rules.players if duplicate else 0, rules.rack_size,
                          rules.starter_extra)
    deck = np.ascontiguousarray(deck, dtype=np.int64)
    events = np.zeros((core.MAX_EVENTS, core.EV_FIELDS), dtype=np.int64)
    rs, _, _ = _play(rules, seed, round_id, 1, policies, tune, deck, events, True)
    racks, table, ps, g, *_ = rs
    n = int(g[core.G_NEVENTS])
    return TracedRound(rules, deck.copy(), events[:n].copy(), table[: g[core.G_NTABLE]].copy(),
                       racks.copy(), ps.copy(), g.copy())
