"""The security tests reuse the fault suite's fixtures (fast model, workspaces)."""

from memory_pipeline_tests.faults.conftest import fast_embedding_model, fault_root, session_workspaces, workspaces  # noqa: F401
