"""Rules of the offline Reflector: which facts matter, where they go, what is related or resolved."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

STOPWORDS = frozenset(
    "the a an and or but if then than that this these those with without from into onto for of on in at to by "
    "is are was were be been being it its as so not no can could should would will just also now only all any "
    "user agent stated decided reported asked said we our you your they them their there here what when which "
    "who how why about after before again more most some such very one two use used using".split()
)
_WORD = re.compile(r"[a-z0-9][a-z0-9_.\-/]*[a-z0-9]|[a-z0-9]")
_SPECIFIC = re.compile(r"`[^`]+`|(?:~|\.{0,2})/[\w.\-/]+|\b[\w\-]+\.(?:py|ts|js|md|yml|yaml|toml|json|sh|go|rs)\b"
                       r"|\b\d+(?:\.\d+)*\b|\b[A-Z][A-Za-z]+\([^)]*\)")
_SPEAKER = re.compile(r"^(?:the\s+)?(?:user|developer)\s+(?:stated|decided|said|reported|wrote|noted|confirmed|"
                      r"corrected the agent|explained|asked)\s*:\s*", re.IGNORECASE)
_OUTER_QUOTES = re.compile(r'^["“](?P<inner>.+)["”]\.?$')
_ROUTINE = re.compile(r"^(?:modified|edited|read|ran|opened|viewed|listed|pushed|committed|created branch)\b", re.IGNORECASE)

HARD_RULE = re.compile(r"\b(?:always|never|must(?:n't| not)?|no exceptions|from now on|do not|don't|forbidden|"
                       r"required|only ever)\b", re.IGNORECASE)
PREFERENCE = re.compile(r"\b(?:i prefer|prefers?|i'd rather|i would rather|rather have|i like|likes|i want|"
                        r"i'd like|my preference)\b", re.IGNORECASE)
PATTERN = re.compile(r"\b(?:root cause|fix(?:ed|es)?|works?|worked|failed approach|gotcha|trap|workaround|"
                     r"instead|because|switched|passes|pass|solved|resolved|lesson|corrected|turned out)\b",
                     re.IGNORECASE)
ARCHITECTURE = re.compile(r"\b(?:runs? (?:on|in)|listens|port|version|installed|upgraded|migrated|configured|"
                          r"config|service|database|redis|postgres|docker|cluster|uses|is stored|lives in|"
                          r"deployed|endpoint|schema|previously)\b|→|/[\w.\-]+/", re.IGNORECASE)
PROBLEM = re.compile(r"\b(?:fails?|failing|error|errors|broken|red|exception|too many|timeouts?|not found|crash(?:es|ed)?|"
                     r"keeps throwing|throws|flaky|stuck)\b", re.IGNORECASE)
RESOLUTION = re.compile(r"\b(?:root cause|the fix|fixed|fixes|resolved|solved|now pass(?:es)?|passes|switched to|"
                        r"works now|pushed .*fix)\b", re.IGNORECASE)
INSTRUCTION = re.compile(r"\b(?:add (?:this |that )?to memory|memory\.md|remember (?:this|that)|"
                         r"ignore (?:your|the|all|previous))", re.IGNORECASE)


@dataclass
class Item:
    """One fact from the prompt, or several merged into one proposal."""

    ref: str
    order: int
    priority: str
    text: str
    observation: str
    segment: str
    session: str
    distilled: bool
    when: str = ""  # "YYYY-MM-DD HH:MM" (time may be empty)
    quoted: bool = False
    section: str = "Patterns"
    refs: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 2}


def specifics(text: str) -> set[str]:
    """Paths, backticked names, numbers and calls: the details worth keeping."""
    return {s.strip("`").lower() for s in _SPECIFIC.findall(text)}


def overlap(a: str, b: str) -> float:
    left, right = words(a), words(b)
    return len(left & right) / len(left | right) if left and right else 0.0


def clean_fact(text: str) -> tuple[str, bool]:
    """Drop the 'User stated:' frame and outer quotes; True when the words are the user's own."""
    text = " ".join(text.split())
    framed = bool(_SPEAKER.match(text))
    text = _SPEAKER.sub("", text)
    quoted = _OUTER_QUOTES.match(text)
    if quoted:
        text = quoted.group("inner").strip()
    text = text[:1].upper() + text[1:]
    if text and text[-1] not in ".!?":
        text += "."
    return text, framed or bool(quoted) or bool(INSTRUCTION.search(text))


def is_routine(text: str) -> bool:
    """'Modified x', 'Ran y': the observer's record of activity, not memory."""
    return bool(_ROUTINE.match(text))


def is_notable(text: str) -> bool:
    return bool(PATTERN.search(text) or ARCHITECTURE.search(text) or HARD_RULE.search(text)
                or PREFERENCE.search(text))


def categorize(text: str) -> str:
    """The MEMORY.md section for a fact, by rule: rules, then preferences, then fixes, then setup."""
    if HARD_RULE.search(text):
        return "Hard Rules"
    if PREFERENCE.search(text):
        return "User"
    if PATTERN.search(text) and not re.search(r"\b(?:uses|is stored|lives in|runs on)\b", text, re.IGNORECASE):
        return "Patterns"
    if ARCHITECTURE.search(text) or specifics(text):
        return "System Architecture"
    return "Patterns"


def is_problem(text: str) -> bool:
    return bool(PROBLEM.search(text)) and not RESOLUTION.search(text) and "failed approach" not in text.lower()


def resolved(problem: Item, later: list[Item]) -> bool:
    """A problem is resolved by a fix in the same segment, or by a later fix about the same thing."""
    for item in later:
        if item is problem or not RESOLUTION.search(item.text):
            continue
        if item.observation == problem.observation and item.segment == problem.segment:
            return True
        about_same = overlap(item.text, problem.text) >= 0.2 or specifics(item.text) & specifics(problem.text)
        if about_same and item.when >= problem.when:
            return True
    return False


def related(a: Item, b: Item) -> bool:
    """Same section and about the same thing: a shared path or name, many shared words, or a
    root cause and its fix in one segment."""
    if a.section != b.section:
        return False
    if specifics(a.text) & specifics(b.text) - {str(n) for n in range(10)}:
        return True
    if overlap(a.text, b.text) >= 0.3:
        return True
    same_segment = a.observation == b.observation and a.segment == b.segment
    return same_segment and a.section == "Patterns" and bool(RESOLUTION.search(a.text) or RESOLUTION.search(b.text))


def limit_words(text: str, limit: int) -> str:
    tokens = text.split()
    if len(tokens) <= limit:
        return text
    return " ".join(tokens[:limit]).rstrip(",;:") + "…"
