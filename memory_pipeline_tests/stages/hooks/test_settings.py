"""Merging our hook entries into a Claude Code settings document (pure)."""

from __future__ import annotations

import copy

import pytest

from memory_pipeline.errors import BadInputError
from memory_pipeline.stages.hooks.settings import HOOK_EVENTS, add_our_hooks, is_our_command, remove_our_hooks

COMMAND = "/venv/bin/memory-pipeline hook claude-code"
THEIRS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}],
    },
}


def test_add_keeps_their_settings_and_hooks():
    merged = add_our_hooks(THEIRS, COMMAND)
    assert merged["model"] == "opus" and merged["permissions"] == THEIRS["permissions"]
    assert merged["hooks"]["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]
    assert merged["hooks"]["SessionStart"][0] == THEIRS["hooks"]["SessionStart"][0]
    for event, (matcher, timeout) in HOOK_EVENTS.items():
        ours = [g for g in merged["hooks"][event] if any(is_our_command(h) for h in g["hooks"])]
        assert len(ours) == 1
        assert ours[0].get("matcher") == matcher
        assert ours[0]["hooks"] == [{"type": "command", "command": COMMAND, "timeout": timeout}]
    assert THEIRS["hooks"]["SessionStart"] == [{"matcher": "startup", "hooks": [{"type": "command",
                                                                                  "command": "echo hi"}]}]


def test_add_is_idempotent_and_replaces_an_old_path():
    once = add_our_hooks(THEIRS, COMMAND)
    assert add_our_hooks(once, COMMAND) == once
    moved = add_our_hooks(once, "/new/bin/memory-pipeline hook claude-code")
    assert "/venv/bin" not in str(moved)
    assert sum(len(groups) for groups in moved["hooks"].values()) == sum(len(g) for g in once["hooks"].values())


def test_remove_leaves_exactly_theirs():
    assert remove_our_hooks(add_our_hooks(THEIRS, COMMAND)) == THEIRS
    assert remove_our_hooks(add_our_hooks({}, COMMAND)) == {}
    assert remove_our_hooks(THEIRS) == THEIRS


def test_remove_keeps_their_command_sharing_our_group():
    mixed = copy.deepcopy(THEIRS)
    mixed["hooks"]["SessionEnd"] = [{"hooks": [{"type": "command", "command": COMMAND},
                                               {"type": "command", "command": "notify-send bye"}]}]
    cleaned = remove_our_hooks(mixed)
    assert cleaned["hooks"]["SessionEnd"] == [{"hooks": [{"type": "command", "command": "notify-send bye"}]}]


def test_recognises_only_our_command():
    assert is_our_command({"command": "MEMORY_WORKSPACE=/w /x/memory-pipeline hook claude-code"})
    assert is_our_command({"command": "/usr/bin/python3 -m memory_pipeline.cli hook claude-code"})
    assert not is_our_command({"command": "memory-pipeline hook claude-code && rm -rf /"})
    assert not is_our_command({"command": "other-tool hook claude-code"})
    assert not is_our_command("memory-pipeline hook claude-code")
    assert is_our_command({"command": "MEMORY_WORKSPACE='/my ws' /v/bin/python3 -S "
                                      "/src/memory_pipeline/hook_entry.py hook claude-code"})


@pytest.mark.parametrize("theirs", [
    "other-tool --after memory-pipeline hook claude-code",  # another tool's hook that runs ours after its own
    "/opt/memory-pipeline-audit/bin/audit hook claude-code",
    "memory_pipeline_logger hook claude-code",
    "notify --tag memory-pipeline hook claude-code",
    "python3 -S /opt/other/hook_entry.py hook claude-code",
    "sh -c 'memory-pipeline hook claude-code'",
    "MEMORY_WORKSPACE=/w FOO=1 /x/memory-pipeline hook claude-code",
    "/x/memory-pipeline hook claude-code --refresh-recall s1",
])
def test_another_tools_hook_ending_like_ours_is_kept(theirs):
    assert not is_our_command({"command": theirs})
    document = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": theirs}]}]}}
    assert remove_our_hooks(document) == document
    assert add_our_hooks(document, COMMAND)["hooks"]["Stop"][0] == document["hooks"]["Stop"][0]


def test_malformed_hooks_are_refused():
    with pytest.raises(BadInputError, match="expected an object"):
        add_our_hooks({"hooks": []}, COMMAND)
    with pytest.raises(BadInputError, match="expected a list"):
        add_our_hooks({"hooks": {"Stop": {}}}, COMMAND)
    with pytest.raises(BadInputError, match="not a memory-pipeline hook"):
        add_our_hooks({}, "rm -rf /")
