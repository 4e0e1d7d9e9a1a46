"""Random input never gets past the front door: random strings to the rack parser and random
``key=value`` pairs to ``--set`` give one clear error (our error type, exit status 2, no
traceback) or a valid result, never a crash or a silent default."""

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import sim
from sim.cli import app
from sim.games import families, family_of
from sim.rules import Rules
from tests.shared.test_rules import at_value

TOKENS = st.one_of(
    st.sampled_from(["R", "B", "K", "Y", "J", "r7", "J(R6)", "13", "R0", "R14", "B-1", "K1.5", "Y 3"]),
    st.text(alphabet=string.ascii_letters + string.digits + "()-+., ", max_size=6),
    st.text(max_size=4),
)


@settings(max_examples=1500)
@given(st.lists(TOKENS, max_size=12).map(" ".join))
def test_rack_parser_reads_or_names_the_problem(text):
    try:
        rack = sim.parse_rack(text)
    except sim.NotationError as e:
        assert str(e)  # one clear message
        return
    assert sim.parse_rack(str(rack)) == rack  # a rack it accepts prints back to itself
    assert all(n <= 2 for n in rack.counts[:52]) and rack.counts[52] <= 4


FIELDS = st.one_of(st.sampled_from(sorted(Rules.__dataclass_fields__)), st.text(max_size=8))
VALUES = st.one_of(st.integers(-1000, 1000).map(str), st.sampled_from(
    ["true", "false", "fixed", "increasing", "yes", "0", "", "1e3", "none", "2.5", "rummy101"]),
    st.text(max_size=6))


@settings(max_examples=1000)
@given(st.dictionaries(FIELDS, VALUES, max_size=4))
def test_settings_parse_validate_or_name_the_field(pairs):
    try:
        rules = sim.preset("rummy101").with_settings(pairs)
    except sim.RulesError as e:
        assert str(e)
        return
    for key, text in pairs.items():  # every value given is applied, none dropped
        value = getattr(rules, key)
        if isinstance(value, bool):
            assert value == (text.strip().lower() in ("1", "true", "yes", "on"))
        elif isinstance(value, int):
            assert value == int(text.strip())  # str.strip also drops the separators \x1c-\x1f
        else:
            assert value == text.strip()
    assert Rules.from_json(rules.to_json()) == rules


cli = CliRunner()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(FIELDS, VALUES), min_size=1, max_size=3))
def test_cli_set_gives_one_clear_line_or_runs(pairs):
    args = ["rules", "rummy101"]
    for key, value in pairs:
        args += ["--set", f"{key}={value}"]
    r = cli.invoke(app, args)
    assert "Traceback" not in r.output
    if r.exit_code != 0:
        assert r.exit_code == 2
        assert r.output.strip().count("\n") == 0 or "Usage" in r.output
    else:
        assert Rules.from_json(r.stdout) is not None


# --- every numeric rules field at the top of its range: the tables hold what the rules give ---

NUMBERED = 2 * 4 * sum(range(1, 14))  # the 104 numbered tiles' points, the most a rack's numbers sum to


def _top(family, field: str):
    """The family's standard game with ``field`` at the highest value a valid game takes
    (26 cards a hand fits no deck: C-DEAL-1), the easing fields with easing on (K-VAR)."""
    preset = family.rules_class.defaults().name
    high = family.rules_class.bounds[field][1]
    while (rules := at_value(preset, field, high)) is None:
        high -= 1
    return rules.replace(easing_open=True) if field.startswith("easing_") else rules


def _worst(family):
    """Every scoring field at the top of its range at once: the products of T-SCORE-1..3,
    K-END-1, C-SCORE-2 and C-MATCH-1 at their largest."""
    b = family.rules_class.bounds
    top = {f: b[f][1] for f in ("win_points", "unopened_penalty", "one_turn_penalty", "pairs_penalty_factor",
                                 "finish_factor", "joker_penalty", "button_jokers", "rummy_factor", "target") if f in b}
    return family.rules_class.defaults().replace(**top)


CASES = [(f.name, field) for f in families() for field in f.rules_class.bounds] + \
        [(f.name, "all scoring fields") for f in families()]


