"""A GM's digest of many campaigns: one text, a section per campaign, that the output layer sends in as many
messages as Discord's limits take, none of its waits lost."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot import output
from bot.cogs.reminders import digest_text
from bot.emulator.validation import validate_message
from bot.i18n import Translator
from bot.services.reminders import OpenWait, Stuck
from rules.exchange import Text

CAMPAIGNS = 40
WAITS_EACH = 5
SINCE = datetime(2026, 12, 1, 18, 30, tzinfo=UTC)
GUILD = 10**17


def stuck_in(campaign_id: int) -> Stuck:
    """Five sheets waiting for the GMs' approval in the campaign, for a day and a half."""
    name = f"Campaign {campaign_id}"
    waits = tuple(
        OpenWait(
            "fate_points", campaign_id, name, GUILD, GUILD + campaign_id, campaign_id * 100 + n,
            Text("exchange.sheet_approval", {"name": f"Servant {n} of {name}"}), None, (), True, False, SINCE,
            GUILD * 10 + campaign_id * 100 + n,
        )
        for n in range(WAITS_EACH)
    )  # fmt: skip
    return Stuck(campaign_id, name, timedelta(hours=36), waits)


@pytest.mark.parametrize("language", ["en", "zh-CN", "ja"])
def test_a_digest_of_forty_campaigns_fits_discord_and_keeps_every_wait(language: str) -> None:
    stuck = [stuck_in(campaign_id) for campaign_id in range(1, CAMPAIGNS + 1)]
    messages = output.pack(digest_text(Translator(language), stuck), ())
    assert len(messages) > 1  # more than one message holds
    for message in messages:
        validate_message({"content": message.content}, file_count=0, partial=False)
    sent = "\n".join(message.content or "" for message in messages)
    for section in stuck:
        assert sent.count(f"**{section.campaign_name}**") == 1
        for wait in section.waits:
            assert wait.link is not None and sent.count(wait.link) == 1
    assert ("1 day and 12 hours" in sent) == (language == "en")
