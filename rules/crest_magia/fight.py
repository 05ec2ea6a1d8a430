"""A Crest Magia attack as an exchange of steps (R6-R10): the Attack Roll now; the defender answers later with
the stat and then the skill it defends with (only the stat the hit lands on, when it has no Defense Roll to make,
and nothing where that makes no difference); on a hit the Damage Roll against the Withstand Roll (armour or a
crest, the defender's choice when there are several); the damage on the defending stat, and each overflow
on a pool of the defender's choosing. Every wait is the defender's (or a GM's, for a character they run)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import cast

from rules.crest_magia.damage import Damaged, choose_overflow, effective_die, still_depleted, take_damage
from rules.crest_magia.destiny import SPEND_COST, require_point
from rules.crest_magia.model import (
    CONSEQUENCES,
    CREST_SKILL,
    CREST_STAT,
    STATS,
    WEAPON_SKILL,
    WEAPON_STAT,
    Crit,
    Skill,
    Stat,
)
from rules.crest_magia.options import CrestMagiaOptions
from rules.crest_magia.rolls import (
    ActionRoll,
    ActionSpec,
    Score,
    damage_dice,
    damage_for,
    resolve_attack,
    withstand_roll,
)
from rules.crest_magia.sheets import CharacterFile, ItemCrest
from rules.crest_magia.states import (
    HELPLESS_WAIT,
    OVERFLOW_WAIT,
    SKILL_REQUEST,
    SKILL_WAIT,
    STAT_WAIT,
    WITHSTAND_WAIT,
    Attacking,
    DefenceReroll,
    DefenceSkill,
    DefenceSkillRequest,
    DefenceStat,
    Defending,
    HelplessStat,
    Means,
    Overflowing,
    Withstanding,
    moved,
)
from rules.exchange import (
    Answer,
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
    Whisper,
    member,
)
from rules.options import CampaignOptions
from rules.play import ANSWERER, ATTACKER, DEFENDER, CharacterSnapshot, Scene, Turn

CONSEQUENCE = "consequence"
DESTINY = "destiny_points"
NO_SKILL = "no_skill"
STANDING = "standing"  # the character state key of a GM's standing boons, banes and modifier on it
STANDING_EVERYONE = "standing_everyone"  # the character state key of a GM's standing on everyone in the campaign
DEPLETED = "depleted"  # the character state key of the stats on a d4 (R9)
REROLL_WAIT = "reroll"
REROLL = "reroll"
KEEP = "keep"
INTERCEPT_WAIT = "intercept"
INTERCEPT = "intercept"
HELPLESS = "helpless"
GRANT = "grant"
REFUSE = "refuse"
USUAL_DEFENCE_SKILLS: frozenset[str] = frozenset(
    {"Agility", "Athletics", "Awareness", "Determination", "Melee", "Unarmed"}
)
SPECIALTY = "specialty_"  # option keys of a skill with one of the defender's specialties, by its index
ARMOR = "armor"
CREST = "crest"
ITEM = "item"
ITEM_USES = "item_crest_uses"  # the character state key of what is left of each item crest's uses
ATTACKS = "attacks"  # the character state key of its Attack Rolls this round (C25)
OUT_OF_TURN = "out_of_turn"  # the character state key of the round its player paid to act out of turn in
UNARMED = "unarmed"
SEPARATOR = "|"
BARE_HANDS = f"{UNARMED}{SEPARATOR}"  # the attack with no weapon, as /attack offers it
# From "serious" on (unconscious, dying) a character is down: it cannot defend (T5).
SERIOUS = CONSEQUENCES.index("serious")


class Attacked(Outcome):
    """An Attack Roll. `means` is what it is made with (`means_kind`: a crest, a weapon's range, bare hands) in the
    `form` of one of its crest's specialties; None in events stored before they were kept."""

    event = "attack.declared"
    attacker: str
    defender: str
    action: str
    stat: str
    total: int
    crit: str | None
    rerolled: bool = False  # rolled again for a Destiny Point
    means: str | None = None
    means_kind: str | None = None
    form: str | None = None


class DamageRolled(Outcome):
    """R7: the Damage Roll of a hit, before the defender withstands it."""

    event = "attack.damage_rolled"
    attacker: str
    defender: str
    damage: int


class Rerolled(Outcome):
    event = "destiny.reroll"
    name: str  # who paid
    revoked: bool = False  # the replaced roll was a critical success: the point it earned goes with it


class Intercepted(Outcome):
    event = "destiny.intercept"
    interceptor: str
    defender: str
    attacker: str


class Voided(Outcome):
    event = "attack.voided"
    name: str  # the attacker


class Helpless(Outcome):
    event = "attack.helpless"
    defender: str


class Down(Outcome):
    event = "attack.down"
    defender: str


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
    rerolled: bool = False  # rolled again for a Destiny Point


class Wounded(Outcome):
    event = "attack.damage"
    attacker: str
    defender: str
    damage: int
    withstand: int
    taken: int
    stat: str
    crit: str | None = None  # the Withstand Roll's, with `crit_on_withstand`


class Placed(Outcome):
    """Where a hit's damage went: HP lost per pool, in the order it was placed, and what found no HP left."""

    event = "attack.placed"
    defender: str
    losses: dict[str, int]
    lost: int
    more: bool  # an overflow the defender placed, after the hit itself


class Climbed(Outcome):
    event = "attack.consequence"
    defender: str
    level: int


class Earned(Outcome):
    event = "destiny.critical"
    name: str


def crest_options(options: CampaignOptions) -> CrestMagiaOptions:
    """A Crest Magia campaign's options as the rules read them."""
    return cast(CrestMagiaOptions, options)


def pool(stat: str) -> str:
    return stat.lower()


def sheet_of(character: CharacterSnapshot) -> CharacterFile:
    return CharacterFile.model_validate(character.sheet["file"])


def hp_of(character: CharacterSnapshot) -> dict[Stat, int]:
    return {stat: character.pools[pool(stat)].current for stat in STATS}


def rolled_die(character: CharacterSnapshot, stat: Stat, options: CrestMagiaOptions) -> int:
    """The die a stat rolls now: a d4 while it is depleted (R9)."""
    current = character.pools[pool(stat)]
    depleted = stat in set(character.state.get(DEPLETED, ()))
    return effective_die(sheet_of(character).dice[stat], current.current, current.maximum or 0, depleted, options)


@dataclass(frozen=True)
class Standing:
    """Boons, banes and a modifier a GM set in advance on a character's rolls, kept until a GM clears them."""

    boons: int = 0
    banes: int = 0
    modifier: int = 0

    def modifiers(self) -> tuple[Modifier, ...]:
        return (Modifier("standing", self.modifier),) if self.modifier else ()

    def __add__(self, other: Standing) -> Standing:
        return Standing(self.boons + other.boons, self.banes + other.banes, self.modifier + other.modifier)


def standing(character: CharacterSnapshot, *keys: str) -> Standing:
    """The standing on a character's rolls: its own and the one on everyone in the campaign, kept apart and counted
    together (R2: boons and banes add up, then cancel one for one); `keys` one of them alone."""
    return sum((Standing(**character.state.get(key, {})) for key in keys or (STANDING, STANDING_EVERYONE)), Standing())


def hp_changes(
    who: str, character: CharacterSnapshot, after: Mapping[Stat, int], options: CrestMagiaOptions
) -> list[Effect]:
    """The HP pools moved to `after`, and the list of depleted stats (on a d4, R9) as it follows from them."""
    before = hp_of(character)
    effects: list[Effect] = [
        PoolDelta(who, pool(stat), after[stat] - before[stat]) for stat in STATS if after[stat] != before[stat]
    ]
    depleted = depleted_after(character, after, options)
    return effects if depleted is None else [*effects, StatePatch(who, DEPLETED, depleted or None)]


def depleted_after(
    character: CharacterSnapshot, after: Mapping[Stat, int], options: CrestMagiaOptions
) -> list[Stat] | None:
    """The depleted stats (C17: each that reached 0, while `d4_until` keeps it on a d4) once the pools are at
    `after`; None when that list does not change."""
    was = set(character.state.get(DEPLETED, ()))
    maximum = {stat: character.pools[pool(stat)].maximum or 0 for stat in STATS}
    now = sorted(stat for stat in STATS if still_depleted(stat in was, after[stat], maximum[stat], options))
    return None if now == sorted(was) else now


def attack_actions(sheet: CharacterFile) -> list[tuple[str, str, str]]:
    """(value, kind, name) of every way to attack: each weapon, each crest, and bare hands."""
    found: list[tuple[str, str, str]] = [
        (f"{weapon.kind}{SEPARATOR}{weapon.name}", weapon.kind, weapon.name) for weapon in sheet.weapons
    ]
    found += [(f"{CREST}{SEPARATOR}{crest.name}", CREST, crest.name) for crest in [*sheet.crests, *sheet.item_crests]]
    found.append((BARE_HANDS, UNARMED, ""))
    return found


def means_words(kind: str, name: str, form: str | None = None) -> Text:
    """What an attack is made with, as /attack offers it and its post and log name it: `Crest of Flames (crest)`,
    in the form of a specialty where it takes one."""
    made_with = Text(f"attack_choice.{kind}" if name or kind != UNARMED else "attack_choice.bare_hands", {"name": name})
    return Text("attack.means_form", {"means": made_with, "form": form}) if form else made_with


def means(sheet: CharacterFile, action: str) -> Means:
    """What the attack is made with: its usual stat and skill (T4, R6), its damage rating (R7) and damage type.
    `action` is a value /attack offers (`melee|Sword`, `crest|Crest of Flames`, `unarmed|` for bare hands) or just
    the name of a weapon or crest, in any case."""
    kind, separator, name = action.partition(SEPARATOR)
    if not separator:
        kind, name = "", action
    wanted = name.strip().casefold()
    if kind == UNARMED and not wanted:
        return Means(
            kind=UNARMED,
            name="",
            stat=WEAPON_STAT["unarmed"],
            skill=WEAPON_SKILL["unarmed"],
            rating=0,
            damage_type=None,
        )
    if kind in (CREST, ""):
        crest = next((c for c in [*sheet.crests, *sheet.item_crests] if c.name.casefold() == wanted), None)
        if crest is not None:
            return Means(
                kind=CREST,
                name=crest.name,
                stat=CREST_STAT[crest.category],
                skill=CREST_SKILL[crest.category],
                rating=crest.rank,
                damage_type=crest.damage_type,
            )
    weapon = next((w for w in sheet.weapons if w.name.casefold() == wanted and kind in (w.kind, "")), None)
    if weapon is None:
        raise RuleError("unknown_action", name=name.strip() or action)
    return Means(
        kind=weapon.kind,
        name=weapon.name,
        stat=WEAPON_STAT[weapon.kind],
        skill=WEAPON_SKILL[weapon.kind],
        rating=weapon.rating,
        damage_type=weapon.damage_type,
    )


def item_uses_left(character: CharacterSnapshot, crest: ItemCrest) -> int | None:
    """C27: the uses an item crest has left (None: as many as wanted). The state keeps, per item, the uses the GM
    had given when it was last used and what is left of them: a GM who sets new uses in the file starts afresh."""
    if crest.uses_left is None:
        return None
    given, left = character.state.get(ITEM_USES, {}).get(crest.name, (crest.uses_left, crest.uses_left))
    return left if given == crest.uses_left else crest.uses_left


def item_used(who: str, character: CharacterSnapshot, name: str) -> Step:
    """One use of the item crest `name` (nothing for a crest in a slot, or an item without a count)."""
    crest = next((c for c in sheet_of(character).item_crests if c.name == name), None)
    left = None if crest is None else item_uses_left(character, crest)
    if crest is None or left is None:
        return Step()
    if left < 1:
        raise RuleError("item_crest_spent", name=name)
    uses = {**character.state.get(ITEM_USES, {}), name: [crest.uses_left, left - 1]}
    return Step(effects=(StatePatch(who, ITEM_USES, uses),))


def attack_modifiers(
    sheet: CharacterFile, made_with: Means, specialty: str | None, options: CrestMagiaOptions
) -> list[Modifier]:
    """The attack's skill (T4, R6) and the specialty of that skill the attacker names, if any (C12: one). With
    `crest_rank_on_action_rolls` (C7's alternative), an attack with a crest counts the crest's rank instead
    when it is higher than skill and specialty together."""
    modifiers = [Modifier(f"skill:{made_with.skill}", sheet.skill(made_with.skill))]
    if specialty is not None:
        found = sheet.specialty(made_with.skill, specialty)
        modifiers.append(Modifier(f"specialty:{found.name}", found.rank))
    by_rank = made_with.kind == CREST and options.crest_rank_on_action_rolls
    if by_rank and made_with.rating > sum(modifier.value for modifier in modifiers):
        return [Modifier(f"crest:{made_with.name}", made_with.rating)]
    return modifiers


def with_form(sheet: CharacterFile, made_with: Means, form: str | None) -> Means:
    """R13: an attack with a crest in the form of one of its specialties adds that specialty's rank to the
    Damage Roll."""
    if form is None:
        return made_with
    crest = next((c for c in [*sheet.crests, *sheet.item_crests] if c.name == made_with.name), None)
    if made_with.kind != CREST or crest is None:
        raise RuleError("form_needs_crest", form=form)
    found = crest.specialty(form)
    return made_with.model_copy(update={"form": found.name, "form_rank": found.rank})


def attacks_left(attacker: CharacterSnapshot, turn: Turn) -> tuple[int, int]:
    """C25: in a fight, one Attack Roll per turn, and one more in a round its player paid to act out of turn in:
    (made this round, allowed this round)."""
    made = attacker.state.get(ATTACKS, {})
    count = int(made.get("count", 0)) if made.get("round") == turn.round_number else 0
    return count, 1 + (attacker.state.get(OUT_OF_TURN) == turn.round_number)


def attacks_this_round(attacker: CharacterSnapshot, turn: Turn) -> int:
    """The Attack Rolls made this round so far (none counted outside a fight); raises when none is left."""
    if not turn.in_combat:
        return 0
    made, allowed = attacks_left(attacker, turn)
    if made >= allowed:
        raise RuleError("one_attack_per_turn", name=attacker.name)
    return made


def voided(scene: Scene, state: object) -> Step | None:
    """A GM's cancel of an attack nobody has defended against yet: it did not happen, so in a fight its Attack
    Roll is not counted against the attacker's turn (C25). (An attack still asked of the GMs was not rolled.)"""
    attacker = scene.get(ATTACKER)
    if attacker is None or not isinstance(state, Attacking) or not scene.turn.in_combat:
        return None
    if state.current or isinstance(state, Defending):  # a defender has answered it
        return None
    made = attacker.state.get(ATTACKS, {})
    if made.get("round") != scene.turn.round_number or not made.get("count"):
        return None
    counted = {**made, "count": int(made["count"]) - 1}
    return Step(effects=(StatePatch(ATTACKER, ATTACKS, counted),), outcomes=(Voided(name=attacker.name),))


def attack(
    scene: Scene,
    action: str,
    stat: Stat | None,
    skill: Skill | None,
    specialty: str | None,
    form: str | None,
    boons: int,
    banes: int,
    gm_mod: int,
    options: CrestMagiaOptions,
) -> Step:
    """R6: the Attack Roll, with the skill of the weapon or crest unless another is named; the first defender is
    asked for its stat."""
    attacker = scene.one(ATTACKER)
    made_with = with_form(sheet_of(attacker), means(sheet_of(attacker), action), form)
    if skill is not None:
        made_with = made_with.model_copy(update={"skill": skill})
    stat = stat or made_with.stat
    modifiers = attack_modifiers(sheet_of(attacker), made_with, specialty, options)
    if gm_mod:
        modifiers.append(Modifier("gm", gm_mod))
    standing_ = standing(attacker)
    spec = ActionSpec(
        stat,
        rolled_die(attacker, stat, options),
        (*modifiers, *standing_.modifiers()),
        boons + standing_.boons,
        banes + standing_.banes,
        crits=not attacker.gm_run or options.npc_crits,
    )
    used = item_used(ATTACKER, attacker, made_with.name) if made_with.kind == CREST else Step()
    made = attacks_this_round(attacker, scene.turn)
    if scene.turn.in_combat:
        counted = {"round": scene.turn.round_number, "count": made + 1}
        used = Step.of(used, Step(effects=(StatePatch(ATTACKER, ATTACKS, counted),)))
    roll = spec.roll(scene.dice, options)
    state = DefenceStat(means=made_with, spec=spec, action=action, attack=Score(roll.total, roll.crit))
    return used.then(_attack_rolled(scene, roll, state, options))


def _current(state: Attacking) -> str:
    """The defender being answered for: an area attack (C24) takes its defenders one after the other."""
    return member(DEFENDER, state.current)


def _attack_rolled(
    scene: Scene, roll: ActionRoll, state: DefenceStat, options: CrestMagiaOptions, *, spent: int = 0
) -> Step:
    """The Attack Roll shown, and left unresolved until the first defender answers: meanwhile its roller may spend
    a Destiny Point to roll it again, and another player may spend one to take the attack instead (R11). A
    critical failure misses whatever the defence (R3), once its roller lets it stand."""
    attacker = scene.one(ATTACKER)
    defenders = ", ".join(defender.name for defender in scene.members(DEFENDER))
    declared = Attacked(
        attacker=attacker.name,
        defender=defenders,
        action=state.action,
        stat=roll.stat,
        total=roll.total,
        crit=roll.crit,
        rerolled=spent > 0,
        means=state.means.name,
        means_kind=state.means.kind,
        form=state.means.form,
    )
    point = earned(ATTACKER, attacker, roll.crit)
    step = Step(rolls=roll.rolls(), outcomes=(declared,)).then(point)
    points = attacker.pools[DESTINY].current - spent + len(point.outcomes) if DESTINY in attacker.pools else 0
    reroll = reroll_wait(ATTACKER, attacker, points, roll.total, options, final=roll.crit == "failure")
    if roll.crit == "failure":
        if reroll is None:
            return step.then(_all_missed(scene, roll.total))
        return Step.of(step, pause=Pause(state, (reroll,)))
    defender = scene.one(_current(state))
    waits = _defence_waits(attacker, defender, state, reroll)
    if not waits:
        return step.then(_struck(scene, state, None, options))
    return Step.of(step, pause=Pause(state, waits))


def _is_down(character: CharacterSnapshot) -> bool:
    """Whether the character is down (`SERIOUS`): it cannot defend."""
    return character.pools[CONSEQUENCE].current >= SERIOUS


def _undefended(defender: CharacterSnapshot, state: Attacking) -> bool:
    """Whether the defender makes no Defense Roll: a critical attack hits whatever the defence (R3), and a defender
    that is down cannot defend. It only picks the stat the hit lands on (C8)."""
    return state.attack.crit == "success" or _is_down(defender)


def _lands_on(defender: CharacterSnapshot) -> Stat | None:
    """The stat a hit lands on whichever stat the defender names, when that makes no difference: its one pool with
    HP left, or with none (R10: the consequence climbs, whatever the stat) the first; None while it has a choice."""
    with_hp = [stat for stat in STATS if defender.pools[pool(stat)].current > 0]
    if len(with_hp) > 1:
        return None
    return with_hp[0] if with_hp else STATS[0]


def _defence_waits(
    attacker: CharacterSnapshot,
    defender: CharacterSnapshot,
    state: Attacking,
    reroll: Wait | None,
    *,
    intercept: bool = True,
    at_once: bool = True,
) -> tuple[Wait, ...]:
    """The roller's reroll while the roll is unresolved, an intercept for the other players (for a player
    character, and not again once someone has stepped in), and the defender's choice of stat (or a GM's ruling
    that it is helpless), posted last so that it is the newest message when the defender looks. A defender with no
    Defense Roll to make only picks the stat that takes the hit; where that makes no difference it is asked only to
    take the hit, while the other players may still step in, and otherwise (with `at_once`) nothing is waited for:
    the hit lands now, and its Attack Roll, which nothing hangs on any more, is not offered again."""
    total = state.attack.total
    said: dict[str, str | int | Text] = {"defender": defender.name, "attacker": attacker.name, "total": total}
    offers = [reroll] if reroll is not None else []
    if intercept and not defender.gm_run:
        button = Option(
            INTERCEPT,
            Text("intercept.button"),
            tone="secondary",
            summary=Text("intercept.done", {"defender": defender.name}),
        )
        closed = Text("intercept.closed", {"defender": defender.name})
        offers.append(
            Wait(
                INTERCEPT_WAIT,
                Audience.players(),
                Text("intercept.prompt", said),
                (button,),
                settled=closed,
                optional=True,
            )
        )
    audience = Audience.character(_current(state))
    if not _undefended(defender, state):
        options_ = (*stat_options(STATS), Option(HELPLESS, Text("defend.helpless"), tone="secondary"))
        return (*offers, Wait(STAT_WAIT, audience, Text("attack.prompt", said), options_))
    reason = "helpless.down" if _is_down(defender) else "attack.prompt_critical"
    lands = _lands_on(defender)
    if lands is None:
        return (*offers, Wait(STAT_WAIT, audience, Text(reason, said), stat_options(STATS)))
    if at_once and not any(offer.key == INTERCEPT_WAIT for offer in offers):
        return ()
    take = Option(pool(lands), Text("defend.take_hit"))
    return (*offers, Wait(STAT_WAIT, audience, Text(f"{reason}_take", said), (take,)))


def stat_options(stats: tuple[Stat, ...] = STATS) -> tuple[Option, ...]:
    return tuple(Option(pool(name), Text(f"defend.stat.{name}")) for name in stats)


def reroll_wait(
    role: str,
    roller: CharacterSnapshot,
    points: int,
    total: int,
    options: CrestMagiaOptions,
    *,
    final: bool,
    prompt: str = "reroll.prompt_final",
) -> Wait | None:
    """C30: a player's unresolved roll may be rolled again for a Destiny Point while they have one (anyone's, by
    any player, with `dp_reroll_any_roll`). A roll nothing else resolves (a check, a critical failure) also
    offers to let it stand, which the deadline does for its roller."""
    if options.dp_reroll_any_roll:
        audience = Audience.players()
    elif roller.gm_run or points < SPEND_COST:
        return None
    else:
        audience = Audience.character(role)
    said: dict[str, str | int | Text] = {"name": roller.name, "total": total}
    choices = [Option(REROLL, Text("reroll.button"), summary=Text("reroll.done", said))]
    if not final:
        return Wait(
            REROLL_WAIT,
            audience,
            Text("reroll.prompt", said),
            tuple(choices),
            settled=Text("reroll.settled", said),
            optional=True,
        )
    choices.append(Option(KEEP, Text("reroll.keep"), tone="secondary", summary=Text("reroll.kept", said)))
    minutes = options.dp_reroll_minutes
    return Wait(REROLL_WAIT, audience, Text(prompt, said), tuple(choices), deadline_seconds=minutes * 60, default=KEEP)


def reroll_payer(scene: Scene, roller: str, options: CrestMagiaOptions) -> str:
    """Who pays for a reroll: its roller, or (`dp_reroll_any_roll`) the player who asked for it, who must be
    one the rules give Destiny Points (C31)."""
    if not options.dp_reroll_any_roll:
        return roller
    payer = scene.get(ANSWERER)
    if payer is None or payer.gm_run:
        raise RuleError("destiny_players_only")
    return ANSWERER


def rerolled(
    scene: Scene, roller: str, spec: ActionSpec, replaced: Crit | None, options: CrestMagiaOptions
) -> tuple[Step, ActionRoll, int]:
    """C30: a Destiny Point (C21) spent on rolling `roller`'s roll again from what it was made of. The new result
    replaces the old one, so a critical success it replaces no longer earns its point. Returns the spend, the new
    roll, and how many points the roller has less."""
    payer = reroll_payer(scene, roller, options)
    paying, rolling = scene.one(payer), scene.one(roller)
    require_point(paying.pools[DESTINY].current)
    effects = [PoolDelta(payer, DESTINY, -SPEND_COST)]
    revoked = replaced == "success" and not rolling.gm_run
    if revoked:
        effects.append(PoolDelta(roller, DESTINY, -1))
    less = (SPEND_COST if paying.id == rolling.id else 0) + int(revoked)
    spent = Step(effects=tuple(effects), outcomes=(Rerolled(name=paying.name, revoked=revoked),))
    return spent, spec.roll(scene.dice, options), less


def _all_missed(scene: Scene, total: int) -> Step:
    """A critical failure misses every defender (R3)."""
    attacker = scene.one(ATTACKER)
    missed = tuple(
        Defended(
            attacker=attacker.name,
            defender=defender.name,
            stat="",
            skill=None,
            attack_total=total,
            defence_total=None,
            hit=False,
            maxed=False,
            crit=None,
        )
        for defender in scene.members(DEFENDER)
    )
    return Step(outcomes=missed)


def awaiting_defence(scene: Scene, state: DefenceStat, answer: Answer) -> Step:
    """The attack's open step answered: a reroll, a critical failure let stand, an intercept, a GM's ruling that
    the defender is helpless, or the defender's stat (the one the hit lands on, with no Defense Roll to make)."""
    options = crest_options(scene.options)
    if answer.wait == REROLL_WAIT:
        if answer.option == KEEP:
            return _all_missed(scene, state.attack.total)
        spent, again, less = rerolled(scene, ATTACKER, state.spec, state.attack.crit, options)
        again_state = state.model_copy(update={"attack": Score(again.total, again.crit)})
        return spent.then(_attack_rolled(scene, again, again_state, options, spent=less))
    if answer.wait == INTERCEPT_WAIT:
        return _intercepted(scene, state, options)
    if answer.option == HELPLESS:
        return _ruled_helpless(scene, state, answer, options)
    if _undefended(scene.one(_current(state)), state):
        return _struck(scene, state, stat_answered(answer), options)
    return defence_stat(scene, state, answer)


def _intercepted(scene: Scene, state: DefenceStat, options: CrestMagiaOptions) -> Step:
    """R11: a player spends a Destiny Point to take the attack meant for another character: the interceptor is
    that defender from now on, and answers it."""
    attacker, defender = scene.one(ATTACKER), scene.one(_current(state))
    interceptor = scene.get(ANSWERER)
    if interceptor is None or interceptor.gm_run:
        raise RuleError("destiny_players_only")
    defenders = [character.id for character in scene.members(DEFENDER)]
    if interceptor.id == attacker.id or interceptor.id in defenders:
        raise RuleError("intercept_own", name=interceptor.name)
    require_point(interceptor.pools[DESTINY].current)
    defenders[state.current] = interceptor.id
    took = Intercepted(interceptor=interceptor.name, defender=defender.name, attacker=attacker.name)
    spent = Step(
        effects=(PoolDelta(ANSWERER, DESTINY, -SPEND_COST),), outcomes=(took,), cast={DEFENDER: tuple(defenders)}
    )
    reroll = None
    if not state.current:  # nobody has defended yet: the Attack Roll is still unresolved
        points = attacker.pools[DESTINY].current if DESTINY in attacker.pools else 0
        reroll = reroll_wait(ATTACKER, attacker, points, state.attack.total, options, final=False)
    # The interceptor steps in now: it is asked, not struck at once, since this step's cast is still the old one.
    waits = _defence_waits(attacker, interceptor, state, reroll, intercept=False, at_once=False)
    return Step.of(spent, pause=Pause(state, waits))


def _ruled_helpless(scene: Scene, state: DefenceStat, answer: Answer, options: CrestMagiaOptions) -> Step:
    """C8: a GM rules the defender helpless: no Defense Roll, the attack hits, and the defender picks the stat
    that takes the damage, if that makes a difference."""
    defender = scene.one(_current(state))
    if not (answer.forced or defender.gm_run):
        raise RuleError("helpless_gm_only")
    ruled = Step(outcomes=(Helpless(defender=defender.name),))
    lands = _lands_on(defender)
    if lands is not None:
        return ruled.then(_struck(scene, state, lands, options))
    prompt = Text("helpless.which", {"defender": defender.name})
    wait = Wait(HELPLESS_WAIT, Audience.character(_current(state)), prompt, stat_options(STATS))
    return Step.of(ruled, pause=Pause(moved(state, HelplessStat), (wait,)))


def helpless_stat(scene: Scene, state: HelplessStat, answer: Answer) -> Step:
    """The stat a defender ruled helpless takes the hit on (C8)."""
    return _struck(scene, state, stat_answered(answer), crest_options(scene.options))


def _struck(scene: Scene, state: Attacking, stat: Stat | None, options: CrestMagiaOptions) -> Step:
    """The attack hits without a Defense Roll (C8: a helpless or down defender, or a critical attack, R3), on
    `stat`, or (None) on the one it lands on whatever the defender would name."""
    attacker, defender = scene.one(ATTACKER), scene.one(_current(state))
    stat = stat or _lands_on(defender) or STATS[0]
    result = resolve_attack(state.attack, None, options)
    hit = Defended(
        attacker=attacker.name,
        defender=defender.name,
        stat=stat,
        skill=None,
        attack_total=state.attack.total,
        defence_total=None,
        hit=True,
        maxed=result.maxed,
        crit=None,
    )
    down = (Down(defender=defender.name),) if _is_down(defender) else ()
    return _hit(scene, state, stat, Step(outcomes=(*down, hit)), options)


def skill_options(sheet: CharacterFile, only: frozenset[str] | None = None) -> tuple[Option, ...]:
    """The answers of a passive roll's skill, the best first: each skill with a rank and each skill with one of
    the character's specialties (C12: one), by what they add to the roll (at the same, a specialty first, then
    by skill), and last none; `only` keeps those skills alone."""
    # (what it adds to the roll, 0 for a specialty and 1 for a skill alone, the skill, the answer)
    ranked: list[tuple[int, int, str, Option]] = []
    for skill, rank in sheet.skills.items():
        if rank and (only is None or skill in only):
            ranked.append(
                (
                    rank,
                    1,
                    skill,
                    Option(skill.lower(), Text("defend.skill", {"skill": Text(f"skill.{skill}"), "rank": rank})),
                )
            )
    for index, specialty in enumerate(sheet.specialties):
        if only is None or specialty.skill in only:
            rank = sheet.skill(specialty.skill) + specialty.rank
            ranked.append(
                (
                    rank,
                    0,
                    specialty.skill,
                    Option(
                        f"{SPECIALTY}{index}",
                        Text(
                            "defend.specialty",
                            {"skill": Text(f"skill.{specialty.skill}"), "specialty": specialty.name, "rank": rank},
                        ),
                    ),
                )
            )
    ranked.sort(key=lambda choice: (-choice[0], choice[1], choice[2]))
    return (*(option for *_, option in ranked), Option(NO_SKILL, Text("defend.no_skill"), tone="secondary"))


def stat_answered(answer: Answer) -> Stat:
    return next(name for name in STATS if pool(name) == answer.option)


def passive_roll(
    character: CharacterSnapshot, stat: Stat, answer: Answer, options: CrestMagiaOptions
) -> tuple[ActionSpec, str | None]:
    """A Defense Roll, or the passive side of an opposed check (R6, C22), with the skill and specialty answered:
    no boons (C5), but a GM's standing modifier, and the standing boons and banes with `defender_boons`."""
    sheet = sheet_of(character)
    specialty = None
    if answer.option and answer.option.startswith(SPECIALTY):
        specialty = sheet.specialties[int(answer.option.removeprefix(SPECIALTY))]
        skill: str | None = specialty.skill
    else:
        skill = next((name for name in sheet.skills if name.lower() == answer.option), None)
    modifiers: tuple[Modifier, ...] = (Modifier(f"skill:{skill}", sheet.skill(cast(Skill, skill))),) if skill else ()
    if specialty is not None:
        modifiers += (Modifier(f"specialty:{specialty.name}", specialty.rank),)
    standing_ = standing(character)
    boons, banes = (standing_.boons, standing_.banes) if options.defender_boons else (0, 0)
    spec = ActionSpec(
        stat,
        rolled_die(character, stat, options),
        (*modifiers, *standing_.modifiers()),
        boons,
        banes,
        crits=not character.gm_run or options.npc_crits,
    )
    return spec, skill


def defence_stat(scene: Scene, state: DefenceStat, answer: Answer) -> Step:
    """The stat chosen; now the skill (any of the defender's, alone or with one of its specialties, or none)."""
    defender = scene.one(_current(state))
    stat = stat_answered(answer)
    prompt = Text("defend.which_skill", {"defender": defender.name, "stat": Text(f"stat.{stat}")})
    wait = Wait(SKILL_WAIT, Audience.character(_current(state)), prompt, skill_options(sheet_of(defender)))
    return Step(pause=Pause(moved(state, DefenceSkill, stat=stat), (wait,)))


def gm_request(key: str, words: str, said: Mapping[str, str | int | Text], options: CrestMagiaOptions) -> Wait:
    """A request the GMs grant or refuse (`words`: the catalog prefix of its `.asked`, `.granted` and `.refused`
    texts); no answer within `boon_request_minutes` refuses it."""
    answers = (
        Option(GRANT, Text("request.grant"), tone="success", summary=Text(f"{words}.granted", said)),
        Option(REFUSE, Text("request.refuse"), tone="secondary", summary=Text(f"{words}.refused", said)),
    )
    return Wait(
        key,
        Audience.gms(),
        Text(f"{words}.asked", said),
        answers,
        deadline_seconds=options.boon_request_minutes * 60,
        default=REFUSE,
    )


def usual_defence_skills(attack_skill: str | None) -> frozenset[str]:
    """The skills a defence uses without asking (ours, for R6's skill "they can rationalize"): dodging,
    enduring, noticing, holding firm, parrying or blocking, and the skill the attack (or the opposed check, R4)
    itself is made with."""
    return USUAL_DEFENCE_SKILLS | ({attack_skill} if attack_skill else set())


def needs_agreement(
    character: CharacterSnapshot, skill: str | None, usual: frozenset[str], answer: Answer, options: CrestMagiaOptions
) -> bool:
    """Whether a passive roll's skill waits for a GM to agree to it: one not among the usual ones, unless
    `free_stat_choice`. A GM's own choice (for a character they run, or answering for a player) needs no one's
    agreement."""
    agreed = options.free_stat_choice or character.gm_run or answer.forced
    return skill is not None and skill not in usual and not agreed


def defence_skill(scene: Scene, state: DefenceSkill, answer: Answer) -> Step:
    """R6: the Defense Roll, the hit, and on a hit the Damage Roll (R7) and the withstand. Another skill than
    the usual ones is a GM's to agree to first, unless `free_stat_choice`."""
    options = crest_options(scene.options)
    attacker, defender = scene.get(ATTACKER), scene.get(_current(state))
    if attacker is None or defender is None:
        raise RuleError("fighter_gone")
    spec, skill = passive_roll(defender, state.stat, answer, options)
    if needs_agreement(defender, skill, usual_defence_skills(state.means.skill), answer, options):
        said: dict[str, str | int | Text] = {
            "name": defender.name,
            "skill": Text(f"skill.{skill}"),
            "attacker": attacker.name,
        }
        wait = gm_request(SKILL_REQUEST, "skill_request", said, options)
        return Step(pause=Pause(moved(state, DefenceSkillRequest, asked=answer.option), (wait,)))
    carried = moved(state, DefenceReroll, defence=spec, skill=skill)
    return _defence_rolled(scene, carried, spec.roll(scene.dice, options), options)


def defence_skill_decided(scene: Scene, state: DefenceSkillRequest, answer: Answer) -> Step:
    """The GMs agree to the defender's skill (it is rolled), or not (the defender picks among the usual ones)."""
    options = crest_options(scene.options)
    attacker, defender = scene.get(ATTACKER), scene.get(_current(state))
    if attacker is None or defender is None:
        raise RuleError("fighter_gone")
    if answer.option == GRANT:
        spec, skill = passive_roll(defender, state.stat, Answer(SKILL_WAIT, state.asked), options)
        granted = moved(state, DefenceReroll, asked=None, defence=spec, skill=skill)
        return _defence_rolled(scene, granted, spec.roll(scene.dice, options), options)
    usual = usual_defence_skills(state.means.skill)
    prompt = Text("defend.which_usual_skill", {"defender": defender.name, "stat": Text(f"stat.{state.stat}")})
    wait = Wait(SKILL_WAIT, Audience.character(_current(state)), prompt, skill_options(sheet_of(defender), usual))
    return Step(pause=Pause(moved(state, DefenceSkill, asked=None), (wait,)))


def _defence_rolled(
    scene: Scene, state: DefenceReroll, roll: ActionRoll, options: CrestMagiaOptions, *, spent: int = 0
) -> Step:
    """The Defense Roll against the attack. A hit a player could still roll again for a Destiny Point (C30) waits
    for them to reroll or let it stand (the deadline lets it stand); otherwise the damage follows at once. A
    critical defence, once it stands, is the GMs' to give a turn of events (R3)."""
    who = _current(state)
    attacker, defender = scene.one(ATTACKER), scene.one(who)
    result = resolve_attack(state.attack, roll, options)
    defended = Defended(
        attacker=attacker.name,
        defender=defender.name,
        stat=roll.stat,
        skill=state.skill,
        attack_total=state.attack.total,
        defence_total=roll.total,
        hit=result.hit,
        maxed=result.maxed,
        crit=roll.crit,
        rerolled=spent > 0,
    )
    point = earned(who, defender, roll.crit)
    step = Step(rolls=roll.rolls(), outcomes=(defended,)).then(point)
    told = _defence_narrative(scene, state, roll.crit)
    if not result.hit:
        return step.then(told).then(_next_defender(scene, state, options))
    points = defender.pools[DESTINY].current - spent + len(point.outcomes) if DESTINY in defender.pools else 0
    # A critical attack hits whatever the defence: nothing a reroll could change.
    reroll = (
        None
        if result.maxed
        else reroll_wait(who, defender, points, roll.total, options, final=True, prompt="reroll.prompt_hit")
    )
    if reroll is not None:
        return Step.of(step, pause=Pause(state.model_copy(update={"defence_crit": roll.crit}), (reroll,)))
    return _hit(scene, state, state.stat, step.then(told), options)


def _defence_narrative(scene: Scene, state: Attacking, crit: Crit | None) -> Step:
    attacker = scene.one(ATTACKER)
    who = _current(state)
    return narrative(who, scene.one(who), crit, Text("narrative.defence", {"attacker": attacker.name}))


def narrative(who: str, character: CharacterSnapshot, crit: Crit | None, roll: Text) -> Step:
    """R3: a critical on any roll but an attack gives its character a good (or bad) turn of events, which the GMs
    add: they are told so privately, once the roll stands (a roll rolled again for a Destiny Point is not)."""
    if crit is None:
        return Step()
    return Step(effects=(Whisper(who, Text(f"narrative.{crit}", {"name": character.name, "roll": roll}), gms=True),))


def defence_rerolled(scene: Scene, state: DefenceReroll, answer: Answer) -> Step:
    """A hit defence let stand (the damage follows), or rolled again for a Destiny Point."""
    options = crest_options(scene.options)
    if answer.option != REROLL:
        return _hit(scene, state, state.stat, _defence_narrative(scene, state, state.defence_crit), options)
    spent, again, less = rerolled(scene, _current(state), state.defence, state.defence_crit, options)
    return spent.then(_defence_rolled(scene, state, again, options, spent=less))


def _hit(scene: Scene, state: Attacking, stat: Stat, step: Step, options: CrestMagiaOptions) -> Step:
    """R7: the Damage Roll against this defender on `stat`, from the attack's one 2d6 (C24: rolled at the first
    hit, kept for the others) with this defender's weakness and resistance dice; then the withstand, chosen when
    the defender has more than one way."""
    who = _current(state)
    defender = scene.one(who)
    sheet = sheet_of(defender)
    made_with = state.means
    shared = state.faces
    faces = None if state.attack.crit == "success" else (shared or damage_dice(False, scene.dice))
    damage = damage_for(
        faces,
        made_with.rating,
        weak=made_with.damage_type in sheet.weaknesses,
        resistant=made_with.damage_type in sheet.resistances,
        dice=scene.dice,
        options=options,
        specialty=made_with.form_rank,
        source=f"crest:{made_with.name}" if made_with.kind == CREST else "rating",
    )
    carried = moved(state, Withstanding, stat=stat, damage=damage.total, faces=faces)
    shown = damage.rolls()
    if shared:  # the same two dice again: said so, so that no one reads them as a second roll
        shown = tuple(replace(roll, label="damage_shared") for roll in shown)
    dealt = DamageRolled(attacker=scene.one(ATTACKER).name, defender=defender.name, damage=damage.total)
    rolled = Step.of(step, Step(rolls=shown, outcomes=(dealt,)))
    sources = withstand_choices(defender)
    if len(sources) <= 1:
        return rolled.then(_withstand(scene, carried, sources[0] if sources else NO_ARMOR, options))
    wait_options = tuple(Option(source.key, source.label) for source in sources)
    prompt = Text("withstand.which", {"defender": defender.name, "damage": damage.total})
    wait = Wait(WITHSTAND_WAIT, Audience.character(who), prompt, wait_options)
    return Step.of(rolled, pause=Pause(carried, (wait,)))


def _next_defender(scene: Scene, state: Attacking, options: CrestMagiaOptions) -> Step:
    """This defender is done: the next one of an area attack is asked for its stat (or struck, with nothing to
    choose), or the attack is over. What was this defender's alone stays behind."""
    following = state.current + 1
    if following >= len(scene.members(DEFENDER)):
        return Step()
    carried = moved(state, DefenceStat, current=following)
    attacker, defender = scene.one(ATTACKER), scene.one(_current(carried))
    waits = _defence_waits(attacker, defender, carried, None)
    if not waits:
        return _struck(scene, carried, None, options)
    return Step(pause=Pause(carried, waits))


def withstand_chosen(scene: Scene, state: Withstanding, answer: Answer) -> Step:
    defender = scene.one(_current(state))
    chosen = next((source for source in withstand_choices(defender) if source.key == answer.option), NO_ARMOR)
    return _withstand(scene, state, chosen, crest_options(scene.options))


def overflow_chosen(scene: Scene, state: Overflowing, answer: Answer) -> Step:
    options = crest_options(scene.options)
    defender = scene.one(_current(state))
    stat = stat_answered(answer)
    pending = Damaged(hp_of(defender), state.left, state.choices, defender.pools[CONSEQUENCE].current, False)
    return _placed(
        scene, defender, choose_overflow(pending, stat, options), state, options, placing=pending.left, first=stat
    )


def _withstand(scene: Scene, state: Withstanding, source: Withstander, options: CrestMagiaOptions) -> Step:
    """R8 and R9: the Withstand Roll, and what gets through lands on the stat that defended (C8)."""
    attacker, defender = scene.one(ATTACKER), scene.one(_current(state))
    withstand = withstand_roll(source.rating, scene.dice, options, specialty=source.specialty, source=source.source)
    damage = state.damage
    taken = withstand.absorbed(damage)
    stat = state.stat
    wounded = Wounded(
        attacker=attacker.name,
        defender=defender.name,
        damage=damage,
        withstand=withstand.total,
        taken=taken,
        stat=stat,
        crit=withstand.crit,
    )
    hurt = take_damage(hp_of(defender), stat, taken, defender.pools[CONSEQUENCE].current, options)
    used = item_used(_current(state), defender, source.item) if source.item else Step()
    rolled = Step(rolls=withstand.rolls(), outcomes=(wounded,))
    return Step.of(used, rolled).then(_placed(scene, defender, hurt, state, options, placing=taken, first=stat))


def _placed(
    scene: Scene,
    defender: CharacterSnapshot,
    hurt: Damaged,
    state: Withstanding,
    options: CrestMagiaOptions,
    *,
    placing: int,
    first: Stat,
) -> Step:
    """The pools as `placing` damage left them (starting with `first`), the d4s of the depleted stats, a
    consequence climbed, and the next overflow choice if there is one (else the next defender)."""
    who = _current(state)
    effects = hp_changes(who, defender, hurt.hp, options)
    before = hp_of(defender)
    order = [first, *(stat for stat in STATS if stat != first)]
    losses = {stat: before[stat] - hurt.hp[stat] for stat in order if before[stat] != hurt.hp[stat]}
    lost = placing - sum(losses.values()) - hurt.left
    outcomes: list[Outcome] = []
    if placing > 0:
        outcomes.append(Placed(defender=defender.name, losses=losses, lost=lost, more=isinstance(state, Overflowing)))
    if hurt.climbed:
        effects.append(PoolDelta(who, CONSEQUENCE, 1))
        outcomes.append(Climbed(defender=defender.name, level=hurt.consequence))
    step = Step(effects=tuple(effects), outcomes=tuple(outcomes))
    if not hurt.left:
        return step.then(_next_defender(scene, state, options))
    prompt = Text("overflow.which", {"defender": defender.name, "left": hurt.left})
    wait = Wait(OVERFLOW_WAIT, Audience.character(who), prompt, stat_options(hurt.choices))
    carried = moved(state, Overflowing, left=hurt.left, choices=hurt.choices)
    return Step.of(step, pause=Pause(carried, (wait,)))


@dataclass(frozen=True)
class Withstander:
    """What a defender absorbs a blow with (R8): its armour, or a crest by its rank and perhaps in the form of one
    of its specialties (R13)."""

    key: str
    label: Text
    rating: int
    specialty: int = 0
    item: str | None = None  # the item crest it uses up one use of (C27)
    source: str = "rating"  # the roll's name for the rating: `crest:<name>` for a crest's rank


NO_ARMOR = Withstander(ARMOR, Text("withstand.nothing"), 0)


def withstand_choices(character: CharacterSnapshot) -> list[Withstander]:
    """What the character can withstand with, the best first: by the rating it rolls with (at the same, in the
    sheet's order: armour, crests, item crests)."""
    sheet = sheet_of(character)
    found = []
    if sheet.armor:
        armor = sheet.armor
        found.append(
            Withstander(ARMOR, Text("withstand.with", {"name": armor.name, "rating": armor.rating}), armor.rating)
        )
    for index, crest in enumerate(sheet.crests):
        named = Text("withstand.with", {"name": crest.name, "rating": crest.rank})
        found.append(Withstander(f"{CREST}_{index}", named, crest.rank, source=f"crest:{crest.name}"))
        found += [
            Withstander(
                f"{CREST}_{index}_{form}",
                Text(
                    "withstand.with_form",
                    {"name": crest.name, "form": specialty.name, "rating": crest.rank + specialty.rank},
                ),
                crest.rank,
                specialty.rank,
                source=f"crest:{crest.name}",
            )
            for form, specialty in enumerate(crest.specialties)
        ]
    for index, item in enumerate(sheet.item_crests):
        if item_uses_left(character, item) != 0:
            named = Text("withstand.with", {"name": item.name, "rating": item.rank})
            found.append(Withstander(f"{ITEM}_{index}", named, item.rank, item=item.name, source=f"crest:{item.name}"))
    return sorted(found, key=lambda source: -(source.rating + source.specialty))


def earned(who: str, character: CharacterSnapshot, crit: str | None) -> Step:
    """R3: a player character's critical success earns a Destiny Point."""
    if crit != "success" or character.gm_run:
        return Step()
    return Step(effects=(PoolDelta(who, DESTINY, 1),), outcomes=(Earned(name=character.name),))
