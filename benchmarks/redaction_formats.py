"""Samples for the labelled redaction set drawn from published token formats, not from our rules.

Each format is the shape its issuer documents, as gitleaks (`config/gitleaks.toml`, rule ids below)
and Yelp's detect-secrets (`detect_secrets/plugins/*.py`) encode it: a prefix, then characters of a
given set and length. A token is generated to that shape from a seeded generator (every one made
up), put in a line a transcript could hold, often with no name beside it. The look-alikes are
ordinary values a coding session is full of: git SHAs, UUIDs, content hashes, base64 images,
identifiers that share a token's prefix, words.

    python -m benchmarks.redaction_formats      # rewrites the entries with a `source` in labels/redaction.json

The entries written by hand (no `source`) are kept as they are.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Callable
from pathlib import Path

LABELS = Path(__file__).parent / "labels" / "redaction.json"
UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
LETTERS, ALNUM = UPPER + LOWER, UPPER + LOWER + DIGITS
HEX, UPPER_ALNUM, B32 = "0123456789abcdef", UPPER + DIGITS, UPPER + "234567"
URLSAFE, B64 = ALNUM + "-_", ALNUM + "+/"
Piece = str | tuple[str, int]


def _token(rng: random.Random, *pieces: Piece) -> str:
    """Literal pieces as they are, (alphabet, n) pieces drawn at random."""
    return "".join(p if isinstance(p, str) else "".join(rng.choice(p[0]) for _ in range(p[1])) for p in pieces)


# (shape, source, pieces, the line it stands in: {t} is the token)
FORMATS: list[tuple[str, str, tuple[Piece, ...], str]] = [
    ("huggingface-token", "gitleaks:huggingface-access-token", ("hf_", (LETTERS, 34)),
     "login with huggingface-cli login --token {t} then push"),
    ("huggingface-token", "gitleaks:huggingface-access-token", ("hf_", (LETTERS, 34)),
     'HfApi(token="{t}").upload_folder(folder_path="out")'),
    ("huggingface-token", "gitleaks:huggingface-organization-api-token", ("api_org_", (LETTERS, 34)),
     "the org key {t} is for the inference endpoint"),
    ("stripe-webhook-secret", "Stripe docs: whsec_ + 32 base62", ("whsec_", (ALNUM, 32)),
     "stripe listen prints: Ready! Your webhook signing secret is {t} (^C to quit)"),
    ("stripe-webhook-secret", "Stripe docs: whsec_ + 32 base62", ("whsec_", (ALNUM, 32)),
     "endpoint_secret = '{t}'  # from the dashboard"),
    ("stripe-key", "gitleaks:stripe-access-token", ("sk_prod_", (ALNUM, 99)), "charge with {t}"),
    ("stripe-key", "detect-secrets:StripeDetector", ("rk_live_", (ALNUM, 24)), "restricted key {t} for reports"),
    ("telegram-bot-token", "detect-secrets:TelegramBotTokenDetector", ((DIGITS[1:], 1), (DIGITS, 8), ":AA",
                                                                        (URLSAFE, 33)),
     "BotFather says: Use this token to access the HTTP API: {t}"),
    ("telegram-bot-token", "gitleaks:telegram-bot-api-token", ((DIGITS[1:], 1), (DIGITS, 4), ":A", (URLSAFE, 34)),
     "bot = telebot.TeleBot('{t}')"),
    ("telegram-bot-token", "gitleaks:telegram-bot-api-token", ((DIGITS[1:], 1), (DIGITS, 15), ":A", (URLSAFE, 34)),
     "{t}"),
    ("anthropic-key", "gitleaks:anthropic-api-key", ("sk-ant-api03-", (URLSAFE, 93), "AA"),
     "ANTHROPIC_API_KEY is {t}"),
    ("anthropic-key", "gitleaks:anthropic-admin-api-key", ("sk-ant-admin01-", (URLSAFE, 93), "AA"),
     "admin key: {t}"),
    ("openai-key", "gitleaks:openai-api-key", ("sk-proj-", (URLSAFE, 74), "T3BlbkFJ", (URLSAFE, 74)),
     "client = OpenAI(api_key='{t}')"),
    ("openai-key", "gitleaks:openai-api-key", ("sk-", (ALNUM, 20), "T3BlbkFJ", (ALNUM, 20)), "old key {t} still works"),
    ("openai-key", "gitleaks:openai-api-key", ("sk-svcacct-", (URLSAFE, 58), "T3BlbkFJ", (URLSAFE, 58)),
     "the service account uses {t}"),
    ("github-token", "gitleaks:github-pat", ("ghp_", (ALNUM, 36)), "git remote set-url origin https://x-access-token:{t}@github.com/org/app.git"),
    ("github-token", "gitleaks:github-oauth", ("gho_", (ALNUM, 36)), "gh auth status shows token {t}"),
    ("github-token", "gitleaks:github-app-token", ("ghs_", (ALNUM, 36)), "installation token {t} expires in an hour"),
    ("github-token", "gitleaks:github-refresh-token", ("ghr_", (ALNUM, 36)), "refresh with {t}"),
    ("github-token", "gitleaks:github-fine-grained-pat", ("github_pat_", (ALNUM, 22), "_", (ALNUM, 59)),
     "echo {t} | docker login ghcr.io -u me --password-stdin"),
    ("gitlab-token", "gitleaks:gitlab-pat", ("glpat-", (URLSAFE, 20)), "PRIVATE-TOKEN: {t}"),
    ("gitlab-token", "gitleaks:gitlab-pat-routable", ("glpat-", (URLSAFE, 36), ".01", (LOWER + DIGITS, 7)),
     "new routable token {t}"),
    ("gitlab-token", "gitleaks:gitlab-ptt", ("glptt-", (HEX, 40)), "trigger with token={t}"),
    ("gitlab-token", "gitleaks:gitlab-runner-authentication-token", ("glrt-", (URLSAFE, 20)),
     "gitlab-runner register --token {t}"),
    ("gitlab-token", "gitleaks:gitlab-cicd-job-token", ("glcbt-", (ALNUM, 2), "_", (URLSAFE, 20)), "job token {t}"),
    ("gitlab-token", "gitleaks:gitlab-oauth-app-secret", ("gloas-", (URLSAFE, 64)), "app secret {t}"),
    ("gitlab-token", "gitleaks:gitlab-rrt", ("GR1348941", (URLSAFE, 20)), "runner registration {t}"),
    ("slack-token", "gitleaks:slack-bot-token", ("xoxb-", (DIGITS, 12), "-", (DIGITS, 13), "-", (ALNUM, 24)),
     'SLACK_BOT_TOKEN="{t}"'),
    ("slack-token", "gitleaks:slack-user-token", ("xoxp-", (DIGITS, 11), "-", (DIGITS, 12), "-", (DIGITS, 13), "-",
                                                   (HEX, 32)), "user token {t}"),
    ("slack-token", "gitleaks:slack-app-token", ("xapp-1-A", (UPPER_ALNUM, 10), "-", (DIGITS, 13), "-", (HEX, 64)),
     "socket mode app token {t}"),
    ("slack-token", "gitleaks:slack-config-refresh-token", ("xoxe-1-", (UPPER_ALNUM, 146)), "config refresh {t}"),
    ("slack-webhook", "gitleaks:slack-webhook-url", ("https://hooks.slack.com/services/T", (UPPER_ALNUM, 8), "/B",
                                                      (UPPER_ALNUM, 10), "/", (ALNUM, 24)), "post alerts to {t}"),
    ("aws-access-key", "gitleaks:aws-access-token", ("AKIA", (B32, 16)), "the key id {t} belongs to ci"),
    ("aws-access-key", "gitleaks:aws-access-token", ("ASIA", (B32, 16)), "temporary credentials {t} from sts"),
    ("aws-access-key", "gitleaks:aws-access-token", ("ABIA", (B32, 16)), "{t}"),
    ("aws-csv", "detect-secrets:AWSKeyDetector", ("AKIA", (B32, 16), ",", (B64, 40)), "{t}"),
    ("aws-secret-key", "detect-secrets:AWSKeyDetector", ((B64, 40),), 'aws_secret = "{t}"'),
    ("aws-bedrock-key", "gitleaks:aws-amazon-bedrock-api-key-long-lived", ("ABSK", (B64, 120)), "bedrock key {t}"),
    ("google-api-key", "gitleaks:gcp-api-key", ("AIza", (URLSAFE, 35)), "maps?key={t}&callback=init"),
    ("npm-token", "gitleaks:npm-access-token", ("npm_", (ALNUM, 36)), "//registry.npmjs.org/:_authToken={t}"),
    ("pypi-token", "gitleaks:pypi-upload-token", ("pypi-AgEIcHlwaS5vcmc", (URLSAFE, 70)), "password = {t}"),
    ("sendgrid-key", "detect-secrets:SendGridDetector", ("SG.", (URLSAFE, 22), ".", (URLSAFE, 43)), "{t}"),
    ("twilio-key", "gitleaks:twilio-api-key", ("SK", (HEX, 32)), "api key sid {t}"),
    ("mailgun-key", "gitleaks:mailgun-private-api-token", ("key-", (HEX, 32)), "mailgun_api_key: {t}"),
    ("mailchimp-key", "detect-secrets:MailchimpDetector", ((HEX, 32), "-us", (DIGITS, 2)), "mailchimp key {t}"),
    ("shopify-token", "gitleaks:shopify-shared-secret", ("shpss_", (HEX, 32)), "shared secret {t}"),
    ("digitalocean-token", "gitleaks:digitalocean-refresh-token", ("dor_v1_", (HEX, 64)), "{t}"),
    ("vault-token", "gitleaks:vault-service-token", ("hvs.", (URLSAFE, 95)), "export VAULT_TOKEN={t}"),
    ("vault-token", "gitleaks:vault-batch-token", ("hvb.", (URLSAFE, 140)), "batch token {t}"),
    ("databricks-token", "gitleaks:databricks-api-token", ("dapi", (HEX, 32)), "databricks configure with {t}"),
    ("linear-key", "gitleaks:linear-api-key", ("lin_api_", (ALNUM, 40)), "{t}"),
    ("postman-key", "gitleaks:postman-api-token", ("PMAK-", (HEX, 24), "-", (HEX, 34)), "x-api-key: {t}"),
    ("doppler-token", "gitleaks:doppler-api-token", ("dp.pt.", (ALNUM, 43)), "doppler token {t}"),
    ("notion-token", "gitleaks:notion-api-token", ("ntn_", (DIGITS, 11), (ALNUM, 35)), "Notion(auth='{t}')"),
    ("discord-bot-token", "detect-secrets:DiscordBotTokenDetector", ("M", (ALNUM, 23), ".", (URLSAFE, 6), ".",
                                                                     (URLSAFE, 27)), "client.run('{t}')"),
    ("one-password", "gitleaks:1password-secret-key", ("A3-", (UPPER_ALNUM, 6), "-", (UPPER_ALNUM, 11), "-",
                                                       (UPPER_ALNUM, 5), "-", (UPPER_ALNUM, 5), "-", (UPPER_ALNUM, 5)),
     "my 1Password secret key {t}"),
    ("one-password", "gitleaks:1password-service-account-token", ("ops_eyJ", (B64, 260)), "OP_SERVICE_ACCOUNT_TOKEN {t}"),
    ("adobe-secret", "gitleaks:adobe-client-secret", ("p8e-", (ALNUM, 32)), "client secret {t}"),
    ("alibaba-key", "gitleaks:alibaba-access-key-id", ("LTAI", (ALNUM, 20)), "{t}"),
    ("artifactory-key", "gitleaks:artifactory-api-key", ("AKCp", (ALNUM, 69)), "X-JFrog-Art-Api: {t}"),
    ("airtable-token", "gitleaks:airtable-personnal-access-token", ("pat", (ALNUM, 14), ".", (HEX, 64)), "{t}"),
    ("azure-ad-secret", "gitleaks:azure-ad-client-secret", ((ALNUM, 3), "8Q~", (ALNUM + "_~.-", 34)),
     "az login --service-principal -u app -p {t} --tenant t"),
    ("clickhouse-key", "gitleaks:clickhouse-cloud-api-secret-key", ("4b1d", (ALNUM, 38)), "secret {t}"),
    ("clojars-token", "gitleaks:clojars-api-token", ("CLOJARS_", (LOWER + DIGITS, 60)), "{t}"),
    ("duffel-token", "gitleaks:duffel-api-token", ("duffel_test_", (URLSAFE, 43)), "{t}"),
    ("dynatrace-token", "gitleaks:dynatrace-api-token", ("dt0c01.", (UPPER_ALNUM, 24), ".", (UPPER_ALNUM, 64)), "{t}"),
    ("easypost-key", "gitleaks:easypost-api-token", ("EZAK", (ALNUM, 54)), "{t}"),
    ("facebook-token", "gitleaks:facebook-page-access-token", ("EAAC", (ALNUM, 120)), "page token {t}"),
    ("flutterwave-key", "gitleaks:flutterwave-secret-key", ("FLWSECK_TEST-", (HEX, 32), "-X"), "{t}"),
    ("flyio-token", "gitleaks:flyio-access-token", ("fo1_", (URLSAFE, 43)), "FLY_API_TOKEN={t}"),
    ("frameio-token", "gitleaks:frameio-api-token", ("fio-u-", (URLSAFE, 64)), "{t}"),
    ("grafana-token", "gitleaks:grafana-cloud-api-token", ("glc_", (ALNUM, 40)), "{t}"),
    ("grafana-token", "gitleaks:grafana-service-account-token", ("glsa_", (ALNUM, 32), "_", (HEX, 8)),
     "Authorization: Bearer {t}"),
    ("harness-key", "gitleaks:harness-api-key", ("pat.", (URLSAFE, 22), ".", (ALNUM, 24), ".", (ALNUM, 20)), "{t}"),
    ("terraform-token", "gitleaks:hashicorp-tf-api-token", ((ALNUM, 14), ".atlasv1.", (URLSAFE, 67)),
     'credentials "app.terraform.io" {{ token = "{t}" }}'),
    ("heroku-key", "gitleaks:heroku-api-key-v2", ("HRKU-AA", (URLSAFE, 58)), "{t}"),
    ("infracost-key", "gitleaks:infracost-api-token", ("ico-", (ALNUM, 32)), "{t}"),
    ("maxmind-key", "gitleaks:maxmind-license-key", ((ALNUM, 6), "_", (ALNUM, 29), "_mmk"), "license {t}"),
    ("newrelic-key", "gitleaks:new-relic-user-api-key", ("NRAK-", (UPPER_ALNUM, 27)), "newrelic key {t}"),
    ("octopus-key", "gitleaks:octopus-deploy-api-key", ("API-", (UPPER_ALNUM, 26)), "octo push --apiKey {t}"),
    ("openshift-token", "gitleaks:openshift-user-token", ("sha256~", (URLSAFE, 43)), "oc login --token={t}"),
    ("perplexity-key", "gitleaks:perplexity-api-key", ("pplx-", (ALNUM, 48)), "{t}"),
    ("planetscale-token", "gitleaks:planetscale-password", ("pscale_pw_", (URLSAFE, 43)), "{t}"),
    ("prefect-key", "gitleaks:prefect-api-token", ("pnu_", (ALNUM, 36)), "prefect cloud login -k {t}"),
    ("pulumi-token", "gitleaks:pulumi-api-token", ("pul-", (HEX, 40)), "{t}"),
    ("readme-key", "gitleaks:readme-api-token", ("rdme_", (LOWER + DIGITS, 70)), "{t}"),
    ("rubygems-key", "gitleaks:rubygems-api-token", ("rubygems_", (HEX, 48)), ":rubygems_api_key: {t}"),
    ("scalingo-token", "gitleaks:scalingo-api-token", ("tk-us-", (URLSAFE, 48)), "{t}"),
    ("sendinblue-key", "gitleaks:sendinblue-api-token", ("xkeysib-", (HEX, 64), "-", (ALNUM, 16)), "{t}"),
    ("sentry-token", "gitleaks:sentry-user-token", ("sntryu_", (HEX, 64)), "SENTRY_AUTH_TOKEN={t}"),
    ("shippo-token", "gitleaks:shippo-api-token", ("shippo_live_", (HEX, 40)), "{t}"),
    ("square-token", "gitleaks:square-access-token", ("EAAA", (URLSAFE, 60)), "square token {t}"),
    ("square-token", "detect-secrets:SquareOAuthDetector", ("sq0csp-", (URLSAFE, 43)), "{t}"),
    ("typeform-token", "gitleaks:typeform-api-token", ("tfp_", (URLSAFE, 59)), "typeform {t}"),
    ("teams-webhook", "gitleaks:microsoft-teams-webhook", (
        "https://contoso.webhook.office.com/webhookb2/", (HEX, 8), "-", (HEX, 4), "-", (HEX, 4), "-", (HEX, 4), "-",
        (HEX, 12), "@", (HEX, 8), "-", (HEX, 4), "-", (HEX, 4), "-", (HEX, 4), "-", (HEX, 12), "/IncomingWebhook/",
        (HEX, 32), "/", (HEX, 8), "-", (HEX, 4), "-", (HEX, 4), "-", (HEX, 4), "-", (HEX, 12)), "notify {t}"),
    ("gitlab-session", "gitleaks:gitlab-session-cookie", ((LOWER + DIGITS, 32),), "Cookie: _gitlab_session={t}"),
    ("nuget-password", "gitleaks:nuget-config-password", ((ALNUM, 14),),
     '<add key="ClearTextPassword" value="{t}" />'),
    ("keyword-secret", "detect-secrets:KeywordDetector (:=)", ((ALNUM, 18),), 'dbPassword := "{t}"'),
    ("keyword-secret", "detect-secrets:KeywordDetector (php)", ((ALNUM, 16),), "$db_pass = '{t}';"),
    ("keyword-secret", "detect-secrets:KeywordDetector (yaml)", ((LOWER, 10),), "  client_secret: {t}"),
    ("keyword-secret", "detect-secrets:KeywordDetector (==)", ((ALNUM, 16),), 'if secret == "{t}":'),
    ("basic-auth", "detect-secrets:BasicAuthDetector", ((LOWER, 9),), "pip index url https://deploy:{t}@pypi.example.com/simple"),
    ("telegram-bot-token", "issue 47: a 9-digit bot id", ("123456789:AAH", (URLSAFE, 32)), "TELEGRAM={t}"),
    ("aws-csv", "issue 47: a key id and its secret in a CSV", ("AKIA", (B32, 16), ",wJalr", (B64, 35)),
     "Access key ID,Secret access key\n{t}"),
    ("passphrase-words", "issue 47: a passphrase of plain words", ("correct horse battery staple",),
     "the passphrase is {t}"),
    ("kubernetes-secret", "gitleaks:kubernetes-secret-yaml", ((B64, 24),),
     "kind: Secret\nmetadata:\n  name: db\ndata:\n  password: {t}"),
]


def _b64_image(rng: random.Random, n: int) -> str:
    return base64.b64encode(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + rng.randbytes(n)).decode()


# look-alikes: (shape, source, make(rng) -> text)
LOOK_ALIKES: list[tuple[str, str, Callable[[random.Random], str]]] = [
    ("git-sha", "git", lambda r: f"git cherry-pick {_token(r, (HEX, 40))}"),
    ("git-sha", "git", lambda r: f"HEAD is now at {_token(r, (HEX, 7))} Fix the parser"),
    ("git-sha", "git", lambda r: f"index {_token(r, (HEX, 12))}..{_token(r, (HEX, 12))} 100644"),
    ("git-sha", "git", lambda r: f'"parentUuid": null, "commit": "{_token(r, (HEX, 40))}"'),
    ("uuid", "uuid4", lambda r: f"sessionId {uuid.UUID(int=r.getrandbits(128), version=4)} resumed"),
    ("uuid", "uuid4", lambda r: f"X-Request-Id: {str(uuid.UUID(int=r.getrandbits(128), version=4)).upper()}"),
    ("uuid", "uuid4", lambda r: f"toolu_{_token(r, (ALNUM, 24))} returned for {uuid.UUID(int=r.getrandbits(128), version=4)}"),
    ("hash", "sha256", lambda r: f"sha256:{_token(r, (HEX, 64))}"),
    ("hash", "npm integrity", lambda r: f'"integrity": "sha512-{base64.b64encode(r.randbytes(64)).decode()}"'),
    ("hash", "go.sum", lambda r: f"golang.org/x/sys v0.26.0 h1:{base64.b64encode(r.randbytes(32)).decode()}"),
    ("hash", "pip hash", lambda r: f"requests==2.32.3 --hash=sha256:{_token(r, (HEX, 64))}"),
    ("base64-image", "png", lambda r: f"![plot](data:image/png;base64,{_b64_image(r, 300)})"),
    ("base64-image", "jpeg", lambda r: "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/"
                                       + base64.b64encode(r.randbytes(240)).decode()),
    ("base64-image", "claude-code image block",
     lambda r: '{"type":"image","source":{"type":"base64","media_type":"image/png","data":"'
               + _b64_image(r, 400) + '"}}'),
    ("identifier", "huggingface_hub", lambda r: "from huggingface_hub import hf_hub_download, HfApi; hf_transfer on"),
    ("identifier", "huggingface", lambda r: "HF_HUB_ENABLE_HF_TRANSFER=1 and hf_modelcardtemplatefromdefaultsx"),
    ("identifier", "stripe", lambda r: "stripe.Webhook.construct_event(payload, sig_header, endpoint_secret)"),
    ("identifier", "code", lambda r: "AutoModelForSequenceClassification.from_pretrained(checkpoint)"),
    ("identifier", "code", lambda r: "class HuggingFaceTokenizerConfigurationLoader(BaseLoader):"),
    ("identifier", "code", lambda r: "test_webhook_secret_rotation_keeps_previous_secret_valid PASSED"),
    ("identifier", "slack", lambda r: "the xoxb- prefix marks bot tokens, xapp- app tokens"),
    ("identifier", "aws", lambda r: "arn:aws:iam::123456789012:role/ci-deploy and arn:aws:s3:::orders-prod"),
    ("identifier", "openai", lambda r: "chatcmpl-AbC123dEf456 finished with finish_reason=stop"),
    ("ulid", "ulid", lambda r: f"event {_token(r, '01J', (UPPER_ALNUM.replace('I', '').replace('O', ''), 23))} stored"),
    ("timestamp", "logs", lambda r: "2026-11-29T05:50:12.123456789Z 10:15:32 1732860000:INFO ready"),
    ("telegram-like", "time", lambda r: "elapsed 1732860000123:AverageLatencyWasFine in the log"),
    ("words", "prose", lambda r: "the passphrase is correct, thanks for checking it"),
    ("words", "prose", lambda r: "Remember: the passphrase is long enough when it has four words."),
    ("words", "prose", lambda r: "the passphrase is stored in the keychain under deploy"),
    ("words", "prose", lambda r: "We agreed the token is rotated every ninety days by the platform team"),
    ("words", "prose", lambda r: "Set the webhook secret in the Stripe dashboard, not in code."),
    ("version", "semver", lambda r: "bumped fastapi 0.115.4 -> 0.115.6 and pydantic-core 2.27.1"),
    ("k8s", "kubectl", lambda r: f"pod web-{_token(r, (LOWER + DIGITS, 10))}-{_token(r, (LOWER + DIGITS, 5))} Running"),
    ("path", "paths", lambda r: "/home/dev/.cache/huggingface/hub/models--sentence-transformers--all-MiniLM-L6-v2"),
    ("url", "urls", lambda r: "https://huggingface.co/api/models?search=bert&sort=downloads&limit=20"),
    ("url", "urls", lambda r: "https://dashboard.stripe.com/test/webhooks/we_1QdXyZ2eZvKYlo2C"),
    ("ip", "net", lambda r: "listening on [2001:db8::8a2e:370:7334]:8443 and 10.0.3.7:5432, mac 00:1a:2b:3c:4d:5e"),
    ("email", "mail", lambda r: "From: Dev Ops <devops+alerts@example.com>, Reply-To: noreply@example.com"),
    ("json", "transcript", lambda r: '{"type":"assistant","uuid":"' + str(uuid.UUID(int=r.getrandbits(128), version=4))
                                     + '","requestId":"req_' + _token(r, (ALNUM, 24)) + '"}'),
    ("csv", "data", lambda r: "id,sku,price\n1,AB-1234-XY,19.99\n2,CD-5678-ZW,5.00"),
    ("code", "python", lambda r: "token = os.environ.get('HF_TOKEN') or HfFolder.get_token()"),
    ("code", "python", lambda r: "webhook_secret: str = Field(default='', repr=False)"),
    ("code", "typescript", lambda r: "const { data: session } = await supabase.auth.getSession();"),
    ("code", "go", lambda r: "password := os.Getenv(\"DB_PASSWORD\")"),
    ("code", "php", lambda r: "$db_pass = getenv('DB_PASS');"),
    ("code", "yaml", lambda r: "  client_secret: ${CLIENT_SECRET}"),
    ("code", "compare", lambda r: "if secret == expected_secret:"),
    ("code", "xml", lambda r: '<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />'),
    ("code", "k8s", lambda r: "kind: Secret\nmetadata:\n  name: db\nstringData:\n  password: ${DB_PASSWORD}"),
    ("code", "terraform", lambda r: 'credentials "app.terraform.io" { token = var.tfc_token }'),
    ("code", "shell", lambda r: "huggingface-cli login --token $HF_TOKEN --add-to-git-credential"),
    ("code", "shell", lambda r: "stripe listen --forward-to localhost:4242/webhook --skip-verify"),
    ("code", "rust", lambda r: "let api_key = std::env::var(\"OPENAI_API_KEY\")?;"),
    ("log", "pytest", lambda r: "FAILED tests/test_auth.py::test_token_refresh_rejects_expired_tokens - AssertionError"),
    ("log", "npm", lambda r: "npm WARN deprecated inflight@1.0.6: This module is not supported"),
    ("log", "docker", lambda r: f"Successfully built {_token(r, (HEX, 12))} and tagged app:latest"),
    ("log", "git", lambda r: f"To github.com:org/app.git\n   {_token(r, (HEX, 7))}..{_token(r, (HEX, 7))}  main -> main"),
    ("log", "pip", lambda r: "Successfully installed tokenizers-0.20.3 safetensors-0.4.5 huggingface-hub-0.26.2"),
    ("words", "prose", lambda r: "The secret to fast tests is a shared fixture; the key is reuse."),
    ("words", "prose", lambda r: "Her password manager generates passphrases of four words."),
    ("words", "prose", lambda r: "The bot token lives in Vault; ask the platform team for access."),
    ("words", "prose", lambda r: "AKIA and ASIA prefixes mark long-lived and temporary AWS key ids"),
    ("identifier", "code", lambda r: "sk_live_mode_enabled = settings.STRIPE_LIVE_MODE"),
    ("identifier", "code", lambda r: "api_org_membership_count and pat_expiry_days in the schema"),
    ("identifier", "python", lambda r: "from transformers import PreTrainedTokenizerFast as TokenizerFastForSeq2Seq"),
    ("identifier", "css", lambda r: ".rhf_SponsoredProductsRemoteRHFSearchEXPSubsK2ClickPagination { display: none }"),
    ("hash", "docker", lambda r: f"FROM python:3.12-slim@sha256:{_token(r, (HEX, 64))}"),
    ("hash", "cargo", lambda r: f'checksum = "{_token(r, (HEX, 64))}"'),
    ("hash", "ssh", lambda r: f"ED25519 key fingerprint is SHA256:{base64.b64encode(r.randbytes(32)).decode().rstrip('=')}."),
    ("hash", "ssh public key", lambda r: "ssh-ed25519 " + base64.b64encode(
        b"\0\0\0\x0bssh-ed25519\0\0\0\x20" + r.randbytes(32)).decode() + " dev@laptop"),
]
REPEATED = {"git-sha", "uuid", "hash", "base64-image"}  # drawn three times each: random look-alikes vary
SEED = 47


def generate(seed: int = SEED) -> tuple[list[dict], list[dict]]:
    rng = random.Random(seed)
    positives = []
    for shape, source, pieces, line in FORMATS:
        token = _token(rng, *pieces)
        positives.append({"text": line.format(t=token), "secret": token, "shape": shape, "source": source})
    negatives = [{"text": make(rng), "shape": shape, "source": source}
                 for shape, source, make in LOOK_ALIKES for _ in range(3 if shape in REPEATED else 1)]
    return positives, negatives


def write(path: Path = LABELS) -> None:
    labels = json.loads(path.read_text(encoding="utf-8"))
    positives, negatives = generate()
    labels["positives"] = [p for p in labels["positives"] if "source" not in p] + positives
    labels["negatives"] = [n for n in labels["negatives"] if "source" not in n] + negatives
    path.write_text(json.dumps(labels, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write()
