"""The offline provider's Observer: deterministic, extractive, no network and no model.

It reads the serialized transcript back out of the user prompt (between the `<transcript-…>` and
`</transcript-…>` lines of prompts/observer.md), splits it into segments at topic shifts, time gaps
and natural breakpoints, and answers in the same XML a model would, so the same parser reads both.

Who said a block comes only from the headers the serializer wrote: message text can hold no header
(stages/untrusted.block_text escapes any line that looks like one), and a header must carry the
next ref in order (m1, m2, …), so a quoted header naming an earlier message starts nothing.
"""

from __future__ import annotations

import re

from memory_pipeline.stages.offline import distil as shape
from memory_pipeline.stages.offline import observer_cues as cues
from memory_pipeline.stages.offline import observer_rules as rules
from memory_pipeline.stages.offline.observer_asks import repeated_asks
from memory_pipeline.stages.offline.observer_facts import Block, Candidate, facts_for, noteworthy_commands, user_fact
from memory_pipeline.stages.offline.observer_people import is_chat_log
from memory_pipeline.stages.untrusted import unescape_block_line

_HEADER = re.compile(r"^\[(\d{2}:\d{2}|--:--)\] \[(User|Assistant|Tool|System|Summary)\] \((m\d+)\): ?(.*)$")
_OPEN_TAG = re.compile(r"^<(transcript(?:-[0-9a-f]{1,64})?)>$")
_DATE = re.compile(r"^Date:\s*(\d{4}-\d{2}-\d{2})\s*$", re.MULTILINE)
GAP_MINUTES = 30
MIN_BLOCKS_FOR_TOPIC_SHIFT = 8
MIN_BLOCKS_FOR_BREAK = 3
TOPIC_OVERLAP = 0.2
MAX_REFS = 6
ANSWER_WORDS = 12  # a reply to the agent's question is this short; a longer turn may be a new request
EMOJI = {"high": "🔴", "medium": "🟡", "low": "🟢"}


def split_prompt(prompt: str) -> tuple[str, str]:
    """(header, transcript): the transcript sits between the first `<transcript-…>` line (or a plain
    `<transcript>`) and the last line that closes that same tag."""
    lines = prompt.split("\n")
    opened = next(((i, m.group(1)) for i, line in enumerate(lines) if (m := _OPEN_TAG.match(line.strip()))), None)
    if opened is None:
        return "", prompt
    start, tag = opened
    end = next((i for i in range(len(lines) - 1, start, -1) if lines[i].strip() == f"</{tag}>"), None)
    if end is None:
        return "", prompt
    return "\n".join(lines[:start]), "\n".join(lines[start + 1 : end])


def _next_header(line: str, blocks: list[Block]) -> re.Match[str] | None:
    """The header a line starts, when it carries the next ref in order (the first one: any ref, a
    window cut to its most recent part starts past m1)."""
    m = _HEADER.match(line)
    if m is None or not blocks:
        return m
    return m if m.group(3) == f"m{int(blocks[-1].ref[1:]) + 1}" else None


def read_blocks(transcript: str) -> list[Block]:
    """Parse `[HH:MM] [Role] (mN): text` blocks; `→ Name(args)` lines become the block's tool calls."""
    blocks: list[Block] = []
    body: list[str] = []

    def close() -> None:
        if not blocks:
            return
        text_lines: list[str] = []
        for line in body:
            call = rules.tool_call(line) if blocks[-1].role == "Assistant" else None
            if call:
                blocks[-1].calls.append(call)
            elif blocks[-1].calls:  # argument lines of a multi-line call
                name, args = blocks[-1].calls[-1]
                blocks[-1].calls[-1] = (name, args + "\n" + line)
            else:
                text_lines.append(line)
        blocks[-1].text = "\n".join(text_lines).strip()
        blocks[-1].calls = [(name, args.strip()) for name, args in blocks[-1].calls]

    for line in transcript.split("\n"):
        m = _next_header(line, blocks)
        if m:
            close()
            time = None if m.group(1) == "--:--" else m.group(1)
            blocks.append(Block(time=time, role=m.group(2), ref=m.group(3)))
            body = [unescape_block_line(m.group(4))]
        elif blocks:
            body.append(unescape_block_line(line))
    close()
    return blocks


