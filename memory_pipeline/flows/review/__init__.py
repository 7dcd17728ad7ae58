"""Review: proposals staged, decided, promoted into MEMORY.md, and shown in the UI."""
