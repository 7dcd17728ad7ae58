"""Asking for the ledger types of facts: the prompt's input, the answer's parser, the offline answer.

The flow sends facts as JSON lines inside <facts>; a model (or the offline rules in
`type_facts_offline`) answers a JSON array. An answer that does not cover every fact with valid
values fails validation (the LLM client asks once more, then raises).
"""

from __future__ import annotations

import json
import re

from memory_pipeline.stages.ledger.classify import Classified, classify_fact
from memory_pipeline.stages.ledger.model import EVENT_TYPES, PRIORITIES, snake_entity

_FACTS = re.compile(r"<facts>\s*(.*?)\s*</facts>", re.DOTALL)
_ARRAY = re.compile(r"\[.*\]", re.DOTALL)


def facts_block(facts: list[tuple[str, str]]) -> str:
    """(text, observer priority) pairs as the prompt's JSON lines, refs F1, F2, ..."""
    return "\n".join(json.dumps({"ref": f"F{n}", "mark": mark, "text": text}, ensure_ascii=False)
                     for n, (text, mark) in enumerate(facts, start=1))


def _item(raw: dict) -> Classified:
    kind, priority = raw.get("type"), raw.get("priority")
    if kind not in EVENT_TYPES:
        raise ValueError(f"{raw.get('ref')}: type {kind!r} is not one of {', '.join(EVENT_TYPES)}")
    if priority not in PRIORITIES:
        raise ValueError(f"{raw.get('ref')}: priority {priority!r} is not P0-P3")
    entity = snake_entity(str(raw["entity"])) if raw.get("entity") else None
    tags = [snake_entity(str(t)).replace("_", "-") for t in raw.get("tags") or [] if str(t).strip()]
    return Classified(type=kind, priority=priority, entity=entity or None, tags=tags,
                      status="open" if kind == "commitment" else None, change=bool(raw.get("change")))


def parse_typing(text: str, marks: list[str]) -> list[Classified]:
    """The answer for len(marks) facts, in order; ValueError when it cannot be used."""
    found = _ARRAY.search(text)
    if not found:
        raise ValueError("no JSON array in the answer")
    try:
        items = json.loads(found.group(0))
    except json.JSONDecodeError as exc:
        raise ValueError(f"the answer is not valid JSON: {exc}") from exc
    by_ref = {str(i.get("ref")): i for i in items if isinstance(i, dict)}
    missing = [f"F{n}" for n in range(1, len(marks) + 1) if f"F{n}" not in by_ref]
    if missing:
        raise ValueError(f"no answer for {', '.join(missing[:5])}")
    return [_item(by_ref[f"F{n}"]) for n in range(1, len(marks) + 1)]


def type_facts_offline(system: str, prompt: str) -> str:
    """The offline provider's answer: the rules of stages.ledger.classify over the facts in the prompt."""
    block = _FACTS.search(prompt)
    answer = []
    for line in (block.group(1).splitlines() if block else []):
        if not line.strip():
            continue
        fact = json.loads(line)
        kind = classify_fact(fact["text"], fact.get("mark", "medium"))
        answer.append({"ref": fact["ref"], "type": kind.type, "priority": kind.priority, "entity": kind.entity,
                       "tags": kind.tags, "change": kind.change})
    return json.dumps(answer, ensure_ascii=False)
