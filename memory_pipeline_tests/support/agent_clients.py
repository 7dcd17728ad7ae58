"""The real agent clients, installed from npm at pinned versions into `.clients/` (gitignored) and
driven against a loopback model server (support/loopback_models.py) with a temporary HOME.

    clients = installed_clients()            # installs on first use; None + `clients_missing` why not
    home = ClientHome(tmp_path / "home", models.url, workspace)
    done = home.claude(["-p", "hello"], cwd=project)
    done = home.pi(["-p", "hello"], cwd=project)
    done = home.codex(["exec", "hello"], cwd=project)

npm runs with `--ignore-scripts` (as where install scripts are not allowed), so Claude Code runs
the platform binary its package ships (`@anthropic-ai/claude-code-linux-x64/claude`), pi its
`dist/cli.js` on node, and Codex its `bin/codex.js` launcher (which starts the platform binary).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENTS_DIR = ROOT / ".clients"
PINNED = {
    "claude-code": ("@anthropic-ai/claude-code", "2.1.330"),
    "pi": ("@mariozechner/pi-coding-agent", "0.73.1"),
    "codex": ("@openai/codex", "0.169.0"),
}
LOOPBACK_MODEL = "loopback-model"
RUN_TIMEOUT = 120


@dataclass
class Clients:
    claude: Path
    pi: Path
    codex: Path
    node: str
    versions: dict[str, str] = field(default_factory=dict)


def _platform_package() -> str:
    machines = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
    machine = machines.get(platform.machine().lower(), "")
    system = {"linux": "linux", "darwin": "darwin"}.get(sys.platform, sys.platform)
    return f"@anthropic-ai/claude-code-{system}-{machine}"


def _installed_version(prefix: Path, package: str) -> str | None:
    manifest = prefix / "node_modules" / package / "package.json"
    try:
        return json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


def npm_install(prefix: Path = CLIENTS_DIR) -> str | None:
    """Install the pinned clients (no install scripts). None when done, else why not."""
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed"
    specs = [f"{name}@{version}" for name, version in PINNED.values()]
    command = [npm, "install", "--prefix", str(prefix), "--ignore-scripts", "--no-audit", "--no-fund",
               "--loglevel=error", *specs]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "npm install timed out after 600 s (registry unreachable?)"
    if done.returncode != 0:  # npm's first lines say why (code, then the request that failed)
        lines = [line.removeprefix("npm error").strip() for line in (done.stderr or done.stdout).splitlines()]
        why = [line for line in lines if line and not line.startswith("at ")][:4]
        return f"npm install failed: {' | '.join(why)[:400]}"
    return None


def clients_missing(prefix: Path = CLIENTS_DIR) -> str | None:
    """Why the pinned clients are not usable from `prefix`, or None when they are."""
    if shutil.which("node") is None:
        return "node is not installed"
    for name, (package, version) in PINNED.items():
        found = _installed_version(prefix, package)
        if found != version:
            return f"{package}@{version} not installed in {prefix} (found {found}); run `make clients`"
    if not (prefix / "node_modules" / _platform_package() / "claude").is_file():
        return f"{_platform_package()} (Claude Code's platform binary) is not installed"
    return None


def installed_clients(prefix: Path = CLIENTS_DIR) -> Clients | str:
    """The pinned clients, installing them first when missing; a string says why they cannot run."""
    if clients_missing(prefix) is not None:
        why = npm_install(prefix)
        if why is not None:
            return why
    missing = clients_missing(prefix)
    if missing is not None:
        return missing
    modules = prefix / "node_modules"
    return Clients(
        claude=modules / _platform_package() / "claude",
        pi=modules / "@mariozechner" / "pi-coding-agent" / "dist" / "cli.js",
        codex=modules / "@openai" / "codex" / "bin" / "codex.js",
        node=shutil.which("node") or "node",
        versions={name: _installed_version(prefix, package) or "?" for name, (package, _) in PINNED.items()},
    )


class ClientHome:
    """One temporary HOME with the three clients pointed at a loopback model server."""

    def __init__(self, clients: Clients, home: Path, models_url: str, workspace: Path | None = None):
        self.clients = clients
        self.home = home
        self.models_url = models_url
        self.workspace = workspace
        home.mkdir(parents=True, exist_ok=True)
        self._configure_pi()
        self._configure_codex()

    # --- configuration -----------------------------------------------------------------
    def _configure_pi(self) -> None:
        agent = self.home / ".pi" / "agent"
        agent.mkdir(parents=True, exist_ok=True)
        provider = {"baseUrl": self.models_url, "api": "anthropic-messages", "apiKey": "dummy",
                    "models": [{"id": LOOPBACK_MODEL, "contextWindow": 200000, "maxTokens": 8192}]}
        (agent / "models.json").write_text(json.dumps({"providers": {"loopback": provider}}, indent=2))
        (agent / "settings.json").write_text(json.dumps({"defaultProvider": "loopback",
                                                          "defaultModel": LOOPBACK_MODEL}, indent=2))

    def _configure_codex(self) -> None:
        codex = self.home / ".codex"
        codex.mkdir(parents=True, exist_ok=True)
        (codex / "config.toml").write_text(
            f'model = "{LOOPBACK_MODEL}"\nmodel_provider = "loopback"\n\n'
            f'[model_providers.loopback]\nname = "loopback"\nbase_url = "{self.models_url}/v1"\n'
            'wire_api = "responses"\nenv_key = "LOOPBACK_API_KEY"\nrequest_max_retries = 0\n'
            'stream_max_retries = 0\n'
        )

    # --- paths -------------------------------------------------------------------------
    @property
    def claude_projects(self) -> Path:
        return self.home / ".claude" / "projects"

    @property
    def pi_sessions(self) -> Path:
        return self.home / ".pi" / "agent" / "sessions"

    @property
    def codex_sessions(self) -> Path:
        return self.home / ".codex" / "sessions"

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        """The environment a user's shell would give the client: our HOME, the loopback server, and
        the memory-pipeline command on PATH (the hooks run it)."""
        keep = {name: os.environ[name] for name in ("PATH", "PYTHONPATH", "LANG", "TMPDIR", "HF_HUB_OFFLINE",
                                                     "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM",
                                                     "MEMORY_PARTITIONS_START", "MEMORY_DAEMON_AUTOSTART")
                if name in os.environ}
        env = {**keep, "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config"),
               "ANTHROPIC_BASE_URL": self.models_url, "ANTHROPIC_API_KEY": "dummy",
               "LOOPBACK_API_KEY": "dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
               "DISABLE_AUTOUPDATER": "1", "PI_OFFLINE": "1", "NO_COLOR": "1", "TERM": "dumb"}
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "/usr/bin:/bin")])
        if self.workspace is not None:
            env["MEMORY_WORKSPACE"] = str(self.workspace)
        return {**env, **(extra or {})}

    # --- running -----------------------------------------------------------------------
    def _run(self, argv: list[str], cwd: Path, stdin: str | None, extra: dict[str, str] | None,
             timeout: float) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=cwd, env=self.env(extra), input=stdin if stdin is not None else "",
                              capture_output=True, text=True, timeout=timeout)

    def claude(self, args: list[str], cwd: Path, *, stdin: str | None = None, extra: dict[str, str] | None = None,
               timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess:
        return self._run([str(self.clients.claude), *args], cwd, stdin, extra, timeout)

    def claude_conversation(self, args: list[str], cwd: Path, turns: list[str], timeout: float = RUN_TIMEOUT) -> int:
        """One `claude -p --input-format stream-json --output-format stream-json --verbose ARGS` process
        given TURNS one at a time, each after the answer to the one before (as a user types them);
        returns its exit status."""
        argv = [str(self.clients.claude), "-p", "--input-format", "stream-json", "--output-format", "stream-json",
                "--verbose", *args]
        process = subprocess.Popen(argv, cwd=cwd, env=self.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        assert process.stdin is not None and process.stdout is not None
        for text in turns:
            message = {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]}}
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            for line in process.stdout:
                if line.startswith("{") and json.loads(line).get("type") == "result":
                    break
        process.stdin.close()
        process.stdout.read()
        return process.wait(timeout=timeout)

    def pi(self, args: list[str], cwd: Path, *, stdin: str | None = None, extra: dict[str, str] | None = None,
           timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess:
        argv = [self.clients.node, str(self.clients.pi), "--provider", "loopback", "--model", LOOPBACK_MODEL]
        return self._run([*argv, *args], cwd, stdin, extra, timeout)

    def codex(self, args: list[str], cwd: Path, *, stdin: str | None = None, extra: dict[str, str] | None = None,
              timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess:
        return self._run([self.clients.node, str(self.clients.codex), *args], cwd, stdin, extra, timeout)

    def memory(self, args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
        """`memory-pipeline ARGS` as the user runs it from `cwd` (the loopback model is the clients'
        only: without ANTHROPIC_* the pipeline's own LLM calls go to the offline provider)."""
        env = {k: v for k, v in self.env().items() if not k.startswith("ANTHROPIC_")}
        return subprocess.run([sys.executable, "-m", "memory_pipeline.cli", *args], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=timeout)

    def install_hooks(self, project: Path, *args: str) -> subprocess.CompletedProcess:
        """`memory-pipeline hooks install claude-code ARGS` run in `project`, as the user runs it (no
        ARGS: the user install, in this HOME's ~/.claude/settings.json and ~/.claude.json)."""
        return self.memory(["hooks", "install", "claude-code", *args], cwd=project, timeout=120)

    @property
    def claude_settings(self) -> Path:
        """Where the user install puts the hooks."""
        return self.home / ".claude" / "settings.json"

    def settle(self) -> None:
        """Wait until the workspace's hook service has done the work the hooks handed it."""
        from memory_pipeline import hook_entry

        if self.workspace is not None:
            hook_entry.service_pid(str(self.workspace.resolve()))


def hook_timings(debug_log: Path) -> list[tuple[str, int, float | None]]:
    """(event, exit status, milliseconds or None) for each memory-pipeline hook Claude Code ran, from
    its `--debug-file`: `Hooks: SessionStart:startup [cmd] finished with status 0 (87ms)` or
    `SessionEnd:other [cmd] completed with status 0` (no duration logged)."""
    import re

    pattern = re.compile(r"(?:Hooks: )?(\w+)(?::\w+)? \[[^\]]*hook claude-code\] (?:finished|completed) with status "
                         r"(\d+)(?: \((\d+)ms\))?")
    found = []
    for line in debug_log.read_text(encoding="utf-8", errors="replace").splitlines():
        match = pattern.search(line)
        if match:
            found.append((match[1], int(match[2]), float(match[3]) if match[3] else None))
    return found


def versions_line(prefix: Path = CLIENTS_DIR) -> str:
    """For pytest's header: the installed client versions (nothing is installed here)."""
    versions = {name: _installed_version(prefix, package) for name, (package, _) in PINNED.items()}
    if not all(versions.values()):
        return f"agent clients: not installed in {prefix} (`make clients`; the real-client tests install or skip)"
    return "agent clients: " + ", ".join(f"{name} {version}" for name, version in versions.items())


if __name__ == "__main__":  # `make clients`: install them, say which versions (or why not); never fails
    found = installed_clients()
    if isinstance(found, str):
        print(f"agent clients not installed ({found}): the real-client tests will be skipped")
    else:
        print("agent clients: " + ", ".join(f"{name} {version}" for name, version in found.versions.items()))
