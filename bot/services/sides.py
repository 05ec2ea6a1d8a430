"""Sides (camps): groups of characters that act together, each member in the place its ruleset names."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from bot.db.engine import Database
from bot.db.models import Side, SideMember
from bot.errors import UserError
from bot.services.characters import find_character
from bot.services.common import Actor, Clock, Place, active_campaign, record_event, require_gm
from rules.text import NAME_LIMIT, unseen_character


class SideService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock

    async def create(self, place: Place, actor: Actor, name: str, members: Sequence[tuple[str, str]]) -> Side:
        """A side of the channel's campaign with these (character name, place) members; GM only."""
        if not name.strip() or len(name) > NAME_LIMIT:
            raise UserError("error.name_length", limit=NAME_LIMIT)
        if (code := unseen_character(name)) is not None:
            raise UserError("error.name_characters", code=code)
        if len({member.lower() for member, _ in members}) != len(members):
            raise UserError("error.side_member_twice")
        try:
            async with self.database.write() as session:
                campaign = await active_campaign(session, place, lock=True)
                await require_gm(session, campaign.id, actor)
                side = Side(campaign_id=campaign.id, name=name, state={}, created_at=self.clock())
                session.add(side)
                await session.flush()
                for character_name, role in members:
                    character = await find_character(session, campaign, character_name)
                    session.add(SideMember(side_id=side.id, character_id=character.id, place=role))
                record_event(
                    session, campaign.id, "side.created", actor_id=actor.user_id,
                    payload={"name": name, "members": [member for member, _ in members]}, created_at=self.clock(),
                )  # fmt: skip
                await session.flush()
        except IntegrityError as error:
            raise UserError("error.side_exists", name=name) from error
        return side

    async def find(self, place: Place, name: str) -> Side:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            side = await session.scalar(select(Side).where(Side.campaign_id == campaign.id, Side.name == name))
            if side is None:
                raise UserError("error.unknown_side", name=name)
            return side
