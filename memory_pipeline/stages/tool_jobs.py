"""The tools of a software setup, by the job each does (pure data): one list for what reads them.

`alternatives` reads a switch from one tool to another of the same job ("We use pnpm now." replaces "We
use npm for this repo."); `observer_rules.SETUP_TERM` reads a user naming a tool as work on software. A
name that is also an everyday word or name (`EVERYDAY`: "express" shipping, "poetry", a "flask", "Jenkins"
and "Travis" as people, an RTX graphics card, "mise en place") does the first job only: in a chat it says
nothing of software. Of the chat sessions of LongMemEval's and LoCoMo's dev and held-out sets (1,154 read
as no work on software), the names outside `EVERYDAY` occur in no user turn; "express" (in 28), "poetry",
"Jenkins", "Mailchimp", "Flask", "yarn", "mocha", "bun", "RTX", "KOA" and "AWS" occur in 45.
"""

from __future__ import annotations

# one job, the tools that do it (lowercase; a name of several words as written); names that are nothing but
# everyday words ("black", "render", "flux", "cursor", "node") are left out
JOBS: dict[str, tuple[str, ...]] = {
    "package manager": ("npm", "pnpm", "yarn", "pip", "poetry", "uv", "pipenv", "conda"),
    "runtime": ("node.js", "nodejs", "deno", "bun"),
    "test runner": ("jest", "vitest", "mocha", "jasmine", "pytest", "unittest", "nose2"),
    "browser tests": ("cypress", "playwright", "selenium", "puppeteer"),
    "bundler": ("webpack", "vite", "rollup", "esbuild", "parcel", "turbopack", "rspack"),
    "linter": ("eslint", "biome", "tslint", "ruff", "flake8", "pylint"),
    "formatter": ("prettier", "yapf", "autopep8"),
    "type checker": ("mypy", "pyright", "pyre"),
    "database": ("postgres", "postgresql", "mysql", "mariadb", "sqlite", "mongodb", "mongo", "dynamodb",
                 "cockroachdb", "sql server"),
    "cache": ("redis", "memcached", "valkey", "dragonfly"),
    "queue": ("rabbitmq", "kafka", "sqs", "nats", "pulsar", "celery", "sidekiq"),
    "ci": ("jenkins", "github actions", "gitlab ci", "circleci", "travis", "travis ci", "buildkite", "teamcity"),
    # Jenkins does either job; a CI is no deploy system ("CI runs on GitHub Actions" stays beside "Deploys go
    # through Argo CD now")
    "deploys": ("jenkins", "argo cd", "argocd", "spinnaker", "octopus deploy"),
    "hosting": ("heroku", "vercel", "netlify", "fly.io"),
    "observability": ("datadog", "grafana", "grafana loki", "loki", "splunk", "new relic", "prometheus",
                      "cloudwatch", "honeycomb", "kibana", "sentry", "papertrail"),
    "orchestration": ("kubernetes", "k8s", "nomad", "ecs", "docker swarm"),
    "infrastructure as code": ("terraform", "opentofu", "pulumi", "cloudformation", "ansible"),
    "cloud": ("aws", "gcp", "google cloud", "azure"),
    "web server": ("nginx", "caddy", "traefik", "haproxy", "envoy"),
    "frontend": ("react", "vue", "svelte", "angular", "preact"),
    "python web": ("django", "flask", "fastapi"),
    "node web": ("express", "fastify", "koa", "nestjs", "hono"),
    "editor": ("vim", "neovim", "emacs", "vs code", "vscode", "intellij", "pycharm"),
    "version manager": ("asdf", "mise", "nvm", "fnm", "volta", "pyenv", "rbenv", "rtx", "sdkman"),
    "containers": ("docker", "podman", "colima", "orbstack"),
    "orm": ("prisma", "typeorm", "sequelize", "sqlalchemy", "knex", "mikro-orm", "django orm"),
    "monorepo": ("turborepo", "lerna", "nx"),
    "search": ("elasticsearch", "opensearch", "meilisearch", "typesense", "algolia", "solr"),
    "email": ("sendgrid", "mailgun", "mailchimp", "amazon ses"),
}

# names of JOBS that are everyday words or names too
EVERYDAY: frozenset[str] = frozenset({
    "poetry", "yarn", "uv", "bun", "jest", "mocha", "jasmine", "cypress", "playwright", "selenium", "puppeteer",
    "rollup", "parcel", "biome", "prettier", "pyre", "dragonfly", "kafka", "celery", "nats", "pulsar", "jenkins",
    "travis", "spinnaker", "prometheus", "loki", "sentry", "honeycomb", "papertrail", "new relic", "nomad", "ecs",
    "aws", "azure", "caddy", "envoy", "react", "vue", "svelte", "angular", "preact", "django", "flask", "express",
    "koa", "hono", "vim", "mise", "volta", "rtx", "colima", "prisma", "knex", "lerna", "nx", "mailchimp", "mongo",
    "solr", "algolia", "emacs", "conda"})


def setup_tools() -> list[str]:
    """The names of JOBS that say software wherever they are said, the longest first."""
    names = {tool for tools in JOBS.values() for tool in tools} - EVERYDAY
    return sorted(names, key=lambda name: (-len(name), name))
