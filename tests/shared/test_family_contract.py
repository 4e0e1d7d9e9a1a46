"""The contract every rule family keeps (sim.games.family.Family), one test per promise,
each run for every registered family (pgx's api_test, OpenSpiel's random-simulation
test): a new family is done when it passes these, and adding one is a package plus one
line in sim.games.FAMILIES.

Each family plays a handful of units (rounds, or card matches) here; its own tests go
further."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import sim
from sim.cli import app
from sim.games import FAMILIES, families, family
from sim.games.family import MODULES, Family
from sim.precision import parse_target

ROOT = Path(__file__).resolve().parents[2]
FAMILY_NAMES = list(FAMILIES)


def cli(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def size_flag(f: Family) -> str:
    return "--matches" if f.unit == "match" else "--rounds"


def tables_of(out: Path, f: Family) -> dict[str, pl.DataFrame]:
    """Every table of a run directory, in unit order."""
    found = {}
    for name in f.tables:
        df = pl.read_parquet(out / name / "**" / "*.parquet", hive_partitioning=True)
        found[name] = df.sort([c for c in (f.id_column, "hand", "seat") if c in df.columns])
    return found


@pytest.fixture(scope="module", params=FAMILY_NAMES)
def played(request, tmp_path_factory):
    """A small run of each family, played twice: one process and small chunks, two
    processes and other chunks."""
    f = family(request.param)
    root = tmp_path_factory.mktemp(f.name)
    n = 16 if f.name == "rummikub" else 24
    a, b = root / "a", root / "b"
    for out, jobs, chunk in ((a, 1, 5), (b, 2, 8)):
        r = cli("run", "--preset", f.standard.name, size_flag(f), n, "--seed", 7, "--jobs", jobs, "--chunk", chunk,
                "--out", out, "--no-progress", "--json")
        assert r.exit_code == 0, r.output
    return f, a, b, n, json.loads(r.output.strip().splitlines()[-1])


def test_registration_declares_every_piece(request):
    """Each registered family names itself as registered, states every attribute the shared
    layers read, and has every module of the convention (sim.games.family.MODULES)."""
    for f in families():
        assert isinstance(f, Family) and f.name in FAMILIES and FAMILIES[f.name] == f.package
        assert f.policies and f.finishes and f.metrics and f.tables and f.presets
        assert [m for m in MODULES if not f.has_module(m)] == []
        assert all(isinstance(r, f.rules_class) and r.family == f.name for r in f.presets.values())
        assert set(f.schemas) == set(f.tables)
        for name, module in f.public.items():  # sim.<name> is the family's
            assert getattr(sim, name) is getattr(__import__(f"{f.package}.{module}", fromlist=[name]), name)


def test_a_family_without_a_piece_is_refused_when_it_is_made():
    with pytest.raises(TypeError, match=r"does not set .*rules_class"):
        type("Half", (Family,), {"name": "half", "title": "Half", "policies": ("greedy",), "finishes": ("out",),
                                 "metrics": (), "kernel_modules": (), "presets": {}, "balance_example": ()})


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_bad_rules_give_one_error_line(name, tmp_path):
    f = family(name)
    for setting in ("players=9", "no_such_field=1"):
        r = cli("run", "--preset", f.standard.name, "--set", setting, "--out", tmp_path / "x")
        assert r.exit_code == 2 and r.output.count("error:") == 1, r.output
        assert setting.split("=")[0] in r.output and not (tmp_path / "x").exists()


def test_same_seed_same_tables_whatever_jobs_and_chunks(played):
    f, a, b, n, _ = played
    ta, tb = tables_of(a, f), tables_of(b, f)
    assert ta[f.tables[0]].height == n
    for name in f.tables:
        assert ta[name].equals(tb[name]), name


def test_tables_match_their_declared_schemas(played):
    f, a, _, _, _ = played
    for name in f.tables:
        for path in (a / name).rglob("*.parquet"):
            assert dict(pl.read_parquet_schema(path)) == f.schemas[name], (name, path)


def test_the_summary_tells_every_variant(played):
    f, _, _, n, summary = played
    assert summary["rounds"] == n and len(summary["variants"]) == 1
    lines = f.format_summary(summary)
    assert any(line.startswith(f"all {f.units}: {n:,} {f.units}") for line in lines), lines


def test_traced_units_replay_through_the_referee_and_validate_against_the_schema():
    import jsonschema

    for f in families():
        validator = jsonschema.Draft202012Validator(f.trace_schema())
        seats = [f.policies[s % len(f.policies)] for s in range(f.standard.players)]  # every bot plays
        for unit in (0, 3):
            trace = f.trace_json(f.standard, 7, unit, seats)
            validator.validate(json.loads(json.dumps(trace)))
            assert f.referee(trace) == []
            assert f.rules_class.from_dict(trace["rules"]) == f.standard  # the trace says what it played
            text = f.trace_text(f.standard, 7, unit, seats)
            assert "referee:" in text and "no violations" in text
        broken = f.trace_json(f.standard, 7, 0, seats)
        broken["rules"]["players"] = 3 if f.standard.players == 4 else 4  # the deal no longer fits
        assert f.referee(broken) != []


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_until_ci_stops_on_a_metric_of_the_family(name, tmp_path):
    f = family(name)
    metric = next(m.name for m in f.metrics if m.pattern == m.name and not m.share)
    parse_target(f"{metric}=1000", f.metrics, f.standard.players)  # the family's own metric parses
    r = cli("run", "--preset", f.standard.name, size_flag(f), 40, "--chunk", 8, "--seed", 3,
            "--until-ci", f"{metric}=1000", "--out", tmp_path / "u", "--no-progress", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output.strip().splitlines()[-1])["rounds"] < 40  # stopped at its first chunk


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_balance_answers_on_one_field(name, tmp_path):
    f = family(name)
    field, span, target = f.balance_example
    r = cli("balance", "--preset", f.standard.name, "--field", field, "--range", span, "--target", target,
            "--rounds", 100, "--max-rounds", 200, "--tolerance", 10, "--jobs", 1, "--out", tmp_path / "b", "--json",
            "--no-progress")
    assert r.exit_code in (0, 1), r.output  # 1: the target is out of reach in the range, said in the JSON
    answer = json.loads(r.output.strip().splitlines()[-1])
    assert answer["field"] == field and answer["target"]["metric"] == target.split("=")[0]
    low, high = map(int, span.split(":"))
    assert {low, high} <= set(answer["tried"]) and 0 <= answer["metric"]["ci_low"] <= answer["metric"]["ci_high"]


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_a_tournament_ranks_the_bots_on_duplicate_deals(name, tmp_path):
    f = family(name)
    r = cli("tournament", "--preset", f.standard.name, "--players", 2, "--policies", ",".join(f.policies[:2]),
            size_flag(f), 8, "--jobs", 1, "--out", tmp_path / "t", "--json", "--no-progress")
    assert r.exit_code == 0, r.output
    standings = json.loads(r.output.strip().splitlines()[-1])
    assert set(standings["policies"]) == set(f.policies[:2]) and standings["pairs"]
    # two seatings of 8 units, each deal played once per rotation: 4 deals
    assert standings["units"] == 16 and standings["deals"] == 4
    for v in standings["policies"].values():
        assert 0 <= v["decided_share"]["estimate"] <= 1 and v["player_units"] == 16
    # heads-up, the two policies' shares of the decided units add up to one
    assert sum(v["decided_share"]["estimate"] for v in standings["policies"].values()) == pytest.approx(1)


def test_the_report_has_each_family_s_sections(played, tmp_path):
    f, a, _, _, _ = played
    r = cli("report", "--data", a, "--out", tmp_path / "r")
    assert r.exit_code == 0, r.output
    text = (tmp_path / "r" / "report.md").read_text()
    assert text.startswith(f"# {f.title} balancing report") and "## a:" in text
    assert f.headlines(sim.analysis.open_dataset(a), {})


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_the_expert_plays_from_its_named_constants(name):
    """Issue 27: every family has an ``expert`` whose tuning constants are named Params
    (defaults inside their ranges), read from the ``tune`` rows that chunk_tables passes
    down: the defaults given play as none given, the constants moved to an end of their
    ranges play otherwise, and a row of the wrong size is refused."""
    from sim.games.family import expert_tune

    f = family(name)
    assert f.policies[:3] == ("greedy", "careful", "expert") and f.expert_params
    assert len({p.name for p in f.expert_params}) == len(f.expert_params)
    assert all(p.low <= p.default <= p.high and p.what for p in f.expert_params)
    rules = f.standard.replace(players=2)
    n = 6 if f.name == "rummikub" else 30

    def play(tune=None):
        tables = f.chunk_tables(rules, 3, 0, n, ["expert"], tune=tune)
        return tables[f.tables[-1]]  # the players rows

    plain = play()
    assert plain.equals(play(expert_tune(f.expert_params, 2)))
    ends = {p.name: p.high if p.default - p.low < p.high - p.default else p.low for p in f.expert_params}
    assert not plain.equals(play(expert_tune(f.expert_params, 2, ends)))
    with pytest.raises(sim.SimError):
        play(np.zeros((2, len(f.expert_params) + 1)))


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_deal_stats_measure_the_family_s_deal(name, tmp_path):
    f = family(name)
    out = tmp_path / "d.parquet"
    r = cli("deal-stats", "--preset", f.standard.name, "--samples", 2000, "--jobs", 1, "--out", out, "--json",
            "--no-progress")
    assert r.exit_code == 0, r.output
    assert pl.read_parquet(out).height == 2000
    summary = json.loads(r.output.strip().splitlines()[-1])
    shown = [m for m in f.deal_metrics if m.share and m.name in summary]  # the family's deal metrics, measured
    assert shown and all(0 <= summary[m.name]["ci_low"] <= summary[m.name]["estimate"] <= summary[m.name]["ci_high"]
                         <= 1 for m in shown)
    assert all(summary[m.name]["trials"] == 2000 for m in shown)


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_solve_answers_for_the_family(name):
    f = family(name)
    text = "R7 R8 R9 K12 B12 Y12 J" if f.rules_class.__name__ != "CardRules" else "AS 2S 3S KH KD KC 9D"
    r = cli("solve", "--preset", f.standard.name, "--json", text)
    assert r.exit_code == 0, r.output
    assert f.solve(text, f.standard, {"must_use": None, "table": None, "objective": "value"}) == \
        json.loads(r.output)


# --- the shared layers know no family ---------------------------------------------------------------


def _imports(path: Path, module: str) -> set[str]:
    """The sim modules ``module`` imports anywhere (inside functions too), but for type checking."""
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in
                   ast.unparse(node.test) for b in node.body for n in ast.walk(b)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:
                parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                base = ".".join([*parts[:len(parts) - node.level + 1], node.module])
            found.update([base, *(f"{base}.{a.name}" for a in node.names)])
    return {m for m in found if m.startswith("sim")}


def _modules() -> dict[str, Path]:
    out = {}
    for p in (ROOT / "sim").rglob("*.py"):
        name = ".".join(p.relative_to(ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = p
    return out


def test_no_shared_module_imports_a_family_and_no_import_cycle():
    """The shared layers reach a family only through the registry (sim.games), and the
    modules' imports (inside functions too) form no cycle."""
    mods = _modules()
    edges = {m: {d for d in _imports(p, m) if d in mods and d != m} for m, p in mods.items()}
    packages = tuple(f"{pkg}" for pkg in FAMILIES.values())
    shared = [m for m in mods if not m.startswith(packages)]
    leaks = {m: sorted(d for d in edges[m] if d.startswith(packages)) for m in shared}
    assert {m: d for m, d in leaks.items() if d} == {}
    seen, stack, cycle = set(), [], []

    def visit(m):
        if m in stack:
            cycle.append([*stack[stack.index(m):], m])
            return
        if m in seen:
            return
        seen.add(m)
        stack.append(m)
        for d in edges[m]:
            visit(d)
        stack.pop()

    for m in mods:
        visit(m)
    assert cycle == []


