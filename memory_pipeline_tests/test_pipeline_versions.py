"""A change of the rules is a change of the prompt: the offline provider's code versions follow the
offline rules' source, a model's follow its prompt file and the model (issue 52)."""

from __future__ import annotations

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline_tests.support.paths import PROJECT_ROOT

PROMPTS = PROJECT_ROOT / "prompts"


def _edited_prompts(tmp_path):
    edited = tmp_path / "prompts"
    edited.mkdir()
    for path in PROMPTS.glob("*.md"):
        (edited / path.name).write_text(path.read_text(encoding="utf-8") + "\nBe brief.\n", encoding="utf-8")
    return edited


def test_offline_versions_ignore_a_prompt_edit(tmp_path):
    offline = Settings.from_env({})
    assert offline.llm_provider == "offline"
    edited = offline.replace(prompts_dir=_edited_prompts(tmp_path))
    for stage in ("observe", "reflect", "ledger", "friction"):
        assert pipeline.code_version(stage, edited) == pipeline.code_version(stage, offline), stage


def test_a_models_versions_follow_its_prompt(tmp_path):
    claude = Settings.from_env({"MEMORY_LLM_PROVIDER": "claude-code"})
    edited = claude.replace(prompts_dir=_edited_prompts(tmp_path))
    for stage in ("observe", "reflect", "ledger", "friction"):
        assert pipeline.code_version(stage, edited) != pipeline.code_version(stage, claude), stage
    assert pipeline.code_version("observe", claude) != pipeline.code_version("observe", Settings.from_env({}))


def test_offline_versions_follow_the_rules(monkeypatch):
    offline = Settings.from_env({})
    before = {stage: pipeline.code_version(stage, offline) for stage in ("observe", "reflect", "ledger")}
    real = pipeline.offline_rules_sha
    monkeypatch.setattr(pipeline, "offline_rules_sha",
                        lambda name: real(name) + ("-changed" if name == "observer" else ""))
    after = {stage: pipeline.code_version(stage, offline) for stage in ("observe", "reflect", "ledger")}
    assert after["observe"] != before["observe"]
    assert after["reflect"] != before["reflect"]  # it carries the Observer's version
    assert after["ledger"] == before["ledger"]


def test_the_rules_files_are_the_extractors_and_what_they_import():
    names = {p.name for p in pipeline.rules_files(pipeline.OFFLINE_RULES["observer"])}
    assert {"observer.py", "observer_cues.py", "observer_rules.py", "observer_facts.py"} <= names
    assert "reflector.py" not in names
    reflector = {p.name for p in pipeline.rules_files(pipeline.OFFLINE_RULES["reflector"])}
    assert {"reflector.py", "reflector_rules.py"} <= reflector
