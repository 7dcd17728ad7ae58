"""Distil, don't quote: what a durable statement keeps of a sentence, and the shapes that make one.

Pure rules on the wording alone (no transcript-specific words): the chat around a statement
(interjections, "Hm,", "Also:", "FYI:", "Remember:", swearing used for emphasis, "i suppose") is
dropped; a rule is a sentence shaped like one (an imperative or a must/never/always about how to
work), not any sentence holding "always"; a habit described ("I've always been…"), a remark about
what just happened ("that should never happen") and an instruction for the task at hand ("…, look
into the footer sources") are not rules; an agent's plan step ("Use X instead of Y", "In `f`, queue
it"), outline label ("Naming clarity: …"), passing state ("…because the code still uses…") and
report of its own tool failing ("The sed command didn't work…") are not facts.

Used by the offline Observer (what becomes a fact, and its words), the offline Reflector (what
becomes a proposal) and the ledger's typing (what may be a P0 constraint).
"""

from __future__ import annotations

import re

from memory_pipeline.stages.offline.observer_rules import content_words

# chat before the statement: interjections, discourse markers, labels ("Update:", "FYI:", "Remember:")
_LEAD = re.compile(
    r"^(?:(?:(?:omfg|omg|wtf|ugh+|argh+|hm+|hmm+|uh+|um+|oh+|ah+|ok(?:ay)?|alright|so+|also|and|btw|by the way|"
    r"speaking of (?:which|that)|"
    r"anyway|yeah|yep|yes|jeez|geez|sigh|lol|haha)\b[\s,.!:;—–-]*)|"
    r"(?:(?:well|sure|right|look|listen|dude|man)\s*[,!:;—–]+\s*)|"
    r"(?:(?:fyi|update|quick update|heads[- ]up|(?:please )?note(?: for (?:the )?future| for later| to self)?|nb|ps|"
    r"p\.s\.|remember|"
    r"correction|reminder)\s*[:—–-]+\s*)|"
    r"(?:(?:please )?(?:remember|note|keep in mind|don'?t forget) that\s+)|(?:please note,?\s+)|"
    r"(?:fyi|for the record|for future reference),?\s+|"
    r"(?:what i (?:was|am|'m) trying to say|what i meant|what i wanted to say)(?: is| was)?,?\s+)+",
    re.IGNORECASE,
)
# swearing used for emphasis, dropped with the space after it
_INTENSIFIER = re.compile(r"\b(?:fucking|fuckin'?|freaking|friggin'?|frigging|goddamn|damn|bloody|effing)\s+",
                          re.IGNORECASE)
# a hedge or sign-off after the statement
_TAIL = re.compile(r"[\s,;]*\b(?:i suppose|i guess|imo|imho|btw|lol|please|pls|thanks|thx|ok\??)\s*(?=[.!?]*$)",
                   re.IGNORECASE)


# the user asks for it to be kept: "Remember that staging uses eu-west-1", "Note: …", "Note that …", "FYI: …"; not
# "Note the version number in the footer" (look at it: a request)
EXPLICIT = re.compile(r"^\W*(?:(?:please\s+)?(?:remember|keep in mind|don'?t forget)\b|please\s+note\b|"
                      r"note(?=\s*[:,—–-]|\s+(?:that|to self|for the future)\b)|"
                      r"(?:for the record|for future reference|fyi|heads[- ]up|update|correction)\s*[:,—–-])", re.IGNORECASE)


# "i have", "i'm", as typed in a hurry: the pronoun, not a loop variable ("for i in …", "i = 0")
_LONE_I = re.compile(r"(?<![\w`'/.\-])i(?=(?:'(?:m|ve|d|ll))?\s(?!in\b|=))")
# "that looks good, but keep in mind often i have several sessions open in one folder": what the user asks the agent
# to keep, after a reply to something else ("… and remember to X" asks for a task, "… keep in mind that it …" points)
_KEEP_IN_MIND = re.compile(r"(?:[,;]\s*|\s(?:but|and|also|just|though)\s+)(?:please\s+)?(?:keep in mind|bear in mind|"
                           r"remember|note|be aware|don'?t forget)(?:\s+that)?[,:]?\s+"
                           r"(?P<what>(?!(?:to|this|that|it|these|those)\b)[^?]+)$", re.IGNORECASE)


def distil(sentence: str) -> str:
    """The statement without the chat around it; first letter capitalised, end punctuation kept."""
    text = " ".join(sentence.split())
    text = _INTENSIFIER.sub("", _LEAD.sub("", text))
    text = _LONE_I.sub("I", _TAIL.sub("", text).strip(" ,;:—–-"))
    if not text:
        return sentence.strip()
    return text[:1].upper() + text[1:]


# the user keeping it in mind themselves: "I'll also keep in mind the best practices for …" (a note to self after tips)
_OWN_MIND = re.compile(r"\b(?:i|we)(?:['’](?:ll|d)|\s+(?:will|would|can|should|must|need to|have to))?$", re.IGNORECASE)


