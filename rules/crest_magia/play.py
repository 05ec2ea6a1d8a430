"""Crest Magia on Discord: characters and their pools, action checks with boons and banes, and Destiny Points
at each session's start (rules in `rules/crest_magia`).

A character's stored sheet is `{"file": <the validated file>}`; its pools are one per stat (HP, up to the
die), `consequence` (0 none .. 5 dead) and, for players, `destiny_points`. A stat that reached 0 HP is in
the state's `depleted` list while the `d4_until` option keeps it on a d4, however it was emptied.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property
from typing import Any, cast

from pydantic import Field, ValidationError, ValidationInfo, field_validator

from rules.crest_magia import fight, healing
from rules.crest_magia.destiny import (
    NARRATIVE_USES,
    SPEND_COST,
    consequence_removed,
    reallocated,
    require_point,
    restored,
    session_points,
)
from rules.crest_magia.model import (
    BOOK_LADDERS,
    CONSEQUENCES,
    DEAD,
    SKILLS,
    STATS,
    Skill,
    Stat,
)
from rules.crest_magia.odds import action_outcomes, hit_chance
from rules.crest_magia.options import CrestMagiaOptions
from rules.crest_magia.rolls import ActionRoll, ActionSpec, Score, check_succeeds, contest
from rules.crest_magia.sheets import CharacterFile, Crest, parse_character, stats_missing
from rules.crest_magia.states import (
    CONTEST_REQUEST,
    CONTEST_SKILL,
    CONTEST_STAT,
    DESTINY_APPROVAL,
    HEAL_WAIT,
    OVERFLOW_WAIT,
    SKILL_WAIT,
    STAT_WAIT,
    WITHSTAND_WAIT,
    Checking,
    CheckReroll,
    ContestRequest,
    ContestSkill,
    ContestStat,
    DestinyApproval,
    moved,
)
from rules.dice import DiceSource
from rules.exchange import (
    Answer,
    Audience,
    Effect,
    Modifier,
    Option,
    Outcome,
    Pause,
    PoolDelta,
    PoolSet,
    RuleError,
    StatePatch,
    Step,
    Text,
    UserRef,
    Wait,
    member,
)
from rules.options import CampaignOptions
from rules.play import (
    ACTOR,
    ATTACK,
    ATTACKER,
    CHECK,
    EVERYONE,
    GM_TERM,
    OPPONENT,
    Asking,
    AttackInput,
    CharacterDraft,
    CharacterSnapshot,
    CheckInput,
    Choice,
    CommandInput,
    Odds,
    Play,
    Pool,
    Preset,
    Resumes,
    Scene,
    SheetLine,
    Turn,
)
from rules.sheets import SheetError, validation_problems
from rules.words import joined, spelling_of

RULESET_ID = "crest_magia"
CHARACTER = "bearer"  # a crest bearer: player characters, NPCs and creatures alike
CONSEQUENCE = fight.CONSEQUENCE
DESTINY = fight.DESTINY
MAX_BOONS = 20
# What a player may change with /character edit: the names of their weapons and specialties. A crest's name is
# what it is (T8): another one is a crest the GMs approve.
PLAYER_EDITABLE = re.compile(r"^(weapons|specialties)\.\d+\.name$")

# The example file; the names a player replaces are catalog texts, in the campaign's language. The crest keeps the
# rulebook's name: that name is what gives it the book's ladder (T8).
TEMPLATE: dict[str, Any] = {
    "name": "Aiko",
    "dice": {"Physique": "d8", "Dexterity": "d6", "Intelligence": "d4", "Wit": "d6"},
    "skills": {
        "Melee": 3,
        "Athletics": 3,
        "Awareness": 3,
        "Agility": 2,
        "Determination": 2,
        "Medicine": 2,
        "Lore": 2,
        "Convince": 1,
        "Craft": 1,
        "Investigation": 1,
        "Ranged": 1,
        "Unarmed": 1,
    },
    "specialties": [
        {"name": Text("example.swords"), "skill": "Melee"},
        {"name": Text("example.history"), "skill": "Lore"},
        {"name": Text("example.sight"), "skill": "Awareness"},
    ],
    "crests": [{"name": "Crest of Flames", "category": "magical", "damage_type": "fire"}],
    "weapons": [{"name": Text("example.sword"), "kind": "melee", "damage_type": "slashing"}],
    "armor": {"name": Text("example.leather")},
}


class _ActionDetails(CommandInput):
    """The details every action roll takes, and the stats and skills a player names in any of the ruleset's
    languages."""

    specialty: str | None = Field(None, max_length=100, description="param.specialty")
    # R2: "you as the GM could consider to grant" them: a player's are asked of the GMs.
    boons: int = Field(0, ge=0, le=MAX_BOONS, description="param.boons", json_schema_extra=GM_TERM)
    banes: int = Field(0, ge=0, le=MAX_BOONS, description="param.banes", json_schema_extra=GM_TERM)

    @field_validator("skill", mode="before", check_fields=False)
    @classmethod
    def _skill_name(cls, value: object, info: ValidationInfo) -> object:
        return spelling_of(info)("skill", SKILLS, value)

    @field_validator("stat", mode="before", check_fields=False)
    @classmethod
    def _stat_name(cls, value: object, info: ValidationInfo) -> object:
        return spelling_of(info)("stat", STATS, value)


class CrestCheckInput(CheckInput, _ActionDetails):
    skill: Skill | None = Field(None, description="param.skill")


class CrestAttackInput(AttackInput, _ActionDetails):
    stat: Stat | None = Field(None, description="param.attack_stat")
    skill: Skill | None = Field(None, description="param.attack_skill")
    form: str | None = Field(None, max_length=100, description="param.form")
    modifier: int = Field(0, ge=-20, le=20, description="param.modifier", json_schema_extra=GM_TERM)

    @field_validator("action", mode="before")
    @classmethod
    def _bare_hands(cls, value: object, info: ValidationInfo) -> object:
        """Bare hands in words, in any of the ruleset's languages, are the attack /attack offers by that name (a
        weapon of that name is still `unarmed|<name>`, as offered)."""
        return fight.BARE_HANDS if spelling_of(info)("attack_choice", ("bare_hands",), value) == "bare_hands" else value


class CheckRolled(Outcome):
    event = "check"
    name: str
    stat: str
    skill: str | None
    specialty: str | None
    total: int
    target: int | None
    success: bool | None
    crit: str | None
    destiny_point: bool  # a player's critical success earns one (R3)
    rerolled: bool = False  # rolled again for a Destiny Point


class ContestDecided(Outcome):
    event = "contest"
    name: str
    opponent: str
    stat: str
    skill: str | None
    total: int
    opposed: int
    crit: str | None  # the passive side's
    won: bool


class StandingSet(Outcome):
    event = "standing.set"
    names: list[str]
    everyone: bool
    boons: int
    banes: int
    modifier: int
    # Who still has the other standing, which keeps counting: their own (for everyone's), or everyone's.
    kept: list[str] = Field(default_factory=list)


class DestinySpent(Outcome):
    event = "destiny.spent"
    name: str
    use: str
    stat: str | None
    to: str | None
    amount: int | None
    note: str | None
    approved_by: int | None


class DestinyRequested(Outcome):
    event = "destiny.requested"
    name: str
    use: str
    note: str | None


class DestinyDenied(Outcome):
    event = "destiny.denied"
    name: str
    use: str


class DestinyReset(Outcome):
    event = "destiny.session"
    names: list[str]
    points: int


class CrestMagiaPlay(Play):
    kinds: tuple[str, ...] = (CHARACTER,)
    pool_names: tuple[str, ...] = (*(fight.pool(stat) for stat in STATS), CONSEQUENCE, DESTINY)
    check_stats: tuple[str, ...] = STATS
    template_note_key = "crest_magia.template_note"
    check_input = CrestCheckInput
    attack_input = CrestAttackInput
    opposed_checks = True
    # A GM answers these in advance for a creature (`/gm auto`), so one attack on it is not four waits.
    presets = (
        Preset(
            STAT_WAIT,
            Text("preset.defence_stat"),
            tuple(Choice(fight.pool(stat), Text(f"defend.stat.{stat}")) for stat in STATS),
        ),
        # The creature's own skills and its own armour and crests: `preset_choices`.
        Preset(SKILL_WAIT, Text("preset.defence_skill"), ()),
        Preset(WITHSTAND_WAIT, Text("preset.withstand"), ()),
        Preset(
            OVERFLOW_WAIT,
            Text("preset.overflow"),
            tuple(Choice(fight.pool(stat), Text(f"defend.stat.{stat}")) for stat in STATS),
        ),
        # C19: the healed character places the HP; a pool with no room left asks again.
        Preset(
            HEAL_WAIT,
            Text("preset.heal"),
            tuple(Choice(fight.pool(stat), Text(f"defend.stat.{stat}")) for stat in STATS),
        ),
    )

    @cached_property
    def resumes(self) -> Resumes:
        return Resumes(
            self.destiny_approval,
            self.check_reroll,
            self.contest_stat,
            self.contest_skill,
            self.contest_skill_decided,
            healing.placed,
            fight.awaiting_defence,
            fight.helpless_stat,
            fight.defence_rerolled,
            fight.defence_skill_decided,
            fight.defence_skill,
            fight.withstand_chosen,
            fight.overflow_chosen,
        )

    def template(self, kind: str) -> dict[str, Any]:
        return dict(TEMPLATE)

    def template_comments(self, kind: str) -> tuple[str, ...]:
        return tuple(TEMPLATE)

    def preset_choices(self, preset: Preset, character: CharacterSnapshot) -> tuple[Choice, ...]:
        """A creature's own armour and crests to withstand with, and its own skills to defend with."""
        if preset.wait == WITHSTAND_WAIT:
            return tuple(Choice(source.key, source.label) for source in fight.withstand_choices(character))
        if preset.wait == SKILL_WAIT:
            return tuple(Choice(option.key, option.label) for option in fight.skill_options(fight.sheet_of(character)))
        return preset.options

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
        """R12: nothing is rolled; each stat's pool is its die, full. The creation budget is the players': what the
        GMs run (a dragon with a d12) keeps the caps alone. A campaign is always within a session (the first one from
        its start), so a new player character joins it with the session's Destiny Points."""
        sheet = parse_character(data, fight.crest_options(options), creation=not gm_run)
        pools = {fight.pool(stat): Pool(sheet.dice[stat], sheet.dice[stat]) for stat in STATS}
        pools[CONSEQUENCE] = Pool(0, DEAD)
        # Destiny Points are the players' (C31).
        pools[DESTINY] = Pool(0 if gm_run else session_points(fight.crest_options(options)), None)
        return CharacterDraft(sheet.name, CHARACTER, {"file": sheet.model_dump(mode="json")}, pools, ())

    def editable(self, kind: str, field: str, *, by_gm: bool) -> bool:
        """A GM edits any field but the name (advancement, C29); a player renames weapons, crests and specialties."""
        if by_gm:
            root = field.split(".", 1)[0]
            return root in CharacterFile.model_fields and root != "name"
        return PLAYER_EDITABLE.match(field) is not None

    def edited_sheet(
        self, character: CharacterSnapshot, file: Mapping[str, Any], options: CampaignOptions, *, by_gm: bool
    ) -> dict[str, Any]:
        """The file checked against the caps (T7) and the crest slots; not the creation budget, which an
        advancement leaves behind. A crest acquired after creation starts at rank 1 (R13) unless the GM gives
        one."""
        had = {crest["name"].casefold() for crest in character.sheet["file"].get("crests", [])}
        crests = [
            crest
            if not isinstance(crest, Mapping) or "rank" in crest or str(crest.get("name", "")).casefold() in had
            else {**crest, "rank": 1}
            for crest in file.get("crests", [])
        ]
        try:
            sheet = CharacterFile.model_validate({**file, "crests": crests} if "crests" in file else file)
        except ValidationError as error:
            raise SheetError(validation_problems(error)) from error
        if missing := stats_missing(sheet):
            raise SheetError([missing])
        return {"file": sheet.model_dump(mode="json")}

    def pool_maxima(self, character: CharacterSnapshot, sheet: Mapping[str, Any]) -> Mapping[str, int | None]:
        """A stat's HP pool is its die (T1): advancing a die to d10 makes a pool of 10, its current HP kept."""
        dice = CharacterFile.model_validate(sheet["file"]).dice
        return {fight.pool(stat): dice[stat] for stat in STATS}

    def pool_changed(self, scene: Scene, pool: str) -> Step | None:
        """C17: a pool a GM empties (or fills) keeps or loses its d4 as one an attack empties."""
        character = scene.one(ACTOR)
        depleted = fight.depleted_after(character, fight.hp_of(character), fight.crest_options(scene.options))
        return None if depleted is None else Step(effects=(StatePatch(ACTOR, fight.DEPLETED, depleted or None),))

    def gm_only_fields(self, kind: str, sheet: Mapping[str, Any]) -> tuple[str, ...]:
        """C10, C27 and T8: weapon and armour ratings, item crests, crest ladders and crests of a player's own
        ("Feel free to make your own": with the GM, who judges what it can do) are the GM's to set."""
        file = sheet["file"]
        crests = CharacterFile.model_validate(file).crests
        fields = [
            f"`weapons.{index}.rating`: {weapon['rating']}"
            for index, weapon in enumerate(file["weapons"])
            if weapon["rating"]
        ]
        if file.get("armor") and file["armor"]["rating"]:
            fields.append(f"`armor.rating`: {file['armor']['rating']}")
        fields += [f"`item_crests.{index}`: {crest['name']}" for index, crest in enumerate(file["item_crests"])]
        fields += [f"`crests.{index}`: {crest.name}" for index, crest in enumerate(crests) if not crest.from_the_book]
        fields += [f"`crests.{index}.ladder`" for index, crest in enumerate(crests) if crest.ladder]
        return tuple(fields)

    def sheet_lines(self, character: CharacterSnapshot, options: CampaignOptions, *, full: bool) -> list[SheetLine]:
        consequence = character.pools[CONSEQUENCE].current
        lines = [SheetLine("sheet.consequence", Text(f"consequence.{CONSEQUENCES[consequence]}"))]
        if not full:  # what the fiction shows of a character the GMs run: its consequence
            return lines
        sheet = fight.sheet_of(character)
        rules_options = fight.crest_options(options)
        dice = []
        for stat in STATS:
            rolled = fight.rolled_die(character, stat, rules_options)
            shown = f"d{sheet.dice[stat]}" if rolled == sheet.dice[stat] else f"d{sheet.dice[stat]} → d{rolled}"
            dice.append(Text("sheet.stat_die", {"stat": Text(f"stat.{stat}"), "die": shown}))
        lines.append(SheetLine("sheet.dice", joined(dice), inline=False))
        ranked = sorted(sheet.skills.items(), key=lambda item: (-item[1], item[0]))
        skills = [
            Text("sheet.skill_rank", {"skill": Text(f"skill.{skill}"), "rank": rank}) for skill, rank in ranked if rank
        ]
        lines.append(SheetLine("sheet.skills", joined(skills), inline=False))
        specialties = [
            Text("sheet.specialty", {"name": s.name, "skill": Text(f"skill.{s.skill}"), "rank": s.rank})
            for s in sheet.specialties
        ]
        lines.append(SheetLine("sheet.specialties", joined(specialties), inline=False))
        crests = [_crest_text(crest, None) for crest in sheet.crests]
        crests += [_crest_text(item, fight.item_uses_left(character, item)) for item in sheet.item_crests]
        lines.append(SheetLine("sheet.crests", joined(crests), inline=False))
        weapons = [f"{weapon.name} ({weapon.rating})" for weapon in sheet.weapons]
        armor = f"{sheet.armor.name} ({sheet.armor.rating})" if sheet.armor else ""
        lines.append(SheetLine("sheet.equipment", ", ".join([*weapons, armor] if armor else weapons), inline=False))
        if sheet.weaknesses or sheet.resistances:
            weak, resistant = ", ".join(sheet.weaknesses) or "—", ", ".join(sheet.resistances) or "—"
            types = Text("sheet.weak_and_resistant", {"weak": weak, "resistant": resistant})
            lines.append(SheetLine("sheet.damage_types", types))
        held = [key for key in (fight.STANDING, fight.STANDING_EVERYONE) if key in character.state]
        if len(held) == 1:
            lines.append(SheetLine("sheet.standing", _standing_values(fight.standing(character, *held))))
        elif held:  # its own and everyone's, each by its name
            lines.append(
                SheetLine(
                    "sheet.standing",
                    joined(
                        [
                            Text(f"standing.part_{key}", {"values": _standing_values(fight.standing(character, key))})
                            for key in held
                        ]
                    ),
                )
            )
        return lines

    def check(self, scene: Scene, params: CheckInput) -> Step:
        """R1/R4: the stat the GM called for, the skill and the best fitting specialty, boons and banes, and the GM's
        target if there is one. Criticals for player characters (everyone with `npc_crits`, C4)."""
        given = cast(CrestCheckInput, params)
        character = scene.one(ACTOR)
        stat = cast(Stat, given.stat)
        if given.against is not None and given.target is not None:
            raise RuleError("contest_has_no_target")
        sheet = fight.sheet_of(character)
        options = fight.crest_options(scene.options)
        modifiers: list[Modifier] = []
        # A specialty named alone brings its skill along.
        specialty = None if given.specialty is None else sheet.specialty(given.skill, given.specialty)
        skill = specialty.skill if specialty else given.skill
        if skill is not None:
            modifiers.append(Modifier(f"skill:{skill}", sheet.skill(skill)))
        if specialty is not None:
            modifiers.append(Modifier(f"specialty:{specialty.name}", specialty.rank))
        if given.modifier:
            modifiers.append(Modifier("gm", given.modifier))
        standing = fight.standing(character)
        spec = ActionSpec(
            stat,
            fight.rolled_die(character, stat, options),
            (*modifiers, *standing.modifiers()),
            given.boons + standing.boons,
            given.banes + standing.banes,
            crits=not character.gm_run or options.npc_crits,
        )
        state = Checking(spec=spec, skill=skill, specialty=specialty.name if specialty else None, target=given.target)
        return _checked(scene, spec.roll(scene.dice, options), state, options)

    def check_reroll(self, scene: Scene, state: CheckReroll, answer: Answer) -> Step:
        """A check's roll let stand (nothing more happens but a critical's word to the GMs), or rolled again for a
        Destiny Point (C30)."""
        return _check_rerolled(scene, state, answer)

    def contest_stat(self, scene: Scene, state: ContestStat, answer: Answer) -> Step:
        """The opposed check's open step answered: the active roll rolled again, or the passive side's stat, and
        now its skill."""
        if answer.wait == fight.REROLL_WAIT:
            return _check_rerolled(scene, state, answer)
        opponent = scene.one(OPPONENT)
        stat = fight.stat_answered(answer)
        prompt = Text("contest.which_skill", {"opponent": opponent.name, "stat": Text(f"stat.{stat}")})
        wait = Wait(CONTEST_SKILL, Audience.character(OPPONENT), prompt, fight.skill_options(fight.sheet_of(opponent)))
        # The active roll stands now that the other side answers it.
        carried = moved(state, ContestSkill, stat=stat)
        return Step.of(_check_narrative(scene, state), pause=Pause(carried, (wait,)))

    def contest_skill(self, scene: Scene, state: ContestSkill, answer: Answer) -> Step:
        """R4 and C22: the passive side's roll, as a Defense Roll is made (R6: a skill other than the usual ones, the
        check's own included, waits for a GM to agree); the active side wins only by exceeding it."""
        options = fight.crest_options(scene.options)
        actor, opponent = scene.get(ACTOR), scene.get(OPPONENT)
        if actor is None or opponent is None:
            raise RuleError("fighter_gone")
        stat = state.stat
        spec, skill = fight.passive_roll(opponent, stat, answer, options)
        if fight.needs_agreement(opponent, skill, fight.usual_defence_skills(state.skill), answer, options):
            said: dict[str, str | int | Text] = {
                "name": opponent.name,
                "skill": Text(f"skill.{skill}"),
                "actor": actor.name,
            }
            wait = fight.gm_request(CONTEST_REQUEST, "contest_request", said, options)
            return Step(pause=Pause(moved(state, ContestRequest, asked=answer.option), (wait,)))
        roll = spec.roll(scene.dice, options)
        decided = ContestDecided(
            name=actor.name,
            opponent=opponent.name,
            stat=stat,
            skill=skill,
            total=state.active.total,
            opposed=roll.total,
            crit=roll.crit,
            won=contest(state.active, roll, options),
        )
        point = fight.earned(OPPONENT, opponent, roll.crit)
        told = fight.narrative(OPPONENT, opponent, roll.crit, Text("narrative.opposing", {"name": actor.name}))
        return Step(rolls=roll.rolls(), outcomes=(decided,)).then(point).then(told)

    def contest_skill_decided(self, scene: Scene, state: ContestRequest, answer: Answer) -> Step:
        """The GMs agree to the passive side's skill (it is rolled, as a GM's own choice is), or not (it picks among
        the usual ones)."""
        if answer.option == fight.GRANT:
            return self.contest_skill(scene, state, Answer(CONTEST_SKILL, state.asked, by=answer.by, forced=True))
        opponent = scene.get(OPPONENT)
        if opponent is None:
            raise RuleError("fighter_gone")
        prompt = Text("contest.which_usual_skill", {"opponent": opponent.name, "stat": Text(f"stat.{state.stat}")})
        usual = fight.skill_options(fight.sheet_of(opponent), fight.usual_defence_skills(state.skill))
        wait = Wait(CONTEST_SKILL, Audience.character(OPPONENT), prompt, usual)
        return Step(pause=Pause(moved(state, ContestSkill), (wait,)))

    def attack_actions(self, attacker: CharacterSnapshot) -> list[Choice]:
        return [
            Choice(value, fight.means_words(kind, name))
            for value, kind, name in fight.attack_actions(fight.sheet_of(attacker))
        ]

    def attack(self, scene: Scene, params: AttackInput) -> Step:
        """R6: the Attack Roll, with the stat and skill named (a player's other than the usual ones once the GMs
        agreed to them: `asking`)."""
        given = cast(CrestAttackInput, params)
        return fight.attack(
            scene,
            given.action,
            given.stat,
            given.skill,
            given.specialty,
            given.form,
            given.boons,
            given.banes,
            given.modifier,
            fight.crest_options(scene.options),
        )

    def asking(self, scene: Scene, kind: str, params: CommandInput) -> Asking:
        """R2 and R6: the boons, banes and modifiers a player gives are asked of the GMs; so is an attack's stat or
        skill other than the weapon's or the crest's (R1: "if the player can rationalize it and the GM agrees"),
        unless `free_stat_choice`. Refused, or unanswered for `boon_request_minutes`, the roll goes ahead without
        them: with the usual stat and skill, and a specialty only if it is not of the skill refused."""
        options = fight.crest_options(scene.options)
        deadline = options.boon_request_minutes * 60
        if kind == CHECK:
            check = cast(CrestCheckInput, params)
            stat = Text(f"stat.{check.stat}")
            what = (
                Text("check.with_skill", {"stat": stat, "skill": Text(f"skill.{check.skill}")})
                if (check.skill)
                else stat
            )
            return Asking(Text("request.on_check", {"stat": what}), deadline_seconds=deadline)
        given = cast(CrestAttackInput, params)
        sheet = fight.sheet_of(scene.one(ATTACKER))
        made_with = fight.with_form(sheet, fight.means(sheet, given.action), given.form)
        usual_stat, usual_skill = made_with.stat, made_with.skill
        other_stat = given.stat not in (None, usual_stat) and not options.free_stat_choice
        other_skill = given.skill not in (None, usual_skill) and not options.free_stat_choice
        asks: list[Text] = []
        if other_stat:
            asks.append(Text("request.stat", {"stat": Text(f"stat.{given.stat}"), "usual": Text(f"stat.{usual_stat}")}))
        if other_skill:
            asks.append(
                Text("request.skill", {"skill": Text(f"skill.{given.skill}"), "usual": Text(f"skill.{usual_skill}")})
            )
        refused = given.model_copy(
            update={
                **({"stat": None} if other_stat else {}),
                **({"skill": None, "specialty": None} if other_skill else {}),
            }
        )
        return replace(
            super().asking(scene, ATTACK, params), asks=tuple(asks), refused=refused, deadline_seconds=deadline
        )

    def odds(
        self,
        attacker: CharacterSnapshot,
        defender: CharacterSnapshot,
        params: AttackInput,
        options: CampaignOptions,
        turn: Turn,
    ) -> Odds:
        """The exact chance the attack hits, for each stat the defender could defend with (with its best skill),
        from every face of every die, the boons' and banes' d4s included."""
        given = cast(CrestAttackInput, params)
        rules_options = fight.crest_options(options)
        made_with = fight.means(fight.sheet_of(attacker), given.action)
        if given.skill is not None:  # as if the GMs agreed to it
            made_with = made_with.model_copy(update={"skill": given.skill})
        stat = given.stat or made_with.stat
        modifiers = fight.attack_modifiers(fight.sheet_of(attacker), made_with, given.specialty, rules_options)
        standing, guard = fight.standing(attacker), fight.standing(defender)
        bonus = sum(modifier.value for modifier in modifiers) + given.modifier + standing.modifier
        net = given.boons - given.banes + standing.boons - standing.banes
        attacking = action_outcomes(
            fight.rolled_die(attacker, stat, rules_options),
            bonus,
            net,
            rules_options,
            crits=not attacker.gm_run or rules_options.npc_crits,
        )
        guard_net = guard.boons - guard.banes if rules_options.defender_boons else 0
        sheet = fight.sheet_of(defender)
        # The defence a defender may use without asking a GM (all of them with `free_stat_choice`).
        usable = set(SKILLS) if rules_options.free_stat_choice else fight.usual_defence_skills(made_with.skill)
        options_: list[tuple[int, Text | str]] = [(0, "—")]
        options_ += [(rank, Text(f"skill.{skill}")) for skill, rank in sheet.skills.items() if skill in usable]
        options_ += [
            (
                sheet.skill(s.skill) + s.rank,
                Text("defend.specialty_name", {"skill": Text(f"skill.{s.skill}"), "specialty": s.name}),
            )
            for s in sheet.specialties
            if s.skill in usable
        ]
        best, named = max(options_, key=lambda option: option[0])
        lines = []
        for defending in STATS:
            defence = action_outcomes(
                fight.rolled_die(defender, defending, rules_options),
                best + guard.modifier,
                guard_net,
                rules_options,
                crits=not defender.gm_run or rules_options.npc_crits,
            )
            label = (
                Text("odds.defence", {"stat": Text(f"stat.{defending}"), "skill": named, "rank": best})
                if (best)
                else Text("odds.defence_no_skill", {"stat": Text(f"stat.{defending}")})
            )
            lines.append((label, hit_chance(attacking, defence, rules_options)))
        return Odds(tuple(lines), Text("odds.footer"))

    # What only Crest Magia has, for its own commands (bot.rulesets.crest_magia.cog).
    def set_standing(self, scene: Scene, role: str, boons: int, banes: int, modifier: int) -> Step:
        """A GM's boons, banes and modifier that stay on the rolls of a character (or of everyone in the scene)
        until a GM clears them: in play by post the GM is rarely there when a player rolls. All zero clears them.
        A character's own standing and the one on everyone are kept apart, and both count (a scene's bane beside one
        character's boon): setting or clearing one leaves the other as it is."""
        characters = scene.members(role)
        everyone = role == EVERYONE
        kinds = (fight.STANDING, fight.STANDING_EVERYONE)
        key, other = reversed(kinds) if everyone else kinds
        value = {"boons": boons, "banes": banes, "modifier": modifier} if boons or banes or modifier else None
        if value is None and not any(key in character.state for character in characters):
            raise RuleError("no_standing_everyone" if everyone else "no_standing")
        effects = tuple(StatePatch(member(role, position), key, value) for position in range(len(characters)))
        set_ = StandingSet(
            names=[character.name for character in characters],
            everyone=everyone,
            boons=boons,
            banes=banes,
            modifier=modifier,
            kept=[character.name for character in characters if other in character.state],
        )
        return Step(effects=effects, outcomes=(set_,))

    def spend_destiny(
        self,
        scene: Scene,
        use: str,
        stat: str | None,
        to: str | None,
        amount: int | None,
        note: str | None,
        *,
        approved_by: int | None = None,
    ) -> Step:
        """R11: one Destiny Point (C21) for what the rules carry out at once, or for a narrative use the GM
        adjudicates (spent when a GM approves it, `request_destiny`)."""
        character = scene.one(ACTOR)
        require_point(character.pools[DESTINY].current)
        options = fight.crest_options(scene.options)
        effects: list[Effect] = [PoolDelta(ACTOR, DESTINY, -SPEND_COST)]
        if use == "remove_consequence":
            current = character.pools[CONSEQUENCE].current
            effects.append(PoolDelta(ACTOR, CONSEQUENCE, consequence_removed(current, DEAD) - current))
        elif use in ("restore_hp", "reallocate_hp"):
            source = _stat_named(stat)
            hp = fight.hp_of(character)
            maximum = {name: character.pools[fight.pool(name)].maximum or 0 for name in STATS}
            if use == "restore_hp":
                after = {**hp, source: restored(hp[source], maximum[source], options)}
            else:
                after = reallocated(hp, maximum, source, _stat_named(to), amount or 0)
            effects += fight.hp_changes(ACTOR, character, after, options)
        elif use == "act_out_of_turn":  # R5: for this round, an action outside its turn, an Attack Roll included
            effects.append(StatePatch(ACTOR, fight.OUT_OF_TURN, scene.turn.round_number))
        elif use not in NARRATIVE_USES:
            raise RuleError("unknown_destiny_use", use=use)
        spent = DestinySpent(
            name=character.name, use=use, stat=stat, to=to, amount=amount, note=note, approved_by=approved_by
        )
        return Step(effects=tuple(effects), outcomes=(spent,))

    def request_destiny(self, scene: Scene, use: str, note: str | None, requester: int) -> Step:
        """A narrative use (combining actions, acting out of turn, anything else) asked by the user `requester`: the
        GMs decide."""
        character = scene.one(ACTOR)
        require_point(character.pools[DESTINY].current)
        decided: dict[str, str | int | Text] = {"name": character.name, "use": Text(f"destiny.use.{use}")}
        options = (
            Option("approve", Text("destiny.approve"), tone="success", summary=Text("destiny.approved", decided)),
            Option("deny", Text("destiny.deny"), tone="secondary", summary=Text("destiny.denied", decided)),
        )
        prompt = Text("destiny.requested", {**decided, "user": UserRef(requester), "note": note or "—"})
        wait = Wait(DESTINY_APPROVAL, Audience.gms(), prompt, options)
        requested = DestinyRequested(name=character.name, use=use, note=note)
        return Step(outcomes=(requested,), pause=Pause(DestinyApproval(use=use, note=note), (wait,)))

    def destiny_approval(self, scene: Scene, state: DestinyApproval, answer: Answer) -> Step:
        character = scene.one(ACTOR)
        if answer.option != "approve":
            return Step(outcomes=(DestinyDenied(name=character.name, use=state.use),))
        return self.spend_destiny(scene, state.use, None, None, None, state.note, approved_by=answer.by)

    def cancelled(self, scene: Scene, kind: str, state: object) -> Step | None:
        return fight.voided(scene, state) if kind == "attack" else None

    def acts_on_own_turn(self, options: CampaignOptions) -> bool:
        """R5: in a fight, each creature acts on its turn, in the order the GM set (acting out of turn is a Destiny
        Point's use); `own_turn_only` off lets players act in any order."""
        return fight.crest_options(options).own_turn_only

    def actions_left(self, character: CharacterSnapshot, turn: Turn) -> tuple[Text, ...]:
        """C25: the Attack Rolls still open to a fighter this round (other actions are free-form)."""
        made, allowed = fight.attacks_left(character, turn)
        return tuple(Text("action.attack_roll") for _ in range(allowed - made))

    def may_act_out_of_turn(self, character: CharacterSnapshot, turn: Turn) -> bool:
        return character.state.get(fight.OUT_OF_TURN) == turn.round_number

    def out_of_play(self, character: CharacterSnapshot) -> str | None:
        consequence = character.pools[CONSEQUENCE].current
        if consequence >= DEAD:
            return "dead"
        return "down" if consequence >= fight.SERIOUS else None

    def session_started(self, scene: Scene) -> Step | None:
        """R11/C34: every player character starts the session with exactly `dp_session_start` points."""
        points = session_points(fight.crest_options(scene.options))
        players = [
            (position, character) for position, character in enumerate(scene.members(EVERYONE)) if not character.gm_run
        ]
        if not players:
            return None
        effects = tuple(PoolSet(member(EVERYONE, position), DESTINY, points) for position, _ in players)
        reset = DestinyReset(names=[character.name for _, character in players], points=points)
        return Step(effects=effects, outcomes=(reset,))


