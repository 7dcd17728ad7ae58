"""Secrets planted in a transcript never reach a store, a model request or the LLM cache.

Every file under the workspace and the Dagster home (observations, sessions, snapshots, daily
log, Redis AOF, Qdrant's storage, run metadata, LLM cache) is searched byte for byte, as are the
live Redis values, every Qdrant payload and the request bodies the Messages API server received.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.secrets import check_stores
from memory_pipeline.resources.redis.redis_store import connect_redis
from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline_tests.faults.harness import dagster_home, ingest_here
from memory_pipeline_tests.faults.test_llm_faults import GOOD
from memory_pipeline_tests.support.anthropic_server import AnthropicServer
from memory_pipeline_tests.support.doors import redis_limits, env_settings

pytestmark = pytest.mark.slow
SECRETS = {
    "anthropic": "sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm-AAAA",
    "github": "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "aws": "AKIAQ3EGWXYZ7PLMN4TR",
    "private-key": "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "url-password": "Sup3rS3cretPa55",
    "token-in-prose": "b7e4Q9zK2mW5xR8tL3vN6pY1cF0hJ4gD7sA2uE9i",
    "aws-secret-configure": "Zr8Kq2Lm5Np7Tx4Vb9Wc1Yd3Fg6Hj0Ks8Qe2Ru5T",
    "aws-secret-prose": "Hq3Wx7Lp2Zn9Rk4Tm8Vb1Yc6Fd0Gs5Ja2Ue7Ki3O",
    # the shapes issue 30 found surviving into REVIEW.md, the ledger, the pack, Qdrant and the recall cache
    "url-password-at-slash": "Gr4n1te@Pe4k/x9",
    "env-words": "purple-monkey-dishwasher-lamp",
    "discord": "Zq8x-Lm2Nv5Bc8Kd1Hf4Gj6Ws0EyRt7Lx2Nv5Bc8Kd1Hf4Gj6Ws0Ey_Qm3Zp9Rt7",
    "odbc": "Blue!Harbor#77",
    "curl-u": "Hunter2Pass",
    "mysql-p": "R00tPassw0rd",
    "sshpass": "Wint3rIsComing",
    "pw-prose": "blue-falcon-42",
    "netrc": "quietriverstone",
    "telegram": "AAHk9qZ3vN8pW2mR7tL5yB1cD6fG0hJ3kQx",
    "sentry": "3f9a1b2c4d5e6f708192a3b4c5d6e7f8",
    "aws-csv": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "passphrase": "tangerine orbit velvet canyon",
    "twilio-hex": "8f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c",
}
TRANSCRIPT = f"""[2026-11-21 10:00] [User]: The deploy fails. My key is {SECRETS['anthropic']} if you need it.
[2026-11-21 10:01] [Assistant]: I will not store that key. Checking the CI config.
[2026-11-21 10:02] [User]: Use GITHUB_TOKEN={SECRETS['github']} and AWS key {SECRETS['aws']} for the bucket.
[2026-11-21 10:03] [Assistant]: Decided: the credentials belong in the secret store, not in the repo.
[2026-11-21 10:04] [User]: The database is postgres://admin:{SECRETS['url-password']}@db.internal:5432/app by the way.
[2026-11-21 10:05] [User]: And the deploy key: -----BEGIN RSA PRIVATE KEY-----
{SECRETS['private-key']}
-----END RSA PRIVATE KEY-----
[2026-11-21 10:05] [User]: The CI token is {SECRETS['token-in-prose']} and it expires Friday.
[2026-11-21 10:05] [Assistant]: Running aws configure set aws_secret_access_key {SECRETS['aws-secret-configure']} now.
[2026-11-21 10:05] [User]: The AWS secret access key for prod is {SECRETS['aws-secret-prose']}, careful.
[2026-11-21 10:05] [User]: Prod is postgres://orders:{SECRETS['url-password-at-slash']}@db.internal:5432/orders and \
DEPLOY_KEY={SECRETS['env-words']} and the hook https://discord.com/api/webhooks/1187362109876543210/{SECRETS['discord']}
[2026-11-21 10:05] [User]: ODBC Server=tcp:sql;Uid=svc;Pwd={SECRETS['odbc']}; then curl -uadmin:{SECRETS['curl-u']} \
https://nexus.example.com and mysql -uroot -p{SECRETS['mysql-p']} orders and sshpass -p {SECRETS['sshpass']} ssh host
[2026-11-21 10:05] [User]: the pw for staging is {SECRETS['pw-prose']}; netrc has machine api.example.com login deploy \
password {SECRETS['netrc']} and the bot is 7213456789:{SECRETS['telegram']} reporting to \
https://{SECRETS['sentry']}@o123456.ingest.sentry.io/4504321
[2026-11-21 10:05] [User]: creds.csv says AKIAQ3EGWXYZ7PLMN4TR,{SECRETS['aws-csv']} and the passphrase is \
{SECRETS['passphrase']}. Also TWILIO_AUTH={SECRETS['twilio-hex']} for SMS.
[2026-11-21 10:06] [User]: Always rotate credentials after an incident; we use Vault for that.
[2026-11-21 10:07] [Assistant]: Noted: rotate after incidents, keep credentials in Vault.
"""


def emit(ws, tmp_path) -> None:
    path = tmp_path / "leaky.txt"
    path.write_text(TRANSCRIPT)
    emit_session_event(ws, path, trigger="shutdown", session_id="leaky",
                       captured_at=datetime(2026, 11, 21, 10, 10, tzinfo=timezone.utc), settings=env_settings())


def leaks_in_files(*roots) -> list[str]:
    found = []
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                found += [f"{name} in {path}" for name, secret in SECRETS.items() if secret.encode() in data]
    return found


def leaks_in_services(ws) -> list[str]:
    client = connect_redis(None, ws.state, *redis_limits())
    values = []
    for key in client.scan_iter("*"):
        kind = client.type(key)
        if kind == "string":
            values.append(client.get(key))
        elif kind == "list":
            values += client.lrange(key, 0, -1)
        elif kind == "set":
            values += client.smembers(key)
        elif kind == "hash":
            values += [f"{k}={v}" for k, v in client.hgetall(key).items()]
    client.close()
    store = workspace_store(ws.state, None, dimension=384)
    payloads = [json.dumps(p.payload) for p in store.scroll_all()]
    assert payloads, "nothing was indexed"
    text = "\n".join(values + payloads)
    return [name for name, secret in SECRETS.items() if secret in text]


def test_secrets_never_reach_any_store_offline(workspaces, tmp_path):
    ws = workspaces.new("offline")
    emit(ws, tmp_path)
    assert ingest_here(ws).success
    assert leaks_in_files(ws.root, dagster_home(ws)) == []
    assert leaks_in_services(ws) == []
    # redact-check reads the stores decoded: a real workspace after ingest is clean, not 300 "secrets"
    assert check_stores([ws.root, dagster_home(ws)]).findings == []


LEDGER_TYPING = json.dumps([{"ref": f"F{n}", "type": "fact", "priority": "P2", "entity": None, "tags": [],
                             "change": False} for n in range(1, 41)])


def test_secrets_never_reach_the_model_or_the_llm_cache(workspaces, tmp_path):
    ws = workspaces.new("anthropic")
    emit(ws, tmp_path)
    with AnthropicServer() as server:
        server.reply_text(GOOD)
        server.reply_text(LEDGER_TYPING)  # ingest_job ends in the ledger, which types the facts with the model
        report = ingest_here(ws, MEMORY_LLM_PROVIDER="anthropic", ANTHROPIC_API_KEY=server.api_key,
                             ANTHROPIC_BASE_URL=server.url)
        bodies = json.dumps([r.body for r in server.requests])
    assert report.success, report.as_dict()
    assert "[REDACTED:" in bodies
    assert [name for name, secret in SECRETS.items() if secret in bodies] == []
    assert list((ws.state / "llm-cache").rglob("*.json"))
    assert leaks_in_files(ws.root, dagster_home(ws)) == []
    assert leaks_in_services(ws) == []
