"""Cue phrases of the offline Observer: what a sentence of a coding session says (a rule, a
preference, a correction, a decision, the user's stated context, a root cause, a request, running
commentary), and whether it names what it is about. Pure regular expressions and predicates; the
text handling (sentences, tool calls, content words) is observer_rules'.
"""

from __future__ import annotations

import re

from memory_pipeline.stages.offline import distil as shape
from memory_pipeline.stages.offline.observer_rules import CODE_IN_PROSE, FILLER, content_words

RULE = re.compile(
    r"\b(?:always|never|prefer|we use|we always|from now on|going forward|in future|remember (?:that|to)|"
    r"should (?:always|never)|do(?:n'?t| not) ever|no exceptions)\b",
    re.IGNORECASE,
)
# "I'd like to know more about X" asks for something; it states no preference
PREFERENCE = re.compile(
    # "I want all commits to follow conventional commits": a want over every one of a kind, not this task's
    r"\b(?:i want (?:all|every|each|any) (?:new |future )?[\w\-]+ to\b|"
    r"i (?:prefer|like|love|hate|dislike|don'?t like)|i(?: would|'d) (?:only |rather |much rather )?"
    r"(?:want|like|prefer)(?! to (?:know|learn|understand|see|hear|read|find out|get|ask|talk|discuss|explore|try|"
    r"check|have a look)\b)|i'?d rather|"
    r"i would rather|my preference)\b",
    re.IGNORECASE,
)
# "this is not how it works", "that's wrong": the agent's account denied
DENIED = r"(?:that|this|it)(?:'?s| is) (?:not (?:how|what|true|right|correct)\b|wrong\b|incorrect\b)"
CORRECTION = re.compile(
    rf"^(?:no\b|nope\b|actually\b|that'?s not\b|wrong\b|not quite\b|you'?re wrong|{DENIED})"
    r"|\bnot \w+(?: \w+)?,? but\b|\binstead of\b|\bi actually (?:want|need|prefer|meant)\b"
    r"|^(?=(?:please )?(?:don'?t|do not) .*\binstead\b)",  # "Don't mock X; use the test data source instead"
    re.IGNORECASE,
)
# the agent's account denied, what is true said next: "this is not how it works. the log is append only"
DENIES = re.compile(rf"^(?:(?:no|nope)[,.!]?\s+)?{DENIED}", re.IGNORECASE)
# what the agent found, named as such: "Major finding: the SQLite store is not required", "Key finding: Claude Code
# turns underscores into hyphens too:"
_FINDING_LEAD = re.compile(r"^(?:(?:key|major|critical|important|main|big|interesting|new)\s+)?(?:finding|discovery|"
                           r"insight|lesson(?: learned)?|takeaway|gotcha)\s*[:—–]\s*(?=\S)", re.IGNORECASE)


def named_finding(sentence: str) -> str | None:
    """The finding a sentence names as one ("Key finding: X" → "X"), when it says something in four words or more."""
    found = _FINDING_LEAD.match(sentence)
    if not found:
        return None
    finding = sentence[found.end():].strip().rstrip(":").strip()
    finding = finding[:1].upper() + finding[1:]
    return finding if len(finding.split()) >= 4 and not finding.endswith("?") else None


# after a request, the user saw it was not done: "please keep the docs folder up to date. I didn't see any files
# updated there"
NOT_SEEN = re.compile(r"^(?:but |and |however,? )?i (?:still )?(?:did\s?n'?t|did not|do\s?n'?t|do not|can'?t|cannot|"
                      r"could\s?n'?t|could not) (?:see|find|notice|spot)\b", re.IGNORECASE)
# a user telling of their own doings, plans or thoughts ("I've started taking the stairs instead of the
# elevator", "Actually, I remember taking my bike in on April 20th", "We're considering camping instead of a
# hotel"): their "instead of" or "actually" corrects no one. A wish about the work still does ("I'd rather use
# X instead of Y", "Actually, I want …"), and so does any other cue ("No, we want …", "not X but Y").
SELF_TOLD = re.compile(r"^(?:actually,?\s+)?(?:i|we)(?:['’](?:m|ve|ll|d|re))?\b(?!.{0,24}\b(?:want|need|prefer|"
                       r"meant|mean|rather|like|asked|said|told|should|must|have to)\b)", re.IGNORECASE)
