"""Redaction classes on a labelled set (secrets and look-alikes), and at the hook-state boundary.

Precision and recall on the labelled set (benchmarks/labels/redaction.json) are printed
(`-s`) and must both be 1.0: a positive that leaks, even in part, fails its own test. Seeded random
tokens (not in the set) measure the entropy rule on its own.
"""

from __future__ import annotations

import json
import random
import string
from datetime import datetime, timezone

import pytest

from benchmarks.redaction import leaked, score
from memory_pipeline.models import CachedRecall, RecallHit, TaskCheckpoint
from memory_pipeline.resources.files.hook_state import HookStateStore, log_decision
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.redact import redact, redact_value
from memory_pipeline.stages.redact_entropy import looks_like_secret
from memory_pipeline_tests.security.secret_samples import LABELS, LOOK_ALIKES, SECRETS, SHAPES

NOW = datetime(2026, 11, 21, 16, 0, tzinfo=timezone.utc)


def test_the_labelled_set_is_big_enough_and_balanced():
    assert len(SECRETS) + len(LOOK_ALIKES) >= 60 and abs(len(SECRETS) - len(LOOK_ALIKES)) <= 5


@pytest.mark.parametrize(("text", "secret"), SECRETS, ids=[f"secret-{i}-{s}" for i, s in enumerate(SHAPES)])
def test_each_secret_is_removed_and_the_rest_kept(text, secret):
    out = redact(text)
    assert not leaked(text, secret, out) and "[REDACTED:" in out
    assert redact(out) == out  # idempotent: markers are not redacted again


@pytest.mark.parametrize("text", LOOK_ALIKES, ids=[f"lookalike-{i}" for i in range(len(LOOK_ALIKES))])
def test_each_look_alike_survives(text):
    assert redact(text) == text


def test_precision_and_recall_on_the_labelled_set():
    figures = score(LABELS)
    print(f"\nredaction on {figures['positives']} secrets + {figures['negatives']} look-alikes: "
          f"precision {figures['precision']:.3f} recall {figures['recall']:.3f}")
    assert (figures["precision"], figures["recall"], figures["missed"]) == (1.0, 1.0, [])


def test_a_half_redacted_secret_counts_as_leaked():
    text = "postgres://app:S3cr@t9Pa55@db:5432/x"
    assert leaked(text, "S3cr@t9Pa55", "postgres://app:[REDACTED:url-password]@t9Pa55@db:5432/x")
    assert not leaked(text, "S3cr@t9Pa55", "postgres://app:[REDACTED:url-password]@db:5432/x")


@pytest.mark.parametrize("length", [24, 32, 40])
def test_random_tokens_are_caught_by_entropy_alone(length):
    rng = random.Random(length)
    alphabet = string.ascii_letters + string.digits
    tokens = [''.join(rng.choice(alphabet) for _ in range(length)) for _ in range(500)]
    rate = sum(looks_like_secret(t) for t in tokens) / len(tokens)
    print(f"\nentropy rule, random base62 tokens of {length}: {rate:.3f} caught")
    assert rate >= 0.95


def test_hook_state_and_telemetry_never_hold_a_secret(tmp_path):
    workspace = Workspace(tmp_path / "ws").create()
    key = SECRETS[8][1]  # the aws configure one
    said = f"aws configure set aws_secret_access_key {key}"
    hit = RecallHit(id="h", tier="messages", text=f"the token is {SECRETS[11][1]}", score=1.0, date="2026-11-21",
                    session_id="s")

    def change(state):
        state.checkpoint = TaskCheckpoint(current_task=said, user_messages=[said, "then deploy"],
                                          files_modified=["a.py"], reason="hot-zone", captured_at=NOW)
        state.pending_queries = [said]
        state.recall_cache = [CachedRecall(query=said, hits=[hit], at=NOW)]

    HookStateStore(workspace).update("sess-1", change, NOW)
    log_decision(workspace, "inject", at=NOW, session_id="sess-1", hook="UserPromptSubmit", query=said)
    stored = "\n".join(p.read_text() for p in workspace.state_path("hooks").iterdir())
    assert key not in stored and SECRETS[11][1] not in stored and "[REDACTED:aws-secret-key]" in stored
    state = HookStateStore(workspace).load("sess-1")
    assert state.checkpoint.user_messages[1] == "then deploy" and state.checkpoint.files_modified == ["a.py"]


def test_redact_value_walks_nested_structures():
    value = {"messages": [{"text": f"password is {SECRETS[12][1]}"}], "count": 3}
    assert SECRETS[12][1] not in json.dumps(redact_value(value)) and redact_value(value)["count"] == 3


# issue 47: shapes that got through, each as its issuer makes it (made up here)
ROUND_FOUR = [
    ("huggingface-token", "HF_TOKEN is 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 now", "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"),
    ("stripe-webhook-secret", "endpoint_secret whsec_MfKQpRsGKYqrTwjUPDvILPZIoqLaLaSw", "whsec_MfKQpRsGKYqrTwjUPDvILPZIoqLaLaSw"),
    ("telegram-bot-token", "token 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1", "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"),
    ("aws-secret-key", "AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("passphrase-in-prose", "the passphrase is correct horse battery staple", "correct horse battery staple"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), ROUND_FOUR, ids=[k for k, _, _ in ROUND_FOUR])
def test_the_shapes_the_fourth_round_found_are_redacted(kind, text, secret):
    out = redact(text)
    assert not leaked(text, secret, out) and f"[REDACTED:{kind}]" in out


def test_ordinary_code_beside_those_shapes_is_left_alone():
    for text in ("from huggingface_hub import hf_hub_download", "stripe.Webhook.construct_event(p, sig, whsec)",
                 "the passphrase is correct, thanks", "the passphrase is required when the key is loaded",
                 "class TokenizerFastForSeq2Seq(Base):", "elapsed 1732860000123:AverageLatencyWasFine"):
        assert redact(text) == text
