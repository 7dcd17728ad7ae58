"""Rules of the offline Reflector: which facts matter, where they go, what is related or resolved."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory_pipeline.stages.alternatives import states_use
from memory_pipeline.stages.offline import distil as shape
from memory_pipeline.stages.offline import observer_standing as standing
from memory_pipeline.stages.offline.observer_cues import (
    BEFORE_ANY_EDIT,
    DENIED,
    OFFERED,
    decision_kind,
    states_preference,
)
from memory_pipeline.stages.offline.observer_rules import ASIDE, CODE_IN_PROSE

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
CORRECTED = re.compile(r"^(?:the\s+)?user\s+corrected the agent\s*:", re.IGNORECASE)
_LETS = re.compile(r"^let'?s\s+(?=\w)", re.IGNORECASE)
FINDING = "Finding: "  # what the agent named a finding ("Key finding: X"), as the Observer writes it
_OUTER_QUOTES = re.compile(r'^["“](?P<inner>.+)["”]\.?$')
_ABOUT = re.compile(r'^"(?P<said>.+)"\s*\(about: "(?P<topic>.+)"\)\.?$')
_CORRECTION_LEAD = re.compile(r"^(?:no+|nope|actually)\s*[,.!:;—-]\s*", re.IGNORECASE)
# "This is not how it works. The session entry array is append only": the correction is the sentence after it
_REJECTION_LEAD = re.compile(rf"^(?:(?:no+|nope)[,.!]?\s+)?{DENIED}[^.!?]{{0,40}}[.!?]+\s+(?=\S)", re.IGNORECASE)
_ROUTINE = re.compile(r"^(?:modified|edited|read|ran|opened|viewed|listed|pushed|committed|created branch)\b", re.IGNORECASE)

HARD_RULE = re.compile(r"\b(?:always|never|must(?:n't| not)?|no exceptions|from now on|do not|don't|forbidden|"
                       r"required|only ever)\b", re.IGNORECASE)
PREFERENCE = re.compile(r"\b(?:i prefer|prefers?|i'd rather|i would rather|rather have|i like|likes|"
                        r"i(?: would|'d) (?:only |rather )?(?:want|like|prefer)|my preference)\b", re.IGNORECASE)
PATTERN = re.compile(r"\b(?:root cause|the (?:issue|problem|bug|culprit|pattern) (?:is|was)|caused by|fix(?:ed|es)?|"
                     r"works?|worked|failed approach|gotcha|trap|workaround|"
                     r"instead|because|switched|passes|pass|solved|resolved|lesson|corrected|turned out)\b",
                     re.IGNORECASE)
ARCHITECTURE = re.compile(r"\b(?:runs? (?:on|in)|listens|port|version|installed|upgraded|migrated|configured|"
                          r"config|service|database|redis|postgres|docker|cluster|uses|is stored|lives in|"
                          r"deployed|endpoint|schema|previously)\b|→|/[\w.\-]+/", re.IGNORECASE)
PROBLEM = re.compile(r"\b(?:fails?|failing|error|errors|broken|red|exception|too many|timeouts?|not found|crash(?:es|ed)?|"
                     r"keeps throwing|throws|flaky|stuck)\b", re.IGNORECASE)
RESOLUTION = re.compile(r"\b(?:root cause|the fix|fixed|fixes|resolved|solved|now pass(?:es)?|passes|switched to|"
                        r"works now|pushed .*fix)\b", re.IGNORECASE)
STATUS = re.compile(r"\b(?:(?:all )?\d* ?(?:tests?|checks?) (?:now )?pass\w*|all (?:clean|done|committed)|"
                    r"(?:is|are|was|were) (?:done|clean|completed|committed|pushed)|compiles? clean|"
                    r"we(?:'ve| have)? completed)\b", re.IGNORECASE)
ERROR_LINE = re.compile(r"^[\w.]*(?:error|exception|traceback|warning)\b\s*[:(]", re.IGNORECASE)
# "No, …", "Yes." open an answer to what came before; "No console logs!" is a rule ("no" before a noun)
DEICTIC = re.compile(r"^(?:(?:but|and|so|also|then),? )?(?:(?:that|this|it|they|these|those|here|there|now)\b|"
                     r"(?:no|yes|ok|okay)\b(?=\s*(?:[,.!;:—-]|$)))", re.IGNORECASE)
TASK_STATUS = re.compile(r"^[\w.\-]*\d[\w.\-]*\s*(?:[—–:]|-\s)")
# a request for this session's work ("Propose where …", "Read X in full"), not a standing rule
REQUEST = re.compile(r"^(?:please |can you |could you )?(?:propose|read|check|create|add|remove|move|run|make|start|"
                     r"continue|commit|tell|suggest|look|fix|implement|update|write|show|give|copy|revert|split|"
                     r"locations?|go|do)\b", re.IGNORECASE)
# "I'm looking for some recipe ideas", "I was wondering if you could …", "I need some suggestions": the user asks
# for help with that conversation's task in the first person (the chat's "can you …")
ASKS_FOR_HELP = re.compile(r"\b(?:i'?m (?:\w+ )?(?:looking for|trying to find|searching for|hoping to find)\b|"
                           r"i (?:was|am|'m) (?:\w+ )?wondering (?:if|whether) you|"
                           r"\bneed (?:some |a few |more )?(?:new |good )?(?:\w+ )?(?:ideas|suggestions|recommendations|tips|advice)\b)",
                           re.IGNORECASE)
# "I'm thinking of visiting the outer market instead", "I hope they come soon", "I've been meaning to organize my tea
# cabinet", "I think I'll start with the libraries you mentioned": the user's hope, plan or second thought of that
# moment, not something that stays true of them or the work (a decision says "we'll go with", a rule "from now on";
# a team's plan, "we're planning to drop the v1 API in March", is the project's roadmap)
PASSING_THOUGHT = re.compile(
    r"^(?:[\w' ]{1,25},\s*)?(?:(?:i|we)(?:'m|'re| am| are| was| were|'ve been| have been)\s+"
    r"(?:(?:just|really|also|actually|so|still|now|kind of|sort of|seriously)\s+)?"
    r"(?:hoping\b|looking forward\b|meaning to\b|thinking(?: of| about|,)|considering\b|leaning (?:towards?|toward)\b|"
    r"not opposed to\b|excited (?:to|about)\b|tempted to\b)|"
    r"i(?:'m| am| was|'ve been| have been)\s+(?:(?:just|really|also|actually|now)\s+)?planning\b|"
    r"i (?:hope|guess|plan to|might|may)\b|i think (?:i|we)'?ll\b(?! (?:go|stick) with\b)|"
    r"(?:maybe|perhaps) (?:i|we) (?:should|could|will)\b)",
    re.IGNORECASE)
STRUCTURE = re.compile(r"\b(?:moved|renamed|lives in|live in|installed|upgraded|migrated|layout|structure)\b|->|→",
                       re.IGNORECASE)
MIN_WORDS = 6
RESTATED_SHARE = 0.75  # a merged line's part that has this share of its words in another part says it again
# what makes a line with "tests pass" in it more than a status: the fix or the cause it reports
LESSON = re.compile(r"\b(?:root cause|the fix|fixed by|because|instead|caused by|the (?:issue|problem) (?:is|was)|"
                    r"switched to|points? at|now (?:uses|reads|runs))\b", re.IGNORECASE)
MIN_AGENT_WORDS = 8  # an agent's line without a code name needs room for a subject, a verb and what it is about
# "We removed ~290 lines …", "I fixed the import": a report of the session's work, unless it gives a reason
REPORT = re.compile(r"^(?:we|i)(?:'ve| have)?\s+\w+ed\b", re.IGNORECASE)
# "Removed the truncation, added a default": a change report; it helps later only when it names the code
CHANGE_REPORT = re.compile(r"^(?:removed|added|replaced|moved|renamed|extracted|updated|changed|refactored|created|"
                           r"deleted|cleaned)\b", re.IGNORECASE)
# "`config.ts` moved to `src/`, all imports updated", "The alias was removed since …", "Replaced ~20
# instances of …": what the session changed, kept by its narrative; the agent's, not a standing fact
CHANGE_VERB = (r"(?:removed|added|replaced|moved|renamed|extracted|updated|changed|refactored|created|deleted|"
               r"cleaned|split|merged|converted|rewr(?:ote|itten)|inlined|simplified|introduced|wired|dropped)")
CHANGE_LOG = re.compile(rf"^{CHANGE_VERB}\b|\b(?:was|were|has been|have been|got|is now|are now)\s+(?:\w+ly\s+)?"
                        rf"{CHANGE_VERB}\b|^[^,;:.]{{0,60}}?\s{CHANGE_VERB}\s+(?:to|from|into|with|in)\b|"
                        rf"\ball\s+[\w-]+\s+{CHANGE_VERB}\b", re.IGNORECASE)
REASON = re.compile(r"\b(?:because|since|so that|due to|which means)\b", re.IGNORECASE)
# points at something only the session shows: "for that branch", "this file"; or note shorthand ("a + b")
POINTER = re.compile(r"\b(?:that|this|these|those) (?:branch|file|function|method|test|error|issue|one|case|change|"
                     r"approach|code|line|call|thing|stuff)s?\b|\s\+\s", re.IGNORECASE)
# what the agent said in that conversation: "You mentioned that I should use hashtags", "the cache you suggested"
AGENT_SAID = re.compile(r"\b(?:you|you'?ve|you have)\s+(?:just\s+)?(?:mentioned|suggested|said|recommended|listed|"
                        r"provided|shared|gave|showed|proposed|described)\b", re.IGNORECASE)
# In a conversation about the user's life (`is_chat`): the user choosing among what the agent offered ("I like the
# Quinoa and Black Bean Salad idea", "I like the Classic and Simple style") or answering its question ("As for the
# trip length, I'd say around 7-10 days"): a reply in that conversation, which says nothing without it
REPLY_TO_OFFER = re.compile(
    r"^(?:[\w' ]{1,25},\s*)?(?:i (?:really |also |actually |definitely )?(?:like|love|liked|loved|prefer|'d prefer)\s+"
    rf"(?:the|that|this|those|these|your)\s+(?:[\w'&-]+\s+){{0,6}}?{OFFERED}\b|as (?:for|to) (?:the|my|your)\b)",
    re.IGNORECASE)
# "I use it to play music", "I lent them to her because …", "I'd prefer if they gave me the option …": the thing or
# the people spoken of are named only before that line ("I found it hard to understand…", "I love it when…": an "it"
# that stands for what follows names nothing before)
UNNAMED_OBJECT = re.compile(r"^(?:[\w' ]{1,25},\s*)?(?:(?:i|we)\s+(?:(?:also|still|just|usually|often|really|even|already|"
                            r"actually|only|always)\s+)?[a-z]+(?:ed)?\s+(?:it|them)\s+(?!when\b|if\b|that\b|\w+\s+to\b)|"
                            r"(?:i|we)(?:'d|\s+would)?\s+(?:prefer|like|love|hate|want)\s+(?:it\s+)?(?:if|when)\s+they\b)",
                            re.IGNORECASE)
# the user or the user's people, by the first person: a chat's line without one is about neither them nor the work
FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|we'll|us|our|ours)\b",
                          re.IGNORECASE)
# a line that opens by describing ("Many teachers felt …", "Every day there is …", "Feeling a bit stuck …"), not with
# an order ("Wrap every migration in a transaction": a rule needs no first person)
DESCRIBES = re.compile(r"^(?:the|a|an|many|most|some|every|each|all|sometimes|often|there|not|\w+ing)\b", re.IGNORECASE)
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
    correction: bool = False  # the user corrected the agent: what to do, even when worded as a request
    finding: bool = False  # the agent named it a finding: not vague, though short
    outcome: str = ""  # how its segment ended, as the Observer's narrative says ("The fix is complete.")
    chat: bool = False  # its observation names no code (`is_chat`): a conversation, not work on software
    section: str = "Patterns"
    refs: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 2}


def specifics(text: str) -> set[str]:
    """Paths, backticked names, numbers and calls: the details worth keeping (a path that ends a sentence without
    its full stop: "… in docs/openapi.yaml." names `docs/openapi.yaml`)."""
    return {s.strip("`").rstrip(".").lower() for s in _SPECIFIC.findall(text)}


def overlap(a: str, b: str) -> float:
    left, right = words(a), words(b)
    return len(left & right) / len(left | right) if left and right else 0.0


def clean_fact(text: str) -> tuple[str, bool]:
    """Drop the 'User stated:' frame and outer quotes; True when the words are the user's own."""
    text = " ".join(text.split()).removeprefix(FINDING)
    again = bool(shape.ASKED_AGAIN.match(text))
    framed = bool(_SPEAKER.match(text)) or again or text.startswith('User answered "')
    corrected = bool(CORRECTED.match(text))
    if text.startswith('User answered "') or _ABOUT.match(_SPEAKER.sub("", text)) or again:
        text = shape.statement(text)  # the answer first, then what it answers or is about
    text = _SPEAKER.sub("", text)
    quoted = _OUTER_QUOTES.match(text)
    if quoted:
        text = quoted.group("inner").strip()
    if corrected:
        text = _REJECTION_LEAD.sub("", text)
    rule = _CORRECTION_LEAD.sub("", text)
    if (framed or quoted) and rule != text and (HARD_RULE.search(rule) or corrected):
        text = rule  # "No, don't use pip here. This repo uses uv…": the rule without the "no" it answered with
    if framed or quoted:
        text = shape.without_please(text)
        if BEFORE_ANY_EDIT.search(text):
            text = _LETS.sub("", text)  # "let's think first, before we change anything": the order, as a rule
    text = shape.as_cause(text)
    text = text[:1].upper() + text[1:]
    if text and text[-1] not in ".!?":
        text += "."
    return text, framed or bool(quoted) or bool(INSTRUCTION.search(text))


