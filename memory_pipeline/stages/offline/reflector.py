"""The offline provider's Reflector: deterministic, extractive, no network and no model.

It reads the observations and MEMORY.md back out of the user prompt (prompts/reflector.md),
keeps the facts worth remembering (no change log of a session), drops problems a later fact
resolved and values a later fact says changed, merges related facts
across sessions, sorts them into MEMORY.md sections by rule and answers in the same tagged
format a model would. Higher guidance levels give fewer, shorter lines; the answer is always
smaller than the observations it read.
"""

from __future__ import annotations

import math
import re

from memory_pipeline.stages.offline import reflector_rules as rules
from memory_pipeline.stages.offline.reflector_rules import Item
from memory_pipeline.stages.restatement import says_again
from memory_pipeline.stages.tokens import estimate_tokens

SECTION_ORDER = ("User", "Hard Rules", "System Architecture", "Patterns")
# per level: (max proposals per section, max words per line, max merged parts, keep medium facts)
# the per-section cap is per this many sessions: reflecting many at once (a backfill) cuts no more than
# reflecting them a few at a time would
SESSIONS_PER_CAP = 4
LEVELS = {0: (8, 60, 3, True), 1: (6, 40, 2, True), 2: (4, 30, 2, False), 3: (2, 25, 1, False)}
_OBSERVATION = re.compile(r'<observation ref="(?P<ref>O\d+)" session="(?P<session>[^"]*)" date="(?P<date>[^"]*)" '
                          r'distilled="(?P<distilled>yes|no)"(?: code="(?P<code>yes|no)")?>\n(?P<body>.*?)\n</observation>',
                          re.DOTALL)
_FACT = re.compile(r"^\* (?P<emoji>🔴|🟡|🟢) (?:\((?P<time>\d{2}:\d{2})\) )?(?P<text>.*?)\s*\{(?P<ref>F\d+)\}\s*$")
_PRIORITY = {"🔴": "high", "🟡": "medium", "🟢": "low"}
_OUTCOME = re.compile(r"\bOutcome: (.+)$")


def _between(prompt: str, tag: str) -> str:
    lines = prompt.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == f"<{tag}>"), None)
    end = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip() == f"</{tag}>"), None)
    if start is None or end is None or end <= start:
        return ""
    return "\n".join(lines[start + 1:end])


def guidance_level(prompt: str) -> int:
    found = re.findall(r"Compression level (\d)", prompt)
    return min(max((int(n) for n in found), default=0), max(LEVELS))


def read_items(observations: str) -> list[Item]:
    """Every fact of every `<observation>` element, in prompt order."""
    items: list[Item] = []
    for match in _OBSERVATION.finditer(observations):
        code = match.group("code")  # the Observer's decision; an observation stored before it: the text's signs
        segment, outcome, chat = "", "", code == "no" if code else rules.is_chat(match.group("body"))
        for line in match.group("body").splitlines():
            if line.startswith("#### "):
                segment, outcome = line[5:].strip(), ""
                continue
            fact = _FACT.match(line)
            if not fact:
                found = _OUTCOME.search(line)  # the segment's narrative: "… Outcome: The fix is complete."
                outcome = found.group(1) if found and segment else outcome
                continue
            text, quoted = rules.clean_fact(fact.group("text"))
            when = f"{match.group('date')} {fact.group('time') or ''}".strip()
            items.append(Item(ref=fact.group("ref"), order=len(items), priority=_PRIORITY[fact.group("emoji")],
                              text=text, observation=match.group("ref"), segment=segment,
                              session=match.group("session"), distilled=match.group("distilled") == "yes",
                              when=when, quoted=quoted, refs=[fact.group("ref")], parts=[text],
                              correction=rules.CORRECTED.match(fact.group("text")) is not None, outcome=outcome,
                              finding=fact.group("text").startswith(rules.FINDING), chat=chat))
    return items


def _known(text: str, memory: str, memory_lines: list[str]) -> bool:
    flat = re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()
    if flat and flat in re.sub(r"[^a-z0-9]+", " ", memory.lower()):
        return True
    return any(rules.overlap(text, line) >= 0.8 for line in memory_lines)


