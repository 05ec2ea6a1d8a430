"""The campaign's clock: fights (turn order, turns, rounds), sessions, campaign turns and time passing.

Each moment runs the ruleset's hook through the exchange engine, so what a hook changes is applied,
logged and able to wait like any other step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import Campaign, Character, Side
from bot.errors import UserError
from bot.services.characters import campaign_characters, find_character
from bot.services.common import Actor, Call, Clock, Place, active_campaign, is_gm, require_gm
from bot.services.exchanges import Applied, Cast, EngineError, ExchangeEngine, Progress, shown_round, turn_of
from bot.services.held import refuse_held
from bot.services.snapshots import play_of, snapshot, snapshots
from rules.exchange import Opening, Step, Text
from rules.play import CURRENT, EVERYONE, FIGHTERS, CharacterSnapshot, Play, Scene, campaign_side


@dataclass(frozen=True)
class CombatReport:
    ruleset: str
    round_number: int
    in_combat: bool
    order: list[CharacterSnapshot]
    current: CharacterSnapshot | None
    actions: dict[int, tuple[Text, ...] | None]
    progress: list[Progress] = field(default_factory=list)
    language: str | None = None  # the campaign's language for its public messages
    for_gm: bool = False  # seen privately by a GM: the pools of the characters the GMs run are shown
    viewer: int | None = None  # who sees it privately (None: a post in the channel)
    fates: dict[int, str] = field(default_factory=dict)  # the fighters out of play, by id: dead, down...

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
    def __init__(self, database: Database, clock: Clock, engine: ExchangeEngine) -> None:
        self.database = database
        self.clock = clock
        self.engine = engine
        self.rulesets = engine.rulesets

    async def _order(self, session: AsyncSession, campaign: Campaign) -> list[Character]:
        ids: list[int] = list(campaign.combat.get("order", []))
        characters = {c.id: c for c in await session.scalars(select(Character).where(Character.id.in_(ids)))}
        return [characters[character_id] for character_id in ids if character_id in characters]

    async def _drop_deleted_fighters(self, session: AsyncSession, campaign: Campaign) -> bool:
        """Take characters deleted during the fight out of its order, the turn staying with whoever has it;
        True when that was a deleted one (whose turn then cannot end: the next fighter's begins)."""
        ids: list[int] = list(campaign.combat.get("order", []))
        remaining = {character.id for character in await self._order(session, campaign)}
        if remaining.issuperset(ids):
            return False
        turn = campaign.combat.get("turn", 0)
        kept_before = sum(character_id in remaining for character_id in ids[:turn])
        current_gone = turn >= len(ids) or ids[turn] not in remaining
        kept = [character_id for character_id in ids if character_id in remaining]
        # With its fighter gone, the turn points just before the next one, so that moving on reaches it.
        campaign.combat = (
            {**campaign.combat, "order": kept, "turn": kept_before - 1 if current_gone else kept_before} if kept else {}
        )
        return current_gone

    async def _report(self, session: AsyncSession, campaign: Campaign, progress: list[Progress]) -> CombatReport:
        play = play_of(self.rulesets, campaign)
        order = await snapshots(session, await self._order(session, campaign))
        turn = min(campaign.combat.get("turn", 0), len(order) - 1) if order else 0
        current = order[turn] if order else None
        actions = {c.id: play.actions_left(c, turn_of(campaign)) for c in order}
        fates = {c.id: fate for c in order if (fate := play.out_of_play(c)) is not None}
        return CombatReport(
            campaign.ruleset,
            shown_round(campaign),
            bool(order),
            order,
            current,
            actions,
            progress,
            campaign.language,
            fates=fates,
        )

    async def _hook(
        self,
        session: AsyncSession,
        campaign: Campaign,
        kind: str,
        roles: dict[str, list[Character]],
        hook: Callable[[Scene], Step | None],
        call: Call,
        payload: dict[str, str | int],
        *,
        by_gm: bool = True,
        sides: dict[str, Side] | None = None,
    ) -> Progress:
        """One hook of the ruleset, run as an exchange's step; `by_gm` False when no one in particular moved the
        clock (a turn that began because the last one ended)."""
        return await self.engine.run(
            session,
            campaign,
            kind=kind,
            title=Text(f"exchange.{kind}", dict(payload)),
            cast=Cast(roles, sides or {}),
            step_of=lambda scene: hook(scene) or Step(),
            dice=call.dice,
            actor_id=call.actor.user_id if by_gm else None,
            channel_id=call.channel_id,
            payload=payload,
        )

    async def _start_turn(self, session: AsyncSession, campaign: Campaign, play: Play, call: Call) -> list[Progress]:
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
                done.append(await self._advance_round(session, campaign, play, call))
            campaign.combat = {**campaign.combat, "turn": following}
        else:
            return done
        done.append(
            await self._hook(
                session,
                campaign,
                "combat.turn",
                {CURRENT: [current]},
                play.turn_started,
                call,
                {"name": current.name},
                by_gm=False,
            )
        )
        return done

    async def _end_turn(self, session: AsyncSession, campaign: Campaign, play: Play, call: Call) -> Progress | None:
        order = await self._order(session, campaign)
        if not order:
            return None
        current = order[min(campaign.combat.get("turn", 0), len(order) - 1)]
        return await self._hook(
            session,
            campaign,
            "combat.turn_end",
            {CURRENT: [current]},
            play.turn_ended,
            call,
            {"name": current.name},
            by_gm=False,
        )

    async def _advance_round(self, session: AsyncSession, campaign: Campaign, play: Play, call: Call) -> Progress:
        campaign.round_number += 1
        everyone = {EVERYONE: await campaign_characters(session, campaign)}
        return await self._hook(
            session, campaign, "round.started", everyone, play.round_started, call, {"round": shown_round(campaign)}
        )

    async def _gm_campaign(self, session: AsyncSession, call: Call) -> tuple[Campaign, Play]:
        campaign = await active_campaign(session, call.place, lock=True)
        await require_gm(session, campaign.id, call.actor)
        return campaign, play_of(self.rulesets, campaign)

    async def start(self, call: Call, names: list[str]) -> CombatReport:
        async with self.database.write() as session:
            campaign, play = await self._gm_campaign(session, call)
            if campaign.combat.get("order"):
                raise UserError("error.combat_running")
            fighters = [await find_character(session, campaign, name) for name in names]
            if not fighters or len({fighter.id for fighter in fighters}) != len(fighters):
                raise UserError("error.bad_turn_order")
            # The fight's first round is the next one of the campaign, which the fight calls round 1.
            campaign.combat = {
                "order": [fighter.id for fighter in fighters],
                "turn": 0,
                "first_round": campaign.round_number + 1,
            }
            opening: Opening | None = None

            def started(scene: Scene) -> Step:
                nonlocal opening
                for fighter in scene.members(FIGHTERS):  # a sheet a GM has not approved does not fight yet
                    refuse_held(fighter)
                opening = play.combat_started(scene)
                return opening.step if opening is not None else Step()

            progress = [
                await self.engine.run(
                    session,
                    campaign,
                    kind="combat.started",
                    title=Text("exchange.combat.started"),
                    cast=Cast({FIGHTERS: fighters}),
                    step_of=started,
                    dice=call.dice,
                    actor_id=call.actor.user_id,
                    channel_id=call.channel_id,
                    payload={"order": ", ".join(fighter.name for fighter in fighters)},
                )
            ]
            if opening is not None and opening.order is not None:
                if sorted(opening.order) != sorted(campaign.combat["order"]):
                    raise EngineError("a ruleset's turn order must hold every fighter once")
                campaign.combat = {**campaign.combat, "order": list(opening.order)}
            progress.append(await self._advance_round(session, campaign, play, call))
            progress += await self._start_turn(session, campaign, play, call)
            return await self._report(session, campaign, progress)

    async def next_turn(self, call: Call, *, whole_round: bool = False) -> CombatReport:
        """The next fighter's turn (a new round after the last one); or, with `whole_round`, the next round."""
        async with self.database.write() as session:
            campaign, play = await self._gm_campaign(session, call)
            current_gone = await self._drop_deleted_fighters(session, campaign)
            order = campaign.combat.get("order", [])
            if not order and not whole_round:
                raise UserError("error.no_combat")
            progress: list[Progress] = []
            if order and not current_gone and (ended := await self._end_turn(session, campaign, play, call)):
                progress.append(ended)
            turn = 0 if whole_round or not order else campaign.combat["turn"] + 1
            if whole_round or turn >= len(order):
                turn = 0
                progress.append(await self._advance_round(session, campaign, play, call))
            if not order:  # outside a fight, a round is only the campaign's clock
                return await self._report(session, campaign, progress)
            campaign.combat = {**campaign.combat, "turn": turn}
            progress += await self._start_turn(session, campaign, play, call)
            return await self._report(session, campaign, progress)

    async def status(self, place: Place, actor: Actor) -> CombatReport:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            report = await self._report(session, campaign, [])
            return replace(report, for_gm=await is_gm(session, campaign.id, actor), viewer=actor.user_id)

    async def end(self, call: Call) -> tuple[int, Progress]:
        """Ends the fight: the round it ended in, and what the ruleset did then."""
        async with self.database.write() as session:
            campaign, play = await self._gm_campaign(session, call)
            if not campaign.combat.get("order"):
                raise UserError("error.no_combat")
            ended_in = shown_round(campaign)
            campaign.combat = {}
            everyone = {EVERYONE: await campaign_characters(session, campaign)}
            progress = await self._hook(
                session, campaign, "combat.ended", everyone, play.combat_ended, call, {"round": ended_in}
            )
            return ended_in, progress

    async def _moment(
        self,
        call: Call,
        kind: str,
        hook: Callable[[Play], Callable[[Scene], Step | None]],
        payload: Callable[[Campaign], dict[str, str | int]],
        *,
        sessions: int = 0,
        turns_after: int = 0,
    ) -> Moment:
        """A moment of the campaign (a session begins, a turn ends, time passes) and the ruleset's hook for it.
        `sessions` move the session number before the hook runs; `turns_after` move the turn number after it,
        so a turn's end is processed on the turn that ends."""
        async with self.database.write() as session:
            campaign, play = await self._gm_campaign(session, call)
            campaign.session_number += sessions
            everyone = {EVERYONE: await campaign_characters(session, campaign)}
            sides = await session.scalars(select(Side).where(Side.campaign_id == campaign.id).order_by(Side.id))
            progress = await self._hook(
                session,
                campaign,
                kind,
                everyone,
                hook(play),
                call,
                payload(campaign),
                sides={campaign_side(n): side for n, side in enumerate(sides)},
            )
            campaign.turn_number += turns_after
            return Moment(campaign.ruleset, campaign.session_number, campaign.turn_number, progress)

    async def new_session(self, call: Call) -> Moment:
        return await self._moment(
            call,
            "campaign.session",
            lambda play: play.session_started,
            lambda campaign: {"session": campaign.session_number},
            sessions=1,
        )

    async def end_campaign_turn(self, call: Call) -> Moment:
        return await self._moment(
            call,
            "campaign.turn",
            lambda play: play.campaign_turn_ended,
            lambda campaign: {"turn": campaign.turn_number},
            turns_after=1,
        )

    async def pass_time(self, call: Call, hours: int, days: int) -> Moment:
        if hours < 0 or days < 0 or hours + days == 0:
            raise UserError("error.no_time")
        return await self._moment(
            call,
            "campaign.time",
            lambda play: lambda scene: play.time_passed(scene, hours, days),
            lambda _: {"hours": hours, "days": days},
        )