_TOLD_CUES = re.compile(r"^actually\b|\binstead of\b", re.IGNORECASE)


def corrects(sentence: str) -> bool:
    """The user corrects or redirects the agent (CORRECTION), unless they tell of their own doings or ask for
    something new that does a thing "instead of" another."""
    if not CORRECTION.search(sentence):
        return False
    if shape.MAKES_NEW.match(sentence) and not CORRECTION.search(INSTEAD_OF.sub(" ", sentence)):
        return False
    return not SELF_TOLD.match(sentence) or bool(CORRECTION.search(_TOLD_CUES.sub(" ", sentence)))


# the words of a choice made, not of a change told ("when I first moved to Japan"): what triage calls a decision
_CHOICE = (rf"decided|decide to|{shape.LETS_CHOOSE}|we'?ll go with|going with|chose|opted|rather than|"
           r"(?:we'?ll|we will) (?:stick|stay) with")
CHOSE = re.compile(rf"\b(?:{_CHOICE})\b", re.I)
# a choice, a change made ("switched from … to", "moving off … to", "no longer") or a reason given
DECISION = re.compile(rf"\b(?:{_CHOICE}|because|"
                      r"(?:moved|switched|migrated|upgraded|moving|switching|migrating) (?:[\w.\-]+ ){0,4}"
                      r"(?:from|to|off)|no longer|"
                      r"anymore|any more(?! \w)|reason being|the reason (?:is|was))\b", re.I)
# a reason alone ("I canceled the subscription because the articles bored me") tells why, not a choice made
REASON_ONLY = re.compile(r"\b(?:because|reason being|the reason (?:is|was))\b", re.I)
# a cue a sentence still weighing the choice holds too ("thinking of going with"); "let's go with",
# "decided", "switched to" are made whatever hedge follows ("We're going with Postgres 16, not sure about 17 yet")
_WEIGHED = re.compile(r"going with|decide to", re.I)
# a choice said while it may still be open: "switching to a coupon app, but I'm not sure if it would be worth it",
# "I was wondering if you could suggest …, rather than …" (unlike "going with", a hedge after it undoes it)
_OPEN = re.compile(r"rather than|(?:moving|switching|migrating)\b", re.I)
_UNSURE = re.compile(r"\b(?:not sure|wondering)\b", re.I)
# still weighing it: "I'm thinking of going with quartz", "trying to decide between a tour or going alone"
UNDECIDED = re.compile(r"\b(?:thinking (?:of|about)|considering|might|maybe|torn between)\s+(?:\w+\s+){0,2}"
                       r"(?:going with|switching|moving|migrating)\b|"
                       r"\b(?:trying to decide|decide between|deciding (?:between|whether))\b", re.I)


def decision_kind(sentence: str) -> str | None:
    """"decided" for a choice the user made (with its reason or not), "stated" for a statement that gives
    its reason without a choice ("…, because the gears were getting stuck"), None when neither or still
    weighing it ("I'm thinking of going with the black dress")."""
    found = {m.group(0).lower() for m in DECISION.finditer(sentence)}
    if not found:
        return None
    if all(REASON_ONLY.fullmatch(word) for word in found):
        return "stated"
    weighed = all(REASON_ONLY.fullmatch(word) or _WEIGHED.fullmatch(word) or _OPEN.match(word) for word in found)
    unsure = any(_OPEN.match(word) for word in found) and _UNSURE.search(sentence)
    return None if weighed and (UNDECIDED.search(sentence) or unsure) else "decided"
# what an agent offers in a conversation, as the user names it when they pick or like one ("the Quinoa salad
# idea", "the Classic and Simple style", "those tips"): the Observer's REACTION and the Reflector's REPLY_TO_OFFER
OFFERED = (r"(?:ideas?|suggestions?|options?|ones?|tips|lists?|plans?|approach(?:es)?|styles?|aspects?|features?|"
           r"sound|look|mix|templates?|outlines?|drafts?|examples?|samples?|formats?|itinerar(?:y|ies)|routines?|"
           r"recipes?)")
