"""Whether recall found an answer, or only the least bad of unrelated memories (pure).

Ranking always returns its best candidates; a question memory cannot answer still gets ten hits.
What tells them apart is how close the best hits are in meaning: the question's cosine to the
nearest of the hits (`why.dense_score`, the float16 rescoring of the dense walk). Below
MIN_ANSWER_COSINE recall says it has nothing, and the hook and the MCP tool keep their answer short.

The threshold is measured on LoCoMo dev's 494 questions (each answerable in its conversation)
against ten made-up questions per conversation (docs/recall.md, "Knowing when there is nothing"):
the lowest answerable question's best cosine was 0.413, 0.326 and 0.449 in the three
conversations, the highest made-up one 0.312, 0.268 and 0.318; at 0.32 every answerable question
keeps its hits and all 30 made-up ones say "nothing". Chosen on two conversations, checked on the third.
On lme-dev (5,139 turns) every one of its 234 answerable questions keeps its hits too, but 7 of the 10
made-up ones pass (best cosine 0.326-0.373, above its lowest answerable 0.358): no cosine threshold
separates them there; an unanswerable question on a long history is not always told apart.

Between the two lies a weak match (MIN_ANSWER_COSINE up to STRONG_ANSWER_COSINE): shown to a reader who
asked (the CLI, the MCP tool), said to be weak, and left out of what a hook puts in the agent's context
unasked. STRONG_ANSWER_COSINE is just above the closest made-up question on the tuning questions (lme-dev's
ten and LoCoMo's thirty: 0.407); on forty other made-up questions written after it, 39 are weak or
nothing, while 11 of the 729 answerable dev questions (1.5 %) score below it (docs/recall.md, "Knowing when
there is nothing"). Keyword agreement did not separate them better: the share of the question's words the
hits hold, the words memory has never seen, and a hit high in both the meaning and the keyword list all
interleave answerable and made-up questions between 0.32 and 0.45. Hits that all lack a cosine (each
found by its keywords alone, none among the closest in meaning) are weak too: 1 of the 729 answerable
questions, 1 of the 40 held-out made-up ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_pipeline.models import RecallHit

MIN_ANSWER_COSINE = 0.32
STRONG_ANSWER_COSINE = 0.42
TOP = 10  # the hits whose closeness counts (the top 3 alone: 2 of 30 made-up questions had no dense score there)
SHOWN_WHEN_NOTHING = 3  # the closest hits a reader still sees, marked as not an answer
SHOWN_WHEN_WEAK = 5  # the hits the MCP tool shows of a weak match: of the 7 weak answerable dev questions with
# their evidence in the top 10, each has it in the top 5


@dataclass(frozen=True)
class Confidence:
    answered: bool
    best_cosine: float | None  # None: no hit carried a dense score (a keyword-only search)

    @property
    def level(self) -> str:
        """"none", "weak" (an answer is not likely among the hits) or "strong"."""
        if not self.answered:
            return "none"
        # no hit among the closest in meaning (each matched by keywords alone): nothing says it answers
        return "weak" if self.best_cosine is None or self.best_cosine < STRONG_ANSWER_COSINE else "strong"

    def as_dict(self) -> dict:
        return {"answered": self.answered, "level": self.level, "best_cosine": self.best_cosine}

    def weak_line(self) -> str:
        """What a reader is told over weak matches."""
        closest = "none close in meaning" if self.best_cosine is None else f"closest in meaning {self.best_cosine:.2f}"
        return f"weak matches only ({closest}, below {STRONG_ANSWER_COSINE}): memory may not hold the answer"

    def line(self, shown: int = SHOWN_WHEN_NOTHING) -> str:
        """What a reader is told when memory has nothing, over the `shown` nearest hits."""
        best = f"{self.best_cosine:.2f}" if self.best_cosine is not None else "none"
        nearest = "the nearest hit, not an answer" if shown == 1 else f"the {shown} nearest hits, not answers"
        return f"nothing in memory answers this (closest match in meaning {best}, below {MIN_ANSWER_COSINE}); {nearest}"


def confidence(hits: list[RecallHit], threshold: float = MIN_ANSWER_COSINE) -> Confidence:
    """Answered when one of the hits is at least `threshold` close to the question in meaning,
    or when no hit was scored in meaning at all (keyword matches: nothing to judge by, a weak match)."""
    cosines = [float(score) for h in hits[:TOP] if (score := h.why.get("dense_score")) is not None]
    if not hits:
        return Confidence(False, None)
    if not cosines:
        return Confidence(True, None)
    best = max(cosines)
    return Confidence(best >= threshold, round(best, 4))
