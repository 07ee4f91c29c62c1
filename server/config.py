"""Settings: arguments, then BANCO_* environment variables, then defaults that work on a laptop."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field


@dataclass
class Settings:
    database_url: str | None = None
    redis_url: str | None = None
    referee_token: str = ""
    broadcaster: str = "queues"  # "queues" (per viewer, each game's newest snapshot) or "naive" (benchmark peer)
    # Move what exists once the app is built out of the collector's way (gc.freeze): a full
    # collection then walks only the viewers' objects, which shortens its pause. `banco serve`
    # turns it on; tests that build many apps in one process leave it off.
    freeze_startup_heap: bool = False
    token_generated: bool = field(default=False, repr=False)

    @classmethod
    def from_env(cls, **overrides) -> Settings:
        values = {
            "database_url": os.environ.get("BANCO_DATABASE_URL") or None,
            "redis_url": os.environ.get("BANCO_REDIS_URL") or None,
            "referee_token": os.environ.get("BANCO_REFEREE_TOKEN", ""),
            "broadcaster": os.environ.get("BANCO_BROADCASTER", "queues"),
            "freeze_startup_heap": os.environ.get("BANCO_GC_FREEZE", "1") != "0",
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)
        if not settings.referee_token:
            settings.referee_token = secrets.token_urlsafe(18)
            settings.token_generated = True
        if settings.broadcaster not in ("queues", "naive"):
            raise ValueError(f"BANCO_BROADCASTER must be 'queues' or 'naive', not {settings.broadcaster!r}")
        return settings