# a reaction to what the agent offered: "I like the idea of a fruit tart", "I love those ideas", "I like the
# exercises you suggested"; the liking is of this answer, not a standing taste
REACTION = re.compile(
    r"\bi (?:\w+ )?(?:like|love|liked|loved) (?:(?:the|your|this|that|these|those) (?:\w+ ){0,3}"
    rf"{OFFERED}\b|(?:this|that|these|those|it|them)\b|how you|what you|"
    r"the (?:\w+ ){1,4}you(?:'ve| have)? (?:suggested|provided|mentioned|recommended|listed|shared|gave))",
    re.IGNORECASE)
# the same reaction opening the sentence, its object a pronoun ("I like its sleek design", "I like how it includes
# range maps", "I love how they go with my jeans"): of the thing just offered, and out of the chat it names nothing
# ("I've had gochujang before, and I love its sweet and spicy flavor" names what it likes)
PRONOUN_REACTION = re.compile(r"^(?:\w+,\s*)?i (?:\w+ )?(?:like|love|liked|loved|enjoy|appreciate) "
                              r"(?:its|their|how (?:it|they|this|that)|the way (?:it|they))\b", re.I)
# the liking qualifies a thing, it states no taste: "if I find a design I like", "to see which one I like better",
# "not working as well as I'd like" ("Architectural Digest, which I love for its inspiration" is one)
_QUALIFIED = re.compile(r"(?:\b(?:which|what|whatever) ones?|\bas (?:\w+ )?as|\bthan|\b(?:find|found|get|got|"
                        r"see|saw|pick|choose|chose|have) (?:a|an|the|any|some) (?:\w+ ){0,2}\w+)\s+$", re.I)


def _likings(sentence: str) -> bool:
    """A liking said of the user's own taste: a PREFERENCE cue that does not qualify a thing (`_QUALIFIED`)."""
    return any(not _QUALIFIED.search(sentence[:m.start()]) for m in PREFERENCE.finditer(sentence))


# "I'd like to plan 5 dinners", "I'd like some recommendations": what the user wants from this conversation
WANT_NOW = re.compile(r"\bi(?: would|'d) (?:really )?(?:like|want|love) (?:to \w+|some|a |an |more|help)\b", re.I)
_PREFER = re.compile(r"\b(?:i (?:\w+ )?prefer|i'?d prefer|i would prefer|i'?d rather|i would rather|my preference)\b",
                     re.I)
# "I'd rather not talk about the book right now": a wish for this moment
_THIS_TIME = re.compile(rf"\b(?:{shape.FOR_THE_MOMENT}|tonight)\b", re.I)
STANDING_WANT = re.compile(r"\b(?:always|never|every time|whenever|from now on|in general|by default|usually)\b", re.I)


def states_preference(sentence: str) -> bool:
    """A taste or a way the user wants things done ("I prefer weighted keys", "I'd rather use pnpm", "I like
    hotels with a rooftop pool"), not a reaction to the agent's offer (`REACTION`), a wish for this moment
    ("I'd rather not talk about the book right now") nor a want for the task at hand ("I'd like to budget for
    groceries this week"; `WANT_NOW`) unless it says it holds beyond it."""
    reaction = REACTION.search(sentence) or PRONOUN_REACTION.match(sentence.strip())
    if not _likings(sentence) or reaction or _THIS_TIME.search(sentence):
        return False
    return not WANT_NOW.search(sentence) or bool(STANDING_WANT.search(sentence) or _PREFER.search(sentence))


# what the user states about their setup: services, versions, hosts, environments, conventions, history
USER_CONTEXT = re.compile(
    r"\b(?:context(?: for (?:today|this))?:|runs? (?:on|at|every)|listens on|(?:is|are) (?:called|named)|"
    r"(?:is|are) (?:hosted|deployed) (?:on|in|at)|lives (?:in|at)|(?:go|goes|belongs?) (?:in|into|under) [^.;]{1,60}, not|"
    r"every (?:night|day|morning|evening|hour|week|month)|"
    r"(?:is|are) at|we use|we keep|we run|we(?:'re| are) on|(?:this|the|our) (?:repo|project|service|team|app) "
    r"uses|"
    # "projects use uv", "I use it to play music": not "I'll use", "to use", "the use of", "can use"
    r"\b(?!(?:ll|d|to|the|can|could|would|will|should|might|may|and|or|also|just|not|of|you|please|then|always|"
    r"never|often|sometimes|usually|rarely)\b)\w+ use \w+|"
    r"our (?:[\w\-]+ ){0,3}(?:is|are)|is gone|is the new|we tried|tried .{0,60}"
    r"(?:abandoned|gave up|dropped|reverted)|gave up on|abandoned)\b",
    re.IGNORECASE,
)
# "where those modules should go": a question inside a request, not a design statement
# ("which is a misnomer, should be …" is a relative clause, not a question)
EMBEDDED_QUESTION = re.compile(r"\b(?:where|what|how|which(?! (?:is|are|was|were)\b)|whether)\b[^.;]{0,60}\bshould\b",
                               re.IGNORECASE)
