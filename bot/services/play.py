"""Checks, attacks answered later by the defender, rounds and GM awards: the rules applied to stored state."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.atomic import PoolLimitError, apply_pool_delta, lock_campaign, resolve_pending
from bot.db.engine import Database
from bot.db.models import CANCELLED, PENDING, RESOLVED, Campaign, Character, PendingAction, ResourcePool
from bot.errors import UserError
from bot.rulesets.play import CharacterSnapshot, Play, Turn
from bot.services.campaigns import campaign_options
from bot.services.characters import active_character, find_character, play_of, snapshot
from bot.services.common import Actor, Clock, Place, active_campaign, is_gm, record_event, require_gm
from rules.dice import DiceSource
from rules.exchange import PoolDelta, Resolution, RuleError, StateUpdate

ATTACK = "attack"


@dataclass(frozen=True)
class Fallen:
    """A character the last change put out of play ("dead", "down"...)."""

    name: str
    owner_id: int
    fate: str


@dataclass(frozen=True)
class Applied:
    resolution: Resolution
    fallen: tuple[Fallen, ...]
    pools: dict[str, dict[str, tuple[int, int | None]]]


@dataclass(frozen=True)
class CheckDone:
    character: CharacterSnapshot
    resolution: Resolution


@dataclass(frozen=True)
class AttackDeclared:
    attacker: CharacterSnapshot
    defender: CharacterSnapshot
    applied: Applied
    pending_id: int | None
    options: tuple[str, ...]
    round_number: int


@dataclass(frozen=True)
class AttackAnswered:
    attacker: CharacterSnapshot
    defender: CharacterSnapshot
    applied: Applied
    choice: str
    forced_by_gm: bool
    channel_id: int
    message_id: int | None


@dataclass(frozen=True)
class OpenAttack:
    pending_id: int
    attacker: str
    defender: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class Award:
    character: str
    resource: str
    amount: int
    current: int
    maximum: int | None
    fallen: tuple[Fallen, ...]


async def apply_resolution(
    session: AsyncSession, play: Play, campaign: Campaign, roles: dict[str, Character], resolution: Resolution,
    now: datetime,
) -> Applied:  # fmt: skip
    """Apply a resolution's effects: pool deltas as atomic updates, states replaced; report who fell."""
    pools: dict[str, dict[str, tuple[int, int | None]]] = {}
    for effect in resolution.effects:
        character = roles[effect.who]
        if isinstance(effect, PoolDelta):
            pool_id = await session.scalar(
                select(ResourcePool.id).where(
                    ResourcePool.character_id == character.id, ResourcePool.name == effect.pool
                )
            )
            if pool_id is None:
                continue
            # The rules checked every spend under the campaign lock; clamping only stops damage below zero.
            change = await apply_pool_delta(session, pool_id, effect.delta, clamp=True)
            pools.setdefault(character.name, {})[effect.pool] = (change.current, change.maximum)
        elif isinstance(effect, StateUpdate):
            character.state = dict(effect.state)
    fallen = []
    for character in {id(c): c for c in roles.values()}.values():
        if character.name in pools:
            fate = play.out_of_play(await snapshot(session, character))
            if fate is not None:
                fallen.append(Fallen(character.name, character.owner_id, fate))
                record_event(
                    session, campaign.id, f"character.{fate}", actor_id=None, payload={"name": character.name},
                    created_at=now,
                )  # fmt: skip
    return Applied(resolution, tuple(fallen), pools)


async def pending_in_guild(
    session: AsyncSession, guild_id: int, pending_id: int, kind: str, *, lock: bool
) -> tuple[Campaign, PendingAction]:
    """A pending action of this guild's active campaigns (its campaign locked when it will change)."""
    pending = await session.get(PendingAction, pending_id)
    if pending is None or pending.kind != kind:
        raise UserError("error.unknown_pending")
    campaign = (
        await lock_campaign(session, pending.campaign_id) if lock else await session.get(Campaign, pending.campaign_id)
    )
    if campaign is None or campaign.guild_id != guild_id or not campaign.is_active:
        raise UserError("error.unknown_pending")
    if lock:
        await session.refresh(pending)
    return campaign, pending


def turn_of(campaign: Campaign) -> Turn:
    return Turn(campaign.round_number, bool(campaign.combat.get("order")))


def rule_refused(error: RuleError) -> UserError:
    # An action's name is a word to translate, so each action has its own message.
    if error.code == "action_used":
        return UserError(f"rule.action_used.{error.params['action']}")
    return UserError(f"rule.{error.code}", **error.params)


