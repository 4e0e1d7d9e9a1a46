"""``sim report``: HTML and Markdown twins with figures from run, sweep and deal-stats data;
the same data give byte-identical output; bad sources are named; no link in the output
directory is followed, no text becomes markup, and a failed write leaves the old report."""

import errno
import hashlib
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure
from typer.testing import CliRunner

import sim
from sim.cli import app
from sim.report import build_report, to_html


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
    # each sweep's figures show what it sweeps: no figure is drawn twice (the openings of
    # the thresholds sweep are the open_points lines, not the baseline's seats again)
    assert len({f.read_bytes() for f in figures}) == len(figures)
    assert "every seat together, a line for each value of `open_points`" in md
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
    # each comparison shows the rounds it pairs (the small-data sweep: 40 a variant, marked few)
    assert re.search(r"\| open_points vs 30 \| open_points=50, players=2 \| 40 \(few\) \| [+-]", md)
    names = sorted(f.name for f in (tmp_path / "k" / "figures").glob("*.png"))
    assert names == ["01-rummikub-at-a-glance.png", "02-rummikub-opened-by-turn.png", "03-rummikub-penalties.png",
                     "04-rummikub-house-rules.png", "05-seat-edges.png"]
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


# --- writing safely: no link followed, no markup let through, all or nothing ----------------------


def one_error(r, *names):
    """The CLI failed as an input error: status 2, one ``error:`` line naming ``names``."""
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert all(str(n) in lines[0] for n in names), r.output
    return lines[0]


def tree(folder):
    """What is in ``folder``: each entry's kind and a link's target or a file's bytes."""
    def what(p):
        if p.is_symlink():
            return "link", os.readlink(p)
        return ("dir", None) if p.is_dir() else ("file", p.read_bytes())
    return {p.relative_to(folder).as_posix(): what(p) for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("link", ["figures", "report.html", "report.md", "figures/01-old.png", "tables",
                                  "tables/01-old.csv"])
def test_a_link_inside_out_is_refused_before_anything_changes(data, tmp_path, link):
    """``ln -s ~/pics R/figures`` or ``ln -s victim R/report.html``: the report refuses,
    naming the link, and neither deletes nor writes anything, there or where it points."""
    pics, victim, out = tmp_path / "pics", tmp_path / "victim.txt", tmp_path / "R"
    pics.mkdir()
    (pics / "holiday.png").write_bytes(b"a photo")
    victim.write_text("precious")
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "00-keep.png").write_bytes(b"an old figure")
    (out / "tables").mkdir()
    (out / "tables" / "00-keep.csv").write_text("an,old\ntable,\n")
    if link in ("figures", "tables"):
        shutil.rmtree(out / link)
    (out / link).symlink_to(pics if link in ("figures", "tables") else victim)
    before, outside = tree(out), tree(pics) | {"victim": victim.read_text()}
    r = CliRunner().invoke(app, ["report", "--data", str(data / "thresholds"), "--out", str(out)])
    assert "symbolic link" in one_error(r, out / link)
    assert tree(out) == before and tree(pics) | {"victim": victim.read_text()} == outside


def test_out_may_be_a_link_and_a_hard_link_in_it_is_replaced(data, tmp_path):
    """``--out`` itself a link to a directory is where the user chose to write; a hard link
    at ``report.html`` is replaced by the new file, not written through."""
    real, victim = tmp_path / "real", tmp_path / "victim.txt"
    real.mkdir()
    victim.write_text("precious")
    os.link(victim, real / "report.html")
    (tmp_path / "R").symlink_to(real)
    r = CliRunner().invoke(app, ["report", "--data", str(data / "thresholds"), "--out", str(tmp_path / "R")])
    assert r.exit_code == 0, r.output
    assert victim.read_text() == "precious" and (real / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in real.iterdir()) == ["figures", "report.html", "report.md", "tables"]


class Markup(HTMLParser):
    """The elements of an HTML page and their attributes (entities decoded, as a browser reads them)."""

    def __init__(self, page):
        super().__init__(convert_charrefs=True)
        self.elements = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))