# a request: the current task, not a fact ("Please add …", "Can you …", "Run the tests.")
REQUEST = re.compile(
    r"^(?:(?:please|pls|now|also|and|then|ok(?:ay)?|so),? )*(?:can you|could you|would you|will you|add|fix|run|"
    r"update|put|write|make|commit|read|check|implement|create|remove|show|look|go|do|try|test|propose|tell|"
    r"explain|find|help|give|continue|start|change|move|rename|delete|refactor|debug)\b",
    re.IGNORECASE,
)
ASSISTANT_DECISION = re.compile(
    r"\b(?:decided|let'?s go with|we'?ll go with|chose|opted for|instead of|instead$)\b", re.IGNORECASE
)
INSTEAD_OF = re.compile(r"\binstead(?: of)?\b", re.IGNORECASE)
# a measured result ("now finishes in 40 seconds instead of 12 minutes"): this session's outcome
# a change log line the agent writes ("Removed 7 hide methods…", "Minor cleanup (removed a cast since …)"):
# the narrative's, not a fact (issue 26), whatever reason it gives
CHANGE_LOG = re.compile(r"^(?:minor |small )?(?:cleanup|clean-up|(?:removed|added|replaced|moved|renamed|updated|"
                        r"extracted|deleted|refactored|cleaned up|simplified|tidied)\b|"
                        # "Fixed X to use Y", "Changed the tests to pass …": what was edited ("Fixed it by …" is a fix)
                        r"(?:fixed|changed|converted)\b(?!.{0,80}\bby\b))", re.IGNORECASE)
# how the code behaves or where its settings come from: "falls back to the old flow when …",
# "the port now comes from the ORDERS_API_PORT environment variable"
BEHAVIOUR = re.compile(r"\b(?:falls? back to|defaults? to|comes? from|(?:is|are) (?:read|taken|loaded) from|"
                       r"(?:is|are) required (?:for|by)|returns? (?:an? )?[\w.\-]+ (?:when|if|whenever))\b",
                       re.IGNORECASE)
