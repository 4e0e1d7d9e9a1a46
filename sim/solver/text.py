"""The opening solver's answer to ``sim solve`` for the tile families: as JSON data, for
people, and in one line (``sim solve -`` reading many racks)."""

from __future__ import annotations

from typing import Any

from sim.errors import SimError
from sim.rules import TileRules


def check_opening_options(options: dict[str, Any]) -> None:
    """Without a table, the opening solver takes ``--must-use`` only."""
    if options.get("objective", "value") != "value":
        raise SimError("--objective: needs --table (it chooses between table plays)")


def opening_json(text: str, rules: TileRules, must_use: str | None) -> dict[str, Any]:
    from sim.solver.api import best_opening
    from sim.tiles import parse_rack

    rack = parse_rack(text)
    return {"rack": str(rack), **best_opening(rack, rules, must_use=must_use).to_dict()}


def describe_opening(text: str, rules: TileRules, must_use: str | None) -> str:
    from sim.solver.api import best_opening
    from sim.tiles import parse_rack

    rack = parse_rack(text)
    o = best_opening(rack, rules, must_use=must_use)
    forced = f", with {must_use.upper()} in a meld (T-TAKE-2)" if must_use else ""
    verdict = "can open" if o.can_open_melds else "cannot open"
    lines = [f"rack ({len(rack)} tiles): {rack}    rules: {rules.name}{forced}",
             f"best melds: {o.value} points, {verdict} by melds (needs {rules.open_points})"]
    for m in o.melds:
        lines.append(f"  {m!s:34} {m.value:4}")
    if rules.keep_discard:  # T-OPEN-4: say when the tile kept for the discard is what costs points
        every = best_opening(rack, rules.replace(keep_discard=False), must_use=must_use).value
        if every > o.value:
            lines.append(f"  (a tile is kept back for the discard, T-OPEN-4: melding every tile would lay down "
                         f"{every} points)")
    if rules.has_pairs_opening:
        verdict = "can open" if o.can_open_pairs else "cannot open"
        lines.append(f"most pairs: {o.pairs}, {verdict} by pairs (needs {rules.open_pairs})")
    lines.append(f"left on the rack: {o.left or '-'}")
    lines.append(f"can open: {'yes' if o.can_open else 'no'}")
    return "\n".join(lines)


def opening_line(result: dict[str, Any]) -> str:
    return (f"{result['rack']}: value {result['value']}, pairs {result['pairs']}, "
            f"can open {'yes' if result['can_open'] else 'no'}; melds: " + (", ".join(result["melds"]) or "-"))
