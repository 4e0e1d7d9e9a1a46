"""The ``sim`` command: solve (one rack, JSON, stdin lines), deal-stats, presets, rules;
bad input gives one clear line and a non-zero exit, never a traceback."""

import json
import subprocess
import sys

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.store import read_metadata

runner = CliRunner()


def run(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_help_on_every_subcommand():
    for cmd in ([], ["solve"], ["deal-stats"], ["presets"], ["rules"]):
        r = run(*cmd, "--help")
        assert r.exit_code == 0, (cmd, r.output)
        assert "Usage" in r.output


def test_metrics_are_listed_once_by_family_and_the_run_help_groups_them():
    """``sim metrics`` names what every --until-ci metric measures, the ones the tile
    families share once; ``sim run --help`` lists only their names, grouped the same way."""
    out = run("metrics").output
    assert out.count("p_open_by_turn_T ") == 1 and "Rummy 101 and Rummikub:" in out
    assert "Rummikub also:" in out and "blocked" in out and "p_rummy" in out and "p_pairs" in out
    helptext = " ".join(run("run", "--help").output.split())
    assert "What each measures: sim metrics." in helptext
    assert helptext.count("p_open_by_turn_T,") == 1 and "share of players opened" not in helptext


def test_compile_names_an_unknown_family_and_says_when_all_is_compiled():
    r = run("compile", "rummy-kub")
    assert r.exit_code == 2 and "error: unknown family 'rummy-kub': expected one of rummy101" in r.output
    done = run("compile", "rummy101", "--no-progress")
    assert done.exit_code == 0, done.output
    assert done.output.splitlines()[-1].startswith("ready in ") and "the Rummy 101 engine" in done.output


def test_presets_describe_each_in_its_own_family_words_and_version_prints():
    """Each preset's line says what differs (the joker button) and only what its family has
    (no thresholds for cards or Rummikub); ``--version`` prints the package and commit."""
    import sim

    lines = dict(line.split(None, 1) for line in run("presets").output.splitlines())
    assert lines["rummy101-button"] != lines["rummy101"] and "joker button" in lines["rummy101-button"]
    assert "thresholds" not in lines["rummy101-cards"] and "matches to 101" in lines["rummy101-cards"]
    assert "thresholds" not in lines["rummikub"] and "open 30 points" in lines["rummikub"]
    r = run("--version")
    assert r.exit_code == 0 and r.output.startswith(f"sim {sim.__version__} (commit ")


def test_help_texts_print_as_written():
    """Help is plain text: a "[default: ...]" written in a help string prints as written,
    not eaten as markup (which left "2, 3 or 4 ."), and each default is said once."""
    out = " ".join(run("run", "--help").output.split())
    assert "2, 3 or 4 [default: the preset's]." in out and " ." not in out
    assert out.count("[default: greedy]") == 0 and "[default: the family's first, greedy]" in out


def test_solve_prints_melds_and_verdict():
    r = run("solve", "R10", "R11", "R12", "B12", "K12", "Y12", "K10", "K11", "K12", "Y1")
    assert r.exit_code == 0
    assert "best melds: 102 points, can open" in r.output
    assert "can open: yes" in r.output


def test_solve_says_when_the_tile_kept_for_the_discard_costs_the_meld():
    """T-OPEN-4: R1 R2 R3 lays down nothing because one tile stays for the discard; the
    answer says so instead of a bare 0, and says nothing when the rule costs nothing."""
    r = run("solve", "R1", "R2", "R3")
    assert r.exit_code == 0 and "best melds: 0 points" in r.output
    assert "kept back for the discard, T-OPEN-4: melding every tile would lay down 6 points" in r.output
    assert "T-OPEN-4" not in run("solve", "R1", "R2", "R3", "K9").output


def test_solve_json_object():
    r = run("solve", "--json", "R10 J R12 K1")
    data = json.loads(r.output)
    assert data["value"] == 33 and data["melds"] == ["R10 J(R11) R12"] and data["jokers"] == ["R11"]
    assert data["pairs"] == 1 and data["can_open"] is False


def test_solve_must_use_and_preset():
    r = run("solve", "--json", "--must-use", "b3", "R10 R11 R12 B12 K12 Y12 K10 K11 K12 Y1 B3")
    assert json.loads(r.output)["value"] == 0
    r = run("solve", "--json", "--preset", "rummikub", "R7 R8 R9")
    assert json.loads(r.output)["value"] == 24


def test_solve_stdin_lines_answer_each_and_flag_bad_ones():
    lines = "R7 R8 R9 K1\nX9 R1\n\nR1 R1 R1\nR10 J R12 K1\n"
    r = runner.invoke(app, ["solve", "--json", "-"], input=lines)
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [o.get("value") for o in out] == [24, None, None, 33]
    assert out[1]["line"] == 2 and "'X9'" in out[1]["error"]
    assert "too many copies" in out[2]["error"]
    assert r.exit_code == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "R7 Z8"], "'Z8'"),
        (["solve", "--preset", "nope", "R1"], "unknown preset 'nope'"),
        (["solve", "--must-use", "J", "R1 J"], "not a joker"),
        (["solve", "--set", "open_points=-5", "R1"], "open_points"),
        (["solve", "--set", "open_points", "R1"], "key=value"),
        (["rules", "rummy101", "--set", "players=9"], "players"),
        (["deal-stats", "--samples", "0"], "samples"),
        (["deal-stats", "--preset", "rummy101-cards", "--rack-size", "60"], "rack-size: must be 1-52"),
    ],
)
def test_bad_input_is_one_clear_line(args, message):
    r = run(*args)
    assert r.exit_code == 2
    assert message in r.output
    assert "Traceback" not in r.output


