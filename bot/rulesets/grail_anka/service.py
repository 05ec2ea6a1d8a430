"""What only the anka game has, applied to stored state: camps, formations, talismans and bases; battles; anchors and
their eligibility; GM checks; verifying a revealed decision; command seals outside battle; a GM's vanish or death.
Each change is one transaction, and every step goes through the shared exchange engine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import (
    EXCHANGE_OPEN,
    EXPIRED,
    PENDING,
    Campaign,
    Character,
    Commitment,
    Event,
    Exchange,
    ExchangeRole,
    Side,
    WaitRow,
)
from bot.errors import UserError, rule_refused
from bot.services.campaigns import campaign_options
from bot.services.characters import campaign_characters, controls, find_character
from bot.services.common import (
    Actor,
    Call,
    Place,
    active_campaign,
    is_gm,
    latest_campaign,
    record_event,
    require_gm,
)
from bot.services.exchanges import Cast, Progress
from bot.services.held import refuse_fallen
from bot.services.ruleset_service import Roles, RulesetService, Staged
from bot.services.sides import MEMBER, refuse_unfit_name
from bot.services.snapshots import snapshots
from rules.dice import DiceSource
from rules.exchange import Answer, Effect, Outcome, PoolDelta, SidePatch, StatePatch, Step, Text
from rules.grail_anka import anchors, battle, checks, decisions, fight, turn_steps
from rules.grail_anka import turns as rules_turns
from rules.grail_anka.model import Talisman
from rules.grail_anka.options import GrailAnkaOptions
from rules.grail_anka.outcomes import CampStanding, FateSet, GameOver, Recovered, WarResumed
from rules.grail_anka.play import BATTLE_KIND, MASTER, SERVANT, GrailAnkaPlay, anka_options, fate_of, gm_check
from rules.play import ACTOR, CharacterSnapshot, Scene, SideSnapshot

RULESET_ID = "grail_anka"
GM_RUN = "gm_run"
TARGET = "target"
CONTRACT_KIND = "anka.contract"
MAX_SUBS = 2


def refused(code: str, **params: object) -> UserError:
    return UserError(f"rule.{code}", **params).within(RULESET_ID)


def refuse_game_over(side: Side | None) -> None:
    """R21: a camp whose player's protagonist died neither asks nor answers anything any more."""
    if side is not None and (refusal := turn_steps.game_over_refusal(side.name, side.state)) is not None:
        raise rule_refused(refusal, RULESET_ID)


def take_extra_action(side: Side) -> int | None:
    """R22's grace: one of the camp's extra actions before the finale, taken (refused when none is left); how many
    it has left then, or None when no grace runs."""
    left = turn_steps.extra_actions_left(side.state)
    if left is None:
        return None
    if left < 1:
        raise refused("no_extra_actions", camp=side.name)
    side.state = {**side.state, turn_steps.FINALE: {"left": left - 1}}
    return left - 1


@dataclass(frozen=True)
class Verified:
    """A decision as `/anka verify` shows it: its digest and, once revealed, what anyone can hash again."""

    key: str
    digest: str
    revealed: bool
    hashed: str | None = None
    matches: bool = False


@dataclass(frozen=True)
class Odds:
    side_a: str
    side_b: str
    rated: battle.Rated
    # Each camp's formation as the battle would show it: its main, subs and companions, by name.
    formations: tuple[tuple[str, str, str], tuple[str, str, str]]


@dataclass(frozen=True)
class MemberView:
    """A camp's member as `/anka camps` shows it: its place and risks to its own camp and the GMs only."""

    name: str
    kind: str
    place: str
    fate: str | None
    fatigue: int | None
    seals: int | None
    masterless_turns: int | None
    # The chance it vanishes if it loses a battle now (R14), and at the next turn's end without a Master (R19).
    vanish_if_lost: str | None = None
    vanish_next_turn: str | None = None


@dataclass(frozen=True)
class CampView:
    name: str
    gm_run: bool
    base: str | None
    talismans: dict[str, int]
    members: list[MemberView]
    action: str | None = None
    # Out of the war (D17, a GM's override), or of the game (R21: the protagonist whose death ended it).
    out: bool = False
    game_over: str | None = None
    extra_actions: int | None = None  # R22's grace: the extra actions it has left before the finale


