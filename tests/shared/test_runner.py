"""Runs and sweeps: identical data whatever --jobs and chunk size, resuming completes only
the missing chunks, provenance on every file, settings checked, common random numbers."""

import json

import polars as pl
import pytest
from typer.testing import CliRunner

import sim
from sim import chunks, runner
from sim.cli import app
from sim.runner import RunSpec, Variant
from sim.store import read_metadata

RULES = sim.preset("rummy101")


def load(out, table):
    return runner.scan(out, table).collect().sort(["round_id", "seat"] if table == "players" else "round_id")


def spec(rounds=400, chunk=100, rules=RULES, policies=("greedy",)):
    return RunSpec((Variant(rules),), rounds, seed=11, policies=policies, chunk=chunk)


def test_same_data_whatever_jobs_and_chunks(tmp_path):
    a = runner.run(spec(chunk=400), tmp_path / "a", jobs=1, progress=False)
    b = runner.run(spec(chunk=90), tmp_path / "b", jobs=2, progress=False)
    assert (a.played, b.played) == (400, 400)
    for table in ("rounds", "players"):
        assert load(tmp_path / "a", table).equals(load(tmp_path / "b", table))


def test_rummikub_runs_are_the_same_whatever_jobs_and_chunks(tmp_path):
    """The one runner serves Rummikub too: the same seed gives the same rounds whatever
    --jobs and the chunk size, and a sweep pairs rounds by id (common random numbers)."""
    rules = sim.preset("rummikub").replace(players=3)
    a = runner.run(spec(rounds=60, chunk=60, rules=rules), tmp_path / "a", jobs=1, progress=False)
    b = runner.run(spec(rounds=60, chunk=25, rules=rules), tmp_path / "b", jobs=2, progress=False)
    assert (a.played, b.played) == (60, 60)
    for table in ("rounds", "players"):
        assert load(tmp_path / "a", table).equals(load(tmp_path / "b", table))
    sweep = RunSpec(tuple(runner.grid_variants(rules, {"open_points": ["30", "50"]})), 30, seed=11,
                    policies=("greedy",), chunk=30, kind="sweep")
    runner.run(sweep, tmp_path / "s", jobs=1, progress=False)
    rounds = load(tmp_path / "s", "rounds")
    assert rounds.group_by("open_points").agg(pl.col("round_id").sort())["round_id"].to_list()[0] == list(range(30))
    assert load(tmp_path / "a", "rounds")["turns"].to_list()[:30] == (
        rounds.filter(pl.col("open_points") == 30).sort("round_id")["turns"].to_list())


def test_a_chunk_played_in_pieces_is_the_chunk(tmp_path, monkeypatch):
    """A family's ``piece`` splits a chunk into tasks (Rummikub: so that the bar moves inside
    a long chunk); put back together they are the chunk played whole, one file per chunk."""
    from sim.games.rummikub import FAMILY

    rules = sim.preset("rummikub").replace(players=2)
    monkeypatch.setattr(FAMILY, "piece", None)
    whole = runner.run(spec(rounds=50, chunk=50, rules=rules), tmp_path / "whole", jobs=1, progress=False)
    monkeypatch.setattr(FAMILY, "piece", 12)
    assert [c for _, c in runner._pieces(spec(rounds=50, chunk=50, rules=rules), 0, 50)] == [12, 12, 12, 12, 2]
    pieces = runner.run(spec(rounds=50, chunk=50, rules=rules), tmp_path / "pieces", jobs=2, progress=False)
    assert (whole.played, pieces.played) == (50, 50)
    assert len(list((tmp_path / "pieces" / "rounds").glob("*.parquet"))) == 1
    for table in ("rounds", "players"):
        assert load(tmp_path / "whole", table).equals(load(tmp_path / "pieces", table))


def test_the_local_worker_processes_are_killed_at_exit(tmp_path):
    """Nothing waits for idle workers after the summary: the hook registered by a local run
    ends joblib's processes at once when the interpreter exits (and not before: the next
    run in this process reuses them)."""
    from joblib.externals.loky import reusable_executor

    from sim import parallel

    runner.run(spec(rounds=200, chunk=100), tmp_path / "a", jobs=2, progress=False)
    executor = reusable_executor._executor
    assert executor is not None and not executor._flags.shutdown
    assert parallel._end_local_workers_at_exit.cache_info().currsize == 1
    parallel._end_local_workers()
    assert executor._flags.shutdown
    again = runner.run(spec(rounds=200, chunk=100), tmp_path / "b", jobs=2, progress=False)
    assert again.played == 200 and reusable_executor._executor is not executor


