"""Text rules for the offline Observer: sentences, cue phrases, tool calls, content words.

Everything here is a pure function of its input, so the offline Observer stays deterministic.
"""

from __future__ import annotations

import re

FACT_CHARS = 200

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\w\"'`(\[@~/])")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx|incl)\.$", re.IGNORECASE)
_EMPHASIS = re.compile(r"\*\*")
_BULLET = re.compile(r"^(?:[-*•+]|\d{1,3}[.)])\s+")
_CODE_START = re.compile(
    r"^(?:[{}\[\]<>|$#%➜]|//|/\*|\*/|at \S+ \(|import |from \S+ import|def |class |const |let |var |function |return |"
    r"export |if \(|for \(|\w+\(.*\);?$|[\w.]+ = |[-=]{3,}|\+\+\+|---|@@)"
)
_WORD = re.compile(r"[a-z][a-z0-9_\-]{2,}")
_META_USER = re.compile(
    r"^\s*(?:<(?:command-|local-command|task-notification|system-reminder|user-prompt|bash-)|"
    r"\[Request interrupted|Caveat: The messages below)",
    re.IGNORECASE,
)

RULE = re.compile(
    r"\b(?:always|never|prefer|we use|we always|from now on|going forward|in future|remember (?:that|to)|"
    r"should (?:always|never)|do(?:n'?t| not) ever|no exceptions)\b",
    re.IGNORECASE,
)
PREFERENCE = re.compile(
    r"\b(?:i (?:prefer|like|love|hate|dislike|don'?t like)|i(?: would|'d) (?:only |rather |much rather )?"
    r"(?:want|like|prefer)|i'?d rather|"
    r"i would rather|my preference)\b",
    re.IGNORECASE,
)
CORRECTION = re.compile(
    r"^(?:no\b|nope\b|actually\b|that'?s wrong|that is wrong|wrong\b|not quite\b|that'?s not\b|you'?re wrong)"
    r"|\bnot \w+(?: \w+)?,? but\b|\binstead of\b",
    re.IGNORECASE,
)
DECISION = re.compile(r"\b(?:decided|decide to|let'?s go with|we'?ll go with|going with|because|chose|opted|"
                      r"(?:moved|switched|migrated|upgraded) (?:[\w.\-]+ ){0,4}(?:from|to)|no longer|let'?s not|"
                      r"any ?more|reason being|the reason (?:is|was))\b", re.I)
# what the user states about their setup: services, versions, hosts, environments, conventions, history
USER_CONTEXT = re.compile(
    r"\b(?:context(?: for (?:today|this))?:|runs? on|(?:is|are) (?:hosted|deployed) (?:on|in|at)|lives (?:in|at)|"
    r"(?:is|are) at|we use|we keep|we run|we(?:'re| are) on|(?:this|the|our) (?:repo|project|service|team|app) "
    r"uses|\w+ use \w+|our (?:[\w\-]+ ){0,3}(?:is|are)|is gone|is the new|we tried|tried .{0,60}"
    r"(?:abandoned|gave up|dropped|reverted)|gave up on|abandoned)\b",
    re.IGNORECASE,
)
# "where those modules should go": a question inside a request, not a design statement
EMBEDDED_QUESTION = re.compile(r"\b(?:where|what|how|which|whether)\b[^.;]{0,60}\bshould\b", re.IGNORECASE)
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
# a measured result ("now finishes in 40 seconds instead of 12 minutes"): this session's outcome
RESULT = re.compile(r"\bnow (?:\w+ ){0,3}(?:in|at|takes|finishes|runs)\b.*\d", re.IGNORECASE)
# an agent's claim that code always or never does something: context for the session, not a decision
INVARIANT = re.compile(r"\b(?:always|never)\b", re.IGNORECASE)
# a statement with its reason: "X is unused because the code still uses the full paths"
REASON = re.compile(r"\b(?:because|since|which means|due to|so that|bypass(?:es)?)\b", re.IGNORECASE)
TRANSIENT = re.compile(r"\b(?:yet|for now|right now|at the moment|currently|still)\b", re.IGNORECASE)
# a user's design statement: how something should be, or what to use instead
USER_DESIGN = re.compile(r"\b(?:should (?:be|have|go|live|use)|instead of|i would assume)\b", re.IGNORECASE)
# a progress bullet led by a task or work-package id: "PROJ-12 — Upgraded the renderer", "WP3: done"
TASK_STATUS = re.compile(r"^[\w.\-]*\d[\w.\-]*\s*(?:[—–:]|-\s)")
# opens by pointing at something said before: "It uses …", "That's fine since …", "Now X is unused"
DEICTIC = re.compile(r"^(?:(?:but|and|so|also),? )?(?:that|this|it|they|these|those|here|there|now)\b", re.IGNORECASE)
MAPPING = re.compile(r"^\S.{0,120}?\s(?:->|→|=>)\s\S")
ROOT_CAUSE = re.compile(
    r"\b(?:root cause|the (?:problem|issue|bug) (?:was|is)|caused by|fixed by|the fix (?:is|was)|"
    r"fix(?:ed)? (?:it|this) by|the culprit|turns out)\b",
    re.IGNORECASE,
)
# a change to the environment (not a code change log: removed, replaced, moved and renamed stay narrative)
STATE_CHANGE = re.compile(
    r"\b(?:installed|uninstalled|migrated|upgraded|downgraded|switched|reconfigured|deprecated)\b", re.IGNORECASE
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
COMPLETION = re.compile(
    r"\b(?:all \d* ?tests pass\w*|tests? (?:now )?pass\w*|done\b|completed|committed|pushed|fixed|works now|"
    r"now works|is working|successfully)",
    re.IGNORECASE,
)
BREAKPOINT = re.compile(r"\b(?:fixed|committed|pushed|done|all \d* ?tests pass\w*|completed)\b", re.IGNORECASE)
FUTURE = re.compile(r"\b(?:needs? to|to be|will|should|would|could|can|must|going to|let me|i'll|plan)\b", re.I)
ACKNOWLEDGEMENT = re.compile(
    r"^(?:good|great|perfect|excellent|ok(?:ay)?|now i (?:have|see|understand)|i see|i understand|"
    r"you'?re (?:absolutely )?right|yes|sure|got it)\b",
    re.IGNORECASE,
)
AGENT_NARRATION = re.compile(r"^(?:now,? )?(?:let me|let's|i'll|i will|i'm going to|i need to|first,? i)\b", re.I)
FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|so+|well|hey|yo|hi|great|cool|right|btw|and|also|now|then|please)\b[,.!]?\s*)+", re.I
)

