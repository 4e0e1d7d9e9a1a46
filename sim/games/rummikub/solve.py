"""``sim solve`` for Rummikub: the best first play of a rack (K-OPEN-1), or with
``--table`` the best play onto a table rebuilt as a whole (K-PLAY-1)."""

from __future__ import annotations

from typing import Any

from sim.errors import SimError
from sim.solver.text import check_opening_options, describe_opening, opening_json, opening_line

OBJECTIVES = ("value", "tiles")


def check_options(options: dict[str, Any]) -> None:
    if options.get("table") is None:
        check_opening_options(options)
        return
    if options.get("must_use"):
        raise SimError("--must-use: a Rummy 101 opening option; it cannot go with --table")
    if options.get("objective", "value") not in OBJECTIVES:
        raise SimError(f"--objective: must be value or tiles (got {options['objective']!r})")


def solve(text: str, rules, options: dict[str, Any]) -> dict[str, Any]:
    if options.get("table") is None:
        return opening_json(text, rules, options.get("must_use"))
    from sim.games.rummikub.tableplay import read_table, table_play
    from sim.tiles import parse_rack

    rack = parse_rack(text)
    melds = read_table(options["table"], rules)
    return {"rack": str(rack), "table": [str(m) for m in melds],
            **table_play(rack, melds, rules, options.get("objective", "value")).to_dict()}


def describe_solution(text: str, rules, options: dict[str, Any]) -> str:
    if options.get("table") is None:
        return describe_opening(text, rules, options.get("must_use"))
    result = solve(text, rules, options)
    melds = result["table"]
    tiles = sum(len(m.split()) for m in melds)
    rack = result["rack"].split()
    left = list(rack)
    for tile in result["played"].split():
        left.remove(tile)
    lines = [f"rack ({len(rack)} tiles): {result['rack']}    rules: {rules.name}",
             f"table ({len(melds)} melds, {tiles} tiles): {'; '.join(melds) or '-'}",
             f"best play ({result['objective']}): {result['value']} points, {result['tiles']} tiles: "
             f"{result['played'] or '-'}",
             f"table afterwards ({len(result['melds'])} melds):"]
    lines += [f"  {m}" for m in result["melds"]]
    if result["freed"]:
        lines.append("jokers freed: " + ", ".join(f"{f['joker']} by {f['by']}" for f in result["freed"])
                     + " (K-JOKER-1/2)")
    lines.append(f"left on the rack: {' '.join(left) or '-'}")
    lines.append(f"can play: {'yes' if result['can_play'] else 'no (draw a tile, or pass with the pool empty)'}")
    return "\n".join(lines)


def solution_line(result: dict[str, Any], options: dict[str, Any]) -> str:
    if options.get("table") is None:
        return opening_line(result)
    return (f"{result['rack']}: value {result['value']}, tiles {result['tiles']}, can play "
            f"{'yes' if result['can_play'] else 'no'}; played: {result['played'] or '-'}; table: "
            + "; ".join(result["melds"]))
