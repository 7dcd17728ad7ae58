"""Typing an observation fact as a ledger event (offline rules): type, priority, entity, tags.

The Observer marks facts 🔴/🟡/🟢; the type raises or lowers that: a 🔴 constraint is P0, a binding
type one step above its mark, a 🟢 fact P3. The entity is the first named thing in the text
("Postgres 15" -> postgres), so facts about one thing meet and can supersede each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from memory_pipeline.models import Observation
from memory_pipeline.stages.alternatives import states_use
from memory_pipeline.stages.ledger.change import BACKGROUND, MADE, WEIGHING, states_change
from memory_pipeline.stages.ledger.model import snake_entity
from memory_pipeline.stages.offline import observer_standing as standing
from memory_pipeline.stages.offline.distil import is_rule, is_stated_rule, statement
from memory_pipeline.stages.offline.observer_cues import PREFERENCE, states_preference
from memory_pipeline.stages.offline.observer_rules import CODE_IN_PROSE
from memory_pipeline.stages.offline.observer_spec import specifies_behaviour
from memory_pipeline.stages.offline.reflector_rules import (
    CORRECTED,
    PASSING_THOUGHT,
    REPLY_TO_OFFER,
    UNNAMED_OBJECT,
    is_chat,
)
from memory_pipeline.stages.provenance import user_typed

_PREFIX = re.compile(r"^(?:User (?:stated|decided|corrected the agent|reported|asked)|Failed approach|Decision|Fact)"
                     r":\s*", re.IGNORECASE)
# Checked in order: the first type whose pattern matches wins.
TYPE_RULES: tuple[tuple[str, re.Pattern], ...] = (
    ("constraint", re.compile(r"\b(?:never|must(?: not)?|do not|don'?t|cannot|can'?t|not allowed|only ever|"
                              r"budget|limit(?:ed)? to|at most|required|forbidden|always)\b", re.I)),
    # someone's promise ("I will follow up", "we'll migrate billing next", "Dana will review the PR"), not a
    # prediction ("which will raise costs", "it will match my other gear")
    ("commitment", re.compile(r"\b(?:(?:i|we|he|she|they) will|(?:i|we|he|she|they)'ll|"
                              r"(?-i:[A-Z][a-z]+) will (?!be\b|have\b|need\b)|need to|todo|to-do|follow up|promised?|"
                              r"remember to|by (?:mon|tue|"
                              r"wed|thu|fri|sat|sun|next|tomorrow|end of)|next step|(?<!without )waiting (?:on|for)|owe)\b", re.I)),
    # the verbs of a choice made, not their nouns ("the migrations", "adoption") nor a fit ("they go with my jeans")
    ("decision", re.compile(r"\b(?:decided|decide to|chose|opted|switch(?:ed)? (?:to|from)|moved (?:from|to)|"
                            r"migrat(?:e|ed|es|ing)|upgraded|downgraded|adopted|replaced|instead of|"
                            r"settled on|we use|we'?ll use)\b|"
                            r"(?:^|\b(?:i|we|let['’]?s|to|will|['’]ll|['’]m|am|are|['’]re|should|gonna)\s+)go(?:ing)? with\b", re.I)),
    # "like" as the verb of liking ("I like", "we'd like", "don't like"), not a comparison ("moments like these",
    # "it feels like", "tools like a cordless vacuum")
    ("preference", re.compile(r"\b(?:prefers?|preferred|likes|liked|dislikes?|rather|favou?rs?|wants?|style)\b|"
                              r"(?:\b(?:i|we|you|they|would|do|does|did|don'?t|doesn'?t|didn'?t|really|also|still|"
                              r"always|usually|just)|['’]d)\s+like\b", re.I)),
    # the way to do something ("to deploy, run …", "run `uv sync` first"), not a record of what ran
    ("procedure", re.compile(r"\b(?:run|steps?|how to|workflow|to deploy|to release|invoke|first .+ then|"
                             r"waits? (?:on|for) .+ (?:first|before))\b", re.I)),
    ("relationship", re.compile(r"\b(?:depends on|owned by|owns|maintainer|contact|works with|belongs to|"
                                r"part of|reports to|is the \w+ (?:of|for))\b", re.I)),
)
# taking the agent's advice ("I'll definitely use some of those ideas", "I think I'll try Mint", "I'll make sure
# to keep it concise", "I'll use my Fitbit to track my sleep", "I'll have to give the Bee's Knees a shot"): no one
# waits on it, so it is no open commitment unless it names when
ACKNOWLEDGED = re.compile(
    r"\bi think (?:i|we)'?ll\b|\b(?:i|we)(?:'ll| will) (?:\w+ )?(?:try|make sure|keep (?:that|this|it) in mind|"
    r"consider|think about|look into|check out|explore|start by|use)\b|\bgive (?:[\w'’]+ ){1,4}a (?:shot|try|go)\b|"
    r"\b(?:those|these|the|your) (?:\w+ ){0,2}(?:ideas|tips|suggestions|resources|recommendations|options)\b|"
    r"\byou(?:'ve| have)? (?:mentioned|suggested|recommended)\b", re.I)
# goodwill, not a promise anyone waits on, whoever says it ("I'll keep pushing forward", "Jon will keep you posted",
# "John will definitely check them out", "I'll take your advice", "talk to you soon"): a way of going on or of
# staying in touch names nothing to deliver ("I'll let you know the numbers by Friday" names when: DEADLINE)
GOODWILL = re.compile(
    r"(?:\bwill|['’]ll)\s+(?:(?:definitely|always|just|also|surely|certainly|still)\s+)?(?:"
    r"keep (?:on )?\w+ing\b|keep (?:\w+ )?(?:posted|updated|in the loop|in touch|at it)|keep (?:that|this|it) in mind|"
    r"stay (?:in touch|focused|positive|optimistic|strong|motivated)|talk (?:to you )?(?:soon|later)|"
    r"let (?:you|them|him|her) know|get back to you|check (?:it|them|that|those|this) out|take (?:your|the) advice|"
    r"do (?:my|our|his|her|their|[\w'’]+['’]s) best|have fun|never give up|be there for)", re.I)
# a practice, not a promise that is ever done ("I'll need to regularly review my pricing", "we'll rotate the keys every
# month"): no one waits on it to close
HABITUAL = re.compile(r"\b(?:regularly|routinely|periodically|continuously|constantly|every (?:day|week|month|year|morning|"
                      r"night|time)|each (?:day|week|month|year|time))\b", re.I)
# a feeling, not a promise: "Melanie will never forget it", "I'll always remember that trip"
SENTIMENT = re.compile(r"(?:\bwill|['’]ll) (?:always |never |forever )?(?:remember|forget|cherish|treasure|miss)\b", re.I)
# a promise on a condition ("If I find a design I like, I'll save it"): no one waits on it until it holds
# ("If possible, I'll finish the migration by Friday" is a promise with a hedge)
CONDITIONAL = re.compile(r"^(?:\w+,? )?(?:if|in case|unless|should i|should we)\b"
                         r"(?! (?:possible|needed|necessary|so|not|time allows)\b)", re.I)
# a when ("by Friday", "before the 3rd", "tomorrow"), not a means ("start by exploring")
DEADLINE = re.compile(r"\b(?:by|before|until) (?:the )?(?:mon|tue|wed|thu|fri|sat|sun|next|tomorrow|tonight|today|end|"
                      r"eod|eow|noon|midnight|\d)\w*|\b(?:today|tonight|tomorrow|next (?:week|month|sprint)|this "
                      r"(?:week|afternoon|evening))\b", re.I)
# the user telling of their own doings ("I currently run 3 times a week", "I've been busy and missed a 5K fun run",
# "I was wondering how to use…"): a procedure is the way to do something, not a life told
TOLD = re.compile(r"^(?:\w+,? )?(?:i|i'm|i've|i was|i had|i did|i went|we've been|we were)\b", re.I)
# a way of doing something names what to run (a command, a file, an identifier: CODE_IN_PROSE) or is said as one: an
# instruction ("To release, run …", "First run the migrations, then …"), a "how to" heading, the steps of a named
# process. "John's last run", "every step of the way", "took his first steps", "showed Caroline how to find support"
# are a life told, whoever tells it
DIRECTED = re.compile(
    r"^(?:(?:to|before|after|when|once) [^,]{1,40},\s*)?(?:always |never |first |then |please |just )?"
    r"(?:run|use|call|invoke|execute|start|restart|deploy|build|install|follow|rebuild|regenerate)\b|^how to\b|"
    r"\bworkflow\b|\b(?:deploy|release|build|setup|install|migration|test|upgrade)\w* (?:steps?|process)\b", re.I)
CLOSING = re.compile(r"\b(?:done|completed|finished|fixed|resolved|shipped|closed|followed up|delivered|"
                     r"merged|sent)\b", re.I)
WAITING = re.compile(r"\b(?:(?<!without )waiting (?:on|for)|blocked (?:on|by)|depends on|pending (?:from|on))\b", re.I)
# "account: acme-prod", "tenant is t-3", "org 4411": an identifier given; not "the session ID inside the file"
ACCOUNT = re.compile(r"\b(?:account|acct|id|user ?name|org|tenant|project id)\b\s*(?:(?:[:=#]|\bis\b)\s*[\w-]{3,}|"
                     r"[\w-]*\d[\w-]*)", re.I)
# a token that grants access, not a theme's colour token or a model's context tokens ("a separate `linkUrl` token")
SECURITY = re.compile(r"\b(?:secret|password|credential|(?:api|access|auth|bearer|refresh|session|oauth|jwt|csrf|"
                      r"github|npm|personal access)[ _-]?tokens?|security|private key|prod(?:uction)? data)\b", re.I)
TAG_RULES: tuple[tuple[str, re.Pattern], ...] = (
    ("waiting", WAITING), ("account", ACCOUNT), ("security", SECURITY),
    ("insight", re.compile(r"\b(?:root cause|turns out|lesson|learned|the (?:problem|issue|bug) (?:was|is))\b", re.I)),
    ("milestone", re.compile(r"\b(?:released|shipped|launched|v\d+\.\d+)\b", re.I)),
    ("mantra", re.compile(r"\b(?:mission|mantra|north star|the goal is)\b", re.I)),
)
_STOP = {"user", "assistant", "the", "we", "i", "it", "this", "that", "a", "an", "and", "or", "but", "if", "when",
         "then", "so", "no", "yes", "ok", "also", "please", "plase", "pls", "plz", "let", "let's", "now", "always", "never", "don't",
         "do", "not", "use", "using", "run", "ran", "modified", "failed", "decided", "stated", "fact", "decision",
         "moved", "switched", "after", "before", "from", "to", "for", "in", "on", "of", "with", "by", "at", "our",
         "my", "you", "they", "he", "she", "is", "are", "was", "were", "be", "will", "should", "must", "can",
         "prefer", "prefers", "todo", "remember", "make", "sure", "actually", "instead", "follow", "up", "there",
         "here", "what", "which", "who", "how", "why", "all", "every", "each", "some", "any", "one", "two",
         "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
         "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
         "context", "today", "tomorrow", "yesterday", "note", "fyi", "update", "btw", "heads", "correction", "we're",
         "we've", "need", "needs", "last", "night", "week", "month", "year", "gone", "upgraded", "migrated", "uses",
         "maybe", "perhaps", "probably", "considering", "thinking", "often", "usually", "sometimes", "finding",
         "root", "cause"}  # "Root cause: …", "Finding: …" (the Observer's label of an agent's finding)
_CANDIDATE = re.compile(r"`([^`]{2,80})`|([A-Za-z][A-Za-z0-9.+#/_-]*[A-Za-z0-9+#])")
_CONTRACTED = re.compile(r"['’](?:t|re|ve|ll|d|m)\b")
_VERSION = re.compile(r"[\s_-]*v?\d+(?:\.\d+)*$")
RAN = re.compile(r"^(?:ran|running|executed|\$ )", re.I)
OBSERVER_PRIORITY = {"high": "P1", "medium": "P2", "low": "P3"}


@dataclass(frozen=True)
class Classified:
    type: str
    priority: str
    entity: str | None
    tags: list[str] = field(default_factory=list)
    status: str | None = None  # "open" for a commitment
    change: bool = False  # the text states that something changed (a supersession cue)


# 'User answered "Q": "A"': the user settled how to do something the agent asked about
_ANSWERED = re.compile(r'^User answered "(?P<question>.+?)": "(?P<answer>.+)"$')
# what the Observer marked a decision ("User decided: …"): a choice made, not a promise still open
_STATED = re.compile(r"^User stated:", re.IGNORECASE)
_DECIDED = re.compile(r"^User decided:", re.IGNORECASE)
# what the code does now, against what it should ("`export_session` has a default of 'md' instead of 'all'", "the
# script is using X instead of Y"): a finding, no choice made
_DOES_INSTEAD = re.compile(r"\b(?:is|are|was|were) (?:still )?(?:using|returning|reading|writing|calling|sending|passing|"
                           r"pointing|loading|looking)\b[^.]{0,80}\binstead of\b|\bhas a default of\b", re.IGNORECASE)


def plain_text(text: str) -> str:
    """The fact without the Observer's "User stated:" prefix, its quotes and the chat around it
    ("FYI:", "Update:", "Hm,": stages/offline/distil.statement), nor a "Decision:"-style label."""
    return statement(_PREFIX.sub("", statement(text)).strip())


def _told_as_background(words: re.Pattern, body: str) -> bool:
    """Every place `words` match sits in a clause of time or reason ("since I'll be trekking", "when I first moved")."""
    starts = [m.start() for m in words.finditer(body)]
    return bool(starts) and all(BACKGROUND.search(body[:start]) for start in starts)


def event_type(text: str) -> str:
    """The first type whose words the text has; a constraint only when it is shaped like a rule
    (an imperative or must/never about how to work, not "I've always been…" or a request for the
    task at hand with a "don't" in it)."""
    body = plain_text(text)
    if body.startswith("Modified `") or RAN.match(body):
        return "fact"  # the Observer's record of an edited file or of a command it ran
    if _ANSWERED.match(text.strip()):
        return "decision"  # the user settled how to do something the agent asked about
    if is_rule(body) and (TYPE_RULES[0][1].search(body) or is_stated_rule(body)):
        return "constraint"
    if standing.is_answer_style(body):
        return "preference"  # "Please keep your answers short": how the user wants to be answered
    if standing.is_step_of_change(body):
        return "procedure"  # "When you add a route, also add it to the OpenAPI spec"
    if standing.says_how_to_work(body):
        return "constraint"  # "It's important that every refund is written to the audit table", "Migrations must be …"
    # taken advice, goodwill or a practice: nothing anyone waits on, unless it names when
    unowed = bool(ACKNOWLEDGED.search(body) or GOODWILL.search(body) or HABITUAL.search(body)) and not DEADLINE.search(body)
    told = bool(TOLD.match(body)) and not CODE_IN_PROSE.search(body)
    weighing = bool(WEIGHING.search(body)) and not MADE.search(body)
    # a choice told as the time of something else ("since Caroline moved from her home country", "when I first
    # moved to Japan") is background, as it is to a change (stages/ledger/change.py)
    background = _told_as_background(TYPE_RULES[2][1], body)
    # a promise told as the reason or time of something else ("… since I'll be trekking for 10 days") is no promise
    promised_aside = _told_as_background(TYPE_RULES[1][1], body)
    # the user's own "I like"/"I'd prefer" is a preference where the Observer reads one (not "a design I like", not
    # a reaction to the agent's offer); a third person's ("User prefers tabs") is read by the words alone
    no_taste = bool(PREFERENCE.search(body)) and not states_preference(body)
    felt = bool(SENTIMENT.search(body)) and not TYPE_RULES[1][1].search(SENTIMENT.sub(" ", body))
    undirected = not CODE_IN_PROSE.search(body) and not DIRECTED.search(body)
    decided = bool(_DECIDED.match(text.strip()))  # "User decided: we need to use findModel": done, not owed
    skipped = {"commitment": unowed or felt or decided or promised_aside or bool(CONDITIONAL.match(body)),
               "decision": weighing or background or bool(_DOES_INSTEAD.search(body)), "procedure": told or undirected,
               "preference": no_taste}
    kind = next((name for name, pattern in TYPE_RULES[1:] if pattern.search(body) and not skipped.get(name)), "fact")
    if kind == "fact" and CORRECTED.match(text.strip()) and is_rule(body):
        return "preference"  # the user told the agent how to work by correcting it: not a fact that ages out
    # how the thing built behaves, as the user specified it ("The game is lost when the king is captured"), and what the
    # project uses, as the user states it ("Our tests run on Jest", "This project uses Poetry"; not "I was using Docker
    # when it crashed"): a choice made for the product, binding as a decision is (it holds until a later update
    # supersedes it, not 90 days); the Observer states the first so only of work on software
    specified = bool(_STATED.match(text.strip())) and (specifies_behaviour(body) or (states_use(body) and not told))
    return "decision" if (decided or specified) and kind == "fact" else kind


def priority_for(observer_priority: str, kind: str, text: str) -> str:
    """P0–P3 from the Observer's mark and the type (see the module doc). A hope, plan or second thought of
    the moment, told as a fact, a taste or a choice ("I was thinking of going to the party on a weekday", "I'm
    leaning towards Todoist", "I'm really looking forward to backing up the photos now that I've decided…";
    `reflector_rules.PASSING_THOUGHT`, what is no MEMORY.md proposal either) is P3: it ages out first, as is a pick
    among what the agent offered ("I like the Classic and Simple style") and a line whose thing was named before it
    ("I use it to play music")."""
    if _of_that_moment(kind, text):
        return "P3"
    base = OBSERVER_PRIORITY.get(observer_priority, "P2")
    if kind == "constraint" and observer_priority == "high":
        return "P0"
    if observer_priority == "high" and SECURITY.search(text) and kind in ("constraint", "procedure", "decision"):
        return "P0"
    if kind in ("commitment", "constraint", "decision", "procedure") and base in ("P2", "P3"):
        return f"P{int(base[1]) - 1}"
    return base


def entity_of(text: str) -> str | None:
    """The first named thing: a `code` span's stem, else a word that is not a common word."""
    body = plain_text(text)
    for match in _CANDIDATE.finditer(body):
        code, word = match.groups()
        if word and _CONTRACTED.match(body, match.end()):
            continue  # a contraction's head ("Don't", "Isn't"), no name ("Bee's Knees" is one)
        raw = code or word
        if code:
            raw = raw.split()[0].rstrip("/").rsplit("/", 1)[-1].split(".")[0] or raw
        name = snake_entity(_VERSION.sub("", raw))
        if len(name) < 2 or name in _STOP or name.isdigit():
            continue
        if word and not (word[0].isupper() or any(c.isdigit() for c in word) or word.isupper()):
            continue  # a lowercase common word: not a name
        return name
    return None