def select(items: list[Item], level: int, memory: str) -> list[Item]:
    """Facts worth a proposal at this level, minus resolved problems and what MEMORY.md says."""
    keep_medium = LEVELS[level][3]
    memory_lines = [line for line in memory.splitlines() if line.strip().startswith(("-", "*"))]
    chosen: list[Item] = []
    for item in items:
        if rules.rejection(item) or (item.priority == "medium" and (not keep_medium or item.distilled)):
            continue
        if item.priority == "medium" and not rules.is_notable(item.text):
            continue
        decided = rules.HARD_RULE.search(item.text) or rules.PREFERENCE.search(item.text)
        if not decided and rules.is_problem(item.text) and rules.resolved(item, items):
            continue
        if rules.superseded(item, items):
            continue
        if _known(item.text, memory, memory_lines):
            continue
        if said := next((c for c in chosen if c.session == item.session and says_again(item.text, c.text, rules.RESTATED_SHARE)), None):
            said.refs += [r for r in item.refs if r not in said.refs]  # the same finding said again that day,
            if rules.specifics(item.text) > rules.specifics(said.text):  # in the words that name more of it
                said.text, said.parts = item.text, [item.text]
            continue
        item.section = rules.categorize(item.text, item.quoted, item.correction, item.chat)
        chosen.append(item)
    if level >= 3:
        chosen = [i for i in chosen if i.section != "Patterns" and i.priority == "high"]
    return chosen


def merge(items: list[Item], max_parts: int, max_words: int) -> list[Item]:
    """Union related items; each group becomes one line led by its highest-priority fact."""
    groups: list[list[Item]] = []
    for item in items:
        home = next((g for g in groups if any(rules.related(item, other) for other in g)), None)
        if home is None:
            groups.append([item])
        else:
            home.append(item)
    merged = []
    for group in groups:
        ranked = sorted(group, key=lambda i: (i.priority != "high", i.order))
        lead = ranked[0]
        parts: list[str] = []
        for item in ranked:
            if len(parts) < max_parts and all(rules.overlap(item.text, p) < 0.8 and not says_again(item.text, p, rules.RESTATED_SHARE)
                                              for p in parts):
                parts.append(item.text.rstrip("."))
        text = "; ".join(parts)
        dropped = {s for i in ranked for s in rules.specifics(i.text)} - rules.specifics(text)
        extra = sorted(d for d in dropped if len(d) > 2 and d.lower() not in text.lower())[:3]
        if extra:
            text += f" (also: {', '.join(extra)})"
        merged.append(Item(ref=lead.ref, order=lead.order, priority=lead.priority,
                           text=_end_sentence(rules.limit_words(text, max_words)),
                           observation=lead.observation, segment=lead.segment, session=lead.session,
                           distilled=lead.distilled, when=lead.when, quoted=any(i.quoted for i in group),
                           section=lead.section,
                           refs=sorted({r for i in group for r in i.refs}, key=lambda r: int(r[1:])),
                           parts=parts))
    return merged


def _end_sentence(text: str) -> str:
    text = text.rstrip(". ")
    return text if text.endswith(("!", "?", "…")) else text + "."


def render(proposals: list[Item], summary: str) -> str:
    blocks = []
    for section in SECTION_ORDER:
        lines = [f"- {'[quoted] ' if p.quoted else ''}{p.text} [{', '.join(p.refs)}]"
                 for p in proposals if p.section == section]
        if lines:
            blocks.append(f"## Proposed for: {section}\n" + "\n".join(lines))
    return "<proposals>\n" + "\n\n".join(blocks) + "\n</proposals>\n\n<summary>\n" + summary + "\n</summary>\n"


def summarize(observations: str, proposals: list[Item], level: int) -> str:
    found = list(_OBSERVATION.finditer(observations))
    sessions = {m.group("session") for m in found}
    dates = sorted({m.group("date") for m in found})
    span = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}" if dates else "no dates"
    counts = ", ".join(f"{sum(p.section == s for p in proposals)} {s}" for s in SECTION_ORDER
                       if any(p.section == s for p in proposals)) or "nothing new"
    text = f"{len(found)} observations from {len(sessions)} sessions ({span}) yielded: {counts}."
    topics = list(dict.fromkeys(p.segment for p in proposals if p.segment))[:3]
    if topics and level < 2:
        text += " Topics: " + "; ".join(rules.limit_words(t, 8) for t in topics) + "."
    return text


def reflect_offline(system: str, prompt: str) -> str:
    """Answer the Reflector prompt without a model."""
    observations = _between(prompt, "observations")
    memory = _between(prompt, "memory_md")
    level = guidance_level(prompt)
    per_section, max_words, max_parts, _ = LEVELS[level]
    merged = merge(select(read_items(observations), level, memory), max_parts, max_words)
    sessions = len({m.group("session") for m in _OBSERVATION.finditer(observations)})
    cap = per_section * max(1, math.ceil(sessions / SESSIONS_PER_CAP))  # a backfill of many sessions at once
    proposals = []
    for section in SECTION_ORDER:
        proposals += [p for p in merged if p.section == section][:cap]
    if level >= 3:
        proposals = sorted(proposals, key=lambda p: p.order)[:5]
    budget = estimate_tokens(observations)
    answer = render(proposals, summarize(observations, proposals, level))
    while proposals and estimate_tokens(answer) >= budget:
        proposals = proposals[:-1]
        answer = render(proposals, summarize(observations, proposals, level))
    return answer
