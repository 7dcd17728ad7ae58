"""Whether a fact states that something changed (pure): the cue that lets it supersede an older fact.

A cue counts where it tells the change, not where it tells the background or an event:

- a change inside a clause of time or reason is background to what the fact says ("They've been there
  through everything, Caroline has known these friends for 4 years, since Caroline moved from her home
  country"; "after we migrated to 17, the queries got faster");
- "actually" corrects a state ("Actually, it's port 6380"; "actually the service runs on 17 now"), not
  an event told ("Actually, Melanie just took her family camping last week");
- a change still weighed before its cue ("I'm considering switching to pnpm instead of npm", "maybe we move
  to 17") is not made;
- "instead of" from the assistant alone is advice or the reason for a choice ("Opt for natural sweeteners
  instead of refined sugar"; "I used a Map instead of an object"), not a correction of what is true:
  only a user's "we use pnpm instead of npm now" corrects; and so is the assistant's imperative ("Switch
  to metal straws instead of plastic ones"), where its report of a change it made is not ("Switched to
  BlockingConnectionPool; all 5 tests pass").

On the dev sets every supersession the ledger made before these rules was one of the three (LoCoMo
conv-26: 2 facts, lme-dev: 10 facts of the assistant's advice): none was a correction.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory_pipeline.stages.offline.distil import CHANGE as TOLD_CHANGE

# the ledger's own cues (a decision's words) beside the Observer's (distil.CHANGE)
CHANGE = re.compile(r"\b(?:moved (?:from|to)|switch(?:ed)? (?:from|to)|migrat\w* (?:from|to)|no longer|"
                    r"instead of|replaced|changed (?:from|to)|upgraded|downgraded|now (?:uses?|is|runs?)|"
                    r"not \w+ anymore|actually)\b", re.I)
# a clause of time or reason opened within three words before the cue, no comma between
BACKGROUND = re.compile(r"\b(?:since|when|after|before|because|once|until|while|as)\s+(?:[\w'’-]+\s+){0,3}$", re.I)
# a state said after "actually": a present verb of being or using, or a rule
_STATE = re.compile(r"\b(?:is|are|isn't|aren't|(?:it|that|this|there|he|she|what)['’]s|runs?|uses?|lives?|works?|"
                    r"has|have|points?|means?|should|must|needs?)\b", re.I)
# still weighing a choice ("I'm thinking of visiting Tsukiji instead of Toyosu", "maybe we switch to pnpm",
# "I'm leaning towards Todoist"), unless it was made ("we decided", "switched to", "went with")
WEIGHING = re.compile(r"\b(?:thinking (?:of|about)|considering|might|maybe|torn between|leaning (?:towards?|toward)|"
                      r"not sure (?:if|whether|about)|trying to decide|deciding (?:between|whether))\b", re.I)
MADE = re.compile(r"\b(?:decided|chose|opted|settled on|went with|switched|moved|migrated|upgraded|downgraded|"
                  r"replaced|adopted)\b", re.I)
CONTRAST = ("instead of", "in place of")
# advice: a sentence (or a "Label: " item) that opens with a verb in the imperative
_IMPERATIVE = re.compile(r"^(?:[^:]{1,40}:\s*)?(?:switch|move|migrate|upgrade|downgrade|change|replace|use|opt|choose|"
                         r"try|consider|go|stick)\b", re.I)


def _cues(body: str) -> Iterator[str]:
    """The change cues of `body` that tell a change (lowercased)."""
    for pattern in (CHANGE, TOLD_CHANGE):
        for found in pattern.finditer(body):
            cue = found.group(0).lower()
            if BACKGROUND.search(body[:found.start()]):
                continue
            if WEIGHING.search(body[:found.start()]) and not MADE.search(body[:found.end()]):
                continue  # "I'm considering switching to pnpm": weighed, not made
            if cue == "actually" and not _STATE.search(body[found.end():]):
                continue
            if pattern is TOLD_CHANGE and body.rstrip().endswith("?"):
                continue  # "did we move to 17?" asks
            yield cue


def states_change(body: str) -> bool:
    """Whether `body` states that something changed (see the module's rules)."""
    return any(True for _ in _cues(body))


def advice_only(body: str, roles: tuple[str, ...]) -> bool:
    """Whether the change `body` tells is advice no user gave: the assistant's "instead of", or its
    imperative."""
    if not roles or "user" in roles:
        return False
    cues = set(_cues(body))
    return bool(cues) and (cues <= set(CONTRAST) or bool(_IMPERATIVE.match(body.strip())))
