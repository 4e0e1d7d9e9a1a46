"""The rule families, each a package of its own (``sim/games/<family>/``): its rules,
kernels, bots, referee, table schemas, summary, analysis and report sections.

This is the registry: one line per family in :data:`FAMILIES` is all it takes to add
one. The shared layers (the runner, the store, parallel execution, precision, the report
builder and the CLI) know a family only through :class:`~sim.games.family.Family`, found
here by name or by the ``family`` of a rules object, and they find rules and presets
here too. A family's package is imported when that family is used, and its kernels
compile only when it plays.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

from sim.errors import RulesError
from sim.games.family import Family

if TYPE_CHECKING:
    from sim.rules import Rules

# family name (the rules' ``family``) -> the package holding its FAMILY object
FAMILIES = {
    "rummy101": "sim.games.rummy101",
    "rummikub": "sim.games.rummikub",
    "rummy101-cards": "sim.games.cards",
}
DEFAULT_PRESET = "rummy101"  # what the commands play when no --preset is given


def family(name: str) -> Family:
    """The family called ``name`` (``rummy101``, ...)."""
    try:
        package = FAMILIES[name]
    except (KeyError, TypeError):
        known = ", ".join(FAMILIES)
        raise RulesError(f"family: must be one of {known} (got {name!r})") from None
    found = importlib.import_module(package).FAMILY
    if found.name != name:
        raise TypeError(f"{package}.FAMILY is {found.name!r}, registered as {name!r}")
    return found


def family_of(rules: Rules) -> Family:
    """The family whose rules these are."""
    return family(rules.family)


def families() -> list[Family]:
    """Every family, in the order of :data:`FAMILIES`."""
    return [family(name) for name in FAMILIES]


def family_of_manifest(manifest: dict, where) -> Family:
    """The family of a run or sweep from its manifest (read from ``where``, named in the error)."""
    from sim.errors import DatasetError

    try:
        return family(manifest["variants"][0]["rules"]["family"])
    except (KeyError, IndexError, TypeError):
        raise DatasetError(f"{where}: not a run manifest") from None


# --- rules ----------------------------------------------------------------------------------


def rules_from_dict(data: Any) -> Rules:
    """Rules from a JSON object, of the class of the family it names."""
    if not isinstance(data, dict):
        raise RulesError(f"rules must be a JSON object, got {type(data).__name__}")
    return family(data.get("family")).rules_class.from_dict(data)


def rules_from_json(text: str) -> Rules:
    """Rules from JSON text (``Rules.to_json``), of the class of the family it names."""
    import json

    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RulesError(f"rules JSON is not valid JSON: {e}") from None
    return rules_from_dict(data)


def presets() -> dict[str, Rules]:
    """Every family's presets by name: ``rummy101``, ``rummy101-increasing``,
    ``rummy101-button``, ``rummikub``, ``rummy101-cards``."""
    return dict(_presets())


@functools.cache
def _presets() -> dict[str, Rules]:
    # Gathered once: rules are frozen, and a preset named in every sim.table_play call cost
    # 2.2 us to gather again, a sixth of the call (issue 26)
    return {name: r for f in families() for name, r in f.presets.items()}


def preset(name: str) -> Rules:
    """The named preset (:func:`presets`).

    >>> preset("rummikub").open_points
    30
    """
    found = _presets()
    try:
        return found[name]
    except (KeyError, TypeError):
        raise RulesError(f"unknown preset {name!r}; presets: {', '.join(found)}") from None


def resolve_rules(rules: Rules | str | None) -> Rules:
    """``None`` -> the default preset, a preset name -> that preset, rules -> themselves."""
    if rules is None:
        return preset(DEFAULT_PRESET)
    if isinstance(rules, str):
        return preset(rules)
    if getattr(rules, "family", None) in FAMILIES and hasattr(rules, "to_json"):  # a family's Rules
        return rules
    raise RulesError(f"rules must be a Rules object or a preset name, got {type(rules).__name__}")