def test_families_use_only_the_public_names_of_the_shared_layers():
    """A family builds on the shared layers' public helpers (sim.report, sim.analysis, ...),
    never on their private names."""
    packages = tuple(FAMILIES.values())
    private = []
    for m, p in _modules().items():
        if not m.startswith(packages):
            continue
        own = next(pkg for pkg in packages if m.startswith(pkg))
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sim") \
                    and not node.module.startswith(own):
                private += [(m, node.module, a.name) for a in node.names if a.name.startswith("_")]
    assert private == []


def test_no_shared_module_names_a_family():
    """No family's name (nor its package's) appears in the code of the shared layers but
    the registry's one line each: sim/games/__init__.py."""
    names = [re.escape(n) for n in FAMILIES] + [re.escape(p) for p in FAMILIES.values()]
    pattern = re.compile(r"[\"'](" + "|".join(names) + r")[\"'.]")
    packages = tuple(FAMILIES.values())
    found = {}
    for m, p in _modules().items():
        if m.startswith(packages) or m == "sim.games":
            continue
        tree = ast.parse(p.read_text())
        owners = (ast.Module, ast.FunctionDef, ast.ClassDef)
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, owners) and n.body and isinstance(n.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                    and pattern.search(repr(node.value)):
                found.setdefault(m, []).append(node.value[:60])
    assert found == {}