def cut_off(text: str) -> bool:
    """A piece of a sentence cut at a stop inside brackets or quotes: "(Note: Please respond as the
    assistant." (its ")" went with the next piece), 'Segmentation" and considering the feedback…'."""
    return text.count("(") > text.count(")") or len(re.findall(r'(?<!\d)"', text)) % 2 == 1  # 24" is inches


def is_routine(text: str) -> bool:
    """'Modified x', 'Ran y': the observer's record of activity, not memory."""
    return bool(_ROUTINE.match(text))


def rejection(item: Item) -> str | None:
    """Why a fact cannot become a MEMORY.md line, or None when it can."""
    text = item.text
    again = bool(shape.ASKED_MARK.search(text))  # asked in several turns: how the user wants the work done
    if item.priority != "high" and not text.lower().startswith("failed approach"):
        return "not a high-priority fact"
    if text.startswith(shape.FOLLOW_UP):
        return "an open item (the pack's open commitments keep it, with its age)"
    if (is_routine(text) and not (item.correction or again)) or TASK_STATUS.match(text):
        return "activity or task status"
    if STATUS.search(ASIDE.sub("", text)) and not LESSON.search(text):
        return "status line"  # a status given as the reason in brackets ("fix them (main was clean)") is no status line
    if ERROR_LINE.match(text) or text.rstrip(".").endswith("?"):
        return "error line or question"
    main_clause = ASIDE.sub("", text).split()
    clipped = text.rstrip(".").endswith("…") or cut_off(text)
    shortest = 3 if item.correction and shape.is_prohibition(text) else 4  # "No deprecation alias!"
    standing_words = item.quoted and _standing(text, item.chat)  # "It's important that …" points at nothing
    if (DEICTIC.match(text) and not standing_words) or POINTER.search(text) or text.rstrip(".").endswith(":") or \
            clipped or len(main_clause) < shortest:
        return "not self-contained"
    # a rule, or what the setup uses ("Our tests run on Jest.", "We use pnpm now.": stages/alternatives.py)
    stated_rule = item.quoted and (HARD_RULE.search(text) or PREFERENCE.search(text) or item.correction
                                   or states_use(text))
    if len(text.split()) < (shortest if stated_rule else MIN_WORDS if item.quoted or item.finding or "`" in text
                            else MIN_AGENT_WORDS):
        return "too short to stand alone"
    if CHANGE_REPORT.match(text) and "`" not in text and "/" not in text:
        return "a change report that names no code"
    if not item.quoted and CHANGE_LOG.search(text):
        return "a change log of that session (its narrative keeps it)"
    if REPORT.match(text) and not REASON.search(text) and not (item.quoted and STRUCTURE.search(text)):
        return "a report of that session's work"
    ordered = bool(BEFORE_ANY_EDIT.search(text))  # "let's think first, before we change anything": how work goes
    if REQUEST.match(text) and not (HARD_RULE.search(text) or PREFERENCE.search(text) or shape.is_how_to(text)
                                    or item.correction or again or ordered):
        return "a request for that session's work"
    if not item.quoted and (shape.is_plan_step(text) or shape.is_proposed_fix(text) or shape.is_outline_label(text)
                            or shape.is_tool_report(text) or shape.is_own_tool_failure(text)):
        return "a plan step, outline or report of that session"
    if item.quoted and (shape.is_task_request(text) or ASKS_FOR_HELP.search(text)) and not (
            shape.is_stated_rule(text) or again or item.correction or ordered):
        return "a request for that session's work"
    if item.quoted and AGENT_SAID.search(text) and not _given_as_rule(item, again):
        return "not self-contained"
    if item.quoted and PASSING_THOUGHT.match(text) and not (_given_as_rule(item, again) or ordered):
        return "a hope, plan or second thought of that moment"
    if item.quoted and UNNAMED_OBJECT.match(text) and not _given_as_rule(item, again):
        return "not self-contained"
    if item.chat and item.quoted and not _given_as_rule(item, again):
        if REPLY_TO_OFFER.match(text):
            return "a reply to what the agent offered in that conversation"
        if not FIRST_PERSON.search(text) and DESCRIBES.match(text) and not is_notable(text):
            return "a remark of that conversation, about neither you nor the work"
    return None