def test_html_shows_tags_in_titles_names_and_notes_as_text(data, tmp_path):
    """A run directory named like an element, a ``--title`` with a script and notes with raw
    HTML and a ``javascript:`` link: the HTML shows them as text, the Markdown keeps them."""
    name = "<img src=x onerror=alert(1)>"
    (tmp_path / name).symlink_to(data / "thresholds")
    notes = tmp_path / "notes.md"
    notes.write_text('<div onclick="alert(2)">raw</div>\n\n[click](javascript:alert(3))\n')
    title = "<script>alert(1)</script>"
    r = CliRunner().invoke(app, ["report", "--data", str(tmp_path / name), "--out", str(tmp_path / "r"),
                                 "--title", title, "--notes", str(notes)])
    assert r.exit_code == 0, r.output
    md, page = (tmp_path / "r" / "report.md").read_text(), (tmp_path / "r" / "report.html").read_text()
    assert md.startswith(f"# {title}\n") and f"## {name}: sweep" in md and notes.read_text() in md
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert '&lt;div onclick="alert(2)"&gt;raw&lt;/div&gt;' in page
    elements = Markup(page).elements
    assert {tag for tag, _ in elements} <= MARKDOWN_TAGS | {"html", "head", "meta", "title", "style", "body"}
    assert all(a["src"].startswith("figures/") for tag, a in elements if tag == "img")
    assert ("a", {}) in elements  # the javascript: link kept as text, its address dropped


MARKDOWN_TAGS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "a", "img", "em", "strong", "code", "pre", "br", "hr",
                 "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td",
                 "details", "summary", "div"}  # the last three: the contents the report adds
