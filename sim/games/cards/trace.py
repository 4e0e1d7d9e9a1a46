"""A traced card Rummy 101 match as JSON (README, "JSON traces", in the frame every family
shares: the deal, events ``{seat, turn, action, ...}``, the result; here one such frame
per hand, in ``hands``) and as text for people, hand by hand and turn by turn with rule ids.

:func:`match_json` turns the arrays of :func:`.match.trace_match` into the JSON trace, and
everything else, the text trace and the referee (:mod:`.referee`), reads that JSON.
"""

from __future__ import annotations

import textwrap
from collections import Counter

from sim.games.cards import FINISHES, POLICIES
from sim.games.cards.rules import CardRules
from sim.rules import Rules
from sim.tiles import card_name

TRACE_VERSION = 1
FINISH_TEXT = {
    "out": "went out: every card but one melded or laid off, the last discarded (C-OUT-1/2)",
    "rummy": "went rummy: out in one turn with nothing melded or laid off before, all in its own new melds "
             "(C-SCORE-2)",
    "wash": "the player to move found the stock empty: a wash, nobody scores (C-WASH-1)",
}


def _names(cards) -> list[str]:
    return [card_name(int(c)) for c in cards]


def _counts_names(counts) -> list[str]:
    return [card_name(c) for c, n in enumerate(counts) for _ in range(int(n))]


def match_json(t, seed: int | None, match_id: int | None, policies: list[str]) -> dict:
    """The JSON trace of a match traced by :func:`.match.trace_match`."""
    from sim.games.cards import engine as e
    from sim.games.cards.handplay import meld_cards

    rules = t.rules
    players, size = rules.players, rules.deal_size()
    hands: list[dict] = []
    for h, row in enumerate(t.hands):
        dealer = int(row[e.H_DEALER])
        deck = _names(t.decks[h])
        dealt = [[] for _ in range(players)]
        for j in range(size * players):
            dealt[(dealer + 1 + j) % players].append(deck[j])
        hands.append({"hand": h, "dealer_seat": dealer,
                      "deal": {"hands": dealt, "upcard": deck[size * players], "stock": deck[size * players + 1:]},
                      "events": []})
    for ev in t.events:
        h, seat, turn, action, a, b, c, d = (int(x) for x in ev)
        item: dict = {"seat": seat, "turn": turn}
        if action == e.ACT_DRAW:
            item.update(action="draw", card=card_name(a), **{"from": "discard" if b else "stock"})
        elif action == e.ACT_MELD:
            item.update(action="meld", cards=_names(meld_cards((a, b, c, d))))
        elif action == e.ACT_LAYOFF:
            item.update(action="layoff", card=card_name(a), meld=b)
        elif action == e.ACT_DISCARD:
            item.update(action="discard", card=card_name(a))
        elif action == e.ACT_OUT:
            item.update(action="out", rummy=bool(b))
        else:
            item.update(action="wash")
        hands[h]["events"].append(item)
    for h, row in enumerate(t.hands):
        winner = int(row[e.H_WINNER])
        rows = t.players[h * players:(h + 1) * players]
        hands[h]["result"] = {
            "finish": FINISHES[int(row[e.H_FINISH])],
            "winner_seat": None if winner < 0 else winner,
            "points": int(row[e.H_POINTS]),
            "scores": [int(x) for x in rows[:, e.P_SCORE]],
            "totals": [int(x) for x in rows[:, e.P_TOTAL]],
            "left": [_counts_names(t.ends[h, p]) for p in range(players)],
        }
    m = t.match
    winner = int(m[e.M_WINNER])
    return {
        "family": "rummy101-cards",
        "version": TRACE_VERSION,
        "rules": rules.to_dict(),
        "seed": seed,
        "match_id": match_id,
        "players": players,
        "policies": list(policies),
        "hands": hands,
        "result": {
            "winner_team" if rules.partners else "winner_seat": winner,
            "totals": list(hands[-1]["result"]["totals"]),
            "hands": len(hands),
            "washes": sum(hand["result"]["finish"] == "wash" for hand in hands),
        },
    }


def trace_json(rules: Rules, seed: int, match_id: int, policies: list[str], duplicate: bool = False) -> dict:
    """Match ``match_id`` of ``seed`` (of a duplicate run with ``duplicate``) played and traced, as JSON."""
    from sim.games.cards.play import policy_codes, seat_budgets, trace_match

    codes = policy_codes(list(policies), rules.players)
    seats = [POLICIES[int(c)] for c in codes]
    tune = seat_budgets(policies, rules.players)
    return match_json(trace_match(rules, seed, match_id, codes, duplicate=duplicate, tune=tune), seed, match_id, seats)


