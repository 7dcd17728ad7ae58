"""A request the user makes again and again in one window: how they want the work done, not one task
("read it in full", asked in three turns), for the offline Observer."""

from __future__ import annotations

import re

from memory_pipeline.stages.offline import distil as shape
from memory_pipeline.stages.offline import observer_cues as cues
from memory_pipeline.stages.offline import observer_rules as rules
from memory_pipeline.stages.offline.observer_facts import Block, Candidate

# a way of working asked for again is said in a few words ("read it in full", "no tail"); a longer request
# made twice is a task done twice ("create a new custom theme and open it with the code command")
ASK_WORDS = 6
_PATHLIKE = re.compile(r"\S*[/.@]\S*")
# the project's check or test command, asked for in the user's turn ("did more stuff, npm run check", "do a npm
# run check in root dir"): asked in several turns, it is how work is checked there. Not a command the user ran
# and pasted ("➜ repo git:(main) npx tsx src/cli.ts") nor one they will run ("so i can execute it with npx tsx").
_COMMAND = (r"(?:(?:npm|pnpm|yarn|bun) (?:run [\w:.-]+|test|build|lint)|npx [\w@/.:-]+|cargo (?:test|build|check|"
            r"clippy|fmt)|go (?:test|build|vet)|uv run [\w.:-]+|pytest|tox|mix (?:test|format|compile|precommit|credo|"
            r"dialyzer)|ruff(?: check)?|mypy|tsc)")
COMMAND_ASK = re.compile(rf"^(?:(?:please|pls|now|then|and|also|ok(?:ay)?|did (?:some )?more(?: \w+)?|do(?: a| an| "
                         rf"another)?|run)\s+)*(?P<command>{_COMMAND})(?:\s+(?:(?:in|at|from) (?:the )?[\w/.-]+(?: dir"
                         rf"(?:ectory)?)?|again|please))*$", re.IGNORECASE)


def _ask_key(clause: str) -> frozenset[str]:
    """What a request asks, without the file it names: "read packages/x/theme.md in full" and "read it in
    full" both ask {read, full}."""
    return frozenset(rules.content_words(_PATHLIKE.sub(" ", clause)))


def repeated_asks(blocks: list[Block], times: int = 2) -> dict[int, Candidate]:
    """A request the user made in `times` or more turns of the window ("read it in full", three times):
    how they want the work done, not one task. Keyed by the `id()` of the block of its last asking."""
    asked: dict[frozenset[str], list[tuple[Block, str]]] = {}
    for block in blocks:
        if not block.is_user_intent:
            continue
        keys = set()
        for sentence in rules.sentences(block.text):
            for command in {m["command"].lower() for c in shape.clauses(sentence) if (m := COMMAND_ASK.match(c))}:
                if (key := frozenset({"$", command})) not in keys:  # "npm run check" asked in several turns
                    keys.add(key)
                    asked.setdefault(key, []).append((block, f"Run `{command}`"))
            for clause in shape.clauses(sentence):
                key = _ask_key(clause)
                if (len(key) >= 2 and key not in keys and len(clause.split()) <= ASK_WORDS
                        and (cues.is_request(clause) or shape.is_rule(clause))):
                    keys.add(key)
                    asked.setdefault(key, []).append((block, clause))
    found = {}
    for asks in asked.values():
        if len(asks) >= times:
            last, clause = asks[-1]
            text = f'User asked {len(asks)} times: "{rules.clip(shape.distil(clause), 120)}"'
            found[id(last)] = Candidate("high", last.time, text, [b.ref for b, _ in asks])
    return found
