"""``sim report``: HTML and Markdown twins with figures from run, sweep and deal-stats data;
the same data give byte-identical output; bad sources are named."""

import hashlib

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.report import build_report


@pytest.fixture(scope="module")
def data(small_data):
    return small_data


def digest(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_report_has_html_markdown_figures_and_provenance(data, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("## Findings\n\nThe bar matters.\n")
    page = build_report([data / "deal.parquet", data / "variants", data / "thresholds"], tmp_path / "r",
                        command="sim report ...", notes=notes)
    md = (tmp_path / "r" / "report.md").read_text()
    html = page.read_text()
    figures = sorted((tmp_path / "r" / "figures").glob("*.png"))
    assert len(figures) >= 7
    for f in figures:
        assert f"figures/{f.name}" in md and f"figures/{f.name}" in html
    for text in ("Can a dealt rack open?", "When do players open?", "Increasing thresholds",
                 "The opening threshold", "Penalties", "Paired comparisons", "The bar matters.",
                 "Rules, provenance and how to reproduce", '"open_points"', "commit `", "sim report ..."):
        assert text in md
    assert "<table>" in html and "<img" in html


def test_same_data_same_bytes(data, tmp_path):
    build_report([data / "variants", data / "deal.parquet"], tmp_path / "a", command="x")
    build_report([data / "variants", data / "deal.parquet"], tmp_path / "b", command="x")
    a, b = digest(tmp_path / "a"), digest(tmp_path / "b")
    assert a == b and len(a) > 5


def test_cli_report_and_bad_sources(data, tmp_path):
    cli = CliRunner()
    r = cli.invoke(app, ["report", "--data", str(data / "variants"), "--out", str(tmp_path / "c")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "c" / "report.html").exists()
    r = cli.invoke(app, ["report", "--data", str(tmp_path / "missing"), "--out", str(tmp_path / "d")])
    assert r.exit_code == 2 and "missing" in r.output and "Traceback" not in r.output
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"garbage")
    r = cli.invoke(app, ["report", "--data", str(bad), "--out", str(tmp_path / "d")])
    assert r.exit_code == 2 and "bad.parquet" in r.output
    assert not (tmp_path / "d").exists()


def test_rummikub_report_has_its_own_sections(data, tmp_path):
    """A Rummikub sweep gets the Rummikub sections (seat advantage, the house rule's paired
    effect) and title, from the same report builder."""
    page = build_report([data / "rummikub"], tmp_path / "k", command="sim report ...")
    md = (tmp_path / "k" / "report.md").read_text()
    assert md.startswith("# Rummikub balancing report")
    for text in ("The variants at a glance", "When do players open?", "Seat advantage", "What losing costs",
                 "What each house rule changes", "open_points=50", "pool_empty", '"family": "rummikub"'):
        assert text in md, text
    assert "stock" not in md.lower()  # no Rummy 101 wording
    assert md.count("### Seat advantage") == 1  # the shared section, not a family copy beside it
    assert len(list((tmp_path / "k" / "figures").glob("*.png"))) == 3
    assert page.exists()


def test_a_run_is_headed_as_one_variant(tmp_path):
    """A run sweeps no field: its section says so in words, not as a sweep over nothing."""
    import sim
    from sim import runner

    spec = runner.RunSpec((runner.Variant(sim.preset("rummy101")),), 60, 5, ("greedy",), 60, kind="run")
    runner.run(spec, tmp_path / "solo", jobs=1, progress=False)
    build_report([tmp_path / "solo"], tmp_path / "r", command="x")
    md = (tmp_path / "r" / "report.md").read_text()
    assert "## solo: run of a single variant" in md and "over no field" not in md