def kept_in_mind(sentence: str) -> str | None:
    """What a sentence asks the agent to keep in mind after a reply to something else ("looks good, but keep in
    mind X" → "X"), when it states something of its own."""
    text = " ".join(sentence.split())
    found = _KEEP_IN_MIND.search(text)
    if not found or _OWN_MIND.search(text[:found.start()].rstrip()):
        return None
    return found["what"].strip() if len(content_words(found["what"])) >= 3 else None


# "I would prefer for this to be something I run by hand", "I'd like it to stay small": a wish about the thing being
# built, so of its project, not a taste of the user's that holds in every project
ABOUT_THE_WORK = re.compile(r"\b(?:for|want|like|prefer) (?:this|it|that) to\b|\b(?:this|it) (?:should|must|needs to)\b",
                            re.IGNORECASE)


# "I've always been interested", "it has never worked", "we never started over": a habit or history described, not a
# rule (a rule's verb is the bare one: "never push", not "never pushed")
_DESCRIBED = re.compile(r"\b(?:i|i'?ve|i have|i'?d|we'?ve|we have|you'?ve|has|have|had|was|were|been|is|are|"
                        r"it'?s|it has|they'?ve)\s+(?:always|never)\b|\b(?:always|never) (?:been|had|was|were)\b|"
                        r"\b(?:always|never)\s+(?:\w{3,}(?<!e)ed|went|did|got|said|told|saw|came|knew|thought|found|took|"
                        r"gave|wrote|heard|felt)\b",
                        re.IGNORECASE)
# "please", and how it is typed in a hurry
_PLEASE = r"(?:please|plase|pleas|pls|plz)"
_PLEASE_LEAD = re.compile(rf"^{_PLEASE}[,!]?\s+(?=\w)", re.IGNORECASE)


def without_please(text: str) -> str:
    """"Please make sure X" → "make sure X": the rule, without how it was asked that day."""
    return _PLEASE_LEAD.sub("", text)


# the imperative or modal head of a rule clause ("never push to main", "use hex RGB", "you must …",
# "tests should never call the real API", "from now on, …")
_RULE_HEAD = re.compile(
    rf"^(?:(?:so|and|but|then|thus|hence),?\s+)?(?:{_PLEASE}\s+)?(?:always|never|don'?t|do not|no more|stop|avoid|"
    r"only|use|prefer|make sure|ensure|keep|must|put|write|run|read|fix|test|call|let'?s not|from now on|"
    r"going forward|in (?:the )?future)\b|"
    r"^(?!(?:that|this|it|which)\b)[\w\s`'./-]{0,60}?\b(?:should|must|shall)\s+(?:never|always|not|only)\b|"
    r"^(?:you|we|agents?|everyone|the agent)\s+(?:must|should|need to|have to|may not|can'?t|cannot)\b|"
    r"^(?:we|agents?|everyone|the agent)\s+(?:always|never)\b|"
    r"^no\s+\w+",
    re.IGNORECASE,
)
# what opens like a rule and is none: "(and) don't want to carry a lot" (the user's want: no one orders a "don't want"),
# "No we never started over" (an answer, then what happened), "must be 16+ years old" (a threshold of something
# described: "Volunteer application process: …; must be 16+ years old")
_NOT_A_HEAD = re.compile(r"^(?:(?:so|and|but|then),?\s+)?(?:don'?t|do not)\s+(?:really\s+)?(?:want|wanna|know|think|like|mind|"
                         r"care|understand|feel)\b|^no,?\s+(?:we|i|you|it|that|this|they|he|she|there)\b|"
                         r"^must\s+be\s+(?:at least\s+|over\s+|under\s+)?\d", re.IGNORECASE)
# "no X" heads a rule only as the sentence's first clause ("No force pushes, CI deploys main"); after another
# clause it is relief or emphasis ("My pantry is organized, no more expired cans"; "…, no mess at all!")
_NO_HEAD = re.compile(r"^no\s+\w+", re.IGNORECASE)
# what makes a rule standing rather than one-off; a permission asked each time ("without asking me first") and a step
# tied to every commit, push or review ("before you show me a diff", "before committing") hold beyond the task too
# ("before you commit this" is this change's)
STANDING = re.compile(r"\b(?:always|never|must(?:n'?t| not)?|from now on|going forward|in future|in the future|no exceptions|"
                      r"every time|each time|ever|any ?more|whenever|by default|in general|"
                      r"without (?:asking|checking with) (?:me|us)(?: first)?|"
                      r"before (?:you |we )?(?:commit|push|merg|open(?:ing)? (?:a|the) (?:pr|pull request)|show(?:ing)? me|"
                      r"deploy|releas)\w*(?! (?:it|this|that|these|those)\b))\b", re.IGNORECASE)
