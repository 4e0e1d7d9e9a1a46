"""A traced round as text a person can follow, every action with the rule that allows it."""

from __future__ import annotations

from collections import Counter

from sim.games.rummy101 import POLICIES, core
from sim.games.rummy101.play import TracedRound
from sim.solver.layout import to_meld
from sim.tiles import JOKER, Rack, tile_name

_FINISH_TEXT = {
    "normal": "normal finish: the last discard empties the rack (T-FIN-1)",
    "joker": "joker finish: the last discard is a joker (T-FIN-2)",
    "one_turn": "one-turn finish: nobody had opened, it opened and went out in one turn (T-FIN-3)",
    "one_turn_joker": "one-turn finish with a joker (T-FIN-3, T-FIN-2)",
}


def _rack_text(counts) -> str:
    return str(Rack(tuple(int(x) for x in counts)))


def format_trace(t: TracedRound, seed: int | None = None, round_id: int | None = None) -> str:
    """Every action of the round, turn by turn, with rule ids."""
    r = t.rules
    policies = [POLICIES[int(p)] for p in t.players[:, core.PS_POLICY]]
    head = f"Round {round_id} of seed {seed}" if round_id is not None else "Round from a given tile order"
    need = f"{r.open_points} points" + (f" or {r.open_pairs} pairs" if r.open_pairs else "")
    lines = [
        f"{head}: {r.name}, {r.players} players, {r.threshold_mode} thresholds ({need}); "
        f"button jokers {r.button_jokers}; policies: {', '.join(policies)}",
    ]
    racks = [Counter() for _ in range(r.players)]
    pos = 0
    for p in range(r.players):
        size = r.rack_size + (r.starter_extra if p == 0 else 0)
        racks[p].update(int(x) for x in t.deck[pos:pos + size])
        pos += size
    lines.append(f"Deal (T-SET-1, T-SET-2): stock {len(t.deck) - pos} tiles")
    for p in range(r.players):
        counts = [racks[p][k] for k in range(53)]
        lines.append(f"  seat {p} ({sum(counts)} tiles): {_rack_text(counts)}")
    table: list = []
    turn = 0
    for e in t.events:
        kind, p, gturn = int(e[0]), int(e[1]), int(e[2])
        a, b, c = (int(x) for x in e[3:6])
        if kind == core.EV_DEAL or kind == core.EV_SCORE:
            continue
        if gturn != turn and kind != core.EV_FINISH:
            turn = gturn
            note = " (the starter: no take, T-SET-2)" if turn == 1 else ""
            lines.append(f"Turn {turn} · seat {p}{note}")
        if kind == core.EV_DRAW:
            lines.append(f"  draws {tile_name(a)} from the stock (T-TURN-1)")
        elif kind == core.EV_TAKE:
            lines.append(f"  takes {tile_name(a)}, the last discard of the previous player "
                         "(T-TAKE-1; it must be used this turn, T-TAKE-2/T-TAKE-3)")
        elif kind == core.EV_BUTTON:
            lines.append("  presses the joker button instead of drawing: one extra joker (T-BTN-1)")
        elif kind == core.EV_OPEN:
            if a == core.OPEN_MELDS:
                lines.append(f"  opens with melds: {b} points, {c} needed (T-OPEN-1, "
                             f"T-THR-{'2' if r.threshold_mode == 'increasing' else '1'})")
            else:
                lines.append(f"  opens with pairs: {b} pairs, {c} needed (T-OPEN-2)")
        elif kind == core.EV_LAY:
            m = to_meld(e[3:9])
            table.append([list(m.tiles), list(m.jokers), m.kind])
            lines.append(f"    lays {m!s:30} {m.value:4} points")
        elif kind == core.EV_ADD:
            tiles, jokers, _ = table[b]
            before = to_text(tiles, jokers)
            if c == core.ADD_LOW:
                tiles.insert(0, a)
                jokers.insert(0, False)
            else:
                tiles.append(a)
                jokers.append(False)
            lines.append(f"  adds {tile_name(a)} to {before} (T-ADD-1)")
        elif kind == core.EV_RECOVER:
            tiles, jokers, _ = table[a]
            i = next(i for i, (k, j) in enumerate(zip(tiles, jokers, strict=True)) if j and k == b)
            jokers[i] = False
            lines.append(f"  puts {tile_name(b)} in place of the joker in {to_text(tiles, jokers)} "
                         "and takes the joker back (T-JOKER-1)")
        elif kind == core.EV_DISCARD:
            what = "a joker" if a == JOKER else tile_name(a)
            lines.append(f"  discards {what} (T-TURN-2)")
        elif kind == core.EV_STOCK_OUT:
            lines.append("  the stock is empty and the discard is not taken: the round ends "
                         "without a winner (T-END-1)")
        elif kind == core.EV_FINISH:
            lines.append(f"Finish: seat {p}, {_FINISH_TEXT[core.FINISH_NAMES[a]]}")
    lines.append("Scores (T-SCORE-1..3, T-END-1):")
    for p in range(r.players):
        ps = t.players[p]
        opened = ("not opened" if ps[core.PS_OPEN_KIND] == core.OPEN_NONE else
                  "opened with melds" if ps[core.PS_OPEN_KIND] == core.OPEN_MELDS else "opened with pairs")
        left = _rack_text(t.racks[p]) or "-"
        lines.append(f"  seat {p}: {int(ps[core.PS_SCORE]):+5d}   {opened}; rack {left} "
                     f"({int(ps[core.PS_RACK_VALUE])} points, jokers 101)")
    return "\n".join(lines)


def to_text(tiles, jokers) -> str:
    return " ".join(f"J({tile_name(k)})" if j else tile_name(k) for k, j in zip(tiles, jokers, strict=True))


def trace_text(rules, seed: int, round_id: int, policies: list[str]) -> str:
    """Round ``round_id`` of ``seed`` as text, and the referee's verdict."""
    from sim.games.rummy101.play import policy_codes, trace_round
    from sim.games.rummy101.referee import referee

    t = trace_round(rules, seed, round_id, policy_codes(list(policies), rules.players))
    problems = referee(rules, t.deck, t.events)
    return (format_trace(t, seed, round_id) + "\nreferee: every action checked, scores recomputed: "
            + ("no violations" if not problems else "; ".join(problems)))
