"""Characters: imported or created by the rules, listed, shown, chosen and deleted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.atomic import set_pool_maximum
from bot.db.engine import Database
from bot.db.models import (
    EXCHANGE_OPEN,
    ROLE_PLAYER,
    Campaign,
    Character,
    CharacterLink,
    Exchange,
    ExchangeRole,
    Membership,
    ResourcePool,
)
from bot.errors import SheetRefused, UserError, rule_refused
from bot.rulesets.base import Ruleset
from bot.services.campaigns import campaign_options
from bot.services.common import (
    ACTIVE_READ,
    Actor,
    Clock,
    Place,
    active_campaign,
    is_gm,
    record_event,
    require_gm,
    role_read,
)
from bot.services.exchanges import Cast, Closed, ExchangeEngine, Progress
from bot.services.held import EXCHANGE_KIND, HELD, SUBJECT, approval_step
from bot.services.requests import GM_REQUEST
from bot.services.snapshots import play_of, snapshot, snapshots, store_character
from bot.sheet_paths import read_path, with_value
from rules.dice import DiceSource
from rules.exchange import RuleError, Text
from rules.options import CampaignOptions
from rules.play import EVERYONE, REVEALED, Binding, CharacterDraft, CharacterSnapshot, Play
from rules.sheets import SheetError, SheetProblem
from rules.text import NAME_LIMIT

_BY_NAME = select(Character).where(
    Character.campaign_id == bindparam("campaign_id"), func.lower(Character.name) == bindparam("lowered")
)
_ACTIVE = (
    select(Character, Membership.role)
    .join(Membership, Membership.active_character_id == Character.id)
    .where(Membership.campaign_id == bindparam("campaign_id"), Membership.user_id == bindparam("user_id"))
)


async def find_character(session: AsyncSession, campaign: Campaign, name: str) -> Character:
    character = await session.scalar(_BY_NAME, {"campaign_id": campaign.id, "lowered": name.lower()})
    if character is None:
        raise UserError("error.unknown_character", name=name)
    return character


async def active_character(session: AsyncSession, campaign: Campaign, actor: Actor) -> Character:
    key = (campaign.id, actor.user_id)
    read: dict[tuple[int, int], Character | None] = session.info.get(ACTIVE_READ, {})
    if key in read:  # read with the campaign
        character = read[key]
    elif found := (await session.execute(_ACTIVE, {"campaign_id": campaign.id, "user_id": actor.user_id})).first():
        character, role = found
        role_read(session, campaign.id, actor.user_id, role)
    else:
        character = None
    if character is None:
        raise UserError("error.no_active_character")
    return character


def active_changed(session: AsyncSession, campaign: Campaign, user_id: int) -> None:
    """Forget the member's active character read in this transaction: it has just changed."""
    session.info.get(ACTIVE_READ, {}).pop((campaign.id, user_id), None)


async def campaign_characters(session: AsyncSession, campaign: Campaign) -> list[Character]:
    """Every character of the campaign, in the order they were made."""
    return list(
        await session.scalars(select(Character).where(Character.campaign_id == campaign.id).order_by(Character.id))
    )


async def controls(session: AsyncSession, campaign: Campaign, character: Character, actor: Actor) -> bool:
    """Whether the actor plays this character: its player, or any GM for a character the GMs run."""
    if character.gm_run:
        return await is_gm(session, campaign.id, actor)
    return character.owner_id == actor.user_id


async def owned_or_gm(session: AsyncSession, campaign: Campaign, character: Character, actor: Actor) -> None:
    if character.owner_id != actor.user_id and not await is_gm(session, campaign.id, actor):
        raise UserError("error.not_your_character", name=character.name)


async def linked(
    session: AsyncSession, character: Character, relation: str, *, reverse: bool = False
) -> list[Character]:
    """The characters this one is bound to under `relation` (with `reverse`, those bound to it)."""
    mine, theirs = (
        (CharacterLink.target_id, CharacterLink.character_id)
        if reverse
        else (CharacterLink.character_id, CharacterLink.target_id)
    )
    found = await session.scalars(
        select(Character)
        .join(CharacterLink, theirs == Character.id)
        .where(mine == character.id, CharacterLink.relation == relation)
        .order_by(CharacterLink.id)
    )
    return list(found)


@dataclass(frozen=True)
class Shown:
    campaign: Campaign
    character: CharacterSnapshot
    play: Play
    options: CampaignOptions
    # False for a player looking at a character the GMs run, or at a rival's where the ruleset keeps sheets
    # private: only what the fiction reveals.
    full: bool
    # Shown to the reader alone: a character the GMs run, or any where sheets are private.
    private: bool


