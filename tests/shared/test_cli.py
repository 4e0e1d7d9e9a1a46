"""The ``sim`` command: solve (one rack, JSON, stdin lines), deal-stats, presets, rules;
bad input gives one clear line and a non-zero exit, never a traceback."""

import json
import subprocess
import sys
from pathlib import Path

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


# --- values refused at the door: one line, nothing written, nothing played ------------------

LONG = "a" * 300  # a name longer than a filesystem takes (255 bytes on ext4, tmpfs, xfs...)


@pytest.mark.parametrize(("args", "message"), [
    (["run", "--set", "win_points=3000000000", "--rounds", "200"], "win_points: must be 0-10,000 (got 3000000000)"),
    (["run", "--set", "unopened_penalty=5000000000", "--rounds", "20"], "unopened_penalty: must be 0-10,000"),
    (["run", "--set", "joker_penalty=40000", "--rounds", "20"], "joker_penalty: must be 0-1,000"),
    (["run", "--preset", "rummikub", "--set", "joker_penalty=40000", "--rounds", "20"],
     "joker_penalty: must be 0-1,000"),
    (["run", "--preset", "rummikub", "--set", "win_points=3000000000", "--rounds", "20"],
     "win_points: a rule of Rummy 101, not of Rummikub"),
    (["run", "--preset", "rummy101-cards", "--set", "target=1000000000", "--matches", "2"],
     "target: must be 1-1,000"),
    (["run", "--policy", "", "--rounds", "20"], "no policy given; Rummy 101 policies: greedy, careful"),
    (["run", "--seat-policy", "0=greedy,0=careful", "--rounds", "20"], "seat 0 given twice"),
    (["run", "--seat-policy", "00=greedy,0=careful", "--rounds", "20"], "seat 0 given twice"),
    (["run", "--seat-policy", "\u00b2=greedy", "--rounds", "20"], "expected SEAT=POLICY"),
    (["run", "--seat-policy", "", "--rounds", "20"], "expected SEAT=POLICY"),
    (["sweep", "--grid", "open_points=91,+91,091", "--rounds", "20"],
     "--grid open_points: 91, +91 and 091 are the same value (91)"),
    (["sweep", "--grid", "starter_may_open=true,yes", "--rounds", "20"], "true and yes are the same value (true)"),
    (["sweep", "--grid", "players=2,3", "--set", "players=4", "--rounds", "20"],
     "players: both set (--set players=4) and swept (--grid players=2,3)"),
    (["deal-stats", "--set", "name=../../../escaped", "--samples", "10"], "name: must be a plain name, no path"),
])
def test_out_of_range_and_contradictory_values_are_one_line_before_anything_is_written(args, message, tmp_path,
                                                                                        monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run(*args, *(["--out", "D"] if args[0] != "deal-stats" else []), "--no-progress")
    assert r.exit_code == 2 and r.output.startswith("error: ") and r.output.count("\n") == 1, r.output
    assert message in r.output
    assert list(tmp_path.iterdir()) == []  # no run directory, no manifest, no escaped file


@pytest.mark.parametrize("args", [["run", "--chunk", "0", "--rounds", "20", "--out", "D"],
                                  ["run", "--chunk", "-5", "--rounds", "20", "--out", "D"],
                                  ["sweep", "--grid", "players=2,3", "--chunk", "0", "--out", "D"],
                                  ["tournament", "--policies", "greedy,careful", "--chunk", "0", "--out", "D"]])
def test_a_chunk_below_1_is_refused_not_replaced(args, tmp_path, monkeypatch):
    """--chunk 0 used to become 10,000 and --chunk -5 one round a chunk."""
    monkeypatch.chdir(tmp_path)
    r = run(*args)
    assert r.exit_code == 2 and "'--chunk'" in r.output and "greater than or equal to 1" in r.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("preset", ["rummy101", "rummikub", "rummy101-cards"])
def test_trace_ids_beyond_64_bits_are_refused_and_the_last_one_traces(preset):
    r = run("run", "--preset", preset, "--trace", "99999999999999999999")
    assert r.exit_code == 2 and r.output == (
        "error: --trace '99999999999999999999': ids are 0-9,223,372,036,854,775,807 (a 64-bit signed integer)\n")
    assert run("run", "--preset", preset, "--trace", "0,9223372036854775808").exit_code == 2
    last = run("run", "--preset", preset, "--trace", str(2**63 - 1))
    assert last.exit_code == 0 and "no violations" in last.output, last.output


def test_scheduler_addresses_are_read_before_anything_runs(tmp_path, monkeypatch):
    import typer

    from sim.cli import _scheduler_address

    for good in ("tcp://10.0.0.5:8786", "10.0.0.5:8786", "localhost:8786", "tls://host:1", "tcp://[::1]:8786"):
        assert _scheduler_address(good) == good
    for bad in ("not a url", "", "tcp://host", "foo://a:1", "tcp://a:99999", "tcp://a:0", "tcp://a:x",
                "tcp://a:1/path", "tcp://[::1:8786", "tcp://a b:1"):
        with pytest.raises(typer.BadParameter, match="expected a dask scheduler address"):
            _scheduler_address(bad)
    monkeypatch.chdir(tmp_path)
    for cmd in (["run", "--rounds", "20"], ["sweep", "--grid", "players=2,3"], ["deal-stats", "--samples", "10"],
                ["balance", "--field", "open_points", "--range", "61:71", "--target", "p_open_by_turn_3=0.5"],
                ["tournament", "--policies", "greedy,careful"]):
        r = run(*cmd, "--scheduler", "not a url", "--out", "D")
        assert r.exit_code == 2 and "'not a url': expected a dask scheduler address" in r.output, (cmd, r.output)
    assert list(tmp_path.iterdir()) == []


OUT_COMMANDS = [["run", "--rounds", "20"], ["sweep", "--grid", "players=2,3", "--rounds", "20"],
                ["deal-stats", "--samples", "10"], ["tournament", "--policies", "greedy,careful"],
                ["balance", "--field", "open_points", "--range", "61:71", "--target", "p_open_by_turn_3=0.5"],
                ["report", "--data", "data/none"]]


@pytest.mark.parametrize("cmd", OUT_COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize(("out", "message"), [
    ("", "an empty path"), ("  ", "an empty path"), (LONG, "is 300 bytes long; this filesystem takes at most"),
    (f"sub/{LONG}/x", "is 300 bytes long"), ("caf\udce9", "'caf\\xe9' is not valid UTF-8"),
    ("a\0b", "cannot hold a NUL")])
def test_every_out_path_that_cannot_be_written_is_refused_before_any_play(cmd, out, message, tmp_path, monkeypatch):
    """--out '' (once the current directory), a name of 300 bytes, bytes that are not UTF-8
    (``$'caf\\xe9'``, which Python reads as a surrogate): refused while the flags are read."""
    monkeypatch.chdir(tmp_path)
    r = run(*cmd, "--out", out, "--no-progress" if cmd[0] != "report" else "--title=t")
    assert r.exit_code == 2 and "Invalid value for '--out' / '-o'" in r.output and message in r.output, r.output
    assert "Traceback" not in r.output and list(tmp_path.iterdir()) == []


def test_out_path_limits_come_from_the_filesystem_it_would_be_on(tmp_path):
    from sim.cli import _out_path, _path_limits

    assert _path_limits(tmp_path / "not" / "yet") == _path_limits(tmp_path)
    assert _out_path(str(tmp_path / ("b" * 255))) == tmp_path / ("b" * 255)  # the longest name that fits
    assert _out_path("data/run 1/é") == Path("data/run 1/é")


def test_the_command_says_a_refused_flag_in_one_line():
    """Through the real command (main, a usage error included), argv bytes that are not UTF-8
    as the shell passes them: one ``error:`` line on stderr, status 2."""
    for args in ([b"run", b"--out", b"caf\xe9", b"--rounds", b"20"], [b"run", b"--chunk", b"0", b"--out", b"D"],
                 [b"run", b"--scheduler", b"not a url", b"--out", b"D"], [b"run", b"--trace", b"1" * 20]):
        r = subprocess.run([sys.executable, "-m", "sim.cli", *args], capture_output=True)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (args, r.stderr)
    assert "'caf\\xe9' is not valid UTF-8" in subprocess.run(
        [sys.executable, "-m", "sim.cli", "run", b"--out", b"caf\xe9"], capture_output=True).stderr.decode()
