"""A Crest Magia attack as an exchange of steps (R6-R10): the Attack Roll now; the defender answers later with
the stat and then the skill it defends with; on a hit the Damage Roll against the Withstand Roll (armour or a
crest, the defender's choice when there are several); the damage on the defending stat, and each overflow
on a pool of the defender's choosing. Every wait is the defender's (or a GM's, for a character they run)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from bot.rulesets.base import ATTACKER, DEFENDER, CharacterSnapshot, Scene
from rules.crest_magia.damage import Damaged, choose_overflow, effective_die, still_depleted, take_damage
from rules.crest_magia.model import CREST_SKILL, STATS, WEAPON_SKILL, Skill, Stat
from rules.crest_magia.options import CrestMagiaOptions
from rules.crest_magia.rolls import Score, action_roll, damage_roll, resolve_attack, withstand_roll
from rules.crest_magia.sheets import CharacterFile
from rules.exchange import (
    Audience,
    Effect,
    Modifier,
    Option,
    Outcome,
    Pause,
    PoolDelta,
    RuleError,
    StatePatch,
    Step,
    Text,
    Wait,
)

CONSEQUENCE = "consequence"
DESTINY = "destiny_points"
STAT_WAIT = "defence_stat"
SKILL_WAIT = "defence_skill"
WITHSTAND_WAIT = "withstand"
OVERFLOW_WAIT = "overflow"
NO_SKILL = "no_skill"
SPECIALTY = "specialty_"  # option keys of a skill with one of the defender's specialties, by its index
MAX_CHOICES = 24  # the buttons of one prompt, the GM's cancel aside (Discord allows 25)
ARMOR = "armor"
CREST = "crest"
UNARMED = "unarmed"
SEPARATOR = "|"
# The stat an attack uses unless the attacker names another (the GM calls the stat, R1).
DEFAULT_ATTACK_STAT: dict[str, Stat] = {
    "melee": "Physique", "unarmed": "Physique", "ranged": "Dexterity", "thrown": "Dexterity", CREST: "Intelligence",
}  # fmt: skip


class Attacked(Outcome):
    event = "attack.declared"
    attacker: str
    defender: str
    action: str
    stat: str
    total: int
    crit: str | None


class Defended(Outcome):
    event = "attack.defended"
    attacker: str
    defender: str
    stat: str
    skill: str | None
    attack_total: int
    defence_total: int | None
    hit: bool
    maxed: bool
    crit: str | None  # the defence's


class Wounded(Outcome):
    event = "attack.damage"
    attacker: str
    defender: str
    damage: int
    withstand: int
    taken: int
    stat: str


class Overflowed(Outcome):
    event = "attack.overflow"
    defender: str
    stat: str
    taken: int


class Climbed(Outcome):
    event = "attack.consequence"
    defender: str
    level: int


class Earned(Outcome):
    event = "destiny.critical"
    name: str


def pool(stat: str) -> str:
    return stat.lower()


def sheet_of(character: CharacterSnapshot) -> CharacterFile:
    return CharacterFile.model_validate(character.sheet["file"])


def hp_of(character: CharacterSnapshot) -> dict[Stat, int]:
    return {stat: character.pools[pool(stat)].current for stat in STATS}


def rolled_die(character: CharacterSnapshot, stat: Stat, options: CrestMagiaOptions) -> int:
    """The die a stat rolls now: a d4 while it is depleted (R9)."""
    current = character.pools[pool(stat)]
    depleted = stat in set(character.state.get("depleted", ()))
    return effective_die(sheet_of(character).dice[stat], current.current, current.maximum or 0, depleted, options)


def attack_actions(sheet: CharacterFile) -> list[tuple[str, str, str]]:
    """(value, kind, name) of every way to attack: each weapon, each crest, and bare hands."""
    found: list[tuple[str, str, str]] = [
        (f"{weapon.kind}{SEPARATOR}{weapon.name}", weapon.kind, weapon.name) for weapon in sheet.weapons
    ]
    found += [(f"{CREST}{SEPARATOR}{crest.name}", CREST, crest.name) for crest in [*sheet.crests, *sheet.item_crests]]
    found.append((f"{UNARMED}{SEPARATOR}", UNARMED, ""))
    return found


def means(sheet: CharacterFile, action: str) -> dict[str, Any]:
    """What the attack is made with: its skill (T4, R6), its damage rating (R7) and damage type. `action` is
    a value /attack offers (`melee|Sword`, `crest|Crest of Flames`, `unarmed|` for bare hands) or just the
    name of a weapon or crest, in any case."""
    kind, separator, name = action.partition(SEPARATOR)
    if not separator:
        kind, name = "", action
    wanted = name.strip().casefold()
    if kind == UNARMED and not wanted:
        return {"kind": UNARMED, "name": "", "skill": WEAPON_SKILL["unarmed"], "rating": 0, "damage_type": None}
    if kind in (CREST, ""):
        crest = next((c for c in [*sheet.crests, *sheet.item_crests] if c.name.casefold() == wanted), None)
        if crest is not None:
            return {"kind": CREST, "name": crest.name, "skill": CREST_SKILL[crest.category], "rating": crest.rank,
                    "damage_type": crest.damage_type}  # fmt: skip
    weapon = next((w for w in sheet.weapons if w.name.casefold() == wanted and kind in (w.kind, "")), None)
    if weapon is None:
        raise RuleError("unknown_action", name=name.strip() or action)
    return {"kind": weapon.kind, "name": weapon.name, "skill": WEAPON_SKILL[weapon.kind], "rating": weapon.rating,
            "damage_type": weapon.damage_type}  # fmt: skip


def attack_modifiers(sheet: CharacterFile, made_with: Mapping[str, Any], specialty: str | None) -> list[Modifier]:
    """The attack's skill (T4, R6) and the specialty of that skill the attacker names, if any (C12: one)."""
    modifiers = [Modifier(f"skill:{made_with['skill']}", sheet.skill(made_with["skill"]))]
    if specialty is not None:
        found = sheet.specialty(made_with["skill"], specialty)
        modifiers.append(Modifier(f"specialty:{found.name}", found.rank))
    return modifiers