# "Okay, I switched …": an acknowledgement before what the agent did, not a bare one
ACK_LEAD = re.compile(r"^(?:ok(?:ay)?|alright|great|good|perfect|right|sure|understood|got it),\s+(?=\S)", re.IGNORECASE)
RESULT = re.compile(r"\bnow (?:\w+ ){0,3}(?:in|at|takes|finishes|runs)\b.*\d", re.IGNORECASE)
# an agent's claim that code always or never does something: context for the session, not a decision
INVARIANT = re.compile(r"\b(?:always|never)\b", re.IGNORECASE)
# a statement with its reason: "X is unused because the code still uses the full paths"
# ("The CDN caches the 404 for an hour, which is why the fix didn't show up": a mechanism and what it causes; a ", so"
# reads as often as advice, "Pothos loves bright light, so place it near a window", and is left out)
REASON = re.compile(r"\b(?:because|since|which means|which is why|due to|so that|bypass(?:es)?)\b", re.IGNORECASE)
# the claim of a reason sentence: what comes before its "because" (a reason may name a passing state)
CLAIM = re.compile(r"^(.*?)(?:\b(?:because|since|which means|which is why|due to|so that)\b|,\s*so\b)", re.IGNORECASE)
# how code or a tool behaves, said of work on software: "Vite only exposes variables prefixed with VITE_ …", "Node's
# fetch doesn't send cookies across origins by default", "The ORM opens a new connection per request unless …" (in a
# chat, "by default" and "unless" are how advice reads)
# ("Webpack 5 no longer polyfills Node core modules", "pytest-xdist doesn't share session fixtures between workers",
# not the agent's own "I can't find …" nor "it doesn't support": of what it was looking at; "Stripe rejects a refund
# larger than the original charge", "Postgres truncates identifiers …", not "Doing 3 rounds …"; in a chat, "by
# default", "unless" and "doesn't support" are how advice and what the agent knows read)
CODE_BEHAVIOUR = re.compile(
    r"\bby default\b|\bunless\b|\bonly (?:exposes|accepts|reads|loads|sends|supports|allows|matches|applies|runs|"
    r"returns|includes|handles|checks|watches|caches|resolves|retries)\b|\bno longer [a-z]+s\b|"
    r"(?<!\bi )(?<!\bwe )(?<!\byou )(?<!\bit )(?<!\bthey )(?:doesn'?t|does not|won'?t|can'?t|cannot) (?:share|support|"
    r"polyfill|preserve|persist|resolve|expand|follow|reload|handle|inherit|propagate)\b|"
    r"^(?!(?:the|a|an|this|that|these|those|it|we|you|they|there|here|i)\b)(?!\w+ing\b)"
    r"(?-i:[A-Z][\w.\-]*)(?: (?-i:[A-Z][\w.\-]*)){0,2} (?:silently |always |only )?"
    r"(?:rejects|refuses|ignores|truncates|strips|rounds|caps|throttles|rate-limits|lowercases|normali[sz]es|escapes|"
    r"dedupes|deduplicates|reorders)\b", re.IGNORECASE)
NOW = re.compile(r"\bnow\b", re.IGNORECASE)
ONLY_LEAD = re.compile(r"^only\s+[a-z]+s\b", re.IGNORECASE)  # a list item: "Only watches the active custom theme"
# who a claim is about: the agent or the person it talks to tell what they did or will do, not how the code behaves
# ("we" is as often the project: "We store the token in Redis, so …")
PERSON_CLAIM = re.compile(r"^(?:(?:ok(?:ay)?|so|now),?\s+)?(?:i|you)(?:'\w+)?\b", re.IGNORECASE)
# "the guard can never be false": a claim about the code, not a plan ("can" is no future there)
CAN_NEVER = re.compile(r"\bcan(?:not)? (?=never\b|always\b)", re.IGNORECASE)
# a user's design statement: how something should be, or what to use instead
USER_DESIGN = re.compile(r"\b(?:should (?:be|have|go|live|use)|instead of|i would assume)\b", re.IGNORECASE)
# what comes before any edit, as the user orders the work: "let's think first, before we change anything", "before you
# touch anything, run the suite" (of work on software; "before we go" is no edit)
BEFORE_ANY_EDIT = re.compile(r"\bbefore (?:we|you|i|anyone) (?:change|edit|touch|modify|rewrite|refactor|implement|"
                             r"write|commit|push)\w* anything\b|\bbefore (?:changing|editing|touching|modifying|"
                             r"rewriting|refactoring|writing) anything\b", re.IGNORECASE)
# a property the design holds, as the user states it of the code: "the session entry array is append only", "the
# only requirement is a SKILL.md file", "skills are freeform" (asked of work on software: "my mom relies on me" is
# a chat's)
DESIGN_PROPERTY = re.compile(r"\b(?:append[- ]only|read[- ]only|write[- ]once|immutable|idempotent|stateless|"
                             r"thread[- ]safe|source of truth|the only requirement|(?:is|are) (?:required|optional|"
                             r"freeform)|relies on|depends on)\b", re.IGNORECASE)
# a progress bullet led by a task or work-package id: "PROJ-12 — Upgraded the renderer", "WP3: done"
TASK_STATUS = re.compile(r"^[\w.\-]*\d[\w.\-]*\s*(?:[—–:]|-\s)")
# opens by pointing at something said before: "It uses …", "That's fine since …", "Now X is unused" ("it turns out X"
# points at nothing: its "it" is the finding's own)
DEICTIC = re.compile(r"^(?:(?:but|and|so|also),? )?(?:that|this|it(?! turn(?:s|ed) out\b)|they|these|those|here|there|now)\b",
                     re.IGNORECASE)