def _crest_text(crest: Crest, uses: int | None) -> Text:
    """A crest on the sheet: its rank, its specialties, the uses left of an item crest (C27), and what it can do
    at that rank (its ladder as the GM wrote it, or the rulebook's, R13/T8)."""
    shown = Text("sheet.crest", {"name": crest.name, "rank": crest.rank})
    if crest.specialties:
        forms = ", ".join(f"{specialty.name} {specialty.rank}" for specialty in crest.specialties)
        shown = Text("sheet.crest_forms", {"crest": shown, "forms": forms})
    if uses is not None:
        shown = Text("sheet.crest_uses", {"crest": shown, "uses": uses})
    capability: str | Text | None = crest.ladder.get(crest.rank)
    if capability is None and crest.name in BOOK_LADDERS and crest.from_the_book:  # the GM's word comes first
        capability = Text(f"ladder.{crest.name.lower().replace(' ', '_')}.{crest.rank}")
    return shown if capability is None else Text("sheet.crest_can", {"crest": shown, "can": capability})


def _standing_values(standing: fight.Standing) -> Text:
    return Text(
        "standing.values", {"boons": standing.boons, "banes": standing.banes, "modifier": f"{standing.modifier:+d}"}
    )


def _checked(scene: Scene, roll: ActionRoll, state: Checking, options: CrestMagiaOptions, *, spent: int = 0) -> Step:
    """A check's roll, its verdict against the GM's target, the Destiny Point a player's critical success earns
    (R3), and, while the player has a point to spend, the offer to roll it again."""
    character = scene.one(ACTOR)
    target = state.target
    success = None if target is None else check_succeeds(roll, target, options)
    earned = not character.gm_run and roll.crit == "success"
    effects: tuple[Effect, ...] = (PoolDelta(ACTOR, DESTINY, 1),) if earned else ()
    rolled = CheckRolled(
        name=character.name,
        stat=roll.stat,
        skill=state.skill,
        specialty=state.specialty,
        total=roll.total,
        target=target,
        success=success,
        crit=roll.crit,
        destiny_point=earned,
        rerolled=spent > 0,
    )
    step = Step(rolls=roll.rolls(), effects=effects, outcomes=(rolled,))
    points = character.pools[DESTINY].current - spent + int(earned)
    opponent = scene.get(OPPONENT)
    if opponent is not None:  # an opposed check: unresolved until the other side answers
        reroll = fight.reroll_wait(ACTOR, character, points, roll.total, options, final=False)
        said: dict[str, str | int | Text] = {"opponent": opponent.name, "name": character.name, "total": roll.total}
        wait = Wait(CONTEST_STAT, Audience.character(OPPONENT), Text("contest.prompt", said), fight.stat_options())
        carried = moved(state, ContestStat, active=Score(roll.total, roll.crit), crit=roll.crit)
        return Step.of(step, pause=Pause(carried, (*([reroll] if reroll else []), wait)))
    reroll = fight.reroll_wait(ACTOR, character, points, roll.total, options, final=True)
    stands = moved(state, CheckReroll, crit=roll.crit)
    if reroll is None:
        return step.then(_check_narrative(scene, stands))
    return Step.of(step, pause=Pause(stands, (reroll,)))


