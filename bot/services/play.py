"""The shared commands of play: checks, attacks and GM awards, for whichever ruleset the campaign has."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.atomic import PoolLimitError, apply_pool_delta
from bot.db.engine import Database
from bot.db.models import Campaign, Character, ResourcePool, table_of
from bot.errors import UserError, rule_refused
from bot.parameters import command_input
from bot.services.campaigns import campaign_options
from bot.services.characters import active_character, campaign_characters, find_character
from bot.services.common import Actor, Call, Clock, Place, active_campaign, is_gm, record_event, require_gm
from bot.services.exchanges import Cast, ExchangeEngine, Fallen, Progress, turn_of
from bot.services.held import refuse_fallen, refuse_unreachable
from bot.services.requests import asked_of_gms
from bot.services.snapshots import Seen, play_of, snapshot
from rules.exchange import RuleError, Step, Text
from rules.options import CampaignOptions
from rules.play import (
    ACTOR,
    ATTACK,
    ATTACKER,
    CHECK,
    DEFENDER,
    EVERYONE,
    OPPONENT,
    AttackInput,
    CharacterSnapshot,
    CheckInput,
    Odds,
    Play,
    Scene,
    chosen,
)
from rules.words import joined


@dataclass(frozen=True)
class Award:
    ruleset: str
    character: str
    resource: str
    amount: int
    # What the pool really moved by: less than `amount` where it stops at its maximum or minimum.
    applied: int
    current: int
    maximum: int | None
    fallen: tuple[Fallen, ...]
    ruled: Progress  # what the rules made of the new value (`Play.pool_changed`), told to the table
    language: str | None  # the campaign's, for the announcement
    private: bool = False  # the GMs' to know: a character they run, or any where sheets are private


async def refuse_out_of_turn(
    session: AsyncSession, campaign: Campaign, play: Play, options: CampaignOptions, character: Character, actor: Actor
) -> None:
    """In a fight whose ruleset keeps turns, a fighter acts on its own turn (a GM acts for anyone, unless the
    ruleset holds the GMs' characters to the turns too; a character outside the turn order, such as a Master at the
    back, is not held to it; the ruleset may let one act out of turn)."""
    order = campaign.combat.get("order") or []
    if character.id not in order:
        return
    current_id = order[min(campaign.combat.get("turn", 0), len(order) - 1)]
    if character.id == current_id or not play.acts_on_own_turn(options):
        return
    if not play.gms_keep_turns and await is_gm(session, campaign.id, actor):
        return
    if play.may_act_out_of_turn(await snapshot(session, character), turn_of(campaign)):
        return
    current = await session.get(Character, current_id)
    raise UserError("error.not_your_turn", name=character.name, current=current.name if current else "—")


_POOL = table_of(ResourcePool).c
_POOL_NAMED = select(_POOL.id, _POOL.current, _POOL.maximum).where(
    _POOL.character_id == bindparam("character_id"), _POOL.name == bindparam("pool_name")
)


def _named(targets: object) -> tuple[str, ...]:
    """The targets as the command names them, looked up before the rest of its input is read: the attacker's
    actions, which that input is read against, come from the same read of the cast as the targets' sheets."""
    if not isinstance(targets, tuple) or not all(isinstance(name, str) for name in targets):
        raise TypeError(f"targets should be names, not {targets!r}")
    return targets


