"""A traced Rummikub round: as JSON for machines (the public trace format, README "JSON
traces", in the frame every family shares) and as text for people, every turn with the
rack, the table before and after and the rule that allows it.

The engine records a round as rows of integers (:mod:`.engine`, ``EV_*``);
:func:`round_json` turns them into the JSON trace, and everything else, the text trace
and the referee (:mod:`.referee`) included, reads that JSON only.
"""

from __future__ import annotations

import textwrap
from collections import Counter

from sim.games.rummikub import FINISHES, POLICIES
from sim.games.rummikub.referee import bar_in_force
from sim.games.rummikub.rules import RummikubRules
from sim.rules import Rules
from sim.tiles import Rack, number_of, parse_rack, parse_tile, tile_name

TRACE_VERSION = 1

_FINISH_TEXT = {
    "out": "the rack is empty: it wins at once (K-END-1)",
    "blocked": "the pool is empty and every player passed in turn (K-END-2)",
    "last_call": "every player had one more turn after the pool ran dry (K-VAR last_call, scored as K-END-2)",
}


def _names(counts) -> list[str]:
    return str(Rack(tuple(int(x) for x in counts))).split()


def _melds(rows) -> list[list[str]]:
    from sim.solver.layout import to_meld

    return [str(to_meld(row)).split() for row in rows]


def _freed(code: int) -> list[dict]:
    """The jokers a play freed (K-JOKER-1/2), from the engine's ``EV_FREED`` field: each the
    tile it stood for and the rack tile that freed it."""
    out = []
    while code:
        t, by = (code & 63) - 1, ((code >> 6) & 63) - 1
        out.append({"joker": f"J({tile_name(t)})", "by": tile_name(by)})
        code >>= 12
    return out


def score_value(twelfths: int) -> int | float:
    """A score kept in twelfths as JSON writes it: a whole number, or a fraction (K-END-2)
    rounded to 6 places."""
    return twelfths // 12 if twelfths % 12 == 0 else round(twelfths / 12, 6)


def round_json(t, seed: int | None, round_id: int | None) -> dict:
    """The JSON trace of a round traced by :func:`.play.trace_round`."""
    from sim.games.rummikub import engine as e

    rules = t.rules
    players = rules.players
    deck = [tile_name(int(k)) for k in t.deck]
    size = rules.rack_size
    racks = [deck[p * size:(p + 1) * size] for p in range(players)]
    events: list[dict] = []
    for i, row in enumerate(t.events):
        kind, p, turn, tile, value, bar, n, freed = (int(x) for x in row)
        ev: dict = {"seat": p, "turn": turn}
        if kind == e.EV_DRAW:
            ev.update(action="draw", tile=tile_name(tile))
        elif kind == e.EV_OPEN:
            ev.update(action="open", melds=_melds(t.rows[i, :n]), value=value, bar=bar)
        elif kind == e.EV_PLAY:
            ev.update(action="play", placed=_names(t.placed[i]), value=value, table=_melds(t.rows[i, :n]),
                      freed=_freed(freed))
        elif kind == e.EV_PASS:
            ev.update(action="pass")
        else:
            ev.update(action="end", finish=FINISHES[value])
        events.append(ev)
    mask = int(t.counters[e.G_WINNERS])
    return {
        "family": "rummikub",
        "version": TRACE_VERSION,
        "rules": rules.to_dict(),
        "seed": seed,
        "round_id": round_id,
        "players": players,
        "policies": [POLICIES[int(x)] for x in t.players[:, e.PS_POLICY]],
        "deal": {"racks": racks, "pool": deck[players * size:]},
        "events": events,
        "result": {
            "finish": FINISHES[int(t.counters[e.G_FINISH])],
            "winners": [p for p in range(players) if (mask >> p) & 1],
            "scores": [score_value(int(x)) for x in t.players[:, e.PS_SCORE]],
            "racks": [_names(r) for r in t.racks],
        },
    }


def trace_json(rules: Rules, seed: int, round_id: int, policies: list[str], duplicate: bool = False) -> dict:
    """Round ``round_id`` of ``seed`` played and traced, as JSON."""
    from sim.games.rummikub.play import policy_codes, seat_budgets, trace_round

    codes = policy_codes(list(policies), rules.players)
    tune = seat_budgets(list(policies), rules.players)
    return round_json(trace_round(rules, seed, round_id, codes, duplicate=duplicate, tune=tune), seed, round_id)


