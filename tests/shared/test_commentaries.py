"""The committed reference reports and their commentaries (``reports/*-notes.md``) agree:
each report was built from its commentary as it stands, and every figure the commentary
quotes is printed somewhere in the report itself, with the same rounding, so a reader can
find it in the tables and a rebuild that moves a number fails here until the text is
rewritten."""

import re
from pathlib import Path

import pytest

REPORTS = Path(__file__).resolve().parents[2] / "reports"
PAIRS = {"reference": "reference-notes.md", "reference-rummikub": "reference-rummikub-notes.md",
         "reference-cards": "reference-cards-notes.md"}
# A figure with decimals (13.2, +1.22, 0.264, 1,234.5): whole numbers (4 players, 101 points,
# 2/3) name settings as often as results and are not checked.
FIGURE = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*\.\d+")


@pytest.mark.parametrize("report", sorted(PAIRS))
def test_every_figure_a_commentary_quotes_is_in_its_report(report):
    notes = (REPORTS / PAIRS[report]).read_text(encoding="utf-8").rstrip()
    text = (REPORTS / report / "report.md").read_text(encoding="utf-8")
    assert notes in text, f"reports/{report} was not built from {PAIRS[report]} as it stands: rebuild it"
    printed = text.replace(notes, "")
    quoted = FIGURE.findall(notes)
    assert len(quoted) > 20
    missing = sorted({q for q in quoted if q.lstrip("+-−") not in printed})
    assert not missing, f"{PAIRS[report]} quotes figures reports/{report} does not print: {missing}"