def attack(
    scene: Scene, action: str, stat: Stat | None, specialty: str | None, boons: int, banes: int, gm_mod: int,
    options: CrestMagiaOptions,
) -> Step:  # fmt: skip
    """R6: the Attack Roll, with the skill of the weapon or crest; the defender is asked for its stat."""
    attacker, defender = scene.one(ATTACKER), scene.one(DEFENDER)
    made_with = means(sheet_of(attacker), action)
    stat = stat or DEFAULT_ATTACK_STAT[made_with["kind"]]
    modifiers = attack_modifiers(sheet_of(attacker), made_with, specialty)
    if gm_mod:
        modifiers.append(Modifier("gm", gm_mod))
    player = not attacker.gm_run
    roll = action_roll(stat, rolled_die(attacker, stat, options), tuple(modifiers), scene.dice, options,
                       boons=boons, banes=banes, crits=player or options.npc_crits)  # fmt: skip
    declared = Attacked(attacker=attacker.name, defender=defender.name, action=action, stat=stat, total=roll.total,
                        crit=roll.crit)  # fmt: skip
    state = {"attack": {"total": roll.total, "crit": roll.crit, "player": player}, "means": made_with}
    step = Step(rolls=roll.rolls(), outcomes=(declared,)).then(_earned(ATTACKER, attacker, roll.crit))
    if roll.crit == "failure":  # R3: it misses whatever the defence
        missed = Defended(attacker=attacker.name, defender=defender.name, stat="", skill=None,
                          attack_total=roll.total, defence_total=None, hit=False, maxed=False, crit=None)  # fmt: skip
        return step.then(Step(outcomes=(missed,)))
    options_ = tuple(Option(pool(name), Text(f"defend.stat.{name}")) for name in STATS)
    prompt = Text("attack.prompt", {"defender": defender.name, "attacker": attacker.name, "total": roll.total})
    wait = Wait(STAT_WAIT, Audience.character(DEFENDER), prompt, options_)
    return Step.of(step, pause=Pause(STAT_WAIT, (wait,), state))


