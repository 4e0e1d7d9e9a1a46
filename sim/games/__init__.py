"""The rule families, each a package of its own (``sim/games/<family>/``): its kernels,
bots, referee, table schemas, summary and report sections.

The shared layers (the runner, the store, parallel execution, precision, the report
builder and the CLI) know a family only through :class:`~sim.games.family.Family`,
looked up here by the ``family`` of a :class:`~sim.rules.Rules`. A family's package is
imported when that family is used, and its kernels compile only when it plays.
"""

from __future__ import annotations

import importlib

from sim.errors import RulesError
from sim.games.family import Family
from sim.rules import Rules

# family name (Rules.family) -> the package holding its FAMILY object
_PACKAGES = {
    "rummy101": "sim.games.rummy101",
    "rummikub": "sim.games.rummikub",
    "rummy101-cards": "sim.games.cards",
}


# Families whose dealt hands ``sim deal-stats`` measures their own way (a module holding
# ``DEALS``, a :class:`sim.dealstats.DealKind`, and a numba-free package ``DEAL_METRICS``);
# the tile families share the opening solver's (sim.dealstats.TILE_DEALS).
_DEALS = {"rummy101-cards": "sim.games.cards"}


def deals_of(rules: Rules):
    """The family's :class:`sim.dealstats.DealKind`, or None for the tile families'."""
    package = _DEALS.get(rules.family)
    return None if package is None else importlib.import_module(f"{package}.deals").DEALS


def deal_metrics() -> dict[str, tuple]:
    """The ``--until-ci`` metrics of each family's own deal-stats, by family (no numba)."""
    return {name: importlib.import_module(package).DEAL_METRICS for name, package in _DEALS.items()}


def family(name: str) -> Family:
    """The family called ``name`` (``rummy101``, ...)."""
    try:
        package = _PACKAGES[name]
    except KeyError:
        known = ", ".join(_PACKAGES)
        raise RulesError(f"rounds of {name!r} cannot be played yet; families with rounds: {known}") from None
    return importlib.import_module(package).FAMILY


def family_of(rules: Rules) -> Family:
    """The family whose rules these are."""
    return family(rules.family)


def family_of_manifest(manifest: dict, where) -> Family:
    """The family of a run or sweep from its manifest (read from ``where``, named in the error)."""
    from sim.errors import DatasetError

    try:
        return family_of(Rules.from_dict(manifest["variants"][0]["rules"]))
    except (KeyError, IndexError, TypeError):
        raise DatasetError(f"{where}: not a run manifest") from None


def families() -> list[Family]:
    """Every family that plays rounds."""
    return [family(name) for name in _PACKAGES]
