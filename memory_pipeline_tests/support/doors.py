"""The tests are a door: what the code below the doors takes as parameters, built here from the
test process's environment when asked (a test that sets a variable sees it)."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis


def env_settings() -> Settings:
    return Settings.from_env()


def runtime_dir() -> Path:
    """XDG_RUNTIME_DIR, where a socket path too long under a workspace is kept."""
    return Settings.from_env().runtime_dir


def redis_limits() -> tuple[float, Path]:
    """connect_redis's idle timeout and runtime folder, as a door hands them down."""
    settings = Settings.from_env()
    return settings.redis_idle_timeout, settings.runtime_dir


def embedded_redis(state: Path, **given) -> EmbeddedRedis:
    """The embedded Redis of a state folder, with the idle timeout and runtime folder a door passes
    (`given` overrides them)."""
    settings = Settings.from_env()
    return EmbeddedRedis(state, **({"runtime_dir": settings.runtime_dir, "idle_timeout": settings.redis_idle_timeout}
                                   | given))
