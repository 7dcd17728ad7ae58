"""What a user of a coding agent says once and means for every later session, in the words it is said in
rather than a rule's marks ("always", "never", "from now on"): a step tied to a kind of change ("When you
change the schema, also update the migration docs"), what is important ("It's important that the export
stays backwards compatible"), how answers should read ("Be concise"), a statement over every one of a kind
("Any change to the public API needs a changelog entry", "open a PR for everything", "nobody else writes to
it"), how the project is laid out ("Feature flags live in config/flags.yaml", "The main branch is
protected", "The reports job reads from the replica"), how the team works ("We deploy on Tuesdays and
Thursdays only"), what a kind of thing must be ("Migrations must be reversible") and what a rule's reason
comes before ("I'm the only maintainer, so keep the dependencies minimal").

Pure predicates over one sentence. The Observer asks them only of work on software
(`observer_rules.messages_about_code`), where "the" and "we" are the project's; a sentence about this
moment ("now", "today", "this PR", "before the demo") is this task's, whatever its shape.
"""

from __future__ import annotations

import re

from memory_pipeline.stages.offline.distil import FOR_THE_MOMENT
from memory_pipeline.stages.offline.observer_cues import DEICTIC
from memory_pipeline.stages.offline.observer_rules import CODE_IN_PROSE, content_words

# the project itself, not this task's thing: "This project uses Poetry", "this repo"
_WHOLE = r"(?:project|repo|repository|codebase|code base|team|service|app|package|library|company|org|organi[sz]ation)\b"
_THIS_PROJECT = re.compile(rf"^this {_WHOLE}", re.IGNORECASE)
# this task's moment or its thing: "before the demo", "for now", "this PR", "commit it" ("that file" is
# distil.POINTER's: "that" also opens a clause, "It's important that …")
_MOMENT = re.compile(
    rf"\b(?:{FOR_THE_MOMENT}|now|tonight|tomorrow|yesterday|this (?:week|morning|afternoon|evening)|"
    r"currently|first|next|again|still|asap|yet|before the (?:demo|release|meeting|call|deadline)|"
    r"by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|eod|end of (?:the )?day))\b|"
    rf"\b(?:this|these|those)\b(?!\s+{_WHOLE})|"
    r"\b(?:commit|push|merge|ship|fix|run|test|revert|check) (?:it|them)\b",
    re.IGNORECASE,
)
# what holds until someone changes it, not this task's moment: "The mobile app still calls the v1 API, so we can't
# remove it yet", "We still support IE 11" (not "It still fails", "The test is still red", "still getting a 500":
# a pointer, a state of the run, no verb of what the code or the team does; nor a failure)
_STANDING_STILL = re.compile(
    r"(?<=\w )still (?=(?:calls|reads|writes|uses|use|runs|run|supports?|depends|relies|needs?|serves|sends|talks|"
    r"points|imports|ships|targets?)\b)(?!.*\b(?:fails?|failing|broken|error|red|after your)\b)", re.IGNORECASE)
# "we can't remove it yet": a constraint until later, not this task's moment
_CANT_YET = re.compile(r"\b((?:can'?t|cannot)\b[^.;]{0,40}?)\s+yet\b", re.IGNORECASE)
# the verbs of a kind of change the next clause's step is tied to ("when you change the schema, …")
_CHANGE_VERB = (r"(?:add|chang|touch|modif|creat|bump|releas|deploy|writ|renam|remov|delet|updat|edit|introduc|"
                r"upgrad|install|merg|push|commit|open|mak|drop|refactor|publish|tag)\w*")
# a step tied to every change of a kind: "When you change the schema, also update the migration docs",
# "Whenever you add a dependency, pin the exact version", "If you touch the parser, run the fuzz tests"
_CONDITIONAL = re.compile(
    rf"^(?:and |also )?(?:whenever|every time|each time|any ?time|when|if|once) (?:you|we|someone|anyone|somebody) "
    rf"(?:\w+ )?{_CHANGE_VERB} (?!(?:it|this|that|these|those)\b)[^,;]{{2,80}}[,;]\s*(?:please |also |always |then )*"
    r"(?!(?:let'?s|let me|i'?ll|i will|we'?ll|tell me|ask me|show me)\b)[a-z]\w+",
    re.IGNORECASE,
)
# what is important, said of the thing built: "It's important that the export stays backwards compatible"
# ("It's essential to develop models that are transparent" is an opinion: "to" counts only before keeping a property)
_IMPORTANT = re.compile(r"^(?:it'?s|it is) (?:\w+ )?(?:important|crucial|essential|critical|vital|mandatory|required) "
                        r"(?:that|to (?:keep|preserve|maintain|never|always|not))\b", re.IGNORECASE)
