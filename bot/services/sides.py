"""Sides (camps): groups of characters that act together, each member in the place its ruleset names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import Campaign, Character, Side, SideMember
from bot.errors import UserError
from bot.services.characters import find_character
from bot.services.common import Actor, Clock, Place, active_campaign, record_event, require_gm
from rules.play import campaign_side
from rules.text import NAME_LIMIT, unseen_character

# Where a member stands when its ruleset gives it no other place.
MEMBER = "member"


def refuse_unfit_name(name: str) -> None:
    if not name.strip() or len(name) > NAME_LIMIT:
        raise UserError("error.name_length", limit=NAME_LIMIT)
    if (code := unseen_character(name)) is not None:
        raise UserError("error.name_characters", code=code)


class SideService:
    """Sides a GM forms by name, and what a ruleset's own service reads and writes of sides inside its own
    transaction."""

    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock

    async def create(self, place: Place, actor: Actor, name: str, members: Sequence[tuple[str, str]]) -> Side:
        """A side of the channel's campaign with these (character name, place) members; GM only."""
        refuse_unfit_name(name)
        if len({member.lower() for member, _ in members}) != len(members):
            raise UserError("error.side_member_twice")
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            if await self.named(session, campaign, name) is not None:
                raise UserError("error.side_exists", name=name)
            placed = [(await find_character(session, campaign, member), role) for member, role in members]
            side = await self.add(session, campaign, name, placed)
            record_event(
                session,
                campaign.id,
                "side.created",
                actor_id=actor.user_id,
                payload={"name": name, "members": [member for member, _ in members]},
                created_at=self.clock(),
            )
            await session.flush()
        return side

    async def find(self, place: Place, name: str) -> Side:
        async with self.database.read() as session:
            side = await self.named(session, await active_campaign(session, place), name)
            if side is None:
                raise UserError("error.unknown_side", name=name)
            return side

    async def add(
        self,
        session: AsyncSession,
        campaign: Campaign,
        name: str,
        members: Sequence[tuple[Character, str]],
        state: Mapping[str, Any] | None = None,
    ) -> Side:
        """A new side with its (character, place) members and its ruleset's state of it."""
        side = Side(campaign_id=campaign.id, name=name, state=dict(state or {}), created_at=self.clock())
        session.add(side)
        await session.flush()
        for character, role in members:
            self.join(session, side, character, role)
        return side

    def join(self, session: AsyncSession, side: Side, character: Character, place: str = MEMBER) -> None:
        session.add(SideMember(side_id=side.id, character_id=character.id, place=place))

    async def named(self, session: AsyncSession, campaign: Campaign, name: str) -> Side | None:
        """The campaign's side of that name, however it is cased or spaced."""
        return await session.scalar(
            select(Side).where(Side.campaign_id == campaign.id, func.lower(Side.name) == name.strip().lower())
        )

    async def of(self, session: AsyncSession, campaign: Campaign, character: Character) -> Side | None:
        """The side a character is in, if any."""
        return await session.scalar(
            select(Side)
            .join(SideMember, SideMember.side_id == Side.id)
            .where(Side.campaign_id == campaign.id, SideMember.character_id == character.id)
        )

    async def members(self, session: AsyncSession, side: Side) -> list[tuple[Character, str]]:
        """A side's members with their places, in the order they joined."""
        rows = await session.execute(
            select(Character, SideMember.place)
            .join(SideMember, SideMember.character_id == Character.id)
            .where(SideMember.side_id == side.id)
            .order_by(SideMember.id)
        )
        return [(character, place) for character, place in rows.all()]

    async def place(self, session: AsyncSession, side: Side, places: Mapping[int, str]) -> None:
        """Each member at its place by its character's id; everyone not named back among the members."""
        for row in await session.scalars(select(SideMember).where(SideMember.side_id == side.id)):
            row.place = places.get(row.character_id, MEMBER)

    async def of_campaign(self, session: AsyncSession, campaign: Campaign) -> dict[str, Side]:
        """The campaign's sides by their roles in the clock's hooks (in the order they were formed)."""
        found = await session.scalars(select(Side).where(Side.campaign_id == campaign.id).order_by(Side.id))
        return {campaign_side(position): side for position, side in enumerate(found)}
