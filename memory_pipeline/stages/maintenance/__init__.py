"""Memory hygiene, pure: which memories are stale, which facts say the same thing."""
