"""A fact the ledger superseded, marked on its payload so ranking de-ranks it and names its replacement.

Four things carry the old value and are marked `superseded_by` ("EVT-…: the newer statement"):
the observation fact the ledger superseded; the transcript messages that fact cites (the user's
"the orders service runs on Postgres 16"); another observation that cites only those messages (its
segment's narrative); and any other message or fact of the same project,
written before the replacement, that restates the old value (the agent's "Noted: … Postgres 16"):
it names the subject (the event's entity, or two of the old statement's words) and a value the
replacement changed (a number, a version), and none of the new values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MINUTE = 60.0
_VALUE = re.compile(r"\b(?:v?\d+(?:\.\d+)*[a-z]{0,2})\b", re.IGNORECASE)  # 16, 3.12, v2, 8443, 10s
_WORD = re.compile(r"[a-z][a-z0-9_]+")
_PLAIN = frozenset("""the a an and or of to in on at for from with by is are was were be been it this that
we our you your i my they their moved move moving switched switch now use uses used using run runs running
last next week month year yesterday today night update fyi noted""".split())


def values(text: str) -> set[str]:
    return {v.lower() for v in _VALUE.findall(text or "")}


def subject_words(text: str) -> set[str]:
    return {w for w in _WORD.findall((text or "").lower()) if w not in _PLAIN and len(w) > 2}


@dataclass(frozen=True)
class Replaced:
    """What a superseded entry's restatements look like: the values the replacement changed, the new ones."""

    entry: dict
    gone: frozenset[str]
    came: frozenset[str]
    entity: tuple[str, ...]
    words: frozenset[str]

    @classmethod
    def of(cls, entry: dict) -> Replaced:
        old, new = values(entry.get("old", "")), values(entry.get("text", ""))
        entity = tuple(part for part in str(entry.get("entity") or "").split("_") if part)
        return cls(entry, frozenset(old - new), frozenset(new - old), entity,
                   frozenset(subject_words(entry.get("old", ""))))


def restates(replaced: Replaced, text: str) -> bool:
    """`text` states the value the replacement changed, about the same subject, and not the new one."""
    if not replaced.gone:
        return False
    found = values(text)
    if not (found & replaced.gone) or (found & replaced.came):
        return False
    lowered = text.lower()
    if replaced.entity:
        return all(part in lowered for part in replaced.entity)
    return len(subject_words(text) & replaced.words) >= 2


def _applies(entry: dict, payload: dict) -> bool:
    project = entry.get("project")
    if project and project != "default" and payload.get("project") not in (project, "", None):
        return False
    before = entry.get("at_ts")
    created = payload.get("created_ts")
    # the replacement's time is its minute (a transcript's HH:MM): a turn of that minute counts as before it
    return before is None or created is None or float(created) < float(before) + MINUTE


def _replacing_message(payload: dict, replacing: dict) -> str | None:
    if payload.get("tier") != "messages":
        return None
    session = str(payload.get("session_id") or "")
    return next((replacing[(session, m)] for m in payload.get("source_message_ids") or [] if (session, m) in replacing),
                None)


def _of_cited_only(payload: dict, cited: dict[tuple[str, str], str]) -> str | None:
    """The superseded fact whose messages are all that the observation `payload` cites, if any: another
    observation of the same words (its segment's narrative), not a summary that cites other messages too."""
    session = str(payload.get("session_id") or "")
    found = {cited.get((session, mid)) for mid in payload.get("source_message_ids") or []}
    return found.pop() if len(found) == 1 and None not in found else None


def with_supersession(payloads: dict[str, dict], superseded: dict[str, dict]) -> dict[str, dict]:
    """Payloads of facts the ledger superseded, the messages they cite, and messages or facts that
    restate the replaced value get `superseded_by` ("EVT-…: the replacement")."""
    if not superseded:
        return payloads
    cited = {(str(entry.get("session") or ""), mid): fid
             for fid, entry in superseded.items() for mid in entry.get("messages") or []}
    replacing: dict[tuple[str, str] | str, str] = {(str(entry.get("by_session") or ""), mid): entry["by"]
                 for entry in superseded.values() for mid in entry.get("by_messages") or []}
    replacing |= {entry["by_fact"]: entry["by"] for entry in superseded.values() if entry.get("by_fact")}
    replaced = [Replaced.of(entry) for entry in superseded.values()]
    replaced = [r for r in replaced if r.gone]
    marked = {}
    for pid, payload in payloads.items():
        entry = superseded.get(pid)
        if entry is None and payload.get("tier") == "messages":
            for mid in payload.get("source_message_ids") or []:
                if (fid := cited.get((str(payload.get("session_id") or ""), mid))) is not None:
                    entry = superseded[fid]
                    break
        elif entry is None and (fid := _of_cited_only(payload, cited)) is not None:
            entry = superseded[fid]  # the segment's narrative of those messages: "Redis … 6379: The user wrote: …"
        if entry is None:
            text = str(payload.get("message") or payload.get("text") or "")
            entry = next((r.entry for r in replaced if _applies(r.entry, payload) and restates(r, text)), None)
        if entry is not None:
            marked[pid] = payload | {"superseded_by": f"{entry['by']}: {entry['text']}", "superseded_event": entry["by"]}
        elif (event := replacing.get(pid) or _replacing_message(payload, replacing)) is not None:
            marked[pid] = payload | {"replaces_event": event}  # the current statement
        else:
            marked[pid] = payload
    return marked
