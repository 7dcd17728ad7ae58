"""Friction signals, pure: what in one observed session window may be friction.

- a correction: a user message that corrects the agent ("no, use uv not pip", "I told you…",
  "don't …"). Only messages with the user role count: tool output and fetched pages are data.
  A correction naming the program of a command that failed since the user's last message is tied
  to it: one signal that cites the failure too, keyed by the program it corrects, with its lesson
  ("Use uv (`uv sync`, …), not pip"; stages/friction/lesson.py); the failure is not a signal of its own.
- a command failure: a tool call whose result is an error, with its command and first error line.
- a failure fact: an Observer fact that reports a failure or its root cause.

Each signal keeps where it came from (session, observation, message ids, day, time) so a finding
built from signals cites evidence that exists.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import TypedDict

from memory_pipeline.models import Message, Observation, Transcript
from memory_pipeline.stages.friction.lesson import lesson_of, names_program, program
from memory_pipeline.stages.provenance import from_tool_output

QUOTE_CHARS = 160
# A user message that corrects the agent, by its opening or by a telltale phrase.
CORRECTION_LEAD = re.compile(
    r"^(?:no+(?![ ,]+(?:worries|problem|thanks|need|rush|idea|clue|doubt|more)\b)|nope|nah|wrong|actually|"
    r"not (?:like )?that|that'?s (?:wrong|not (?:it|right|what))|"
    r"you'?re wrong|i (?:already )?(?:told|asked) you|i said|how many times|again,? (?:don'?t|do not|use|you))\b"
    r"[\s,.:;!—-]*",
    re.IGNORECASE,
)
CORRECTION_PHRASE = re.compile(
    r"\b(?:i (?:already )?(?:told|asked) you|i said (?:to|not)|how many times|please stop|stop (?:using|doing|running)|"
    r"(?:use|run|call|with) `?[\w./:-]+`?,? (?:not|instead of) `?[\w./:-]+|instead of `?[\w./:-]+`?,? use|"
    r"why (?:did|do|are|would) you)\b",
    re.IGNORECASE,
)
PROHIBITION = re.compile(r"^(?:please )?(?:don'?t|do not|never|stop|quit)\b", re.IGNORECASE)
META_USER = re.compile(r"^\s*(?:<[a-z-]+|\[Request interrupted|Caveat: The messages below)", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_FAILURE_FACT = re.compile(
    r"\b(?:failed|failing|fails|error|errors|broke|broken|crash(?:ed|es)?|timed? ?out|not working|didn'?t work|"
    r"root cause|caused by|the (?:problem|issue|bug) (?:was|is))\b", re.IGNORECASE)
COMMAND_TOOLS = {"bash", "shell", "exec_command", "run_command", "local_shell", "bashexecution", "exec"}
_COMMAND_ARG = re.compile(r"(?:command|cmd)=(.*?)(?:, (?:description|timeout|run_in_background|workdir|cwd)=|$)")
_CD_PREFIX = re.compile(r"^(?:cd \S+ &&\s*|[A-Z_]+=\S+\s+)+")
_ERROR_LINE = re.compile(r"\b(?:error|exception|not found|no such|denied|refused|failed|fatal|cannot|can't|"
                         r"unable|invalid|unknown|missing|traceback)\b", re.IGNORECASE)
_EXIT_LINE = re.compile(r"^(?:exit code \d+|command exited with code \d+|\$ .*)$", re.IGNORECASE)


@dataclass(frozen=True)
class Signal:
    kind: str  # "correction", "command-failure" or "failure"
    text: str  # what is embedded: the rule a correction states, `command` → error, the fact
    session_id: str
    observation_id: str
    day: str
    message_ids: tuple[str, ...] = ()
    time: str | None = None
    key: str = ""  # an exact identifier: the command failure's signature
    command: str = ""  # command failures: the command's head (`pip install`)
    then: str = ""  # command failures: the next command that worked in its place in that session
    command_line: str = ""  # command failures: the whole command
    cwd: str = ""
    agent: str = ""  # the transcript format: claude-code, pi, codex, text
    identifiers: frozenset[str] = field(default_factory=frozenset)
    quote: str = ""  # the message's own words, when they differ from `text`
    lesson: str = ""  # corrections tied to a failed command: "Use uv (`uv sync`), not pip"
    ran: bool = False  # a correction of a command that ran without failing ("use uv, not pip" after a pip install)


def clip(text: str, limit: int = QUOTE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def correction_rule(text: str) -> str | None:
    """The rule a correcting user message states ("Use uv not pip"), or None when it corrects nothing."""
    if not text.strip() or META_USER.match(text):
        return None
    head = " ".join(text.strip().split("\n\n", 1)[0].split())[:400]
    sentences = [s for s in _SENTENCE.split(head) if s.strip()]
    for index, sentence in enumerate(sentences[:3]):
        lead = CORRECTION_LEAD.match(sentence)
        if not (lead or CORRECTION_PHRASE.search(sentence) or (index == 0 and PROHIBITION.match(sentence))):
            continue
        rule = sentence[lead.end():] if lead else sentence
        rule = re.sub(r"^(?:,|that\s|to\s|,? ?i (?:already )?(?:told|asked) you(?: to)?)\s*", "", rule.strip(), flags=re.I)
        if len(rule.split()) < 3 and index + 1 < len(sentences):
            rule = f"{rule} {sentences[index + 1]}".strip()
        rule = rule.strip(" ,;:—-")
        if len(rule.split()) < 2:
            return None
        return clip(rule[:1].upper() + rule[1:], 200)
    return None


def identifiers(text: str) -> frozenset[str]:
    """Names a text mentions: `backticked` spans, paths, flags, dotted or snake names, short tools."""
    found = {m.lower() for m in re.findall(r"`([^`]{1,60})`", text)}
    for token in re.findall(r"[\w./:@=+-]+", text):
        if re.search(r"[./_:=@]|--?\w", token) or (token.islower() and 2 <= len(token) <= 4 and token.isalpha()):
            found.add(token.lower().strip(".:"))
    return frozenset(t for t in found if t and t not in STOP_IDENTIFIERS)


STOP_IDENTIFIERS = frozenset(
    """a an the and or but if so as at by in on of to up is it be do go no yes we you i me my our us they he she
    for not nor use used run was are were can did does don't its it's this that with from have has had then than
    when what why how who now also just into only again here there some any all one two get got let see make
    more most very much like want need should would could will shall may must said told ask asked please
    instead rather same each per via off out over back down been being done very well too yet still ever""".split())


def _json_command(arguments: str) -> str | None:
    try:
        value = json.loads(arguments)
    except ValueError:
        return None
    command = value.get("command", value.get("cmd")) if isinstance(value, dict) else None
    if isinstance(command, list):  # codex: ["bash", "-lc", "npm test"]
        command = command[-1] if command else None
    return command if isinstance(command, str) else None


def is_shell(name: str) -> bool:
    return name.rsplit("__", 1)[-1].lower() in COMMAND_TOOLS


def command_of(name: str, arguments: str) -> str:
    """The shell command of a command-tool call (its `command` argument), else the tool's name."""
    if not is_shell(name):
        return name
    command = _json_command(arguments) if arguments.lstrip().startswith("{") else None
    if command is None:
        found = _COMMAND_ARG.search(arguments.splitlines()[0] if arguments else "")
        command = found.group(1) if found else None
    return _CD_PREFIX.sub("", " ".join(command.split())) if command else name


