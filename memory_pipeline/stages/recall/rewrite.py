"""Query rewriting (pure): the prompt's answer parser and the offline rewriter.

The LLM call itself goes through LLMClient (task "rewrite"); the offline provider answers
with `rewrite_offline`: the query's content words, question words and filler removed.
"""

from __future__ import annotations

import re

from memory_pipeline.stages.index.sparse import STOP_WORDS

QUERY_BLOCK = re.compile(r"<query>\s*(.*?)\s*</query>", re.S)
WORD = re.compile(r"[\w][\w'./:-]*")
FILLER = frozenset("""
    did does do ever tell told remember recall thing things something anything know think
    please find show look say said mention mentioned about kind sort also like get got go went
    """.split())
MAX_REWRITE_CHARS = 500


def rewrite_offline(system: str, prompt: str) -> str:
    """Content words of the query in <query>…</query>, in order, each once."""
    found = QUERY_BLOCK.search(prompt)
    query = found.group(1) if found else prompt
    words = []
    seen = set()
    for word in WORD.findall(query):
        key = word.lower().strip("'.:-")
        if not key or key in STOP_WORDS or key in FILLER or key in seen:
            continue
        seen.add(key)
        words.append(word.strip("'.:-"))
    return " ".join(words) or " ".join(query.split())


def parse_rewrite(text: str) -> str:
    """The rewritten query: first non-empty line, quotes stripped; ValueError when unusable."""
    line = next((ln.strip().strip('"').strip() for ln in text.splitlines() if ln.strip()), "")
    if not line:
        raise ValueError("the rewrite is empty")
    if len(line) > MAX_REWRITE_CHARS:
        raise ValueError(f"the rewrite has {len(line)} characters, over {MAX_REWRITE_CHARS}")
    return line
