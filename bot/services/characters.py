"""Characters: imported or created by the rules, listed, shown, chosen and deleted."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import ROLE_PLAYER, Campaign, Character, Membership, ResourcePool
from bot.errors import UserError
from bot.rulesets import RULESETS
from bot.rulesets.play import CharacterDraft, CharacterSnapshot, Play, Pool
from bot.services.campaigns import campaign_options
from bot.services.common import Actor, Clock, Place, active_campaign, is_gm, record_event
from rules.dice import DiceSource
from rules.options import CampaignOptions


def play_of(campaign: Campaign) -> Play:
    play = RULESETS[campaign.ruleset].play
    if play is None:
        raise UserError("error.ruleset_not_playable")
    return play


async def snapshot(session: AsyncSession, character: Character, *, with_master: bool = True) -> CharacterSnapshot:
    pools = {
        pool.name: Pool(pool.current, pool.maximum, pool.minimum)
        for pool in await session.scalars(
            # Pools change through UPDATE ... RETURNING, which the session's cached objects do not see.
            select(ResourcePool)
            .where(ResourcePool.character_id == character.id)
            .execution_options(populate_existing=True)
        )
    }
    master = None
    if with_master and character.master_id is not None:
        stored_master = await session.get(Character, character.master_id)
        if stored_master is not None:
            master = await snapshot(session, stored_master, with_master=False)
    return CharacterSnapshot(
        character.id,
        character.name,
        character.kind,
        character.owner_id,
        character.sheet,
        pools,
        character.state,
        master,
    )


async def find_character(session: AsyncSession, campaign: Campaign, name: str) -> Character:
    character = await session.scalar(
        select(Character).where(Character.campaign_id == campaign.id, func.lower(Character.name) == name.lower())
    )
    if character is None:
        raise UserError("error.unknown_character", name=name)
    return character


async def active_character(session: AsyncSession, campaign: Campaign, actor: Actor) -> Character:
    membership = await session.scalar(
        select(Membership).where(Membership.campaign_id == campaign.id, Membership.user_id == actor.user_id)
    )
    if membership is None or membership.active_character_id is None:
        raise UserError("error.no_active_character")
    character = await session.get(Character, membership.active_character_id)
    assert character is not None
    return character


async def owned_or_gm(session: AsyncSession, campaign: Campaign, character: Character, actor: Actor) -> None:
    if character.owner_id != actor.user_id and not await is_gm(session, campaign.id, actor):
        raise UserError("error.not_your_character", name=character.name)


@dataclass(frozen=True)
class Created:
    campaign: Campaign
    character: Character
    draft: CharacterDraft
    active: bool


class CharacterService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock

    async def play(self, place: Place) -> Play:
        async with self.database.read() as session:
            return play_of(await active_campaign(session, place))

    async def create(self, place: Place, actor: Actor, kind: str, data: dict[str, object], dice: DiceSource) -> Created:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            play = play_of(campaign)
            if kind not in play.kinds:
                raise UserError("error.unknown_kind", kind=kind, kinds=", ".join(play.kinds))
            master = None
            if play.needs_master(kind):
                master = await self._owners_master(session, campaign, actor, data.get("master"))
            options = campaign_options(campaign)
            draft = play.build(kind, data, await snapshot(session, master) if master else None, dice, options)
            taken = await session.scalar(
                select(Character.id).where(
                    Character.campaign_id == campaign.id, func.lower(Character.name) == draft.name.lower()
                )
            )
            if taken is not None:
                raise UserError("error.character_exists", name=draft.name)
            character = await self._store(session, campaign, actor, draft, master)
            active = await self._join(session, campaign, actor, character)
            record_event(
                session,
                campaign.id,
                "character.created",
                actor_id=actor.user_id,
                payload={
                    "name": draft.name,
                    "kind": kind,
                    "sheet": draft.sheet,
                    "pools": {name: [pool.current, pool.maximum] for name, pool in draft.pools.items()},
                    "rolls": [roll.to_dict() for roll in draft.rolls],
                },
                created_at=self.clock(),
            )
            return Created(campaign, character, draft, active)

    async def _owners_master(self, session: AsyncSession, campaign: Campaign, actor: Actor, name: object) -> Character:
        if not isinstance(name, str) or not name:
            raise UserError("error.master_required")
        master = await find_character(session, campaign, name)
        if master.kind != "master":
            raise UserError("error.not_a_master", name=master.name)
        await owned_or_gm(session, campaign, master, actor)
        bound = await session.scalar(select(Character.name).where(Character.master_id == master.id))
        if bound is not None:
            raise UserError("error.master_has_servant", master=master.name, servant=bound)
        return master

    async def _store(
        self, session: AsyncSession, campaign: Campaign, actor: Actor, draft: CharacterDraft, master: Character | None
    ) -> Character:
        character = Character(
            campaign_id=campaign.id,
            owner_id=actor.user_id,
            name=draft.name,
            kind=draft.kind,
            sheet=draft.sheet,
            state={},
            master_id=master.id if master else None,
            created_at=self.clock(),
        )
        session.add(character)
        await session.flush()
        for name, pool in draft.pools.items():
            session.add(
                ResourcePool(
                    character_id=character.id, name=name, current=pool.current, maximum=pool.maximum,
                    minimum=pool.minimum,
                )
            )  # fmt: skip
        return character

    async def _membership(self, session: AsyncSession, campaign: Campaign, actor: Actor) -> Membership:
        """The actor's membership, joining them as a player if they have none (GMs stay GMs)."""
        membership = await session.scalar(
            select(Membership).where(Membership.campaign_id == campaign.id, Membership.user_id == actor.user_id)
        )
        if membership is None:
            membership = Membership(campaign_id=campaign.id, user_id=actor.user_id, role=ROLE_PLAYER)
            session.add(membership)
        return membership

    async def _join(self, session: AsyncSession, campaign: Campaign, actor: Actor, character: Character) -> bool:
        """Make the owner a member and their first character the active one."""
        membership = await self._membership(session, campaign, actor)
        if membership.active_character_id is None:
            membership.active_character_id = character.id
            return True
        return False

    async def show(
        self, place: Place, actor: Actor, name: str | None
    ) -> tuple[Campaign, CharacterSnapshot, Play, CampaignOptions]:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            play = play_of(campaign)
            character = (
                await find_character(session, campaign, name)
                if name
                else await active_character(session, campaign, actor)
            )
            return campaign, await snapshot(session, character), play, campaign_options(campaign)

    async def roster(self, place: Place) -> tuple[Campaign, list[CharacterSnapshot]]:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            characters = await session.scalars(
                select(Character).where(Character.campaign_id == campaign.id).order_by(Character.id)
            )
            return campaign, [await snapshot(session, character, with_master=False) for character in characters]

    async def names(self, place: Place) -> list[str]:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            result = await session.scalars(
                select(Character.name).where(Character.campaign_id == campaign.id).order_by(Character.name)
            )
            return list(result)

    async def use(self, place: Place, actor: Actor, name: str) -> Character:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            character = await find_character(session, campaign, name)
            if character.owner_id != actor.user_id:
                raise UserError("error.not_your_character", name=character.name)
            membership = await self._membership(session, campaign, actor)
            membership.active_character_id = character.id
            record_event(
                session, campaign.id, "character.used", actor_id=actor.user_id, payload={"name": character.name},
                created_at=self.clock(),
            )  # fmt: skip
            return character

    async def delete(self, place: Place, actor: Actor, name: str) -> Character:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            character = await find_character(session, campaign, name)
            await owned_or_gm(session, campaign, character, actor)
            record_event(
                session, campaign.id, "character.deleted", actor_id=actor.user_id,
                payload={"name": character.name, "sheet": character.sheet}, created_at=self.clock(),
            )  # fmt: skip
            await session.execute(delete(Character).where(Character.id == character.id))
            return character
