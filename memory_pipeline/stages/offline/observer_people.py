"""Facts about people in a chat log: what each speaker says about themselves, in the third person.

A transcript is a chat log when every prose message starts with its speaker's name ("Dana: …",
as in an exported group chat) and no tool was called: a conversation between people rather than
a coding session. There the facts worth keeping are what each speaker tells about their own life,
plans, likes and circumstances; questions, greetings, reactions to the other speaker and remarks
about "you" are not. "I started a pottery class" from Dana becomes "Dana started a pottery class".
"""

from __future__ import annotations

import re

from memory_pipeline.stages.offline import observer_rules as rules

MAX_SENTENCES_PER_TURN = 2
MIN_CONTENT_WORDS = 3
MAX_SPEAKERS = 4
_LABEL = re.compile(r"^([A-Z][\w'’.-]{0,30}(?: [A-Z][\w'’.-]{0,30})?):\s+(?=\S)")
_SHARE = re.compile(r"\s*\[shares [^\]]*\]\s*$")
_SELF = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|myself|we|we're|we've|our|us)\b", re.IGNORECASE)
_REACTION = re.compile(
    r"^(?:wow|whoa|oh|aw+|haha|lol|yay|omg|thanks|thank you|congrats|congratulations|sounds|that'?s|that is|"
    r"it'?s so|you|your|glad|sorry|hope|i hope|i bet|i'm (?:so )?(?:glad|happy|sorry) (?:for|to hear)|good luck|"
    r"take care|same here|me too|no worries|great|awesome|cool|nice|love that|love it)\b",
    re.IGNORECASE,
)
_SUBJECT_FORMS = {"i'm": "is", "i've": "has", "i'd": "would", "i'll": "will"}
_AFTER_I = {"am": "is", "have": "has", "do": "does", "don't": "doesn't", "haven't": "hasn't", "was": "was"}
_ADVERBS = frozenset("just also always never still even often sometimes already usually really actually finally "
                     "recently totally definitely once only too then kinda sorta".split())
_PAST = frozenset("went got saw made took had was did found felt thought knew came gave met ran bought told said "
                  "left kept began wrote won lost heard put set sent spent built brought taught caught sold held "
                  "stood became fell drove ate grew chose broke forgot could would should might must can will "
                  "can't won't couldn't wouldn't shouldn't didn't wasn't gotta gonna wanna".split())


def speaker_label(text: str) -> tuple[str, str] | None:
    """(name, rest) when a message starts with its speaker's name."""
    m = _LABEL.match(text)
    return (m.group(1), text[m.end():]) if m else None


def is_chat_log(blocks) -> bool:
    """Every prose message carries a speaker label, no tools were called, and few names appear."""
    prose = [b for b in blocks if b.role in ("User", "Assistant") and b.text.strip()]
    if not prose or any(b.calls for b in blocks) or any(b.role == "Tool" for b in blocks):
        return False
    labels = [speaker_label(b.text) for b in prose]
    return all(labels) and len({label[0] for label in labels if label}) <= MAX_SPEAKERS


def _third_person_verb(word: str) -> str:
    lower = word.lower()
    if not lower.isalpha() or lower in _PAST or lower.endswith(("ed", "ing")):
        return word
    if lower.endswith(("s", "sh", "ch", "x", "o", "z")):
        return word + "es"
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _subject_verb(tokens: list[str]) -> int:
    """How many tokens after a bare "I" belong to its verb: adverbs, then one word."""
    count = 0
    while count < len(tokens) and tokens[count].lower() in _ADVERBS:
        count += 1
    return min(count + 1, len(tokens))


def _verb_form(token: str) -> str:
    core = token.rstrip(",.!;:\"')")
    tail = token[len(core):]
    if core.lower() in _ADVERBS:
        return token
    return _AFTER_I.get(core.lower(), _third_person_verb(core)) + tail


def third_person(sentence: str, name: str) -> str:
    """"I love my garden" from Dana → "Dana loves Dana's garden"; other words stay as written."""
    tokens = sentence.split(" ")
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        core = token.strip(",.!;:\"'()").replace("’", "'")
        lower = core.lower()
        tail = token[len(token.rstrip(",.!;:\"')")):]
        if lower in _SUBJECT_FORMS:
            out += [name, _SUBJECT_FORMS[lower] + tail]
        elif core == "I" and not tail:
            taken = _subject_verb(tokens[i + 1:])
            out += [name] + [_verb_form(t) for t in tokens[i + 1:i + 1 + taken]]
            i += 1 + taken
            continue
        elif core == "I":
            out.append(name + tail)
        elif lower in ("my", "mine"):
            out.append(f"{name}'s{tail}")
        elif lower in ("me", "myself"):
            out.append(name + tail)
        else:
            out.append(token)
        i += 1
    return " ".join(out)


def self_statements(text: str) -> list[str]:
    """Sentences where a speaker tells something about themselves (no questions or reactions)."""
    kept = []
    for sentence in rules.sentences(_SHARE.sub("", text)):
        cleaned = rules.FILLER.sub("", sentence).strip()
        if not cleaned or "?" in cleaned or rules.is_fragment(cleaned) or _REACTION.match(cleaned):
            continue
        if not _SELF.search(cleaned) or len(rules.content_words(cleaned)) < MIN_CONTENT_WORDS:
            continue
        kept.append(cleaned)
    ranked = sorted(kept, key=lambda s: -len(rules.content_words(s)))[:MAX_SENTENCES_PER_TURN]
    return [s for s in kept if s in ranked]


def personal_fact(text: str) -> str | None:
    """One fact for a chat message: its self-statements, in the third person, or None."""
    label = speaker_label(text)
    if not label:
        return None
    name, rest = label
    found = self_statements(rest)
    if not found:
        return None
    joined = " ".join(third_person(s, name).rstrip() for s in found)
    return rules.clip(joined[:1].upper() + joined[1:])
