"""The import rules docs/ARCHITECTURE.md states, checked on every import in the code: top-level,
inside functions and under TYPE_CHECKING alike (parsed with `ast`, nothing imported).

- each part imports only itself and the parts its row of the layer table names;
- no import cycle between modules;
- no module imports another module's private name (`_x`);
- Dagster only in the wiring, the commands, the services, the flows and the entry point;
- stages do no I/O and use no client SDK (nothing that opens a process, a socket or a file store);
- `Settings.from_env()` is called only at the doors (SETTINGS_DOORS): below them settings are passed down,
  as a required parameter (no default that would ignore the environment);
- only resources/workspace.py joins a workspace's top-level folder or file names onto a path;
- each command module or package directly under cli/ is named like its command;
- hook_entry.py (the hook's door) imports only the standard library; mcp_entry.py (the MCP server's
  door) only the standard library, the package's `__init__` and hook_entry.
(Only config.py and faults.py read the environment: test_config.py.)"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from memory_pipeline_tests.support.paths import PROJECT_ROOT

PACKAGES = ("memory_pipeline", "benchmarks")
# (module prefix, part), the most specific first.
PARTS = [
    ("memory_pipeline.main", "main"), ("memory_pipeline.reference", "main"), ("memory_pipeline.cli.__main__", "main"),
    ("memory_pipeline.definitions", "wiring"), ("memory_pipeline.defs", "wiring"),
    ("memory_pipeline.cli", "commands"), ("benchmarks", "commands"),
    ("memory_pipeline.services", "services"),
    ("memory_pipeline.flows", "flows"),
    ("memory_pipeline.resources", "resources"),
    ("memory_pipeline.stages", "stages"),
    ("memory_pipeline.pipeline", "pipeline"),
    ("memory_pipeline.config", "config"),
    ("memory_pipeline.ports", "ports"),
    ("memory_pipeline.models", "base"), ("memory_pipeline.prompts", "base"), ("memory_pipeline.errors", "base"),
    ("memory_pipeline.faults", "base"), ("memory_pipeline", "base"),
]
BELOW_FLOWS = {"resources", "stages", "pipeline", "config", "ports", "base"}
MAY_IMPORT = {
    "main": {"wiring", "commands", "services", "flows"} | BELOW_FLOWS,
    "wiring": {"flows"} | BELOW_FLOWS,
    "commands": {"services", "flows"} | BELOW_FLOWS,
    "services": {"flows"} | BELOW_FLOWS,
    "flows": BELOW_FLOWS,
    "resources": {"stages", "pipeline", "config", "ports", "base"},
    "stages": {"ports", "base"},
    "pipeline": {"config", "base"},
    "config": {"base"},
    "ports": {"base"},
    "base": set(),
}
DAGSTER_PARTS = {"main", "wiring", "commands", "services", "flows"}
NOT_IN_STAGES = {"dagster", "redis", "qdrant_client", "qdrant_edge", "anthropic", "torch", "sentence_transformers", "onnxruntime",
                 "tokenizers", "filelock", "subprocess", "socket", "sqlite3", "shutil", "tempfile", "urllib", "http",
                 "requests", "httpx"}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (a project module, or a third-party top-level name)
    names: tuple[str, ...]  # names taken with `from … import`
    line: int

    def __str__(self) -> str:
        return f"{self.source}:{self.line} imports {self.target}{' (' + ', '.join(self.names) + ')' if self.names else ''}"


@cache
def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (PROJECT_ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(PROJECT_ROOT).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def part_of(module: str) -> str:
    return next(part for prefix, part in PARTS if module == prefix or module.startswith(prefix + "."))


def _project_module(name: str) -> str | None:
    """The project module an import of `name` loads: the module itself, or the package above it."""
    while name and name not in modules():
        name = name.rpartition(".")[0]
    return name or None


@cache
def imports() -> list[Import]:
    found = []
    for module, path in modules().items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [(alias.name, ()) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                names = tuple(alias.name for alias in node.names)
                # `from package import module` loads the module; `from module import name` the module
                targets = [(f"{base}.{n}", ()) if f"{base}.{n}" in modules() else (base, (n,)) for n in names]
            else:
                continue
            for name, taken in targets:
                target = _project_module(name) if name.split(".")[0] in PACKAGES else name.split(".")[0]
                if target and target != module:
                    found.append(Import(module, target, taken, node.lineno))
    return found


def project_imports() -> list[Import]:
    return [i for i in imports() if i.target.split(".")[0] in PACKAGES]


def test_the_parser_sees_function_local_and_type_checking_imports():
    seen = {(i.source, i.target) for i in project_imports()}
    assert ("memory_pipeline.main", "memory_pipeline.definitions") in seen  # inside a function
    assert ("memory_pipeline.ports", "memory_pipeline.models") in seen  # under TYPE_CHECKING
    assert len(modules()) > 200


def test_each_part_imports_only_the_parts_below_it():
    wrong = [f"{i} ({part_of(i.source)} → {part_of(i.target)})" for i in project_imports()
             if part_of(i.target) != part_of(i.source) and part_of(i.target) not in MAY_IMPORT[part_of(i.source)]]
    assert wrong == []


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_cycles_finds_a_loop_and_only_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_modules():
    edges: dict[str, set[str]] = {}
    for i in project_imports():
        edges.setdefault(i.source, set()).add(i.target)
    assert cycles(edges) == []


def test_no_module_imports_another_modules_private_name():
    private = [str(i) for i in project_imports() if any(n.startswith("_") and not n.startswith("__") for n in i.names)]
    assert private == []


def test_dagster_only_in_the_wiring_commands_services_flows_and_entry_point():
    wrong = [str(i) for i in imports() if i.target == "dagster" and part_of(i.source) not in DAGSTER_PARTS]
    assert wrong == []


def test_stages_do_no_io_and_use_no_client_sdk():
    wrong = [str(i) for i in imports() if part_of(i.source) == "stages" and i.target in NOT_IN_STAGES]
    assert wrong == []


# The modules that build `Settings` from the environment: the doors, each a process's entry point.
# Below them settings (or the one value needed) are passed down; a module added here is a new door.
SETTINGS_DOORS = {
    "memory_pipeline.cli": "the command line: cli.main builds it once per command (args.settings)",
    "memory_pipeline.definitions": "Dagster: once per Definitions load, handed to build_definitions",
    "memory_pipeline.services.daemon_watch": "the always-on daemon's watcher (a process of its own)",
    "memory_pipeline.services.hook_service": "the hook service's main (it answers only calls with its settings)",
    "memory_pipeline.services.mcp_server": "one MCP tool call in a process of its own (the MCP door's fallback)",
    "memory_pipeline.services.recall_server": "the recall service's main (a process of its own)",
}
SETTINGS_DOOR_PACKAGES = ("benchmarks",)  # each benchmark is a harness: it points the process at its own workspace


def settings_built_in() -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for module, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "from_env"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "Settings"):
                found.setdefault(module, []).append(node.lineno)
    return found


def test_settings_are_built_only_at_the_doors():
    built = settings_built_in()
    assert "memory_pipeline.cli" in built and "memory_pipeline.definitions" in built  # the scan sees them
    wrong = {m: lines for m, lines in built.items() if m not in SETTINGS_DOORS and not m.startswith(SETTINGS_DOOR_PACKAGES)}
    assert wrong == {}
    assert [m for m in SETTINGS_DOORS if m not in built] == []  # a door that builds none leaves the list


def settings_with_a_default() -> list[str]:
    """Functions below the doors whose `settings` parameter has a default (a default builds settings
    that ignore the environment the door read)."""
    found = []
    for module, path in modules().items():
        if part_of(module) not in ("flows", "resources", "stages") or module in SETTINGS_DOORS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                positional = args.posonlyargs + args.args
                defaulted = positional[len(positional) - len(args.defaults):] if args.defaults else []
                defaulted += [a for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
                if any(a.arg == "settings" for a in defaulted):
                    found.append(f"{module}:{node.lineno} {node.name}")
    return found


def test_settings_are_a_required_parameter_below_the_doors():
    assert settings_with_a_default() == []


WORKSPACE_NAMES = {"inbox", "events", "transcripts", "sessions", "observations", "memory", "reflections", "state",
                   "MEMORY.md", "REVIEW.md"}


def test_only_the_workspace_resource_names_the_workspaces_folders():
    wrong = []
    for module, path in modules().items():
        if module == "memory_pipeline.resources.workspace" or not module.startswith("memory_pipeline."):
            continue  # the benchmarks lay out their own folders
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant)
                    and node.right.value in WORKSPACE_NAMES):
                wrong.append(f"{module}:{node.lineno} {ast.unparse(node)}")
    assert wrong == []


def test_each_command_module_is_named_like_its_command():
    from memory_pipeline.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    commands = set(sub.choices)
    cli_folder = PROJECT_ROOT / "memory_pipeline" / "cli"
    named = {p.stem if p.is_file() else p.name for p in cli_folder.iterdir()
             if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.stem not in ("__init__", "__main__", "common")}
    assert named and {name.rstrip("_").replace("_", "-") for name in named} - commands == set()


def test_the_hook_door_imports_only_the_standard_library():
    """hook_entry.py runs in every hook process before anything else: stdlib only (ARCHITECTURE.md)."""
    import sys

    taken = {i.target for i in imports() if i.source == "memory_pipeline.hook_entry"}
    assert "sys" in taken and {t for t in taken if t.lstrip("_") not in sys.stdlib_module_names} - {"__future__"} == set()


def test_the_mcp_door_imports_only_the_standard_library_and_the_hook_door():
    """mcp_entry.py answers `initialize` before anything heavy is imported (ARCHITECTURE.md)."""
    import sys

    taken = {i.target for i in imports() if i.source == "memory_pipeline.mcp_entry"}
    ours = {"memory_pipeline", "memory_pipeline.hook_entry"}
    assert "json" in taken and "memory_pipeline.hook_entry" in taken
    assert {t for t in taken - ours if t.lstrip("_") not in sys.stdlib_module_names} - {"__future__"} == set()