MAPPING = re.compile(r"^\S.{0,120}?\s(?:->|→|=>)\s\S")
# a line the user quotes and turns down at its end: "… → make a custom tool nahhh", "… -> Y? nope", "… => X ???"
TURNED_DOWN = re.compile(r"(?:\bna+h+|\bnope|\bmeh|\bno+|\bwrong|\?{2,}|\bwtf)\W*$", re.IGNORECASE)
ROOT_CAUSE = re.compile(
    r"\b(?:root cause|the (?:problem|issue|bug) (?:was|is)|caused by|fixed by|the fix (?:is|was)|"
    r"fix(?:ed)? (?:it|this) by|the culprit|turns out|"
    # "The 502s came from the load balancer's idle timeout" (not "entries that came from a SessionManager", "the region
    # your ancestors came from")
    r"^[^,;]{1,50}?(?<!that )(?<!which )(?<!who )\bcame from|(?:was|were) coming from|"
    # "The flaky test depended on dict ordering; sorting the keys fixed it" (not "I fixed it": a change told)
    r"(?<!\bi )(?<!\bwe )fixe[sd] (?:it|this|the (?:bug|issue|problem|test))\b(?! by))\b",
    re.IGNORECASE,
)
# a change to the environment (not a code change log: removed, replaced, moved and renamed stay narrative)
# "the installed version", "Installed copy (`~/bin/x`)": which copy is meant, not a change made
STATE_CHANGE = re.compile(
    r"\b(?:installed(?!\s+(?:version|copy|script|package|binary|file|location|path|one)s?\b)|uninstalled|migrated|"
    r"upgraded|downgraded|switched|reconfigured|deprecated)\b", re.IGNORECASE
)
FAILURE = re.compile(
    r"\b(?:didn'?t work|did not work|doesn'?t work|does not work|failed|failing|still broken|not working)\b|error:",
    re.IGNORECASE,
)
ABANDONED = re.compile(
    r"\b(?:instead|switched|gave up|giving up|abandon\w*|revert\w*|rolled back|dropped|went with|"
    r"so we|so i|rather than|won'?t work|doesn'?t work for)\b",
    re.IGNORECASE,
)
ERROR_LINE = re.compile(r"^[\w.]*(?:error|exception|warning|traceback)\b\s*[:(]", re.IGNORECASE)
GREETING = re.compile(
    r"^(?:hi|hey|hello|good (?:morning|afternoon|evening)|thanks|thank you|bye|cheers|welcome back)\b", re.I
)
# first-person running commentary: what the agent is doing or about to do, not what it found
COMMENTARY = re.compile(
    r"^(?:(?:now|ok(?:ay)?|great|good|perfect|alright|so|first|next|then),? )*(?:let me|let's|i'll|i will|"
    r"i'm going to|i need to|i should|i can|i see|i notice|i think|i want to|i have to|now i)\b|"
    r"\b(?:i'm|i am|i'll|i will|i need|let me|i can see|i see)\b",
    re.IGNORECASE,
)
# the user naming a rule of the code: "… doesn't adhere to the invariant that every line … must not be wider than …"
NAMED_RULE = re.compile(r"\b(?:invariant|contract|guarantee|convention|the rule) (?:is )?that\b", re.IGNORECASE)
# a list item whose subject is its heading: "Uses `Text` and `Spacer` components instead of raw strings"
# ("Warns explicitly when …", "Attempts to export …": any verb of its kind before what it does; "Tests run in parallel"
# opens with a plural noun, its verb next)
ELIDED_SUBJECT = re.compile(r"^(?:Uses|Returns|Calls|Takes|Adds|Removes|Renders|Shows|Creates|Handles|Has|Keeps|"
                            r"Makes|Sets|Gets|Reads|Writes|Runs|Loads|Stores|Sends|Wraps|Accepts|Exposes|Emits|"
                            r"Supports|Provides|Contains|Includes|Applies|Passes|Checks)\s|"
                            r"^(?-i:[A-Z][a-z]+[^s\W]s) (?:to \w|(?:the|a|an|its|their|each|every|all|any|no) |"
                            r"`|\w+ly\b|(?:when|if|whenever|once|only|back|out|up|over)\b)")
