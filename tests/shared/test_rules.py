"""Rules objects and presets: each family's own rules class, validation names the field,
JSON round-trips (one-class JSON of older datasets too), presets carry the values
docs/rules.md gives."""

import json
from pathlib import Path

import pytest

import sim
from sim.games import families, rules_from_dict, rules_from_json
from sim.rules import Rules, TileRules

PRESETS = sim.PRESETS
ONE_CLASS = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "one_class_rules.json").read_text())


def test_presets_exist_with_rule_values():
    assert set(PRESETS) == {
        "rummy101", "rummy101-increasing", "rummy101-button", "rummikub", "rummy101-cards"
    }
    r = sim.preset("rummy101")
    assert (r.open_points, r.open_pairs, r.threshold_mode) == (101, 5, "fixed")
    assert (r.rack_size, r.starter_extra) == (21, 1)  # T-SET-2
    assert sim.preset("rummy101-increasing").threshold_mode == "increasing"  # T-THR-2
    assert sim.preset("rummy101-button").button_jokers == 1  # T-BTN-1
    k = sim.preset("rummikub")
    assert (k.open_points, k.rack_size, k.keep_discard, k.group_of_three_max_jokers) == (30, 14, False, 1)
    assert not (k.wrap_runs or k.locked_jokers or k.easing_open or k.last_call)  # K-VAR off
    assert k.joker_penalty == 30  # K-END-1
    c = sim.preset("rummy101-cards")
    assert (c.deal_size(), c.replace(players=2).deal_size(), c.target) == (7, 10, 101)  # C-SET-1


@pytest.mark.parametrize("name", list(PRESETS))
def test_json_round_trip(name):
    r = sim.preset(name)
    assert rules_from_json(r.to_json()) == r
    assert type(r).from_json(r.to_json()) == r
    assert json.loads(r.to_json())["family"] == r.family


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"players": 5}, "players"),
        ({"players": 1}, "players"),
        ({"open_points": -1}, "open_points"),
        ({"open_pairs": -2}, "open_pairs"),
        ({"threshold_mode": "rising"}, "threshold_mode"),
        ({"button_jokers": 2}, "button_jokers"),
        ({"players": "4"}, "players"),
        ({"keep_discard": 1}, "keep_discard"),
        ({"colour": "red"}, "colour"),
        ({"rack_size": 40}, "rack_size"),
    ],
)
def test_impossible_values_are_rejected_naming_the_field(changes, field):
    with pytest.raises(sim.RulesError) as e:
        sim.preset("rummy101").replace(**changes)
    assert field in str(e.value)


def test_unknown_preset_lists_the_known_ones():
    with pytest.raises(sim.RulesError, match=r"unknown preset 'rummy'.*rummy101"):
        sim.preset("rummy")


def test_presets_given_are_a_copy_and_each_preset_is_the_same_frozen_rules():
    # preset() reads the presets gathered once (a table play names one at each call)
    given = sim.games.presets()
    given["rummikub"] = sim.preset("rummy101")
    del given["rummy101"]
    assert sim.preset("rummikub").family == "rummikub"
    assert "rummy101" in sim.games.presets()
    assert sim.preset("rummikub") is sim.preset("rummikub")


def test_rules_are_frozen():
    r = sim.preset("rummy101")
    with pytest.raises(AttributeError):
        r.players = 3  # type: ignore[misc]


def test_settings_from_text_are_typed_and_checked():
    r = sim.preset("rummy101").with_settings({"open_points": "91", "threshold_mode": "increasing",
                                              "keep_discard": "false"})
    assert (r.open_points, r.threshold_mode, r.keep_discard) == (91, "increasing", False)
    with pytest.raises(sim.RulesError, match="open_points: expected a whole number"):
        sim.preset("rummy101").with_settings({"open_points": "lots"})
    with pytest.raises(sim.RulesError, match="wrap_runs: expected true or false"):
        sim.preset("rummikub").with_settings({"wrap_runs": "maybe"})
    with pytest.raises(sim.RulesError, match="unknown rules field 'points'"):
        sim.preset("rummy101").with_settings({"points": "1"})


