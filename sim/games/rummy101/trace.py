"""A traced Rummy 101 round: as JSON for machines (the public trace format, README "JSON
traces") and as text for people, every action with the rule that allows it.

The engine records a round as rows of integers (:mod:`.core`, ``EV_*``); :func:`round_json`
turns them into the JSON trace, and everything else, the text trace and the referee
(:mod:`.referee`) included, reads that JSON only.
"""

from __future__ import annotations

from sim.games.rummy101 import FINISHES, OPEN_KINDS, POLICIES
from sim.games.rummy101.rules import Rummy101Rules
from sim.rules import Rules
from sim.tiles import JOKER, Meld, Rack, parse_meld, parse_rack, tile_name

TRACE_VERSION = 1
ENDS = ("start", "end", "set")  # core.ADD_LOW, ADD_HIGH, ADD_SET

_FINISH_TEXT = {
    "normal": "normal finish: the last discard empties the rack (T-FIN-1)",
    "joker": "joker finish: the last discard is a joker (T-FIN-2)",
    "one_turn": "one-turn finish: nobody had opened, it opened and went out in one turn (T-FIN-3)",
    "one_turn_joker": "one-turn finish with a joker (T-FIN-3, T-FIN-2)",
}


def meld_tiles(meld: Meld) -> list[str]:
    """A meld as the trace writes it: its tiles in order, a joker as ``J(R11)``."""
    return str(meld).split()


def _rack_tiles(counts) -> list[str]:
    return str(Rack(tuple(int(x) for x in counts))).split()