# how the agent's answers should read: "Be concise in your answers", "I don't need long explanations"
_ANSWER_STYLE = re.compile(
    r"\b(?:be|stay) (?:more )?(?:concise|brief|terse|succinct)\b|"
    r"\bkeep (?:your |the )?(?:answers|responses|replies|explanations|summaries) (?:short|brief|concise|terse)\b|"
    r"\b(?:don'?t|do not) need (?:long|lengthy|detailed|verbose) (?:explanations|answers|summaries|responses)\b|"
    r"\bno (?:long|lengthy) (?:explanations|answers|summaries)\b|"
    r"^(?:please\s+)?(?:answer|reply|respond)(?: me)? (?:briefly|concisely|tersely|in short)\b",
    re.IGNORECASE,
)
# every one of a kind, as the subject ("Any change to the public API needs …", "All money amounts are integers in
# cents"; not "All 42 tests pass": a count of this run) or as the scope ("open a PR for everything", "Timestamps
# are stored in UTC everywhere", "Make sure every new endpoint has an integration test")
_EVERY_SUBJECT = re.compile(
    r"^(?:all|every|each|any|no) (?!\d)(?:[\w\-`./]+ ){1,5}?(?:is|are|must|should|needs?|has|have|goes|go|lives?|"
    r"uses?|gets?|requires?|belongs?|runs?|stays?|comes?)\b", re.IGNORECASE)
_EVERY_SCOPE = re.compile(
    r"\b(?:for everything|everywhere|for (?:every|each|any) (?:change|commit|pr|pull request|release|feature|"
    r"deploy\w*)|on every (?:commit|push|pr|pull request|release|deploy\w*|merge)|"
    r"(?:every|each|any|all) (?:new|future) [\w\-]+)\b", re.IGNORECASE)
_NO_OTHER = re.compile(r"\b(?:nobody|no one|no other [\w\-]+)(?: else)? (?:writes?|reads?|touches|uses?|calls?|"
                       r"deploys?|owns?|has access|can|may|should|is allowed)\b", re.IGNORECASE)
# how the project is laid out: who owns what, where things live, what talks to what, what is generated
_LAYOUT = re.compile(
    r"\b(?:owns (?:the|all|every)|(?:talks?|connects?) to [^.;]{1,60}\bonly (?:through|via)|only (?:talks?|connects?) "
    r"to|(?<!who )(?<!that )(?<!which )lives? (?:in|under|at) (?:[`\w\-]*[/._`][\w\-/._`]*|the [\w\-]+ (?:folder|"
    r"directory|dir|repo|repository|package|module|file|crate|workspace))|"
    r"(?:is|are) (?:legacy|deprecated|auto-?generated|generated|vendored|protected|a (?:copy|mirror|fork|snapshot) of|"
    r"owned by|maintained by)|"
    r"(?:is|are) (?:stored|kept|written|published|hosted|read|loaded|built|versioned) (?:in|on|as|with|to|by|from)|"
    r"overwritten by|"
    # "The build uses pnpm workspaces, not npm"
    r"^(?:the|our|this) (?:build|ci|project|repo|monorepo|frontend|backend|api|app|service|team|stack|codebase|cli|"
    r"server|client|site|docs) uses|"
    # "Commit messages follow the conventional commits format"
    r"follows? (?:the )?(?:[\w\-]+ ){0,2}(?:format|conventions?|style|pattern|spec|standard|guide)s?)\b", re.IGNORECASE)
# where a part of the setup is, or goes: "The staging URL is staging.example.com", "Deploys go through Jenkins",
# "Our logs go to Datadog", "The orders database is db-3.internal" (its value a name, a host, a path or a number:
# not "The build is broken", "The logs are empty", "The API is slow")
_SETUP = re.compile(
    r"^(?:the |our )?(?:[\w\-]+ ){0,2}(?:url|urls|endpoint|host|hostname|domain|port|database|db|cache|queue|broker|"
    r"bucket|registry|cluster|region|deploys|deployments|releases|logs|metrics|traces|alerts|backups|secrets|builds|"
    r"pipeline|docs|package manager|test runner|linter|formatter|bundler|default branch|main branch) "
    r"(?:is|are|goes|go|runs?|lives?|points?|sits?)(?: (?:on|at|in|to|through|via|into|behind|under))? "
    r"(?:the |a |an )?(?-i:(?=[`\w@-]*(?:[A-Z0-9`@]|\w[./:-]\w)))[`\w./:@-]+", re.IGNORECASE)
