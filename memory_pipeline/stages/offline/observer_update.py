"""A user's update of how things stand in the work (pure): the statement that replaces an older one.

Asked of work on software only. An update states how something is, and says that it changed:

- with a correction's lead: "Correction: CI runs on CircleCI.", "Scratch that, Redis is on port 6380.",
  "That's outdated: deploys go through Argo CD.", "No, the API lives at /v2.", "Wrong, …";
- with "now" or "these days" on a state: "The orders service is on Postgres 17 now.", "We use pnpm now.";
- with the value it replaces: "Redis is on port 6380, not 6379.", "… instead of Datadog";
- with a verb of change: "We dropped npm for pnpm.", "We renamed the repo to orders-api.", "We stopped
  deploying on Fridays".

Not an update: how the session's work stands ("It works now", "The tests pass now", "The build is green
now", "Thinking level off is now brighter than minimal"), a step of the session just done ("now the app
folder is renamed, so what next"), what something refers back to ("It's port 6380": what "it" is was said
before), a guess ("iiuc, they are now shared by …"), a plan or a wish ("We'll use pnpm now", "We should use
pnpm"), a question, a request, the user's own doing ("I'm now looking at the logs").
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory_pipeline.stages.offline import observer_cues as cues
from memory_pipeline.stages.offline import observer_rules as rules

# a correction's lead, left out of the statement: what follows is the current state
LEAD = re.compile(
    r"^(?:(?:correction|update|heads[- ]up|fyi)(?=\s*[:,—–-])|scratch that|not any ?more|"
    r"(?:no|nope|wrong|actually)(?=\s*[,.!:;—–-])|"
    r"that(?:'?s| is) (?:outdated|out of date|old|stale|wrong|not (?:true|right|correct)(?: any ?more)?|"
    r"no longer (?:true|the case|right|correct))|"
    r"(?:this|that) (?:has|'s) changed)\b[\s,:;.!—–-]*", re.IGNORECASE)
NOW = re.compile(r"(?<!\bfor )(?<!\buntil )\b(?:now|these days|nowadays|as of (?:today|this week|this month|last week|yesterday))\b",
                 re.IGNORECASE)
# how something stands: a present verb of being, using, running or living somewhere
STATE = re.compile(r"\b(?:is|are|am|'s|'re|runs?|uses?|lives?|goes|go|points?|sits?|deploys?|builds?|ships?|"
                   r"targets?|depends|calls?|reads?|writes?|hosts?|listens?|serves?|stores?|sends?|requires?|"
                   r"has|have|called|named)\b", re.IGNORECASE)
# the value it replaces: "…, not 6379", "instead of Datadog", "rather than npm"
REPLACED = re.compile(r"(?:,\s*(?:and\s+)?not\s+(?!only\b|just\b|yet\b|sure\b|really\b|always\b|that\b|the case\b)"
                      r"(?:(?:a|an|the|our)\s+)?(?P<not>[\w./:@-]+)|"
                      r"\b(?:instead of|rather than|in place of)\s+(?:(?:a|an|the|our)\s+)?(?P<instead>[\w./:@-]+))",
                      re.IGNORECASE)
CHANGED = re.compile(r"(?<![\w-])(?:dropped|ditched|swapped|replaced|renamed|retired|stopped|switched|moved|migrated|"
                     r"upgraded|downgraded|went from|no longer|not \w+ any ?more)\b", re.IGNORECASE)
# the old value a change names: "dropped npm for pnpm", "replaced Jenkins with", "from Postgres 16 to"
CHANGED_FROM = re.compile(r"\b(?:(?:dropped|ditched|swapped|replaced|retired)\s+(?:the\s+|our\s+)?(?P<old>[\w./:@-]+)|"
                          r"from\s+(?:the\s+|our\s+)?(?P<was>[\w./:@-]+)\s+to\b)", re.IGNORECASE)
# how the session's work stands, not the project: "it works now", "the tests pass now"
STATUS = re.compile(r"\b(?:works?|working|pass(?:es|ing)?|fixed|green|broken|fail(?:s|ing)?|done|ready|finished|"
                    r"better|worse|faster|slower|correct|fine|ok(?:ay)?|clean|compiles?|loads?|renders?|shows?|"
                    r"appears?|visible|gone|happy|confused|stuck|good|set)\b", re.IGNORECASE)
# a step of the session just done ("now the app folder is renamed, so what next"), not how the project stands
STEP_DONE = re.compile(r"\b(?:is|are|has been|have been|got)\s+(?:now\s+|already\s+)?(?:renamed|moved|removed|deleted|"
                       r"added|created|updated|merged|pushed|deployed|installed|reverted|committed)\b|,\s*so\b",
                       re.IGNORECASE)
# "Now" opening anything but a statement of how things stand ("Now going back to our docs, …")
OPENING_NOW = re.compile(r"^now\b,?\s+(?!(?:we|the|our|all|every|each)\b)", re.IGNORECASE)
# a subject that points back ("it", "this") or the user's own doing ("I'm now looking at …")
POINTS_BACK = re.compile(r"^(?:it|this|that|these|those|they|he|she|everything|nothing|here|there)\b", re.IGNORECASE)
OWN_DOING = re.compile(r"^i(?!\s+(?:use|run|am on|'m on)\b)\b", re.IGNORECASE)
# a rule or a request, not how things stand: "No, don't use pip here"
RULE = re.compile(r"^(?:for now\b|don'?t|do not|never|always|please|make sure|make it so|"
                  r"now\s+(?!\w+s\b)[a-z]+\s+(?:the|a|an|it|this|that)\b)",
                  re.IGNORECASE)
NOT_YET = re.compile(r"\b(?:will|'ll|should|could|would|might|may|maybe|going to|gonna|want to|need to|let'?s|"
                     r"plan(?:ning)? to|about to|if|when|unless|once)\b", re.IGNORECASE)
# a guess ("iiuc, they are now shared by …") or a comparison of how it looks or runs ("now brighter than …")
UNSURE = re.compile(r"\b(?:iiuc|iirc|afaik|afaict|i think|i believe|i guess|i suppose|seems?|looks like|apparently)\b|"
                    r"\b\w+er than\b|\bmore \w+ than\b|\bless \w+ than\b", re.IGNORECASE)


# what opens a sentence without being its subject: a speaker's label ("Deborah: …"), a conjunction or an interjection
_OPENER = re.compile(r"^(?:[A-Z][\w'’-]{1,30}:\s+)?(?:(?:but|and|so|also|oh|well|yep|yeah|yes|ok(?:ay)?)\b[\s,!.]*)*",
                     re.IGNORECASE)


@lru_cache(maxsize=4096)  # a pending proposal is read against every MEMORY.md line (stages/review/memory_md.py)
def states_update(sentence: str) -> str | None:
    """The statement of how things stand now that `sentence` makes (its lead left out), or None."""
    opened = LEAD.sub("", _OPENER.sub("", sentence.strip(), count=1), count=1).strip()
    if POINTS_BACK.match(opened):
        return None  # "But she retired a long time ago", "Deborah: Yep, it's become part of my routine now"
    text = sentence.strip()
    rest = LEAD.sub("", text, count=1).strip()
    led = rest != text
    rest = rest[:1].upper() + rest[1:]
    if not rest or cues.is_question(rest) or NOT_YET.search(rest) or POINTS_BACK.match(rest) or OPENING_NOW.match(rest):
        return None
    if any(cues.is_request(clause) for clause in re.split(r"[,;]\s*", rest)):
        return None  # "Now going back to our docs, read hooks.md in full"
    if OWN_DOING.match(rest) or RULE.match(rest) or STATUS.search(rest) or STEP_DONE.search(rest) \
            or UNSURE.search(rest) or cues.HEDGE.search(rest):
        return None
    changed = CHANGED.search(rest)
    if not (STATE.search(rest) or changed):
        return None
    if not (led or changed or NOW.search(rest) or REPLACED.search(rest)):
        return None
    if not rules.content_words(rest) or len(rest.split()) < 4:
        return None
    return rest


def as_update(sentence: str) -> str | None:
    """The update `sentence` makes as the Observer keeps it: a statement led only by a correction ("Wrong,
    the staging URL is staging2.example.com") says that it holds now ("The staging URL is
    staging2.example.com now."), so that it reads as the change it is wherever it is read."""
    rest = states_update(sentence)
    if rest is None or CHANGED.search(rest) or NOW.search(rest) or REPLACED.search(rest):
        return rest
    return re.sub(r"[.!;:\s]*$", "", rest) + " now."


@lru_cache(maxsize=4096)
def replaced_terms(text: str) -> frozenset[str]:
    """The values an update says it replaces, lowercased: "not 6379", "instead of Datadog", "dropped npm"."""
    found = {m.group("not") or m.group("instead") for m in REPLACED.finditer(text)}
    found |= {m.group("old") or m.group("was") for m in CHANGED_FROM.finditer(text)}
    return frozenset(term.lower().strip(".,:;") for term in found if term) - {""}
