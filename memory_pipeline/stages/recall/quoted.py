"""An observation that quotes a message (pure): the two say one thing.

The offline Observer's narrative of a segment opens with the user's request in quotes ('The user
wrote: "I'm looking for some inspiration for my next painting project".') and cites the segment's
other messages, not the one it quotes: the fact does not fold into its message's unit
(stages/recall/evidence.py), and a list shows the request twice, once as the message and once as
the narrative. `rank` lists the message once, at the better of the two places.
"""

from __future__ import annotations

import re

QUOTE = re.compile(r'"([^"]{20,})"')  # a quoted span of 20 characters or more: a sentence, not a name
COMPARED = 80  # characters of a quote looked for in a message


def quotes(text: str) -> list[str]:
    """The long quoted spans of `text`, lowercased and clipped to their first COMPARED characters."""
    return [q.strip().lower()[:COMPARED] for q in QUOTE.findall(text)]


def quoted_in(said: list[str], text: str) -> bool:
    """Whether `text` holds one of the quoted spans `said` (`quotes`' output) word for word."""
    if not said:
        return False
    low = text.lower()
    return any(q in low for q in said)
