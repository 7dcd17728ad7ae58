"""Secret redaction: each pattern, valid JSONL afterwards, and no false positives."""

from __future__ import annotations

import json

import pytest

from memory_pipeline.models import Message, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.redact import redact, redact_jsonl, redact_transcript, redact_value
from memory_pipeline_tests.support.paths import PROJECT_ROOT, fixture_transcript

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq98z\nQ2xhdWRlIGtleQ==\n-----END RSA PRIVATE KEY-----"

CASES = [  # (kind, text, the secret, text that must survive)
    ("anthropic-key", "key is sk-ant-api03-Zq8Rk2Lm5Np7Tx4Vb9Wc1Yd3Fg6Hj0Ks8Qe2Ru5Ti7Op, rotate it",
     "sk-ant-api03-Zq8Rk2Lm5Np7Tx4Vb9Wc1Yd3Fg6Hj0Ks8Qe2Ru5Ti7Op", "key is "),
    ("openai-key", "OPENAI=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56 set", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56", " set"),
    ("openai-key", "legacy sk-T3BlbkFJa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5 here", "sk-T3BlbkFJa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5", "legacy "),
    ("github-token", "push with ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 now", "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "push with "),
    ("github-token", "github_pat_11ABCDE0123456789_abcdefghijklmnopqrstuvwxyzABCDEF0123 ok",
     "github_pat_11ABCDE0123456789_abcdefghijklmnopqrstuvwxyzABCDEF0123", " ok"),
    ("slack-token", "bot xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp ok", "xoxb-123456789012-1234567890123", "bot "),
    ("slack-webhook", "post to https://hooks.slack.com/services/T0123ABCD/B0123ABCD/AbCdEf0123456789 please",
     "T0123ABCD/B0123ABCD", " please"),
    ("aws-access-key", "id AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE", "id "),
    ("aws-access-key", "temp ASIAY34FZKBOKMUTVV7A here", "ASIAY34FZKBOKMUTVV7A", "temp "),
    ("aws-secret-key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = eu",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = "),
    ("private-key", f"the key:\n{PEM}\nend", "MIIEpAIBAAKCAQEA7bq98z", "the key:\n"),
    ("private-key", PEM.replace("\n", "\\n") + " (escaped)", "MIIEpAIBAAKCAQEA7bq98z", " (escaped)"),
    ("url-password", "DATABASE_URL=postgres://app:hunter2@db/x", "hunter2", "postgres://app:"),
    ("url-password", "redis://:s3cretpw@localhost:6379/0", "s3cretpw", "@localhost:6379/0"),
    ("bearer-token", 'curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln" api',
     "eyJhbGciOiJIUzI1NiJ9", "Authorization: Bearer "),
    ("google-api-key", "maps AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q end", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", " end"),
    ("stripe-key", "charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc today", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", " today"),
    ("stripe-key", "restricted rk_live_51H8abcDEF0123456789xyz ok", "rk_live_51H8abcDEF0123456789xyz", " ok"),
    ("generic-secret-assignment", "export API_KEY=abc123def456ghi\nnext", "abc123def456ghi", "export API_KEY="),
    ("generic-secret-assignment", '{"password": "hunter2"}', "hunter2", '{"password": "'),
    ("generic-secret-assignment", "db_password = 'Tr0ub4dor&3'", "Tr0ub4dor&3", "db_password = '"),
    ("generic-secret-assignment", "client_secret: 9f8e7d6c5b4a3210fedc", "9f8e7d6c5b4a3210fedc", "client_secret: "),
]


@pytest.mark.parametrize(("kind", "text", "secret", "kept"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_pattern(kind: str, text: str, secret: str, kept: str) -> None:
    out = redact(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out
    assert kept in out


NOT_SECRETS = [
    "session 4d5611e5-241a-462a-8d15-5122611a9569 started",
    "commit 83378aad0b6c1d2e3f4a5b6c7d8e9f0a1b2c3d4e fixed it",
    "edit /home/dev/src/orders-service/orders/cache.py and ~/.ssh/id_rsa.pub",
    "We decided to keep the token bucket limiter; the password reset flow and API keys are out of scope.",
    "pip install scikit-learn; we like sk-learn-compatible-estimators-everywhere",
    "def login(password: str, token: str | None = None) -> bool:",
    "max_tokens=4096 and input_tokens: 1200",
    "password = settings.db_password",
    "const apiKey = options.apiKey || process.env.KEY",
    "export GITHUB_TOKEN=$TOKEN; if token == expected_token:",
    "see https://github.com/org/repo/blob/main/README.md and ssh://git@host:22/repo",
    "-H 'Authorization: Bearer $TOKEN'",
    "AKIA is the prefix of AWS access key ids",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_no_false_positives(text: str) -> None:
    assert redact(text) == text


def test_replacements_never_contain_quotes_or_backslashes() -> None:
    for _, text, _, _ in CASES:
        for marker in (part.split("]")[0] for part in redact(text).split("[REDACTED:")[1:]):
            assert '"' not in marker and "\\" not in marker and "'" not in marker


def test_redact_jsonl_keeps_every_line_valid_json() -> None:
    lines = [
        {"type": "user", "message": {"content": "my key sk-ant-api03-Zq8Rk2Lm5Np7Tx4Vb9Wc1Yd3Fg6Hj0Ks8Qe2Ru5Ti7Op"}},
        {"type": "tool", "output": PEM + "\n", "nested": [{"url": "postgres://app:hunter2@db/x"}]},
        {"config": {"api_key": "Zk3jv92LQ0", "max_tokens": 4096, "token": "has spaces in it"}},
        {"uuid": "4d5611e5-241a-462a-8d15-5122611a9569", "text": "nothing secret"},
    ]
    original = [json.dumps(line) for line in lines]
    out = redact_jsonl("\n".join(original) + "\nnot json: API_KEY=abc123def456ghi\n")
    out_lines = out.split("\n")
    assert len(out_lines) == len(original) + 2 and out_lines[-1] == ""
    decoded = [json.loads(line) for line in out_lines[:4]]
    assert "sk-ant" not in out and "hunter2" not in out and "MIIEpAIB" not in out and "Zk3jv92LQ0" not in out
    assert decoded[1]["output"] == "[REDACTED:private-key]\n"
    assert decoded[2]["config"] == {"api_key": "[REDACTED:generic-secret-assignment]", "max_tokens": 4096,
                                    "token": "has spaces in it"}
    assert out_lines[3] == original[3]  # untouched lines keep their exact bytes
    assert out_lines[4] == "not json: API_KEY=[REDACTED:generic-secret-assignment]"


def test_redact_jsonl_on_the_sample_with_secrets() -> None:
    raw = (PROJECT_ROOT / "memory_pipeline" / "samples" / "claude-code-redis-debugging.jsonl").read_text(encoding="utf-8")
    out = redact_jsonl(raw)
    assert "sk-ant-api03" not in out and "hunter2" not in out
    assert "[REDACTED:anthropic-key]" in out and "postgres://app:[REDACTED:url-password]@db/x" in out
    assert [json.loads(line) for line in out.splitlines() if line.strip()]


def test_real_transcript_has_no_false_positives() -> None:
    raw = fixture_transcript("claude-code/tool_heavy.jsonl").read_text(encoding="utf-8")
    assert redact_jsonl(raw) == raw


def test_redact_value_walks_structures() -> None:
    value = {"a": ["x AKIAIOSFODNN7EXAMPLE", {"b": 3, "c": None}], "password": "hunter22"}
    assert redact_value(value) == {"a": ["x [REDACTED:aws-access-key]", {"b": 3, "c": None}],
                                   "password": "[REDACTED:generic-secret-assignment]"}


def test_redact_transcript_covers_text_tools_and_title() -> None:
    key = "sk-ant-api03-Zq8Rk2Lm5Np7Tx4Vb9Wc1Yd3Fg6Hj0Ks8Qe2Ru5Ti7Op"
    transcript = Transcript(format="text", session_id="s", title=f"debug {key}", messages=[
        Message(id="1", role="user", text=f"use {key}"),
        Message(id="2", role="assistant", tool_calls=[ToolCall(id="c", name="Bash", input=f'{{"command": "export K={key}"}}')]),
        Message(id="3", role="tool", tool_results=[ToolResult(call_id="c", text=f"K={key}", is_error=True)]),
    ])
    clean = redact_transcript(transcript)
    assert key not in clean.model_dump_json()
    assert clean.title == "debug [REDACTED:anthropic-key]"
    assert clean.messages[2].tool_results[0].is_error and clean.messages[2].tool_results[0].call_id == "c"
    assert [m.id for m in clean.messages] == ["1", "2", "3"]
    assert key in transcript.messages[0].text  # the input is not changed


def _pattern_hinted_rules():
    import re

    from memory_pipeline.stages.redact import COMPILED

    return [(hints, pattern) for hints, pattern, _ in COMPILED if isinstance(hints, re.Pattern)]


def test_a_rules_part_pattern_finds_every_text_its_rule_matches() -> None:
    """A rule whose hint is a pattern runs only where that pattern finds its part in the lower-cased
    text: on every labelled secret, look-alike and case above, and each in upper case, where the rule's
    own pattern matches, its part pattern must too (a name added to one and not the other fails here)."""
    from memory_pipeline.stages.redact import _may_match
    from memory_pipeline_tests.security.secret_samples import LOOK_ALIKES, SECRETS

    texts = [t for t, _ in SECRETS] + LOOK_ALIKES + [c[1] for c in CASES]
    texts += [t.upper() for t in texts]
    texts += ["DB_PASSWORD=Tr0ub4dor3x", "the api keys are K9mq2vLx8", "ACCESS_KEY_ID: 'AbC123dEf'",
              "bot123456789:" + "A" * 35, "my passwd = 's3cret!x'", "Credentials: x9Y8z7W6v5"]
    rules = _pattern_hinted_rules()
    assert len(rules) == 9
    matched = 0
    for text in texts:
        for hints, pattern in rules:
            if pattern.search(text):
                matched += 1
                assert _may_match(hints, text.lower()), (hints.pattern, text)
    assert matched >= 30  # the check saw the rules match, not only texts they skip


def test_a_short_string_is_redacted_again_when_it_comes_again() -> None:
    text = "token: Zq8Rk2Lm5Np7"
    assert redact(text) == redact(text) == "token: [REDACTED:generic-secret-assignment]"
    assert redact(text, entropy=False) == "token: [REDACTED:generic-secret-assignment]"
