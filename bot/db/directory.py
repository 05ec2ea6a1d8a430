"""Which campaign is active in each channel, remembered so that the hottest commands skip a query.

Every command starts by finding its channel's campaign, and the answer changes only when a campaign starts
or ends. Those two commands forget the channel once they have committed. A lookup that raced one of them
(read before the commit, stored after the forgetting) is recognised by the generation it started in and not
stored. The bot answers each guild from one process (Discord's sharding), so those are the only changes;
entries also expire after `lifetime` seconds as a bound on any other writer. Callers that go on to load the
campaign still check that it is active, so a stale positive entry is caught and forgotten.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from cachetools import TTLCache

DIRECTORY_CAPACITY: Final = 10_000
DIRECTORY_LIFETIME_SECONDS: Final = 300.0


@dataclass(frozen=True)
class Known:
    """A remembered answer: the active campaign's id, or None for a channel without one, the language of its
    public messages (None: the server's), and the dice dialect its GMs chose (None: its language's)."""

    campaign_id: int | None
    language: str | None = None
    dice_dialect: str | None = None


class CampaignDirectory:
    """A bounded map from (guild, channel) to the channel's active campaign: the least recently used channel
    goes first when it is full, and every entry expires."""

    def __init__(
        self,
        capacity: int = DIRECTORY_CAPACITY,
        lifetime: float = DIRECTORY_LIFETIME_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._entries: TTLCache[tuple[int, int], Known] = TTLCache(capacity, lifetime, timer=clock)
        self._generation = 0

    @property
    def generation(self) -> int:
        """Read before a lookup in the database; pass it to `remember` afterwards."""
        return self._generation

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, guild_id: int, channel_id: int) -> Known | None:
        """What is remembered for the channel, or None when the database must be asked."""
        return self._entries.get((guild_id, channel_id))

    def remember(
        self,
        guild_id: int,
        channel_id: int,
        campaign_id: int | None,
        generation: int,
        language: str | None = None,
        dice_dialect: str | None = None,
    ) -> None:
        if generation == self._generation:
            self._entries[(guild_id, channel_id)] = Known(campaign_id, language, dice_dialect)

    def forget(self, guild_id: int, channel_id: int) -> None:
        self._generation += 1
        self._entries.pop((guild_id, channel_id), None)

    def clear(self) -> None:
        self._generation += 1
        self._entries.clear()
