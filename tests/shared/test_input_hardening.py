"""Random input never gets past the front door: random strings to the rack parser and random
``key=value`` pairs to ``--set`` give one clear error (our error type, exit status 2, no
traceback) or a valid result, never a crash or a silent default."""

import string

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import sim
from sim.cli import app
from sim.rules import Rules

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