def _given_as_rule(item: Item, again: bool) -> bool:
    """The user's words given as a rule: a must or never, a stated rule, an instruction asked again, a correction."""
    return bool(HARD_RULE.search(item.text) or shape.is_stated_rule(item.text) or again or item.correction
                or _standing(item.text, item.chat))


def _standing(text: str, chat: bool) -> bool:
    """How the user wants answers to read, or (in work on software) what they said once for every later session
    (stages/offline/observer_standing)."""
    return standing.is_answer_style(text) or (not chat and standing.is_standing_statement(text))


def is_notable(text: str) -> bool:
    return bool(PATTERN.search(text) or ARCHITECTURE.search(text) or HARD_RULE.search(text)
                or PREFERENCE.search(text))


# a code name: CamelCase (AgentSession), a backticked name, a path or a file
_CODE_NAME = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|`[^`]+`|\w/\w|\b[\w-]+\.(?:py|ts|tsx|js|ex|exs|rs|go|rb|java)\b")


def names_project_code(text: str) -> bool:
    """Names something in a project's code: a user's preference about it is that project's, not theirs everywhere."""
    return bool(_CODE_NAME.search(text))


def is_chat(observation: str) -> bool:
    """An observation that names no code anywhere (no backtick, file, `snake_case` name or `--flag`; the
    Observer's `about_code` signs): a conversation about the user's life, not work on software."""
    return not CODE_IN_PROSE.search(observation)


# the user speaking of themselves: "I currently run 3 times a week", "Actually, I remember …", "My friend …"
_OF_THEMSELVES = re.compile(r"^(?:[\w' ]{1,25},\s*)?(?:i\b|i'|my\b)", re.IGNORECASE)


def categorize(text: str, quoted: bool = False, correction: bool = False, chat: bool = False) -> str:
    """The MEMORY.md section: the user's own rules, then preferences, then lessons, then setup. In a
    chat (`is_chat`), what the user says of themselves is about them (User), not a pattern or the setup.

    Only words the user said make a Hard Rule; an agent's "never" describes code, not a rule.
    """
    again = bool(shape.ASKED_MARK.search(text))  # an instruction given in several turns: how work is done here
    text = shape.ASKED_MARK.sub("", text).rstrip()  # the mark's count is no detail of the setup
    if quoted and (((HARD_RULE.search(text) or shape.is_stated_rule(text) or correction or again)
                    and shape.is_rule(text)) or BEFORE_ANY_EDIT.search(text)):
        return "Hard Rules"
    if chat and quoted and _OF_THEMSELVES.match(text):
        return "User"
    if quoted and standing.is_answer_style(text):
        return "User"  # "Please keep your answers short": how they want to be answered, in every project
    if quoted and not chat and standing.says_how_to_work(text):
        return "Hard Rules"  # "When you add a route, also add it to the OpenAPI spec"
    if quoted and not chat and standing.is_lesson(text):
        return "Patterns"  # "We already tried adding more API workers; it made the database contention worse"
    taste = PREFERENCE.search(text) or (quoted and states_preference(text))  # "I love the portability": the Observer's
    if taste and not names_project_code(text) and not shape.ABOUT_THE_WORK.search(text):  # taste, not a pattern
        return "User"
    if PREFERENCE.search(text):
        return "Hard Rules" if quoted else "Patterns"  # "I'd only want e2e tests for AgentSession": this project's
    if not chat and (states_use(text) or standing.describes_setup(text)):
        return "System Architecture"  # "We use pnpm now", "Our tests run on Jest", "The reports job reads from the replica"
    if quoted and not chat and ARCHITECTURE.search(text) and decision_kind(text) == "decided":
        return "System Architecture"  # "Let's go with Postgres 17 for the orders service, because …": the setup chosen
    if PATTERN.search(text) and not STRUCTURE.search(text):
        return "Patterns"
    if STRUCTURE.search(text) or ARCHITECTURE.search(text) or specifics(text):
        return "System Architecture"
    return "Patterns"


def is_problem(text: str) -> bool:
    return bool(PROBLEM.search(text)) and not RESOLUTION.search(text) and "failed approach" not in text.lower()


def resolved(problem: Item, later: list[Item]) -> bool:
    """A problem is resolved by a fix in the same segment (a fact, or how the segment ended: "The fix is
    complete."), or by a later fix about the same thing."""
    if RESOLUTION.search(problem.outcome):
        return True
    for item in later:
        if item is problem or not RESOLUTION.search(item.text):
            continue
        if item.observation == problem.observation and item.segment == problem.segment:
            return True
        about_same = overlap(item.text, problem.text) >= 0.2 or specifics(item.text) & specifics(problem.text)
        if about_same and item.when >= problem.when:
            return True
    return False


# "from Postgres 15 to Postgres 16": the value a later statement replaced
_CHANGED_FROM = re.compile(r"\bfrom (?P<old>[\w.-]+(?: [\w.-]+)?) to (?P<new>[\w.-]+(?: [\w.-]+)?)", re.IGNORECASE)


def superseded(item: Item, later: list[Item]) -> bool:
    """An earlier statement of a value a later one says changed ("runs on Postgres 15" after
    "upgraded from Postgres 15 to Postgres 16")."""
    text = item.text.lower()
    for other in later:
        if other is item or other.when < item.when or not STRUCTURE.search(other.text):
            continue
        for change in _CHANGED_FROM.finditer(other.text):
            old, new = change.group("old").lower(), change.group("new").lower()
            if re.search(rf"(?<![\w.-]){re.escape(old)}(?![\w.-])", text) and new not in text:
                return True
    return False


def _anchors(text: str) -> set[str]:
    """Specifics that name one thing: files and dotted or called names, not bare folders or numbers."""
    return {s for s in specifics(text) if not s.endswith("/") and not s.replace(".", "").isdigit() and len(s) >= 5}


# a cause ("the issue is …", "reason being …", "X bypasses Y") and a fix ("the fix was …", "fixed by …")
CAUSE = re.compile(r"^cause:|\b(?:root cause|the (?:issue|problem|bug|culprit) (?:is|was)|caused by|reason being|because of|"
                   r"bypass(?:es|ed)?|turn(?:s|ed) out)\b", re.IGNORECASE)
FIX = re.compile(r"\b(?:the fix|fixed (?:it |this )?by|fix(?:ed)? (?:it|this)|solved by|resolved by|now (?:walks|uses|"
                 r"reads|resolves|finds|waits|flushes|defers)|instead)\b", re.IGNORECASE)


def is_lesson_pair(a: Item, b: Item) -> bool:
    """A cause and a fix from the same stretch of work (one observation's segment): one lesson."""
    if a.observation != b.observation or a.segment != b.segment or not a.segment:
        return False
    return bool((CAUSE.search(a.text) and FIX.search(b.text)) or (CAUSE.search(b.text) and FIX.search(a.text)))


def related(a: Item, b: Item) -> bool:
    """Same section and about the same thing: a shared file or name, or most words shared; or a cause
    and its fix from the same stretch of work."""
    if is_lesson_pair(a, b):
        return True
    if a.section != b.section:
        return False
    return bool(_anchors(a.text) & _anchors(b.text)) or overlap(a.text, b.text) >= 0.5


def limit_words(text: str, limit: int) -> str:
    tokens = text.split()
    if len(tokens) <= limit:
        return text
    return " ".join(tokens[:limit]).rstrip(",;:") + "…"