def test_bad_json_is_rejected():
    with pytest.raises(sim.RulesError, match="not valid JSON"):
        rules_from_json("{not json")
    with pytest.raises(sim.RulesError, match="family"):
        rules_from_json('{"players": 3}')
    partial = rules_from_json('{"family": "rummikub", "name": "mine", "wrap_runs": true}')
    assert partial.wrap_runs and partial.open_points == 30


@pytest.mark.parametrize("field", ["wrap_runs", "locked_jokers", "easing_open", "last_call"])
@pytest.mark.parametrize("family_preset", ["rummy101", "rummy101-cards"])
def test_k_var_house_rules_belong_to_rummikub(field, family_preset):
    """A Rummikub house rule (K-VAR) on another family is refused, naming the field."""
    with pytest.raises(sim.RulesError, match=f"{field}: a rule of Rummikub, not of"):
        sim.preset(family_preset).replace(**{field: True})
    assert getattr(sim.preset("rummikub").replace(**{field: True}), field) is True


def test_k_joker_2_and_c_score_2_readings_are_fields_with_the_revised_defaults():
    """K-JOKER-2 (revised): table jokers bound by default, ``free`` the earlier reading;
    C-SCORE-2 (revised): rummy without lay-offs by default, ``rummy_layoffs`` the earlier."""
    assert sim.preset("rummikub").joker_moves == "bound"
    assert sim.preset("rummikub").with_settings({"joker_moves": "free"}).joker_moves == "free"
    assert sim.preset("rummy101-cards").rummy_layoffs is False
    assert sim.preset("rummy101-cards").with_settings({"rummy_layoffs": "true"}).rummy_layoffs is True
    with pytest.raises(sim.RulesError, match=r"joker_moves: must be bound or free \(K-JOKER-2\)"):
        sim.preset("rummikub").with_settings({"joker_moves": "loose"})


@pytest.mark.parametrize(("family_preset", "field", "value"), [
    ("rummy101", "joker_moves", "free"), ("rummy101", "joker_moves", "bound"),
    ("rummy101-cards", "joker_moves", "bound"), ("rummy101", "rummy_layoffs", "false"),
    ("rummikub", "rummy_layoffs", "true"), ("rummikub", "target", "101"), ("rummy101", "last_call", "false")])
def test_a_field_of_another_family_is_refused_whatever_its_value(family_preset, field, value):
    with pytest.raises(sim.RulesError, match=f"{field}: a rule of .*, not of "):
        sim.preset(family_preset).with_settings({field: value})


def test_rules_written_before_a_revised_reading_load_as_played():
    """One-class rules JSON from before ``joker_moves`` / ``rummy_layoffs`` existed (every
    other field present) was played under the earlier reading (K-JOKER-2, C-SCORE-2 revised),
    and says so when read."""
    for name, field, earlier in (("rummikub", "joker_moves", "free"), ("rummy101-cards", "rummy_layoffs", True)):
        old = dict(ONE_CLASS[name])
        del old["joker_moves"], old["rummy_layoffs"]
        assert getattr(rules_from_dict(old), field) == earlier
        assert getattr(rules_from_dict({"family": old["family"], "name": "mine"}), field) != earlier  # a new object
    old = dict(ONE_CLASS["rummy101"])
    del old["joker_moves"], old["rummy_layoffs"]
    assert rules_from_dict(old) == sim.preset("rummy101")


@pytest.mark.parametrize("name", sorted(ONE_CLASS))
def test_one_class_rules_of_older_datasets_load_as_their_family_s_rules(name):
    """JSON of the one rules class all families shared (every field of every family) loads
    as the family's own class: its fields kept, the card fields renamed (rack_size ->
    hand_size, finish_factor -> rummy_factor), the other families' fields dropped."""
    old = ONE_CLASS[name]
    r = rules_from_dict(old)
    assert r.family == old["family"] and type(r) is next(f.rules_class for f in families() if f.name == r.family)
    for field in r.field_names():
        was = {"hand_size": "rack_size", "rummy_factor": "finish_factor"}.get(field, field) if r.family == \
            "rummy101-cards" else field
        assert getattr(r, field) == old[was], field
    assert rules_from_json(r.to_json()) == r