def _breakpoint(block: Block) -> bool:
    if block.role != "Assistant":
        return False
    committed = any("git commit" in args for _, args in block.calls)
    return committed or any(rules.BREAKPOINT.search(s) for s in rules.sentences(block.text)[-2:])


def segment_blocks(blocks: list[Block]) -> list[list[Block]]:
    """Split at summaries, time gaps over 30 min, topic shifts and breakpoints (fixed, committed, done)."""
    segments: list[list[Block]] = []
    current: list[Block] = []
    words: set[str] = set()
    last_minutes: int | None = None
    reached_break = False
    for block in blocks:
        gap = 0
        if block.minutes is not None and last_minutes is not None:
            gap = (block.minutes - last_minutes) % 1440
        new = bool(current) and (
            block.role == "Summary"
            or current[-1].role == "Summary"
            or (len(current) >= MIN_BLOCKS_FOR_BREAK and gap > GAP_MINUTES)
        )
        if current and not new and block.is_user_intent:
            user_words = rules.content_words(block.text)
            overlap = len(user_words & words) / len(user_words) if user_words else 1.0
            new = (len(current) >= MIN_BLOCKS_FOR_BREAK and reached_break) or (
                len(current) >= MIN_BLOCKS_FOR_TOPIC_SHIFT and len(user_words) >= 4 and overlap < TOPIC_OVERLAP
            )
        if new:
            segments.append(current)
            current, words, reached_break = [], set(), False
        current.append(block)
        if block.role in ("User", "Assistant") and not rules.is_meta_user_text(block.text):
            words |= rules.content_words(block.text)
        reached_break = reached_break or _breakpoint(block)
        last_minutes = block.minutes if block.minutes is not None else last_minutes
    if current:
        segments.append(current)
    return segments


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


ASKED = 'The user wrote: "{}".'  # a narrative's first sentence: the request, quoted


def narrative_for(segment: list[Block]) -> str:
    """Up to four sentences: what was asked, what was edited and run, how it ended."""
    parts = []
    ask = next((rules.intent(b.text) for b in segment if b.is_user_intent), "")
    if ask:
        parts.append(ASKED.format(ask.rstrip(".")))
    elif segment[0].role == "Summary":
        parts.append("Context carried over from an earlier compaction summary.")
    edited = list(dict.fromkeys(p for b in segment for n, a in b.calls if (p := rules.edited_path(n, a))))
    calls = sum(len(b.calls) for b in segment)
    if edited:
        names = ", ".join(f"`{p.rsplit('/', 1)[-1]}`" for p in edited[:3])
        more = f" and {len(edited) - 3} more" if len(edited) > 3 else ""
        parts.append(f"The agent modified {names}{more} ({_count(calls, 'tool call')}).")
    elif calls:
        parts.append(f"The agent made {_count(calls, 'tool call')} without modifying files.")
    if commands := noteworthy_commands(segment):
        parts.append("It ran " + ", ".join(f"`{c}`" for c in commands) + ".")
    said = [
        s for b in segment if b.role == "Assistant" for s in rules.sentences(b.text)
        if not s.endswith("?") and not rules.is_fragment(s)
    ]
    outcome = [s for s in said if rules.COMPLETION.search(s) or cues.ROOT_CAUSE.search(s)]
    final = (outcome or [s for s in said if not rules.AGENT_NARRATION.match(s)] or [""])[-1]
    if final:
        parts.append(f"Outcome: {rules.clip(final, 180)}")
    return " ".join(parts) or "Tool activity with no prose to distill."


def title_for(segment: list[Block]) -> str:
    for block in segment:
        if block.is_user_intent and (title := rules.title_from(block.text)):
            return title
    if segment[0].role == "Summary":
        return "Earlier context (compaction summary)"
    stated = (rules.purpose(s) for b in segment if b.role == "Assistant" for s in rules.sentences(b.text))
    return rules.title_from(next((p for p in stated if p), "")) or "Agent activity"


def _answers_a_question(blocks: list[Block], at: int) -> bool:
    """A short user turn right after the agent asked something ("minor, this is a big change" to "a minor
    or a patch release?"): the answer, not the task; "yes, add dark mode too" to "anything else?" asks for
    work, and is one."""
    said = next((blocks[i] for i in range(at - 1, -1, -1)
                 if blocks[i].role in ("User", "Assistant") and blocks[i].text.strip()), None)
    text = blocks[at].text
    if said is None or said.role != "Assistant" or not said.text.rstrip().endswith("?"):
        return False
    return len(text.split()) <= ANSWER_WORDS and not (cues.is_request(shape.answer_rest(text) or text)
                                                     or shape.is_task_request(text))


