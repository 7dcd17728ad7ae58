"""`python -m memory_pipeline.cli`: the same as the memory-pipeline console script, but always the
whole CLI in this process (the hook command included: no hook service)."""

import sys

from memory_pipeline.main import main

sys.exit(main(sys.argv[1:]))