class AnkaService(RulesetService[GrailAnkaPlay]):
    ruleset = RULESET_ID
    play_type = GrailAnkaPlay

    # Camps

    async def create_camp(self, call: Call, name: str, members: Sequence[str], *, gm_run: bool) -> str | None:
        """A camp (GM only); the campaign's language, for the announcement."""
        name = name.strip()
        if not members:
            raise refused("camp_empty")
        refuse_unfit_name(name)
        async with self.locked(call, gm=True) as (session, campaign, _):
            if await self.sides.named(session, campaign, name) is not None:
                raise refused("camp_exists", name=name)
            characters = [await find_character(session, campaign, member) for member in members]
            if len({character.id for character in characters}) != len(characters):
                raise UserError("error.side_member_twice")
            for character in characters:
                await self._may_join(session, campaign, character, gm_run=gm_run)
            placed = [(character, MEMBER) for character in characters]
            await self.sides.add(session, campaign, name, placed, {GM_RUN: gm_run, fight.TALISMANS: {}})
            record_event(
                session,
                campaign.id,
                "anka.camp_created",
                actor_id=call.actor.user_id,
                payload={"name": name, "members": [c.name for c in characters], "gm_run": gm_run},
                created_at=self.clock(),
            )
            return campaign.language

    async def join_camp(self, call: Call, camp: str, member: str) -> str | None:
        async with self.locked(call, gm=True) as (session, campaign, _):
            side = await self._camp(session, campaign, camp)
            character = await find_character(session, campaign, member)
            await self._may_join(session, campaign, character, gm_run=bool(side.state.get(GM_RUN)))
            self.sides.join(session, side, character)
            record_event(
                session,
                campaign.id,
                "anka.camp_joined",
                actor_id=call.actor.user_id,
                payload={"camp": side.name, "name": character.name},
                created_at=self.clock(),
            )
            return campaign.language

    async def _may_join(self, session: AsyncSession, campaign: Campaign, character: Character, *, gm_run: bool) -> None:
        """A character is in one camp at most; the GMs' characters in the camps they run, the players' in the
        others (a players' camp would otherwise see and use the hidden sheet of a GM's character)."""
        if (elsewhere := await self.sides.of(session, campaign, character)) is not None:
            raise refused("in_another_camp", name=character.name, camp=elsewhere.name)
        if character.gm_run and not gm_run:
            raise refused("gm_character_in_players_camp", name=character.name)
        if gm_run and not character.gm_run:
            raise refused("players_character_in_gm_camp", name=character.name)

    async def _camp(self, session: AsyncSession, campaign: Campaign, name: str) -> Side:
        side = await self.sides.named(session, campaign, name)
        if side is None:
            raise refused("unknown_camp", name=name)
        return side

    async def formation(
        self, call: Call, camp: str, main: str, subs: Sequence[str], companions: Sequence[str]
    ) -> tuple[str, str, list[str], list[str]]:
        """A camp's formation for its next battle (R4): a main, up to two subs, any companions; everyone else of the
        camp stays away. Its players set it, or a GM; a GM-run camp's, only a GM."""
        if len(subs) > MAX_SUBS:
            raise refused("too_many_subs", count=len(subs))
        async with self.locked(call) as (session, campaign, play):
            side = await self._camp(session, campaign, camp)
            refuse_game_over(side)
            members = await self.sides.members(session, side)
            gm = await is_gm(session, campaign.id, call.actor)
            owned = any(not c.gm_run and c.owner_id == call.actor.user_id for c, _ in members)
            if not gm and (side.state.get(GM_RUN) or not owned):
                raise refused("not_your_camp", camp=side.name)
            if await self._in_battle(session, campaign, ExchangeRole.side_id == side.id):
                raise refused("camp_in_battle", camp=side.name)  # the formation fighting stays as it is
            by_name = {character.name.lower(): character for character, _ in members}
            named = [main, *subs, *companions]
            if len({name.lower() for name in named}) != len(named):
                raise UserError("error.side_member_twice")
            for name in named:
                if name.lower() not in by_name:
                    raise refused("not_in_camp", name=name, camp=side.name)
            shown = await snapshots(session, [by_name[name.lower()] for name in named])
            refuse_fallen(play, RULESET_ID, shown)
            places = {by_name[main.lower()].id: fight.MAIN} | {by_name[name.lower()].id: fight.SUB for name in subs}
            places |= {by_name[name.lower()].id: fight.COMPANION for name in companions}
            await self.sides.place(session, side, places)
            record_event(
                session,
                campaign.id,
                "anka.formation_set",
                actor_id=call.actor.user_id,
                payload={"camp": side.name, "main": main, "subs": list(subs), "companions": list(companions)},
                created_at=self.clock(),
            )
            return (
                side.name,
                by_name[main.lower()].name,
                [by_name[n.lower()].name for n in subs],
                [by_name[n.lower()].name for n in companions],
            )

    async def set_talismans(self, call: Call, camp: str, kind: Talisman, count: int) -> tuple[str, int, int]:
        async with self.locked(call, gm=True) as (session, campaign, _):
            side = await self._camp(session, campaign, camp)
            held = dict(side.state.get(fight.TALISMANS, {}))
            before = int(held.get(kind.value, 0))
            side.state = {**side.state, fight.TALISMANS: {**held, kind.value: count}}
            record_event(
                session,
                campaign.id,
                "anka.talismans_set",
                actor_id=call.actor.user_id,
                payload={"camp": side.name, "kind": kind.value, "from": before, "to": count},
                created_at=self.clock(),
            )
            return side.name, before, count

    async def set_base(self, call: Call, camp: str, base: str | None) -> str:
        async with self.locked(call, gm=True) as (session, campaign, _):
            side = await self._camp(session, campaign, camp)
            side.state = {**side.state, fight.BASE: base}
            record_event(
                session,
                campaign.id,
                "anka.base_set",
                actor_id=call.actor.user_id,
                payload={"camp": side.name, "base": base},
                created_at=self.clock(),
            )
            return side.name

    async def camps(self, place: Place, actor: Actor) -> list[CampView]:
        """Every camp with its members; talismans and places are told to the GMs and the camp's own players."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            self.play_of(campaign)
            gm = await is_gm(session, campaign.id, actor)
            shown = []
            critical_fumble = anka_options(campaign_options(self.rulesets, campaign)).critical_fumble_all_checks
            for side in (await self.sides.of_campaign(session, campaign)).values():
                members = await self.sides.members(session, side)
                own = gm or any(not c.gm_run and c.owner_id == actor.user_id for c, _ in members)
                held = {kind.value: int(side.state.get(fight.TALISMANS, {}).get(kind.value, 0)) for kind in Talisman}
                views = []
                for character, (_, at) in zip(await snapshots(session, [c for c, _ in members]), members, strict=True):
                    views.append(self._member_view(character, at, own=own, critical_fumble=critical_fumble))
                action = side.state.get(turn_steps.ACTION)
                declared = (
                    action["kind"]
                    if own and isinstance(action, dict) and action.get("turn") == campaign.turn_number
                    else None
                )
                over = turn_steps.game_over_of(side.state)
                shown.append(
                    CampView(
                        side.name,
                        bool(side.state.get(GM_RUN)),
                        side.state.get(fight.BASE) if own else None,
                        held if own else {},
                        views,
                        declared,
                        not await self._in_war(session, side),
                        str(over["who"]) if over is not None else None,
                        turn_steps.extra_actions_left(side.state),
                    )
                )
            return shown

    async def _in_war(self, session: AsyncSession, side: Side) -> bool:
        """Whether a camp is still in the war (D17 with the GM's override; R21: not once its game is over)."""
        members = await self.sides.members(session, side)
        shown = await snapshots(session, [c for c, _ in members], with_links=False)
        placed = tuple((one, place) for one, (_, place) in zip(shown, members, strict=True))
        return turn_steps.camp_active(SideSnapshot(side.id, side.name, placed, dict(side.state)), frozenset())

    def _member_view(self, character: CharacterSnapshot, place: str, *, own: bool, critical_fumble: bool) -> MemberView:
        fate = fate_of(character)
        servant = fight.is_servant(character)
        masterless = servant and fate is None and not fight.has_master(character)
        turns_without = int(character.state.get(turn_steps.MASTERLESS_TURNS, 0)) if masterless else None
        if_lost = next_turn = None
        if own and servant and fate is None:
            rate = battle.survive_rate(fight.fatigue_of(character))
            if_lost = fight.percent(1 - checks.survive_chance(rate, critical_fumble_all_checks=critical_fumble))
            if turns_without is not None:
                coming = rules_turns.masterless_survive_rate(turns_without + 1)
                next_turn = fight.percent(1 - checks.survive_chance(coming, critical_fumble_all_checks=critical_fumble))
        return MemberView(
            character.name,
            character.kind,
            place if own else "",
            fate,
            fight.fatigue_of(character) if servant else None,
            character.pools[fight.SEALS].current if fight.SEALS in character.pools else None,
            turns_without,
            if_lost,
            next_turn,
        )

    # Battles

    async def start_battle(self, call: Call, first: str, second: str, *, at_base_of: str | None) -> Progress:
        """R5: a battle between two camps with formations. A GM starts it, or a player of the first camp (the side
        that initiated it is first, D9; with `first_side_rule: random` a die decides)."""

        async def stage(session: AsyncSession, campaign: Campaign, play: GrailAnkaPlay) -> Staged:
            options = anka_options(campaign_options(self.rulesets, campaign))
            await self._refuse_war_over(session, campaign)
            camps = [await self._camp(session, campaign, first), await self._camp(session, campaign, second)]
            if camps[0].id == camps[1].id:
                raise refused("same_camp")
            for camp in camps:
                refuse_game_over(camp)
                if not await self._in_war(session, camp):
                    raise refused("camp_out_no_battle", camp=camp.name)
            members = [await self.sides.members(session, camp) for camp in camps]
            gm = await is_gm(session, campaign.id, call.actor)
            if not gm and not any(not c.gm_run and c.owner_id == call.actor.user_id for c, _ in members[0]):
                raise refused("not_your_camp", camp=camps[0].name)
            for camp in camps:
                if await self._in_battle(session, campaign, ExchangeRole.side_id == camp.id):
                    raise refused("camp_in_battle", camp=camp.name)
                if await self._in_battle(session, campaign, ExchangeRole.side_id == camp.id, CONTRACT_KIND):
                    raise refused("battle_contract_open", camp=camp.name)  # the camps fight as they are
            if at_base_of is not None and at_base_of.strip().lower() not in {c.name.lower() for c in camps}:
                raise refused("base_not_in_battle", camp=at_base_of)
            formations = []
            for camp, present in zip(camps, members, strict=True):
                placed = [(c, at) for place in fight.PLACES for c, at in present if at == place]
                if not any(place == fight.MAIN for _, place in placed):
                    raise refused("no_formation", camp=camp.name)
                refuse_fallen(play, RULESET_ID, await snapshots(session, [c for c, _ in placed]))
                formations.append(placed)
            take_extra_action(camps[0])  # the camp that initiates spends one of its extra actions, if it has any
            # Side A is the one whose win rate is computed: the players' camp against a GM-run one, else the first.
            gm_run = [bool(camp.state.get(GM_RUN)) for camp in camps]
            # `first_side_rule: random`: a die (shown with the battle's start) says which camp goes first.
            (face,) = call.dice.roll(1, 2) if options.first_side_rule == "random" else (1,)
            first_index = face - 1
            if first_index:
                camps.reverse()
                formations.reverse()
                gm_run.reverse()
            a_index = 1 if gm_run == [True, False] else 0
            sides = {"a": camps[a_index], "b": camps[1 - a_index]}
            placed_a, placed_b = formations[a_index], formations[1 - a_index]
            fighters = [c for c, _ in placed_a] + [c for c, _ in placed_b]
            places = [("a", place) for _, place in placed_a] + [("b", place) for _, place in placed_b]
            home = None
            if at_base_of is not None:
                home = "a" if sides["a"].name.lower() == at_base_of.strip().lower() else "b"
            first_role = "a" if a_index == 0 else "b"

            def opening(scene: Scene) -> Step:
                begun = fight.begin(scene, first_role, home, places)
                if options.first_side_rule == "random":
                    return Step.of(fight.first_drawn(scene, face, first_role), begun)
                return begun

            title = Text("exchange.anka_battle", {"a": sides["a"].name, "b": sides["b"].name})
            return Staged(Cast({fight.FIGHTER: fighters}, sides), opening, title)

        return await self.staged_step(call, BATTLE_KIND, stage)

    async def _in_battle(
        self, session: AsyncSession, campaign: Campaign, playing: ColumnElement[bool], kind: str = BATTLE_KIND
    ) -> bool:
        """Whether a camp or a character (`playing`: a condition on its role) is in an open battle (or another open
        exchange of `kind`)."""
        found = await session.scalar(
            select(Exchange.id)
            .join(ExchangeRole, ExchangeRole.exchange_id == Exchange.id)
            .where(
                Exchange.campaign_id == campaign.id, Exchange.kind == kind, Exchange.status == EXCHANGE_OPEN, playing
            )
        )
        return found is not None

    async def strengths(self, place: Place, actor: Actor, camp: str) -> tuple[str, dict[str, int]]:
        """A camp's strength per parameter in its formation (R4), for its own players and the GMs."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            self.play_of(campaign)
            side = await self._camp(session, campaign, camp)
            members = await self.sides.members(session, side)
            if not await is_gm(session, campaign.id, actor) and not any(
                not c.gm_run and c.owner_id == actor.user_id for c, _ in members
            ):
                raise refused("not_your_camp", camp=side.name)
            shown = dict(
                zip([c.id for c, _ in members], await snapshots(session, [c for c, _ in members]), strict=True)
            )
            main = next((shown[c.id] for c, at in members if at == fight.MAIN), None)
            if main is None:
                raise refused("no_formation", camp=side.name)
            subs = [fight.sheet_of(shown[c.id]).values for c, at in members if at == fight.SUB]
            present = [(fight.sheet_of(shown[c.id]), at) for c, at in members if at in fight.PLACES]
            passive = battle.totals(fight.passive_activations(side.name, present), side.name)
            return side.name, battle.with_deltas(battle.strength(fight.sheet_of(main).values, subs), [passive.params])

    async def odds(self, place: Place, actor: Actor, first: str, second: str, chosen: Sequence[str]) -> Odds:
        """The win rate two camps' formations would give on three parameters, before skills (GM only: it tells
        both camps' strength)."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            self.play_of(campaign)
            await require_gm(session, campaign.id, actor)
            if len(set(chosen)) != len(chosen):
                raise refused("params_twice")
            options = anka_options(campaign_options(self.rulesets, campaign))
            camps = [await self._camp(session, campaign, first), await self._camp(session, campaign, second)]
            if camps[0].id == camps[1].id:
                raise refused("same_camp")
            gm_run = [bool(camp.state.get(GM_RUN)) for camp in camps]
            if gm_run == [True, False]:
                camps.reverse()
            formations = []
            named: list[tuple[str, str, str]] = []
            passives: list[battle.SkillTotals] = []
            for camp in camps:
                placed = [(c, place) for c, place in await self.sides.members(session, camp) if place in fight.PLACES]
                main, subs, companions = (
                    ", ".join(c.name for c, place in placed if place == wanted) or "—" for wanted in fight.PLACES
                )
                named.append((main, subs, companions))
                if not any(place == fight.MAIN for _, place in placed):
                    raise refused("no_formation", camp=camp.name)
                shown = await snapshots(session, [c for c, _ in placed], with_links=False)
                sheets = [(fight.sheet_of(one), place) for one, (_, place) in zip(shown, placed, strict=True)]
                formations.append(
                    [
                        battle.Member(place, sheet.values, sheet.level, fight.fatigue_of(one))
                        for (sheet, place), one in zip(sheets, shown, strict=True)
                    ]
                )
                passives.append(battle.totals(fight.passive_activations(camp.name, sheets), camp.name))
            rated = battle.formation_rate(
                chosen,
                formations[0],
                formations[1],
                companions_tire=options.fatigue_scope == "present_servants",
                skills_a=passives[0],
                skills_b=passives[1],
            )
            return Odds(camps[0].name, camps[1].name, rated, (named[0], named[1]))

    # Anchors and decisions

    async def anchor(
        self, place: Place, actor: Actor, number: int, dice: DiceSource, *, decision: str | None = None
    ) -> Progress:
        """An anchor for the channel's open decision (the one named, else the oldest this giver may anchor):
        refused when its giver may not give it now (R2). A window whose time is up closes first, as its deadline
        would have closed it: the number counts only if the decision still takes one from this giver."""
        if not checks.ANCHOR_MIN <= number <= checks.ANCHOR_MAX:
            raise refused("anchor_range", number=number)
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            self.play_of(campaign)
            options = anka_options(campaign_options(self.rulesets, campaign))
            gm = await is_gm(session, campaign.id, actor)
            wait, exchange = await self._anchor_wait(session, campaign, decision, options, gm=gm)
            lapsed = None
            if wait.deadline_at is not None and wait.deadline_at <= self.clock():
                closing = Answer(decisions.ANCHOR_WAIT, option=decisions.CLOSE, expired=True)
                lapsed = await self.engine.answer(session, campaign, wait, closing, dice, status=EXPIRED)
                reopened = await session.scalar(
                    select(WaitRow).where(
                        WaitRow.exchange_id == exchange.id,
                        WaitRow.status == PENDING,
                        WaitRow.key == decisions.ANCHOR_WAIT,
                    )
                )
                if reopened is None:
                    raise refused("anchor_window_closed")  # the bot drew it: the deadline will say so
                wait = reopened
            await self._may_anchor(session, campaign, exchange, actor, options, gm=gm)
            answer = Answer(decisions.ANCHOR_WAIT, value=number, by=actor.user_id)
            given = await self.engine.answer(session, campaign, wait, answer, dice)
            if lapsed is None:
                return given
            return replace(
                lapsed,
                steps=[*lapsed.steps, *given.steps],
                opened=[*lapsed.opened, *given.opened],
                closed=[*lapsed.closed, *given.closed],
                answered=given.answered,
            )

    async def _may_anchor(
        self,
        session: AsyncSession,
        campaign: Campaign,
        exchange: Exchange,
        actor: Actor,
        options: GrailAnkaOptions,
        *,
        gm: bool,
    ) -> None:
        if decisions.phase_of(exchange.state) == decisions.GMS:
            if not gm:
                raise refused("anchor_gms_only")
            return
        previous = await session.scalar(
            select(Event)
            .where(Event.campaign_id == campaign.id, Event.kind == decisions.ANCHOR_EVENT)
            .order_by(Event.id.desc())
            .limit(1)
        )
        code = anchors.refusal(
            actor.user_id,
            gm=gm,
            previous_author=previous.payload.get("user") if previous else None,
            previous_at=previous.created_at if previous else None,
            now=self.clock(),
            low_participation=options.low_participation,
        )
        if code is not None:
            raise refused(code)

    async def _anchor_wait(
        self,
        session: AsyncSession,
        campaign: Campaign,
        decision: str | None,
        options: GrailAnkaOptions,
        *,
        gm: bool,
    ) -> tuple[WaitRow, Exchange]:
        """The open request an anchor is for: the one holding the named decision (which must be the one waiting
        for its anchor now), else the oldest that takes one from this giver (the GMs' once a window closed on
        them, everyone else's before), as it would have taken the first message."""
        open_waits = await session.execute(
            select(WaitRow, Exchange)
            .join(Exchange, Exchange.id == WaitRow.exchange_id)
            .where(WaitRow.campaign_id == campaign.id, WaitRow.status == PENDING, WaitRow.key == decisions.ANCHOR_WAIT)
            .order_by(WaitRow.id)
        )
        found = [(wait, exchange) for wait, exchange in open_waits.all()]
        if decision is None:
            if not found:
                raise refused("no_anchor_waiting")
            fitting = [(w, e) for w, e in found if (decisions.phase_of(e.state) == decisions.GMS) == gm]
            return fitting[0] if fitting else found[0]
        wanted = decision.strip().lower()
        for wait, exchange in found:
            pending = exchange.state[decisions.REQUEST]
            if wanted in pending["ids"]:
                next_id = pending["ids"][len(pending["anchors"])]
                if wanted != next_id and not options.batch_anchor:
                    raise refused("decision_not_next", id=wanted, next=next_id)
                return wait, exchange
        stored = await session.scalar(
            select(Commitment).where(Commitment.campaign_id == campaign.id, Commitment.key == wanted)
        )
        if stored is None:
            raise refused("unknown_decision", id=decision)
        raise refused("decision_anchored", id=wanted)

    async def anchor_open(self, place: Place) -> bool:
        """Whether the channel's campaign is this game's and waits for an anchor (a cheap look before a write)."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            if campaign.ruleset != RULESET_ID:
                return False
            waiting = await session.scalar(
                select(WaitRow.id)
                .where(
                    WaitRow.campaign_id == campaign.id, WaitRow.status == PENDING, WaitRow.key == decisions.ANCHOR_WAIT
                )
                .limit(1)
            )
            return waiting is not None

    async def check(self, call: Call, rate: int, purpose: str) -> Progress:
        """A GM's check at any success rate (the source's 判定), decided by a committed secret and an anchor."""
        said = Text("anka.purpose.check", {"purpose": purpose})

        async def no_one(session: AsyncSession, campaign: Campaign, character: Character | None) -> Roles:
            return {}

        return await self.gm_step(
            call,
            "anka.check",
            lambda play, scene: gm_check(scene, rate, said),
            title=Text("exchange.anka_check", {"purpose": purpose}),
            cast=no_one,
        )

    async def verify(self, place: Place, decision: str) -> Verified:
        """A decision of the channel's campaign, or of its last one once it ended: a record outlives its game."""
        async with self.database.read() as session:
            campaign = await latest_campaign(session, place)
            self.play_of(campaign)
            stored = await session.scalar(
                select(Commitment).where(
                    Commitment.campaign_id == campaign.id, Commitment.key == decision.strip().lower()
                )
            )
            if stored is None:
                raise refused("unknown_decision", id=decision)
            if stored.revealed_at is None:
                return Verified(stored.key, stored.digest, revealed=False)
            hashed = checks.hashed(campaign.id, stored.key, stored.secret, stored.nonce)
            matches = checks.verifies(campaign.id, stored.key, stored.secret, stored.nonce, stored.digest)
            return Verified(stored.key, stored.digest, True, hashed, matches)

    async def decisions(self, place: Place, current: str) -> list[str]:
        """Ids of the campaign's decisions, newest first, for autocomplete."""
        async with self.database.read() as session:
            campaign = await latest_campaign(session, place)
            keys = await session.scalars(
                select(Commitment.key)
                .where(Commitment.campaign_id == campaign.id, Commitment.key.startswith(current.strip().lower()))
                .order_by(Commitment.id.desc())
                .limit(25)
            )
            return list(keys)

    # The campaign's turns

    async def declare_action(self, call: Call, camp: str, kind: str, note: str | None) -> tuple[str, int, int | None]:
        """A camp's action for this turn (R17, D16: resting among them), by its players or a GM; the last one
        declared counts. Before the finale (R22's grace) it is one of the camp's extra actions, once a turn: the
        camp's name, the turn, and the extra actions it has left (None outside a grace)."""
        async with self.locked(call) as (session, campaign, _):
            await self._refuse_war_over(session, campaign)
            side = await self._camp(session, campaign, camp)
            await self._own_camp(session, campaign, side, call.actor)
            refuse_game_over(side)
            if not await self._in_war(session, side):
                raise refused("camp_out_of_war", camp=side.name)
            before = side.state.get(turn_steps.ACTION)
            again = isinstance(before, dict) and before.get("turn") == campaign.turn_number and before.get("extra")
            left = turn_steps.extra_actions_left(side.state) if again else take_extra_action(side)
            action = {
                "turn": campaign.turn_number,
                "kind": kind,
                "note": note,
                **({"extra": True} if left is not None else {}),
            }
            side.state = {**side.state, turn_steps.ACTION: action}
            record_event(
                session,
                campaign.id,
                "anka.action_declared",
                actor_id=call.actor.user_id,
                payload={"camp": side.name, **action},
                created_at=self.clock(),
                secret=True,
            )
            return side.name, campaign.turn_number, left

    async def _own_camp(self, session: AsyncSession, campaign: Campaign, side: Side, actor: Actor) -> None:
        """A camp's own players decide for it, or a GM; a camp the GMs run, only a GM."""
        if await is_gm(session, campaign.id, actor):
            return
        members = await self.sides.members(session, side)
        if side.state.get(GM_RUN) or not any(not c.gm_run and c.owner_id == actor.user_id for c, _ in members):
            raise refused("not_your_camp", camp=side.name)

    async def set_relation(self, call: Call, camp: str, other: str, kind: str) -> tuple[str, str, str | None]:
        """Two camps allied, in ceasefire or hostile again (R22), both ways; GM only."""
        async with self.locked(call, gm=True) as (session, campaign, _):
            sides = [await self._camp(session, campaign, camp), await self._camp(session, campaign, other)]
            if sides[0].id == sides[1].id:
                raise refused("relation_to_itself")
            for side, to in ((sides[0], sides[1]), (sides[1], sides[0])):
                relations = {**dict(side.state.get(turn_steps.RELATIONS, {})), to.name.lower(): kind}
                if kind == "hostile":
                    del relations[to.name.lower()]
                side.state = {**side.state, turn_steps.RELATIONS: relations}
            record_event(
                session,
                campaign.id,
                "anka.relation_set",
                actor_id=call.actor.user_id,
                payload={"camp": sides[0].name, "other": sides[1].name, "relation": kind},
                created_at=self.clock(),
            )
            return sides[0].name, sides[1].name, campaign.language

    async def set_standing(self, call: Call, camp: str, standing: str) -> str:
        """D17's GM override: a camp counted in the war or out of it whatever its members (`auto`: by them)."""
        async with self.locked(call, gm=True) as (session, campaign, _):
            side = await self._camp(session, campaign, camp)
            side.state = {**side.state, turn_steps.STANDING: None if standing == "auto" else standing}
            record_event(
                session,
                campaign.id,
                "anka.standing_set",
                actor_id=call.actor.user_id,
                payload={"camp": side.name, "standing": standing},
                created_at=self.clock(),
            )
            return side.name

    async def contract(self, call: Call, servant: str, master: str) -> Progress:
        """R20: a Servant and a Master agree to a new contract: its player and the Master's both consent."""

        async def stage(session: AsyncSession, campaign: Campaign, play: GrailAnkaPlay) -> Staged:
            await self._refuse_war_over(session, campaign)
            servant_row = await find_character(session, campaign, servant)
            master_row = await find_character(session, campaign, master)
            if servant_row.kind != SERVANT:
                raise refused("not_a_servant", name=servant_row.name)
            if master_row.kind != MASTER:
                raise refused("not_a_master", name=master_row.name)
            shown = await snapshots(session, [servant_row, master_row])
            refuse_fallen(play, RULESET_ID, shown)
            current = shown[0].partner(fight.MASTER_RELATION)
            if current is not None and current.id == master_row.id:
                raise refused("already_contracted", servant=servant_row.name, master=master_row.name)
            gm = await is_gm(session, campaign.id, call.actor)
            if not (
                gm
                or await controls(session, campaign, servant_row, call.actor)
                or await controls(session, campaign, master_row, call.actor)
            ):
                raise refused("not_your_contract")
            camp = await self.sides.of(session, campaign, master_row)
            servant_camp = await self.sides.of(session, campaign, servant_row)
            refuse_game_over(servant_camp)
            refuse_game_over(camp)
            for side in (servant_camp, camp):  # a camp stays as it is while it fights
                if side is not None and await self._in_battle(session, campaign, ExchangeRole.side_id == side.id):
                    raise refused("contract_in_battle", camp=side.name)
            # Both camps are in the exchange, so that an answer after either's game ended is refused (R21).
            sides = {turn_steps.CAMP_ROLE: camp} if camp is not None else {}
            if servant_camp is not None and servant_camp is not camp:
                sides[turn_steps.SERVANT_CAMP_ROLE] = servant_camp
            cast = Cast({turn_steps.SERVANT_ROLE: [servant_row], turn_steps.MASTER_ROLE: [master_row]}, sides)
            title = Text("exchange.anka_contract", {"servant": servant_row.name, "master": master_row.name})
            asker = call.actor.user_id
            return Staged(cast, lambda scene: turn_steps.contract_asked(scene, asker, asked_by_gm=gm), title)

        return await self.staged_step(call, CONTRACT_KIND, stage)

    async def order(self, call: Call, master: str, reason: str) -> Progress:
        """R18's story use: one stroke for what the GM rules (compelling an unwilling Servant...), asked by the
        Master's player and allowed by a GM; the Master need not be present."""

        async def stage(session: AsyncSession, campaign: Campaign, play: GrailAnkaPlay) -> Staged:
            character = await find_character(session, campaign, master)
            if character.kind != MASTER:
                raise refused("not_a_master", name=character.name)
            if not await controls(session, campaign, character, call.actor):
                raise refused("not_your_master", name=character.name)
            (shown,) = await snapshots(session, [character])
            refuse_fallen(play, RULESET_ID, [shown])
            if shown.pools[fight.SEALS].current < 1:
                raise refused("no_seals", name=character.name)
            camp = await self.sides.of(session, campaign, character)
            refuse_game_over(camp)
            cast = Cast({turn_steps.MASTER_ROLE: [character]}, {turn_steps.CAMP_ROLE: camp} if camp is not None else {})
            title = Text("exchange.anka_order", {"name": character.name})
            return Staged(cast, lambda scene: turn_steps.order_asked(scene, reason), title)

        return await self.staged_step(call, "anka.order", stage)

    async def finale(self, call: Call, extra_actions: int) -> tuple[str, list[str], str | None, bool]:
        """R22: a GM moves the war to its final processing, once. Without extra actions it begins now: the game's
        progress stops (no battle, action, contract or turn any more; the GMs decide what the final processing
        is, their checks still decided by anchors). With them, each camp still in the war takes that many first
        (a turn's declared action, a battle it starts), and it begins at the end of the turn in which the last
        was taken; meanwhile a GM begins it early with none. The campaign's name, the camps left, its language,
        and whether it began."""
        async with self.locked(call, gm=True) as (session, campaign, _):
            await self._refuse_war_over(session, campaign)
            sides = list((await self.sides.of_campaign(session, campaign)).values())
            remaining = [side for side in sides if await self._in_war(session, side)]
            if extra_actions and any(turn_steps.extra_actions_left(side.state) is not None for side in sides):
                left = {side.name: turn_steps.extra_actions_left(side.state) or 0 for side in remaining}
                raise refused("finale_grace_running", camps=turn_steps.extra_actions_text(left))
            begun = not (extra_actions and remaining)
            for side in sides:
                state = {key: value for key, value in side.state.items() if key != turn_steps.FINALE}
                if begun:
                    state[turn_steps.WAR_OVER] = turn_steps.FINALE_BEGUN
                else:  # a camp out of the war now, back in it later (R21), takes no more than the others
                    state[turn_steps.FINALE] = {"left": extra_actions}
                side.state = state
            names = [side.name for side in remaining]
            record_event(
                session,
                campaign.id,
                "anka.finale" if begun else "anka.finale_grace",
                actor_id=call.actor.user_id,
                payload={"count": extra_actions, "camps": names},
                created_at=self.clock(),
            )
            return campaign.name, names, campaign.language, begun

    # Command seals and fates

    async def recover(self, call: Call, servant: str) -> Progress:
        """R18: one stroke of a Master's command seals takes 6 fatigue off its own Servant (D24: never another's)."""

        async def stage(session: AsyncSession, campaign: Campaign, play: GrailAnkaPlay) -> Staged:
            character = await find_character(session, campaign, servant)
            if character.kind != SERVANT:
                raise refused("not_a_servant", name=character.name)
            (shown,) = await snapshots(session, [character])
            master = shown.partner(fight.MASTER_RELATION)
            if master is None:
                raise refused("no_master", name=character.name)
            master_row = await session.get(Character, master.id)
            assert master_row is not None
            if not await controls(session, campaign, master_row, call.actor):
                raise refused("not_your_servant", name=character.name)
            refuse_fallen(play, RULESET_ID, [shown, master])
            refuse_game_over(await self.sides.of(session, campaign, character))
            if master.pools[fight.SEALS].current < 1:
                raise refused("no_seals", name=master.name)
            if fight.fatigue_of(shown) == 0:
                raise refused("no_fatigue", name=character.name)

            def recovered(scene: Scene) -> Step:
                tired = fight.fatigue_of(scene.one(TARGET))
                now = battle.seal_recovery(tired)
                line = Recovered(
                    who=character.name,
                    before=tired,
                    after=now,
                    master=master.name,
                    seals=master.pools[fight.SEALS].current - 1,
                )
                return Step(
                    effects=(PoolDelta(ACTOR, fight.SEALS, -1), PoolDelta(TARGET, fight.FATIGUE, now - tired)),
                    outcomes=(line,),
                )

            title = Text("exchange.anka_seal", {"name": master.name})
            return Staged(Cast({ACTOR: [master_row], TARGET: [character]}), recovered, title)

        return await self.staged_step(call, "anka.seal", stage)

    async def set_fate(self, call: Call, name: str, fate: str, on: bool) -> Progress:
        """A GM's ruling: a Servant vanished (or back), a character dead (or not)."""

        async def stage(session: AsyncSession, campaign: Campaign, play: GrailAnkaPlay) -> Staged:
            character = await find_character(session, campaign, name)
            if fate == fight.VANISHED and character.kind != SERVANT:
                raise refused("not_a_servant", name=character.name)
            if fate == fight.DEAD and character.kind == SERVANT:
                raise refused("servants_vanish", name=character.name)
            if bool(character.state.get(fate)) == on:
                raise refused(f"already_{fate}" if on else f"not_{fate}", name=character.name)
            if await self._in_battle(session, campaign, ExchangeRole.character_id == character.id):
                raise refused("fate_in_battle", name=character.name)
            lines: list[Outcome] = [FateSet(fate=fate, on=on, who=character.name)]
            last = False
            sides = await self.sides.of_campaign(session, campaign)
            camps: list[Effect] = []  # R21: the camps a protagonist's death puts out of the game, or its life back in
            protagonist = fate == fight.DEAD and bool(character.state.get(turn_steps.PROTAGONIST))
            if protagonist:
                if on:
                    ended, last = await self._game_over(session, campaign, character)
                    lines.append(ended)
                    # The last one's camps are marked too, so that its life back brings them back with the war.
                    for role, side in await self._player_camps(session, campaign, character, sides):
                        if await self._in_battle(session, campaign, ExchangeRole.side_id == side.id):
                            raise refused("game_over_in_battle", name=character.name, camp=side.name)
                        camps.append(SidePatch(role, turn_steps.GAME_OVER, {"who": character.name, "id": character.id}))
                        if not last:
                            lines.append(CampStanding(camp=side.name, out=True))
                for role, side in [] if on else sides.items():
                    over = turn_steps.game_over_of(side.state)
                    if over is not None and over.get("id") == character.id:
                        camps.append(SidePatch(role, turn_steps.GAME_OVER, None))
                        lines.append(CampStanding(camp=side.name, out=False))

            def ruled(scene: Scene) -> Step:
                effects: list[Effect] = [StatePatch(ACTOR, fate, True if on else None), *camps]
                said = list(lines)
                if last and turn_steps.war_over(scene) is None:  # a war already over (out of time, its finale) stays so
                    effects += turn_steps.ending(scene, turn_steps.LAST_PROTAGONIST_DIED)
                if protagonist and not on and (going_on := turn_steps.resumed(scene)):
                    effects += going_on
                    said.append(WarResumed())
                return Step(effects=tuple(effects), outcomes=tuple(said))

            title = Text("exchange.anka_fate", {"name": character.name})
            return Staged(Cast({ACTOR: [character]}, sides), ruled, title)

        return await self.staged_step(call, f"anka.{fate}", stage, gm=True)

    async def _refuse_war_over(self, session: AsyncSession, campaign: Campaign) -> None:
        """Once the war ended, nothing moves in it: the GM ends the campaign."""
        for side in (await self.sides.of_campaign(session, campaign)).values():
            if side.state.get(turn_steps.WAR_OVER):
                raise refused(turn_steps.war_over_refusal(str(side.state[turn_steps.WAR_OVER])))

    async def _player_camps(
        self, session: AsyncSession, campaign: Campaign, character: Character, sides: dict[str, Side]
    ) -> list[tuple[str, Side]]:
        """R21: the camps whose game a protagonist's death ends, by their roles: the protagonist's own camp, or where
        it is in none, every camp its player plays in."""
        own = await self.sides.of(session, campaign, character)
        found = []
        for role, side in sides.items():
            if turn_steps.game_over_of(side.state) is not None:
                continue
            if own is not None:
                if side.id == own.id:
                    found.append((role, side))
                continue
            members = await self.sides.members(session, side)
            if not character.gm_run and any(not c.gm_run and c.owner_id == character.owner_id for c, _ in members):
                found.append((role, side))
        return found

    async def _game_over(
        self, session: AsyncSession, campaign: Campaign, character: Character
    ) -> tuple[GameOver, bool]:
        """R21: a protagonist's death ends its player's game, and the whole campaign's if it was the last one (then
        True)."""
        others = [
            c
            for c in await campaign_characters(session, campaign)
            if c.id != character.id and c.state.get(turn_steps.PROTAGONIST) and not c.state.get(fight.DEAD)
        ]
        if not others:
            return GameOver(who=character.name), True
        return GameOver(who=character.name, user=character.owner_id), False

    async def set_protagonist(self, call: Call, name: str, on: bool) -> str:
        """R21: who the campaign's protagonists are (GM)."""
        async with self.locked(call, gm=True) as (session, campaign, _):
            character = await find_character(session, campaign, name)
            if on and (character.kind == SERVANT or character.state.get(fight.DEAD)):
                raise refused(
                    "protagonist_servant" if character.kind == SERVANT else "already_dead", name=character.name
                )
            state = {**character.state, turn_steps.PROTAGONIST: True}
            if not on:
                del state[turn_steps.PROTAGONIST]
            character.state = state
            record_event(
                session,
                campaign.id,
                "anka.protagonist_set",
                actor_id=call.actor.user_id,
                payload={"name": character.name, "on": on},
                created_at=self.clock(),
            )
            return character.name
