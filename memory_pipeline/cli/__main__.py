"""`python -m memory_pipeline.cli`: the same as the memory-pipeline console script."""

import sys

from memory_pipeline.main import main

sys.exit(main())
