"""Whether a change names what it changes (pure): a fact saying something changed supersedes an older
fact about the same entity only when both speak of the same thing: a word beyond the entity, its verbs
of change and its times, or one of them names nothing beyond these ("We moved to Postgres 17": Postgres
itself).

"We moved the orders service to Postgres 17" and "the orders service runs on Postgres 16" share
"orders" and "service"; "One special memory for Caroline was this pride parade Caroline went
to" and "Caroline went to a council meeting for adoption" share only Caroline (the entity), the light
verb and no thing. Before this rule a change cue and a cosine of 0.4 were enough, and in a conversation
about two people most facts about one of them reach 0.4 by the name alone: on LoCoMo dev the ledger
marked 12 unrelated facts superseded (each then ranked at 0.3 of its score, with its messages), and
recall@10 moved by 0.005-0.01 with how many it marked in a given ingest.
"""

from __future__ import annotations

from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.terms import LIGHT_VERBS

# when something happened is no subject: "last week" in two unrelated facts is not the same thing
TIME_WORDS = frozenset(tokenize(
    "today yesterday tomorrow tonight now recently ago last next week weeks weekend day days month months "
    "year years morning evening night time monday tuesday wednesday thursday friday saturday sunday january "
    "february march april may june july august september october november december"))


# how a change is said, and what is changed to: "we now use", "moved to", "switched from … to"
CHANGE_WORDS = frozenset(tokenize(
    "moved move moving switched switch migrated migrate upgraded upgrade downgraded downgrade changed change "
    "replaced replace went now longer instead anymore actually update fyi use uses using run runs running"))


# words that say how much or how good, or point, and name no thing: two facts sharing "really" or "us"
# are not about one thing
FILLER_WORDS = frozenset(tokenize(
    "really very so much more most less since also just still even too quite pretty us our ours we you your "
    "they them their good great awesome nice cool amazing fun happy glad lot lots thing things stuff one ones "
    "few many some any way bit kind sort sure well always ever never new old big little own other another"))


def subject_words(text: str, entity: str | None) -> set[str]:
    """The keyword terms of `text` that can name a subject: not the entity's, a verb of change, a light
    verb, a time word, a filler or a bare number."""
    left_out = LIGHT_VERBS | TIME_WORDS | CHANGE_WORDS | FILLER_WORDS | set(tokenize(entity or ""))
    return {t for t in tokenize(text) if t not in left_out and not t.isdigit()}


def same_subject(new: str, old: str, entity: str | None) -> bool:
    """Whether the change `new` speaks of what `old` does: one of them names nothing beyond the entity
    (the entity itself), or they share a subject word."""
    named, was = subject_words(new, entity), subject_words(old, entity)
    return not named or not was or bool(named & was)