def rack_points(tiles: list[str], joker_penalty: int) -> int:
    """K-END-1: a tile counts its number, a joker the joker penalty."""
    return sum(joker_penalty if t == "J" else number_of(parse_tile(t)) for t in tiles)


def _table_lines(table: list[list[str]], mark: str) -> list[str]:
    """The table's melds on lines of at most 100 characters, ``|`` between melds."""
    text = "  |  ".join(" ".join(m) for m in table) or "(empty)"
    return textwrap.wrap(text, 100, initial_indent=f"  {mark} ", subsequent_indent=" " * (len(mark) + 3),
                         break_on_hyphens=False)


def format_trace(trace: dict) -> str:
    """A JSON trace as text a person can follow, turn by turn, with rule ids."""
    r = RummikubRules.from_dict(trace["rules"])
    rid = trace.get("round_id")
    head = f"Round {rid} of seed {trace.get('seed')}" if rid is not None else "Round from a given tile order"
    house = [name for name in ("wrap_runs", "locked_jokers", "easing_open", "last_call") if getattr(r, name)]
    if r.joker_moves == "free":
        house.append("joker_moves=free")
    lines = [f"{head}: {r.name}, {r.players} players, bar {r.open_points} (K-OPEN-1), joker {r.joker_penalty} "
             f"points; house rules: {', '.join(house) or 'none'}; policies: {', '.join(trace['policies'])}",
             f"Deal (K-SET-1): {r.rack_size} tiles each, pool {len(trace['deal']['pool'])} tiles, seat 0 starts"]
    racks = [Counter(rack) for rack in trace["deal"]["racks"]]
    for p, rack in enumerate(trace["deal"]["racks"]):
        lines.append(f"  seat {p}: {_sorted(rack)}")
    table: list[list[str]] = []
    opened: set[int] = set()
    drawn = 0
    for e in trace["events"]:
        a, p = e["action"], e["seat"]
        if a == "end":
            lines.append(f"End: {_FINISH_TEXT[e['finish']]}")
            continue
        lines.append(f"Seat {p}, its turn {e['turn']}: rack {_sorted(list(racks[p].elements()))}")
        if a == "draw":
            bar = (" (K-PLAY-1: a player may always draw instead of playing)" if p in opened else
                   f" (not opened: its melds are below the bar of {bar_in_force(r, e['turn'])}, K-OPEN-1)")
            racks[p][e["tile"]] += 1
            drawn += 1
            lines.append(f"  draws {e['tile']}{bar}")
            if drawn == len(trace["deal"]["pool"]) and r.last_call:
                lines.append(f"  the pool is empty: last call, one more turn each from seat {(p + 1) % r.players}, "
                             f"seat {p} last (K-VAR last_call)")
        elif a == "pass":
            lines.append("  passes: nothing to place and the pool is empty (K-PLAY-1)")
        elif a == "open":
            opened.add(p)
            lines.append(f"  opens with {e['value']} points, bar {e['bar']} (K-OPEN-1; from the rack only, "
                         "K-OPEN-2):")
            for m in e["melds"]:
                table.append(m)
                for t in m:
                    racks[p]["J" if t.startswith("J(") else t] -= 1
                lines.append(f"  + {' '.join(m)}")
        elif a == "play":
            jokers = ("the table's jokers bound to their tiles" if r.joker_moves == "bound" else
                      "the table's jokers free to stand for any tile")
            lines.append(f"  places {' '.join(e['placed'])} ({e['value']} points) and rebuilds the table, {jokers} "
                         "(K-PLAY-1, K-JOKER-2):")
            lines += _table_lines(table, "before:")
            for f in e.get("freed", []):
                lines.append(f"  frees {f['joker']} with {f['by']}, and plays the joker again this turn (K-JOKER-1/2)")
            for t in e["placed"]:
                racks[p][t] -= 1
            table = [list(m) for m in e["table"]]
            lines += _table_lines(table, "after: ")
    res = trace["result"]
    lines.append(f"Scores ({'K-END-1' if res['finish'] == 'out' else 'K-END-2'}), winners "
                 f"{', '.join(map(str, res['winners']))}:")
    for p, score in enumerate(res["scores"]):
        rack = res["racks"][p]
        lines.append(f"  seat {p}: {score:+8.2f}   rack {' '.join(rack) or '-'} "
                     f"({rack_points(rack, r.joker_penalty)} points, joker {r.joker_penalty})")
    return "\n".join(lines)


def _sorted(tiles: list[str]) -> str:
    """Tiles by number, then colour, jokers last."""
    return str(parse_rack(" ".join(tiles))) if tiles else "-"

