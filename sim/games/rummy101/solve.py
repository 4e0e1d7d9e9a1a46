"""``sim solve`` for Rummy 101 with tiles: the best opening of a rack (T-OPEN), with
``--must-use`` the discard just taken (T-TAKE-2)."""

from __future__ import annotations

from typing import Any

from sim.errors import SimError
from sim.solver.text import check_opening_options, describe_opening, opening_json, opening_line


def check_options(options: dict[str, Any]) -> None:
    if options.get("table") is not None:
        raise SimError("--table: table play onto a rebuilt table is a Rummikub rule (K-PLAY-1); "
                       "Rummy 101 racks are solved for their opening")
    check_opening_options(options)


def solve(text: str, rules, options: dict[str, Any]) -> dict[str, Any]:
    return opening_json(text, rules, options.get("must_use"))


def describe_solution(text: str, rules, options: dict[str, Any]) -> str:
    return describe_opening(text, rules, options.get("must_use"))


def solution_line(result: dict[str, Any], options: dict[str, Any]) -> str:
    return opening_line(result)
