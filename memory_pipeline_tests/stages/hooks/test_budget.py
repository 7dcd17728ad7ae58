"""A context built to a character budget: whole lines, headings kept with their line, every fence
closed, and a last line saying what was left out."""

from __future__ import annotations

import re

from memory_pipeline.stages.hooks.budget import Section, fit, left_out_words, units


def left_out(counts: dict[str, int]) -> str:
    return f"_Left out: {left_out_words(counts)}._"


def fences_closed(text: str) -> bool:
    """Every fence opened (```text, or longer) is closed by a fence of the same length."""
    opened = None
    for line in text.splitlines():
        match = re.fullmatch(r"(`{3,})(text)?", line)
        if match and opened is None and match[2]:
            opened = match[1]
        elif match and opened == line:
            opened = None
    return opened is None


def test_everything_fits_nothing_is_said_left_out():
    fitted = fit([Section("a", ["one", "two"]), Section("b", ["three"], fenced=True)], 1000, left_out)
    assert fitted.complete and fitted.text == "one\ntwo\n\n```text\nthree\n```\n"


def test_lower_sections_give_way_lines_stay_whole_and_fences_close():
    notes = [f"note {n} " + "x" * 60 for n in range(40)]
    pack = ["### P0", *[f"- rule {n} " + "`y`" * 20 for n in range(40)], "### CONTEXT", "- last"]
    sections = [Section("title", ["# Briefing"]), Section("MEMORY.md", ["- keep me"], head=["## MEMORY.md", ""]),
                Section("the notes", notes, head=["## Notes", ""], fenced=True),
                Section("the recall pack", pack, head=["## Pack", ""], fenced=True)]
    fitted = fit(sections, 2000, left_out)
    assert len(fitted.text) <= 2000 and fences_closed(fitted.text)
    shown = fitted.text.splitlines()
    assert "- keep me" in shown and shown[-1].startswith("_Left out: ")
    assert all(line in notes + pack or not line.startswith(("note", "- rule")) for line in shown)  # whole lines
    kept = [line for line in shown if line.startswith("note")]
    assert kept == notes[:len(kept)] and 0 < len(kept) < 40  # in order, the first ones
    assert fitted.left_out["the notes"] == 40 - len(kept)
    assert fitted.left_out["the recall pack"] == 41 and "## Pack" not in shown  # no heading without its lines
    assert "of the notes" in shown[-1] and "41 lines of the recall pack" in shown[-1]


def test_a_heading_goes_with_the_line_it_heads():
    assert units(["# A", "", "a1", "a2", "## B", "b1"]) == [["# A", "", "a1"], ["a2"], ["## B", "b1"]]
    fitted = fit([Section("s", ["- first", "### Later", "- under later " + "z" * 80])], 100, left_out)
    assert "### Later" not in fitted.text and fitted.left_out == {"s": 1}


def test_a_balanced_section_keeps_the_first_lines_of_each_part():
    body = ["## Pack"] + [line for part in ("A", "B", "C") for line in
                          [f"### {part}"] + [f"- {part}{n} " + "w" * 40 for n in range(10)]]
    fitted = fit([Section("the pack", body, fenced=True, balanced=True)], 900, left_out)
    shown = fitted.text.splitlines()
    assert fences_closed(fitted.text) and len(fitted.text) <= 900
    for part in ("A", "B", "C"):
        kept = [line for line in shown if line.startswith(f"- {part}")]
        assert f"### {part}" in shown and kept and kept == [line for line in body if line.startswith(f"- {part}")][:len(kept)]
    assert shown.index("### A") < shown.index("### B") < shown.index("### C")  # shown as written
    assert fitted.left_out["the pack"] == 30 - sum(line.startswith("- ") for line in shown)