def tags_for(text: str) -> list[str]:
    return [name for name, pattern in TAG_RULES if pattern.search(text)]


def _of_that_moment(kind: str, text: str) -> bool:
    """A fact or a taste that held only in that conversation (`priority_for`): a passing thought, a pick among what
    the agent offered (naming no code), or a fact whose thing was named before it."""
    if kind not in ("fact", "preference"):
        return False
    if PASSING_THOUGHT.match(text):
        return True
    if kind == "fact" and UNNAMED_OBJECT.match(text):
        return True
    return bool(REPLY_TO_OFFER.match(text)) and not CODE_IN_PROSE.search(text)


def classify_fact(text: str, observer_priority: str) -> Classified:
    kind = event_type(text)
    body = plain_text(text)
    if kind == "decision" and PASSING_THOUGHT.match(body):  # a hope of the moment binds no one ("…now that I've decided")
        kind = "fact"
    return Classified(type=kind, priority=priority_for(observer_priority, kind, body), entity=entity_of(text),
                      tags=tags_for(body), status="open" if kind == "commitment" else None,
                      change=states_change(body))


def closes_commitment(text: str) -> bool:
    """The text reports something finished (it may close an open commitment it resembles)."""
    return bool(CLOSING.search(plain_text(text)))


# what only the user's own words may be: a rule, a preference, a procedure (the way to do something)
USER_ONLY_TYPES = {"constraint": "fact", "preference": "fact", "procedure": "fact"}