@dataclass(frozen=True)
class Created:
    campaign: Campaign
    character: Character
    draft: CharacterDraft
    active: bool
    held: tuple[str, ...] = ()  # values only a GM may set: the sheet waits for a GM's approval (`progress`)
    progress: Progress | None = None


@dataclass(frozen=True)
class Edited:
    ruleset: str
    name: str
    field: str
    old: Any
    new: Any
    language: str | None  # the campaign's, for the announcement
    private: bool = False  # a hidden sheet (the GMs' characters', any where sheets are private): its owner's to know


@dataclass(frozen=True)
class Revealed:
    name: str
    shown: bool  # False: hidden again
    language: str | None
    ruleset: str


@dataclass(frozen=True)
class Deleted:
    name: str
    language: str | None
    ruleset: str
    closed: tuple[Closed, ...]  # the prompt of its sheet's approval, if it was waiting for one


class CharacterService:
    def __init__(self, database: Database, clock: Clock, engine: ExchangeEngine) -> None:
        self.database = database
        self.clock = clock
        self.engine = engine
        self.rulesets = engine.rulesets

    async def ruleset(self, place: Place) -> tuple[Ruleset, Play]:
        """The channel's ruleset and its mechanics (refused if it has none yet)."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            return self.rulesets[campaign.ruleset], play_of(self.rulesets, campaign)

    async def language(self, place: Place) -> str | None:
        """The language of the channel's campaign (None: the server's), in which its characters are named."""
        async with self.database.read() as session:
            return (await active_campaign(session, place)).language

    async def create(
        self, place: Place, actor: Actor, kind: str, data: dict[str, object], dice: DiceSource, *, gm_run: bool = False
    ) -> Created:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            play = play_of(self.rulesets, campaign)
            if kind not in play.kinds:
                raise UserError("error.unknown_kind", kind=kind, kinds=", ".join(play.kinds))
            if kind in play.gm_kinds and not gm_run:
                raise UserError("error.gm_kind", kind=Text(f"kind.{kind}")).within(campaign.ruleset)
            if gm_run:
                await require_gm(session, campaign.id, actor)
            binding = play.binding(kind)
            target = None
            if binding is not None:
                target = await self._binding_target(session, campaign, actor, binding, data.get(binding.field))
            options = campaign_options(self.rulesets, campaign)
            bound = {binding.relation: await snapshot(session, target)} if binding and target else {}
            try:
                draft = play.build(kind, data, bound, dice, options, gm_run=gm_run)
            except SheetError as error:
                raise SheetRefused("sheet.rejected", error.problems).within(campaign.ruleset) from error
            except RuleError as error:
                raise rule_refused(error, campaign.ruleset) from error
            if len(draft.name) > NAME_LIMIT:  # every ruleset's names fit the same column, on every backend
                raise SheetRefused("sheet.rejected", [SheetProblem("name", "too_long", {"max": str(NAME_LIMIT)})])
            taken = await session.scalar(
                select(Character.id).where(
                    Character.campaign_id == campaign.id, func.lower(Character.name) == draft.name.lower()
                )
            )
            if taken is not None:
                raise UserError("error.character_exists", name=draft.name)
            trusted = gm_run or await is_gm(session, campaign.id, actor)
            held = () if trusted else play.gm_only_fields(kind, draft.sheet)
            character = await store_character(
                session, campaign, actor.user_id, draft, gm_run, {HELD: list(held)} if held else {}, self.clock()
            )
            if binding is not None and target is not None:
                session.add(
                    CharacterLink(
                        campaign_id=campaign.id,
                        character_id=character.id,
                        target_id=target.id,
                        relation=binding.relation,
                        created_at=self.clock(),
                    )
                )
            active = await self._join(session, campaign, actor, character)
            record_event(
                session,
                campaign.id,
                "character.created",
                actor_id=actor.user_id,
                payload={
                    "name": draft.name,
                    "kind": kind,
                    "gm_run": gm_run,
                    "sheet": draft.sheet,
                    "pools": {name: [pool.current, pool.maximum] for name, pool in draft.pools.items()},
                    "rolls": [roll.to_dict() for roll in draft.rolls],
                    "held": list(held),
                },
                created_at=self.clock(),
                # A sheet only its owner and the GMs may read (one the GMs run, or any where sheets are private)
                # is in the log for them alone: others read that the character was created.
                secret=play.sheet_hidden(gm_run, character.state),
            )
            progress = None
            if held:
                asked = approval_step(draft.name, held, private=play.private_sheets)
                progress = await self.engine.run(
                    session,
                    campaign,
                    kind=EXCHANGE_KIND,
                    title=Text("exchange.sheet_approval", {"name": draft.name}),
                    cast=Cast({SUBJECT: [character]}),
                    step_of=lambda _: asked,
                    dice=dice,
                    actor_id=actor.user_id,
                    channel_id=place.channel_id,
                )
            return Created(campaign, character, draft, active, held, progress)

    async def _binding_target(
        self, session: AsyncSession, campaign: Campaign, actor: Actor, binding: Binding, name: object
    ) -> Character:
        """The character a new one is bound to, named in its file: of the right kind, the player's own (or any, for
        a GM), and not already bound to as many as the ruleset allows."""
        kind = Text(f"kind.{binding.target_kind}")
        if not isinstance(name, str) or not name:
            raise UserError("error.binding_required", field=binding.field, kind=kind).within(campaign.ruleset)
        target = await find_character(session, campaign, name)
        if target.kind != binding.target_kind:
            raise UserError("error.binding_wrong_kind", name=target.name, kind=kind).within(campaign.ruleset)
        await owned_or_gm(session, campaign, target, actor)
        if binding.per_target is not None:
            taken = await linked(session, target, binding.relation, reverse=True)
            if len(taken) >= binding.per_target:
                raise UserError(
                    "error.binding_taken", name=target.name, bound=", ".join(character.name for character in taken)
                )
        return target

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
            active_changed(session, campaign, actor.user_id)
            return True
        return False

    async def show(self, place: Place, actor: Actor, name: str | None) -> Shown:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place, member=actor)
            play = play_of(self.rulesets, campaign)
            character = (
                await find_character(session, campaign, name)
                if name
                else await active_character(session, campaign, actor)
            )
            private = play.sheet_hidden(character.gm_run, character.state)
            own = not character.gm_run and (not play.private_sheets or character.owner_id == actor.user_id)
            full = own or not private or await is_gm(session, campaign.id, actor)
            return Shown(
                campaign,
                await snapshot(session, character),
                play,
                campaign_options(self.rulesets, campaign),
                full,
                private,
            )

    async def roster(self, place: Place, actor: Actor) -> tuple[Campaign, list[CharacterSnapshot], bool]:
        """Every character of the campaign, and whether the actor is a GM (who sees what the GMs' characters hide)."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            characters = await session.scalars(
                select(Character).where(Character.campaign_id == campaign.id).order_by(Character.id)
            )
            shown = await snapshots(session, list(characters), with_links=False)
            return campaign, shown, await is_gm(session, campaign.id, actor)

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
            if not await controls(session, campaign, character, actor):
                raise UserError("error.not_your_character", name=character.name)
            membership = await self._membership(session, campaign, actor)
            membership.active_character_id = character.id
            active_changed(session, campaign, actor.user_id)
            # Which of their characters the GMs take up is theirs to know: the table would learn who acts next.
            record_event(
                session,
                campaign.id,
                "character.used",
                actor_id=actor.user_id,
                payload={"name": character.name},
                created_at=self.clock(),
                secret=character.gm_run,
            )
            return character

    async def delete(self, place: Place, actor: Actor, name: str) -> Deleted:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            character = await find_character(session, campaign, name)
            await owned_or_gm(session, campaign, character, actor)
            record_event(
                session,
                campaign.id,
                "character.deleted",
                actor_id=actor.user_id,
                payload={"name": character.name, "sheet": character.sheet},
                created_at=self.clock(),
                secret=play_of(self.rulesets, campaign).sheet_hidden(character.gm_run, character.state),
            )
            # A sheet waiting for approval has nothing left to approve, and a roll waiting for the GMs' answer no one
            # to roll it for or at (a bystander an attack only sees is no part of it).
            playing = select(ExchangeRole.exchange_id).where(
                ExchangeRole.character_id == character.id, ExchangeRole.role != EVERYONE
            )
            waiting = await session.scalars(
                select(Exchange)
                .where(
                    Exchange.id.in_(playing),
                    Exchange.status == EXCHANGE_OPEN,
                    or_(Exchange.kind == EXCHANGE_KIND, Exchange.handler == GM_REQUEST),
                )
                .order_by(Exchange.id)
            )
            closed = [
                ended
                for exchange in list(waiting)
                for ended in (await self.engine.cancel(session, campaign, exchange, actor.user_id)).closed
            ]
            await session.execute(delete(Character).where(Character.id == character.id))
            return Deleted(character.name, campaign.language, campaign.ruleset, tuple(closed))

    async def edit_field(self, place: Place, actor: Actor, name: str, field: str, value: Any) -> Edited:
        """One field of a character's file: any field for a GM, the fields the ruleset leaves to players for the
        character's owner. The ruleset validates the whole file again; what was rolled from it stays as rolled."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            play = play_of(self.rulesets, campaign)
            character = await find_character(session, campaign, name)
            await owned_or_gm(session, campaign, character, actor)
            by_gm = await is_gm(session, campaign.id, actor)
            if not play.editable(character.kind, field, by_gm=by_gm):
                key = (
                    "error.edit_gm_only"
                    if not by_gm and play.editable(character.kind, field, by_gm=True)
                    else ("error.edit_not_editable")
                )
                raise UserError(key, field=field, name=character.name).within(campaign.ruleset)
            current = await snapshot(session, character)
            old = read_path(current.sheet["file"], field)
            try:
                file = with_value(current.sheet["file"], field, value)
                sheet = play.edited_sheet(current, file, campaign_options(self.rulesets, campaign), by_gm=by_gm)
            except SheetError as error:
                raise SheetRefused("sheet.edit_rejected", error.problems).within(campaign.ruleset) from error
            except RuleError as error:
                raise rule_refused(error, campaign.ruleset) from error
            # Compared as stored: `A` for a stat of 5 changes nothing either.
            if sheet == current.sheet:
                raise UserError("error.edit_unchanged", field=field, name=character.name)
            character.sheet = sheet
            # Both sides as the file keeps them: what was typed may be written otherwise (a die as `d10`, a rank as a
            # letter), and the old value reads as kept.
            new = None if value is None else read_path(sheet["file"], field)
            maxima = {}
            for pool_name, maximum in play.pool_maxima(current, sheet).items():
                if pool_name in current.pools and current.pools[pool_name].maximum != maximum:
                    pool_id = await session.scalar(
                        select(ResourcePool.id).where(
                            ResourcePool.character_id == character.id, ResourcePool.name == pool_name
                        )
                    )
                    assert pool_id is not None
                    changed = await set_pool_maximum(session, pool_id, maximum)
                    maxima[pool_name] = [changed.current, changed.maximum]
            private = play.sheet_hidden(character.gm_run, character.state)
            record_event(
                session,
                campaign.id,
                "character.edited",
                actor_id=actor.user_id,
                secret=private,
                payload={
                    "name": character.name,
                    "field": field,
                    "old": old,
                    "new": new,
                    "by_gm": by_gm,
                    "pools": maxima,
                },
                created_at=self.clock(),
            )
            return Edited(campaign.ruleset, character.name, field, old, new, campaign.language, private)

    async def reveal(self, place: Place, actor: Actor, name: str, *, shown: bool) -> Revealed:
        """A GM shows a hidden sheet (a rival's where sheets are private, or one the GMs run) to everyone, or hides
        it again."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(self.rulesets, campaign)
            character = await find_character(session, campaign, name)
            if not play.sheet_hidden(character.gm_run, {}):
                raise UserError("error.sheet_not_secret", name=character.name)
            if bool(character.state.get(REVEALED)) == shown:
                raise UserError("error.reveal_unchanged" if shown else "error.hide_unchanged", name=character.name)
            state = {key: value for key, value in character.state.items() if key != REVEALED}
            character.state = {**state, REVEALED: True} if shown else state
            record_event(
                session,
                campaign.id,
                "character.revealed" if shown else "character.hidden",
                actor_id=actor.user_id,
                payload={"name": character.name},
                created_at=self.clock(),
            )
            return Revealed(character.name, shown, campaign.language, campaign.ruleset)

    async def set_auto_answer(
        self, place: Place, actor: Actor, name: str, wait: str, option: str | None
    ) -> tuple[str, Text, Text | None, str]:
        """A GM's answer given in advance to one kind of wait of a character the GMs run (None: ask again)."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            play = play_of(self.rulesets, campaign)
            character = await find_character(session, campaign, name)
            if not character.gm_run:
                raise UserError("error.not_gm_run", name=character.name)
            preset = next((preset for preset in play.presets if preset.wait == wait), None)
            if preset is None:
                raise UserError("error.unknown_preset", wait=wait)
            wanted = (option or "").strip().casefold()
            offered = play.preset_choices(preset, await snapshot(session, character))
            chosen = next((choice for choice in offered if choice.value.casefold() == wanted), None)
            if option is not None and chosen is None:
                raise UserError("wait.unknown_choice", choice=option)
            answers = {key: value for key, value in character.auto_answers.items() if key != wait}
            if chosen is not None:
                answers[wait] = chosen.value
            character.auto_answers = answers
            # The GMs' plan for the character, so the players' log only says that there is one.
            record_event(
                session,
                campaign.id,
                "character.auto_answer",
                actor_id=actor.user_id,
                secret=True,
                payload={
                    "name": character.name,
                    "wait": preset.label.to_dict(),
                    "answer": chosen.label.to_dict() if chosen else Text("gm.auto_none").to_dict(),
                },
                created_at=self.clock(),
            )
            return character.name, preset.label, chosen.label if chosen else None, campaign.ruleset
