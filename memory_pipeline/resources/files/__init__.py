"""The workspace's files: the inbox, snapshots, sessions and observations, the ledger, MEMORY.md
and REVIEW.md, the daily log, hook state, feedback, and the user's own files written safely."""