# "let's" that chooses, not a step of the work: "let's go with Postgres 17", "let's stick with pnpm" (a decision,
# observer_cues.DECISION); "let's not …" forbids
LETS_CHOOSE = r"let'?s (?:not|(?:go|stick|stay) with)\b"
# a clause asking for the task at hand: "look into the footer sources", "check X", "can you …"
_TASK_CLAUSE = re.compile(
    r"^(?:please\s+)?(?:look (?:into|at)|check|investigate|try|see (?:if|whether|why)|find|figure out|debug|"
    rf"can you|could you|would you|(?!{LETS_CHOOSE})let'?s|go ahead|continue|start|now)\b|^should be \w+(?:er)?$",
    re.IGNORECASE,
)
# a remark about what just happened, pointed at with a pronoun: "that should never happen"
_DEICTIC_HEAD = re.compile(r"^(?:that|this|it|which)\b", re.IGNORECASE)
# "you must be new", "you must be joking": a guess about the person, not what they must do
# ("you must be logged in" is a rule: a participle follows)
_GUESS = re.compile(r"^you\s+must\s+be\s+(?!\w+(?:ed|en|wn)\b)(?!(?:careful|sure|able|aware|quiet|explicit|consistent|"
                    r"concise|brief|polite|precise)\b)", re.IGNORECASE)
_CLAUSES = re.compile(r"\s*(?:[,;:]|—|–|\s-\s|\bbut\b|\band\b(?= (?:always|never|don'?t|do not)))\s*", re.IGNORECASE)


def clauses(text: str) -> list[str]:
    return [c for c in (c.strip(" .!?\"'“”") for c in _CLAUSES.split(distil(text))) if c]


def is_rule(text: str) -> bool:
    """Shaped like a rule of how to work: one clause opens with an imperative or a must/should/never
    about what to do, no clause asks for the task at hand, and it is no habit described or remark
    about what just happened. "Never push to main, CI deploys it" is one; "I've always been
    interested in X", "that should never happen", "you never know what might come of it" (the
    generic "you" describes; a rule to "you" says must, should or can't) and "Should be dimmer, don't
    modify the theme, look into the footer sources" are not."""
    parts = clauses(text)
    if not parts or text.rstrip().endswith("?") or _DESCRIBED.search(text):
        return False
    if any(_TASK_CLAUSE.match(part) for part in parts):
        return False
    heads = [part for n, part in enumerate(parts)
             if _RULE_HEAD.match(part) and not _GUESS.match(part) and not _NOT_A_HEAD.match(part)
             and (n == 0 or not _NO_HEAD.match(part))]
    if _CHANGE_ASKED.match(parts[0]) and not _RULE_HEAD.match(parts[0]) and not _BEYOND.search(text):
        return False  # "Remove the -o option and always write to prompt_history.md": what the change makes it do
    return bool(heads) and not all(_DEICTIC_HEAD.match(part) for part in heads)


# a change asked of the code, first: an "always" or "never" after it says what the changed code does ("Remove the -o
# option and always write to prompt_history.md"), unless it holds beyond the change ("… and never commit them again")
_CHANGE_ASKED = re.compile(r"^(?:remove|add|rename|drop|replace|delete|introduce|expose|make|change|rewrite)\b", re.I)
_BEYOND = re.compile(r"\b(?:again|from now on|going forward|in (?:the )?future|every time|each time|whenever|"
                     r"before (?:you |we )?(?:commit|push|merg|deploy|releas)\w*)\b", re.I)


# what a part of the code must do: "truncated text must stop at a newline", "the selector needs to push the
# update to the next tick, or else …" (not "must be dimmer", a change still to make)
_CODE_MUST = re.compile(r"^(?!(?:that|this|it|which|i|you|we)\b)[\w\s`'./-]{0,60}?\b(?:must|needs to|has to)\s+"
                        r"(?!be\b)\w+", re.IGNORECASE)


def is_code_requirement(text: str) -> bool:
    """In work on software, what a part of the code must do, with its mark ("must") or its reason ("or else
    …"); in a chat "my son has to wear braces" is a fact of the user's life, no rule, so the Observer asks
    this only of a window that is work on software."""
    parts = clauses(text)
    if not parts or text.rstrip().endswith("?") or any(_TASK_CLAUSE.match(part) for part in parts):
        return False
    return bool(_CODE_MUST.match(parts[0])) and bool(STANDING.search(text) or _REASON.search(text))


def is_task_request(text: str) -> bool:
    """One of its clauses asks for the task at hand ("…, look into the footer sources")."""
    return any(_TASK_CLAUSE.match(part) for part in clauses(text))


# "don't rewrite the changelog, make surgical edits", "stop committing everything", "no deprecation alias!": the
# user forbids a way of working, said of what the agent just did; it holds beyond the task even unmarked. Not a
# reaction ("stop doing that", "don't worry"), a wish for the moment ("don't commit yet") nor a question.
_PROHIBITION = re.compile(rf"^(?:{_PLEASE}\s+)?(?:don'?t|do not|stop|no more|never)\s+(?:(?:ever|again)\s+)?"
                          r"(?!(?:worry|worrying|bother|know|think|thinking|understand|get|see|care|mind|forget|be|being|do|doing|"
                          r"say|saying|talk|talking|apologi[sz]e|apologi[sz]ing|that|this|it|there|here|now|yet)\b)"
                          r"(?P<verb>\w+)", re.IGNORECASE)