def test_each_family_has_its_own_rules_class_over_the_shared_base():
    """Rules per family (docs/rules.md T, K, C): the tile families over TileRules, every
    field named in its game's words; a field of another family is not a field."""
    classes = {f.name: f.rules_class for f in families()}
    assert all(issubclass(c, Rules) for c in classes.values())
    assert issubclass(classes["rummy101"], TileRules) and issubclass(classes["rummikub"], TileRules)
    cards = set(classes["rummy101-cards"].field_names())
    assert {"hand_size", "rummy_factor", "decks", "target", "partners"} <= cards
    assert not cards & {"rack_size", "finish_factor", "open_points", "jokers"}
    assert "win_points" not in classes["rummikub"].field_names()  # Rummikub scores by racks left (K-END-1)
    assert "wrap_runs" not in classes["rummy101"].field_names()
    with pytest.raises(sim.RulesError, match="win_points: a rule of Rummy 101, not of Rummikub"):
        sim.preset("rummikub").with_settings({"win_points": "3"})
    with pytest.raises(sim.RulesError, match="these are rules of 'rummikub', not of rummy101"):
        type(sim.preset("rummy101")).from_dict(sim.preset("rummikub").to_dict())


def test_every_rule_id_cited_is_defined_in_the_rules_reference():
    """docs/rules.md is the project's own rules reference (a clone has no other): every
    rule id that the code, the tests, the notebooks and the README cite is defined there."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    defined = set(re.findall(r"^- \*\*([TKC]-[A-Z]+(?:-\d+)?)\*\*", (root / "docs" / "rules.md").read_text(), re.M))
    assert len(defined) >= 50 and {"K-JOKER-2", "C-SCORE-2", "C-DEAL-1", "K-VAR", "T-OPEN-4"} <= defined
    files = [*root.glob("sim/**/*.py"), *root.glob("tests/**/*.py"), *root.glob("notebooks/*.py"), root / "README.md"]
    missing = set()
    for path in files:
        for rule, number in re.findall(r"\b([TKC]-[A-Z]{3,})(?:-(\d+))?\b", path.read_text()):
            cited = f"{rule}-{number}" if number else rule
            known = cited in defined if number else any(d == rule or d.startswith(rule + "-") for d in defined)
            if not known:
                missing.add((cited, path.name))
    assert not missing, sorted(missing)


# --- ranges of the numeric fields and the rules name ---------------------------------------

FAMILY_PRESETS = {f.name: f.rules_class.defaults().name for f in families()}
BOUNDED = [(preset, field) for family, preset in FAMILY_PRESETS.items()
           for field in next(f.rules_class for f in families() if f.name == family).bounds]


def _numeric_fields(cls) -> set[str]:
    from typing import get_type_hints

    hints = get_type_hints(cls)
    return {name for name in cls.field_names() if hints[name] is int}


def test_every_numeric_field_of_every_family_has_a_range():
    """A range per int field (``bounds``), no more: a new field cannot slip in unbounded."""
    for f in families():
        assert set(f.rules_class.bounds) == _numeric_fields(f.rules_class), f.name
        for field, (low, high, *_) in f.rules_class.bounds.items():
            assert low <= getattr(f.rules_class.defaults(), field) <= high  # the standard game inside


def at_value(preset: str, field: str, value: int):
    """The preset with ``field`` at ``value`` and the fewest other changes that make a
    valid game (two players for the largest racks and hands, four for two decks), or None."""
    base = sim.preset(preset)
    for extra in ({}, {"players": 2}, {"players": 3}, {"players": 4, "decks": 2}):
        try:
            return base.replace(**{**extra, field: value})
        except sim.RulesError:
            continue
    return None


@pytest.mark.parametrize(("preset", "field"), BOUNDED)
def test_a_range_takes_both_ends_and_refuses_past_them_naming_field_and_range(preset, field):
    from sim.rules import range_text

    rules = sim.preset(preset)
    low, high, *_ = type(rules).bounds[field]
    for value in (low, high):  # C-DEAL-1: no deal of 26 cards a hand leaves a stock
        assert at_value(preset, field, value) is not None or (field, value) == ("hand_size", 26)
    for value in (low - 1, high + 1, 3_000_000_000, -(2**70)):
        with pytest.raises(sim.RulesError) as e:
            rules.with_settings({field: str(value)})
        assert str(e.value).startswith(f"{field}: must be {range_text(low, high)}"), str(e.value)
        assert f"(got {value})" in str(e.value)


def test_ranges_read_as_people_write_them():
    from sim.rules import range_text

    assert (range_text(0, 10_000), range_text(2, 4), range_text(0, 1)) == ("0-10,000", "2, 3 or 4", "0 or 1")
    with pytest.raises(sim.RulesError, match=r"^win_points: must be 0-10,000 \(got 3000000000\)$"):
        sim.preset("rummy101").with_settings({"win_points": "3000000000"})
    with pytest.raises(sim.RulesError, match=r"^joker_penalty: must be 0-1,000 \(got 40000\)$"):
        sim.preset("rummikub").with_settings({"joker_penalty": "40000"})
    with pytest.raises(sim.RulesError, match=r"^target: must be 1-1,000 \(got 1000000000\)$"):
        sim.preset("rummy101-cards").with_settings({"target": "1000000000"})
    with pytest.raises(sim.RulesError, match=r"^open_pairs: must be 0-13 \(0 turns the pairs opening off\)"):
        sim.preset("rummy101").replace(open_pairs=14)


def test_a_rummy_101_field_on_rummikub_is_refused_as_another_family_s_before_its_range():
    with pytest.raises(sim.RulesError, match=r"^win_points: a rule of Rummy 101, not of Rummikub"):
        sim.preset("rummikub").with_settings({"win_points": "3000000000"})


@pytest.mark.parametrize("name", ["../../../escaped", "a/b", "/abs", ".hidden", "..", "", "a b", "tab\t",
                                  "new\nline", "café", "x" * 101, "a\\b"])
def test_a_rules_name_that_is_not_a_plain_name_is_refused(name):
    """The name goes into file names (deal-stats' default --out): no path, no hidden file."""
    for preset in FAMILY_PRESETS.values():
        with pytest.raises(sim.RulesError, match=r"^name: must be a plain name, no path"):
            sim.preset(preset).replace(name=name)
    with pytest.raises(sim.RulesError, match=r"^name: must be a plain name, no path"):
        sim.preset("rummy101").with_settings({"name": "../../../escaped"})  # --set name=...


def test_plain_names_pass_the_presets_too():
    for name in ("rummy101", "my-variant_2.1", "-x", "A" * 100, "half", "mine"):
        assert sim.preset("rummikub").replace(name=name).name == name
    assert all(sim.preset(p).name == p for p in PRESETS)  # every preset's name passes


def test_typed_values_compare_as_the_field_reads_them():
    r = sim.preset("rummy101")
    assert r.typed_value("open_points", "+91") == r.typed_value("open_points", "091") == 91
    assert r.typed_value("starter_may_open", "yes") is True and r.typed_value("threshold_mode", " fixed") == "fixed"
    with pytest.raises(sim.RulesError, match="wrap_runs: a rule of Rummikub, not of Rummy 101"):
        r.typed_value("wrap_runs", "true")


def test_the_rules_reference_gives_each_field_s_range_as_the_code_has_it():
    import re

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    table = text[text.index("### The fields at a glance"):text.index("## Notation")]
    documented = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[4] and cells[0].startswith("`"):
            names = re.findall(r"`(\w+)`", cells[0])
            for name, shown in zip(names, cells[4].split(", "), strict=True):
                documented[name] = shown
    want = {field: f"{low:,}-{high:,}" for f in families() for field, (low, high, *_) in f.rules_class.bounds.items()}
    assert documented == {**want, "hand_size": "0 or 3-26"}  # 1 and 2 refused with C-SET-1's message
