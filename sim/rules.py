"""The rules in force: one frozen, validated :class:`Rules` per variant, and named presets.

Every field is a parameter of docs/rules.md with the default given there; a preset is a
Rules value with a name (``sim.preset("rummy101")``). Rules travel as JSON into every
Parquet file and report, and come back through :meth:`Rules.from_json`.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, fields
from typing import Any, get_type_hints

from sim.errors import RulesError

FAMILIES = ("rummy101", "rummikub", "rummy101-cards")
THRESHOLD_MODES = ("fixed", "increasing")
JOKER_MOVES = ("bound", "free")  # K-JOKER-2


@dataclass(frozen=True)
class Rules:
    """One variant's rules. Construct through :func:`preset` and :meth:`replace`.

    >>> r = preset("rummy101").replace(threshold_mode="increasing", players=3)
    >>> r.open_points, r.threshold_mode, r.players
    (101, 'increasing', 3)
    >>> Rules.from_json(r.to_json()) == r
    True
    """

    name: str
    family: str
    players: int = 4
    # Deal (T-SET-2, K-SET-1, C-SET-1). rack_size 0 for cards means "10 with 2 players, else 7".
    rack_size: int = 21
    starter_extra: int = 1
    # T-SET-2 Decision: the starter's first turn skips only the take, and may open and lay
    # down before its discard; false: that first turn is the discard alone.
    starter_may_open: bool = True
    jokers: int = 2
    # Opening (T-OPEN, T-THR, K-OPEN-1). open_pairs 0: no pairs opening (Rummikub, cards).
    open_points: int = 101
    open_pairs: int = 5
    threshold_mode: str = "fixed"
    keep_discard: bool = True  # T-OPEN-4: a tile must remain for the discard
    # Melds (T-MELD-4, K-MELD-2): jokers allowed in a set of three; K-VAR wrap_runs.
    group_of_three_max_jokers: int = 2
    wrap_runs: bool = False
    # Jokers (T-BTN-1, T-VAL-1, K-END-1).
    button_jokers: int = 0
    joker_penalty: int = 101
    # Scores (T-SCORE-1..3, T-END-1): the winner gains win_points, doubled by a joker or
    # one-turn finish (finish_factor) and again for both; an opponent loses
    # unopened_penalty, or the rack sum (times pairs_penalty_factor after a pairs
    # opening), times finish_factor after a joker finish; one_turn_penalty each after a
    # one-turn finish (times finish_factor with a joker).
    win_points: int = 101
    unopened_penalty: int = 202
    pairs_penalty_factor: int = 2
    finish_factor: int = 2
    one_turn_penalty: int = 404
    # Rummikub house variants (K-VAR).
    locked_jokers: bool = False
    easing_open: bool = False
    easing_step: int = 5
    easing_every: int = 3
    easing_floor: int = 10
    last_call: bool = False
    # K-JOKER-2: a table joker stays bound to the tile it stands for (bound) or may stand
    # for any tile after a rearrangement (free, the reading used before the revision).
    joker_moves: str = "bound"
    # Cards (C-SET-1, C-MATCH-1, C-TEAM-1).
    decks: int = 1
    target: int = 101
    partners: bool = False
    # C-SCORE-2: whether a one-turn out with lay-offs on table melds counts as rummy.
    rummy_layoffs: bool = False

    def __post_init__(self) -> None:
        _validate(self)

    # --- conversions -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        if not isinstance(data, dict):
            raise RulesError(f"rules must be a JSON object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(f"unknown rules field {unknown[0]!r}; known fields: {', '.join(sorted(known))}")
        family = data.get("family")
        if family not in FAMILIES:
            raise RulesError(f"family: must be one of {', '.join(FAMILIES)} (got {family!r})")
        base = _FAMILY_BASE[family]
        data = _earlier_readings(data)
        values = {**base.to_dict(), **data}
        _check_types(values)
        return cls(**values)

    @classmethod
    def from_json(cls, text: str) -> Rules:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise RulesError(f"rules JSON is not valid JSON: {e}") from None
        return cls.from_dict(data)

    def replace(self, **changes: Any) -> Rules:
        """A validated copy with some fields changed (unknown field names are rejected)."""
        known = {f.name for f in fields(self)}
        for key in changes:
            if key not in known:
                raise RulesError(f"unknown rules field {key!r}; known fields: {', '.join(sorted(known))}")
        values = {**self.to_dict(), **changes}
        _check_types(values)
        return Rules(**values)

    def with_settings(self, settings: dict[str, str], **fixed: Any) -> Rules:
        """A copy with fields set from text values (``--set open_points=91``), typed by field,
        and the typed values ``fixed`` (``players`` from ``--players``), validated together:
        the order of the flags does not matter. A field of another family is refused
        whatever its value."""
        hints = get_type_hints(Rules)
        changes: dict[str, Any] = {}
        for key, text in settings.items():
            if key not in hints:
                known = ", ".join(sorted(hints))
                raise RulesError(f"unknown rules field {key!r}; known fields: {known}")
            if key == "family":
                raise RulesError("family: choose a preset of that family instead of setting it")
            owner = _OWNER.get(key)
            if owner is not None and owner[0] != self.family:
                raise RulesError(f"{key}: {owner[1]}, not a rule of {self.family}")
            changes[key] = _parse_value(key, hints[key], text)
        for key, value in fixed.items():
            if value is None:
                continue
            if key in changes and changes[key] != value:
                raise RulesError(f"{key}: set to {changes[key]} by --set and to {value} by --{key}")
            changes[key] = value
        return self.replace(**changes)

    # --- derived -----------------------------------------------------------------------

    @property
    def has_pairs_opening(self) -> bool:
        return self.open_pairs > 0

    def deal_size(self, starter: bool = False) -> int:
        """Tiles (cards) dealt to one player: T-SET-2, K-SET-1, C-SET-1."""
        if self.family == "rummy101-cards":
            return self.rack_size or (10 if self.players == 2 else 7)
        return self.rack_size + (self.starter_extra if starter else 0)


def _parse_value(key: str, typ: Any, text: str) -> Any:
    text = text.strip()
    if typ is bool:
        low = text.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise RulesError(f"{key}: expected true or false, got {text!r}")
    if typ is int:
        try:
            return int(text)
        except ValueError:
            raise RulesError(f"{key}: expected a whole number, got {text!r}") from None
    return text


def _check_types(values: dict[str, Any]) -> None:
    hints = get_type_hints(Rules)
    for key, value in values.items():
        typ = hints[key]
        ok = isinstance(value, bool) if typ is bool else (
            isinstance(value, int) and not isinstance(value, bool) if typ is int else isinstance(value, typ)
        )
        if not ok:
            raise RulesError(f"{key}: expected {typ.__name__}, got {value!r}")


def _validate(r: Rules) -> None:
    def need(cond: bool, field: str, what: str) -> None:
        if not cond:
            raise RulesError(f"{field}: {what} (got {getattr(r, field)!r})")

    need(r.family in FAMILIES, "family", f"must be one of {', '.join(FAMILIES)}")
    need(r.players in (2, 3, 4), "players", "must be 2, 3 or 4")
    need(r.threshold_mode in THRESHOLD_MODES, "threshold_mode", "must be fixed or increasing")
    need(r.joker_moves in JOKER_MOVES, "joker_moves", "must be bound or free (K-JOKER-2)")
    need(r.open_points >= 0, "open_points", "must not be negative")
    need(r.open_points <= 1000, "open_points", "must be at most 1000")
    need(r.open_pairs >= 0, "open_pairs", "must not be negative (0 turns the pairs opening off)")
    need(r.open_pairs <= 13, "open_pairs", "must be at most 13")
    need(r.jokers in (0, 1, 2), "jokers", "the set holds 0, 1 or 2 jokers")
    need(r.button_jokers in (0, 1), "button_jokers", "must be 0 or 1 (T-BTN-1)")
    need(r.group_of_three_max_jokers in (1, 2), "group_of_three_max_jokers", "must be 1 or 2")
    need(r.joker_penalty >= 0, "joker_penalty", "must not be negative")
    for name in ("win_points", "unopened_penalty", "one_turn_penalty"):
        need(getattr(r, name) >= 0, name, "must not be negative")
    for name in ("pairs_penalty_factor", "finish_factor"):
        need(1 <= getattr(r, name) <= 10, name, "must be 1-10")
    need(r.easing_step >= 0, "easing_step", "must not be negative")
    need(r.easing_every >= 1, "easing_every", "must be at least 1")
    need(r.easing_floor >= 0, "easing_floor", "must not be negative")
    need(r.decks in (1, 2), "decks", "must be 1 or 2")
    need(r.decks == 1 or r.players == 4, "decks", "two decks only with four players (C-SET-1)")
    need(r.target >= 1, "target", "must be at least 1")
    need(not r.partners or r.players == 4, "partners", "partners need four players (C-TEAM-1)")
    need(r.starter_extra in (0, 1), "starter_extra", "must be 0 or 1")
    if r.family == "rummy101-cards":
        need(r.rack_size in (0, *range(3, 27)), "rack_size", "must be 0 (by players) or 3-26")
        # C-DEAL-1: every hand and the upcard come from the decks, and a card is left for the stock.
        need(r.players * r.deal_size() + 2 <= 52 * r.decks, "rack_size",
             f"{r.players} hands of {r.deal_size()} cards and the upcard leave no card for the stock of "
             f"{r.decks} deck(s) of 52 (C-DEAL-1)")
    else:
        need(3 <= r.rack_size <= 30, "rack_size", "must be 3-30")
        # All racks and the first discard must fit in the 106 tiles.
        total = r.players * r.rack_size + r.starter_extra
        need(total < 104 + r.jokers, "rack_size", f"{r.players} racks of it do not fit in the set")
    if r.family != "rummikub":
        for name in ("wrap_runs", "locked_jokers", "easing_open", "last_call"):
            need(not getattr(r, name), name, f"a Rummikub house rule (K-VAR), not one of {r.family}")
        need(r.joker_moves == "bound", "joker_moves", f"a Rummikub rule (K-JOKER-2), not one of {r.family}")
    if r.family != "rummy101":
        need(r.button_jokers == 0, "button_jokers", "the joker button is a Rummy 101 tiles rule")
        need(r.threshold_mode == "fixed", "threshold_mode", "increasing thresholds are a Rummy 101 rule")
    base = globals().get("_FAMILY_BASE", {}).get(r.family)  # None while the bases themselves are built
    if base is not None:
        own = _CARD_FIELDS if r.family == "rummy101-cards" else None
        for f in fields(r):
            foreign = f.name not in own if own is not None else f.name in _CARD_ONLY
            need(not foreign or f.name in ("name", "family") or getattr(r, f.name) == getattr(base, f.name),
                 f.name, f"not a rule of {r.family}" + (f"; its fields: {', '.join(sorted(own))}" if own else ""))


# The fields card Rummy 101 plays by (C-SET-1, C-MATCH-1, C-TEAM-1; finish_factor is the
# rummy factor of C-SCORE-2), and those only it has: any other family's field set on a
# card variant, or a card field on a tile variant, is refused.
_CARD_FIELDS = frozenset({"players", "rack_size", "decks", "target", "partners", "finish_factor", "rummy_layoffs"})
# The fields of one family only, which ``--set`` refuses on another whatever the value.
_OWNER = {
    **{name: ("rummikub", "a Rummikub house rule (K-VAR)")
       for name in ("wrap_runs", "locked_jokers", "easing_open", "easing_step", "easing_every", "easing_floor",
                    "last_call")},
    "joker_moves": ("rummikub", "a Rummikub rule (K-JOKER-2)"),
    **{name: ("rummy101-cards", "a card Rummy 101 rule (C-SET-1, C-MATCH-1, C-TEAM-1)")
       for name in ("decks", "target", "partners")},
    "rummy_layoffs": ("rummy101-cards", "a card Rummy 101 rule (C-SCORE-2)"),
}
_CARD_ONLY = frozenset(name for name, (family, _) in _OWNER.items() if family == "rummy101-cards")
# Fields added with a new reading of a rule: a rules object written before one existed
# (every other field present) was played under the earlier reading.
_EARLIER = {
    "joker_moves": ("rummikub", "free"),  # K-JOKER-2 revised
    "rummy_layoffs": ("rummy101-cards", True),  # C-SCORE-2 revised
}


def _earlier_readings(data: dict[str, Any]) -> dict[str, Any]:
    """A rules object from a dataset written before a field of :data:`_EARLIER` existed,
    with that field set to the reading it was played under."""
    missing = {name for name in _EARLIER if name not in data}
    if not missing:
        return data
    others = {f.name for f in fields(Rules)} - set(_EARLIER)
    if not others <= set(data):
        return data  # a partial object: the defaults apply
    return {**data, **{name: value for name, (family, value) in _EARLIER.items()
                       if name in missing and data.get("family") == family}}

_RUMMY101 = Rules(name="rummy101", family="rummy101")
_RUMMIKUB = Rules(
    name="rummikub",
    family="rummikub",
    rack_size=14,
    starter_extra=0,
    open_points=30,
    open_pairs=0,
    keep_discard=False,  # Rummikub has no discard
    group_of_three_max_jokers=1,  # K-MELD-2
    joker_penalty=30,  # K-END-1
)
_CARDS = Rules(
    name="rummy101-cards",
    family="rummy101-cards",
    rack_size=0,
    starter_extra=0,
    jokers=0,
    open_points=0,
    open_pairs=0,
    joker_penalty=0,
)
_FAMILY_BASE = {"rummy101": _RUMMY101, "rummikub": _RUMMIKUB, "rummy101-cards": _CARDS}

PRESETS: dict[str, Rules] = {
    "rummy101": _RUMMY101,
    "rummy101-increasing": _RUMMY101.replace(name="rummy101-increasing", threshold_mode="increasing"),
    "rummy101-button": _RUMMY101.replace(name="rummy101-button", button_jokers=1),
    "rummikub": _RUMMIKUB,
    "rummy101-cards": _CARDS,
}


def preset(name: str) -> Rules:
    """The named preset: ``rummy101``, ``rummy101-increasing``, ``rummy101-button``,
    ``rummikub`` or ``rummy101-cards``.

    >>> preset("rummikub").open_points
    30
    """
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise RulesError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}") from None


def resolve_rules(rules: Rules | str | None) -> Rules:
    """``None`` -> rummy101, a preset name -> that preset, a Rules -> itself."""
    if rules is None:
        return _RUMMY101
    if isinstance(rules, str):
        return preset(rules)
    if isinstance(rules, Rules):
        return rules
    raise RulesError(f"rules must be a Rules object or a preset name, got {type(rules).__name__}")