# "No console logs!", "no deprecation alias!": a noun forbidden with an exclamation mark ("no worries!" is none)
_NO_NOUN = re.compile(r"^no\s+(?!(?:idea|problem|problems|worries|worry|thanks|thank|luck|way|need|doubt|wonder|clue|"
                      r"matter|difference|change|changes|kidding|offen[cs]e|rush|pressure|big|one|error|errors|output|"
                      r"issue|issues|more)\b)[\w`.\-]+(?:\s+[\w`.\-]+){0,4}\s*!+$", re.IGNORECASE)
# a wish for this moment, not beyond it ("I'd rather not talk about it right now", "don't push yet")
FOR_THE_MOMENT = r"right now|for now|at the moment|today|this time"
_NOT_YET = re.compile(rf"\b(?:{FOR_THE_MOMENT}|yet|until)\b", re.IGNORECASE)


def is_prohibition(text: str) -> bool:
    """The user forbids a way of working ("don't rewrite the changelog, make surgical edits", "stop committing
    everything", "no deprecation alias!"): what to do is the rest of the sentence, or the thing named."""
    text = distil(text).strip()
    if text.endswith("?") or _NOT_YET.search(text) or is_task_request(text):
        return False
    if _NO_NOUN.match(text):
        return True
    found = _PROHIBITION.match(text)
    if found is None:
        return False
    # "stop committing": the habit is the verb; "don't modify" needs what it forbids to touch
    return found["verb"].lower().endswith("ing") or len(content_words(text[found.start("verb"):])) >= 2


# "open a new issue "Untangle OAuth/API key mess" with label coding-agent …", "file a ticket for the flaky export
# test": work put off to later, the session's open end
_OPEN_ISSUE = re.compile(rf"^(?:{_PLEASE}\s+)?(?:can you\s+)?(?:open|create|file|write)\s+(?:a\s+|an\s+)?(?:new\s+)?"
                         r"(?:github\s+|gh\s+)?(?:issue|ticket|bug report)\b(?P<rest>.*)$", re.IGNORECASE)
_TITLE = re.compile(r"[\"“]([^\"”]{4,120})[\"”]")
_ISSUE_ABOUT = re.compile(r"\s+(?:for|about|on|to track)\s+(?P<about>[^,.;]+)", re.IGNORECASE)
# how the Observer words it: an open commitment for the ledger's pack, no line for MEMORY.md
FOLLOW_UP = "Follow up later (the user had an issue opened for it)"


def issue_to_open(text: str) -> str | None:
    """What the user asks an issue to be opened for, to be done later: its title in quotes, or what it is
    "for" / "about"; None when the sentence asks no such thing."""
    found = _OPEN_ISSUE.match(distil(text))
    if found is None:
        return None
    if title := _TITLE.search(found["rest"]):
        return title.group(1).strip()
    about = _ISSUE_ABOUT.match(found["rest"])
    return about["about"].strip() if about and len(content_words(about["about"])) >= 2 else None


def is_standing_rule(text: str) -> bool:
    """A rule with a mark that it holds beyond the task at hand ("never", "always", "from now on")."""
    return is_rule(text) and bool(STANDING.search(text))


# an agent's plan step: an imperative, after any "In `f`," / "If X," / "When X," lead
_LEAD_CLAUSE = re.compile(r"^(?:(?:in|if|when|for|on|after|before|once|then|otherwise|else|during|while)\b[^,]{0,80},\s*)+",
                          re.IGNORECASE)
_PLAN_LEAD = re.compile(r"^(?:actually|instead|so|now|then),?\s+", re.IGNORECASE)  # "Actually use `toolText` - …"
_PLAN_VERB = re.compile(
    r"^(?:use|take|remove|add|queue|move|keep|call|make|create|replace|rename|extract|pass|return|store|put|set|"
    r"wrap|switch|change|update|delete|drop|flush|split|merge|run|check|avoid|ensure|handle|emit|skip|implement|"
    r"write|introduce|convert|expose|inject|register|subscribe|unsubscribe|save|load|append|insert|export|import|"
    r"wire|hook|route|render|show|hide|display|pull|push|fetch|send|defer|delay|refactor|simplify|inline|"
    # what to have someone else do: "During the maintenance check, have the mechanic inspect the brakes"
    r"have|ask|inspect|verify|confirm|schedule|consult|contact)\b",
    re.IGNORECASE,
)


def is_plan_step(sentence: str) -> bool:
    """"Use X instead of Y", "In `executeBash`, if streaming, queue the message": what the agent is
    about to do, an outline of its plan; the user's words or the outcome say what was decided."""
    return bool(_PLAN_VERB.match(_LEAD_CLAUSE.sub("", _PLAN_LEAD.sub("", sentence.strip()))))