EDIT_TOOLS = {"edit", "write", "multiedit", "notebookedit", "apply_patch", "str_replace_based_edit_tool", "create"}
COMMAND_TOOLS = {"bash", "shell", "exec_command", "run_command", "local_shell"}
_PATH_ARG = re.compile(r"(?:file_path|notebook_path|path)=([^,)\s]+)")
_PATCH_PATH = re.compile(r"\*\*\* (?:Update|Add|Delete) File: (\S+)")
_CD_PREFIX = re.compile(r"^cd \S+ &&\s*")
_COMMAND_ARG = re.compile(r"(?:command|cmd)=(.*?)(?:, (?:description|timeout|run_in_background|workdir|cwd)=|\)?\s*$)")
NOTEWORTHY_COMMAND = re.compile(
    r"\b(?:git (?:commit|push|merge|rebase|checkout -b|switch -c|tag)|pip install|uv (?:add|pip|sync)|poetry add|"
    r"npm (?:install|i|test|run)|pnpm (?:add|install|test)|yarn add|brew install|apt(?:-get)? install|cargo "
    r"(?:add|test|build)|docker|kubectl|systemctl|make\b|pytest|mix (?:test|deps)|go test|alembic|migrate|deploy|"
    r"terraform|helm)",
    re.IGNORECASE,
)
# test, lint and check runs: routine, one session's detail
ROUTINE_COMMAND = re.compile(
    r"\b(?:pytest|npm (?:test|run)|pnpm (?:test|run)|yarn (?:test|run)|cargo (?:test|build|check|clippy)|"
    r"go (?:test|vet|build)|mix (?:test|format|credo|compile)|make(?: \w+)?$|tsc\b|eslint|ruff|mypy)",
    re.IGNORECASE,
)
_CUE_WORDS = frozenset("issue problem bug fix fixed root cause culprit turns decided chose opted".split())
_SPECIFIC = re.compile(r"`[^`]+`|\b[\w\-]+\.(?:py|ts|tsx|js|md|ex|exs|rs|go|json|ya?ml|toml|sh|sql)\b|/[\w.\-]+/")

STOPWORDS = frozenset(
    """the and for are but not you all any can had her was one our out has him his how its may new now old see
    two who did get let put say she too use that with have this will your from they know want been good much some
    time very when come here just like long make many more only over such take than them well were what also into
    should would could there their then these those which while about after again because before being does doing
    done going it's i'm don't can't let's need needs maybe think sure yes yeah okay alright please thanks thank
    something anything everything file files code work make still really thing things way right look""".split()
)


def neutralize_tags(text: str) -> str:
    """Keep transcript text from closing or opening the Observer's own XML tags."""
    return re.sub(
        r"<(/?)(observations|segment|title|narrative|facts|current-task|suggested-response)\b",
        r"‹\1\2",
        text,
        flags=re.IGNORECASE,
    )