def defence_stat(scene: Scene, state: Mapping[str, Any], answer: Any) -> Step:
    """The stat chosen; now the skill (any of the defender's, alone or with one of its specialties, or none)."""
    defender = scene.one(DEFENDER)
    sheet = sheet_of(defender)
    stat = next(name for name in STATS if pool(name) == answer.option)
    skills = sorted(((rank, skill) for skill, rank in sheet.skills.items() if rank),
                    key=lambda ranked: (-ranked[0], ranked[1]))  # fmt: skip
    with_specialty = [
        Option(f"{SPECIALTY}{index}", Text("defend.specialty", {"skill": Text(f"skill.{specialty.skill}"),
                                                               "specialty": specialty.name,
                                                               "rank": sheet.skill(specialty.skill) + specialty.rank}))
        for index, specialty in enumerate(sheet.specialties)
    ]  # fmt: skip
    options = (
        Option(NO_SKILL, Text("defend.no_skill"), tone="secondary"),
        *(Option(skill.lower(), Text("defend.skill", {"skill": Text(f"skill.{skill}"), "rank": rank}))
          for rank, skill in skills),
        *with_specialty,
    )[:MAX_CHOICES]  # fmt: skip
    prompt = Text("defend.which_skill", {"defender": defender.name, "stat": Text(f"stat.{stat}")})
    wait = Wait(SKILL_WAIT, Audience.character(DEFENDER), prompt, options)
    return Step(pause=Pause(SKILL_WAIT, (wait,), {**state, "stat": stat}))


def defence_skill(scene: Scene, state: Mapping[str, Any], answer: Any, options: CrestMagiaOptions) -> Step:
    """R6: the Defense Roll (no boons, C5), the hit, and on a hit the Damage Roll (R7) and the withstand."""
    attacker, defender = scene.get(ATTACKER), scene.get(DEFENDER)
    if attacker is None or defender is None:
        raise RuleError("fighter_gone")
    sheet = sheet_of(defender)
    stat = cast(Stat, state["stat"])
    specialty = None
    if answer.option and answer.option.startswith(SPECIALTY):
        specialty = sheet.specialties[int(answer.option.removeprefix(SPECIALTY))]
        skill: str | None = specialty.skill
    else:
        skill = next((name for name in sheet.skills if name.lower() == answer.option), None)
    modifiers: tuple[Modifier, ...] = (Modifier(f"skill:{skill}", sheet.skill(cast(Skill, skill))),) if skill else ()
    if specialty is not None:
        modifiers += (Modifier(f"specialty:{specialty.name}", specialty.rank),)
    player = not defender.gm_run
    roll = action_roll(stat, rolled_die(defender, stat, options), modifiers, scene.dice, options,
                       crits=player or options.npc_crits)  # fmt: skip
    result = resolve_attack(Score(state["attack"]["total"], state["attack"]["crit"]), roll, options)
    defended = Defended(attacker=attacker.name, defender=defender.name, stat=stat, skill=skill,
                        attack_total=state["attack"]["total"], defence_total=roll.total, hit=result.hit,
                        maxed=result.maxed, crit=roll.crit)  # fmt: skip
    step = Step(rolls=roll.rolls(), outcomes=(defended,)).then(_earned(DEFENDER, defender, roll.crit))
    if not result.hit:
        return step
    made_with = state["means"]
    weak = made_with["damage_type"] in sheet.weaknesses
    resistant = made_with["damage_type"] in sheet.resistances
    damage = damage_roll(made_with["rating"], weak=weak, resistant=resistant, maxed=result.maxed, dice=scene.dice,
                         options=options)  # fmt: skip
    carried = {**state, "damage": damage.total}
    rolled = Step.of(step, Step(rolls=damage.rolls()))
    sources = _withstand_sources(sheet)
    if len(sources) <= 1:
        source = sources[0] if sources else (ARMOR, 0)
        return rolled.then(_withstand(scene, carried, source, options))
    wait_options = tuple(Option(key, Text("withstand.with", {"name": name, "rating": rating}))
                         for key, name, rating in _withstand_choices(sheet))  # fmt: skip
    prompt = Text("withstand.which", {"defender": defender.name, "damage": damage.total})
    wait = Wait(WITHSTAND_WAIT, Audience.character(DEFENDER), prompt, wait_options)
    return Step.of(rolled, pause=Pause(WITHSTAND_WAIT, (wait,), carried))


def withstand_chosen(scene: Scene, state: Mapping[str, Any], answer: Any, options: CrestMagiaOptions) -> Step:
    defender = scene.one(DEFENDER)
    chosen = next(((key, rating) for key, _, rating in _withstand_choices(sheet_of(defender)) if key == answer.option),
                  (ARMOR, 0))  # fmt: skip
    return _withstand(scene, state, chosen, options)