# "Naming clarity: `A` instead of `B`": a label and a fragment, an outline's bullet
_LABEL = re.compile(r"^(?P<head>[A-Z][\w-]*(?: [\w-]+){0,2}):\s+\S")
_LABEL_KEEP = re.compile(r"\b(?:is|are|was|were|cause|fix|issue|problem|bug|lesson|gotcha|rule|decision|note|why|"
                         r"reason|because)\b", re.IGNORECASE)


def is_outline_label(sentence: str) -> bool:
    found = _LABEL.match(sentence.strip())
    return found is not None and not _LABEL_KEEP.search(found.group("head"))


# the state of this moment: "still", "currently", "for now", "yet"
PASSING = re.compile(r"\b(?:still|currently|for now|right now|at the moment|yet|so far|temporarily)\b", re.IGNORECASE)
# the agent's own tool or edit failing: the session's detail, not the project's
_OWN_TOOL = re.compile(r"\b(?:the|my|that|this|previous|last) (?:sed|grep|awk|edit|command|replacement|patch|search|"
                       r"tool call|heredoc|regex|str_replace|write|find)\b[^.]{0,60}\b(?:didn'?t|did not|failed|"
                       r"doesn'?t|does not|won'?t)\b", re.IGNORECASE)


# the agent's advice to the person it talks to: "Remember to always warm up first", "You can always add
# more later", "Since you've booked the resort, …", "Snorkelling with a buddy is always safer and more fun!"
_ADVICE_LEAD = re.compile(
    r"^(?:(?:just|and|but|also|so|please|however|finally|lastly|overall),?\s+)?(?:remember\b|always\b|never\b|"
    r"don'?t\b|do not\b|make sure\b|be (?:sure|careful|mindful|patient|honest|prepared|flexible)\b|keep in mind\b|"
    r"feel free\b|consider\b|try\b|focus on\b|prioriti[sz]e\b|enjoy\b|have fun\b|good luck\b|happy \w+ing\b)",
    re.IGNORECASE)
_READER = re.compile(r"\b(?:you|you'(?:re|ve|ll|d)|yourself|yourselves)\b", re.IGNORECASE)
# "In your case, since you're new to clustering, I recommend starting with …", "you may want to normalize …": a
# suggestion the person it talks to has not taken up, anywhere in the sentence
_RECOMMENDS = re.compile(r"\b(?:i(?: would|'d)? (?:also |strongly |highly )?(?:recommend|suggest|advise)|"
                         r"you (?:may|might|could) (?:also )?want to|you should (?:also )?(?:consider|try)|"
                         r"my (?:recommendation|suggestion|advice) (?:is|would be))\b", re.IGNORECASE)
_PRAISE = re.compile(r"\balways\s+(?:(?:a|an|so|very|more|really)\s+)?(?:\w+\s+)?(?:great|good|nice|fun|safer|"
                     r"better|wise|smart|important|essential|recommended|helpful|worth|appreciated|satisfying|"
                     r"delight\w*|win|welcome|exciting|wonderful|fantastic|amazing|entertaining|electric|happy)\b",
                     re.IGNORECASE)
_OUTLINE_HEAD = re.compile(r"^[^:]{1,60}:\s+")


def is_advice(sentence: str) -> bool:
    """The agent's advice to the person it talks to, not what it found about the work: an imperative led
    by advice ("Remember to…", "Always…", "Make sure…", also after an outline label "Read reviews: Always
    read…"), a praise of what is "always" good, or a suggestion ("I'd recommend …", "you may want to …"). A
    finding names the work ("The export scans the whole table because created_at has no index")."""
    text = sentence.strip()
    return bool(_ADVICE_LEAD.match(text) or _ADVICE_LEAD.match(_OUTLINE_HEAD.sub("", text)) or _PRAISE.search(text)
                or _RECOMMENDS.search(text))


def addresses_reader(sentence: str) -> bool:
    """A sentence to "you" ("Since you've booked the resort, …", "You can always add more later"): in a
    conversation, what the agent tells the person about their own situation; in work on software the
    generic "you" of an explanation ("If you run it twice, it fails because the lock file remains")."""
    return bool(_READER.search(sentence))


def is_own_tool_failure(sentence: str) -> bool:
    return bool(_OWN_TOOL.search(sentence))


