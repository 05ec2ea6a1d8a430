"""The campaign's clock: fights (turn order, turns, rounds), sessions, campaign turns and time passing.

Each moment runs the ruleset's hook through the exchange engine, so what a hook changes is applied,
logged and able to wait like any other step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import Campaign, Character
from bot.errors import UserError
from bot.rulesets.base import CURRENT, EVERYONE, FIGHTERS, CharacterSnapshot, Play, Scene
from bot.services.characters import find_character, play_of, snapshot
from bot.services.common import Actor, Clock, Place, active_campaign, require_gm
from bot.services.exchanges import Applied, Cast, EngineError, ExchangeEngine, Progress, turn_of
from rules.dice import DiceSource
from rules.exchange import Opening, Step, Text


@dataclass(frozen=True)
class CombatReport:
    ruleset: str
    round_number: int
    in_combat: bool
    order: list[CharacterSnapshot]
    current: CharacterSnapshot | None
    actions: dict[int, tuple[Text, ...] | None]
    progress: list[Progress] = field(default_factory=list)

    @property
    def applied(self) -> list[Applied]:
        return [applied for progress in self.progress for applied in progress.steps]


@dataclass(frozen=True)
class Moment:
    """A session, campaign turn or stretch of time that passed, with what the ruleset did then."""

    ruleset: str
    session_number: int
    turn_number: int
    progress: Progress


class CombatService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock
        self.engine = ExchangeEngine(clock)

    async def _order(self, session: AsyncSession, campaign: Campaign) -> list[Character]:
        ids: list[int] = list(campaign.combat.get("order", []))
        characters = {c.id: c for c in await session.scalars(select(Character).where(Character.id.in_(ids)))}
        return [characters[character_id] for character_id in ids if character_id in characters]

    async def _everyone(self, session: AsyncSession, campaign: Campaign) -> list[Character]:
        return list(
            await session.scalars(select(Character).where(Character.campaign_id == campaign.id).order_by(Character.id))
        )

    async def _report(self, session: AsyncSession, campaign: Campaign, progress: list[Progress]) -> CombatReport:
        play = play_of(campaign)
        order = [await snapshot(session, character) for character in await self._order(session, campaign)]
        turn = min(campaign.combat.get("turn", 0), len(order) - 1) if order else 0
        current = order[turn] if order else None
        actions = {c.id: play.actions_left(c, turn_of(campaign)) for c in order}
        return CombatReport(campaign.ruleset, campaign.round_number, bool(order), order, current, actions, progress)

    async def _hook(
        self, session: AsyncSession, campaign: Campaign, kind: str, roles: dict[str, list[Character]],
        hook: Callable[[Scene], Step | None], dice: DiceSource, actor_id: int | None, channel_id: int,
        payload: dict[str, str | int],
    ) -> Progress:  # fmt: skip
        return await self.engine.run(
            session, campaign, kind=kind, title=Text(f"exchange.{kind}", dict(payload)), cast=Cast(roles),
            step_of=lambda scene: hook(scene) or Step(), dice=dice, actor_id=actor_id, channel_id=channel_id,
            payload=payload,
        )  # fmt: skip

    async def _start_turn(
        self, session: AsyncSession, campaign: Campaign, play: Play, actor: Actor, dice: DiceSource, channel_id: int
    ) -> list[Progress]:
        """Skip fighters out of play (past the last one, a new round begins), then run the turn hook."""
        order = await self._order(session, campaign)
        done: list[Progress] = []
        for _ in order:
            current = order[campaign.combat["turn"]]
            if play.out_of_play(await snapshot(session, current)) is None:
                break
            following = campaign.combat["turn"] + 1
            if following >= len(order):
                following = 0
                done.append(await self._advance_round(session, campaign, play, actor, dice, channel_id))
            campaign.combat = {**campaign.combat, "turn": following}
        else:
            return done
        done.append(await self._hook(
            session, campaign, "combat.turn", {CURRENT: [current]}, play.turn_started, dice, None, channel_id,
            {"name": current.name},
        ))  # fmt: skip
        return done

    async def _end_turn(
        self, session: AsyncSession, campaign: Campaign, play: Play, dice: DiceSource, channel_id: int
    ) -> Progress | None:
        order = await self._order(session, campaign)
        if not order:
            return None
        current = order[min(campaign.combat.get("turn", 0), len(order) - 1)]
        return await self._hook(
            session, campaign, "combat.turn_end", {CURRENT: [current]}, play.turn_ended, dice, None, channel_id,
            {"name": current.name},
        )  # fmt: skip

    async def _advance_round(
        self, session: AsyncSession, campaign: Campaign, play: Play, actor: Actor, dice: DiceSource, channel_id: int
    ) -> Progress:
        campaign.round_number += 1
        return await self._hook(
            session, campaign, "round.started", {EVERYONE: await self._everyone(session, campaign)},
            play.round_started, dice, actor.user_id, channel_id, {"round": campaign.round_number},
        )  # fmt: skip

    async def start(self, place: Place, actor: Actor, names: list[str], dice: DiceSource) -> CombatReport:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(campaign)
            fighters = [await find_character(session, campaign, name) for name in names]
            if not fighters or len({fighter.id for fighter in fighters}) != len(fighters):
                raise UserError("error.bad_turn_order")
            campaign.combat = {"order": [fighter.id for fighter in fighters], "turn": 0}
            opening: Opening | None = None

            def started(scene: Scene) -> Step:
                nonlocal opening
                opening = play.combat_started(scene)
                return opening.step if opening is not None else Step()

            progress = [await self.engine.run(
                session, campaign, kind="combat.started", title=Text("exchange.combat.started"),
                cast=Cast({FIGHTERS: fighters}), step_of=started, dice=dice, actor_id=actor.user_id,
                channel_id=place.channel_id, payload={"order": ", ".join(fighter.name for fighter in fighters)},
            )]  # fmt: skip
            if opening is not None and opening.order is not None:
                if sorted(opening.order) != sorted(campaign.combat["order"]):
                    raise EngineError("a ruleset's turn order must hold every fighter once")
                campaign.combat = {**campaign.combat, "order": list(opening.order)}
            progress.append(await self._advance_round(session, campaign, play, actor, dice, place.channel_id))
            progress += await self._start_turn(session, campaign, play, actor, dice, place.channel_id)
            return await self._report(session, campaign, progress)

    async def next_turn(
        self, place: Place, actor: Actor, dice: DiceSource, *, whole_round: bool = False
    ) -> CombatReport:
        """The next fighter's turn (a new round after the last one); or, with `whole_round`, the next round."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(campaign)
            order = campaign.combat.get("order", [])
            if not order and not whole_round:
                raise UserError("error.no_combat")
            progress: list[Progress] = []
            if order and (ended := await self._end_turn(session, campaign, play, dice, place.channel_id)):
                progress.append(ended)
            turn = 0 if whole_round or not order else campaign.combat["turn"] + 1
            if whole_round or turn >= len(order):
                turn = 0
                progress.append(await self._advance_round(session, campaign, play, actor, dice, place.channel_id))
            if not order:  # outside a fight, a round is only the campaign's clock
                return await self._report(session, campaign, progress)
            campaign.combat = {**campaign.combat, "turn": turn}
            progress += await self._start_turn(session, campaign, play, actor, dice, place.channel_id)
            return await self._report(session, campaign, progress)

    async def status(self, place: Place) -> CombatReport:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            return await self._report(session, campaign, [])

    async def end(self, place: Place, actor: Actor, dice: DiceSource) -> tuple[int, Progress]:
        """Ends the fight: the round it ended in, and what the ruleset did then."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(campaign)
            if not campaign.combat.get("order"):
                raise UserError("error.no_combat")
            campaign.combat = {}
            progress = await self._hook(
                session, campaign, "combat.ended", {EVERYONE: await self._everyone(session, campaign)},
                play.combat_ended, dice, actor.user_id, place.channel_id, {"round": campaign.round_number},
            )  # fmt: skip
            return campaign.round_number, progress

    async def new_session(self, place: Place, actor: Actor, dice: DiceSource) -> Moment:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(campaign)
            campaign.session_number += 1
            progress = await self._hook(
                session, campaign, "campaign.session", {EVERYONE: await self._everyone(session, campaign)},
                play.session_started, dice, actor.user_id, place.channel_id, {"session": campaign.session_number},
            )  # fmt: skip
            return Moment(campaign.ruleset, campaign.session_number, campaign.turn_number, progress)

    async def end_campaign_turn(self, place: Place, actor: Actor, dice: DiceSource) -> Moment:
        """The ruleset's end-of-turn processing runs on the turn that ends; then the turn number moves on."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(campaign)
            progress = await self._hook(
                session, campaign, "campaign.turn", {EVERYONE: await self._everyone(session, campaign)},
                play.campaign_turn_ended, dice, actor.user_id, place.channel_id, {"turn": campaign.turn_number},
            )  # fmt: skip
            campaign.turn_number += 1
            return Moment(campaign.ruleset, campaign.session_number, campaign.turn_number, progress)

    async def pass_time(self, place: Place, actor: Actor, hours: int, days: int, dice: DiceSource) -> Moment:
        if hours < 0 or days < 0 or hours + days == 0:
            raise UserError("error.no_time")
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(campaign)
            progress = await self._hook(
                session, campaign, "campaign.time", {EVERYONE: await self._everyone(session, campaign)},
                lambda scene: play.time_passed(scene, hours, days), dice, actor.user_id, place.channel_id,
                {"hours": hours, "days": days},
            )  # fmt: skip
            return Moment(campaign.ruleset, campaign.session_number, campaign.turn_number, progress)