def round_json(t, seed: int | None, round_id: int | None) -> dict:
    """The JSON trace of a round traced by :func:`.play.trace_round`."""
    from sim.games.rummy101 import core
    from sim.solver.layout import to_meld

    rules = t.rules
    players = rules.players
    deck = [tile_name(int(k)) for k in t.deck]
    racks, pos = [], 0
    for p in range(players):
        size = rules.rack_size + (rules.starter_extra if p == 0 else 0)
        racks.append(deck[pos:pos + size])
        pos += size
    events: list[dict] = []
    rows = [[int(x) for x in row] for row in t.events]
    i = 0
    while i < len(rows):
        kind, p, gturn, a, b, c, d, e = rows[i][:8]
        ev = {"seat": p, "turn": (gturn - 1) // players + 1}
        i += 1
        if kind == core.EV_DRAW:
            ev.update(action="draw", tile=tile_name(a))
        elif kind == core.EV_TAKE:
            ev.update(action="take", tile=tile_name(a))
        elif kind == core.EV_BUTTON:
            ev.update(action="button")
        elif kind == core.EV_OPEN:  # its melds are the next e rows
            melds = [meld_tiles(to_meld(row[3:9])) for row in rows[i:i + e]]
            i += e
            ev.update(action="open", kind=OPEN_KINDS[a - 1], melds=melds, value=b, threshold=c)
        elif kind == core.EV_LAY:  # the melds laid together, one event
            melds = [meld_tiles(to_meld(rows[i - 1][3:9]))]
            while i < len(rows) and rows[i][0] == core.EV_LAY and rows[i][1] == p:
                melds.append(meld_tiles(to_meld(rows[i][3:9])))
                i += 1
            ev.update(action="lay", melds=melds)
        elif kind == core.EV_ADD:
            tile = f"J({tile_name(d)})" if a == JOKER else tile_name(a)
            ev.update(action="add", tile=tile, meld=b, end=ENDS[c])
        elif kind == core.EV_RECOVER:
            ev.update(action="recover", meld=a, tile=tile_name(b))
        elif kind == core.EV_DISCARD:
            ev.update(action="discard", tile=tile_name(a))
        elif kind == core.EV_FINISH:
            ev.update(action="finish", kind=FINISHES[a])
        elif kind == core.EV_STOCK_OUT:
            ev.update(action="stock_out")
        else:  # the deal and the scores are the trace's deal and result
            continue
        events.append(ev)
    winner = int(t.counters[core.G_WINNER])
    return {
        "family": "rummy101",
        "version": TRACE_VERSION,
        "rules": rules.to_dict(),
        "seed": seed,
        "round_id": round_id,
        "players": players,
        "policies": [POLICIES[int(x)] for x in t.players[:, core.PS_POLICY]],
        "deal": {"racks": racks, "stock": deck[pos:]},
        "events": events,
        "result": {
            "finish": FINISHES[int(t.counters[core.G_FINISH])],
            "winner_seat": winner if winner >= 0 else None,
            "scores": [int(x) for x in t.players[:, core.PS_SCORE]],
            "racks": [_rack_tiles(r) for r in t.racks],
        },
    }


def trace_json(rules: Rules, seed: int, round_id: int, policies: list[str], duplicate: bool = False) -> dict:
    """Round ``round_id`` of ``seed`` played and traced, as JSON."""
    from sim.games.rummy101.play import policy_codes, seat_budgets, trace_round

    codes = policy_codes(list(policies), rules.players)
    tune = seat_budgets(list(policies), rules.players)
    return round_json(trace_round(rules, seed, round_id, codes, duplicate=duplicate, tune=tune),
                      seed, round_id)


def format_trace(trace: dict) -> str:
    """A JSON trace as text a person can follow, turn by turn, with rule ids."""
    r = Rummy101Rules.from_dict(trace["rules"])
    rid = trace.get("round_id")
    head = f"Round {rid} of seed {trace.get('seed')}" if rid is not None else "Round from a given tile order"
    need = f"{r.open_points} points" + (f" or {r.open_pairs} pairs" if r.open_pairs else "")
    lines = [f"{head}: {r.name}, {r.players} players, {r.threshold_mode} thresholds ({need}); "
             f"button jokers {r.button_jokers}; policies: {', '.join(trace['policies'])}",
             f"Deal (T-SET-1, T-SET-2): stock {len(trace['deal']['stock'])} tiles"]
    for p, rack in enumerate(trace["deal"]["racks"]):
        lines.append(f"  seat {p} ({len(rack)} tiles): {_sorted(rack)}")
    table: list[list[str]] = []
    current = None
    ladder = "T-THR-2" if r.threshold_mode == "increasing" else "T-THR-1"
    for e in trace["events"]:
        a = e["action"]
        if (e["seat"], e["turn"]) != current and a != "finish":
            current = (e["seat"], e["turn"])
            first = e["seat"] == 0 and e["turn"] == 1
            lines.append(f"Seat {e['seat']}, its turn {e['turn']}" + (" (the starter: no take, T-SET-2)"
                                                                     if first else ""))
        if a == "draw":
            lines.append(f"  draws {e['tile']} from the stock (T-TURN-1)")
        elif a == "take":
            lines.append(f"  takes {e['tile']}, the last discard of the previous player "
                         "(T-TAKE-1; it must be used this turn, T-TAKE-2/T-TAKE-3)")
        elif a == "button":
            lines.append("  presses the joker button instead of drawing: one extra joker (T-BTN-1)")
        elif a == "open":
            what = (f"melds, {e['value']} points, {e['threshold']} needed (T-OPEN-1, {ladder})"
                    if e["kind"] == "melds" else
                    f"pairs, {e['value']} pairs, {e['threshold']} needed (T-OPEN-2, {ladder})")
            lines.append(f"  opens with {what}; the opening (T-OPEN-3):")
            for m in e["melds"]:
                table.append(list(m))
                lines.append(f"  | {' '.join(m):30} {parse_meld(' '.join(m)).value:4} points")
        elif a == "lay":
            for m in e["melds"]:
                table.append(list(m))
                lines.append(f"  lays {' '.join(m):30} {parse_meld(' '.join(m)).value:4} points (T-OPEN-5/6)")
        elif a == "add":
            meld = table[e["meld"]]
            before = " ".join(meld)
            if e["end"] == "start":
                meld.insert(0, e["tile"])
            else:
                meld.append(e["tile"])
            lines.append(f"  adds {e['tile']} to {before} (T-ADD-1)")
        elif a == "recover":
            meld = table[e["meld"]]
            meld[meld.index(f"J({e['tile']})")] = e["tile"]
            rule = "T-JOKER-1: a joker in a pair stands for its twin" if len(meld) == 2 else "T-JOKER-1"
            lines.append(f"  puts {e['tile']} in place of the joker in {' '.join(meld)} and takes the joker "
                         f"back ({rule})")
        elif a == "discard":
            lines.append(f"  discards {'a joker' if e['tile'] == 'J' else e['tile']} (T-TURN-2)")
        elif a == "stock_out":
            lines.append("  the stock is empty and the discard is not taken: the round ends without a winner "
                         "(T-END-1)")
        elif a == "finish":
            lines.append(f"Finish: seat {e['seat']}, {_FINISH_TEXT[e['kind']]}")
    res = trace["result"]
    opened = _openings(trace)
    lines.append("Scores (T-SCORE-1..3, T-END-1):")
    for p, score in enumerate(res["scores"]):
        how = {None: "not opened", "melds": "opened with melds", "pairs": "opened with pairs"}[opened.get(p)]
        value = sum(r.joker_penalty if t == "J" else int(t[1:]) for t in res["racks"][p])
        lines.append(f"  seat {p}: {score:+5d}   {how}; rack {' '.join(res['racks'][p]) or '-'} "
                     f"({value} points, jokers {r.joker_penalty})")
    return "\n".join(lines)


def _openings(trace: dict) -> dict[int, str]:
    return {e["seat"]: e["kind"] for e in trace["events"] if e["action"] == "open"}


def _sorted(tiles: list[str]) -> str:
    """Tiles by number, then colour, jokers last."""
    return str(parse_rack(" ".join(tiles)))