# a correction in the words people use: "we moved to X", "X is gone", "now uses", "no longer", "switched from A to B";
# "went" only as "went from A", "went back to", "went over to": "went to a poetry reading" is an outing, not a change
CHANGE = re.compile(
    r"\b(?:(?:moved|switched|migrated|upgraded|downgraded|changed) (?:[\w.\-]+ ){0,5}(?:from|to|over to)|"
    r"went (?:[\w.\-]+ ){0,5}from|went (?:back|over) to|"
    r"now (?:uses?|runs?|lives?|is|are|points?|reads?|goes|calls?|depends)|no longer|not \w+ any ?more|"
    r"(?:is|are|was|were) (?:gone|retired|decommissioned|dropped|removed|replaced|deprecated)|replaced (?:by|with)|"
    r"instead of|in place of)\b",
    re.IGNORECASE,
)
# what opens a correction: "Update:", "FYI:", "Heads up:", "Correction:"
CORRECTION_LEAD = re.compile(r"^\W*(?:update|quick update|fyi|heads[- ]up|correction|note|btw|by the way|psa)\b\s*[:,—–-]",
                             re.IGNORECASE)


def is_correction_of_fact(sentence: str) -> bool:
    """A statement that something changed ("Update: we upgraded X from A to B; A is gone")."""
    return bool(CHANGE.search(sentence)) and not sentence.rstrip().endswith("?")


# points at something only the session shows: "those files", "that branch", "this one"
POINTER = re.compile(r"\b(?:that|this|these|those) (?:branch|file|folder|dir|directory|module|class|component|function|"
                     r"method|test|error|issue|one|case|change|approach|code|line|call|thing|stuff|part|bit|way|"
                     r"command|message|step|fix|bug|option)s?\b", re.IGNORECASE)
# what tells a standing rule from a one-off request: a contrast ("use uv, not pip"; "rgb values, no
# indices"), a reason, or a mark that it holds beyond the task
_CONTRAST = re.compile(r"(?:,|;|—|–|\s-)\s*(?:not|no|never)\b|\b(?:instead of|rather than|not \w+ but)\b",
                       re.IGNORECASE)
_REASON = re.compile(r"\b(?:because|since|so that|otherwise|or else)\b", re.IGNORECASE)


# "i think we would want to include all sources related to a session", "i think for now we should keep writing the old
# export files for backwards compatibility": how the user wants the thing built, said as what "we" want or should do,
# with its scope or its reason. Not a next step ("we should fix the bug first", "we need to commit now").
_HEDGE = r"(?:i think|i guess|i believe|i feel like|imo|ideally|probably)"
_HEDGE_LEAD = re.compile(rf"^{_HEDGE},?\s+", re.IGNORECASE)
_WE_WANT = re.compile(rf"^(?:{_HEDGE},?\s+)?(?:if [^,]{{3,40}}?,?\s+)?"
                      r"(?:for now,?\s+)?we\s+(?:would\s+|'d\s+|really\s+)?(?:want|need|should|must|have to)\b",
                      re.IGNORECASE)
_SCOPE = re.compile(r"\b(?:all|every|each|always|never|whenever|if (?:they|it) exists?|if present|by default|"
                    r"in addition to|as well as|compatib\w*)\b", re.IGNORECASE)
_DONE_NEXT = re.compile(r"\b(?:first|next|now|then|right away|today|tonight|asap)\W*$", re.IGNORECASE)
# what is done to the code or docs now ("we need to improve the docs", "we should rename X"): a task, not how it is built
_TASK_VERB = re.compile(r"\b(?:want|need|should|must|have) to (?:also )?(?:improve|fix|update|adjust|tackle|review|refactor|"
                        r"rename|document|add|write|go through|clean|test|check|look|reference|release|commit|"
                        r"push|merge|make sure|pass|tell|better|explain|show|use)\b|\bshould (?:also )?(?:improve|fix|"
                        r"update|adjust|review|refactor|rename|document|add|write|reference|release|commit|be)\b",
                        re.IGNORECASE)


def unhedged(text: str) -> str:
    """"I think we would want X" → "We would want X": the choice, without the hedge it was said with."""
    kept = _HEDGE_LEAD.sub("", text)
    return kept[:1].upper() + kept[1:]


def is_design_choice(text: str) -> bool:
    """The user's choice of how the thing is built, said as what "we" want or should do, with its scope or
    reason ("i think we would want to include all sources related to a session")."""
    said = " ".join(text.split())
    return (bool(_WE_WANT.match(said)) and bool(_SCOPE.search(said) or _REASON.search(said))
            and not _DONE_NEXT.search(said) and not _TASK_VERB.search(said) and not said.endswith("?")
            and len(content_words(said)) >= 5)


# "please write a compaction example that summarises everything instead of keeping the last turns": asks for
# one new thing, and its "instead of" tells what that thing does differently (no rule, no correction)
MAKES_NEW = re.compile(rf"^(?:(?:{_PLEASE}|can you|could you),?\s+)?(?:write|create|add|make|build|implement|"
                       r"generate|draft)\s+(?:a|an|one|some|new|another)\b", re.IGNORECASE)


def is_stated_rule(text: str) -> bool:
    """A user's sentence that states how to work from now on: rule-shaped and marked as standing,
    contrasted with what not to do, or given with its reason; not a request for one new thing."""
    if MAKES_NEW.match(distil(text)) and not STANDING.search(text):
        return False
    return is_rule(text) and bool(STANDING.search(text) or _CONTRAST.search(text) or _REASON.search(text))


