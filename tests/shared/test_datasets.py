"""Datasets that cannot lie (sim.chunks, the runner's resume, open_dataset, sim verify):
a chunk file holds what its name, metadata and digest say or it is named; a file that
does not belong is named and removed on rerun; an edited manifest is refused; one writer
per directory; a run never writes through a link; a full disk leaves nothing behind."""

import json
import os
import random
import shutil

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import sim
from sim import analysis, chunks, runner, store
from sim.cli import app

RULES = sim.preset("rummy101")
SPEC = runner.RunSpec((runner.Variant(RULES),), 300, 7, ("greedy",), 100)
cli = CliRunner()


def tables(out):
    return {t: runner.scan(out, t).collect().sort(pl.all()) for t in ("rounds", "players")}


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    out = tmp_path_factory.mktemp("clean") / "d"
    runner.run(SPEC, out, jobs=1, progress=False)
    return out, tables(out)


@pytest.fixture
def copy(clean, tmp_path):
    out = tmp_path / "d"
    shutil.copytree(clean[0], out)
    return out


def test_a_chunk_records_what_it_holds(clean):
    out, _ = clean
    meta = store.read_metadata(out / "players" / "part-0000000100.parquet")
    assert (meta["table"], meta["first_round"], meta["rounds"]) == ("players", "100", "100")
    assert meta["digest"] == chunks.rows_digest(pl.read_parquet(out / "players" / "part-0000000100.parquet"))
    entries = chunks.ledger(out)
    assert set(entries) == {f"{t}/part-{s:010d}.parquet" for t in ("rounds", "players") for s in (0, 100, 200)}
    assert all(e["sha256"] == chunks.file_sha256(out / f) for f, e in entries.items())


def test_the_rows_digest_sees_any_change():
    df = pl.DataFrame({"a": [1, 2, None], "b": ["x", None, "z"], "c": [[1], [], None]},
                      schema={"a": pl.Int16, "b": pl.String, "c": pl.List(pl.Int8)})
    base = chunks.rows_digest(df)
    assert chunks.rows_digest(df.clone()) == base
    for changed in (df.with_columns(pl.col("a").fill_null(0)), df.with_columns(pl.col("b").fill_null("")),
                    df.with_columns(pl.Series("c", [[1], None, []], dtype=pl.List(pl.Int8))),
                    df.with_columns(pl.col("a").cast(pl.Int32)), df.reverse(), df.rename({"a": "d"})):
        assert chunks.rows_digest(changed) != base


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=st.sampled_from(["rounds", "players"]), start=st.sampled_from([0, 100, 200]),
       damage=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=40),
       cut=st.booleans(), seed=st.integers(0, 2**16))
def test_byte_damage_is_named_or_replaced_never_read(clean, tmp_path_factory, table, start, damage, cut, seed):
    """Random damage to a chunk (bytes overwritten anywhere, or the file cut short): a
    reader names the file or reads exactly the clean data, and a rerun replays it."""
    out = tmp_path_factory.mktemp("damaged") / "d"
    shutil.copytree(clean[0], out)
    victim = out / table / f"part-{start:010d}.parquet"
    data = bytearray(victim.read_bytes())
    for where, byte in damage:
        data[int(where * len(data))] = byte
    if cut:
        data = data[: random.Random(seed).randrange(len(data))]
    victim.write_bytes(bytes(data))
    try:
        ds = analysis.open_dataset(out)
    except sim.DatasetError as e:
        assert victim.name in str(e) and table in str(e)
    else:  # the damage changed nothing (the same bytes written back): what is read is the clean data
        for t in ("rounds", "players"):
            assert getattr(ds, t).select(clean[1][t].columns).collect().sort(pl.all()).equals(clean[1][t])
    again = runner.run(SPEC, out, jobs=1, progress=False)
    assert again.played in (0, 100)
    analysis.open_dataset(out)
    assert all(tables(out)[t].equals(clean[1][t]) for t in ("rounds", "players"))


def test_a_chunk_copied_over_another_is_named_and_replaced(clean, copy, capsys):
    shutil.copy(copy / "rounds" / "part-0000000000.parquet", copy / "rounds" / "part-0000000200.parquet")
    with pytest.raises(sim.DatasetError, match=r"rounds/part-0000000200.parquet was written for first_round 0, "
                                               r"not 200"):
        analysis.open_dataset(copy)
    again = runner.run(SPEC, copy, jobs=1, progress=False)
    assert (again.played, again.skipped) == (100, 200)
    assert "replacing" in capsys.readouterr().err
    assert all(tables(copy)[t].equals(clean[1][t]) for t in ("rounds", "players"))


def test_a_file_that_does_not_belong_is_named_and_removed_on_rerun(clean, copy, capsys):
    stray = copy / "rounds" / "part-0009999000.parquet"
    shutil.copy(copy / "rounds" / "part-0000000000.parquet", stray)
    with pytest.raises(sim.DatasetError, match=r"part-0009999000\.parquet does not belong"):
        analysis.open_dataset(copy)
    again = runner.run(SPEC, copy, jobs=1, progress=False)
    assert again.played == 0 and not stray.exists() and again.summary["rounds"] == 300
    assert "removing" in capsys.readouterr().err


