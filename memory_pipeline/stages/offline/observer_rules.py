"""Text rules for the offline Observer: sentences, tool calls, content words (the cue phrases that say
what a sentence states are observer_cues').

Everything here is a pure function of its input, so the offline Observer stays deterministic.
"""

from __future__ import annotations

import re

from memory_pipeline.stages.tool_jobs import setup_tools

FACT_CHARS = 200

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\w\"'`(\[@~/])")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx|incl)\.$", re.IGNORECASE)
_EMPHASIS = re.compile(r"\*\*")
_BULLET = re.compile(r"^(?:[-*•+]|\d{1,3}[.)])\s+")
# an aside in parentheses ("TUI rendering (visual testing is always tricky)", "fix the issues (main was
# clean)"): a detail of the sentence, not what it claims
ASIDE = re.compile(r"\s*\([^()]*\)")
_CODE_START = re.compile(
    r"^(?:[{}\[\]<>|$#%➜]|//|/\*|\*/|at \S+ \(|import |from \S+ import|def |class |const |let |var |function |return |"
    r"export |if \(|for \(|\w+\(.*\);?$|[\w.]+ = |[-=]{3,}|\+\+\+|---|@@)"
)
_WORD = re.compile(r"[a-z][a-z0-9_\-]{2,}")
# a pasted error's first line (" Error: 400 {…"); the lines indented under it are the error's too
_ERROR_START = re.compile(r"^\s*[\w.]*(?:error|exception|traceback)\b\s*[:(\d]", re.IGNORECASE)
# a line of a diff pasted as the agent's TUI shows it, with its line number ("+314 - Tips for …", "+ 9 - **Tool
# Title**: …"): the file's words, not the speaker's
_DIFF_LINE = re.compile(r"^\s*(?:\+\s?\d+|-\d+)(?:\s|$)")
# a terminal pasted with its prompt ("(venv) jim@box:/srv/app$ claude -c", "$ npm test", "➜  app git:(main) make",
# "PS C:\\app> dotnet test"): that line and the output under it, up to a blank line, are the shell's words
_SHELL_PROMPT = re.compile(r"^\s*(?:\([\w.-]+\)\s+)?(?:[\w.-]+@[\w.-]+(?::\S*?)?\s?[$#%]\s|\$\s+\S|➜\s|"
                           r"PS [A-Za-z]:\\[^>]*>\s)")
_META_USER = re.compile(
    r"^\s*(?:<(?:command-|local-command|task-notification|system-reminder|user-prompt|bash-)|"
    r"\[Request interrupted|Caveat: The messages below)",
    re.IGNORECASE,
)

COMPLETION = re.compile(
    r"\b(?:all \d* ?tests pass\w*|tests? (?:now )?pass\w*|done\b|completed|committed|pushed|fixed|works now|"
    r"now works|is working|successfully)",
    re.IGNORECASE,
)
BREAKPOINT = re.compile(r"\b(?:fixed|committed|pushed|done|all \d* ?tests pass\w*|completed)\b", re.IGNORECASE)
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
# the path, not the ")" that closes the call's one-line rendering ("apply_patch(*** Update File: app.js)")
_PATCH_PATH = re.compile(r"\*\*\* (?:Update|Add|Delete) File: (\S+?)\)?(?=\s|$)")
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

STOPWORDS = frozenset(
    """the and for are but not you all any can had her was one our out has him his how its may new now old see
    two who did get let put say she too use that with have this will your from they know want been good much some
    time very when come here just like long make many more only over such take than them well were what also into
    should would could there their then these those which while about after again because before being does doing
    done going it's i'm don't can't let's need needs maybe think sure yes yeah okay alright please thanks thank
    something anything everything file files code work make still really thing things way right look""".split()
)


# code in prose, one pattern for every reader (the Observer's windows and sentences, the ledger's types): a
# backtick, a shell prompt before a command, a file path, a snake_case or UPPER_SNAKE name, a command-line
# flag. Not a bare folder ("/r/", "breakfast/lunch/", a link's "/www.youtube.com/": chats hold those too).
CODE_IN_PROSE = re.compile(
    r"`|(?<!\S)\$ [a-z]|"
    r"\b[\w./-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|json|md|toml|ya?ml|sql|sh|go|rs|java|rb|c|cc|cpp|h|hpp|cs|php|kt|"
    r"swift|ex|exs|vue|css|html|xml|ini|cfg|conf|lock|env|proto|tf|log|txt|csv)\b|"
    r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|(?<![\w-])--[a-z][\w-]+"
)


# a part of a software setup the user names in prose ("the orders service is on Postgres 17 now", "we renamed the
# repo", "the staging URL is …"): work on software with no tool called and no code written, as in a session of
# one line that corrects a fact of the project. Of the 1,154 chat sessions of LongMemEval's and LoCoMo's dev and
# held-out sets read as no work on software, one user names one (a session on "our API"). A tool is named from
# `tool_jobs`, less the names that are everyday words too ("poetry", "yarn", "express", "Jenkins"; "Jest" only where
# it is no "in jest"); so are other everyday words ("cargo", "deployed in remote areas").
SETUP_TERM = re.compile(
    r"\b(?:" + "|".join(re.escape(name).replace(r"\ ", r"\s+") for name in setup_tools()) + r"|gitlab|(?<!in )jest|"
    r"repo|repository|monorepo|main branch|"
    r"staging (?:url|server|env|environment|database|db|cluster|site)|(?:the|our|an?|this|that) api|"
    r"api (?:keys?|endpoints?|calls?|server|responses?)|endpoints?|port \d{2,5}|localhost|"
    r"env(?:ironment)? var(?:iable)?s?|test runner|linter|pull requests?|deploy(?:s|ing)?)\b", re.IGNORECASE)


