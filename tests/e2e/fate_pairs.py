"""A Fate/Points player's Master and Servant from the templates, approved by a GM: the fighters of the fault
and crash tests."""

from __future__ import annotations

from typing import Any

import yaml

from bot.emulator import Emulator
from bot.emulator.models import Channel, User


async def enlist(emulator: Emulator, gm: User, channel: Channel, player: User, master: str, servant: str) -> None:
    """`player`'s Master and Servant (of the class named like it), each approved by `gm`; the player acts with
    the Servant."""
    for kind, name in (("master", master), ("servant", servant)):
        template = await emulator.slash(player, channel, "character template", {"kind": kind})
        data: dict[str, Any] = yaml.safe_load(template.reply.attachments[0].data)
        data["name"] = name
        if kind == "servant":
            data.update(master=master, servant_class=servant)
        text = yaml.safe_dump(data, allow_unicode=True).encode()
        created = await emulator.slash(player, channel, "character import", {"file": ("sheet.yaml", text)})
        assert created.error is None and not created.reply.ephemeral, created.reply.content
        approval = emulator.last_message(channel, visible_to=gm)
        approved = await emulator.click(gm, approval, approval.buttons()[0])  # Approve, then Reject
        assert approved.error is None, approved.error
    used = await emulator.slash(player, channel, "character use", {"name": servant})
    assert used.error is None, used.error