class PlayService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock

    async def check(
        self, place: Place, actor: Actor, *, stat: str, modifier: int, target: int | None, dice: DiceSource
    ) -> CheckDone:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            play = play_of(campaign)
            character = await active_character(session, campaign, actor)
            current = await snapshot(session, character)
            if stat not in play.check_stats:
                raise UserError("error.unknown_stat", stat=stat, stats=", ".join(play.check_stats))
            try:
                resolution = play.check(current, stat, modifier, target, dice, campaign_options(campaign))
            except RuleError as error:
                raise rule_refused(error) from error
            await apply_resolution(session, play, campaign, {"actor": character}, resolution, self.clock())
            record_event(
                session, campaign.id, "check", actor_id=actor.user_id,
                payload={"name": character.name, "stat": stat, "modifier": modifier, "target": target,
                         "rolls": [roll.to_dict() for roll in resolution.rolls], "outcome": resolution.outcome},
                created_at=self.clock(),
            )  # fmt: skip
            return CheckDone(current, resolution)

    async def declare_attack(
        self, place: Place, actor: Actor, *, target: str, action: str, attacks: int, rank: str | None,
        confirm: bool, dice: DiceSource, channel_id: int,
    ) -> AttackDeclared:  # fmt: skip
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            play = play_of(campaign)
            attacker = await active_character(session, campaign, actor)
            defender = await find_character(session, campaign, target)
            if defender.id == attacker.id:
                raise UserError("error.attack_self")
            attacker_now, defender_now = await snapshot(session, attacker), await snapshot(session, defender)
            for fighter in (attacker_now, defender_now):
                if (fate := play.out_of_play(fighter)) is not None:
                    raise UserError(f"error.out_of_play.{fate}", name=fighter.name)
            try:
                declaration = play.declare_attack(
                    attacker_now, defender_now, action, attacks, rank, confirm, turn_of(campaign), dice,
                    campaign_options(campaign),
                )  # fmt: skip
            except RuleError as error:
                raise rule_refused(error) from error
            applied = await apply_resolution(
                session, play, campaign, {"attacker": attacker, "defender": defender}, declaration.resolution,
                self.clock(),
            )  # fmt: skip
            awaiting = declaration.awaiting
            pending_id = None
            if awaiting is not None:
                pending = PendingAction(
                    campaign_id=campaign.id,
                    kind=ATTACK,
                    awaiting_user_id=defender.owner_id,
                    actor_character_id=attacker.id,
                    target_character_id=defender.id,
                    channel_id=channel_id,
                    payload={"state": awaiting.state, "options": list(awaiting.options)},
                    created_at=self.clock(),
                )
                session.add(pending)
                await session.flush()
                pending_id = pending.id
            record_event(
                session, campaign.id, "attack.declared", actor_id=actor.user_id,
                payload={"attacker": attacker.name, "defender": defender.name, "action": action, "pending": pending_id,
                         "rolls": [roll.to_dict() for roll in declaration.resolution.rolls],
                         "outcome": declaration.resolution.outcome},
                created_at=self.clock(),
            )  # fmt: skip
            return AttackDeclared(
                await snapshot(session, attacker), await snapshot(session, defender), applied, pending_id,
                awaiting.options if awaiting else (), campaign.round_number,
            )  # fmt: skip

    async def attach_message(self, pending_id: int, message_id: int) -> None:
        async with self.database.write() as session:
            pending = await session.get(PendingAction, pending_id)
            if pending is not None:
                pending.message_id = message_id

    async def _pending(self, session: AsyncSession, guild_id: int, pending_id: int) -> tuple[Campaign, PendingAction]:
        """The pending attack of a button, its campaign locked; refused once it is over or foreign."""
        campaign, pending = await pending_in_guild(session, guild_id, pending_id, ATTACK, lock=True)
        if pending.status != PENDING:
            raise UserError("error.already_resolved")
        return campaign, pending

    async def options_of(self, guild_id: int, pending_id: int, actor: Actor) -> list[str]:
        """The options of a pending exchange, for whoever may answer it."""
        async with self.database.read() as session:
            campaign, pending = await pending_in_guild(session, guild_id, pending_id, ATTACK, lock=False)
            if pending.status != PENDING:
                raise UserError("error.already_resolved")
            if actor.user_id != pending.awaiting_user_id and not await is_gm(session, campaign.id, actor):
                raise UserError("error.not_your_defence")
            return list(pending.payload["options"])

    async def answer(
        self, guild_id: int, pending_id: int, actor: Actor, choice: str, dice: DiceSource
    ) -> AttackAnswered:
        async with self.database.write() as session:
            campaign, pending = await self._pending(session, guild_id, pending_id)
            gm = await is_gm(session, campaign.id, actor)
            if actor.user_id != pending.awaiting_user_id and not gm:
                raise UserError("error.not_your_defence")
            if choice not in pending.payload["options"]:
                raise UserError("error.unknown_choice", choice=choice)
            play = play_of(campaign)
            attacker = await session.get(Character, pending.actor_character_id)
            defender = await session.get(Character, pending.target_character_id)
            if attacker is None or defender is None:
                raise UserError("error.unknown_pending")
            try:
                resolution = play.answer(
                    await snapshot(session, attacker), await snapshot(session, defender), pending.payload["state"],
                    choice, campaign.round_number, dice, campaign_options(campaign),
                )  # fmt: skip
            except RuleError as error:
                raise rule_refused(error) from error
            forced = actor.user_id != pending.awaiting_user_id
            if not await resolve_pending(session, pending.id, RESOLVED, {"choice": choice, "by": actor.user_id}):
                raise UserError("error.already_resolved")
            applied = await apply_resolution(
                session, play, campaign, {"attacker": attacker, "defender": defender}, resolution, self.clock()
            )
            record_event(
                session, campaign.id, "attack.resolved", actor_id=actor.user_id,
                payload={"attacker": attacker.name, "defender": defender.name, "choice": choice, "forced": forced,
                         "pending": pending.id, "rolls": [roll.to_dict() for roll in resolution.rolls],
                         "outcome": resolution.outcome},
                created_at=self.clock(),
            )  # fmt: skip
            return AttackAnswered(
                await snapshot(session, attacker), await snapshot(session, defender), applied, choice, forced,
                pending.channel_id, pending.message_id,
            )  # fmt: skip

    async def open_attacks(self, place: Place, actor: Actor, limit: int) -> list[OpenAttack]:
        """The attacks still waiting for an answer, oldest first, so a GM can force or cancel any of them."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            await require_gm(session, campaign.id, actor)
            pendings = await session.scalars(
                select(PendingAction)
                .where(PendingAction.campaign_id == campaign.id, PendingAction.kind == ATTACK,
                       PendingAction.status == PENDING)
                .order_by(PendingAction.id)
                .limit(limit)
            )  # fmt: skip
            found = []
            for pending in pendings:
                attacker = await session.get(Character, pending.actor_character_id)
                defender = await session.get(Character, pending.target_character_id)
                found.append(OpenAttack(
                    pending.id, attacker.name if attacker else "?", defender.name if defender else "?",
                    tuple(pending.payload["options"]),
                ))  # fmt: skip
            return found

    async def cancel(self, guild_id: int, pending_id: int, actor: Actor) -> PendingAction:
        async with self.database.write() as session:
            campaign, pending = await self._pending(session, guild_id, pending_id)
            await require_gm(session, campaign.id, actor)
            if not await resolve_pending(session, pending.id, CANCELLED, {"by": actor.user_id}):
                raise UserError("error.already_resolved")
            record_event(
                session, campaign.id, "attack.cancelled", actor_id=actor.user_id, payload={"pending": pending.id},
                created_at=self.clock(),
            )  # fmt: skip
            return pending

    async def award(
        self, place: Place, actor: Actor, *, name: str, resource: str, amount: int, reason: str | None
    ) -> Award:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(campaign)
            character = await find_character(session, campaign, name)
            pool = await session.scalar(
                select(ResourcePool).where(ResourcePool.character_id == character.id, ResourcePool.name == resource)
            )
            if pool is None or resource not in play.pool_names:
                raise UserError("error.unknown_resource", resource=resource, name=character.name)
            # Points are never taken below zero; HP and prana stop at their bounds.
            try:
                change = await apply_pool_delta(session, pool.id, amount, clamp=pool.maximum is not None)
            except PoolLimitError as error:
                raise UserError("error.pool_limit", resource=resource, name=character.name, amount=amount) from error
            record_event(
                session, campaign.id, "gm.award", actor_id=actor.user_id,
                payload={"name": character.name, "resource": resource, "amount": amount, "reason": reason,
                         "current": change.current},
                created_at=self.clock(),
            )  # fmt: skip
            fate = play.out_of_play(await snapshot(session, character))
            fallen = (Fallen(character.name, character.owner_id, fate),) if fate else ()
            return Award(character.name, resource, amount, change.current, change.maximum, fallen)