def test_rerun_completes_only_the_missing_chunks(tmp_path):
    out = tmp_path / "r"
    runner.run(spec(), out, jobs=1, progress=False)
    whole = load(out, "players")
    (out / "players" / "part-0000000200.parquet").unlink()
    (out / "rounds" / "part-0000000300.parquet").unlink()
    again = runner.run(spec(), out, jobs=1, progress=False)
    assert (again.played, again.skipped) == (200, 200)
    assert load(out, "players").equals(whole)
    assert load(out, "rounds")["round_id"].to_list() == list(range(400))
    assert not list(out.rglob("*.tmp"))


def test_a_dataset_written_with_one_class_rules_resumes(tmp_path):
    """Datasets written before each family had its own rules class (one-class rules JSON,
    every family's fields) are the same run: a rerun finds every chunk there."""
    from pathlib import Path

    one_class = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "one_class_rules.json").read_text())
    out = tmp_path / "r"
    runner.run(spec(), out, jobs=1, progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["variants"][0]["rules"] = one_class["rummy101"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    again = runner.run(spec(), out, jobs=1, progress=False)
    assert (again.played, again.skipped) == (0, 400)
    assert chunks.same_rules(json.dumps(one_class["rummikub"]), sim.preset("rummikub").to_dict())
    assert not chunks.same_rules(json.dumps(one_class["rummikub-wrap"]), sim.preset("rummikub").to_dict())


def test_every_file_carries_provenance(tmp_path):
    out = tmp_path / "p"
    runner.run(spec(rounds=150), out, jobs=1, progress=False)
    files = sorted(out.rglob("*.parquet"))
    assert len(files) == 4
    for f in files:
        meta = read_metadata(f)
        assert sim.Rules.from_json(meta["rules"]) == RULES
        assert meta["seed"] == "11" and meta["version"] == sim.__version__ and meta["git_commit"]


def test_other_settings_are_refused_unless_overwrite(tmp_path):
    out = tmp_path / "o"
    runner.run(spec(rounds=100), out, jobs=1, progress=False)
    before = load(out, "rounds")
    with pytest.raises(sim.DatasetError, match="other settings"):
        runner.run(spec(rounds=100, policies=("careful",)), out, jobs=1, progress=False)
    assert load(out, "rounds").equals(before)
    runner.run(spec(rounds=100, policies=("careful",)), out, jobs=1, progress=False, overwrite=True)
    assert load(out, "players")["policy"].unique().to_list() == ["careful"]


def test_tables_hold_the_documented_columns(tmp_path):
    out = tmp_path / "c"
    rep = runner.run(spec(rounds=300, policies=("greedy", "careful", "greedy", "careful")), out, jobs=1,
                     progress=False)
    rounds, players = load(out, "rounds"), load(out, "players")
    assert rounds.columns == ["round_id", "deal_id", "rotation", "players", "threshold_mode", "open_points",
                              "open_pairs", "button_jokers", "starter_may_open", "policies", "finish", "winner_seat",
                              "turns", "stock_left"]
    assert set(players.columns) >= {"round_id", "seat", "policy", "opened", "open_kind", "open_turn",
                                    "open_value", "open_threshold", "took_discard", "rack_value",
                                    "jokers_left", "score"}
    assert players.height == 4 * rounds.height
    # winners: exactly one per finished round, none after a stock-out (T-END-1)
    stock_out = rounds.filter(pl.col("finish") == "stock_out")
    assert stock_out["winner_seat"].null_count() == stock_out.height
    assert rounds.filter(pl.col("finish") != "stock_out")["winner_seat"].null_count() == 0
    # opening columns are null exactly for players who never opened
    closed = players.filter(~pl.col("opened"))
    assert closed["open_kind"].null_count() == closed.height == closed["open_turn"].null_count()
    assert (closed["score"] <= -202).all()
    opened = players.filter(pl.col("opened") & (pl.col("open_kind") == "melds"))
    assert (opened["open_value"] >= opened["open_threshold"]).all()
    seats = rep.summary["variants"][0]["seats"]
    wins = sum(s["win"]["estimate"] for s in seats)
    assert wins + rep.summary["variants"][0]["finish"].get("stock_out", 0) == pytest.approx(1.0)


def test_sweep_is_hive_partitioned_and_paired(tmp_path):
    out = tmp_path / "s"
    base = RULES
    variants = runner.grid_variants(base, {"players": ["2", "4"], "open_points": ["91", "111"]})
    sw = RunSpec(variants, 120, seed=4, policies=("greedy",), chunk=60, kind="sweep")
    runner.run(sw, out, jobs=2, progress=False)
    rounds = runner.scan(out, "rounds").collect()
    assert rounds.height == 4 * 120
    assert sorted(rounds.select("players", "open_points").unique().rows()) == [
        (2, 91), (2, 111), (4, 91), (4, 111)]
    players = runner.scan(out, "players").collect()
    assert set(players.columns) >= {"players", "open_points", "seat", "score"}
    # the variant players=4, open_points=111 is the same data as a run with those rules
    alone = tmp_path / "alone"
    runner.run(RunSpec((Variant(base.replace(open_points=111)),), 120, 4, ("greedy",), 60), alone,
               jobs=1, progress=False)
    mine = players.filter((pl.col("players") == 4) & (pl.col("open_points") == 111)).drop(
        "players", "open_points").sort("round_id", "seat")
    assert mine.equals(load(alone, "players").select(mine.columns))


cli = CliRunner()


def test_cli_run_json_and_summary(tmp_path):
    r = cli.invoke(app, ["run", "--rounds", "200", "--players", "3", "--seed", "2", "--jobs", "1",
                         "--out", str(tmp_path / "x"), "--json", "--no-progress",
                         "--seat-policy", "1=careful", "--set", "open_points=91"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["rounds"] == 200 and len(s["variants"][0]["seats"]) == 3
    players = runner.scan(tmp_path / "x", "players").collect()
    assert players.filter(pl.col("seat") == 1)["policy"].unique().to_list() == ["careful"]
    meta = read_metadata(next((tmp_path / "x" / "rounds").glob("*.parquet")))
    assert sim.Rules.from_json(meta["rules"]).open_points == 91


def test_cli_trace_prints_every_action_and_the_referee_verdict():
    r = cli.invoke(app, ["run", "--trace", "7", "--players", "2"])
    assert r.exit_code == 0, r.output
    assert "Seat 0, its turn 1" in r.output and "T-TURN-2" in r.output and "Scores" in r.output
    assert "referee: every action checked, scores recomputed: no violations" in r.output


def test_cli_trace_json_prints_one_object_per_round_for_a_range_and_a_list():
    r = cli.invoke(app, ["run", "--trace", "3-5,9", "--json", "--players", "3"])
    assert r.exit_code == 0, r.output
    traces = [json.loads(line) for line in r.output.splitlines()]
    assert [t["round_id"] for t in traces] == [3, 4, 5, 9]
    assert all(t["family"] == "rummy101" and t["players"] == 3 for t in traces)
    from sim.games.rummy101.referee import referee

    assert all(referee(t) == [] for t in traces)


@pytest.mark.parametrize("ids", ["5-3", "x", "-1", "1-"])
def test_cli_trace_rejects_bad_ids(ids):
    r = cli.invoke(app, ["run", "--trace", ids])
    assert r.exit_code == 2 and "--trace" in r.output


def test_one_seed_rule_for_every_command():
    for args in (["run", "--trace", "1"], ["sweep", "--grid", "players=2", "--out", "x"],
                 ["deal-stats", "--samples", "10"]):
        r = cli.invoke(app, [*args, "--seed", "-1"])
        assert r.exit_code == 2 and "--seed" in r.output, (args, r.output)


@pytest.mark.parametrize(("args", "message"), [
    (["run", "--rounds", "10"], "--out"),
    (["run", "--seat-policy", "5=greedy", "--trace", "1"], "seats are 0-3"),
    (["run", "--seat-policy", "1=clever", "--trace", "1"], "unknown policy"),
    (["run", "--policy", "lucky", "--trace", "1"], "unknown policy"),
    (["run", "--players", "5", "--trace", "1"], "players"),
    (["run", "--set", "threshold_mode=sometimes", "--trace", "1"], "threshold_mode"),
    (["run", "--preset", "rummy101-cards", "--rounds", "5", "--out", "x"], "give --matches"),
    (["sweep", "--out", "x"], "--grid"),
    (["sweep", "--out", "x", "--grid", "colour=red"], "unknown rules field"),
    (["sweep", "--out", "x", "--grid", "players=2,9"], "players"),
])
def test_cli_bad_input_is_one_clear_line(args, message):
    r = cli.invoke(app, args)
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output