# what reads from, writes to or calls what: "The reports job reads from the replica", "The frontend calls the v2 API
# through the gateway", "Our worker publishes to the events topic" (not "The app calls it twice": of this run)
_FLOW = re.compile(
    r"^(?:the|our) (?:[\w\-]+ ){0,2}(?:job|jobs|service|services|worker|workers|api|app|frontend|backend|server|client|"
    r"cron|scheduler|gateway|proxy|consumer|producer|daemon|lambda|importer|exporter|webhook|dashboard|bot|cli|sdk) "
    r"(?:only |always )?(?:reads|writes|pulls|pushes|publishes|sends|talks|connects|subscribes|consumes|calls|"
    r"depends|relies|proxies|forwards|syncs|streams|queries|polls)(?: (?:from|to|on|into|with|through|via))? "
    r"(?!(?:it|them|this|that|me|you|us)\b)(?:the |our |a |an )?[`\w./:@-]+", re.IGNORECASE)
# how the team works: "We deploy on Tuesdays and Thursdays only", "We squash merge", "We support Node 18 and 20"
_TEAM_HABIT = re.compile(
    r"^(?:here,? )?(?:we|our team|the team)(?: (?:always|usually|only|normally|generally|typically|still))? "
    r"(?:use|deploy|release|ship|follow|squash|rebase|tag|publish|support|target|pin|vendor|host|version|practi[sc]e|"
    r"review)\w*\b", re.IGNORECASE)
# a support ended: "We dropped Python 3.8 support in March"
_SUPPORT_ENDED = re.compile(r"\b(?:dropped|ended|removed|stopped) (?:[\w.\-]+ ){0,4}support\b|"
                            r"\bno longer supports?\b", re.IGNORECASE)
# what every one of a kind must be: "Migrations must be reversible", "Tests should use the fixtures in conftest"
# (its subject a bare plural: no "the", no "this")
_KIND_MUST = re.compile(
    r"^(?:[\w\-]+ )?(?!(?:this|its|his|is|was|as|us|yes|thus|things|guys)\b)[\w\-]+s (?:must|should|need to|have to) "
    r"(?:always |never |not |only )?(?:be|have|go|live|use|stay|run|pass|include|follow|contain)\b", re.IGNORECASE)
# what a part needs to run: "The integration tests need a running Redis on port 6380"
_NEEDS_RUNNING = re.compile(r"^(?!(?:i|we|you)\b).{0,60}\b(?:needs?|requires?) (?:a |an )?(?:running|local) [\w\-]+",
                            re.IGNORECASE)
# a rule after its reason, a statement: "I'm the only maintainer, so keep the dependencies minimal", "The staging
# database is a copy of prod, so don't trust the counts" ("Limited time only, so don't miss out!" states nothing)
_REASON_THEN_RULE = re.compile(r"\b(?:is|are|am|'m|'re|was|were|has|have|owns|uses|needs?|calls|reads|writes|"
                               r"supports?|depends|relies)\b[^,;]*[,;]\s*"
                               r"(?:so|therefore|which is why),?\s+(?:please\s+)?(?:keep|avoid|don'?t|do not|"
                               r"never|always|prefer|stick to|make sure|we (?:can'?t|cannot|must(?: not)?|have to)|"
                               r"no [\w\-]+)\b", re.IGNORECASE)
# a kind of thing kept a way: "Please keep commit messages under 72 characters", "avoid refactoring the auth module"
_KEEP_KIND = re.compile(r"^(?:please\s+)?(?:keep (?:the )?(?!(?:it|them|going|trying|working|looking|on|up|the|this|that|"
                        r"my|your)\b)(?:[\w\-]+ ){1,2}(?:under|below|short|small|minimal|simple|focused|separate|sorted|"
                        r"private|stable|lean|out of)\b|avoid [\w\-]+ing\b)", re.IGNORECASE)

# what the user learnt before, told once: an approach that failed ("I tried bumping the pool size to 50 but it didn't
# help", "We already tried caching the tokens in Redis; it made the race worse"; not "I tried running it again and it
# still fails": `_MOMENT`, nor "I tried your fix and it doesn't work": of this session's change), what fixed it
# ("Downgrading to Node 18 fixed the build for me last time", "Turning off HTTP/2 made the timeouts go away"), when a
# fault shows ("The flaky test only fails when the suite runs in parallel"), what not to bother with and why, what is
# not used ("We're not using an ORM, raw SQL is easier to review here"), the reason for a choice ("The reason we pin
# numpy is that …")
_TRIED_FAILED = re.compile(
    r"^(?:(?:i|we)(?:'ve| have)? (?:already |also |once )?(?:tried|attempted|experimented with)|(?:i|we) (?:already |also )?"
    r"gave [\w\-]+ a (?:try|shot))\b(?! (?:your|it|that|this|the (?:fix|change|patch|suggestion))\b).{3,100}?\b"
    r"(?:(?:didn'?t|did not|doesn'?t|does not|wasn'?t|won'?t) (?:help|work|fix|"
    r"change|matter|improve|solve|make (?:a|any) difference)|made (?:[\w\-]+ ){0,3}[\w\-]+ worse|broke\b|"
    r"no (?:luck|difference|effect|improvement))", re.IGNORECASE)
