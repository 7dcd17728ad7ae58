"""Project scoping, pure: which facts are the user's own, which MEMORY.md sections a project reads,
where REVIEW.md shows a proposal, and who may see what."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import Proposal
from memory_pipeline.stages.projects import ALL_PROJECTS, ProjectScope, fact_scope, parse_project_map
from memory_pipeline.stages.review.memory_md import append_to_sections, for_project, section_heading
from memory_pipeline.stages.review.review_md import render_review_md, text_key

USER_LEVEL = [
    'User stated: "I prefer short answers"',
    'User stated: "I\'d rather you ask before committing anything"',
    "User prefers concise responses without emojis",
    'User stated: "In all my projects, never add emojis to commit messages"',
    'User stated: "Call me Sam"',
]
PROJECT_LEVEL = [
    'User stated: "I prefer uv over pip in this repo"',  # names the project
    'User stated: "I like the tests in tests/unit"',  # a path
    'User stated: "always use snake_case for handler names"',  # an identifier, and not about the user
    'User corrected the agent: "no, use pnpm"',
    'User stated: "We always deploy with Fly.io"',  # "we": the team's project
    "Decided to keep thinking blocks out of the export",
    'User stated: "I would prefer for this to be something I run by hand instead of something that runs all the time"',
]


@pytest.mark.parametrize("text", USER_LEVEL)
def test_a_preference_about_the_user_is_user_level(text):
    assert fact_scope(text, ["user"]) == "user"


@pytest.mark.parametrize("text", PROJECT_LEVEL)
def test_anything_naming_the_project_stays_in_it(text):
    assert fact_scope(text, ["user"]) == "project"


def test_only_the_users_own_words_can_be_user_level():
    assert fact_scope('User stated: "I prefer short answers"', ["tool"]) == "project"  # a web page said it
    assert fact_scope('User stated: "I prefer short answers"', ["assistant"]) == "project"
    assert fact_scope('User stated: "I prefer short answers"', ["user", "tool"]) == "project"


def test_a_scope_admits_its_project_the_users_memories_and_unknown_ones():
    shop = ProjectScope("shop")
    assert shop.admits("shop") and shop.admits("api", "user") and shop.admits("")
    assert not shop.admits("api") and ALL_PROJECTS.admits("api")
    nowhere = ProjectScope("", "the session named no folder")  # no project known: the user's own, and no project's
    assert nowhere.admits("") and nowhere.admits("api", "user") and not nowhere.admits("api")
    assert nowhere.describe() == "no project + user-level memories (the session named no folder)"


def test_project_map_entries_are_checked():
    assert parse_project_map("/a/*=alpha; */b=beta") == [("/a/*", "alpha"), ("*/b", "beta")]
    for bad in ("no-equals-sign", "=name", "/a=../up"):
        with pytest.raises(BadInputError):
            parse_project_map(bad)


def test_memory_md_sections_of_other_projects_are_not_read():
    text = append_to_sections("", [("User", "- short answers"), (section_heading("Hard Rules", "shop"), "- fly"),
                                   ("Hard Rules", "- no force-push"), (section_heading("Hard Rules", "api"), "- alembic")])
    assert "## Hard Rules — shop" in text and "## Hard Rules — api" in text
    shop = for_project(text, "shop")
    assert "- fly" in shop and "- short answers" in shop and "- no force-push" in shop and "alembic" not in shop
    assert "- fly" not in for_project(text, "") and for_project(text, None) == text
    # a second promotion for the same project lands in its existing section
    again = append_to_sections(text, [(section_heading("Hard Rules", "shop"), "- second")])
    assert again.count("## Hard Rules — shop") == 1 and again.index("- second") < again.index("## Hard Rules\n")


def test_review_md_groups_proposals_where_they_will_land():
    proposals = [Proposal(id="p-20261110-001", section="Hard Rules", text="Deploy to Fly.io", created="2026-11-10",
                          project="shop"),
                 Proposal(id="p-20261110-002", section="User", text="Prefers short answers", created="2026-11-10")]
    text = render_review_md(proposals, datetime(2026, 11, 10, tzinfo=timezone.utc))
    assert "## Proposed for: User" in text and "## Proposed for: Hard Rules — shop" in text
    assert text.index("Proposed for: User") < text.index("Proposed for: Hard Rules — shop")  # plain first
    assert text_key("Deploy to Fly.io", "shop") != text_key("Deploy to Fly.io", "api")
    assert text_key("Deploy to Fly.io") == text_key("deploy to fly io")  # the key without a project is unchanged


def test_the_scope_a_read_command_uses_and_says():
    from memory_pipeline.stages.projects import ASKED_ALL, ASKED_BY_FOLDER, ASKED_BY_NAME, choose_scope, with_other_hits

    assert choose_scope("shop", ASKED_BY_FOLDER, True).project == "shop"
    # a new repository stays itself: the user's own memories only, and where the others are
    home = choose_scope("root", ASKED_BY_FOLDER, False, ["shop", "api"])
    assert home.project == "root" and home.note == home.why
    assert home.why == ("this folder's project root has no memories yet: showing your user-level memories only; "
                        "2 other projects have memories (api, shop): --all-projects to look")
    assert choose_scope("root", ASKED_BY_FOLDER, False).why.endswith("user-level memories only")
    one = choose_scope("root", ASKED_BY_FOLDER, False, ["shop"], widen="all_projects=true")
    assert one.why.endswith("1 other project has memories (shop): all_projects=true to look")
    nowhere_folder = choose_scope("", ASKED_BY_FOLDER, True)
    assert nowhere_folder.project == "" and nowhere_folder.why.startswith("this folder is in no project: showing")
    no_folder = choose_scope("", ASKED_BY_FOLDER, True, ["shop"], no_project="the session named no folder")
    assert no_folder.project == "" and no_folder.why == ("the session named no folder: showing your user-level "
                                                         "memories only; 1 other project has memories (shop): "
                                                         "--all-projects to look")
    assert choose_scope("shop", ASKED_BY_FOLDER, True).note is None
    assert choose_scope("shop", ASKED_BY_NAME, False).project == "shop"  # a named project stays itself
    assert choose_scope(None, ASKED_ALL, False).why == "looked at all projects (--all-projects)"
    missed = with_other_hits(choose_scope("api", ASKED_BY_FOLDER, True), 10, 10)
    assert missed.why == "no hits in project api; 10+ hits in other projects: add --all-projects to see them"
    nowhere = with_other_hits(choose_scope("api", ASKED_BY_NAME, True), 0, 10)
    assert nowhere.why.endswith("none in other projects either")