# what a checker or tool said: "Dialyzer knows X is always…", "TypeScript complains that…"
_TOOL_REPORT = re.compile(r"^(?:the )?[\w.\-`]+ (?:knows|complains|says|warns|reports|thinks|infers|flags|"
                          r"is complaining|is warning)\b", re.IGNORECASE)
# a change of this session in the passive: "The `X` alias was removed since …"
_PASSIVE_CHANGE = re.compile(r"\b(?:was|were|has been|have been|got)\s+(?:\w+ly\s+)?(?:removed|added|replaced|moved|"
                             r"renamed|extracted|updated|deleted|refactored|cleaned up|simplified|inlined|dropped)\b",
                             re.IGNORECASE)
# "The fix is simple: use X": a fix proposed before it is made
_PROPOSED_FIX = re.compile(r"^(?:so,? )?the (?:fix|solution|plan|approach) (?:is|would be)(?: \w+)?:\s*(?P<rest>.+)$",
                           re.IGNORECASE)


def is_tool_report(sentence: str) -> bool:
    return bool(_TOOL_REPORT.match(sentence.strip()))


# "Empty padding lines are now `" ".repeat(width)` instead of `""`": the before and after of an edit
_NOW_INSTEAD = re.compile(r"\b(?:is|are|was|were) now\b.{0,120}\binstead of\b", re.IGNORECASE)
# an edit log's line under the file it changed: "`styles.css`: reintroduced a hover overlay …", "server.ts: rewrote the
# handler …", "`app.js`: capture squares now …"
_FILE_EDIT = re.compile(r"^`?[\w./\-]+\.[a-z]{1,6}`?\s*[:—–]\s+(?:\w+ed|rebuilt|made|wrote|rewrote|split|built|set|kept|"
                        r"undid|(?:[\w\-`]+\s+){0,4}now)\b", re.IGNORECASE)


def is_session_change(sentence: str) -> bool:
    return bool(_PASSIVE_CHANGE.search(sentence) or _NOW_INSTEAD.search(sentence) or _FILE_EDIT.match(sentence.strip()))


# "The fix is to make `invalidate()` invalidate, or to improve the cache key": two ways, none chosen yet
_FIX_OPTIONS = re.compile(r"^(?:so,? )?the (?:fix|solution) (?:is|would be) to\b.*\bor (?:to )?\w+", re.IGNORECASE)


def is_proposed_fix(sentence: str) -> bool:
    found = _PROPOSED_FIX.match(sentence.strip())
    return (found is not None and is_plan_step(found.group("rest"))) or bool(_FIX_OPTIONS.match(sentence.strip()))


# "Run `bd show <id>` to see the details": how to do something with a named command (a procedure)
_HOW_TO = re.compile(r"^(?:please\s+)?(?:run|use|call|invoke|type)\s+(?!(?:the|a|an|this|that|these|those|all|my|your|"
                     r"our|it|them|some|any)\b)(?P<command>\S.{1,60}?)\s+to\s+(?:see|find|get|check|list|build|start|"
                     r"run|deploy|test|view|show|look up|install|update|sync|format|lint|open|claim|close|release|"
                     r"create|reset|regenerate)\b", re.IGNORECASE)


def is_how_to(sentence: str) -> bool:
    return bool(_HOW_TO.match(sentence.strip()))


# "you haven't read X in full", "you didn't run the tests": what the agent failed to do, a correction
MISSED = re.compile(r"^(?:but |and |so )?you (?:still )?(?:hav(?:en|ne|n)'?t|have not|did\s?n'?t|did not|never|"
                    r"forgot to)\b", re.IGNORECASE)
# "the rest needs to be moved", "X will be switched": a change still to make, not one made
PENDING_CHANGE = re.compile(r"\b(?:needs? to be|has to be|have to be|will be|should be|to be|could be|would be)\s+"
                            r"(?:\w+\s+){0,4}?(?:moved|duplicated|migrated|switched|changed|replaced|upgraded|removed)\b",
                            re.IGNORECASE)
# "yes need to be fully clean": an answer with content, to a question the agent just asked
_ANSWER = re.compile(r"^(?:yes|yeah|yep|yup|sure|ok(?:ay)?|correct|exactly|right|please do)\b[,.!:;\s-]*(?P<rest>.+)$",
                     re.IGNORECASE)

# "Want me to clean that up too?": the agent offers to do something; the answer says how work is done.
# Not "…continue with WP15, or would you prefer…?" (a choice of what to do next)
_OFFER = re.compile(r"\b(?:want me to|should i|shall i|do you want me to|would you like me to|i can also|"
                    r"(?:want|like) (?:it|them|these|that)|ok(?:ay)? (?:to|if))\b", re.IGNORECASE)
_NEXT_STEP = re.compile(r"\bor\b|\b(?:continue|proceed|go ahead|move on|start|next|commit|push|merge|ready)\b",
                        re.IGNORECASE)