def _told(sentence: str, about_code: bool) -> bool:
    """A sentence that only tells: a preference, a standing rule, a decision or a cause found, no request."""
    fact = user_fact(sentence, "", about_code)
    return (fact is not None and fact[1].startswith(("User stated", "User decided"))
            and not (cues.is_request(sentence) or shape.is_task_request(sentence)))


def _asked(text: str, about_code: bool) -> str | None:
    """What a user turn asks, without what it only tells ("Please keep your answers short, I read them on my phone.
    Open the PR." asks to open the PR); None when it only tells ("I prefer small pull requests, one change each", "The
    bug was that the cache key ignored the tenant id. We are moving off Heroku."), each sentence a fact of its own
    (`_told`): the task is then the one asked before it. A correction redirects the task."""
    said = rules.sentences(text)
    asked = [s for s in said if not _told(s, about_code)]
    if said and not asked:
        return None
    return " ".join(asked) if len(asked) < len(said) else text


def _last_asks(blocks: list[Block], count: int, about_code: bool = True) -> list[tuple[str, str]]:
    """The last `count` tasks the user asked, newest first, each with the ref of the message it came from."""
    found: list[tuple[str, str]] = []
    for at in range(len(blocks) - 1, -1, -1):
        block = blocks[at]
        asked = _asked(block.text, about_code) if block.is_user_intent and not _answers_a_question(blocks, at) else None
        text = rules.intent(asked) if asked is not None else ""
        if text.endswith(":"):
            text = ""  # "Here is the staging env in case you need it:" and a pasted block: no task
        if len(rules.content_words(text)) >= 2 and text not in (t for t, _ in found):
            found.append((text, block.ref))
        if len(found) == count:
            break
    return found


def _before(blocks: list[Block], segment: list[Block]) -> Block | None:
    """The last block with words before the segment (the question its first turn may answer)."""
    start = next((i for i, b in enumerate(blocks) if b is segment[0]), 0)
    return next((b for b in reversed(blocks[:start]) if b.role in ("User", "Assistant") and b.text), None)


def _render_fact(fact: Candidate) -> str:
    time = f"({fact.time}) " if fact.time else ""
    refs = ", ".join(list(dict.fromkeys(fact.refs))[:MAX_REFS])
    return f"* {EMOJI[fact.priority]} {time}{fact.text} [{refs}]"


def observe_offline(system: str, prompt: str) -> str:
    """Answer the Observer prompt the way a model would, from the transcript alone."""
    header, transcript = split_prompt(prompt)
    blocks = read_blocks(rules.neutralize_tags(transcript))
    date = _DATE.search(header)
    out = ["<observations>", f"Date: {date.group(1)}" if date else "", ""]
    segments = segment_blocks(blocks)
    chat_log = is_chat_log(blocks)
    code = rules.about_code(blocks)
    repeats = repeated_asks(blocks) if code and not chat_log else {}  # a chat's "tell me more", twice, is no way of working
    for segment in segments:
        if segment[0].role == "Summary" and len(segment) == 1:
            continue
        facts = facts_for(segment, chat_log, before=_before(blocks, segment), about_code=code,
                          also={id(b): repeats[id(b)] for b in segment if id(b) in repeats})
        out += ["<segment>", f"<title>{title_for(segment)}</title>", f"<narrative>{narrative_for(segment)}</narrative>"]
        out += ["<facts>", *[_render_fact(f) for f in facts], "</facts>", "</segment>", ""]
    out.append("</observations>")
    asks = _last_asks(blocks, 2, code)
    intents = [text for text, _ in asks]
    primary = f"{asks[0][0]} [{asks[0][1]}]" if asks else "No explicit request in this transcript."
    secondary = f"{asks[1][0]} [{asks[1][1]}]" if len(asks) > 1 else "none"
    out += ["", "<current-task>", f"Primary: {primary}", f"Secondary: {secondary}", "</current-task>", ""]
    if "pre-compaction" in header and intents:
        response = f"Continue with: {intents[0]}"
    elif "pre-compaction" in header:
        response = "Continue with: the work in progress before compaction."
    else:
        response = "Session completed normally."
    out += ["<suggested-response>", response, "</suggested-response>"]
    return "\n".join(out)
