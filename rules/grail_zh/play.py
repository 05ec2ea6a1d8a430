"""The Chinese d20 game on Discord: Masters and Servants by the creation rules, Luck's d20, action checks, attacks
with their reactions, initiative and combat upkeep at a fight's start (rules in `rules/grail_zh`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Any, cast

from pydantic import BaseModel, ValidationInfo, field_validator

from rules.dice import DiceSource
from rules.exchange import Effect, Modifier, Opening, Outcome, RuleError, StatePatch, Step, Text, member
from rules.grail_zh import actions, detection, fight, magecraft, rulings, upkeep
from rules.grail_zh.characters import ServantSkill, effective_ranks, master_stats, release_cost, stats_at
from rules.grail_zh.model import (
    ATTRIBUTES,
    FAMILIAR_HP,
    FAMILIAR_SPEED,
    INDEPENDENT_ACTION_DAYS,
    ROUNDS_PER_MINUTE,
    SKILLS,
    STATS,
    Attribute,
    Stat,
)
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.ranks import Rank
from rules.grail_zh.rolls import InitiativeEntry, initiative, luck_d20, succeeds
from rules.grail_zh.sheets import (
    FamiliarFile,
    MasterFile,
    NoblePhantasm,
    PuppetFile,
    ServantFile,
    parse_familiar,
    parse_master,
    parse_puppet,
    parse_servant,
)
from rules.grail_zh.stored import (
    BOOST,
    CHECK_WORDS,
    CONTRACT,
    DEAD,
    DEFENDING,
    FAMILIAR,
    HP,
    MASTER,
    MP,
    PUPPET,
    SERVANT,
    TEMP_HP,
    UPKEEP_UNPAID,
    VANISHED,
    derived_ranks,
    fate_of,
    grail_options,
    hidden_sheet,
    luck_of,
    master_file,
    master_of,
    servant_file,
    servant_like,
    servant_of,
    speed_of,
    takes_luck_rerolls,
    written_skills,
    written_stat,
)
from rules.options import CampaignOptions
from rules.play import (
    ACTOR,
    CURRENT,
    EVERYONE,
    FIGHTERS,
    AttackInput,
    Binding,
    CharacterDraft,
    CharacterSnapshot,
    CheckInput,
    Choice,
    Odds,
    Play,
    Pool,
    Preset,
    Resumes,
    Scene,
    SheetLine,
    Turn,
)
from rules.words import joined, spelling_of

SPELL_KIND = "spell.cast"  # the exchange of /grail cast
BATTLE_CONTINUATION_HP_FLOOR = -200  # below anything Battle Continuation reaches: the rules decide a Servant's fate

MASTER_TEMPLATE: dict[str, Any] = {
    "name": "Tohsaka Rin",
    "master_type": "magus",
    "attributes": {"str": 0, "dex": 2, "con": 0, "int": 3, "wis": 0, "cha": 5},
    "mp_attr": "int",
}
# The example files; the names a player replaces are catalog texts, in the campaign's language (a skill the rules
# know is read in any of them).
PUPPET_TEMPLATE: dict[str, Any] = {"name": Text("example.puppet"), "rank": "D"}
FAMILIAR_TEMPLATE: dict[str, Any] = {"name": Text("example.familiar"), "teleports": False}
SERVANT_TEMPLATE: dict[str, Any] = {
    "name": "Archer",
    "master": "Tohsaka Rin",
    "servant_class": "archer",
    "legend": {"STR": "D", "END": "C", "AGI": "C", "MAG": "B", "LUK": "E"},
    "skills": [{"name": Text("skill.clairvoyance"), "rank": "C"}, {"name": Text("skill.minds_eye_true"), "rank": "B"}],
    "noble_phantasms": [
        {"name": Text("example.caladbolg"), "rank": "A", "scope": "anti_army", "mode": "one_shot", "ranged": True},
    ],
}


class GrailCheckInput(CheckInput):
    @field_validator("stat", mode="before")
    @classmethod
    def _stat_name(cls, value: object, info: ValidationInfo) -> object:
        return written_stat(spelling_of(info), tuple(CHECK_WORDS), value)


class CheckRolled(Outcome):
    event = "check"
    name: str
    stat: str
    total: int
    target: int
    success: bool
    auto: str | None


class Initiated(Outcome):
    event = "combat.initiative"
    order: list[list[str]]  # names, by the groups acting in turn (several in one act at the same time)


class UpkeepPaid(Outcome):
    event = "mp.combat_upkeep"
    name: str
    cost: int
    from_master: int
    paid: bool  # False: it could not pay, and only moves in this fight (D19)
    secret: bool = False  # a character the GMs run: its upkeep would tell its ranks


def _stat_of(character: CharacterSnapshot, word: str) -> tuple[str, int]:
    """The stat a check names, and its modifier: a Master's attribute, a Servant's rank (its n, R10). STR and
    敏捷 are both a Master's and a Servant's: DEX and AGI stand for each other."""
    upper = word.upper()
    if character.kind == FAMILIAR:  # its senses are its maker's, who rolls for what it perceives
        raise RuleError("grail_familiar_check", name=character.name)
    if servant_like(character):
        stat = SERVANT_WORDS.get(upper)
        if stat is not None:
            return stat, derived_ranks(character)[stat].n
    else:
        attribute = MASTER_WORDS.get(upper)
        if attribute is not None:
            return attribute.upper(), master_file(character).attribute(attribute)
    words = STATS if servant_like(character) else tuple(a.upper() for a in ATTRIBUTES)
    named: Text | str = Text(f"stat.{upper}") if upper in CHECK_WORDS else word
    raise RuleError(
        "grail_stat_not_here", stat=named, name=character.name, stats=joined([Text(f"stat.{stat}") for stat in words])
    )


MASTER_WORDS: dict[str, Attribute] = {**{attribute.upper(): attribute for attribute in ATTRIBUTES}, "AGI": "dex"}
SERVANT_WORDS: dict[str, Stat] = {**{stat: stat for stat in STATS}, "DEX": "AGI"}


class GrailZhPlay(Play):
    kinds: tuple[str, ...] = (MASTER, SERVANT, PUPPET, FAMILIAR)
    gm_kinds = frozenset({PUPPET, FAMILIAR})
    pool_names: tuple[str, ...] = (HP, MP, TEMP_HP)
    check_stats: tuple[str, ...] = tuple(CHECK_WORDS)
    template_note_key = "grail_zh.template_note"
    check_input = GrailCheckInput
    attack_input = fight.GrailAttackInput
    final_fates = frozenset({DEAD, VANISHED})
    # A GM answers a creature's reaction in advance (`/gm auto`): a fight against ten puppets is not ten prompts.
    presets = (
        Preset(
            fight.REACTION_WAIT,
            Text("preset.reaction"),
            (Choice(fight.MINDS_EYE, Text("reaction.minds_eye")), Choice(fight.TAKE, Text("reaction.take"))),
        ),
    )
    attacks_see_everyone = True  # R27: a fight is heard by those near it
    private_sheets = True  # 「须经过审核」 aside, a rival's ranks and Noble Phantasms are its owner's secret
    gms_keep_turns = True  # 「在你的回合内，你获得3个动作」 holds for every character, the GMs' too

    @cached_property
    def resumes(self) -> Resumes:
        return Resumes(fight.reacted, fight.opportunity, fight.consent, magecraft.spirit_window, magecraft.spell_window)

    # What only this game has, for its own commands (bot.rulesets.grail_zh.cog).
    def defend(self, scene: Scene) -> Step:
        return upkeep.defend(scene)

    def transfer(self, scene: Scene, amount: int) -> Step:
        return upkeep.give(scene, amount)

    def ritual(self, scene: Scene, reverse: int | None) -> Step:
        return upkeep.ritual(scene, reverse)

    def rest(self, scene: Scene) -> Step:
        return upkeep.rest(scene)

    def move(self, scene: Scene, x: int, y: int, sector: tuple[int, int], *, run: bool) -> Step:
        character = scene.one(ACTOR)
        flying = magecraft.FLYING in character.state
        speed = magecraft.air_speed(character, scene.options) if flying else speed_of(character, scene.options)
        return actions.move(scene, ACTOR, x, y, sector, run=run, speed=speed)

    def place(self, scene: Scene, x: int, y: int, sector: tuple[int, int]) -> Step:
        return actions.place(scene, ACTOR, x, y, sector)

    def boost(self, scene: Scene, ranks: int) -> Step:
        return upkeep.boost(scene, ranks)

    def plus(self, scene: Scene, target: str) -> Step:
        """A stat or a skill by name in any of the game's languages (`LUK`, `幸运`, `对魔力`), or a Servant's own."""
        stat = written_stat(self.spelling, STATS, target)
        named = stat if stat in STATS else self.spelling("skill", SKILLS, target)
        return upkeep.plus(scene, str(named))

    def territory(self, scene: Scene) -> Step:
        return upkeep.found_territory(scene)

    def spirit_form(self, scene: Scene, leave: bool) -> Step:
        return magecraft.spirit_form(scene, leave)

    def cast(self, scene: Scene, spell: str, params: Mapping[str, Any]) -> Step:
        return magecraft.cast(scene, spell, params)

    def requested(self, scene: Scene, kind: str, given: Mapping[str, Any]) -> Step:
        """A spell cast once the GMs answered (the suggestion's modifier is theirs, R21), or a check or attack."""
        if kind == SPELL_KIND:
            return self.cast(scene, str(given["spell"]), given)
        return super().requested(scene, kind, given)

    def search(self, scene: Scene) -> Step:
        return detection.search(scene)

    def conceal(self, scene: Scene, leave: bool) -> Step:
        return detection.conceal(scene, leave)

    def aim(self, scene: Scene, rounds: int) -> Step:
        return fight.aim(scene, rounds)

    def contradict(self, scene: Scene, ability: str, against: str) -> Step:
        return rulings.contradict(scene, ability, against, self.spelling)

    def status(self, scene: Scene, name: str, on: bool) -> Step:
        return upkeep.status(scene, name, on)

    def template(self, kind: str) -> dict[str, Any]:
        return dict(
            {MASTER: MASTER_TEMPLATE, PUPPET: PUPPET_TEMPLATE, FAMILIAR: FAMILIAR_TEMPLATE}.get(kind, SERVANT_TEMPLATE)
        )

    def template_comments(self, kind: str) -> tuple[str, ...]:
        return tuple(self.template(kind))

    def stat_word(self, stat: str) -> Text:
        return Text(f"stat.{stat}")

    def check_stats_of(self, character: CharacterSnapshot) -> tuple[str, ...]:
        """A Servant's (or a puppet's) five ranks, a Master's six attributes; a familiar has none."""
        if character.kind == FAMILIAR:
            return ()
        return STATS if servant_like(character) else tuple(attribute.upper() for attribute in ATTRIBUTES)

    def binding(self, kind: str) -> Binding | None:
        return Binding(CONTRACT, "master", MASTER) if kind == SERVANT else None

    def build(
        self,
        kind: str,
        data: Mapping[str, Any],
        bound: Mapping[str, CharacterSnapshot],
        dice: DiceSource,
        options: CampaignOptions,
        *,
        gm_run: bool = False,
    ) -> CharacterDraft:
        """R8 for a Master; R9 and R20 for a Servant, whose ranks are kept as its Master made them; a puppet's and a
        familiar's bodies (D33, R21). Pools full."""
        if kind == MASTER:
            sheet = parse_master(data)
            stats = master_stats(sheet)
            pools = {HP: Pool(stats.hp_max, stats.hp_max), MP: Pool(stats.mp_max, stats.mp_max), TEMP_HP: Pool(0, None)}
            return CharacterDraft(sheet.name, MASTER, {"file": sheet.model_dump(mode="json")}, pools, ())
        if kind == FAMILIAR:
            familiar = parse_familiar(data)
            pools = {HP: Pool(FAMILIAR_HP, FAMILIAR_HP), MP: Pool(0, 0), TEMP_HP: Pool(0, None)}
            return CharacterDraft(familiar.name, FAMILIAR, {"file": familiar.model_dump(mode="json")}, pools, ())
        if kind == PUPPET:
            puppet = parse_puppet(data)
            body, ranks = puppet.as_servant(), dict.fromkeys(STATS, puppet.rank)
            sheet_ = {**_servant_sheet(body, ranks), "file": puppet.model_dump(mode="json")}
            stats_ = stats_at(body, ranks, grail_options(options), class_abilities=False)
            pools = {HP: Pool(stats_.hp_max, stats_.hp_max), MP: Pool(0, 0), TEMP_HP: Pool(0, None)}
            return CharacterDraft(puppet.name, PUPPET, sheet_, pools, ())
        servant = parse_servant(written_skills(self.spelling, data))
        master = bound.get(CONTRACT)
        ranks = effective_ranks(servant, master_file(master) if master else None, grail_options(options))
        return CharacterDraft(
            servant.name, SERVANT, _servant_sheet(servant, ranks), _servant_pools(servant, ranks, options), ()
        )

    def gm_only_fields(self, kind: str, sheet: Mapping[str, Any]) -> tuple[str, ...]:
        """R18 「须经过审核」: a Servant's legend ranks, skills and Noble Phantasms, and a Master's signature feat, are
        the GM's to approve."""
        file = sheet["file"]
        if kind in self.gm_kinds:
            return ()
        if kind == MASTER:
            feat = file.get("signature_feat")
            return (f"`signature_feat`: {feat['name']}",) if feat else ()
        legend = " ".join(f"{stat} {file['legend'][stat]}" for stat in STATS)
        fields = [f"`legend`: {legend}"]
        fields += [f"`skills.{index}`: {skill['name']} {skill['rank']}" for index, skill in enumerate(file["skills"])]
        fields += [
            f"`noble_phantasms.{index}`: {np['name']} {np['rank']}" for index, np in enumerate(file["noble_phantasms"])
        ]
        return tuple(fields)

    def editable(self, kind: str, field: str, *, by_gm: bool) -> bool:
        """A GM edits any field but the name and the Master; a player only whether its Servant takes Luck's optional
        rerolls (every other field moves the numbers)."""
        root = field.split(".", 1)[0]
        models: dict[str, type[BaseModel]] = {MASTER: MasterFile, PUPPET: PuppetFile, FAMILIAR: FamiliarFile}
        model = models.get(kind, ServantFile)
        if not by_gm:  # D35: declining Luck's optional rerolls is the player's choice
            return kind == SERVANT and field == "luck_rerolls"
        return root in model.model_fields and root not in ("name", "master")

    def edited_sheet(
        self, character: CharacterSnapshot, file: Mapping[str, Any], options: CampaignOptions, *, by_gm: bool
    ) -> dict[str, Any]:
        """The file validated again; a Servant's ranks derived again from its Master as it now is."""
        if character.kind == MASTER:
            return {"file": parse_master(file).model_dump(mode="json")}
        if character.kind == FAMILIAR:
            return {"file": parse_familiar(file).model_dump(mode="json")}
        if character.kind == PUPPET:
            puppet = parse_puppet(file)
            sheet = _servant_sheet(puppet.as_servant(), dict.fromkeys(STATS, puppet.rank))
            return {**sheet, "file": puppet.model_dump(mode="json")}
        servant = parse_servant(written_skills(self.spelling, file))
        master = character.partner(CONTRACT)
        return _servant_sheet(
            servant, effective_ranks(servant, master_file(master) if master else None, grail_options(options))
        )

    def pool_maxima(self, character: CharacterSnapshot, sheet: Mapping[str, Any]) -> Mapping[str, int | None]:
        if character.kind == MASTER:
            master = master_stats(MasterFile.model_validate(sheet["file"]))
            return {HP: master.hp_max, MP: master.mp_max}
        if character.kind == FAMILIAR:
            return {HP: FAMILIAR_HP, MP: 0}
        ranks = {stat: Rank.parse(sheet["derived"]["ranks"][stat]) for stat in STATS}
        puppet = character.kind == PUPPET
        body = (
            PuppetFile.model_validate(sheet["file"]).as_servant()
            if puppet
            else ServantFile.model_validate(sheet["file"])
        )
        # The pools' maxima do not depend on the campaign's options.
        servant = stats_at(body, ranks, GrailZhOptions(), class_abilities=not puppet)
        return {HP: servant.hp_max, MP: 0 if puppet else servant.mp_max}

    def sheet_lines(self, character: CharacterSnapshot, options: CampaignOptions, *, full: bool) -> list[SheetLine]:
        """Without `full` (a player looking at a rival's or at a character the GMs run) only a Master's type or a
        Servant's class."""
        if character.kind == MASTER:
            return _master_lines(character, full=full)
        if character.kind == FAMILIAR:
            return _familiar_lines(character)
        return _servant_lines(character, options, full=full)

    def check(self, scene: Scene, params: CheckInput) -> Step:
        """R2: d20 (with a Servant's Luck, R1) + the attribute or rank; at least 10 (or the GM's target) succeeds."""
        character = scene.one(ACTOR)
        stat, value = _stat_of(character, params.stat or "")
        d20 = luck_d20(scene.dice, luck_of(character), optional_rerolls=takes_luck_rerolls(character))
        modifiers = [Modifier(f"stat:{stat}", value)]
        if params.modifier:
            modifiers.append(Modifier("situational", params.modifier))
        roll = d20.roll("check", modifiers)
        target = params.target if params.target is not None else 10
        rolled = CheckRolled(
            name=character.name,
            stat=stat,
            total=roll.total,
            target=target,
            success=succeeds(d20, roll.total, target),
            auto=d20.auto,
        )
        return Step(rolls=(roll,), outcomes=(rolled,))

    def attack_actions(self, attacker: CharacterSnapshot) -> list[Choice]:
        # Which attacks a character has does not depend on the campaign's options.
        options = GrailZhOptions()
        return [
            Choice(value, Text(f"attack_choice.{kind}", {"name": name}))
            for value, kind, name in fight.attack_actions(attacker, options)
        ]

    def attack(self, scene: Scene, params: AttackInput) -> Step:
        return fight.attack(scene, cast(fight.GrailAttackInput, params))

    def odds(
        self,
        attacker: CharacterSnapshot,
        defender: CharacterSnapshot,
        params: AttackInput,
        options: CampaignOptions,
        turn: Turn,
    ) -> Odds:
        """By enumeration of every face, Luck's rerolls and Mind's Eye included (R1, R3, R19)."""
        lines = fight.odds(attacker, defender, cast(fight.GrailAttackInput, params), grail_options(options))
        return Odds(lines, Text("odds.footer"))

    def pool_changed(self, scene: Scene, pool: str) -> Step | None:
        """A GM's award meets the rules every other change of HP meets (R5, R16, R19)."""
        step = fight.pool_changed(scene, ACTOR, pool)
        return step if step.effects or step.outcomes else None

    def out_of_play(self, character: CharacterSnapshot) -> str | None:
        return fate_of(character)

    def gone(self, character: CharacterSnapshot) -> bool:
        """Out of the war for good: dead or vanished, not merely down."""
        return self.out_of_play(character) in self.final_fates

    def _gone_now(self, ended: Step) -> Callable[[CharacterSnapshot], bool]:
        """Gone, counting those whose last rounds (`ended`, this very step) ran out: their Servants learn of it at
        once (R16 counts from the death)."""
        died = {outcome.name for outcome in ended.outcomes if isinstance(outcome, fight.Ended | fight.DiedOfWounds)}
        return lambda character: self.gone(character) or character.name in died

    def combat_started(self, scene: Scene) -> Opening | None:
        """R24: initiative, d20 (with Luck) + dex or AGI; then each Servant pays its combat upkeep (R12, R14): one
        that cannot only moves in this fight (D19)."""
        options = grail_options(scene.options)
        fighters = scene.members(FIGHTERS)
        entries = []
        gone = [fighter.id for fighter in fighters if self.gone(fighter)]  # no initiative: they wait at the end
        for fighter in fighters:
            if fighter.id in gone:
                continue
            if servant_like(fighter):
                ranks = derived_ranks(fighter)
                entries.append(InitiativeEntry(fighter.id, ranks["AGI"].n, ranks["LUK"], ranks["LUK"].n, fighter.name))
            else:
                entries.append(
                    InitiativeEntry(fighter.id, master_file(fighter).attribute("dex"), None, 0, fighter.name)
                )
        rolled = initiative(scene.dice, entries)
        names = {fighter.id: fighter.name for fighter in fighters}
        rolls = tuple(roll for _, roll in rolled.rolls)
        # Those in the fight know of it: its noise is for the others (R27).
        fighting = tuple(StatePatch(member(FIGHTERS, index), fight.IN_FIGHT, True) for index in range(len(fighters)))
        step = Step(
            rolls=rolls,
            effects=fighting,
            outcomes=(Initiated(order=[[names[key] for key in group] for group in rolled.order]),),
        )
        for position, fighter in enumerate(fighters):
            if fighter.kind == SERVANT and fate_of(fighter) is None:
                step = step.then(_combat_upkeep(member(FIGHTERS, position), fighter, options))
        return Opening(step, (*(key for group in rolled.order for key in group), *gone))

    def round_started(self, scene: Scene) -> Step | None:
        """R19: a Battle Continuation that ran out with HP below 1 ends in death; R16: a masterless Servant's rounds;
        R13: sustained releases paid again."""
        everyone = scene.members(EVERYONE)
        now = scene.turn.round_number
        plus_ends = [
            upkeep.plus_expired(member(EVERYONE, position), character, now=now)
            for position, character in enumerate(everyone)
        ]
        ended = fight.expired_continuations(scene, EVERYONE, everyone)
        lost = upkeep.masters_lost(scene, EVERYONE, everyone, self._gone_now(ended))
        step = Step.of(
            ended,
            lost,
            upkeep.masterless_rounds(scene, EVERYONE, everyone),
            fight.sustained_costs(scene, EVERYONE, everyone),
            *plus_ends,
            magecraft.shields_expire(scene, EVERYONE, everyone, 0),
            magecraft.flights_paid(scene, EVERYONE, everyone, story_time=False),
            magecraft.reinforcements_end(EVERYONE, everyone, now, story_hours=0),
            # A minute's MP regeneration comes every tenth round of a fight (D8).
            upkeep.regeneration(scene, EVERYONE, everyone, rounds=1, minutes=0 if now % ROUNDS_PER_MINUTE else 1),
        )
        return step if step.effects else None

    def time_passed(self, scene: Scene, hours: int, days: int) -> Step | None:
        """Each day's turn: daily upkeep (R11) and a masterless Servant's days (R16), or its end (D7); a day's rest and
        ritual again."""
        everyone = scene.members(EVERYONE)
        plus_ends = [
            upkeep.plus_expired(member(EVERYONE, position), character, now=None)
            for position, character in enumerate(everyone)
        ]
        passed = hours + upkeep.HOURS_PER_DAY * days
        minutes = passed * 60
        regenerated = upkeep.regeneration(
            scene, EVERYONE, everyone, rounds=minutes * ROUNDS_PER_MINUTE, minutes=minutes, hours=passed
        )
        ended = fight.expired_continuations(scene, EVERYONE, everyone, all_of_them=True)
        step = Step.of(
            ended,
            *plus_ends,
            magecraft.shields_expire(scene, EVERYONE, everyone, minutes),
            regenerated,
            magecraft.barriers_set_up(EVERYONE, everyone, scene.turn.round_number),
            magecraft.flights_paid(scene, EVERYONE, everyone, story_time=True),
            magecraft.reinforcements_end(EVERYONE, everyone, scene.turn.round_number, story_hours=passed),
            upkeep.days_passed(scene, EVERYONE, everyone, passed, self._gone_now(ended)),
        )
        return step if step.effects else None

    def turn_started(self, scene: Scene) -> Step | None:
        """D39 and R26: the Defend stance and a run's lost defence last until the start of their holder's next turn."""
        character = scene.get(CURRENT)
        if character is None:
            return None
        effects = tuple(
            StatePatch(CURRENT, key, None) for key in (DEFENDING, actions.RUNNING_KEY) if key in character.state
        )
        step = Step.of(
            Step(effects=effects),
            actions.committed_turn(CURRENT, character, scene.turn),
            fight.lapsed_aim(CURRENT, character, scene.turn),
        )
        return step if step.effects else None

    def acts_on_own_turn(self, options: CampaignOptions) -> bool:
        """R25: in a fight a character acts on its own turn; reactions (Guard, Mind's Eye) come as waits."""
        return True

    def actions_left(self, character: CharacterSnapshot, turn: Turn) -> tuple[Text, ...]:
        return actions.left(character, turn)

    def combat_ended(self, scene: Scene) -> Step | None:
        effects: list[Effect] = []
        for position, character in enumerate(scene.members(EVERYONE)):
            for key in (
                UPKEEP_UNPAID,
                DEFENDING,
                actions.RUNNING_KEY,
                fight.SUSTAINING,
                BOOST,
                actions.COMMITTED,
                fight.AIMING,
                fight.IN_FIGHT,
            ):
                if key in character.state:
                    effects.append(StatePatch(member(EVERYONE, position), key, None))
        return Step(effects=tuple(effects)) if effects else None


def _master_lines(character: CharacterSnapshot, *, full: bool) -> list[SheetLine]:
    sheet = master_file(character)
    lines = [SheetLine("sheet.master_type", Text(f"master_type.{sheet.master_type}"))]
    if not full:
        return lines
    stats = master_of(character)
    attributes = [
        Text("sheet.value", {"name": Text(f"attribute.{a}"), "value": sheet.attribute(a)}) for a in ATTRIBUTES
    ]
    lines.append(SheetLine("sheet.attributes", joined(attributes), inline=False))
    moves: dict[str, str | int | Text] = {
        "speed": stats.speed,
        "run": stats.run,
        "melee": str(stats.melee_damage),
        "defense": stats.defense,
    }
    lines.append(SheetLine("sheet.moves", Text("sheet.master_moves", moves), inline=False))
    spells = [Text(f"spell.{spell}") for spell in sheet.spells]
    lines.append(SheetLine("sheet.spells", joined(spells) if spells else "—", inline=False))
    if sheet.signature_feat is not None:
        feat = sheet.signature_feat
        shown = f"{feat.name} ({feat.damage})" if feat.damage else feat.name
        lines.append(
            SheetLine("sheet.signature_feat", f"{shown}: {feat.effect}" if feat.effect else shown, inline=False)
        )
    if stats.grenades:
        left = max(0, stats.grenades - int(character.state.get(fight.GRENADES_THROWN, 0) or 0))
        lines.append(SheetLine("sheet.grenades", Text("sheet.grenades_left", {"left": left, "total": stats.grenades})))
    return lines


def _familiar_lines(character: CharacterSnapshot) -> list[SheetLine]:
    """Nothing about a familiar is secret: it is what the rules make every familiar."""
    familiar = FamiliarFile.model_validate(character.sheet["file"])
    moves = Text("sheet.teleports") if familiar.teleports else Text("sheet.speed", {"speed": FAMILIAR_SPEED})
    return [SheetLine("sheet.movement", moves), SheetLine("sheet.familiar", Text("sheet.familiar_rules"), inline=False)]


def _servant_lines(character: CharacterSnapshot, options: CampaignOptions, *, full: bool) -> list[SheetLine]:
    servant = servant_file(character)
    puppet = character.kind == PUPPET
    kind = Text("sheet.puppet") if puppet else Text(f"class.{servant.servant_class}")
    lines = [SheetLine("sheet.class", kind)]
    if not full:
        return lines
    stats = servant_of(character, options)
    ex_value = grail_options(options).ex_value
    ranks = [
        Text(
            "sheet.rank",
            {
                "name": Text(f"stat.{stat}"),
                "rank": str(stats.ranks[stat]),
                "value": stats.ranks[stat].magnitude(ex_value),
            },
        )
        for stat in STATS
    ]
    lines.append(SheetLine("sheet.ranks", joined(ranks), inline=False))
    ranged = (
        Text("sheet.ranged", {"bonus": f"{stats.ranged_bonus:+d}", "damage": str(stats.ranged_damage)})
        if (stats.ranged_bonus is not None)
        else Text("sheet.no_ranged")
    )
    lines.append(
        SheetLine(
            "sheet.moves",
            Text(
                "sheet.servant_moves",
                {
                    "speed": stats.speed,
                    "run": stats.run,
                    "melee": f"{stats.melee_bonus:+d}",
                    "damage": str(stats.melee_damage),
                    "ranged": ranged,
                    "defense": stats.defense,
                },
            ),
            inline=False,
        )
    )
    if puppet:  # 「视作英灵」 on the Caster's row, with nothing of a Servant's own
        return lines
    skills = [_skill_text(skill, ex_value) for skill in stats.skills]
    lines.append(SheetLine("sheet.skills", joined_lines(skills) if skills else "—", inline=False))
    if servant.spells:
        lines.append(
            SheetLine("sheet.spells", joined([Text(f"spell.{spell}") for spell in servant.spells]), inline=False)
        )
    phantasms = [_phantasm_text(np, ex_value) for np in servant.noble_phantasms]
    lines.append(SheetLine("sheet.phantasms", joined_lines(phantasms) if phantasms else "—", inline=False))
    lines.append(
        SheetLine("sheet.upkeep", Text("sheet.upkeep_costs", {"daily": stats.daily_cost, "combat": stats.combat_cost}))
    )
    if character.state.get(UPKEEP_UNPAID):
        lines.append(SheetLine("sheet.state", Text("sheet.upkeep_unpaid")))
    return lines


def _servant_sheet(servant: ServantFile, ranks: Mapping[Stat, Rank]) -> dict[str, Any]:
    return {"file": servant.model_dump(mode="json"), "derived": {"ranks": {stat: str(ranks[stat]) for stat in STATS}}}


def _servant_pools(servant: ServantFile, ranks: Mapping[Stat, Rank], options: CampaignOptions) -> dict[str, Pool]:
    stats = stats_at(servant, ranks, grail_options(options))
    floor = BATTLE_CONTINUATION_HP_FLOOR if stats.skill("battle_continuation") else 0
    return {HP: Pool(stats.hp_max, stats.hp_max, floor), MP: Pool(stats.mp_max, stats.mp_max), TEMP_HP: Pool(0, None)}


def _combat_upkeep(role: str, servant: CharacterSnapshot, options: GrailZhOptions) -> Step:
    cost = servant_of(servant, options).combat_cost
    try:
        effects, payment = upkeep.servant_pays(
            role, servant, cost, servant.partner(CONTRACT), forced=False, helped=options.auto_transfer
        )
    except RuleError:
        unpaid = UpkeepPaid(name=servant.name, cost=cost, from_master=0, paid=False, secret=hidden_sheet(servant))
        return Step(effects=(StatePatch(role, UPKEEP_UNPAID, True),), outcomes=(unpaid,))
    paid = UpkeepPaid(
        name=servant.name, cost=cost, from_master=payment.from_master, paid=True, secret=hidden_sheet(servant)
    )
    return Step(effects=tuple(effects), outcomes=(paid,))


def joined_lines(parts: Sequence[Text | str]) -> Text | str:
    return joined(parts, "list.lines")


def _phantasm_text(np: NoblePhantasm, ex_value: int) -> Text:
    """A Noble Phantasm on the sheet: rank, scope, mode, release cost, how it strikes and its damage (T8 unless the
    GM set one), and its effect as written."""
    resolved = (
        Text("resolution.save", {"stat": Text(f"stat.{np.save_stat}")})
        if np.resolution == "save"
        else Text(f"resolution.{np.resolution}")
    )
    said: dict[str, str | int | Text] = {
        "name": np.name,
        "rank": str(np.rank),
        "scope": Text(f"scope.{np.scope}"),
        "mode": Text(f"mode.{np.mode}"),
        "cost": release_cost(np),
        "resolution": resolved,
        "damage": str(np.damage or fight.burst_damage(np.rank, ex_value)),
    }
    line = Text("sheet.phantasm", said)
    return Text("sheet.with_effect", {"line": line, "effect": np.effect}) if np.effect else line


def _skill_text(skill: ServantSkill, ex_value: int) -> Text:
    """A skill on the sheet with what it does at its rank (T4); a Servant's own with its effect as written."""
    x = skill.rank.magnitude(ex_value)
    target = skill.target
    shown_target: Text | str = Text(f"stat.{target}") if target in STATS else target or "—"
    said: dict[str, str | int | Text] = {
        "x": x,
        "five_x": 5 * x,
        "target": shown_target,
        "floor": -10 * (x - 1),
        "range": 100 * x,
        "minus3": f"{x - 3:+d}" if x != 3 else "",
        "counter": f"{x - 6:+d}",
        "threshold": 10 + 5 * x,
        "days": INDEPENDENT_ACTION_DAYS[skill.rank.n],
    }
    known = skill.name in SKILLS
    named: Text | str = Text(f"skill.{skill.name}") if known else skill.name
    effect: Text | str = Text(f"skill_effect.{skill.name}", said) if known else skill.effect or "—"
    key = "sheet.class_skill" if skill.from_class else "sheet.skill"
    return Text(key, {"name": named, "rank": str(skill.rank), "effect": effect})
