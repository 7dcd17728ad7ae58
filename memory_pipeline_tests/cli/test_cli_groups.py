"""The CLI by noun: each old command name parses to the same handler and arguments as its new
place, and the command list shows only the new names."""

import pytest

from memory_pipeline.main import build_parser

OLD_AND_NEW = [
    (["status", "--json"], ["service", "status", "--json"]),
    (["stop", "--timeout", "3"], ["service", "stop", "--timeout", "3"]),
    (["ui", "--port", "3001"], ["service", "ui", "--port", "3001"]),
    (["hook", "claude-code"], ["hooks", "run", "claude-code"]),
    (["install-hooks", "claude-code", "--user"], ["hooks", "install", "claude-code", "--user"]),
    (["redact-check", "/tmp/x"], ["secrets", "check", "/tmp/x"]),
    (["scrub", "--json"], ["secrets", "scrub", "--json"]),
    (["pack", "--project", "p"], ["ledger", "pack", "--project", "p"]),
]


def _parsed(argv: list[str]) -> dict:
    args = vars(build_parser().parse_args(argv))
    return {k: v for k, v in args.items() if k != "command" and not k.endswith("_action")}


@pytest.mark.parametrize(("old", "new"), OLD_AND_NEW, ids=[old[0] for old, _ in OLD_AND_NEW])
def test_old_name_runs_the_new_command(old, new):
    assert _parsed(old) == _parsed(new)


def test_the_command_line_written_into_settings_json_still_parses():
    from memory_pipeline.cli.hooks.install import hook_command
    from memory_pipeline.cli.hooks.run import run_hook

    words = hook_command().split()
    assert words[-2:] == ["hook", "claude-code"]
    assert build_parser().parse_args(words[-2:]).handler is run_hook


def test_help_lists_groups_not_old_names():
    text = build_parser().format_help()
    listed = {line.split()[0] for line in text.split("COMMAND\n", 1)[1].split("\n\n")[0].splitlines() if line[4:5] != " "}
    assert {"service", "hooks", "secrets", "ledger", "review", "bench"} <= listed
    assert not listed & {"status", "stop", "ui", "recall-service", "hook", "install-hooks", "redact-check", "scrub", "pack"}


def test_bench_without_the_benchmarks_package_says_how_to_get_it(monkeypatch, capsys):
    import sys

    from memory_pipeline.main import main

    for name in [m for m in sys.modules if m == "benchmarks" or m.startswith("benchmarks.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "benchmarks", None)  # import benchmarks → ModuleNotFoundError
    assert main(["bench", "recall", "--speed"]) == 1
    assert "the benchmarks are not installed" in capsys.readouterr().err


def test_bench_with_the_benchmarks_package_lists_them():
    text = build_parser().parse_args(["bench", "pack", "--sizes", "10"])
    assert text.sizes == "10" and text.handler.__module__ == "benchmarks.cli"