def test_a_missing_chunk_is_named(copy):
    (copy / "players" / "part-0000000100.parquet").unlink()
    with pytest.raises(sim.DatasetError, match=r"1 chunk file\(s\) missing \(players/part-0000000100"):
        analysis.open_dataset(copy)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda m: m.update(seed=8), "was written for seed 7, not 8"),
    (lambda m: m.update(variants=[]), "no variants"),
    (lambda m: m.update(family="rummikub"), "family 'rummikub' but variant 0 has rules of 'rummy101'"),
    (lambda m: m.update(rounds="300"), "'rounds' missing or not a int"),
    (lambda m: m["variants"][0]["rules"].update(open_points=91), "other rules than the manifest's"),
])
def test_an_edited_manifest_is_refused(copy, edit, message):
    manifest = json.loads((copy / "manifest.json").read_text())
    edit(manifest)
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(sim.DatasetError, match=message):
        analysis.open_dataset(copy)
    r = cli.invoke(app, ["report", "--data", str(copy), "--out", str(copy.parent / "rep")])
    assert r.exit_code == 2 and r.output.count("error:") == 1 and "Traceback" not in r.output


def test_verify_names_every_problem_and_what_a_rerun_replays(copy):
    shutil.copy(copy / "rounds" / "part-0000000000.parquet", copy / "rounds" / "part-0000000200.parquet")
    shutil.copy(copy / "rounds" / "part-0000000000.parquet", copy / "rounds" / "part-0000005000.parquet")
    (copy / "players" / "part-0000000100.parquet").unlink()
    r = cli.invoke(app, ["verify", str(copy)])
    assert r.exit_code == 1
    assert "damaged: rounds/part-0000000200.parquet" in r.output
    assert "does not belong: rounds/part-0000005000.parquet" in r.output
    assert "missing: players/part-0000000100.parquet" in r.output
    assert "replays 2 chunk(s) and removes 1 file(s)" in r.output
    j = json.loads(cli.invoke(app, ["verify", str(copy), "--json"]).output)
    assert (j["clean"], j["verified"], j["chunks_to_replay"]) == (False, 4, 2)
    runner.run(SPEC, copy, jobs=1, progress=False)
    r = cli.invoke(app, ["verify", str(copy)])
    assert r.exit_code == 0 and "6 verified" in r.output and "nothing wrong" in r.output


def test_a_chunk_written_before_digests_is_checked_by_its_ids(copy):
    victim = copy / "rounds" / "part-0000000100.parquet"
    raw = pl.read_parquet_metadata(victim)
    meta = {k: v for k, v in raw.items() if k.startswith("sim.") and k != "sim.digest"}
    df = pl.read_parquet(victim)
    df.write_parquet(victim, metadata=meta)
    r = cli.invoke(app, ["verify", str(copy)])
    assert r.exit_code == 0 and "1 written before chunk digests" in r.output
    analysis.open_dataset(copy)
    df.with_columns(pl.col("round_id") + 1).write_parquet(victim, metadata=meta)
    with pytest.raises(sim.DatasetError, match=r"holds round_id 101-200 \(100 rows\), not 100-199"):
        analysis.open_dataset(copy)


def test_a_second_writer_is_refused_and_a_stale_lock_is_taken_over(tmp_path):
    out = tmp_path / "w"
    with store.writer_lock(out, "run"):
        r = cli.invoke(app, ["run", "--rounds", "20", "--out", str(out), "--no-progress"])
        assert r.exit_code == 2 and "is being written by pid" in r.output
        with pytest.raises(sim.DatasetError, match="is being written by pid"):
            analysis.open_dataset(out)
    assert not out.exists()  # made for the lock alone, and gone with it
    out.mkdir()
    (out / store.LOCK).write_text("pid 999999999 (run: a run killed long ago)\n")  # its flock died with it
    r = cli.invoke(app, ["run", "--rounds", "20", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert store.is_locked(out) is None


def test_a_run_never_writes_through_a_link(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / ".keep.tmp").write_text("not ours")
    out = tmp_path / "l"
    out.mkdir()
    (out / "rounds").symlink_to(outside, target_is_directory=True)
    r = cli.invoke(app, ["run", "--rounds", "20", "--out", str(out), "--no-progress"])
    assert r.exit_code == 2 and "rounds is a link" in r.output
    assert [p.name for p in outside.iterdir()] == [".keep.tmp"] and not (out / "manifest.json").exists()


def test_a_full_disk_names_the_file_and_leaves_nothing_behind(tmp_path, monkeypatch):
    out = tmp_path / "full"

    def full(self, *args, **kwargs):
        raise pl.exceptions.ComputeError("failed to write: No space left on device (os error 28)")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", full)
    r = cli.invoke(app, ["run", "--rounds", "20", "--out", str(out), "--no-progress"])
    assert r.exit_code == 2 and r.output.count("error:") == 1 and "No space left on device" in r.output
    assert "part-0000000000.parquet" in r.output and "Traceback" not in r.output
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]


def test_a_manifest_that_cannot_be_written_leaves_no_temporary_file(tmp_path, monkeypatch):
    out = tmp_path / "m"
    real = os.replace

    def fail(src, dst):
        if str(dst).endswith("manifest.json"):
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(sim.DatasetError, match=r"cannot write .*manifest\.json: No space left on device"):
        runner.run(SPEC, out, jobs=1, progress=False)
    assert not out.exists()  # made by the run for nothing: gone, with no temporary file left
