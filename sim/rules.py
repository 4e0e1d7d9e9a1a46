"""What every family's rules share: one frozen, validated dataclass per variant, its JSON
round trip, ``replace`` and ``--set`` parsing.

Each rule family declares its own rules class in its package
(``sim/games/<family>/rules.py``), a subclass of :class:`Rules` (the tile families through
:class:`TileRules`) with its fields named in its game's words and the defaults of
docs/rules.md, its standard game ``STANDARD`` and its presets. :mod:`sim.games` finds a
rules object's class by its ``family`` (:func:`sim.games.rules_from_dict`,
:func:`sim.games.preset`); nothing here names a game.

Rules travel as JSON into every Parquet file, trace and report. JSON written before the
rules were split per family holds every family's fields (:data:`ONE_CLASS_FIELDS`); a
family reads it through :meth:`Rules.from_one_class`, dropping the fields of the others,
which its engine never read.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from dataclasses import dataclass, fields
from typing import Any, ClassVar, get_type_hints

from sim.errors import RulesError

# Every field of the one rules class all families shared until 2026-12 (what the rules JSON
# of older datasets and traces holds).
ONE_CLASS_FIELDS = frozenset({
    "name", "family", "players", "rack_size", "starter_extra", "starter_may_open", "jokers", "open_points",
    "open_pairs", "threshold_mode", "keep_discard", "group_of_three_max_jokers", "wrap_runs", "button_jokers",
    "joker_penalty", "win_points", "unopened_penalty", "pairs_penalty_factor", "finish_factor",
    "one_turn_penalty", "locked_jokers", "easing_open", "easing_step", "easing_every", "easing_floor",
    "last_call", "joker_moves", "decks", "target", "partners", "rummy_layoffs",
})
# A rules name is used in file names (``sim deal-stats``' default --out): a plain name, no
# path. Letters, digits, ".", "_" and "-", not starting with "." (no "..", no hidden file),
# short enough for a file name with the suffixes added to it.
NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")
# The fields the one class gained last: one-class JSON written before them lacks them (a
# family's ``earlier_readings`` say how those rounds were played).
ONE_CLASS_LATEST = frozenset({"joker_moves", "rummy_layoffs"})


@dataclass(frozen=True)
class Rules:
    """One variant's rules: the fields every family has. A family's subclass adds its own
    and checks them in :meth:`validate`; build one through :func:`sim.preset` and
    :meth:`replace`.

    >>> from sim import preset
    >>> r = preset("rummy101").replace(threshold_mode="increasing", players=3)
    >>> r.open_points, r.threshold_mode, r.players
    (101, 'increasing', 3)
    >>> type(r).from_json(r.to_json()) == r
    True
    """

    name: str
    family: str
    players: int = 4

    # Fields added with a new reading of a rule: one-class JSON without the field was
    # played under the reading given here (field -> value).
    earlier_readings: ClassVar[dict[str, Any]] = {}
    # Fields a one-class object held under another name (old name -> field).
    renamed: ClassVar[dict[str, str]] = {}
    # The range of every numeric field, both ends allowed: field -> (lowest, highest) or
    # (lowest, highest, a note for the message). A range is what makes sense in the game
    # and what the family's table columns hold in its worst case (the family's class says
    # how); a family's class extends its base's, and a test holds every int field to one.
    bounds: ClassVar[dict[str, tuple]] = {"players": (2, 4)}

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise :class:`~sim.errors.RulesError` naming the first field out of range: the
        name, then every field of :attr:`bounds`; a family's class then checks the values
        that depend on each other."""
        self.need(isinstance(self.name, str) and NAME.fullmatch(self.name) is not None, "name",
                  "must be a plain name, no path: at most 100 ASCII letters, digits, '.', '_' and '-', "
                  "not starting with '.'")
        for field, (low, high, *note) in self.bounds.items():
            value = getattr(self, field)
            self.need(isinstance(value, int) and low <= value <= high, field,
                      f"must be {range_text(low, high)}" + "".join(f" ({n})" for n in note))

    def need(self, cond: bool, field: str, what: str) -> None:
        """Refuse the rules unless ``cond``: ``field: what (got value)``."""
        if not cond:
            raise RulesError(f"{field}: {what} (got {getattr(self, field)!r})")

    # --- conversions -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def defaults(cls) -> Rules | None:
        """The family's standard game: ``STANDARD`` of the module defining the class (None
        for the base classes here, which belong to no family)."""
        return getattr(sys.modules[cls.__module__], "STANDARD", None)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rules of this family from a JSON object: fields left out take the standard
        game's values; one-class JSON (:data:`ONE_CLASS_FIELDS`) is read too. On a base
        class (``Rules.from_dict``), of the family the object names
        (:func:`sim.games.rules_from_dict`)."""
        if not isinstance(data, dict):
            raise RulesError(f"rules must be a JSON object, got {type(data).__name__}")
        if cls.defaults() is None:  # a base class: no family of its own
            from sim.games import rules_from_dict

            return rules_from_dict(data)
        family = cls.defaults().family
        if data.get("family") != family:
            raise RulesError(f"family: these are rules of {data.get('family')!r}, not of {family}")
        if set(data) >= ONE_CLASS_FIELDS - ONE_CLASS_LATEST:
            data = cls.from_one_class(data)
        unknown = sorted(set(data) - set(cls.field_names()))
        if unknown:
            raise cls.defaults()._not_a_field(unknown[0])
        values = {**cls.defaults().to_dict(), **data}
        cls._check_types(values)
        return cls(**values)

    @classmethod
    def from_one_class(cls, data: dict[str, Any]) -> dict[str, Any]:
        """A one-class rules object as this family's fields: renamed fields under their new
        names, fields of newer readings at the reading it was played under, and every
        other family's field dropped."""
        data = {cls.renamed.get(k, k): v for k, v in data.items()}
        data = {**{k: v for k, v in cls.earlier_readings.items() if k not in data}, **data}
        own = set(cls.field_names())
        return {k: v for k, v in data.items() if k in own}

    @classmethod
    def from_json(cls, text: str) -> Rules:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise RulesError(f"rules JSON is not valid JSON: {e}") from None
        return cls.from_dict(data)

    def replace(self, **changes: Any) -> Rules:
        """A validated copy with some fields changed (unknown field names are rejected)."""
        for key in changes:
            if key not in self.field_names():
                raise self._not_a_field(key)
        values = {**self.to_dict(), **changes}
        self._check_types(values)
        return type(self)(**values)

    def with_settings(self, settings: dict[str, str], **fixed: Any) -> Rules:
        """A copy with fields set from text values (``--set open_points=91``), typed by field,
        and the typed values ``fixed`` (``players`` from ``--players``), validated together:
        the order of the flags does not matter. A field of another family is refused
        whatever its value."""
        changes = {key: self.typed_value(key, text) for key, text in settings.items()}
        for key, value in fixed.items():
            if value is None:
                continue
            if key in changes and changes[key] != value:
                raise RulesError(f"{key}: set to {changes[key]} by --set and to {value} by --{key}")
            changes[key] = value
        return self.replace(**changes)

    def typed_value(self, key: str, text: str) -> Any:
        """Field ``key``'s value read from text (``--set``, ``--grid``), typed by the field,
        not yet validated: ``+91`` and ``091`` are 91. A field these rules do not have, or
        ``family``, is refused."""
        if key == "family":
            raise RulesError("family: choose a preset of that family instead of setting it")
        if key not in self.field_names():
            raise self._not_a_field(key)
        return _parse_value(key, get_type_hints(type(self))[key], text)

    def _not_a_field(self, key: str) -> RulesError:
        """The error for a field these rules do not have: whose rule it is, if a family's."""
        from sim.games import families

        mine = next((f.title for f in families() if f.name == self.family), self.family)
        owners = [f.title for f in families() if key in f.rules_class.field_names()]
        fields_ = ", ".join(n for n in self.field_names() if n not in ("name", "family"))
        if owners:
            return RulesError(f"{key}: a rule of {' and '.join(owners)}, not of {mine}; its fields: {fields_}")
        return RulesError(f"unknown rules field {key!r}; the fields of {mine}: {fields_}")

    @classmethod
    def _check_types(cls, values: dict[str, Any]) -> None:
        hints = get_type_hints(cls)
        for key, value in values.items():
            typ = hints[key]
            ok = isinstance(value, bool) if typ is bool else (
                isinstance(value, int) and not isinstance(value, bool) if typ is int else isinstance(value, typ)
            )
            if not ok:
                raise RulesError(f"{key}: expected {typ.__name__}, got {value!r}")

    # --- derived -----------------------------------------------------------------------

    def deal_size(self, starter: bool = False) -> int:
        """Tiles or cards dealt to one player (``starter``: the player who starts)."""
        raise NotImplementedError


