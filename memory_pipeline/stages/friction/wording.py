"""Wording fixes, pure: the findings as the friction prompt's input, the model's answer parsed back,
and the offline answer (the drafted wording, unchanged).

The model only words: evidence, sessions, severity and target come from the findings, matched by
ref (X1, X2, …), so a fix can never cite evidence that does not exist. A ref the answer leaves out
is a finding the model judged not worth a fix; an unknown ref is ignored.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from memory_pipeline.stages.friction.findings import Finding
from memory_pipeline.stages.guard import NETWORK_CODE, danger_reasons

_FINDING = re.compile(r'<finding ref="(?P<ref>X\d+)"[^>]*>(?P<body>.*?)</finding>', re.DOTALL)
_FIX = re.compile(r'<fix\s+ref="(?P<ref>X\d+)"\s*>(?P<body>.*?)</fix>', re.DOTALL | re.IGNORECASE)
_NONE = re.compile(r"<none\s*/>", re.IGNORECASE)


@dataclass(frozen=True)
class Wording:
    title: str
    change: str


def _tag(body: str, name: str) -> str:
    found = re.search(rf"<{name}>(.*?)</{name}>", body, re.DOTALL | re.IGNORECASE)
    return " ".join(html.unescape(found.group(1)).split()) if found else ""


def _escape(text: str) -> str:
    return html.escape(" ".join(text.split()), quote=False)


def render_findings(findings: list[Finding]) -> str:
    """The `<finding>` elements of the user prompt, refs X1… in order."""
    blocks = []
    for number, finding in enumerate(findings, start=1):
        where = finding.target if finding.target != "MEMORY.md" else f"MEMORY.md, section {finding.section}"
        lines = [f'<finding ref="X{number}" kind="{finding.kind}" sessions="{len(finding.sessions)}" '
                 f'occurrences="{finding.occurrences}" severity="{finding.severity:g}" target="{where}">',
                 f"<pattern>{_escape(finding.pattern)}</pattern>", "<evidence>"]
        lines += [f"- {e.day} {e.time or '--:--'} session {e.session_id}: {_escape(e.quote)}" for e in finding.evidence]
        lines.append("</evidence>")
        if finding.then:
            lines.append(f"<worked-after>{_escape(finding.then)}</worked-after>")
        if finding.recurring_of:
            lines.append("<recurring>an approved fix for this did not stop it</recurring>")
        lines += [f"<draft-title>{_escape(finding.title)}</draft-title>", f"<draft>{_escape(finding.draft)}</draft>",
                  "</finding>"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def parse_fixes(text: str, refs: list[str]) -> dict[str, Wording]:
    """The model's wording by ref; raises ValueError when the answer has neither a fix nor <none/>."""
    found: dict[str, Wording] = {}
    for match in _FIX.finditer(text):
        ref, body = match.group("ref"), match.group("body")
        title, change = _tag(body, "title"), _tag(body, "change")
        if ref in refs and len(change) >= 3 and ref not in found:
            found[ref] = Wording(title or change[:70], change)
    if not found and refs and not _NONE.search(text):
        raise ValueError("no <fix ref=\"X…\"> element with a <change> for any finding, and no <none/>")
    return found


def word_fixes_offline(system: str, prompt: str) -> str:
    """The offline provider's answer: every finding's drafted title and change."""
    fixes = []
    for match in _FINDING.finditer(prompt):
        body = match.group("body")
        fixes.append(f'<fix ref="{match.group("ref")}">\n<title>{_escape(_tag(body, "draft-title"))}</title>\n'
                     f'<change>{_escape(_tag(body, "draft"))}</change>\n</fix>')
    return "\n".join(fixes) if fixes else "<none/>"


def never_authored(finding: Finding, wording: Wording) -> str | None:
    """Why a fix is not proposed at all, or None: the product never authors a fix that would run
    code fetched from the network (`curl … | sh`), whether the drafted wording, the model's, or the
    command that "worked" carries it; the finding stays in the friction report."""
    for text in (wording.change, wording.title, finding.then):
        if NETWORK_CODE in danger_reasons(text):
            return "its fix would have agents run code fetched from the network (a download piped into a shell); not proposed"
    return None