_FIXED_BY = re.compile(
    r"^(?!(?:nothing|something|everything|anything)\b)[\w\-]+ing\b[^,;]{2,80}?\b(?:fixe[sd]|solve[sd]|resolve[sd]|"
    r"got rid of|gets rid of|makes? (?:the |all )?[\w\-/.]+(?: [\w\-/.]+)? go away|made (?:the |all )?[\w\-/.]+"
    r"(?: [\w\-/.]+)? go away)\b(?! (?:it|this|that)\b)", re.IGNORECASE)
_FAILS_WHEN = re.compile(r"\bonly (?:(?:fail|break|crash|hang|happen|show up|occur|reproduce|flake)s?|times? out) "
                         r"(?:when|if|on|in|with|under|after|during)\b|\b(?:(?:fail|break|crash|hang)s?|times? out) only "
                         r"(?:when|if|on|in|with|under|after|during)\b", re.IGNORECASE)
_SKIP_WITH_REASON = re.compile(r"^(?:please\s+)?(?:don'?t|do not) bother (?:with|using|trying)\b[^,;]{3,80}[,;]\s*"
                               r"(?:it|they|that)\b", re.IGNORECASE)
_NOT_USED = re.compile(r"^(?:we|i)(?:'re| are|'m| am) not using [\w\-]+|^(?:we|i) (?:don'?t|do not|never) use\b",
                       re.IGNORECASE)
_REASON_FOR = re.compile(r"^the reason (?:we|i) (?:[\w\-]+ ){1,8}(?:is|was) (?:that|because)\b", re.IGNORECASE)
_LESSON_SHAPES = (_TRIED_FAILED, _FIXED_BY, _FAILS_WHEN, _SKIP_WITH_REASON, _NOT_USED, _REASON_FOR)

# the shapes that say how to work (a rule of the project), and those that say how the project is
_RULE_SHAPES = (_CONDITIONAL, _IMPORTANT, _KIND_MUST, _REASON_THEN_RULE, _KEEP_KIND)
_STANDING_SHAPES = (*_RULE_SHAPES, _EVERY_SUBJECT, _EVERY_SCOPE, _NO_OTHER, _LAYOUT, _FLOW, _SETUP, _TEAM_HABIT, _SUPPORT_ENDED,
                    _NEEDS_RUNNING, *_LESSON_SHAPES)


def is_answer_style(sentence: str) -> bool:
    """How the user wants the agent's answers to read ("Be concise in your answers"): a preference in any
    conversation, work on software or not."""
    return bool(_ANSWER_STYLE.search(sentence)) and not sentence.rstrip().endswith("?")


def is_standing_statement(sentence: str, shapes: tuple[re.Pattern, ...] = _STANDING_SHAPES) -> bool:
    """A sentence of work on software that holds beyond this task, in one of the shapes above, names what it
    is about (a code name or two content words, not "it" or "that" at its head: "It's important that" and "This
    project" are no pointer) and no moment or thing of this task (`_MOMENT`)."""
    said = " ".join(sentence.split())
    if said.endswith("?") or _MOMENT.search(_CANT_YET.sub(r"\1", _STANDING_STILL.sub("", said))):
        return False
    claim = _IMPORTANT.sub("", said).strip()
    if (DEICTIC.match(claim) and not _THIS_PROJECT.match(claim)) or not (CODE_IN_PROSE.search(claim) or len(content_words(claim)) >= 2):
        return False
    return any(shape.search(said) for shape in shapes)


def says_how_to_work(sentence: str) -> bool:
    """A standing statement that is a rule of the project's work ("When you add a route, also …", "It's important
    that every refund is written to the audit table", "Migrations must be reversible"), not how the project is."""
    return is_standing_statement(sentence, _RULE_SHAPES)


def is_step_of_change(sentence: str) -> bool:
    """A step tied to every change of a kind ("When you add a route, also add it to the OpenAPI spec"): the way to
    do something, as the ledger types it (a procedure)."""
    return is_standing_statement(sentence, (_CONDITIONAL,))


def describes_setup(sentence: str) -> bool:
    """How the system is put together: where a part of the setup is or goes ("Deploys go through Jenkins"), what
    reads from, writes to or calls what ("The reports job reads from the replica"); MEMORY.md files it under the
    system's architecture."""
    return is_standing_statement(sentence, (_SETUP, _FLOW))


def is_lesson(sentence: str) -> bool:
    """What the user learnt before: an approach that failed, what fixed it, when a fault shows (a pattern of the
    work, as MEMORY.md files it), not a choice and its reason."""
    return is_standing_statement(sentence, (_TRIED_FAILED, _FIXED_BY, _FAILS_WHEN))
