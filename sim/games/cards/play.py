"""Python face of the card match engine (:mod:`.engine`): rules and policies as the
kernel's integer arrays, chunks of matches as arrays, and single traced matches."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.errors import PlayError, RulesError
from sim.games.cards import EXPERT_PARAMS, POLICIES
from sim.games.family import policy_codes as seat_codes
from sim.games.family import policy_tune, seat_tune
from sim.jit import prepare
from sim.rules import Rules


def rules_params(rules: Rules, duplicate: bool = False) -> np.ndarray:
    """The rules as the engine's integer array (``engine.RP_*``); ``duplicate``: every match
    played once per seat rotation of its deal (``sim run --duplicate``, :func:`.engine.deal_of`)."""
    from sim.games.cards import engine as e

    if rules.family != "rummy101-cards":
        raise RulesError(f"the card match engine plays card Rummy 101; {rules.name} is {rules.family}")
    rp = np.zeros(e.RP_LEN, dtype=np.int64)
    rp[e.RP_PLAYERS] = rules.players
    rp[e.RP_SIZE] = rules.deal_size()
    rp[e.RP_DECKS] = rules.decks
    rp[e.RP_TARGET] = rules.target
    rp[e.RP_PARTNERS] = rules.partners
    rp[e.RP_RUMMY] = rules.rummy_factor  # C-SCORE-2: going rummy doubles the hand
    rp[e.RP_RUMMY_LAYOFFS] = rules.rummy_layoffs  # C-SCORE-2: a one-turn out with lay-offs is rummy too
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
    matches: np.ndarray  # (count, M_LEN)
    hands: np.ndarray  # (hands, H_LEN), every match's hands in order
    players: np.ndarray  # (hands * players, P_LEN)


@dataclass(frozen=True)
class TracedMatch:
    """One match with every action: ``events`` rows (``EV_*``), each hand's row and its
    players' rows as in a chunk, each hand's cards in dealing order (``decks``) and the
    hands held at each hand's end (``ends``)."""

    rules: Rules
    match: np.ndarray
    hands: np.ndarray
    players: np.ndarray
    decks: np.ndarray
    events: np.ndarray
    ends: np.ndarray


def _workload():
    from sim.games.cards import FAMILY

    return FAMILY.workload


_NO_FIXED = np.zeros((0, 52), dtype=np.int64)


def _play(rules: Rules, seed: int, start: int, count: int, policies: np.ndarray, fixed: np.ndarray,
          trace: tuple | None, duplicate: bool = False,
          tune: np.ndarray | None = None) -> tuple[ChunkResult, np.ndarray]:
    """The chunk and the engine's counters (``G_*``: the trace's length)."""
    from sim.games.cards import engine as e

    rp = rules_params(rules, duplicate)
    players = rules.players
    tune = seat_tune(EXPERT_PARAMS, players, tune)
    out_m = np.zeros((count, e.M_LEN), dtype=np.int64)
    rows = max(64, count * (4 + rules.target // 25))  # about twice the hands a chunk needs
    out_h = np.zeros((rows, e.H_LEN), dtype=np.int64)
    out_p = np.zeros((rows * players, e.P_LEN), dtype=np.int64)
    cursor = np.zeros(1, dtype=np.int64)
    g = np.zeros(e.G_LEN, dtype=np.int64)
    ev, ends = trace if trace is not None else (np.zeros((1, e.EV_FIELDS), dtype=np.int64),
                                                np.zeros((1, players, 52), dtype=np.int64))
    play = e.play_matches
    if (policies >= e.POLICY_SEARCH).any():  # compiled the first time a seat searches
        from sim.games.cards import FAMILY, SEARCH_PLAY

        prepare(FAMILY.other_workload(SEARCH_PLAY))
        from sim.games.cards.search import search_matches as play
    done = 0
    while done < count:
        done += play(seed, start + done, count - done, rp, policies, fixed, tune, ev, ends, trace is not None, g,
                     out_m[done:], out_h, out_p, cursor)
        if done < count:  # the hand rows ran out: twice as many, and on from that match
            out_h = np.concatenate([out_h, np.zeros_like(out_h)])
            out_p = np.concatenate([out_p, np.zeros_like(out_p)])
    n = int(cursor[0])
    return ChunkResult(out_m, out_h[:n], out_p[:n * players]), g


def play_chunk(rules: Rules, seed: int, start: int, count: int, policies: np.ndarray,
               progress: bool = False, duplicate: bool = False, tune: np.ndarray | None = None) -> ChunkResult:
    """Matches ``start .. start+count-1`` of ``seed`` (the same matches whatever the
    chunking). ``progress``: show a progress bar if the engine must be compiled first;
    ``duplicate``: every match played once per seat rotation of its deal; ``tune``: the
    expert's constants per seat (:func:`sim.games.family.expert_tune`; None: the defaults)."""
    prepare(_workload(), progress)
    return _play(rules, seed, start, count, policies, _NO_FIXED, None, duplicate, tune)[0]


def trace_match(rules: Rules, seed: int, match_id: int, policies: np.ndarray,
                fixed: np.ndarray | None = None, duplicate: bool = False,
                tune: np.ndarray | None = None) -> TracedMatch:
    """Play one match with the trace on: match ``match_id`` of ``seed`` (of a duplicate run
    with ``duplicate``), its first hands dealt from the card orders ``fixed`` (rows of
    ``52 * decks`` cards, for scenario tests) while they last."""
    from sim.games.cards import engine as e

    prepare(_workload())
    fixed = _NO_FIXED if fixed is None else np.ascontiguousarray(fixed, dtype=np.int64).reshape(-1, 52 * rules.decks)
    ev = np.zeros((e.MAX_EVENTS, e.EV_FIELDS), dtype=np.int64)
    ends = np.zeros((e.MAX_TRACE_HANDS, rules.players, 52), dtype=np.int64)
    res, g = _play(rules, seed, match_id, 1, policies, fixed, (ev, ends), duplicate, tune)
    n_hands = res.hands.shape[0]
    if res.matches[0, e.M_ERROR]:
        raise e.match_error(int(res.matches[0, e.M_ERROR]), match_id, rules)
    if n_hands > e.MAX_TRACE_HANDS or g[e.G_ERROR] == e.ERR_TRACE:
        raise PlayError(f"match {match_id} has {n_hands:,} hands: more than a trace holds ({e.MAX_TRACE_HANDS:,} "
                        f"hands, {e.MAX_EVENTS:,} actions); play it without --trace")
    deal = match_id // rules.players if duplicate else match_id  # engine.deal_of
    decks = np.stack([fixed[h] if h < fixed.shape[0] else e.hand_deck(seed, deal, h, rules.decks)
                      for h in range(n_hands)])
    return TracedMatch(rules, res.matches[0], res.hands, res.players, decks, ev[:int(g[e.G_NEVENTS])].copy(),
                       ends[:n_hands].copy())