def command_head(command: str) -> str:
    """What identifies a command across runs: its first two words (`pip install`, `npm test`)."""
    words = command.split("|")[0].split()
    return " ".join(words[:2]) if words else ""


def error_line(text: str) -> str:
    """The line of a tool's error output that says what went wrong."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not _EXIT_LINE.match(line.strip())]
    if not lines:
        return "failed with no output"
    flagged = [line for line in lines if _ERROR_LINE.search(line)]
    return clip((flagged[-1] if any(line.startswith("Traceback") for line in lines) and flagged else
                 (flagged[0] if flagged else lines[0])), 200)


def error_signature(error: str) -> str:
    """The error with its variable parts (paths, numbers, hashes) blanked: the same way of failing."""
    text = re.sub(r"(?:/[\w.@+-]+)+/?", "<path>", error.lower())
    text = re.sub(r"\b[0-9a-f]{7,}\b", "<hash>", text)
    text = re.sub(r"\d+", "<n>", text)
    return " ".join(text.split())[:160]


def _time(message: Message) -> str | None:
    return message.timestamp.strftime("%H:%M") if message.timestamp else None


def _day(message: Message, observation: Observation) -> str:
    """The message's own day (a session may cross midnight), else the observation's."""
    return message.timestamp.date().isoformat() if message.timestamp else observation.date


class _Origin(TypedDict):
    """The fields every signal of one session window shares."""
    session_id: str
    observation_id: str
    cwd: str
    agent: str


def session_signals(transcript: Transcript, observation: Observation) -> list[Signal]:
    """The corrections and command failures in one observed session window."""
    base = _Origin(session_id=observation.session_id, observation_id=observation.id, cwd=transcript.cwd or "",
                   agent=transcript.format)
    calls: dict[str, tuple[str, Message, bool]] = {}
    found: list[Signal] = []
    open_failures: list[int] = []  # failures (and tied corrections) waiting for the command that worked after them
    since_user: list[int] = []  # failures since the user's last message: what a correction may be about
    ran_since_user: list[tuple[str, str, tuple[str, ...]]] = []  # (command, head, message ids) that worked
    absorbed: set[int] = set()  # failures a correction is tied to
    for message in transcript.messages:
        if message.role == "user" and not message.is_compaction_summary:
            rule = correction_rule(message.text)
            if rule:
                failed = next((i for i in reversed(since_user)
                               if names_program(message.text, program(found[i].command_line))), None)
                signal = Signal(kind="correction", text=rule, message_ids=(message.id,), time=_time(message),
                                day=_day(message, observation), identifiers=identifiers(rule),
                                quote=clip(message.text), **base)
                ran = next((r for r in reversed(ran_since_user) if names_program(message.text, program(r[0]))), None)
                if failed is not None:
                    signal = tie_correction(signal, found[failed], message.text)
                    absorbed.add(failed)
                    open_failures.append(len(found))
                elif ran is not None:  # the agent ran the program the user corrects; it did not fail
                    signal = tie_ran(signal, *ran, message.text)
                    open_failures.append(len(found))
                found.append(signal)
            since_user, ran_since_user = [], []
        for call in message.tool_calls:
            calls[call.id] = (command_of(call.name, call.input), message, is_shell(call.name))
        for result in message.tool_results:
            command, call_message, shell = calls.get(result.call_id, ("", message, False))
            if not command:
                continue
            if not result.is_error:
                if not shell:  # reading or editing a file is not what "worked instead"
                    continue
                ran_since_user.append((command, command_head(command),
                                       tuple(dict.fromkeys((call_message.id, message.id)))))
                for index in open_failures:
                    if is_alternative(found[index].command_line, command) or (
                            found[index].kind == "correction" and program(command) != program(found[index].command_line)):
                        found[index] = _with_then(found[index], command)
                open_failures = []
                continue
            head, error = command_head(command), error_line(result.text)
            found.append(Signal(kind="command-failure", text=f"`{clip(command, 80)}` → {error}",
                                message_ids=tuple(dict.fromkeys((call_message.id, message.id))),
                                time=_time(message), day=_day(message, observation),
                                key=f"{head} | {error_signature(error)}", command=head,
                                command_line=command if shell else "",
                                identifiers=identifiers(command) | {head.lower()}, **base))
            open_failures.append(len(found) - 1)
            if shell:
                since_user.append(len(found) - 1)
    return [signal for index, signal in enumerate(found) if index not in absorbed]


def tie_correction(correction: Signal, failure: Signal, text: str) -> Signal:
    """The correction as the one signal of a failed command and what the user said about it."""
    name = program(failure.command_line)
    return replace(correction, key=f"corrects {name.lower()}", command=failure.command,
                   command_line=failure.command_line, lesson=lesson_of(text, failure.command_line),
                   message_ids=tuple(dict.fromkeys(failure.message_ids + correction.message_ids)),
                   identifiers=correction.identifiers | {name.lower()})


def tie_ran(correction: Signal, command: str, head: str, message_ids: tuple[str, ...], text: str) -> Signal:
    """The correction of a command the agent ran (it did not fail): keyed by the program it corrects,
    so the same correction on several days is one finding, whatever its words."""
    name = program(command)
    return replace(correction, key=f"corrects {name.lower()}", command=head, command_line=command, ran=True,
                   lesson=lesson_of(text, command), message_ids=tuple(dict.fromkeys(message_ids + correction.message_ids)),
                   identifiers=correction.identifiers | {name.lower()})


def is_alternative(failed: str, worked: str) -> bool:
    """Whether `worked` did the failed command's job another way (`pnpm run build` for `npm run
    build`, `uv pip install x` for `pip install x`): another program, the same arguments."""
    if not failed or command_head(failed) == command_head(worked):
        return False
    arguments = {w for w in failed.split("|")[0].split()[1:4] if len(w) > 1 and not w.startswith("-")}
    return bool(arguments & set(worked.split("|")[0].split()))


def _with_then(signal: Signal, command: str) -> Signal:
    lesson = signal.lesson
    if signal.kind == "correction" and not lesson:  # the user named no alternative: what worked is one
        lesson = lesson_of(signal.quote, signal.command_line, command)
    return replace(signal, then=clip(command, 80), lesson=lesson)


def fact_signals(observation: Observation, seen_messages: set[tuple[str, str]]) -> list[Signal]:
    """Observer facts that report a failure, unless the messages they cite are signals already."""
    found = []
    for fact in observation.facts:
        if not _FAILURE_FACT.search(fact.text) or from_tool_output(fact.source_roles):
            continue  # what only tool output (a file, a web page) said never becomes a fix
        if any((observation.session_id, mid) in seen_messages for mid in fact.source_message_ids):
            continue
        found.append(Signal(kind="failure", text=clip(fact.text, 200), session_id=observation.session_id,
                            observation_id=observation.id, day=observation.date,
                            message_ids=tuple(fact.source_message_ids), time=fact.time,
                            identifiers=identifiers(fact.text)))
    return found
