"""The kind of answer a question asks for, and whether a turn holds one (pure).

"What speed is my new internet plan?" is answered by a turn that says a number ("I upgraded to 500
Mbps"), not by the five other turns about slow internet; "Where did I attend my cousin's wedding?" by
one that names a place ("at the Grand Ballroom"); "When did Caroline go to the support group?" by
one that says a time ("yesterday"). Question answering over passages has long used the expected
answer type so (a question's class matched against the entities a passage holds). The types here
are the four a pattern can tell without a tagger: a number, a time, a place, a name. The answer counts
in a sentence that says one of the question's words, or in the sentence after it ("My internet speed has
been good lately. I upgraded to 500 Mbps three weeks ago."): a long reply's numbered steps are no answer
to "how many". Turns are not tagged when indexed: the top candidates' own words are read at query time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from memory_pipeline.stages.recall.rank import Fused
from memory_pipeline.stages.recall.speaker import said_by_other

NUMBER, TIME, PLACE, NAME = "number", "time", "place", "name"

_ASKS = [
    (NUMBER, re.compile(
        r"^\s*(?:how\s+(?:many|much|long|old|far|often|fast|big|tall|high)\b|"
        r"what\s+(?:is|was|are|were)\s+(?:the\s+)?(?:total|number|amount|price|cost|speed|percentage|size|"
        r"score|age|distance|weight)\b|"
        r"what\s+(?:speed|price|percentage|size|score|number|amount|age|distance|weight)\b)",
        re.IGNORECASE)),
    (TIME, re.compile(
        r"^\s*(?:when\b|what\s+(?:time|date|day|month|year)\b|which\s+(?:day|month|year|date)\b|"
        r"how\s+long\s+ago\b)", re.IGNORECASE)),
    (PLACE, re.compile(
        r"^\s*(?:where\b|(?:what|which|in\s+which|at\s+which)\s+(?:city|country|state|town|place|"
        r"store|shop|restaurant|hotel|university|college|school|venue|park|museum|neighbou?rhood)\b)",
        re.IGNORECASE)),
    (NAME, re.compile(
        r"^\s*(?:who\b|whom\b|whose\b|what\s+(?:is|was|'s)\s+(?:the\s+)?name\b|what's\s+the\s+name\b|"
        r"(?:what|which)\s+(?:brand|company|band|artist|author|book|movie|film|show|song|album|app|"
        r"game|breed|model)\b)", re.IGNORECASE)),
]

_NUMBER_WORDS = (r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
                 r"forty|fifty|hundred|thousand|million|dozen|half|couple|once|twice")
_MONTHS = (r"january|february|march|april|may|june|july|august|september|october|november|december|"
           r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_LOWER = (NUMBER, TIME)  # kinds searched in the lowercased text (a case-blind search is slower)
_HOLDS = {
    NUMBER: re.compile(rf"\d|\b(?:{_NUMBER_WORDS})\b"),
    TIME: re.compile(
        rf"\b(?:(?:19|20)\d\d|{_MONTHS}|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
        r"yesterday|today|tonight|tomorrow|weekend|ago|last\s+(?:week|month|year|night|time)|"
        r"next\s+(?:week|month|year)|this\s+(?:morning|week|month|year)|\d{1,2}(?:st|nd|rd|th)|"
        r"\d{1,2}(?::\d\d)?\s*(?:am|pm)|spring|summer|autumn|fall|winter|christmas|thanksgiving)\b"),
    # a preposition of place before a capitalised word: "at the Grand Ballroom", "in Tokyo", "from Sweden"
    PLACE: re.compile(r"\b(?:at|in|to|from|near|visited|visiting)\s+(?:the\s+)?[A-Z][a-z]"),
}
# a capitalised word that is not a sentence's first, nor "I": "Rachel", "Spotify", "The Neighbourhood"
_CAPITAL = re.compile(r"(?<![.!?:\"'(\n])\s+(?!I\b|I'|OK\b)[A-Z][a-z]")


def asked_type(query: str) -> str | None:
    """The type of answer `query` asks for (NUMBER, TIME, PLACE, NAME), or None."""
    for kind, pattern in _ASKS:
        if pattern.search(query):
            return kind
    return None


def holds(kind: str, text: str) -> bool:
    """Whether `text` holds an answer of `kind`."""
    if kind == NAME:
        return bool(_CAPITAL.search(text))
    return bool(_HOLDS[kind].search(text.lower() if kind in _LOWER else text))


_ENDS = (". ", "! ", "? ", "\n")  # where a sentence ends
LONGEST = 300  # characters a sentence is searched on either side of the question's word


def _sentence(low: str, at: int) -> tuple[int, int]:
    """[start, end) of the sentence of the lowercased `low` around position `at` (within LONGEST)."""
    start = max(max(low.rfind(end, max(0, at - LONGEST), at) for end in _ENDS) + 1, at - LONGEST, 0)
    limit = min(at + LONGEST, len(low))
    ends = [found for found in (low.find(end, at, limit) for end in _ENDS) if found != -1]
    return start, (min(ends) + 1 if ends else limit)


# a list's item: "1. Restart the router", "2) Call them", "- Check the cables"
_LIST_ITEM = re.compile(r"\s*(?:\d{1,3}[.)]|[-*\u2022])(?:\s|$)")


def _answer_span(low: str, sentence: tuple[int, int]) -> tuple[int, int]:
    """[start, end) of a `sentence` of `low` and the one after it: a fact is often said in the sentence after
    the one that names its subject ("…internet speed has been good lately. I upgraded to 500 Mbps…"). Not when
    the next is a list's item: a reply's numbered steps after "your internet plan:" do not answer "how many"."""
    start, end = sentence
    if end < len(low) and not _LIST_ITEM.match(low, end):
        end = _sentence(low, end)[1]
    return start, end


def holds_near(kind: str, text: str, terms: Sequence[str]) -> bool:
    """Whether `text` holds an answer of `kind` in a sentence that says one of the question's `terms` (a word
    starting with it: the stem "wedd" finds "wedding") or in the sentence after it (`_answer_span`): the
    number next to "internet plan", not the step numbers of a long reply's list. The terms are found by
    `str.find` and only their sentences searched for the answer: the answer's expressions over fifty long
    replies whole, or a loop over their sentences, cost 4–8 ms a question."""
    low = text.lower()
    answer = _CAPITAL if kind == NAME else _HOLDS[kind]
    searched: list[tuple[int, int]] = []  # the sentences searched: a term said again there is skipped
    for term in dict.fromkeys(terms):
        at = low.find(term)
        while at != -1:
            if (at == 0 or not (low[at - 1].isalnum() or low[at - 1] == "_")) and not any(
                    start <= at < end for start, end in searched):
                sentence = _sentence(low, at)
                searched.append(sentence)
                if answer.search(low if kind in _LOWER else text, *_answer_span(low, sentence)):
                    return True
            at = low.find(term, at + 1)
    return False


def typed(fused: dict[str, Fused], texts: dict[str, str], kind: str | None, terms: Sequence[str],
          weight: float) -> dict[str, Fused]:
    """`fused` with each candidate in `texts` (id → its own words) that holds an answer of `kind` in a
    sentence saying one of the question's `terms` given + `weight`."""
    if kind is None or weight <= 0 or not terms:
        return fused
    merged = dict(fused)
    for pid, text in texts.items():
        if holds_near(kind, text, terms):
            item = merged[pid]
            merged[pid] = Fused(item.score + weight, item.dense_rank, item.dense_score, item.sparse_rank,
                                item.sparse_score, item.extra)
    return merged


def own_words(payload: dict) -> str:
    """What a point itself says: a message's words (no date header, no previous turn), an observation's text."""
    return str(payload.get("message") or payload.get("text") or "")


def answer_texts(payloads: Mapping[str, dict], ids: Iterable[str], speaker: str | None) -> dict[str, str]:
    """The own words of the candidates `ids` that may hold the answer: when the question asks about one
    speaker's words (stages/recall/speaker.py), the other speaker's turns are left out (the assistant's
    "1. … 2. …" is no answer to "how many did I …"; and its long replies are the costly ones to read)."""
    return {pid: own_words(payloads[pid]) for pid in ids
            if speaker is None or payloads[pid].get("tier") != "messages"
            or not said_by_other(payloads[pid], speaker)}