def _check_rerolled(scene: Scene, state: Checking, answer: Answer) -> Step:
    """A check's roll let stand (nothing more happens but a critical's word to the GMs), or rolled again for a
    Destiny Point (C30): an opposed check's, too, while the other side has not answered it."""
    if answer.option != fight.REROLL:
        return _check_narrative(scene, state)
    options = fight.crest_options(scene.options)
    spent, again, less = fight.rerolled(scene, ACTOR, state.spec, state.crit, options)
    return spent.then(_checked(scene, again, state, options, spent=less))


def _check_narrative(scene: Scene, state: Checking) -> Step:
    """The GMs' word of a check's critical (R3), once the roll stands."""
    stat = Text(f"stat.{state.spec.stat}")
    skill = state.skill
    what = Text("check.with_skill", {"stat": stat, "skill": Text(f"skill.{skill}")}) if skill else stat
    return fight.narrative(ACTOR, scene.one(ACTOR), state.crit, Text("narrative.check", {"what": what}))


def _stat_named(name: str | None) -> Stat:
    if not name:
        raise RuleError("stat_needed", stats=joined([Text(f"stat.{stat}") for stat in STATS]))
    found = {stat.casefold(): stat for stat in STATS}.get(name.strip().casefold())
    if found is None:
        raise RuleError("unknown_stat", stat=name)
    return found
