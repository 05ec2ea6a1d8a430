"""The channel-to-campaign directory: bounded, expiring, and never storing an answer that raced a change."""

from __future__ import annotations

from bot.db.directory import CampaignDirectory, Known


def test_a_lookup_that_raced_a_start_or_end_is_not_stored() -> None:
    directory = CampaignDirectory()
    generation = directory.generation  # a command reads the database: no campaign yet
    directory.forget(1, 10)  # meanwhile a campaign starts there and commits
    directory.remember(1, 10, None, generation)
    assert directory.get(1, 10) is None  # the stale "none" was not kept: the next command asks again
    directory.remember(1, 10, 5, directory.generation)
    assert directory.get(1, 10) == Known(5)


def test_the_least_recently_used_channel_goes_first() -> None:
    directory = CampaignDirectory(capacity=2)
    for channel in (10, 11):
        directory.remember(1, channel, channel, directory.generation)
    assert directory.get(1, 10) == Known(10)
    directory.remember(1, 12, 12, directory.generation)
    assert len(directory) == 2
    assert directory.get(1, 11) is None
    assert directory.get(1, 10) == Known(10)


def test_entries_expire() -> None:
    now = [1000.0]
    directory = CampaignDirectory(lifetime=300, clock=lambda: now[0])
    directory.remember(1, 10, None, directory.generation)
    now[0] += 299
    assert directory.get(1, 10) == Known(None)
    now[0] += 2
    assert directory.get(1, 10) is None
    assert len(directory) == 0
