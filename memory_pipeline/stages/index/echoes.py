"""What an agent wrote from memory, and what it wrote while working: not new evidence (pure).

An **echo** is an assistant turn that repeats what memory gave it: it says so ("Memory says the
orders service runs on Postgres 16", "according to the briefing", "MEMORY.md says"), or it comes
right after a call to this project's memory tools (MCP `search`/`get`/`timeline`/`trace`/`brief`,
or `memory-pipeline recall` run as a command) and before the user's next turn. It is indexed with
`echo: true` and ranked far below what was said first, so a stale fact is not reinforced by its
own reflection. **Narration** is a short assistant turn announcing a step ("Let me check the
logs…", "Now I'll run the tests"): it is indexed and ranked below statements. An **acknowledgement**
("Got it.", "Noted, I'll keep that in mind.") says nothing of its own: it is indexed (a transcript's
timeline keeps it) but never a recall hit; what it acknowledges is.
"""

from __future__ import annotations

import re

from memory_pipeline.models import Message

_SAYS_MEMORY = re.compile(
    r"\b(?:(?:my |the |your )?memory (?:says|said|notes|shows|has|records|recalls|tells me|indicates)"
    r"|according to (?:my |the |your )?(?:memory|memories|briefing|recall pack|notes from earlier sessions|MEMORY\.md)"
    r"|(?:the )?(?:session )?briefing (?:says|said|notes|mentions)"
    r"|MEMORY\.md (?:says|states|notes|has)"
    r"|(?:the )?recall (?:pack )?(?:says|shows|returned|found)"
    r"|from (?:my |the )?(?:memory|earlier sessions?|previous sessions?)[,:]"
    r"|(?:earlier|previous) sessions? (?:say|said|noted|recorded)"
    r"|I (?:remember|recall) (?:from (?:an? )?(?:earlier|previous) session))", re.IGNORECASE)
_NARRATION = re.compile(
    r"^(?:(?:ok(?:ay)?|now|next|first|great|good|alright|perfect|sure|right|got it|understood|excellent|ah|hmm|"
    r"(?:good|great|fair) (?:question|point|catch|idea)|you'?re (?:absolutely )?right)[,.!]?\s+)*"
    r"(?:let me|let's|i'll|i will|i'm going to|i am going to|going to)\s+"
    r"(?:now\s+|first\s+|also\s+|quickly\s+)*"
    r"(?:check|look|see|run|read|open|search|find|inspect|verify|examine|review|try|start|explore|investigate|"
    r"take a look|grep|list|view|fix|update|add|create|write|edit)\b"
    r"|^(?:checking|looking|running|reading|searching|opening|inspecting|investigating)\b", re.IGNORECASE)
# an acknowledgement and nothing it found or did: "Got it.", "Noted, I will keep that in mind.", "Sure, will do!"
_ACK = re.compile(
    r"^(?:got it|noted|understood|sure(?: thing)?|ok(?:ay)?|will do|sounds good|thanks?(?: you)?|perfect|alright|"
    r"roger|makes sense|of course|no problem|you'?re welcome|great|good)\b[\s,.!:—–-]*"
    r"(?:(?:i(?:'ll| will)|will) (?:keep|remember|note|do|bear)(?:\s+(?:that|it|this|those|them))?(?:\s+in mind)?[.!]?)?$",
    re.IGNORECASE)
NARRATION_MAX_CHARS = 160
MEMORY_TOOLS = frozenset({"search", "get", "timeline", "trace", "brief"})
_MEMORY_COMMAND = re.compile(r"\bmemory-pipeline\s+(?:recall|brief|trace)\b")


def cites_memory(text: str) -> bool:
    """The text says it repeats what memory (the briefing, MEMORY.md, a recall) told it."""
    return bool(_SAYS_MEMORY.search(text or ""))


def is_narration(text: str, role: str | None) -> bool:
    """A short assistant turn announcing its next step ("Let me check…") or only acknowledging ("Got it.")."""
    flat = " ".join((text or "").split())
    return role == "assistant" and len(flat) <= NARRATION_MAX_CHARS and bool(_NARRATION.search(flat) or _ACK.match(flat))


def is_acknowledgement(text: str, role: str | None) -> bool:
    """An assistant turn that only acknowledges ("Got it.", "Noted, I'll keep that in mind.", "Sure thing!")."""
    flat = " ".join((text or "").split())
    return role == "assistant" and bool(_ACK.match(flat))


def calls_memory(message: Message) -> bool:
    """The turn called the memory tools: an MCP tool of a server named `memory`
    (`mcp__memory__search`), or `memory-pipeline recall|brief|trace` as a command."""
    for call in message.tool_calls:
        parts = call.name.split("__")
        if len(parts) == 3 and parts[0] == "mcp" and "memory" in parts[1] and parts[2] in MEMORY_TOOLS:
            return True
        if _MEMORY_COMMAND.search(call.input or ""):
            return True
    return False


class EchoTracker:
    """Walks a session's messages in order: which assistant turns answer from memory."""

    def __init__(self) -> None:
        self.after_memory = False

    def echoes(self, message: Message) -> bool:
        if message.role == "user" and message.text.strip() and not message.tool_results:
            self.after_memory = False  # the user's next turn: what follows is the agent's own again
        echoed = message.role == "assistant" and (self.after_memory or cites_memory(message.text))
        if calls_memory(message):
            self.after_memory = True
        return echoed
