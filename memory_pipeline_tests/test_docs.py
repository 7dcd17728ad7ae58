"""The documentation reads as documentation: README.md and every page under docs/.

No page names this machine's paths or the development sessions that wrote it, no hand-written page
is over 400 lines, the README fits a five-minute read, every page is reachable from the README by
links, and every relative link (and its #anchor) leads somewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory_pipeline_tests.support.paths import PROJECT_ROOT

DOCS = PROJECT_ROOT / "docs"
README = PROJECT_ROOT / "README.md"
# generated from the code (python -m memory_pipeline.reference --write, python -m memory_pipeline.config):
# as long as the commands and settings are, so exempt from the length limit
GENERATED = {DOCS / "cli.md", DOCS / "configuration.md"}
MAX_PAGE_LINES = 400
MAX_README_LINES = 100

# paths of the machine the project was developed on (a user's paths in examples are ~/… or /home/me/…)
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|tmp)/")
# development sessions and rounds, as a run log names them
SESSION_REFERENCE = re.compile(
    r"(?<![-\w])session \d+\b(?! (?:user|tool|messages?|turns?|sessions?|days?|minutes?|hours?)\b)"
    r"|(?<![-\w])sessions \d+ (?:and|to|–|-) \d+"
    r"|\bsession of \d{4}-\d\d-\d\d"
    r"|\b(?:in|since|during|until|before|after|from) this session\b"
    r"|\bround \d+\b|\bthis round\b",
    re.IGNORECASE,
)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def prose(path: Path) -> str:
    """The page without its fenced code blocks (links and headings in code are not links)."""
    kept, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(line)
    return "\n".join(kept)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in prose(path).splitlines():
        match = re.match(r"#{1,6}\s+(.*)", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def relative_links(path: Path) -> list[str]:
    return [target for target in LINK.findall(prose(path))
            if not re.match(r"[a-z][a-z0-9+.-]*:", target)]  # http:, https:, mailto:


def name(path: Path) -> str:
    return str(path.relative_to(PROJECT_ROOT))


@pytest.mark.parametrize("path", pages(), ids=name)
def test_no_machine_paths(path: Path):
    lines = path.read_text(encoding="utf-8").splitlines()
    hits = [f"{n}: {line.strip()[:100]}" for n, line in enumerate(lines, 1) if MACHINE_PATH.search(line)]
    assert not hits, (f"{name(path)} names this machine's paths (write DIR, ~/… or a relative path):\n"
                      + "\n".join(hits))


@pytest.mark.parametrize("path", pages(), ids=name)
def test_no_development_session_references(path: Path):
    hits = [f"{n}: {match.group(0)!r} in {line.strip()[:100]}"
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            for match in SESSION_REFERENCE.finditer(line)]
    assert not hits, (f"{name(path)} speaks of development sessions (git keeps the history; "
                      "docs/decisions/ keeps why):\n" + "\n".join(hits))


@pytest.mark.parametrize("path", [p for p in pages() if p not in GENERATED], ids=name)
def test_hand_written_pages_are_short(path: Path):
    limit = MAX_README_LINES if path == README else MAX_PAGE_LINES
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= limit, f"{name(path)} is {lines} lines (at most {limit}): cut it, or split it by subject"


def test_the_generated_pages_exist():
    assert all(path.exists() for path in GENERATED)


@pytest.mark.parametrize("path", pages(), ids=name)
def test_relative_links_resolve(path: Path):
    broken = []
    for target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading with that anchor in {name(linked)}")
    assert not broken, f"{name(path)} has broken links:\n" + "\n".join(broken)


def test_every_page_is_linked_from_the_readme_or_a_linked_page():
    reached, todo = {README.resolve()}, [README]
    while todo:
        page = todo.pop()
        for target in relative_links(page):
            linked = (page.parent / target.partition("#")[0]).resolve()
            if linked.suffix == ".md" and linked.exists() and linked not in reached:
                reached.add(linked)
                todo.append(linked)
    orphans = [name(path) for path in pages() if path.resolve() not in reached]
    assert not orphans, f"linked from nowhere (link them from README.md or a page it reaches): {orphans}"


def test_the_checks_catch_what_they_look_for(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nMeasured in session 16 under /work/exp/run.py, see [x](missing.md) "
                    "and [y](#title) and [z](#nope).\n\n```\n[code](not-a-link.md)\n```\n", encoding="utf-8")
    text = page.read_text(encoding="utf-8")
    assert MACHINE_PATH.search(text) and SESSION_REFERENCE.search(text)
    assert relative_links(page) == ["missing.md", "#title", "#nope"] and anchors(page) == {"title"}
    assert SESSION_REFERENCE.search("sessions 18 and 19") and SESSION_REFERENCE.search("measured in this session")
    assert not SESSION_REFERENCE.search("a session 3 user messages long; 4 sessions 2 days apart; --sessions 4; "
                                        "per 10 sessions 27.5; the guidance this session started with")
    assert slug("The 1M row: payloads `read` by id (2026-11-27)") == "the-1m-row-payloads-read-by-id-2026-11-27"
