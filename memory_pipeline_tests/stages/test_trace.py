"""Pure parts of `trace`: what a target names, finding a MEMORY.md line, matching its draft."""

from __future__ import annotations

from memory_pipeline.models import ProposalDraft
from memory_pipeline.stages.trace import find_lines, match_draft, memory_lines, proposal_day, quote, target_kind

MEMORY = "# MEMORY\n\n## Hard Rules\n\n- (2026-11-21) Always use uv, never pip. <!-- p-20261121-003 -->\n- my own rule\n"


def test_targets_are_told_apart():
    assert target_kind("p-20261121-003") == "proposal" and proposal_day("p-20261121-003") == "2026-11-21"
    assert target_kind("5") == "line_number"
    assert target_kind("0BF14310-151D-5FC7-A25C-420D33AEC6D7") == "record_id"
    assert target_kind("never pip") == "line_text"


def test_lines_are_found_by_text_and_carry_their_proposal_id():
    [line] = find_lines(MEMORY, "use UV, never-pip")
    assert (line.number, line.proposal_id) == (5, "p-20261121-003")
    assert memory_lines(MEMORY)[5].proposal_id is None and find_lines(MEMORY, "p-20261121") == []


def test_a_draft_matches_exactly_or_by_shared_words_only():
    drafts = [ProposalDraft(section="Hard Rules", text="Always use uv, never pip."),
              ProposalDraft(section="Patterns", text="Share one Redis pool per process.")]
    assert match_draft(drafts, ["always use UV never pip"]) == (drafts[0], "same text")
    found, how = match_draft(drafts, ["Share one Redis connection pool per process."])
    assert found is drafts[1] and how.startswith("similar text")
    assert match_draft(drafts, ["Something else entirely"]) == (None, "")
    assert quote("a  b\n" * 200, limit=10) == "a b a b a…"


def test_an_observation_line_names_its_project_when_it_has_one():
    from memory_pipeline.stages.trace import _observation_lines

    observation = {"id": "obs-1", "date": "2026-11-21", "session_id": "s1", "trigger": "shutdown",
                   "prompt_sha": "abc", "model": "offline", "code_version": "v1", "facts": []}
    assert "session s1, project shop, shutdown" in _observation_lines(observation | {"project": "shop"})[0]
    assert "session s1, shutdown" in _observation_lines(observation | {"project": ""})[0]