@dataclass(frozen=True)
class TileRules(Rules):
    """The rules every game with the 106-tile set has (T-SET, K-SET; the tile deal and the
    opening solver read them): racks, jokers, the opening value, the jokers allowed in a
    group of three, and what a joker left on a rack costs.

    The opening solver also reads the attributes below, which a tile family without
    that rule leaves at these values and one with it declares as fields."""

    rack_size: int = 21
    jokers: int = 2
    open_points: int = 101
    group_of_three_max_jokers: int = 2
    joker_penalty: int = 101

    starter_extra: ClassVar[int] = 0  # T-SET-2: tiles the starter gets beyond a rack
    open_pairs: ClassVar[int] = 0  # T-OPEN-2: pairs that open (0: no pairs opening)
    keep_discard: ClassVar[bool] = False  # T-OPEN-4: a tile must remain for the discard
    button_jokers: ClassVar[int] = 0  # T-BTN-1
    wrap_runs: ClassVar[bool] = False  # K-VAR: runs may wrap from 13 to 1

    # A rack holds at most the 104 numbered tiles (728 points) and 6 jokers (the set's 2,
    # one button joker a player, T-BTN-1): 728 + 6 x 1,000 fits the int16 rack_value and
    # open_threshold columns. 1,000 is ten times the largest opening and joker penalty of
    # the standard games (101).
    bounds: ClassVar[dict[str, tuple]] = {
        **Rules.bounds, "rack_size": (3, 30), "jokers": (0, 2, "T-SET-1"), "open_points": (0, 1_000),
        "group_of_three_max_jokers": (1, 2), "joker_penalty": (0, 1_000)}

    def validate(self) -> None:
        super().validate()
        # All racks and the first discard must fit in the 106 tiles.
        total = self.players * self.rack_size + self.starter_extra
        self.need(total < 104 + self.jokers, "rack_size", f"{self.players} racks of it do not fit in the set")

    @property
    def has_pairs_opening(self) -> bool:
        return self.open_pairs > 0

    def deal_size(self, starter: bool = False) -> int:
        """Tiles dealt to one player: T-SET-2, K-SET-1."""
        return self.rack_size + (self.starter_extra if starter else 0)


def range_text(low: int, high: int) -> str:
    """``0-10,000``; ``2, 3 or 4`` and ``0 or 1`` for short ranges."""
    if high - low == 1:
        return f"{low} or {high}"
    if high - low == 2:
        return f"{low}, {low + 1} or {high}"
    return f"{low:,}-{high:,}"


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