def by_provenance(kind: Classified, roles: list[str] | tuple[str, ...], chat: bool = False) -> Classified:
    """The typing a fact's sources allow: a rule (constraint), a preference or a procedure only from
    what the user typed; the agent's words, tool output, files and web pages are facts, never above P1. In a
    conversation about the user's life (`chat`), they are what the agent told, not what is true of the user: P3
    ("During World War II, the US Mint switched from copper to zinc-coated steel cents")."""
    if user_typed(roles):
        return kind
    if chat and kind.type != "commitment":  # nor its "decision": the agent decides nothing of the user's life
        return replace(kind, type="fact", priority="P3")
    if kind.type not in USER_ONLY_TYPES and kind.priority != "P0":
        return kind
    priority = "P1" if kind.priority == "P0" else kind.priority
    return replace(kind, type=USER_ONLY_TYPES.get(kind.type, kind.type), priority=priority)


def is_chat_observation(observation: Observation) -> bool:
    """An observation of a conversation about the user's life: a window that is not work on software, as the
    Observer decided it (`about_code`); for one stored before that was recorded, no file read or changed and no
    code named in its titles, narratives or facts (`reflector_rules.is_chat`, the Observer's own signs of code)."""
    if observation.about_code is not None:
        return not observation.about_code
    if observation.files_read or observation.files_modified:
        return False
    words = [part for s in observation.segments for part in (s.title, s.narrative, *(f.text for f in s.facts))]
    return is_chat("\n".join(words))