PIECES = ["<", ">", "/", "script", "img src=x onerror=alert(1)", "iframe", '"', "'", "=", "&", "&#60;", "&lt;",
          "&#106;", "#", "!", "[x]", "(", ")", "javascript:", "JaVaScRiPt:", "data:", "vbscript:", "http://e.org",
          "figures/a.png", " ", "\t", "\n", "\n\n", "`", "```", "|", "---", "*", "\\", ":", "x", "<!--", "-->", "a"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_to_html_makes_only_markdowns_own_markup(text):
    """Whatever text the Markdown holds (a title, a directory name, a rule value, notes), the
    HTML has only the elements Markdown syntax makes, no event handler, and no link or image
    address but a relative or web one."""
    for tag, attrs in Markup(to_html(text)).elements:
        assert tag in MARKDOWN_TAGS, (tag, text)
        assert set(attrs) <= {"href", "src", "alt", "title", "class", "style", "id"}, (attrs, text)
        for key in ("href", "src"):
            if key in attrs:
                plain = re.sub(r"[\x00-\x20\x7f]", "", attrs[key]).lower()
                assert not plain.startswith(("javascript:", "data:", "vbscript:")), (attrs, text)


@pytest.mark.parametrize("where", ["file", "/dev/null", "/dev/null/r"])
def test_out_that_is_no_directory_is_one_error(data, tmp_path, where):
    out = tmp_path / "file" if where == "file" else Path(where)
    if where == "file":
        out.write_text("not a directory")
    r = CliRunner().invoke(app, ["report", "--data", str(data / "thresholds"), "--out", str(out)])
    one_error(r, out)
    assert "Traceback" not in r.output
    if where == "file":
        assert out.read_text() == "not a directory" and sorted(tmp_path.iterdir()) == [out]


def test_read_only_out_is_one_error_and_left_as_it_was(data, tmp_path):
    """A chmod 0o555 directory holding an old report. As root (whom permissions do not stop)
    the command runs in a process without the capabilities that override them."""
    out = tmp_path / "ro"
    build_report([data / "thresholds"], out, command="x")
    before = tree(out)
    args = ["report", "--data", str(data / "thresholds"), "--out", str(out), "--title", "new"]
    out.chmod(0o555)
    try:
        if os.geteuid() != 0:
            r = CliRunner().invoke(app, args)
            status, output = r.exit_code, r.output
        else:
            if not shutil.which("setpriv"):
                pytest.skip("running as root, where chmod does not stop writes, without setpriv to drop "
                            "the capabilities that override it")
            code = "import sys; from sim.cli import main; sys.argv[0] = 'sim'; main()"
            p = subprocess.run(["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner",
                                "--inh-caps=-all", sys.executable, "-c", code, *args],
                               capture_output=True, text=True, timeout=120,
                               env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
            if p.stderr.startswith("setpriv:"):
                pytest.skip(f"running as root, where chmod does not stop writes, and setpriv cannot drop "
                            f"the capabilities that override it: {p.stderr.strip()}")
            status, output = p.returncode, p.stdout + p.stderr
    finally:
        out.chmod(0o755)
    lines = output.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith(f"error: cannot write {out}: "), output
    assert tree(out) == before


@pytest.mark.parametrize("fails", ["figure", "html"])
@pytest.mark.parametrize("old", [True, False], ids=["old-report", "new-dirs"])
def test_a_full_disk_leaves_nothing_half_written(data, tmp_path, monkeypatch, fails, old):
    """No space left while writing the second figure or the HTML (half of it written): one
    line naming the file as the report names it, the old report whole, no temporary file left;
    for a new ``--out`` no directory made."""
    out = tmp_path / "r" if old else tmp_path / "new" / "r"
    if old:
        build_report([data / "thresholds"], out, command="x")
    before = tree(tmp_path)

    def full(path, data):
        real_write_bytes(path, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    real_write_bytes, real_savefig, calls = Path.write_bytes, Figure.savefig, []
    if fails == "figure":
        def savefig(fig, path, **kw):
            calls.append(path)
            if len(calls) == 2:
                full(Path(path), b"\x89PNG half a figure")
            return real_savefig(fig, path, **kw)
        monkeypatch.setattr(Figure, "savefig", savefig)
        named = None  # the second figure's name, known once it is written
    else:
        monkeypatch.setattr(Path, "write_bytes",
                            lambda p, b: full(p, b) if p.name == "report.html" else real_write_bytes(p, b))
        named = out / "report.html"
    r = CliRunner().invoke(app, ["report", "--data", str(data / "thresholds"), "--out", str(out), "--title", "new"])
    named = named or out / "figures" / Path(calls[1]).name
    assert "No space left on device" in one_error(r, f"cannot write {named}: ")
    assert tree(tmp_path) == before


# --- one sweep played by two sets of bots (issue 27, part 4) -------------------------------------


@pytest.fixture(scope="module")
def bot_sweeps(tmp_path_factory):
    """One sweep of Rummy 101 played by greedy and by careful bots (the same seed), and the
    same with another seed."""
    from sim import runner
    from sim.games import preset

    root = tmp_path_factory.mktemp("bots")
    out = {}
    for name, policy, seed in (("greedy", "greedy", 5), ("careful", "careful", 5), ("other", "careful", 6)):
        two = preset("rummy101").replace(players=2)
        variants = tuple(runner.Variant(two.replace(open_points=v), (("open_points", str(v)),)) for v in (91, 101))
        spec = runner.RunSpec(variants, 1500, seed, (policy,), 1500, kind="sweep")
        runner.run(spec, root / name, jobs=1, progress=False)
        out[name] = root / name
    return out


def test_a_finding_s_verdict_across_bots():
    from sim.analysis import CHANGES_SIGN, DIFFERS, HOLDS, verdict

    assert verdict(1, 2, 1.5, 2.5, -0.5, 1.0) == HOLDS  # the change's interval holds zero
    assert verdict(1, 2, 3, 4, 1.2, 2.0) == DIFFERS
    assert verdict(1, 2, -3, -2, -4, -3) == CHANGES_SIGN  # both clear of zero, on opposite sides
    assert verdict(-0.1, 2, -3, -2, -4, -3) == DIFFERS  # one holds zero: not a change of sign


def test_compare_bots_pairs_the_same_rounds_and_marks_every_finding(bot_sweeps):
    from sim.analysis import (
        bot_levels,
        compare_bots,
        compare_seat_edges,
        compare_variants,
        open_dataset,
        penalties,
        round_metrics,
        same_sweep,
    )

    greedy, careful, other = (open_dataset(bot_sweeps[k]) for k in ("greedy", "careful", "other"))
    assert same_sweep(greedy, careful) and not same_sweep(greedy, other) and not same_sweep(greedy, greedy)
    comp = compare_bots(greedy, careful, {"open_points": 101}, ["opened_by_3", "mean_penalty"])
    alone = compare_variants(greedy, {"open_points": 101}, ["opened_by_3", "mean_penalty"])
    # each side is the sweep's own paired comparison, and the change their difference
    for r in comp.iter_rows(named=True):
        own = alone.filter(pl.col("metric") == r["metric"]).row(0, named=True)
        assert r["n"] == 1500 and r["a_diff"] == pytest.approx(own["diff"])
        assert r["change"] == pytest.approx(r["b_diff"] - r["a_diff"])
        assert r["change_ci_low"] < r["change"] < r["change_ci_high"]
    # a sweep against itself: nothing changes, every finding holds
    same = compare_bots(greedy, greedy, {"open_points": 101}, ["opened_by_3", "mean_penalty"])
    assert (same["change"] == 0).all() and (same["verdict"] == "holds").all()
    edges = compare_seat_edges(greedy, careful)
    assert edges.height == 4 and (edges["a_score_edge"].abs() > 0).all()
    # read into memory, as the report reads them: the same edges and findings
    from polars.testing import assert_frame_equal

    from sim.analysis import in_memory

    g, c = in_memory(greedy), in_memory(careful)
    assert_frame_equal(compare_seat_edges(g, c), edges, rel_tol=1e-9)
    assert_frame_equal(compare_bots(g, c, {"open_points": 101}, ["opened_by_3", "mean_penalty"]), comp,
                       rel_tol=1e-9)
    assert edges.filter(pl.col("seat") == 0)["a_score_edge"].to_list() == pytest.approx(
        (-edges.filter(pl.col("seat") == 1)["a_score_edge"]).to_list())  # two seats: opposite edges
    # the levels: each side's mean is the sweep's own, and the effects are their differences
    levels = bot_levels(greedy, careful, ["opened_by_3", "mean_penalty"])
    assert levels.height == 4 and (levels["n"] == 1500).all()
    # a mean over the players who lost is pooled over them, as the penalty table prints it
    own = penalties(careful, ["open_points"]).sort("open_points")
    level = levels.filter(pl.col("metric") == "mean_penalty").sort("open_points")
    assert level["b_mean"].to_list() == pytest.approx(own["mean"].to_list())
    assert level["b_ci_low"].to_list() == pytest.approx(own["ci_low"].to_list())
    shares = round_metrics(careful).group_by("open_points").agg(pl.col("opened_by_3").mean())
    level = levels.filter(pl.col("metric") == "opened_by_3").sort("open_points")
    assert level["b_mean"].to_list() == pytest.approx(shares.sort("open_points").collect()["opened_by_3"].to_list())
    for r in comp.iter_rows(named=True):
        at = {v: levels.filter((pl.col("metric") == r["metric"]) & (pl.col("open_points") == v)).row(0, named=True)
              for v in (91, 101)}
        for side in "ab":
            assert r[f"{side}_diff"] == pytest.approx(at[91][f"{side}_mean"] - at[101][f"{side}_mean"])
            assert at[91][f"{side}_ci_low"] < at[91][f"{side}_mean"] < at[91][f"{side}_ci_high"]
    with pytest.raises(sim.DatasetError, match="not the same sweep"):
        compare_bots(greedy, open_dataset(bot_sweeps["other"]).__class__(
            other.path, {**other.manifest, "seed": 99}, ("players",), other.rounds, other.players),
            {"open_points": 101})


def test_the_report_sets_one_sweep_beside_the_same_played_by_other_bots(bot_sweeps, tmp_path):
    build_report([bot_sweeps["greedy"], bot_sweeps["careful"], bot_sweeps["other"]], tmp_path / "r",
                 command="sim report ...", baseline={"open_points": "101"})
    md = (tmp_path / "r" / "report.md").read_text()
    assert md.count("## Played by other bots") == 1  # the other seed is another sweep: no pair
    section = md.split("## Played by other bots: greedy (greedy) beside careful (careful)")[1].split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| open_points vs 101")]
    assert len(rows) == 6 and all(re.search(r"\| (holds|\*differs\*|\*\*changes sign\*\*) \|$", r) for r in rows)
    assert "Each seat's edges over the table" in section and "figures/" in section
    levels = section.split("Each variant as each set of bots plays it")[1].split("Each seat's edges")[0]
    bots = [line.split(" | ")[1] for line in levels.splitlines() if line.startswith("| open_points=")]
    assert bots == ["greedy", "careful"] * 2  # each variant, as each set of bots plays it
    # the sweep played again is shown beside the first, not on its own; the key numbers count its findings
    assert "## careful: sweep" not in md and "## greedy: sweep" in md and "## other: sweep" in md
    assert re.search(r"- greedy played with every seat careful instead of greedy \(careful\): of 6 paired "
                     r"findings, \d hold", md)


def test_a_report_names_its_commit_and_flags_what_no_commit_can_make_again(tmp_path, monkeypatch):
    """The report says which commit built it and which wrote its data; data or a build from a
    checkout with local changes (``-dirty``) is flagged at the top, before any number."""
    from sim import runner, store
    from sim.games import preset

    def write(name, commit):
        monkeypatch.setattr(store, "git_commit", lambda: commit)
        variants = runner.grid_variants(preset("rummy101").replace(players=2), {})
        runner.run(runner.RunSpec(variants, 40, 1, ("greedy",), 20), tmp_path / name, jobs=1, progress=False)

    write("clean", "c0ffee")
    write("edited", "c0ffee-dirty")
    monkeypatch.setattr(store, "git_commit", lambda: "c0ffee")
    build_report([tmp_path / "clean"], tmp_path / "ok", command="x")
    md = (tmp_path / "ok" / "report.md").read_text()
    assert "Not reproducible" not in md and "built by package" in md and "at commit `c0ffee`" in md
    build_report([tmp_path / "clean", tmp_path / "edited"], tmp_path / "flagged", command="x")
    md = (tmp_path / "flagged" / "report.md").read_text()
    top = md.split("Key numbers")[0]
    assert "> **Not reproducible from a commit:** 2 of the 2 chunks of edited were written" in top
    assert "report was built" not in top
    monkeypatch.setattr(store, "git_commit", lambda: "beef-dirty")
    page = build_report([tmp_path / "clean"], tmp_path / "dirty", command="x")
    assert "the report was built from a checkout with local changes (`beef-dirty`)" in \
        (tmp_path / "dirty" / "report.md").read_text()
    assert "<blockquote>" in page.read_text()


def test_a_sigterm_that_polars_turns_into_a_rust_panic_still_stops_the_report_as_an_interrupt():
    """A SIGTERM whose KeyboardInterrupt is raised inside a Python function that polars' Rust
    code calls comes out as pyo3's PanicException (a BaseException), which ended ``sim
    report`` with status 1 instead of 130 (once in CI). Inside the report's guard it is an
    interrupt again; without a SIGTERM, such an exception passes as it is."""
    import signal

    from sim.report import _terminated_as_interrupt

    class Panic(BaseException):  # stands for pyo3_runtime.PanicException
        pass

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt) as stopped, _terminated_as_interrupt():
        try:
            signal.raise_signal(signal.SIGTERM)
        except KeyboardInterrupt as e:
            raise Panic("called `Result::unwrap()` on an `Err` value: KeyboardInterrupt") from e
    assert isinstance(stopped.value.__cause__, Panic)
    with pytest.raises(Panic), _terminated_as_interrupt():
        raise Panic("not a stop")
    assert signal.getsignal(signal.SIGTERM) is before  # the handler before is back


def test_a_report_stopped_by_sigterm_leaves_the_old_report_and_no_half_built_one(small_data, tmp_path):
    """``kill`` (SIGTERM) while ``sim report`` builds ends it as Ctrl-C does: status 130, the
    old report as it was and no hidden staging directory left in ``--out`` (it was left before)."""
    import signal
    import time

    out = tmp_path / "r"
    build_report([small_data / "variants"], out, command="old")
    old = (out / "report.md").read_bytes()
    p = subprocess.Popen([sys.executable, "-m", "sim.cli", "report", "--data", str(small_data / "variants"),
                          "--data", str(small_data / "thresholds"), "--out", str(out)], stderr=subprocess.PIPE,
                         stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not list(out.glob(".report-*")) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert p.poll() is None, "the report ended before it could be stopped"
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err.decode()  # as an interrupt (128 + SIGINT), as Ctrl-C ends it
    assert err.decode().strip().splitlines()[-1] == "error: interrupted"  # one line says why
    assert not list(out.glob(".report-*")) and (out / "report.md").read_bytes() == old
