"""Which guilds a process answers for: Discord's sharding, by the shards the settings give the process."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard that carries a guild's events, by Discord's formula."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True)
class Shards:
    """The shards one process runs, of how many. Everything a process does on its own (deadlines, reminders)
    it does for its shards' guilds only: another process runs the others."""

    count: int
    ids: Collection[int]


EVERY_GUILD = Shards(1, (0,))