def overflow_chosen(scene: Scene, state: Mapping[str, Any], answer: Any, options: CrestMagiaOptions) -> Step:
    defender = scene.one(DEFENDER)
    stat = next(name for name in STATS if pool(name) == answer.option)
    pending = Damaged(hp_of(defender), int(state["left"]), tuple(state["choices"]),
                      defender.pools[CONSEQUENCE].current, False)  # fmt: skip
    return _placed(scene, defender, choose_overflow(pending, stat, options), state, options, chosen=stat)


def _withstand(scene: Scene, state: Mapping[str, Any], source: tuple[str, int], options: CrestMagiaOptions) -> Step:
    """R8 and R9: the Withstand Roll, and what gets through lands on the stat that defended (C8)."""
    attacker, defender = scene.one(ATTACKER), scene.one(DEFENDER)
    withstand = withstand_roll(source[1], scene.dice, options)
    damage = int(state["damage"])
    taken = withstand.absorbed(damage)
    stat = cast(Stat, state["stat"])
    wounded = Wounded(attacker=attacker.name, defender=defender.name, damage=damage, withstand=withstand.total,
                      taken=taken, stat=stat)  # fmt: skip
    hurt = take_damage(hp_of(defender), stat, taken, defender.pools[CONSEQUENCE].current, options)
    return Step(rolls=withstand.rolls(), outcomes=(wounded,)).then(_placed(scene, defender, hurt, state, options))


def _placed(
    scene: Scene, defender: CharacterSnapshot, hurt: Damaged, state: Mapping[str, Any], options: CrestMagiaOptions,
    *, chosen: Stat | None = None,
) -> Step:  # fmt: skip
    """The pools as the damage left them, the d4s of the depleted stats, a consequence climbed, and the next
    overflow choice if there is one."""
    before = hp_of(defender)
    effects: list[Effect] = [PoolDelta(DEFENDER, pool(stat), hurt.hp[stat] - before[stat]) for stat in STATS
                             if hurt.hp[stat] != before[stat]]  # fmt: skip
    outcomes: list[Outcome] = []
    if chosen is not None:
        outcomes.append(Overflowed(defender=defender.name, stat=chosen, taken=before[chosen] - hurt.hp[chosen]))
    if hurt.climbed:
        effects.append(PoolDelta(DEFENDER, CONSEQUENCE, 1))
        outcomes.append(Climbed(defender=defender.name, level=hurt.consequence))
    depleted = set(defender.state.get("depleted", ()))
    maximum = {stat: defender.pools[pool(stat)].maximum or 0 for stat in STATS}
    now = sorted(stat for stat in STATS if still_depleted(stat in depleted, hurt.hp[stat], maximum[stat], options))
    if now != sorted(depleted):
        effects.append(StatePatch(DEFENDER, "depleted", now or None))
    step = Step(effects=tuple(effects), outcomes=tuple(outcomes))
    if not hurt.left:
        return step
    wait_options = tuple(Option(pool(stat), Text(f"defend.stat.{stat}")) for stat in hurt.choices)
    prompt = Text("overflow.which", {"defender": defender.name, "left": hurt.left})
    wait = Wait(OVERFLOW_WAIT, Audience.character(DEFENDER), prompt, wait_options)
    carried = {**state, "left": hurt.left, "choices": list(hurt.choices)}
    return Step.of(step, pause=Pause(OVERFLOW_WAIT, (wait,), carried))


def _withstand_choices(sheet: CharacterFile) -> list[tuple[str, str, int]]:
    """(option key, name, rating): the armour, and each crest by its rank (R8)."""
    found = [(ARMOR, sheet.armor.name, sheet.armor.rating)] if sheet.armor else []
    found += [(f"{CREST}_{index}", crest.name, crest.rank) for index, crest in enumerate(sheet.crests)]
    return found


def _withstand_sources(sheet: CharacterFile) -> list[tuple[str, int]]:
    return [(key, rating) for key, _, rating in _withstand_choices(sheet)]


def _earned(who: str, character: CharacterSnapshot, crit: str | None) -> Step:
    """R3: a player character's critical success earns a Destiny Point."""
    if crit != "success" or character.gm_run:
        return Step()
    return Step(effects=(PoolDelta(who, DESTINY, 1),), outcomes=(Earned(name=character.name),))