def _names_code(text: str, by_user: bool) -> bool:
    return bool(CODE_IN_PROSE.search(text) or (by_user and SETUP_TERM.search(text)))


def about_code(blocks) -> bool:
    """Whether a window is work on software: a tool was called or answered, a message holds code
    (`CODE_IN_PROSE`: a backtick, a file path, `orders_v2_rollout`, `LD_SDK_KEY`, `--dry-run`), or the user
    names a part of a software setup (`SETUP_TERM`)."""
    return any(b.calls or b.role == "Tool" or _names_code(b.text, b.role == "User") for b in blocks)


def messages_about_code(messages) -> bool:
    """`about_code` of a window's transcript messages: what its Observation records."""
    return any(m.tool_calls or m.tool_results or m.role == "tool" or _names_code(m.text, m.role == "user")
               for m in messages)


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


_VERSION = re.compile(r"(?<![\w.#:/-])v?\d+(?:\.\d+){1,2}(?![\w.:/%-])")


def _prose_lines(text: str) -> list[str]:
    lines, in_error, in_shell = [], False, False
    for raw in _FENCE.sub("\n", text).splitlines():
        # a pasted error goes on in the lines indented under it (" Error: 400 {…", " `tool_use` block must …")
        in_error = bool(_ERROR_START.match(raw)) or (in_error and raw[:1].isspace() and bool(raw.strip()))
        in_shell = bool(_SHELL_PROMPT.match(raw)) or (in_shell and bool(raw.strip()))
        if not raw.strip() or raw.startswith(("    ", "\t")) or _DIFF_LINE.match(raw) or in_error or in_shell:
            continue
        line = _EMPHASIS.sub("", _BULLET.sub("", raw.strip()))
        # a version counts as a word: "We target Python 3.11 and 3.12" is prose, "| 3.11 | 3.12 |" a table
        worded = _VERSION.sub("v", line)
        letters = sum(ch.isalpha() or ch.isspace() for ch in worded) + len(line) - len(worded)
        if _CODE_START.match(line) or letters < 0.75 * len(line) or len(line.split()) < 3:
            continue
        lines.append(line)
    return lines


def _opens_bracket(before: str, part: str) -> bool:
    """`before` leaves a bracket open that `part` closes."""
    return before.count("(") > before.count(")") and part.count(")") > part.count("(")


def sentences(text: str) -> list[str]:
    """Prose sentences of a message: no code fences, indented blocks, tables or symbol-heavy lines."""
    result: list[str] = []
    for line in _prose_lines(text):
        parts = _SENTENCE_SPLIT.split(line)
        merged: list[str] = []
        for part in parts:
            # an abbreviation's dot, or a sentence inside brackets the part closes: "Make it the only mode (you don't
            # pass -l. The old mode is gone)." is one sentence
            if merged and (_ABBREVIATION.search(merged[-1]) or _opens_bracket(merged[-1], part)):
                merged[-1] += " " + part
            else:
                merged.append(part)
        result.extend(p.strip() for p in merged if len(p.split()) >= 3)
    return result


# Claude Code's words for a larger thinking budget ("ULTRATHINK this one.", "think hard about it"): no request
_THINK_HARDER = re.compile(r"\b(?:really\s+)?(?:ultrathink|ultra think|megathink|think (?:really )?hard(?:er)?)\b"
                           r"(?:\s+(?:this(?: one)?|about (?:this|it)))?[.!]*", re.IGNORECASE)
# how the last try went ("still didnt work.", "still no", "it worked!"): a reaction, not what the work is
_REACTION = re.compile(r"^(?:still\s+)?(?:(?:it|that|this)\s+)?(?:(?:still\s+)?(?:did\s?n'?t|does\s?n'?t|is\s?n'?t|not)\s+)?"
                       r"(?:work(?:ed|s|ing)?|no|nope|nothing|the same(?: error| thing)?)\W*$", re.IGNORECASE)


def intent(text: str) -> str:
    """The first prose sentence with its filler removed ("ok, so …"); a "…:" lead-in takes the next one too;
    not a thinking-budget word nor a reaction to the last try ("still didnt work.")."""
    found = [s for s in sentences(_THINK_HARDER.sub("", text)) if not _REACTION.match(FILLER.sub("", s).strip())]
    for i, sentence in enumerate(found):
        cleaned = FILLER.sub("", sentence).strip()
        if cleaned.endswith(":") and i + 1 < len(found):
            cleaned = f"{cleaned} {found[i + 1]}"
        if len(cleaned.split()) >= 2:
            return clip(cleaned[:1].upper() + cleaned[1:], 160)
    return ""


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
    return m.group(1) if m and not m.group(1).endswith("…") else None  # "…": cut off by the call's one-line rendering


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