_CHAT_ANSWER = re.compile(r"^(?:i (?:hope|think|guess|feel|wonder)|lol|haha|thanks|thank you|cool|nice|great)\b",
                          re.IGNORECASE)


def is_offer(question: str) -> bool:
    """The agent's question offers one more thing to do (not a choice of what comes next)."""
    return bool(_OFFER.search(question)) and not _NEXT_STEP.search(question)


def answer_rest(text: str) -> str | None:
    """What a "yes, …" reply adds beyond the yes (three words at least, not chat), or None."""
    found = _ANSWER.match(" ".join(text.split()))
    rest = found.group("rest").strip() if found else ""
    return rest if len(rest.split()) >= 3 and not _CHAT_ANSWER.match(rest) else None


_MISSED_VERB = re.compile(r"^(?:but |and |so )?you (?:still )?(?:hav(?:en|ne|n)'?t|have not|did\s?n'?t|did not|never|"
                          r"forgot to)\s+(?P<rest>\w.+)$", re.IGNORECASE)
_PAST = {"read": "read", "run": "run", "ran": "run", "done": "do", "did": "do", "written": "write", "wrote": "write",
         "checked": "check", "tested": "test", "looked": "look", "asked": "ask", "updated": "update", "used": "use"}


# a reproach: "how can you say things look up-to-date if you haven't checked the source code?" — what to do
# before such a claim
_REPROACH = re.compile(r"^(?:(?:my )?(?:dude|man|bro),?\s+)?how (?:can|could|do) you (?P<claim>say|claim|tell me|"
                       r"conclude|know) (?P<what>.+?),? if you (?:still )?(?:hav(?:en|ne|n)'?t|have not|did\s?n'?t|"
                       r"did not|never)\s+(?P<rest>\w.+?)[\s.?!]*$", re.IGNORECASE)


def reproach_as_rule(sentence: str) -> str | None:
    """"How can you say X if you haven't checked Y?" → "Check Y before saying X.": the check the user expects."""
    found = _REPROACH.match(" ".join(sentence.split()))
    if not found:
        return None
    claim = {"say": "saying", "claim": "claiming", "tell me": "telling", "conclude": "concluding",
             "know": "claiming"}[found.group("claim").lower()]
    return f"{_imperative(found.group('rest')).rstrip(' .')} before {claim} {found.group('what')}."


def _imperative(done: str) -> str:
    """What the agent did not do, as what to do: "checked the source code" → "Check the source code"."""
    verb, _, rest = done.partition(" ")
    verb = _PAST.get(verb.lower(), verb.lower())
    return f"{verb[:1].upper()}{verb[1:]} {rest}".strip()


def missed_as_rule(sentence: str) -> str | None:
    """"you haven't read X in full" → "Read X in full": what the agent failed to do, as the rule."""
    found = _MISSED_VERB.match(sentence.strip().rstrip("."))
    if not found:
        return None
    return _imperative(found.group("rest")) + "."


# the Observer's frames around the user's words: 'User stated: "…"', 'User answered "Q": "A"', '"A" (about: "T")'
_FRAME = re.compile(r"^User (?:stated|decided|corrected the agent|reported|asked):\s*", re.IGNORECASE)
_ANSWERED = re.compile(r'^User answered "(?P<question>.+?)": "(?P<answer>.+)"$')
_ABOUT = re.compile(r'^"(?P<said>.+)"\s*\(about: "(?P<topic>.+)"\)$')
ASKED_AGAIN = re.compile(r'^User asked (?P<times>\d+) times: "(?P<said>.+)"\.?$')
ASKED_MARK = re.compile(r"\(the user asked \d+ times\)\.?$")  # statement()'s mark of a request made again
# "Reason being that we injected …": a cause, said as the chat's follow-up
_CAUSE_LEAD = re.compile(r"^(?:reason being|the reason (?:is|was)|that'?s because)(?: that)?,?\s+", re.IGNORECASE)


def statement(fact: str) -> str:
    """A fact as a statement of its own: the user's words without the Observer's frame ("User stated:"),
    their quotes and the chat around them; an answer leads with what the user said, then what it
    answers; who said it is the fact's source labels' to tell, not its words'."""
    body = " ".join(fact.split())
    if answered := _ANSWERED.match(body):
        return f"{distil(answered['answer']).rstrip('.')} (the user's answer to: {answered['question']})"
    if again := ASKED_AGAIN.match(body):
        return f"{distil(again['said']).rstrip('.')} (the user asked {again['times']} times)"
    body = _FRAME.sub("", body).strip()
    if about := _ABOUT.match(body):
        return f"{distil(about['said']).rstrip('.')} (about: {about['topic']})"
    stripped = body.strip('"“”').strip()
    return as_cause(distil(stripped)) if stripped else stripped


def as_cause(text: str) -> str:
    """"Reason being that X" → "Cause: X"."""
    return _CAUSE_LEAD.sub("Cause: ", text, count=1)
