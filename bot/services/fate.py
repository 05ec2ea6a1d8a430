"""What only Fate/Points has: Fate/Point spends (approved by a GM when the option says so),
a Servant's presence beside its Master, and exact attack odds."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.atomic import resolve_pending
from bot.db.engine import Database
from bot.db.models import CANCELLED, PENDING, RESOLVED, Campaign, Character, PendingAction
from bot.errors import UserError
from bot.rulesets.fate_points import FatePointsPlay
from bot.rulesets.play import CharacterSnapshot
from bot.services.campaigns import campaign_options
from bot.services.characters import active_character, find_character, play_of, snapshot
from bot.services.common import Actor, Clock, Place, active_campaign, is_gm, record_event, require_gm
from bot.services.play import Applied, apply_resolution, pending_in_guild, rule_refused, turn_of
from rules.exchange import Resolution, RuleError
from rules.fate_points import FatePointsOptions

FATE_SPEND = "fate.spend"


@dataclass(frozen=True)
class FateRequest:
    master: str
    use: str
    stat: str | None
    pending_id: int | None
    applied: Applied | None


@dataclass(frozen=True)
class FateDecision:
    master: str
    owner_id: int
    use: str
    stat: str | None
    approved: bool


def fate_play(campaign: Campaign) -> FatePointsPlay:
    play = play_of(campaign)
    if not isinstance(play, FatePointsPlay):
        raise UserError("error.fate_points_only")
    return play


@dataclass(frozen=True)
class FateAction:
    """An action of the Fate/Points prana economy, applied: who acted, what changed."""

    name: str
    applied: Applied


class FateService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock

    async def _apply(
        self, session: AsyncSession, campaign: Campaign, play: FatePointsPlay, roles: dict[str, Character],
        resolution: Resolution, actor: Actor, kind: str,
    ) -> FateAction:  # fmt: skip
        applied = await apply_resolution(session, play, campaign, roles, resolution, self.clock())
        subject = roles.get("actor", roles.get("servant", roles.get("master")))
        assert subject is not None
        rolls = [roll.to_dict() for roll in resolution.rolls]
        record_event(
            session,
            campaign.id,
            kind,
            actor_id=actor.user_id,
            payload={"name": subject.name, "outcome": resolution.outcome, "rolls": rolls},
            created_at=self.clock(),
        )
        return FateAction(subject.name, applied)

    def _restate(
        self, session: AsyncSession, campaign: Campaign, character: Character, state: dict[str, Any], kind: str,
        actor: Actor, **details: object,
    ) -> str:  # fmt: skip
        """Replace a character's rules state and log why; returns the character's name for the reply."""
        character.state = state
        record_event(
            session, campaign.id, kind, actor_id=actor.user_id, payload={"name": character.name, **details},
            created_at=self.clock(),
        )  # fmt: skip
        return character.name

    async def _gm_campaign(self, session: AsyncSession, place: Place, actor: Actor) -> tuple[Campaign, FatePointsPlay]:
        """The channel's Fate/Points campaign, locked, for a GM-only change."""
        campaign = await active_campaign(session, place, lock=True)
        play = fate_play(campaign)
        await require_gm(session, campaign.id, actor)
        return campaign, play

    async def _own_character(self, session: AsyncSession, place: Place, actor: Actor) -> tuple[Campaign, Character]:
        campaign = await active_campaign(session, place, lock=True)
        return campaign, await active_character(session, campaign, actor)

    async def _pair(
        self, session: AsyncSession, campaign: Campaign, character: Character
    ) -> tuple[Character, Character]:
        """The Master and Servant of a contract, from either of them."""
        if character.master_id is not None:
            master = await session.get(Character, character.master_id)
            servant: Character | None = character
        else:
            master = character
            servant = await session.scalar(
                select(Character).where(Character.campaign_id == campaign.id, Character.master_id == character.id)
            )
        if master is None or servant is None:
            raise UserError("error.no_pair", name=character.name)
        return master, servant

    async def transfer(self, place: Place, actor: Actor, amount: int) -> FateAction:
        async with self.database.write() as session:
            campaign, character = await self._own_character(session, place, actor)
            play = fate_play(campaign)
            master, servant = await self._pair(session, campaign, character)
            try:
                resolution = play.transfer(
                    await snapshot(session, character), await snapshot(session, master),
                    await snapshot(session, servant), amount, turn_of(campaign),
                )  # fmt: skip
            except RuleError as error:
                raise rule_refused(error) from error
            roles = {"actor": character, "master": master, "servant": servant}
            return await self._apply(session, campaign, play, roles, resolution, actor, "fate.transfer")

    async def regenerate(self, place: Place, actor: Actor, hp_points: int, confirm: bool) -> FateAction:
        async with self.database.write() as session:
            campaign, character = await self._own_character(session, place, actor)
            play = fate_play(campaign)
            try:
                resolution = play.regenerate(
                    await snapshot(session, character),
                    hp_points,
                    confirm,
                    turn_of(campaign),
                    campaign_options(campaign),
                )
            except RuleError as error:
                raise rule_refused(error) from error
            return await self._apply(session, campaign, play, {"actor": character}, resolution, actor, "fate.regen")

    async def activate(self, place: Place, actor: Actor, name: str, use_extra: bool, confirm: bool) -> FateAction:
        async with self.database.write() as session:
            campaign, character = await self._own_character(session, place, actor)
            play = fate_play(campaign)
            try:
                resolution = play.activate(
                    await snapshot(session, character), name, use_extra, confirm, turn_of(campaign)
                )
            except RuleError as error:
                raise rule_refused(error) from error
            return await self._apply(session, campaign, play, {"actor": character}, resolution, actor, "fate.activate")

    async def move(self, place: Place, actor: Actor) -> FateAction:
        async with self.database.write() as session:
            campaign, character = await self._own_character(session, place, actor)
            play = fate_play(campaign)
            if not turn_of(campaign).in_combat:
                raise UserError("error.no_combat")
            try:
                resolution = play.move(await snapshot(session, character), turn_of(campaign))
            except RuleError as error:
                raise rule_refused(error) from error
            return await self._apply(session, campaign, play, {"actor": character}, resolution, actor, "fate.move")

    async def rest(self, place: Place, actor: Actor, name: str) -> FateAction:
        async with self.database.write() as session:
            campaign, play = await self._gm_campaign(session, place, actor)
            master = await find_character(session, campaign, name)
            try:
                resolution = play.rest(await snapshot(session, master))
            except RuleError as error:
                raise rule_refused(error) from error
            return await self._apply(session, campaign, play, {"master": master}, resolution, actor, "fate.rest")

    async def pass_time(self, place: Place, actor: Actor, hours: int) -> list[FateAction]:
        """R14: every contracted Servant out of combat replenishes from its Master, hour by hour."""
        async with self.database.write() as session:
            campaign, play = await self._gm_campaign(session, place, actor)
            if turn_of(campaign).in_combat:
                raise UserError("error.time_in_combat")
            servants = await session.scalars(
                select(Character).where(Character.campaign_id == campaign.id, Character.master_id.is_not(None))
                .order_by(Character.id)
            )  # fmt: skip
            actions = []
            for servant in servants:
                master = await session.get(Character, servant.master_id)
                servant_now = await snapshot(session, servant)
                if master is None or play.out_of_play(servant_now) is not None or not play.replenishes(servant_now):
                    continue
                try:
                    resolution = play.replenish(await snapshot(session, master), servant_now, hours,
                                                campaign_options(campaign))  # fmt: skip
                except RuleError as error:
                    raise rule_refused(error) from error
                roles = {"servant": servant, "master": master}
                actions.append(await self._apply(session, campaign, play, roles, resolution, actor, "fate.replenish"))
            return actions

    async def set_passive(self, place: Place, actor: Actor, enabled: bool) -> str:
        """The player's choice for their Servant: replenish passively from the Master over time, or not."""
        async with self.database.write() as session:
            campaign, character = await self._own_character(session, place, actor)
            fate_play(campaign)
            _, servant = await self._pair(session, campaign, character)
            state = {**servant.state, "passive_off": not enabled}
            return self._restate(session, campaign, servant, state, "fate.passive", actor, enabled=enabled)

    async def rule_phantasm(
        self, place: Place, actor: Actor, servant_name: str, phantasm: str, defences: str | None, damage: int | None
    ) -> str:
        async with self.database.write() as session:
            campaign, play = await self._gm_campaign(session, place, actor)
            servant = await find_character(session, campaign, servant_name)
            try:
                state = play.rule_phantasm(await snapshot(session, servant), phantasm, defences, damage)
            except (RuleError, ValueError) as error:
                raise UserError("error.bad_ruling", phantasm=phantasm) from error
            ruling = state["np_rulings"][phantasm]
            return self._restate(session, campaign, servant, state, "fate.np_ruling", actor, phantasm=phantasm,
                                 ruling=ruling)  # fmt: skip

    async def god_hand(self, place: Place, actor: Actor, name: str, minimum: str | None) -> str:
        async with self.database.write() as session:
            campaign, play = await self._gm_campaign(session, place, actor)
            character = await find_character(session, campaign, name)
            try:
                state = play.god_hand(await snapshot(session, character), minimum)
            except RuleError as error:
                raise rule_refused(error) from error
            return self._restate(session, campaign, character, state, "fate.god_hand", actor, rank=minimum or "-")

    async def _grant(
        self, session: AsyncSession, campaign: Campaign, play: FatePointsPlay, master: Character, use: str,
        stat: str | None, actor: Actor,
    ) -> Applied:  # fmt: skip
        try:
            resolution = play.spend_fate_point(
                await snapshot(session, master), use, stat, turn_of(campaign), campaign_options(campaign)
            )
        except RuleError as error:
            raise rule_refused(error) from error
        applied = await apply_resolution(session, play, campaign, {"master": master}, resolution, self.clock())
        master.state = {**master.state, "fate": resolution.outcome["effect"]}
        record_event(
            session, campaign.id, "fate.spent", actor_id=actor.user_id,
            payload={"name": master.name, "use": use, "stat": stat}, created_at=self.clock(),
        )  # fmt: skip
        return applied

    async def request_spend(
        self, place: Place, actor: Actor, use: str, stat: str | None, channel_id: int
    ) -> FateRequest:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            play = fate_play(campaign)
            character = await active_character(session, campaign, actor)
            master = character if character.master_id is None else await session.get(Character, character.master_id)
            if master is None or master.owner_id != actor.user_id:
                raise UserError("error.no_master_of_yours")
            gm = await is_gm(session, campaign.id, actor)
            needs_gm = FatePointsOptions.model_validate(campaign.options).fp_needs_gm_ok and not gm
            if not needs_gm:
                applied = await self._grant(session, campaign, play, master, use, stat, actor)
                return FateRequest(master.name, use, stat, None, applied)
            try:  # refuse at once what the GM could not approve anyway
                play.spend_fate_point(
                    await snapshot(session, master), use, stat, turn_of(campaign), campaign_options(campaign)
                )
            except RuleError as error:
                raise rule_refused(error) from error
            pending = PendingAction(
                campaign_id=campaign.id, kind=FATE_SPEND, actor_character_id=master.id, channel_id=channel_id,
                payload={"use": use, "stat": stat}, created_at=self.clock(),
            )  # fmt: skip
            session.add(pending)
            await session.flush()
            record_event(
                session, campaign.id, "fate.requested", actor_id=actor.user_id,
                payload={"name": master.name, "use": use, "stat": stat, "pending": pending.id},
                created_at=self.clock(),
            )  # fmt: skip
            return FateRequest(master.name, use, stat, pending.id, None)

    async def decide(self, guild_id: int, pending_id: int, actor: Actor, *, approve: bool) -> FateDecision:
        async with self.database.write() as session:
            campaign, pending = await pending_in_guild(session, guild_id, pending_id, FATE_SPEND, lock=True)
            await require_gm(session, campaign.id, actor)
            if pending.status != PENDING:
                raise UserError("error.already_decided")
            master = await session.get(Character, pending.actor_character_id)
            if master is None:
                raise UserError("error.unknown_pending")
            use, stat = pending.payload["use"], pending.payload.get("stat")
            if not await resolve_pending(
                session, pending.id, RESOLVED if approve else CANCELLED, {"by": actor.user_id, "approved": approve}
            ):
                raise UserError("error.already_decided")
            if approve:
                await self._grant(session, campaign, fate_play(campaign), master, use, stat, actor)
            else:
                record_event(
                    session, campaign.id, "fate.denied", actor_id=actor.user_id,
                    payload={"name": master.name, "use": use, "stat": stat}, created_at=self.clock(),
                )  # fmt: skip
            return FateDecision(master.name, master.owner_id, use, stat, approve)

    async def set_presence(self, place: Place, actor: Actor, name: str, present: bool) -> str:
        async with self.database.write() as session:
            campaign, _ = await self._gm_campaign(session, place, actor)
            master = await find_character(session, campaign, name)
            if master.kind != "master":
                raise UserError("error.not_a_master", name=master.name)
            state = {**master.state, "servant_present": present}
            return self._restate(session, campaign, master, state, "fate.presence", actor, present=present)

    async def odds(
        self, place: Place, attacker: str, defender: str, action: str, attacks: int, rank: str | None
    ) -> tuple[CharacterSnapshot, CharacterSnapshot, dict[str, Fraction]]:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            play = fate_play(campaign)
            attacking = await snapshot(session, await find_character(session, campaign, attacker))
            defending = await snapshot(session, await find_character(session, campaign, defender))
            try:
                chances = play.odds(
                    attacking, defending, action, attacks, rank, campaign.round_number, campaign_options(campaign)
                )
            except RuleError as error:
                raise rule_refused(error) from error
            return attacking, defending, chances
