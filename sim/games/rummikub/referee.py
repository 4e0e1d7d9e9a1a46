"""The Rummikub referee, in plain Python and written apart from the solver and the engine.

:func:`referee` replays a JSON trace (:mod:`.trace`, README "JSON traces") and checks
every turn: whose turn it is, the bar in force (K-OPEN-1, ``easing_open``), an opening
made of valid melds from the rack only (K-OPEN-2), a table play that keeps every table
tile and places at least one rack tile (K-PLAY-1, K-JOKER-1/2, ``locked_jokers``), draws
from the right place in the pool, passes only with the pool empty, the end (K-END-1,
K-END-2, ``last_call``) and every score. :func:`check_opening` and
:func:`check_table_play` check one turn. Every check returns the violations it finds,
one line each naming the rule; an empty list is a legal round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

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


def referee(trace: dict) -> list[str]:
    """Every violation of RULES.md section K in a JSON trace of a round; empty if none."""
    rules = Rules.from_dict(trace["rules"])
    n = rules.players
    out: list[str] = []
    deal = trace["deal"]
    racks = [Counter(r) for r in deal["racks"]]
    pool = list(deal["pool"])
    if len(racks) != n or any(len(r) != rules.rack_size for r in deal["racks"]):
        out.append(f"the deal is not {n} racks of {rules.rack_size} tiles (K-SET-1)")
    if sum(racks, Counter()) + Counter(pool) != _full_set(rules):
        out.append("the deal and the pool are not the whole set of tiles (K-SET-1)")
    table: list[Meld] = []
    opened = [False] * n
    turns = [0] * n
    drawn = passes = 0
    calls_left = None  # last_call: turns left once the pool is empty
    due = None  # the end the last turn brought
    seat = 0  # K-SET-1: seat 0 starts
    finish = None
    for i, e in enumerate(trace["events"]):
        where = f"event {i} (seat {e.get('seat')}, turn {e.get('turn')}, {e.get('action')})"
        if finish is not None:
            out.append(f"{where}: after the end of the round")
            break
        if e["action"] == "end":
            finish = e.get("finish")
            if finish != due:
                out.append(f"{where}: the round ends as {finish!r}, the rules say {due or 'it goes on'}")
            continue
        if due is not None:
            out.append(f"{where}: the round should have ended ({due})")
            due = None
        if e["seat"] != seat:
            out.append(f"{where}: out of turn, seat {seat} was to play")
        p = e["seat"] % n
        turns[p] += 1
        if e["turn"] != turns[p]:
            out.append(f"{where}: it is the player's turn {turns[p]}")
        calls_before = calls_left
        action = e["action"]
        if action == "draw":
            if drawn >= len(pool):
                out.append(f"{where}: draws from an empty pool (K-PLAY-1)")
            elif e["tile"] != pool[drawn]:
                out.append(f"{where}: draws {e['tile']}, the pool's next tile is {pool[drawn]}")
            if drawn < len(pool):
                racks[p][pool[drawn]] += 1
                drawn += 1
                if drawn == len(pool) and rules.last_call:
                    calls_left = n
        elif action == "pass":
            if drawn < len(pool):
                out.append(f"{where}: passes with {len(pool) - drawn} tiles in the pool (K-OPEN-1, K-PLAY-1: draw)")
            passes += 1
            if passes >= n and not rules.last_call:
                due = "blocked"  # K-END-2
        elif action in ("open", "play"):
            passes = 0
            melds = [parse_meld(" ".join(m)) for m in e["melds" if action == "open" else "table"]]
            if action == "open":
                bar = bar_in_force(rules, turns[p])
                if opened[p]:
                    out.append(f"{where}: opens a second time")
                out += [f"{where}: {v}" for v in check_opening(racks[p], melds, bar, rules)]
                if e.get("bar") != bar or e.get("value") != sum(m.value for m in melds):
                    out.append(f"{where}: says value {e.get('value')} and bar {e.get('bar')}; the melds are worth "
                               f"{sum(m.value for m in melds)} and the bar in force is {bar}")
                placed = _tiles(melds)
                table = table + melds
                opened[p] = True
            else:
                if not opened[p]:
                    out.append(f"{where}: plays on the table before opening (K-OPEN-1)")
                out += [f"{where}: {v}" for v in check_table_play(table, racks[p], melds, rules)]
                placed = _tiles(melds) - _tiles(table)
                if Counter(e.get("placed", [])) != placed:
                    out.append(f"{where}: says it placed {' '.join(e.get('placed', []))}; the table gained "
                               f"{' '.join(sorted(placed.elements()))}")
                if e.get("value") != _points(placed, rules):
                    out.append(f"{where}: says value {e.get('value')}, the tiles placed are worth "
                               f"{_points(placed, rules)} (a joker at {rules.joker_penalty})")
                table = melds
            racks[p] -= placed
            if not racks[p]:
                due = "out"  # K-END-1
        else:
            out.append(f"{where}: unknown action")
        if calls_before is not None and due != "out":
            calls_left -= 1
            if calls_left == 0:
                due = "last_call"
        seat = (p + 1) % n
    if finish is None:
        out.append("the trace has no end event")
        return out
    res = trace["result"]
    if res.get("finish") != finish:
        out.append(f"result: finish {res.get('finish')!r}, the end event says {finish!r}")
    for p in range(n):
        if Counter(res["racks"][p]) != racks[p]:
            out.append(f"result: seat {p} holds {' '.join(sorted(racks[p].elements()))}, not "
                       f"{' '.join(res['racks'][p])}")
    winners, scores = expected_scores(racks, finish, rules)
    if res.get("winners") != winners:
        out.append(f"result: winners {res.get('winners')}, the racks say {winners} (K-END-1/2)")
    for p, (got, want) in enumerate(zip(res["scores"], scores, strict=True)):
        if abs(got - float(want)) > 1e-5:
            out.append(f"result: seat {p} scores {got}, the rules give {float(want):.4f} "
                       f"({'K-END-1' if finish == 'out' else 'K-END-2'})")
    return out
