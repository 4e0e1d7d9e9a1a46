"""The Rummikub referee, in plain Python and written apart from the solver and the engine.

:func:`referee` replays a JSON trace (:mod:`.trace`, README "JSON traces") and checks
every turn: whose turn it is, the bar in force (K-OPEN-1, ``easing_open``), an opening
made of valid melds from the rack only (K-OPEN-2), a table play that keeps every table
tile and places at least one rack tile (K-PLAY-1, K-JOKER-1/2, ``locked_jokers``), with
``joker_moves=bound`` every table joker still standing for its tile unless the play freed
it with a tile placed that turn (K-JOKER-2), draws from the right place in the pool (a
player may always draw instead of playing, K-PLAY-1), passes only with the pool empty,
the end (K-END-1, K-END-2; ``last_call``: one more turn each from the player after the
one who drew the last tile, that player last) and every score. :func:`check_opening` and
:func:`check_table_play` check one turn. Every check returns the violations it finds,
one line each naming the rule; an empty list is a legal round.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from sim.games.rummikub.rules import RummikubRules
from sim.melds import check_meld
from sim.rules import Rules
from sim.tiles import KINDS, Meld, number_of, parse_meld, parse_tile, tile_name

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


def check_table_play(before: Sequence[Meld], rack: Counter, after: Sequence[Meld], rules: Rules,
                     freed: Sequence[tuple[str, str]] | None = None) -> list[str]:
    """A table play after opening (K-PLAY-1): the table afterwards is made of valid melds,
    holds every tile it held (K-JOKER-2: jokers included) and at least one rack tile, all
    from the rack. ``freed``: the jokers the play says it freed, each as (the tile it
    stood for, the rack tile that freed it). With ``joker_moves=bound`` every other joker
    still stands for its tile, and each freeing is by a tile placed that turn that frees
    it (K-JOKER-1/2); with ``locked_jokers`` a meld holding a joker is left as it was, or
    its joker is replaced by the exact tile it stands for and goes into another meld."""
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
    freed = list(freed or [])
    if rules.joker_moves == "bound":
        out += _check_bound(before, after, played, freed)
    elif freed and not rules.locked_jokers:
        out.append("jokers freed with joker_moves=free, where table jokers are not bound (K-JOKER-2)")
    if rules.locked_jokers:
        out += _check_locked(before, after, rules, freed)
    return out


def _frees(meld: Meld, k: int) -> set[str]:
    """The tiles that free the joker standing for ``k`` in ``meld`` (K-JOKER-2): its tile, and
    for a group of three the colours the group lacks."""
    from sim.tiles import colour_of, kind

    names = {tile_name(k)}
    if meld.kind == "set" and len(meld) == 3:
        present = {colour_of(x) for x in meld.tiles}
        names |= {tile_name(kind(c, number_of(k))) for c in range(4) if c not in present}
    return names


def _check_bound(before: Sequence[Meld], after: Sequence[Meld], played: Counter,
                 freed: list[tuple[str, str]]) -> list[str]:
    """K-JOKER-2 with ``joker_moves=bound``: each freeing names a bound joker and a tile
    placed this turn that frees it, one tile a joker; every joker not freed still stands
    for its tile at the end of the turn (the freed ones are on the table: every table tile
    stays, checked by the caller)."""
    out = []
    jokers = [(m, k) for m in before for k, j in zip(m.tiles, m.jokers, strict=True) if j]
    kept = Counter(tile_name(k) for _, k in jokers)
    by = Counter(u for _, u in freed)
    if by - played:
        out.append(f"jokers freed by tiles not placed this turn: {' '.join(sorted((by - played).elements()))} "
                   "(K-JOKER-1: one rack tile frees one joker)")
    left = list(jokers)
    for t, u in freed:
        match = next((i for i, (m, k) in enumerate(left) if tile_name(k) == t and u in _frees(m, k)), None)
        if match is None:
            out.append(f"J({t}) freed by {u}: no joker on the table standing for {t} that {u} frees (K-JOKER-1/2)")
            continue
        kept[t] -= 1
        left.pop(match)
    now = Counter(tile_name(k) for m in after for k, j in zip(m.tiles, m.jokers, strict=True) if j)
    moved = +kept - now
    if moved:
        names = " ".join(f"J({t})" for t in sorted(moved.elements()))
        out.append(f"bound jokers no longer stand for their tiles: {names} (K-JOKER-2: a joker changes only "
                   "when freed by a rack tile)")
    return out


def _check_locked(before: Sequence[Meld], after: Sequence[Meld], rules: Rules,
                  freed: list[tuple[str, str]]) -> list[str]:
    """K-VAR ``locked_jokers`` with K-JOKER-1: each meld that held a joker is still on the
    table as it was, or with jokers replaced by the exact tiles they stood for. With
    ``joker_moves=bound`` a meld whose jokers were all freed (``freed``) is an ordinary
    meld again, and one partly freed holds the freeing tile in the freed joker's place
    (K-JOKER-2); a freeing that could be of either of two melds is read the way that
    keeps the rules, if there is one."""
    if rules.joker_moves != "bound" or not freed:
        return _locked_faults(before, after, {})
    spots = [(i, k) for i, m in enumerate(before) for k, j in zip(m.tiles, m.jokers, strict=True) if j]
    options = [[s for s in spots if tile_name(s[1]) == t and u in _frees(before[s[0]], s[1])] for t, u in freed]
    first = None
    for choice in itertools.product(*options):
        if len(set(choice)) < len(choice):
            continue  # one joker freed twice
        faults = _locked_faults(before, after, {s: parse_tile(u) for s, (_, u) in zip(choice, freed, strict=True)})
        if not faults:
            return []
        first = first if first is not None else faults
    return first if first is not None else _locked_faults(before, after, {})


def _locked_faults(before: Sequence[Meld], after: Sequence[Meld], by: dict[tuple[int, int], int]) -> list[str]:
    """:func:`_check_locked` for one reading of the freeings: ``by`` maps a joker (its
    meld's index in ``before`` and its tile) to the tile that freed it (bound jokers)."""
    out = []
    remaining = list(after)
    released = 0
    for i, meld in enumerate(before):
        if not any(meld.jokers):
            continue
        expected = meld
        mine = [k for k, j in zip(meld.tiles, meld.jokers, strict=True) if j]
        hits = {k: by[(i, k)] for k in mine if (i, k) in by}
        if hits and len(hits) == len(mine):  # every joker freed: the meld may be rearranged
            released += len(mine)
            continue
        if hits:  # some freed: each in its place the tile that freed it
            cells = [(hits[k], False) if j and k in hits else (k, j)
                     for k, j in zip(meld.tiles, meld.jokers, strict=True)]
            if meld.kind == "set":
                cells.sort()
            expected = Meld(meld.kind, tuple(k for k, _ in cells), tuple(j for _, j in cells))
        match = next((m for m in remaining if m.kind == expected.kind and m.tiles == expected.tiles
                      and all(j or not jm for j, jm in zip(expected.jokers, m.jokers, strict=True))), None)
        if match is None:
            out.append(f"the locked meld {meld} was changed (K-VAR locked_jokers: only its joker may be "
                       "retrieved, by the exact tile, K-JOKER-1)")
            continue
        remaining.remove(match)
        released += sum(meld.jokers) - sum(match.jokers)
    if released and sum(m.joker_count for m in remaining) < released:
        out.append("a retrieved joker is not in another meld on the table (K-JOKER-1)")
    return out


# --- whole rounds ---------------------------------------------------------------------------


def bar_in_force(rules: Rules, turn: int) -> int:
    """The opening bar on a player's own ``turn`` (K-OPEN-1; K-VAR ``easing_open``: less
    ``easing_step`` after every ``easing_every`` turns without opening, never below
    ``easing_floor``)."""
    bar = rules.open_points
    if not rules.easing_open:
        return bar
    return max(bar - rules.easing_step * ((turn - 1) // rules.easing_every), min(bar, rules.easing_floor))


def _points(tiles: Counter, rules: Rules) -> int:
    """K-END-1: a tile counts its number, a joker the joker penalty in force."""
    return sum(n * (rules.joker_penalty if t == JOKER_TOKEN else number_of(parse_tile(t))) for t, n in tiles.items())


def _full_set(rules: Rules) -> Counter:
    full = Counter({tile_name(k): 2 for k in range(KINDS)})
    if rules.jokers:
        full[JOKER_TOKEN] = rules.jokers
    return full


def expected_scores(racks: list[Counter], finish: str, rules: Rules) -> tuple[list[int], list[Fraction]]:
    """Winners and scores from the racks at the end: K-END-1 (``out``: the emptied rack
    wins the sum of the others' racks) or K-END-2 (the lowest rack wins the differences,
    tied lowest racks sharing them)."""
    values = [_points(r, rules) for r in racks]
    low = 0 if finish == "out" else min(values)
    winners = [p for p, v in enumerate(values) if v == low]
    gain = sum(v - low for v in values)
    scores = [Fraction(gain, len(winners)) if p in winners else Fraction(low - v) for p, v in enumerate(values)]
    return winners, scores


@dataclass
class _Round:
    """What the referee knows as it replays a round: the racks, the pool and how much of it
    was drawn, the table, who has opened, each seat's turns, the passes in a row, the
    last-call turns left, the end the last turn brought (``due``) and the violations."""

    rules: RummikubRules
    racks: list[Counter]
    pool: list[str]
    table: list[Meld] = field(default_factory=list)
    opened: list[bool] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    drawn: int = 0
    passes: int = 0
    calls_left: int | None = None  # last_call: turns left once the pool is empty
    due: str | None = None
    seat: int = 0  # K-SET-1: seat 0 starts
    finish: str | None = None
    out: list[str] = field(default_factory=list)

    @property
    def players(self) -> int:
        return self.rules.players


def _deal(trace: dict, rules: RummikubRules) -> _Round:
    """The dealt racks and the pool (K-SET-1), checked against the whole set."""
    n = rules.players
    deal = trace["deal"]
    r = _Round(rules, [Counter(t) for t in deal["racks"]], list(deal["pool"]), opened=[False] * n, turns=[0] * n)
    if len(r.racks) != n or any(len(t) != rules.rack_size for t in deal["racks"]):
        r.out.append(f"the deal is not {n} racks of {rules.rack_size} tiles (K-SET-1)")
    if sum(r.racks, Counter()) + Counter(r.pool) != _full_set(rules):
        r.out.append("the deal and the pool are not the whole set of tiles (K-SET-1)")
    return r


def _draw(r: _Round, p: int, e: dict, where: str) -> None:
    """K-PLAY-1: the pool's next tile, at any time the pool holds one."""
    if r.drawn >= len(r.pool):
        r.out.append(f"{where}: draws from an empty pool (K-PLAY-1)")
        return
    if e["tile"] != r.pool[r.drawn]:
        r.out.append(f"{where}: draws {e['tile']}, the pool's next tile is {r.pool[r.drawn]}")
    r.racks[p][r.pool[r.drawn]] += 1
    r.drawn += 1
    if r.drawn == len(r.pool) and r.rules.last_call:
        r.calls_left = r.players


def _pass(r: _Round, p: int, e: dict, where: str) -> None:
    """Only with the pool empty; every player passing in a row blocks the round (K-END-2)."""
    if r.drawn < len(r.pool):
        r.out.append(f"{where}: passes with {len(r.pool) - r.drawn} tiles in the pool (K-OPEN-1, K-PLAY-1: draw)")
    r.passes += 1
    if r.passes >= r.players and not r.rules.last_call:
        r.due = "blocked"  # K-END-2


def _open(r: _Round, p: int, e: dict, where: str) -> Counter:
    """K-OPEN-1/2: valid melds from the rack worth the bar in force; returns the tiles placed."""
    melds = [parse_meld(" ".join(m)) for m in e["melds"]]
    bar = bar_in_force(r.rules, r.turns[p])
    if r.opened[p]:
        r.out.append(f"{where}: opens a second time")
    r.out += [f"{where}: {v}" for v in check_opening(r.racks[p], melds, bar, r.rules)]
    if e.get("bar") != bar or e.get("value") != sum(m.value for m in melds):
        r.out.append(f"{where}: says value {e.get('value')} and bar {e.get('bar')}; the melds are worth "
                     f"{sum(m.value for m in melds)} and the bar in force is {bar}")
    r.table = r.table + melds
    r.opened[p] = True
    return _tiles(melds)


def _play(r: _Round, p: int, e: dict, where: str) -> Counter:
    """K-PLAY-1, K-JOKER-1/2: the table rebuilt keeping every tile, with rack tiles added;
    returns the tiles placed."""
    melds = [parse_meld(" ".join(m)) for m in e["table"]]
    if not r.opened[p]:
        r.out.append(f"{where}: plays on the table before opening (K-OPEN-1)")
    freed = [(f["joker"][2:-1], f["by"]) for f in e.get("freed", [])]
    r.out += [f"{where}: {v}" for v in check_table_play(r.table, r.racks[p], melds, r.rules, freed)]
    placed = _tiles(melds) - _tiles(r.table)
    if Counter(e.get("placed", [])) != placed:
        r.out.append(f"{where}: says it placed {' '.join(e.get('placed', []))}; the table gained "
                     f"{' '.join(sorted(placed.elements()))}")
    if e.get("value") != _points(placed, r.rules):
        r.out.append(f"{where}: says value {e.get('value')}, the tiles placed are worth "
                     f"{_points(placed, r.rules)} (a joker at {r.rules.joker_penalty})")
    r.table = melds
    return placed


def _turn(r: _Round, i: int, e: dict) -> None:
    """One event of a turn: whose turn and which, then its action's handler, then the end it brings."""
    where = f"event {i} (seat {e.get('seat')}, turn {e.get('turn')}, {e.get('action')})"
    if r.due is not None:
        r.out.append(f"{where}: the round should have ended ({r.due})")
        r.due = None
    if e["seat"] != r.seat:
        r.out.append(f"{where}: out of turn, seat {r.seat} was to play")
    p = e["seat"] % r.players
    r.turns[p] += 1
    if e["turn"] != r.turns[p]:
        r.out.append(f"{where}: it is the player's turn {r.turns[p]}")
    calls_before = r.calls_left
    action = e["action"]
    if action == "draw":
        _draw(r, p, e, where)
    elif action == "pass":
        _pass(r, p, e, where)
    elif action in ("open", "play"):
        r.passes = 0
        r.racks[p] -= (_open if action == "open" else _play)(r, p, e, where)
        if not r.racks[p]:
            r.due = "out"  # K-END-1
    else:
        r.out.append(f"{where}: unknown action")
    if calls_before is not None and r.due != "out":
        r.calls_left -= 1
        if r.calls_left == 0:
            r.due = "last_call"
    r.seat = (p + 1) % r.players


def _result(r: _Round, res: dict) -> None:
    """The racks left, the winners and every score (K-END-1/2)."""
    if res.get("finish") != r.finish:
        r.out.append(f"result: finish {res.get('finish')!r}, the end event says {r.finish!r}")
    for p in range(r.players):
        if Counter(res["racks"][p]) != r.racks[p]:
            r.out.append(f"result: seat {p} holds {' '.join(sorted(r.racks[p].elements()))}, not "
                         f"{' '.join(res['racks'][p])}")
    winners, scores = expected_scores(r.racks, r.finish, r.rules)
    if res.get("winners") != winners:
        r.out.append(f"result: winners {res.get('winners')}, the racks say {winners} (K-END-1/2)")
    for p, (got, want) in enumerate(zip(res["scores"], scores, strict=True)):
        if abs(got - float(want)) > 1e-5:
            r.out.append(f"result: seat {p} scores {got}, the rules give {float(want):.4f} "
                         f"({'K-END-1' if r.finish == 'out' else 'K-END-2'})")


def referee(trace: dict) -> list[str]:
    """Every violation of docs/rules.md section K in a JSON trace of a round; empty if none."""
    r = _deal(trace, RummikubRules.from_dict(trace["rules"]))
    for i, e in enumerate(trace["events"]):
        if r.finish is not None:
            r.out.append(f"event {i} (seat {e.get('seat')}, turn {e.get('turn')}, {e.get('action')}): "
                         "after the end of the round")
            break
        if e["action"] == "end":
            r.finish = e.get("finish")
            if r.finish != r.due:
                r.out.append(f"event {i} (seat {e.get('seat')}, turn {e.get('turn')}, end): the round ends as "
                             f"{r.finish!r}, the rules say {r.due or 'it goes on'}")
            continue
        _turn(r, i, e)
    if r.finish is None:
        r.out.append("the trace has no end event")
        return r.out
    _result(r, trace["result"])
    return r.out
