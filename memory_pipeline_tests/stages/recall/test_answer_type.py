"""The kind of answer a question asks for, found in a candidate's own words."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.answer_type import (
    NAME,
    NUMBER,
    PLACE,
    TIME,
    answer_texts,
    asked_type,
    holds,
    holds_near,
    own_words,
    typed,
)
from memory_pipeline.stages.recall.rank import Fused


@pytest.mark.parametrize("query, kind", [
    ("What speed is my new internet plan?", NUMBER),
    ("How many weddings have I attended this year?", NUMBER),
    ("How much did I spend on gifts for my sister?", NUMBER),
    ("What is the total amount I spent on the trip?", NUMBER),
    ("When did Caroline go to the support group?", TIME),
    ("What year did I graduate?", TIME),
    ("Where did I attend my cousin's wedding?", PLACE),
    ("Which city did I move to?", PLACE),
    ("Who supports Caroline when she has a negative experience?", NAME),
    ("What is the name of the playlist I created?", NAME),
    ("Which book did I finish a week ago?", NAME),
    ("What did Caroline research?", None),
    ("Can you suggest a hotel for my trip?", None),
    ("How did we fix the flaky test?", None),
])
def test_the_kind_of_answer_a_question_asks_for(query, kind):
    assert asked_type(query) == kind


@pytest.mark.parametrize("kind, text, found", [
    (NUMBER, "I upgraded to 500 Mbps about three weeks ago", True),
    (NUMBER, "I've been raising twelve hens", True),
    (NUMBER, "my internet has been really good lately", False),
    (TIME, "I went to a LGBTQ support group yesterday", True),
    (TIME, "we met on the 17th, a Tuesday", True),
    (TIME, "the group was so powerful", False),
    (PLACE, "I was at my cousin's wedding at the Grand Ballroom", True),
    (PLACE, "I moved from Sweden four years ago", True),
    (PLACE, "the wedding was lovely, at a small place", False),
    (NAME, "I've been listening on Spotify a lot", True),
    (NAME, "Caroline: Hey Mel, how are you?", True),
    (NAME, "I think it went well. It was fun.", False),  # a sentence's first word and "I" are not names
])
def test_a_text_holds_an_answer_of_the_kind(kind, text, found):
    assert holds(kind, text) is found


def test_a_message_is_judged_by_its_own_words_not_its_date_header():
    message = {"tier": "messages", "text": "[26 March 2025] the plan is fast\n(after: 300 Mbps?)",
               "message": "the plan is fast"}
    assert own_words(message) == "the plan is fast"
    assert not holds(TIME, own_words(message)) and not holds(NUMBER, own_words(message))
    assert own_words({"tier": "observations", "text": "User upgraded to 500 Mbps"}) == "User upgraded to 500 Mbps"


def test_the_answer_counts_in_a_sentence_that_says_the_questions_words():
    terms = tokenize("speed internet plan")
    assert holds_near(NUMBER, "Thanks! My internet plan is 500 Mbps now.", terms)
    # the reply's numbered steps are not next to the question's words
    assert not holds_near(NUMBER, "I love the internet plan. 1. Restart the router. 2. Call them.", terms)
    assert not holds_near(NUMBER, "I ran 5 miles today", terms)


def test_the_answer_counts_in_the_sentence_after_the_one_with_the_questions_words():
    terms = tokenize("speed internet plan")
    said = "My internet speed has been really good lately. I upgraded to 500 Mbps about three weeks ago."
    assert holds_near(NUMBER, said, terms)
    # only the next sentence: a number two sentences on is about something else
    assert not holds_near(NUMBER, "My internet is good. I love it. I ran 5 miles today.", terms)
    # a list's items after the question's words are steps, not the continuation of the sentence
    assert not holds_near(NUMBER, "Check your internet plan:\n1) Restart the router\n2) Call them", terms)
    assert not holds_near(NUMBER, "About your internet plan. - Restart it 2 times", terms)


def test_candidates_holding_the_answer_kind_are_lifted():
    fused = {"speed": Fused(0.50), "topic": Fused(0.52), "list": Fused(0.51)}
    texts = {"speed": "I upgraded my internet to 500 Mbps", "topic": "my internet speed has been slow lately",
             "list": "Internet tips for you.\n1. Restart the router\n2. Call your provider"}
    terms = tokenize("What speed is my internet plan?")
    out = typed(fused, texts, NUMBER, terms, 0.05)
    assert out["speed"].score == pytest.approx(0.55) and out["topic"].score == 0.52 and out["list"].score == 0.51
    assert fused["speed"].score == 0.50  # the input is not changed
    assert typed(fused, texts, None, terms, 0.05) is fused and typed(fused, texts, NUMBER, terms, 0.0) is fused


def test_a_question_about_one_speaker_reads_only_that_speakers_turns():
    payloads = {"u": {"tier": "messages", "role": "user", "message": "I upgraded to 500 Mbps"},
                "a": {"tier": "messages", "role": "assistant", "message": "1. Restart the router 2. Call"},
                "f": {"tier": "observations", "text": "User upgraded to 500 Mbps"}}
    assert answer_texts(payloads, ["u", "a", "f"], "user") == {"u": "I upgraded to 500 Mbps",
                                                               "f": "User upgraded to 500 Mbps"}
    assert set(answer_texts(payloads, ["u", "a", "f"], None)) == {"u", "a", "f"}  # no speaker: all of them
    assert set(answer_texts(payloads, ["a", "f"], "assistant")) == {"a", "f"}
