"""How the thing being built behaves, as the user specifies it in work on software: "The game ends if the king is
captured", "If a piece is on cooldown, moving it queues a pre-move", "When the cart is empty, the checkout button is
disabled", "There is no concept of check", "A guest can only see the public boards", and the same asked for ("Make it
so each piece has a cooldown of 10 seconds", "Change the rule such that the game is lost when the king is captured").

Not a bug report ("When I press new game, nothing happens", "The page crashes when the list is empty": a person's
doing as the condition, a failure or a negation in it), a step for now ("If the tests pass, push it": an imperative),
a moment ("currently", "still", "again") nor a wish about the screen ("Make it so I can drag the pieces"). Pure
predicates over one sentence; the Observer asks them of work on software only (`observer_rules.about_code`).
"""

from __future__ import annotations

import re

_WHEN = r"(?:if|when|whenever|once|as soon as|unless|until)"
# who the condition is about: a thing of the design, not the user ("when I press"), the project ("if we"), a pointer
# to the moment ("if it fails", "if that doesn't work") or the opening of a statement ("there")
_NOT_A_THING = r"(?:i|we|it|that|this|these|those|there|you(?:'re| are)|so|not|the (?:latter|former))\b"
# the consequence opens with what it is about: a thing, a pointer back to the condition's thing, a gerund
# ("moving it queues …"); an imperative ("push it", "let me know", "try …") or a person ("you see") is no behaviour
_SUBJECT = (r"(?:the|a|an|any|each|every|all|no|its|their|that|this|it|they|[\w\-]+ing|`[^`]+`|"
            r"(?-i:[A-Z])[\w\-]*)\b")
LEADING = re.compile(rf"^(?:and |also |then )?{_WHEN} (?!{_NOT_A_THING})[^,;]{{3,90}}[,;]\s*(?:then,?\s+)?"
                     rf"(?P<then>(?!(?:i|you|we|let|let's|please|try|make|push|commit|run|check|send|tell)\b){_SUBJECT}.*)$",
                     re.IGNORECASE)
TRAILING = re.compile(rf"^(?P<then>(?:the|a|an|any|each|every|all|no)\s+(?:[\w\-`.]+\s+){{1,4}}?(?:[\w\-']+\s+){{0,4}}?)"
                      rf"{_WHEN}\s+(?!(?:i|we|that|this|there)\b)\w", re.IGNORECASE)
# what the design has none of: "There is no concept of check", "there's no notion of a draft"
NO_CONCEPT = re.compile(r"^(?:and |also )?there(?:'s| is| are) (?:also )?no (?:concept|notion|such thing) of\s+"
                        r"(?![\"'“]?(?:it|this|that|them|these|those)\b)\S",
                        re.IGNORECASE)
# who may do what: "A guest can only see the public boards", "Any player can move off-cooldown pieces at any time"
# ("a user can't log in" reads as often as a bug report: a negated ability is left out)
ABILITY = re.compile(r"^(?:a|an|any|each|every|only)\s+(?:[\w\-]+\s+){1,2}(?:can|may)\s+(?:only\s+|always\s+|never\s+)?"
                     r"(?!not\b)\w+", re.IGNORECASE)
# the same, asked for: "Make it so each piece has a cooldown …", "Change the rule such that the game is lost …"
ASKED = re.compile(r"^(?:please\s+)?(?:make it (?:so|such)|change (?:the|this|that) rules? (?:so|such))(?: that)?,?\s+",
                   re.IGNORECASE)
# a failure or a negation in what follows the condition: what a bug report says ("nothing happens", "the page crashes
# when …", "the board doesn't render"; "when the payment fails, the order is cancelled" is a rule)
_FAILS = re.compile(
    r"\b(?:crash\w*|freez\w*|hang(?:s|ing)?|fail(?:s|ed|ing)?|break(?:s|ing)?|broke|broken|disappear\w*|vanish\w*|"
    r"flicker\w*|throw(?:s|n)?|errors?|warnings?|stuck|wrong|missing|nothing|blank|weird|bug\w*|glitch\w*|"
    r"(?:does|do|is|are|was|were|did|has|have|wo|would|could|should)n'?t|(?:does|do|is|are|did) not)\b", re.IGNORECASE)
# a moment of this task ("can still move" keeps: a permission)
_MOMENT = re.compile(r"\b(?:currently|right now|for now|now|today|again|anymore|yet|(?<!\bcan )(?<!\bmay )(?<!\bwill )"
                     r"still)\b", re.IGNORECASE)


def specifies_behaviour(sentence: str) -> bool:
    """The user states (or asks for) how the thing built behaves: a condition and what follows it, what there is
    none of, or who may do what; not a bug report, a step for now or a moment of this task. A question is none."""
    said = ASKED.sub("", " ".join(sentence.split()).strip(" \"'“”"))
    if said.endswith("?") or _MOMENT.search(said):
        return False
    if NO_CONCEPT.match(said):
        return True
    found = LEADING.match(said) or TRAILING.match(said) or ABILITY.match(said)
    then = found.groupdict().get("then") or found.group(0) if found else ""
    return bool(found) and not _FAILS.search(then)