def clip(text: str, limit: int = FACT_CHARS) -> str:
    """At most ~limit chars, cut at a sentence boundary when one is near, else at a word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    cut = max(head.rfind(". "), head.rfind("? "), head.rfind("! "))
    if cut >= limit // 2:
        return head[: cut + 1]
    return head.rsplit(" ", 1)[0].rstrip(",;:") + "…"


def is_meta_user_text(text: str) -> bool:
    return not text.strip() or bool(_META_USER.match(text))


def _prose_lines(text: str) -> list[str]:
    lines = []
    for raw in _FENCE.sub("\n", text).splitlines():
        if not raw.strip() or raw.startswith(("    ", "\t")):
            continue
        line = _EMPHASIS.sub("", _BULLET.sub("", raw.strip()))
        letters = sum(ch.isalpha() or ch.isspace() for ch in line)
        if _CODE_START.match(line) or letters < 0.75 * len(line) or len(line.split()) < 3:
            continue
        lines.append(line)
    return lines


def sentences(text: str) -> list[str]:
    """Prose sentences of a message: no code fences, indented blocks, tables or symbol-heavy lines."""
    result: list[str] = []
    for line in _prose_lines(text):
        parts = _SENTENCE_SPLIT.split(line)
        merged: list[str] = []
        for part in parts:
            if merged and _ABBREVIATION.search(merged[-1]):
                merged[-1] += " " + part
            else:
                merged.append(part)
        result.extend(p.strip() for p in merged if len(p.split()) >= 3)
    return result


def intent(text: str) -> str:
    """The first prose sentence with its filler removed ("ok, so …"); a "…:" lead-in takes the next one too."""
    found = sentences(text)
    for i, sentence in enumerate(found):
        cleaned = FILLER.sub("", sentence).strip()
        if cleaned.endswith(":") and i + 1 < len(found):
            cleaned = f"{cleaned} {found[i + 1]}"
        if len(cleaned.split()) >= 2:
            return clip(cleaned[:1].upper() + cleaned[1:], 160)
    return ""


def is_self_contained(sentence: str) -> bool:
    """Names what it is about: a path or code name, or at least three content words besides the cue."""
    if DEICTIC.match(sentence.strip()):
        return False
    return bool(_SPECIFIC.search(sentence)) or len(content_words(sentence) - _CUE_WORDS) >= 3


def is_request(sentence: str) -> bool:
    return bool(REQUEST.match(FILLER.sub("", sentence).strip()))


def is_question(sentence: str) -> bool:
    """Ends with a question mark, not counting a closing aside: "a -> utils (possibly others?)" is no question."""
    return re.sub(r"\s*\([^()]*\)$", "", sentence.rstrip()).rstrip(" \"'”)").endswith("?")


def is_fragment(sentence: str) -> bool:
    """A lead-in to a list ("The fix is:") or a bare acknowledgement: nothing to keep on its own."""
    return sentence.rstrip().endswith(":") or bool(ACKNOWLEDGEMENT.match(sentence))


def purpose(sentence: str) -> str:
    """What the agent said it was about to do ("Let me fix the loader" → "fix the loader"): an edit's intent.

    Only a stated intent counts; a status line or a remark ("All tests pass") is no purpose.
    """
    if is_fragment(sentence) or sentence.endswith("?") or not AGENT_NARRATION.match(sentence):
        return ""
    cleaned = AGENT_NARRATION.sub("", sentence).strip(" ,.")
    return clip(cleaned, 120) if len(cleaned.split()) >= 2 else ""


def title_from(text: str) -> str:
    words = intent(text).rstrip(".?!").split()
    if not words:
        return ""
    short = " ".join(words[:8])
    return short + ("…" if len(words) > 8 else "")


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def tool_call(line: str) -> tuple[str, str] | None:
    """(name, arguments) for a rendered call line `→ Name(args)`."""
    stripped = line.strip()
    if not stripped.startswith("→"):
        return None
    m = re.match(r"→\s*([\w.\-:]+)\((.*)", stripped, re.DOTALL)
    return (m.group(1), m.group(2)) if m else None


def edited_path(name: str, args: str) -> str | None:
    short = name.rsplit(".", 1)[-1].rsplit("__", 1)[-1].lower()
    if short not in EDIT_TOOLS:
        return None
    m = _PATH_ARG.search(args) or _PATCH_PATH.search(args)
    return m.group(1) if m else None


def noteworthy_command(name: str, args: str) -> str | None:
    if name.rsplit("__", 1)[-1].lower() not in COMMAND_TOOLS:
        return None
    m = _COMMAND_ARG.search(args.splitlines()[0] if args else "")
    command = _CD_PREFIX.sub("", m.group(1).strip()) if m else ""
    if not command or not NOTEWORTHY_COMMAND.search(command) or ROUTINE_COMMAND.search(command.split("|")[0]):
        return None
    return clip(command, 120)


def command_key(command: str) -> str:
    """Runs of the same command (`npm run check | tail`, `npm run check | head`) count once."""
    return command if "commit" in command else " ".join(command.split("|")[0].split()[:3])


def similar(a: str, b: str) -> bool:
    """Near-identical facts: the same words, give or take a fifth."""
    wa, wb = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    if not wa or not wb:
        return a.strip().lower() == b.strip().lower()
    return len(wa & wb) / len(wa | wb) >= 0.8
