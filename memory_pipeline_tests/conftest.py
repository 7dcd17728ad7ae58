"""The test suite's root: the offline environment and the support plugin. Helpers live in support/."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

pytest_plugins = ["memory_pipeline_tests.support.plugin"]