def _sorted(held: Counter) -> str:
    """Cards held, by suit (S H D C) and rank."""
    from sim.tiles import parse_card

    return " ".join(sorted(held.elements(), key=parse_card)) or "-"


def hand_points(cards: list[str]) -> int:
    """C-SCORE-1: 2-10 their face, J Q K 10, ace 10."""
    from sim.tiles import parse_card

    return sum(10 if (r := parse_card(c) % 13 + 1) == 1 or r >= 10 else r for c in cards)


def _wrap(mark: str, text: str) -> list[str]:
    return textwrap.wrap(text, 100, initial_indent=f"  {mark} ", subsequent_indent=" " * (len(mark) + 3),
                         break_on_hyphens=False)


def format_trace(trace: dict) -> str:
    """A JSON trace as text a person can follow, hand by hand and turn by turn, with rule ids."""
    r = CardRules.from_dict(trace["rules"])
    players = trace["players"]
    side = "team" if r.partners else "seat"
    lines = [f"{r.name}: match {trace['match_id']} (seed {trace['seed']}), {players} players"
             + (", partners: seats 0+2 against 1+3 (C-TEAM-1)" if r.partners else "")
             + f", to {r.target} (C-MATCH-1), {r.decks} deck(s), policies {','.join(trace['policies'])}"]
    for hand in trace["hands"]:
        deal = hand["deal"]
        lines.append("")
        lines.append(f"Hand {hand['hand']}: seat {hand['dealer_seat']} deals {len(deal['hands'][0])} cards each "
                     f"(C-SET-1); upcard {deal['upcard']}, {len(deal['stock'])} in the stock; seat "
                     f"{(hand['dealer_seat'] + 1) % players} starts (C-SET-2)")
        for p, cards in enumerate(deal["hands"]):
            lines.append(f"  seat {p}: {' '.join(cards)}")
        held = [Counter(cards) for cards in deal["hands"]]  # what each seat holds, to show it
        table: list[list[str]] = []  # the melds in the order they reached the table
        for ev in hand["events"]:
            who = f"seat {ev['seat']} t{ev['turn']}"
            a = ev["action"]
            mine = held[ev["seat"]]
            if a == "draw":
                lines.append(f"  seat {ev['seat']}, its turn {ev['turn']}: holds {_sorted(mine)}")
                mine[ev["card"]] += 1
                text = f"draws {ev['card']} from the {ev['from']} (C-TURN-1)"
            elif a == "meld":
                mine.subtract(ev["cards"])
                table.append(list(ev["cards"]))
                text = f"melds {' '.join(ev['cards'])}: table meld {len(table) - 1} (C-MELD-1)"
            elif a == "layoff":
                mine[ev["card"]] -= 1
                m = ev["meld"]
                before = _sorted(Counter(table[m])) if 0 <= m < len(table) else "?"
                if 0 <= m < len(table):
                    table[m].append(ev["card"])
                text = f"lays off {ev['card']} on table meld {m} ({before}) (C-MELD-1)"
            elif a == "discard":
                mine[ev["card"]] -= 1
                text = f"discards {ev['card']}"
            elif a == "out":
                text = "goes out" + (" rummy (C-SCORE-2)" if ev.get("rummy") else " (C-OUT-1)")
            else:
                text = "finds the stock empty: wash (C-WASH-1)"
            lines += _wrap(">", f"{who}: {text}")
        res = hand["result"]
        done = FINISH_TEXT[res["finish"]]
        if res["finish"] == "rummy" and r.rummy_layoffs:
            done = done.replace("all in its own new melds", "lay-offs allowed (rummy_layoffs)")
        lines.append(f"  = {done}")
        if res["winner_seat"] is not None:
            lines.append(f"    seat {res['winner_seat']} scores {res['points']} (C-SCORE-1"
                         + (", the partner's cards count nothing, C-TEAM-1" if r.partners else "") + ")")
        for p, cards in enumerate(res["left"]):
            lines.append(f"    seat {p} holds {' '.join(cards) or '-'} ({hand_points(cards)}); "
                         f"total {res['totals'][p]}")
    result = trace["result"]
    won = result.get("winner_team", result.get("winner_seat"))
    lines.append("")
    lines.append(f"Match over after {result['hands']} hands ({result['washes']} washed): {side} {won} reaches "
                 f"{r.target} (C-MATCH-1" + (", C-TEAM-1" if r.partners else "") + ")")
    return "\n".join(lines)

