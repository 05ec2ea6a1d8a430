"""Fights: a GM-set turn order, turns and rounds, and the ruleset's hooks at each turn and round."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import Campaign, Character
from bot.errors import UserError
from bot.rulesets.play import CharacterSnapshot, Play
from bot.services.campaigns import campaign_options
from bot.services.characters import find_character, play_of, snapshot
from bot.services.common import Actor, Clock, Place, active_campaign, record_event, require_gm
from bot.services.play import Applied, apply_resolution


@dataclass(frozen=True)
class CombatReport:
    round_number: int
    in_combat: bool
    order: list[CharacterSnapshot]
    current: CharacterSnapshot | None
    actions: dict[str, tuple[str, ...]]
    applied: list[Applied]


class CombatService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock

    async def _order(self, session: AsyncSession, campaign: Campaign) -> list[Character]:
        ids: list[int] = list(campaign.combat.get("order", []))
        characters = {c.id: c for c in await session.scalars(select(Character).where(Character.id.in_(ids)))}
        return [characters[character_id] for character_id in ids if character_id in characters]

    async def _report(self, session: AsyncSession, campaign: Campaign, applied: list[Applied]) -> CombatReport:
        play = play_of(campaign)
        order = [await snapshot(session, character) for character in await self._order(session, campaign)]
        in_combat = bool(order)
        current = order[campaign.combat["turn"]] if order else None
        actions = {c.name: play.actions_left(c, campaign.round_number) for c in order}
        return CombatReport(campaign.round_number, in_combat, order, current, actions, applied)

    async def _start_turn(self, session: AsyncSession, campaign: Campaign, play: Play, actor: Actor) -> list[Applied]:
        """Skip fighters out of play (past the last one, a new round begins), then run the turn hook."""
        order = await self._order(session, campaign)
        for _ in order:
            current = order[campaign.combat["turn"]]
            if play.out_of_play(await snapshot(session, current)) is None:
                break
            following = campaign.combat["turn"] + 1
            if following >= len(order):
                following = 0
                await self._advance_round(session, campaign, play, actor)
            campaign.combat = {**campaign.combat, "turn": following}
        else:
            return []
        roles = {"character": current, "servant": current}
        if current.master_id is not None and (master := await session.get(Character, current.master_id)):
            roles["master"] = master
        resolution = play.turn_started(
            await snapshot(session, current), campaign.round_number, campaign_options(campaign)
        )
        if resolution is None:
            return []
        applied = await apply_resolution(session, play, campaign, roles, resolution, self.clock())
        record_event(
            session, campaign.id, "combat.turn_effect", actor_id=None,
            payload={"name": current.name, "rolls": [roll.to_dict() for roll in resolution.rolls],
                     "outcome": resolution.outcome},
            created_at=self.clock(),
        )  # fmt: skip
        return [applied]

    async def _advance_round(self, session: AsyncSession, campaign: Campaign, play: Play, actor: Actor) -> None:
        campaign.round_number += 1
        for character in await session.scalars(select(Character).where(Character.campaign_id == campaign.id)):
            state = play.round_started(await snapshot(session, character), campaign.round_number,
                                       campaign_options(campaign))  # fmt: skip
            if state is not None:
                character.state = state
        record_event(
            session, campaign.id, "round.started", actor_id=actor.user_id, payload={"round": campaign.round_number},
            created_at=self.clock(),
        )  # fmt: skip

    async def start(self, place: Place, actor: Actor, names: list[str]) -> CombatReport:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(campaign)
            fighters = [await find_character(session, campaign, name) for name in names]
            if not fighters or len({fighter.id for fighter in fighters}) != len(fighters):
                raise UserError("error.bad_turn_order")
            campaign.combat = {"order": [fighter.id for fighter in fighters], "turn": 0}
            await self._advance_round(session, campaign, play, actor)
            record_event(
                session, campaign.id, "combat.started", actor_id=actor.user_id,
                payload={"order": ", ".join(fighter.name for fighter in fighters)}, created_at=self.clock(),
            )  # fmt: skip
            applied = await self._start_turn(session, campaign, play, actor)
            return await self._report(session, campaign, applied)

    async def next_turn(self, place: Place, actor: Actor, *, whole_round: bool = False) -> CombatReport:
        """The next fighter's turn (a new round after the last one); or, with `whole_round`, the next round."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(campaign)
            order = campaign.combat.get("order", [])
            if not order and not whole_round:
                raise UserError("error.no_combat")
            turn = 0 if whole_round or not order else campaign.combat["turn"] + 1
            if whole_round or turn >= len(order):
                turn = 0
                await self._advance_round(session, campaign, play, actor)
            if not order:  # outside a fight, a round is only the campaign's clock
                return await self._report(session, campaign, [])
            campaign.combat = {**campaign.combat, "turn": turn}
            applied = await self._start_turn(session, campaign, play, actor)
            return await self._report(session, campaign, applied)

    async def status(self, place: Place) -> CombatReport:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            return await self._report(session, campaign, [])

    async def end(self, place: Place, actor: Actor) -> int:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(campaign)
            if not campaign.combat.get("order"):
                raise UserError("error.no_combat")
            campaign.combat = {}
            for character in await session.scalars(select(Character).where(Character.campaign_id == campaign.id)):
                state = play.scene_ended(await snapshot(session, character), campaign_options(campaign))
                if state is not None:
                    character.state = state
            record_event(
                session, campaign.id, "combat.ended", actor_id=actor.user_id, payload={}, created_at=self.clock()
            )
            return campaign.round_number