# "The problem is at line 543: …": placed by a line number, it is about that day's file (the next edit moves it);
# "looking at the screenshot again, the issue is …": what that moment's screen showed
MOMENT_REF = re.compile(r"^lines? \d+\b|\b(?:at|on|in) lines? \d+\b|\blines? \d+(?:\s*[-–]\s*\d+)?:|\bscreenshots?\b", re.IGNORECASE)
# a cause the user found, in work on software: "The bug was that the cache key ignored the tenant id" (not placed
# by a line or a screenshot: MOMENT_REF)
# ("Last month the culprit was the proxy …", "Setting the timeout higher just hides the problem, the real issue is …")
CAUSE_FOUND = re.compile(r"^(?:[^,;]{0,80}[,;]\s*)?(?:(?:so|ok(?:ay)?|turns out|last (?:week|month|year|time)|earlier|"
                         r"previously|before),?\s+)?(?:the\s+)?(?:(?:real|actual|underlying)\s+)?"
                         r"(?:root cause|bug|issue|problem|culprit)"
                         r"(?:\s+(?:in|with|of|behind)\s+[^,;:]{1,40}?)?\s+(?:is|was)\s+(?:that\s+)?"
                         r"(?!(?:at|on|in|here|there|this|that|it|not)\b)\w", re.IGNORECASE)
# the user's own next step: "let me try the light theme real quick, then …" (a decision reads "let's go with"; "I'm
# going to Japan in April" is a plan of theirs that a chat keeps)
OWN_ACTION = re.compile(r"^let me\b(?! know\b)", re.IGNORECASE)
# a state of the moment, the claim of "The build is failing because …"
STATUS_NOW = re.compile(r"\b(?:is|are) (?:failing|broken|passing|running|hanging|crashing)\b", re.IGNORECASE)
# dead code as the agent finds it ("`toolText` is defined but never used!"), which the session then wires up: a
# state of the moment, unless its consequence is said ("never called for that branch, which means …")
UNUSED = re.compile(r"\bnever used\b", re.IGNORECASE)
# a guess, not a finding: "I bet VS Code is detecting a light theme", "it might be loading the light theme, which
# would explain …" (a diagnosis the user may reject next turn; what was found is said without a hedge)
HEDGE = re.compile(r"\b(?:i bet|i suspect|my guess|maybe|perhaps|possibly|probably|presumably|"
                   r"would explain)\b", re.IGNORECASE)
# a wish for the person, not what is so: "I hope your movie night turns out to be a success", "good luck with the move"
WISH = re.compile(r"\b(?:i|we) (?:\w+ )?(?:hope|wish)\b|\bhope (?:you|your|that|this|it)\b|\b(?:good|best of) luck\b",
                  re.IGNORECASE)
# "might" guesses too, unless the sentence states a cause found ("The root cause was that `session` might be None
# when the cache is cold": how the code can behave)
MIGHT = re.compile(r"\bmight\b", re.IGNORECASE)
# the user turning down the agent's diagnosis: "no, that's not it", "that's not the problem" (a bare "wrong, we use
# pnpm" corrects what the agent did, not what it found)
REJECTS_DIAGNOSIS = re.compile(r"^\W*(?:(?:no|nope)\b[\s,.!]*)?(?:that'?s|that is|it'?s|it is) not (?:it|the (?:issue|problem|"
                               r"cause|reason|bug))\b", re.IGNORECASE)
FUTURE = re.compile(r"\b(?:needs? to|to be|will|should|would|could|can|must|going to|let me|i'll|plan)\b", re.I)
_CUE_WORDS = frozenset("issue problem bug fix fixed root cause culprit turns decided chose opted".split())


def is_self_contained(sentence: str) -> bool:
    """Names what it is about: a path or code name, or at least three content words besides the cue."""
    if DEICTIC.match(sentence.strip()):
        return False
    return bool(CODE_IN_PROSE.search(sentence)) or len(content_words(sentence) - _CUE_WORDS) >= 3


def is_request(sentence: str) -> bool:
    return bool(REQUEST.match(FILLER.sub("", sentence).strip()))


def is_question(sentence: str) -> bool:
    """Ends with a question mark, not counting a closing aside: "a -> utils (possibly others?)" is no question."""
    return re.sub(r"\s*\([^()]*\)$", "", sentence.rstrip()).rstrip(" \"'”)").endswith("?")
