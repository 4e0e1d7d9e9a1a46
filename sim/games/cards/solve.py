"""``sim solve`` for card Rummy 101: the best lay-down of a hand (C-SCORE-1 values), its
melds and lay-offs on the ``--table`` melds, its deadwood and whether it can go out
(C-OUT-1/2)."""

from __future__ import annotations

from typing import Any

from sim.errors import SimError


def check_options(options: dict[str, Any]) -> None:
    if options.get("must_use") or options.get("objective", "value") != "value":
        raise SimError("--must-use and --objective are tile options; a card hand takes --table only")


def solve(text: str, rules, options: dict[str, Any]) -> dict[str, Any]:
    from sim.games.cards.handplay import best_lay_down

    return {"hand": text.strip(), **best_lay_down(text, rules, options.get("table")).to_dict()}


def describe_solution(text: str, rules, options: dict[str, Any]) -> str:
    r = solve(text, rules, options)
    out = f"yes, discarding {r['out']['discard']}" if r["can_out"] else "no"
    lines = [f"hand ({len(text.split())} cards): {text.strip()}    rules: {rules.name}",
             f"best lay-down: {r['value']} points (C-SCORE-1 values), keeping a card to discard"]
    lines += [f"  meld      {m}" for m in r["melds"]]
    lines += [f"  lay off   {lo['cards']} on table meld {lo['meld']}" for lo in r["layoffs"]]
    lines += [f"left in hand: {' '.join(r['left'])} ({r['deadwood']} points of deadwood)",
              f"can go out: {out} (C-OUT-1/2)"]
    return "\n".join(lines)


def solution_line(result: dict[str, Any], options: dict[str, Any]) -> str:
    out = f"out discarding {result['out']['discard']}" if result["can_out"] else "cannot go out"
    return (f"{result['hand']}: lay down {result['value']}, deadwood {result['deadwood']}, {out}; melds: "
            + (", ".join(result["melds"]) or "-"))
