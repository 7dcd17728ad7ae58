"""docs/cli.md's reference is the one generated from the commands' arguments and help."""

from memory_pipeline.reference import END, PAGE, START, page_with, render


def test_cli_page_is_the_generated_one():
    page = PAGE.read_text(encoding="utf-8")
    assert page_with(render(), page) == page, "stale: run `python -m memory_pipeline.reference --write`"


def test_reference_names_every_group_and_action():
    reference = render()
    for path in ("service start", "service stop", "service status", "service ui", "hooks install", "hooks run",
                 "secrets check", "secrets scrub", "ledger pack", "review approve"):
        assert f"### `memory-pipeline {path}`" in reference
    assert "### `memory-pipeline install-hooks`" not in reference  # aliases are not listed


def test_page_with_replaces_only_the_block():
    page = f"intro\n{START}\nold\n{END}\nafter\n"
    assert page_with("new\n", page) == f"intro\n{START}\nnew\n{END}\nafter\n"