def test_unknown_flag_is_a_usage_error():
    r = run("deal-stats", "--sample", "10")
    assert r.exit_code == 2
    assert "Traceback" not in r.output


def test_deal_stats_writes_parquet_and_json_summary(tmp_path):
    out = tmp_path / "racks.parquet"
    r = run("deal-stats", "--samples", "3000", "--seed", "7", "--jobs", "1", "--rack-size", "22",
            "--out", str(out), "--json", "--no-progress")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    for key in ("p_melds", "p_pairs", "p_open"):
        assert set(s[key]) >= {"estimate", "ci_low", "ci_high"}
        assert s[key]["ci_low"] <= s[key]["estimate"] <= s[key]["ci_high"]
    table = pl.read_parquet(out)
    assert table.height == 3000
    assert set(table.columns) >= {"value", "pairs", "can_open_melds", "can_open_pairs", "can_open"}
    assert s["mean_value"] == pytest.approx(table["value"].mean())
    assert read_metadata(out)["seed"] == "7"


def test_deal_stats_readable_summary(tmp_path):
    r = run("deal-stats", "--samples", "2000", "--jobs", "1", "--out", str(tmp_path / "x.parquet"),
            "--no-progress")
    assert r.exit_code == 0
    assert "by melds (>= 101 points)" in r.output and "either way" in r.output


def test_deal_stats_refuses_foreign_output(tmp_path):
    foreign = tmp_path / "notes.parquet"
    pl.DataFrame({"x": [1, 2]}).write_parquet(foreign)
    r = run("deal-stats", "--samples", "100", "--out", str(foreign), "--no-progress")
    assert r.exit_code == 2 and "not a deal-stats table" in r.output
    assert pl.read_parquet(foreign)["x"].to_list() == [1, 2]


def test_console_script_runs():
    r = subprocess.run([sys.executable, "-m", "sim.cli", "solve", "R1 Q2"], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip() == ("error: unknown tile 'Q2': a tile is a colour R, B, K or Y followed by "
                                "a number 1-13 (e.g. R7), or J for a joker")


def test_solve_table_play_text_json_and_lines():
    """K-PLAY-1 from the command line: text, JSON, and one rack per stdin line."""
    table = "R1 R2 R3; B5 B6 J(B7)"
    r = run("solve", "--preset", "rummikub", "--table", table, "R4 B7 Y9")
    assert r.exit_code == 0, r.output
    assert "best play (value): 11 points, 2 tiles: R4 B7" in r.output
    assert "  B5 B6 B7" in r.output and "left on the rack: Y9" in r.output
    r = run("solve", "--preset", "rummikub", "--table", table, "--objective", "tiles", "--json", "R4 B7 Y9")
    data = json.loads(r.output)
    assert data["table"] == ["R1 R2 R3", "B5 B6 J(B7)"] and data["played"] == "R4 B7"
    assert data["objective"] == "tiles" and data["can_play"] is True
    r = run("solve", "--preset", "rummikub", "--table", "R1 R2 R3", "--json", "-", input="R4\nY9\nR4 R4 R4\n")
    lines = [json.loads(x) for x in r.output.splitlines() if x.startswith("{")]
    assert [x.get("value") for x in lines[:2]] == [4, 0]
    assert "error" in lines[2] and r.exit_code == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--table", "R1 R2 R3", "R4"], "a Rummikub rule (K-PLAY-1)"),
        (["--preset", "rummikub", "--table", "R1 R2", "R4"], "table meld 1 (R1 R2) is not valid"),
        (["--preset", "rummikub", "--table", "R1 R2 R3", "--objective", "points", "R4"], "must be value or tiles"),
        (["--preset", "rummikub", "--objective", "tiles", "R4"], "--objective: needs --table"),
        (["--preset", "rummikub", "--table", "R1 R2 R3", "--must-use", "R4", "R4"], "cannot go with --table"),
    ],
)
def test_solve_table_play_bad_input_is_one_line(args, message):
    r = run("solve", *args)
    assert r.exit_code != 0
    assert message in r.output
    assert "Traceback" not in r.output


def test_the_new_readings_take_only_their_values_and_only_their_family(tmp_path):
    """K-JOKER-2 ``joker_moves`` (bound, free) is a Rummikub field, C-SCORE-2
    ``rummy_layoffs`` a card one: a value they do not take, or either on another family, is
    one ``error:`` line naming the field, exit status 2, nothing written."""
    from typer.testing import CliRunner

    from sim.cli import app

    cases = [("rummikub", "joker_moves=loose", "joker_moves: must be bound or free"),
             ("rummy101", "joker_moves=free", "joker_moves: a rule of Rummikub, not of Rummy 101"),
             ("rummikub", "rummy_layoffs=true", "rummy_layoffs: a rule of card Rummy 101, not of Rummikub"),
             ("rummy101-cards", "rummy_layoffs=sometimes", "rummy_layoffs: expected true or false")]
    for preset, setting, message in cases:
        out = tmp_path / preset
        res = CliRunner().invoke(app, ["run", "--preset", preset, "--set", setting, "--out", str(out)])
        assert res.exit_code == 2 and res.output.count("error:") == 1 and message in res.output, res.output
        assert not out.exists()