class PlayService:
    def __init__(self, database: Database, clock: Clock, engine: ExchangeEngine) -> None:
        self.database = database
        self.clock = clock
        self.engine = engine
        self.rulesets = engine.rulesets

    async def check(self, call: Call, options: Mapping[str, object], details: str | None) -> Progress:
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True, member=call.actor)
            play = play_of(self.rulesets, campaign)
            params = command_input(play.check_input, CheckInput, options, details, play.spelled)
            if params.against is not None and not play.opposed_checks:
                raise UserError("error.no_opposed_checks")
            character = await active_character(session, campaign, call.actor)
            seen = Seen()  # the character as the check's scene will show it
            if play.check_stats:
                # Stats are named as the rules write them, whatever case the player types; offered in the
                # reader's words, those of the active character.
                (shown,) = await seen.snapshots(session, [character])
                offered = play.check_stats_of(shown) or play.check_stats
                stats = joined([play.stat_word(name) for name in offered], "list.comma")
                if not params.stat:
                    raise UserError("error.stat_needed", stats=stats).within(campaign.ruleset)
                stat = {name.casefold(): name for name in play.check_stats}.get(params.stat.casefold())
                if stat is None:
                    raise UserError("error.unknown_stat", stat=params.stat or "—", stats=stats).within(campaign.ruleset)
                params = params.model_copy(update={"stat": stat})
            roles = {ACTOR: [character]}
            if params.against is not None:
                opponent = await find_character(session, campaign, params.against)
                if opponent.id == character.id:
                    raise UserError("error.against_self")
                roles[OPPONENT] = [opponent]

            by_gm = await is_gm(session, campaign.id, call.actor)

            def check_step(scene: Scene) -> Step:
                refuse_fallen(play, campaign.ruleset, [fighter for role in roles for fighter in scene.roles[role]])
                asked = None if by_gm else asked_of_gms(play, scene, CHECK, params, call.actor.user_id)
                return asked or play.check(scene, params)

            return await self.engine.run(
                session,
                campaign,
                kind=CHECK,
                title=Text("exchange.check", {"name": character.name}),
                cast=Cast(roles),
                step_of=check_step,
                dice=call.dice,
                actor_id=call.actor.user_id,
                channel_id=call.channel_id,
                seen=seen,
            )

    async def odds(
        self, place: Place, actor: Actor, attacker_name: str, defender_name: str, action: str, details: str | None
    ) -> tuple[str, CharacterSnapshot, CharacterSnapshot, Odds]:
        """The exact chances of an attack between two characters as they stand, computed, not rolled. The odds
        of a character the GMs run, or of a rival's where sheets are private, would tell its sheet, so only the GMs
        see them."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            play = play_of(self.rulesets, campaign)
            if not play.has_odds:
                raise rule_refused(RuleError("no_odds"), campaign.ruleset)
            attacker = await snapshot(session, await find_character(session, campaign, attacker_name))
            defender = await snapshot(session, await find_character(session, campaign, defender_name))
            if attacker.id == defender.id:
                raise UserError("error.attack_self")
            # Odds tell the sheets they are computed from: a GM's characters', and a rival's where sheets are private.
            hidden = [
                c
                for c in (attacker, defender)
                if play.sheet_hidden(c.gm_run, c.state) and (c.gm_run or c.owner_id != actor.user_id)
            ]
            if hidden and not await is_gm(session, campaign.id, actor):
                raise UserError("error.odds_gms_only")
            picked = chosen(play.attack_actions(attacker), action)
            given = {"targets": (defender.name,), "action": picked}
            params = command_input(play.attack_input, AttackInput, given, details, play.spelled)
            try:
                found = play.odds(
                    attacker, defender, params, campaign_options(self.rulesets, campaign), turn_of(campaign)
                )
            except RuleError as error:
                raise rule_refused(error, campaign.ruleset) from error
            return campaign.ruleset, attacker, defender, found

    async def attack(self, call: Call, options: Mapping[str, object], details: str | None) -> Progress:
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True, member=call.actor)
            play = play_of(self.rulesets, campaign)
            attacker = await active_character(session, campaign, call.actor)
            await refuse_out_of_turn(
                session, campaign, play, campaign_options(self.rulesets, campaign), attacker, call.actor
            )
            defenders: list[Character] = []
            for name in _named(options["targets"]):
                defender = await find_character(session, campaign, name)
                if defender.id == attacker.id:
                    raise UserError("error.attack_self")
                if defender.id in {other.id for other in defenders}:
                    raise UserError("error.target_twice", name=defender.name)
                defenders.append(defender)
            seen = Seen()  # the cast as the exchange's scene will show it, read in one statement
            attacker_shown, *_ = await seen.snapshots(session, [attacker, *defenders])
            action = chosen(play.attack_actions(attacker_shown), str(options["action"]))
            params = command_input(play.attack_input, AttackInput, {**options, "action": action}, details, play.spelled)

            by_gm = await is_gm(session, campaign.id, call.actor)

            def attack_step(scene: Scene) -> Step:
                refuse_fallen(play, campaign.ruleset, scene.roles[ATTACKER])
                refuse_unreachable(play, campaign.ruleset, scene.roles[DEFENDER])
                asked = None if by_gm else asked_of_gms(play, scene, ATTACK, params, call.actor.user_id)
                return asked or play.attack(scene, params)

            title = Text(
                "exchange.attack", {"attacker": attacker.name, "defenders": ", ".join(d.name for d in defenders)}
            )
            roles = {ATTACKER: [attacker], DEFENDER: defenders}
            if play.attacks_see_everyone:
                roles[EVERYONE] = await campaign_characters(session, campaign)
            return await self.engine.run(
                session,
                campaign,
                kind=ATTACK,
                title=title,
                cast=Cast(roles),
                step_of=attack_step,
                dice=call.dice,
                actor_id=call.actor.user_id,
                channel_id=call.channel_id,
                seen=seen,
            )

    async def award(self, call: Call, *, name: str, resource: str, amount: int, reason: str | None) -> Award:
        """A GM's change of a pool, then what the rules make of its new value (`Play.pool_changed`): a fall, or what
        holds one off, applied and logged as a step like any other."""
        actor = call.actor
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True, member=actor)
            await require_gm(session, campaign.id, actor)
            play = play_of(self.rulesets, campaign)
            character = await find_character(session, campaign, name)
            pool = (await session.execute(_POOL_NAMED, {"character_id": character.id, "pool_name": resource})).first()
            if pool is None or resource not in play.pool_names:
                # A pool of this ruleset by its name; anything else as it was typed.
                named: Text | str = Text(f"pool.{resource}") if resource in play.pool_names else f"`{resource}`"
                raise UserError("error.unknown_resource", resource=named, name=character.name).within(campaign.ruleset)
            # Points are never taken below zero; HP and prana stop at their bounds.
            try:
                change = await apply_pool_delta(session, pool.id, amount, clamp=pool.maximum is not None)
            except PoolLimitError as error:
                raise UserError(
                    "error.pool_limit", resource=Text(f"pool.{resource}"), name=character.name, amount=amount
                ).within(campaign.ruleset) from error
            applied = change.current - pool.current
            if applied == 0:  # already at the bound it was pushed against (HP 0/12 given -100)
                total = f"{change.current}/{change.maximum}" if change.maximum is not None else str(change.current)
                raise UserError(
                    "error.award_at_limit", resource=Text(f"pool.{resource}"), name=character.name, total=total
                ).within(campaign.ruleset)
            # What a GM gives a character the GMs run, or a player's where sheets are private, tells its pools.
            private = play.sheet_hidden(character.gm_run, character.state)
            record_event(
                session,
                campaign.id,
                "gm.award",
                actor_id=actor.user_id,
                payload={
                    "name": character.name,
                    "resource": resource,
                    "amount": amount,
                    "applied": applied,
                    "reason": reason,
                    "current": change.current,
                },
                created_at=self.clock(),
                secret=private,
            )
            seen = Seen()  # the character after the change, as the rules' ruling on it will see it
            (after,) = await seen.snapshots(session, [character])
            # The same character with this pool as it was.
            was = replace(after.pools[resource], current=change.current - applied)
            before = replace(after, pools={**after.pools, resource: was})
            ruled = await self.engine.run(
                session,
                campaign,
                kind="gm.ruled",
                title=Text("exchange.gm.ruled", {"name": character.name}),
                cast=Cast({ACTOR: [character]}),
                step_of=lambda scene: play.pool_changed(scene, resource) or Step(),
                dice=call.dice,
                actor_id=actor.user_id,
                channel_id=call.channel_id,
                seen=seen,
            )
            fate = play.out_of_play(await snapshot(session, character))
            fallen = (Fallen(character.name, character.owner_id, fate),) if fate else ()
            if fate is not None and fate != play.out_of_play(before):  # fallen by this change, not already before it
                record_event(
                    session,
                    campaign.id,
                    f"character.{fate}",
                    actor_id=None,
                    payload={"name": character.name},
                    created_at=self.clock(),
                )
            return Award(
                campaign.ruleset,
                character.name,
                resource,
                amount,
                applied,
                change.current,
                change.maximum,
                fallen,
                ruled,
                campaign.language,
                private,
            )