def _check_rummy101(rules, t):
    """T-SCORE-1..3, T-END-1 in Python ints against the score and rack_value columns."""
    ff = rules.finish_factor
    rows = t["players"].join(t["rounds"].select("round_id", "finish", "winner_seat"), on="round_id")
    for r in rows.iter_rows(named=True):
        assert 0 <= r["rack_value"] - r["jokers_left"] * rules.joker_penalty <= NUMBERED
        finish = r["finish"]
        if r["seat"] == r["winner_seat"]:
            want = rules.win_points * {"normal": 1, "joker": ff, "one_turn": ff, "one_turn_joker": ff * ff}[finish]
        elif finish in ("one_turn", "one_turn_joker"):
            want = -rules.one_turn_penalty * (ff if finish == "one_turn_joker" else 1)
        else:
            rack = r["rack_value"]
            loss = {None: rules.unopened_penalty, "melds": rack, "pairs": rules.pairs_penalty_factor * rack}
            want = -loss[r["open_kind"]] * (ff if finish == "joker" else 1)
        assert r["score"] == want, (r, want)


def _check_rummikub(rules, t):
    """K-END-1/2 in Python ints (twelfths, as the engine keeps them) against the score and
    rack_value columns."""
    rounds = {r["round_id"]: r for r in t["rounds"].iter_rows(named=True)}
    for (round_id,), seats in t["players"].sort("seat").group_by("round_id"):
        rnd = rounds[round_id]
        values = seats["rack_value"].to_list()
        for v, jokers in zip(values, seats["jokers_left"], strict=True):
            assert 0 <= v - jokers * rules.joker_penalty <= NUMBERED
        low = 0 if rnd["finish"] == "out" else min(values)
        won = [s for s, v in enumerate(values) if v == low and (rnd["finish"] != "out" or s == rnd["winner_seat"])]
        gain = sum(v - low for v in values)
        want = [gain * 12 // len(won) / 12 if s in won else -(v - low) for s, v in enumerate(values)]
        assert seats["score"].to_list() == want and rnd["winners"] == won


def _check_cards(rules, t):
    """C-SCORE-1/2, C-TEAM-1, C-MATCH-1 in Python ints against the points, score, total,
    hand_value and winner_total columns."""
    players = {(r["match_id"], r["hand"], r["seat"]): r for r in t["players"].iter_rows(named=True)}
    totals: dict = {}
    for h in t["hands"].sort("match_id", "hand").iter_rows(named=True):
        seats = [players[(h["match_id"], h["hand"], s)] for s in range(rules.players)]
        assert all(0 <= p["hand_value"] <= 10 * 52 * rules.decks for p in seats)
        w = h["winner_seat"]
        want = 0 if w is None else sum(
            p["hand_value"] for s, p in enumerate(seats) if s != w and not (rules.partners and s % 2 == w % 2))
        want *= rules.rummy_factor if h["finish"] == "rummy" else 1
        assert h["points"] == want, (h, want)
        for s, p in enumerate(seats):
            assert p["score"] == (want if s == w else 0)
            totals[h["match_id"], s] = totals.get((h["match_id"], s), 0) + p["score"]
            assert p["total"] == totals[h["match_id"], s]
    for m in t["matches"].iter_rows(named=True):
        assert m["winner_total"] == totals[m["match_id"], m["winner_seat"]] >= rules.target


CHECKS = {"rummy101": _check_rummy101, "rummikub": _check_rummikub, "rummy101-cards": _check_cards}
UNITS = {"rummy101": 24, "rummikub": 8, "rummy101-cards": 2}  # a few seconds each at most


@pytest.mark.parametrize(("family_name", "field"), CASES)
def test_every_numeric_field_at_its_top_plays_and_the_columns_hold_it(family_name, field):
    """At the top of a field's range (or all scoring fields at theirs) a few rounds or
    matches play, and their score, penalty and value columns equal what the rules give
    computed in Python ints: no int16 or int32 column wraps, no sign flips."""
    family = next(f for f in families() if f.name == family_name)
    rules = _worst(family) if field == "all scoring fields" else _top(family, field)
    assert family_of(rules) is family
    policies = ["greedy", "careful"] * (rules.players // 2) + ["greedy"] * (rules.players % 2)
    units = 1 if field == "hand_size" and family_name == "rummy101-cards" else UNITS[family_name]  # 25 cards: slow
    tables = family.chunk_tables(rules, 11, 0, units, policies)
    for name, df in tables.items():  # the declared dtypes, none widened
        assert {c: df.schema[c] for c in df.columns} == {c: family.schemas[name][c] for c in df.columns}
    CHECKS[family_name](rules, tables)
