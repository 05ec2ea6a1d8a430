"""An attack as an exchange (R3-R6, R13, R14, R19, R26): the attack roll resolves at once; a hit stays open for the
reactions the rules give (the defender's Mind's Eye, an ally's Guard in a fight) until `reaction_minutes` pass or
the defender takes it; then the damage lands, through temporary HP first."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator

from rules.exchange import (
    Answer,
    Audience,
    Effect,
    Modifier,
    Option,
    Outcome,
    Pause,
    PoolDelta,
    Resumption,
    RuleError,
    StatePatch,
    Step,
    Text,
    Wait,
    Whisper,
    member,
)
from rules.grail_zh import actions, upkeep
from rules.grail_zh.characters import release_cost
from rules.grail_zh.model import KILL_MP, ROUNDS_PER_MINUTE
from rules.grail_zh.odds import d20_outcomes, hit_chance
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.ranks import Rank
from rules.grail_zh.rolls import (
    D20,
    AttackRoll,
    Reductions,
    damage_roll,
    damage_taken,
    luck_d20,
    minds_eye,
    plus_multiplier,
    range_penalty,
    save,
    save_dc,
    split_damage,
)
from rules.grail_zh.sheets import Damage
from rules.grail_zh.stored import (
    CONCEALED,
    CONTINUING,
    CONTRACT,
    DEAD,
    DEFENDING,
    DOWN,
    DYING,
    FAMILIAR,
    FATE,
    HP,
    MASTER,
    MP,
    REINFORCED,
    SERVANT,
    SPIRIT_FORM,
    TEMP_HP,
    UNAWARE,
    UPKEEP_UNPAID,
    VANISHED,
    fate_of,
    grail_options,
    hidden_sheet,
    luck_of,
    master_file,
    master_of,
    recorded_fate,
    servant_file,
    servant_like,
    servant_of,
    speed_of,
    takes_luck_rerolls,
)
from rules.play import (
    ACTOR,
    ANSWERER,
    ATTACKER,
    DEFENDER,
    EVERYONE,
    GM_TERM,
    OPPONENT,
    AttackInput,
    CharacterSnapshot,
    Scene,
    Turn,
)
from rules.words import joined

REACTION_WAIT = "reaction"
GUARD_WAIT = "guard"
MINDS_EYE, TAKE, GUARD = "minds_eye", "take", "guard"
SUSTAINING = "sustaining"  # the character state key of the Noble Phantasm it keeps up, and its cost a round
PLUS_DAY = "plus_day"  # the character state key of the day it last released a "+" (R17: once a day)
OPPORTUNITY_WAIT, CAST_WAIT = "opportunity", "cast"
CONSENT_WAIT, GIVE, REFUSE = "consent", "give", "refuse"
MASTER_ROLE = "master"  # the Servant's Master, cast into the exchange to consent to a transfer
OPPORTUNITY, GO_ON = "strike", "go_on"
STRIKER = "striker"  # the role an opportunity attacker plays while its blow waits for its target's reactions
FAMILIAR_PENALTY = -5  # a familiar, or a creature whose file says it is one, is hard to hit (R3, R21)
PROVOKING = frozenset({"bolt", "feat"})  # D36: spellcasting, and a signature feat's magecraft
REACTED = "reacted"  # the character state key of the round it used its reaction action in (R25)
BOLT_MP = 5  # per standard action of attack magecraft (R21)
MAX_BOLT_ACTIONS = 6
SEPARATOR = ":"
NP = "np"


class GrailAttackInput(AttackInput):
    distance: int = Field(0, ge=0, le=100_000, description="param.distance")
    unaware: bool = Field(False, description="param.unaware")
    actions: int = Field(1, ge=1, le=MAX_BOLT_ACTIONS, description="param.actions")
    # R3's situational 各种修正 are the GM's: a player's is asked of them.
    modifier: int = Field(0, ge=-20, le=20, description="param.modifier", json_schema_extra=GM_TERM)
    thrown: bool = Field(False, description="param.thrown")
    confirm: bool = Field(False, description="param.confirm")
    plus: bool = Field(False, description="param.plus")
    charge: bool = Field(False, description="param.charge")
    type: str | None = Field(None, max_length=40, description="param.type")


class Attacked(Outcome):
    event = "attack.rolled"
    attacker: str
    defender: str
    means: str  # melee, ranged, bolt, feat or the Noble Phantasm's name
    total: int
    hit: bool
    auto: str | None  # Luck's automatic success or failure
    stance: bool = False  # the defender's Defend stance made it hit
    automatic: bool = False  # an effect that hits without a roll


class Provoking(Outcome):
    event = "act.provoking"
    name: str
    act: dict[str, Any]  # the act in words, as a Text


class Unveiled(Outcome):
    event = "map.unveiled"
    name: str


class Casting(Outcome):
    event = "attack.casting"
    caster: str
    means: str
    defender: str


class Paid(Outcome):
    event = "mp.paid"
    name: str
    cost: int
    from_master: int  # what the Master gave (the Servant gained twice as much)
    master: str | None
    vanished: bool
    secret: bool = False  # a character the GMs run: its costs would tell its ranks


class Released(Outcome):
    event = "attack.save_release"
    attacker: str
    means: str  # the Noble Phantasm's name
    save_stat: str  # MAG or LUK
    defenders: list[str]


class Saved(Outcome):
    event = "attack.save"
    defender: str
    dc: int
    total: int
    result: str  # full, half, none


class Evaded(Outcome):
    event = "attack.minds_eye"
    defender: str
    total: int  # the Mind's Eye roll
    against: int  # the attack roll it had to beat
    evaded: bool


class Guarded(Outcome):
    event = "attack.guarded"
    guard: str
    defender: str


class Damaged(Outcome):
    event = "attack.damage"
    defender: str
    rolled: int
    taken: int
    temp_hp: int  # of `taken`, what temporary HP absorbed
    fate: str | None  # dead, vanished, continuing (Battle Continuation), or None
    no_mystery: bool = False  # a mundane attack on a Servant (R4)
    kill_mp: int = 0  # MP the attacker recovered for the kill (R15)
    multiplier: int = 1  # a "+" released (R17)
    reduced: tuple[str, ...] = ()  # what took damage off: halved, defend, magic_resistance, resisted, tactics


@dataclass(frozen=True)
class Means:
    """What an attack is made with: its roll's bonus, its damage, and how the rules treat it."""

    key: str  # melee, ranged, bolt, feat, np
    name: str  # shown: the NP's or the feat's name, else the key
    bonus: int
    damage: Damage
    ranged: bool = False
    mystery: bool = True  # 「无神秘存在的物品不可能伤害到英灵」
    magecraft: bool = False
    normal: bool = True  # a normal attack (a kill recovers MP, R15)
    np_rank: str | None = None
    scope: str = "anti_unit"
    one_shot: bool = False
    resolution: str = "attack_roll"
    save_stat: str = "MAG"
    cost: int = 0
    pluses: int = 0  # the "+" of a Noble Phantasm (R17)
    sustained: bool = False  # a sustained release, paid again every round it is kept up (R13)
    damage_type: str | None = None  # a Noble Phantasm's own (fire, holy...), for resistances
    area: bool = False  # strikes every creature in an area with one roll (a grenade, D31)
    aim: int = 0  # rounds a sniper aimed at its target before the shot (R29)

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "damage": str(self.damage)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Means:
        return cls(**{**data, "damage": Damage.model_validate(data["damage"])})


def _means(value: Means | Mapping[str, Any]) -> Means:
    return value if isinstance(value, Means) else Means.from_dict(value)


def _stored_means(value: Means) -> dict[str, Any]:
    return value.to_dict()


# A blow's means as `Means.to_dict` has always written it: its damage as `NdS+B`.
StoredMeans = Annotated[Means, PlainValidator(_means), PlainSerializer(_stored_means)]


class Blow(BaseModel):
    """A blow while it is resolved: its means, the attack as declared, the d20 every target's roll reads (None for a
    save or a sure effect), a Chinese Martial Arts counter's penalty, and the role striking it (None: the attacker;
    else one striking out of its turn)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    means: StoredMeans
    given: GrailAttackInput
    d20: D20 | None = None
    penalty: int = 0
    by: str | None = None


class Countered(BaseModel):
    """The blow a Chinese Martial Arts counter answered, waiting with the counter: its target's role and the blow."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    state: Blow


class Reaction(Blow, Resumption):
    """A hit waiting for its target's (`role`) reactions; a counter's hit, with the blow it answered (`after`)."""

    stored_as: ClassVar[str] = REACTION_WAIT

    role: str
    after: Countered | None = None


def _awaiting(blow: Blow, role: str) -> Reaction:
    return Reaction(**{name: getattr(blow, name) for name in Blow.model_fields}, role=role)


def _hit_waiting(pause: Pause) -> Reaction:
    """The hit a blow's pause keeps: a blow pauses only for its target's reactions."""
    if not isinstance(pause.state, Reaction):
        raise TypeError(f"a blow paused for {pause.stored_as!r}")
    return pause.state


class Window(Resumption):
    """A provoking act waiting for opportunity attacks on its maker (`caster`, a role): the act in words, those who
    struck at it, and a hit among them waiting for the maker's reactions (`strike`, its striker cast as `STRIKER`)."""

    caster: str
    what: Text
    struck_by: tuple[int, ...] = ()
    strike: Reaction | None = None


class AttackWindow(Window):
    """Attack magecraft or a signature feat in a fight, waiting for opportunity attacks before it is cast."""

    stored_as: ClassVar[str] = OPPORTUNITY_WAIT

    given: GrailAttackInput


class Consenting(Resumption):
    """A Servant's attack it cannot pay alone, waiting for its Master's consent to give MP."""

    stored_as: ClassVar[str] = CONSENT_WAIT

    given: GrailAttackInput


def burst_damage(rank: Rank, ex_value: int) -> Damage:
    """T8: n d12 + (2n - 1) (「约为」: the GM may set another on the NP)."""
    n = rank.magnitude(ex_value) if rank.ex else rank.n
    return Damage(count=n, sides=12, bonus=2 * n - 1)


def attack_actions(character: CharacterSnapshot, options: GrailZhOptions) -> list[tuple[str, str, str]]:
    """(value, kind, name) of each attack the character has: melee always, but for a familiar (which has none); a
    ranged attack for the classes that have one and the trickster's rifle; attack magecraft and the signature feat
    of a Master; each Noble Phantasm."""
    if character.kind == FAMILIAR:
        return []
    item = character.state.get(REINFORCED)
    held = [(f"{NP}{SEPARATOR}{item['name']}", NP, str(item["name"]))] if isinstance(item, Mapping) else []
    return [*_own_attacks(character, options), *held]


def _own_attacks(character: CharacterSnapshot, options: GrailZhOptions) -> list[tuple[str, str, str]]:
    if servant_like(character):
        stats = servant_of(character, options)
        actions = [("melee", "melee", "")]
        if stats.ranged_bonus is not None:
            actions.append(("ranged", "ranged", ""))
        actions += [(f"{NP}{SEPARATOR}{np.name}", NP, np.name) for np in servant_file(character).noble_phantasms]
        return actions
    sheet = master_file(character)
    actions = [("melee", "melee", "")]
    if sheet.master_type == "trickster":
        actions += [("ranged", "rifle", ""), ("grenade", "grenade", "")]
    if "bolt" in sheet.spells:
        actions.append(("bolt", "bolt", ""))
    if sheet.signature_feat is not None and sheet.signature_feat.damage is not None:
        actions.append(("feat", "feat", sheet.signature_feat.name))
    return actions


SNIPER = Damage(count=3, sides=12)  # R29
GRENADE = Damage(count=3, sides=10)
GRENADE_RANGE, GRENADE_AREA = 10, 3  # thrown at most 10 squares, onto a 3x3 area (R29)
GRENADES_THROWN = "grenades_thrown"  # the character state key of how many of its grenades are gone
AIMING = "aiming"  # the state key of a sniper's aim: {"target": id, "name", "rounds", "round"} (R29, D26, D38)
FULL_AIM_ROUNDS = 30  # 3 minutes of aim: the shot's damage at its maximum
AIMED_AT_BONUS = 5  # everyone but its target attacks an aiming trickster at +5


def means_of(character: CharacterSnapshot, action: str, actions: int, options: GrailZhOptions) -> Means:
    """The attack named by `action` (as `attack_actions` gives it), or a RuleError naming what the character has."""
    kind, _, name = action.partition(SEPARATOR)
    if character.kind == FAMILIAR:
        raise RuleError("grail_familiar_attack", name=character.name)
    item = character.state.get(REINFORCED)
    if kind == NP and isinstance(item, Mapping) and str(item["name"]).casefold() == name.strip().casefold():
        rank = Rank.parse(str(item["rank"]))  # R22: a Noble Phantasm of its rank for the hour, paid for already
        return Means(
            NP, str(item["name"]), rank.n, burst_damage(rank, options.ex_value), normal=False, np_rank=str(rank)
        )
    if servant_like(character):
        stats = servant_of(character, options)
        if kind == "melee":
            return Means("melee", "melee", stats.melee_bonus, stats.melee_damage)
        if kind == "ranged" and stats.ranged_bonus is not None and stats.ranged_damage is not None:
            return Means("ranged", "ranged", stats.ranged_bonus, stats.ranged_damage, ranged=True)
        np = servant_file(character).phantasm(name) if kind == NP else None
        if np is not None:
            bonus = np.attack_bonus if np.attack_bonus is not None else np.rank.n  # D13
            return Means(
                NP,
                np.name,
                bonus,
                np.damage or burst_damage(np.rank, options.ex_value),
                ranged=np.ranged,
                magecraft=np.magecraft,
                normal=False,
                np_rank=str(np.rank),
                scope=np.scope,
                one_shot=np.mode == "one_shot",
                resolution=np.resolution,
                save_stat=np.save_stat,
                cost=release_cost(np) if np.needs_release else 0,
                pluses=np.rank.pluses,
                sustained=np.mode == "sustained",
                damage_type=np.damage_type,
            )
    else:
        sheet, stats_ = master_file(character), master_of(character)
        spell = sheet.attribute(sheet.attack_attribute)
        if kind == "melee":
            return Means("melee", "melee", sheet.attribute("str"), stats_.melee_damage, mystery=False)
        if kind == "ranged" and sheet.master_type == "trickster":
            return Means("ranged", "rifle", sheet.attribute("dex"), SNIPER, ranged=True, mystery=False)
        if kind == "grenade" and sheet.master_type == "trickster":
            return Means("grenade", "grenade", sheet.attribute("dex"), GRENADE, ranged=True, mystery=False, area=True)
        if kind == "bolt" and "bolt" in sheet.spells:
            # R21/D37: one roll; each standard action spent on it adds 5 MP and 1d4.
            return Means(
                "bolt",
                "bolt",
                spell,
                Damage(count=actions, sides=4, bonus=spell),
                ranged=True,
                magecraft=True,
                normal=False,
                cost=BOLT_MP * actions,
            )
        feat = sheet.signature_feat
        if kind == "feat" and feat is not None and feat.damage is not None:
            return Means("feat", feat.name, spell, feat.damage, magecraft=True, normal=False)
    known = [Text(f"attack_choice.{kind}", {"name": name}) for _, kind, name in attack_actions(character, options)]
    raise RuleError(
        "grail_no_such_attack",
        action=means_text(kind) if kind != NP else action,
        name=character.name,
        actions=joined(known),
    )


def _combat_refused(attacker: CharacterSnapshot, scene: Scene) -> None:
    """D19: a Servant that could not pay its combat upkeep only moves in that fight; R23: one in spirit form only
    moves and scouts."""
    if scene.turn.in_combat and attacker.state.get(UPKEEP_UNPAID):
        raise RuleError("grail_upkeep_unpaid", name=attacker.name)
    if SPIRIT_FORM in attacker.state:
        raise RuleError("grail_spirit_form", name=attacker.name)


def _declared(attacker: CharacterSnapshot, given: GrailAttackInput) -> GrailAttackInput:
    """The attack as the rules take it, for `/attack` and `/odds` alike: the first blow from Presence Concealment
    finds its target unaware (D29)."""
    return given.model_copy(update={"unaware": True}) if CONCEALED in attacker.state else given


def _unaware(given: GrailAttackInput, defender: CharacterSnapshot) -> bool:
    """Whether the target has not noticed the attacker: as the attacker says, or as a GM ruled (R3)."""
    return given.unaware or UNAWARE in defender.state


def payment(
    scene: Scene, role: str, attacker: CharacterSnapshot, cost: int, confirm: bool, *, helped: bool = True
) -> Step:
    """R14 for a voluntary cost: a Servant pays with its Master's help (unless refused); a Master pays from its own
    MP, and never its last point without `confirm` (「一旦MP为0，master死亡」)."""
    if cost == 0:
        return Step()
    mp = attacker.pools[MP].current
    if attacker.kind != SERVANT:
        if mp - cost < 0 or (mp - cost == 0 and not confirm):
            raise RuleError("grail_master_cost", cost=cost, mp=mp)
        effects: list[Effect] = [PoolDelta(role, MP, -cost)]
        paid = Paid(
            name=attacker.name, cost=cost, from_master=0, master=None, vanished=False, secret=hidden_sheet(attacker)
        )
        if mp == cost:  # 「一旦MP为0，master死亡」, confirmed
            effects.append(StatePatch(role, FATE, DEAD))
            return Step(effects=tuple(effects), outcomes=(paid,)).then(upkeep.master_fell(scene, role))
        return Step(effects=tuple(effects), outcomes=(paid,))
    master = attacker.partner(CONTRACT)
    effects, payment = upkeep.servant_pays(role, attacker, cost, master, forced=False, helped=helped, fatal=confirm)
    paid = Paid(
        name=attacker.name,
        cost=cost,
        from_master=payment.from_master,
        master=master.name if master is not None and payment.from_master else None,
        vanished=payment.vanished,
        secret=hidden_sheet(attacker),
    )
    return Step(effects=tuple(effects), outcomes=(paid,))


def _magnitude(character: CharacterSnapshot, skill: str, options: GrailZhOptions) -> int:
    return servant_of(character, options).magnitude(skill, options.ex_value) if servant_like(character) else 0


def _minds_eye(character: CharacterSnapshot, options: GrailZhOptions) -> int:
    """The X of Mind's Eye, true or false (the two differ in the fiction, not in the numbers)."""
    return max(_magnitude(character, "minds_eye_true", options), _magnitude(character, "minds_eye_false", options))


def _defense(character: CharacterSnapshot, options: GrailZhOptions) -> int:
    """DEX or AGI; none after running, until its next turn (R26), except a Lancer's."""
    lancer = character.kind == SERVANT and servant_file(character).servant_class == "lancer"
    if actions.RUNNING_KEY in character.state and not lancer:
        return 0
    return servant_of(character, options).defense if servant_like(character) else master_of(character).defense


def attacker_modifiers(
    attacker: CharacterSnapshot,
    defender: CharacterSnapshot,
    means: Means,
    given: GrailAttackInput,
    options: GrailZhOptions,
) -> tuple[Modifier, ...]:
    """R3's terms on the attacker's side, each named: its bonus, the GM's situation, range and Clairvoyance,
    Throwing, and the target's Instinct and Protection from Arrows."""
    modifiers = [Modifier(f"means:{means.key}", means.bonus)]
    if given.modifier:
        modifiers.append(Modifier("situational", given.modifier))
    if means.ranged:
        clairvoyance = _magnitude(attacker, "clairvoyance", options)
        if penalty := range_penalty(given.distance, clairvoyance):
            modifiers.append(Modifier("range", -penalty))
        if clairvoyance:
            modifiers.append(Modifier("skill:clairvoyance", clairvoyance))
        if given.thrown and (throwing := _magnitude(attacker, "throwing", options)):
            modifiers.append(Modifier("skill:throwing", throwing))
        # 「避箭的加护：对你的远程攻击」 wards off missiles, not magecraft: the seed gives attack magecraft its range
        # penalty in a sentence of its own (「这个攻击受到距离减值」), as something that is not a 远程攻击.
        if not means.magecraft and (arrows := _magnitude(defender, "arrow_ward", options)):
            modifiers.append(Modifier("skill:arrow_ward", -arrows))
    if instinct := _magnitude(defender, "instinct", options):
        modifiers.append(Modifier("skill:instinct", -instinct))
    if FAMILIAR in _kinds_of(defender):  # 「对使魔的攻击骰-5」
        modifiers.append(Modifier("familiar", FAMILIAR_PENALTY))
    if charisma := _charisma(attacker, options):
        modifiers.append(Modifier("skill:charisma", charisma))
    if means.aim:
        modifiers.append(Modifier("aim", means.aim if options.aim_cap is None else min(means.aim, options.aim_cap)))
    if (elsewhere := _aim(defender)) is not None and elsewhere["target"] != attacker.id:
        modifiers.append(Modifier("aiming_elsewhere", AIMED_AT_BONUS))  # 「瞄准时…其他人攻击你+5」
    return tuple(modifiers)


def _aim(character: CharacterSnapshot) -> Mapping[str, Any] | None:
    aim = character.state.get(AIMING)
    return aim if isinstance(aim, Mapping) else None


class Aimed(Outcome):
    event = "sniper.aim"
    name: str
    target: str
    rounds: int
    bonus: int  # what the rounds add to the shot (`aim_cap`, D26)


def aim(scene: Scene, rounds: int) -> Step:
    """R29, D26, D38: a trickster aims its rifle at the opponent, a standard action for each round of a fight (out
    of one, `rounds` at once); the aim grows while it is kept on the same target, round after round."""
    sniper, target = scene.one(ACTOR), scene.one(OPPONENT)
    if sniper.kind != MASTER or master_file(sniper).master_type != "trickster":
        raise RuleError("grail_no_rifle", name=sniper.name)
    if target.id == sniper.id:
        raise RuleError("grail_aim_self", name=sniper.name)
    turn = scene.turn
    if turn.in_combat and rounds != 1:
        raise RuleError("grail_aim_a_round", name=sniper.name)
    previous = _aim(sniper)
    last = previous.get("round") if previous is not None else None
    kept = (
        previous is not None
        and previous.get("target") == target.id
        and (not turn.in_combat or last is None or int(last) >= turn.round_number - 1)
    )
    total = (int(previous["rounds"]) if kept and previous is not None else 0) + rounds
    aimed = {
        "target": target.id,
        "name": target.name,
        "rounds": total,
        "round": turn.round_number if turn.in_combat else None,
    }
    cap = grail_options(scene.options).aim_cap
    spent = actions.spend(scene, ACTOR, grail_options(scene.options).aim_action)  # D38
    return spent.then(
        Step(
            effects=(StatePatch(ACTOR, AIMING, aimed),),
            outcomes=(
                Aimed(
                    name=sniper.name, target=target.name, rounds=total, bonus=total if cap is None else min(total, cap)
                ),
            ),
        )
    )


def lapsed_aim(role: str, character: CharacterSnapshot, turn: Turn) -> Step:
    """At the start of its turn in a fight, an aim not kept up in the round before is lost."""
    previous = _aim(character)
    last = previous.get("round") if previous is not None else None
    if last is None or int(last) >= turn.round_number - 1:
        return Step()
    return Step(effects=(StatePatch(role, AIMING, None),))


def _aimed(attacker: CharacterSnapshot, defender: CharacterSnapshot, means: Means) -> Means:
    """A rifle shot carries the rounds its shooter aimed at this very target (R29)."""
    aim = _aim(attacker)
    if means.name != "rifle" or aim is None or aim.get("target") != defender.id:
        return means
    return replace(means, aim=int(aim["rounds"]))


def _charisma(attacker: CharacterSnapshot, options: GrailZhOptions) -> int:
    """R19: an ally in sight with Charisma gives +X to attack and damage, never to itself. This game's team is a
    Master and its Servant (§2.6: no camps); in sight is the same sector where the map is kept for both (an ally
    off the map, when the attacker is on it, is not there)."""
    best = 0
    for ally in (attacker.partner(CONTRACT), attacker.dependant(CONTRACT)):
        if ally is None or fate_of(ally) is not None:
            continue
        here, there = actions.square(attacker), actions.square(ally)
        if (here is None) != (there is None):  # one stands on the map and the other nowhere on it: not in sight
            continue
        if here is not None and there is not None and actions.sector_of(here) != actions.sector_of(there):
            continue
        best = max(best, _magnitude(ally, "charisma", options))
    return best


def attack(scene: Scene, given: GrailAttackInput) -> Step:
    """R3: the action it takes (R25), then, for spellcasting in a fight, a window for opportunity attacks on the
    caster (R25, D36); then the cost paid (R13, R14) and one d20 for every target. A hit on one target stays open
    for its reactions; an area Noble Phantasm's lands on each at once."""
    options = grail_options(scene.options)
    attacker = scene.one(ATTACKER)
    _combat_refused(attacker, scene)
    means = means_of(attacker, given.action, given.actions, options)
    given = _declared(attacker, given)
    revealed = Step()
    if CONCEALED in attacker.state:  # D29: the first blow from hiding ends it
        revealed = Step(effects=(StatePatch(ATTACKER, CONCEALED, None),), outcomes=(Unveiled(name=attacker.name),))
    defenders = scene.members(DEFENDER)
    if len(defenders) > 1 and means.scope not in ("anti_army", "anti_city") and not means.area:
        raise RuleError("grail_one_target", name=means_text(means.name))
    # R25: an attack, a charge and a burst release are standard actions; a sustained release is a minor one.
    sustained = means.key == NP and means.sustained
    acted = revealed.then(actions.spend(scene, ATTACKER, actions.MINOR if sustained else actions.STANDARD))
    for defender in defenders:
        _within_reach(attacker, defender, means, given, options)
    if given.charge:
        acted = acted.then(_charged(scene, attacker, defenders[0], means, options))
    if means.key == "grenade":
        acted = acted.then(_grenade_thrown(attacker, defenders, given))
    if means.name == "rifle" and AIMING in attacker.state:  # the shot ends the aim
        means = _aimed(attacker, defenders[0], means)
        acted = acted.then(Step(effects=(StatePatch(ATTACKER, AIMING, None),)))
    if given.plus:
        acted = acted.then(_plus_used(scene, attacker, means))
    if means.key == "bolt" and given.actions > 1 and scene.turn.in_combat:
        # D37: each further d4 is a further standard action: those of its next turns go into this spell.
        acted = acted.then(Step(effects=(StatePatch(ATTACKER, actions.COMMITTED, given.actions - 1),)))
    acted = acted.then(_noise(scene, means))
    if means.key in PROVOKING and provokes(scene, ATTACKER):
        casting = Casting(caster=attacker.name, means=means.name, defender=", ".join(d.name for d in defenders))
        what = Text("provoke.casts", {"means": means_text(means.name)})
        window = opportunity_window(scene, AttackWindow(caster=ATTACKER, what=what, given=given))
        return Step.of(acted, Step(outcomes=(casting,)), pause=window)
    return acted.then(_carried_out(scene, given, means))


HEARD = "heard_fight"  # the state key of the round a character last heard a fight (one whisper a round)
IN_FIGHT = "in_fight"  # the state key of a character in the fight's turn order, which hears no news of it


def _noise(scene: Scene, means: Means) -> Step:
    """R27: a fight between Masters is heard by everyone in its sector; one with a Servant by the Masters and
    Servants within 1 sector, and each released Noble Phantasm carries it as many sectors further as its rank. Each
    who hears it is told privately, once a round; those in the fight's turn order are told nothing of their own."""
    fighters = (scene.one(ATTACKER), *scene.members(DEFENDER))
    where = next((there for fighter in fighters if (there := actions.square(fighter)) is not None), None)
    if where is None:
        return Step()
    servants = any(servant_like(fighter) for fighter in fighters)
    reach = (1 if servants else 0) + (Rank.parse(means.np_rank).n if means.np_rank else 0)
    sector = actions.sector_of(where)
    ids = {fighter.id for fighter in fighters}
    effects: list[Effect] = []
    for position, other in enumerate(scene.members(EVERYONE)):
        there = actions.square(other)
        if other.id in ids or other.gm_run or there is None or fate_of(other) is not None:
            continue
        if scene.turn.in_combat and IN_FIGHT in other.state:
            continue
        if servants and other.kind not in (MASTER, SERVANT):
            continue
        apart = actions.sector_of(there)
        if max(abs(apart[0] - sector[0]), abs(apart[1] - sector[1])) > reach:
            continue
        if scene.turn.in_combat and other.state.get(HEARD) == scene.turn.round_number:
            continue
        who = member(EVERYONE, position)
        heard = Text("noise.heard", {"name": other.name, "sx": sector[0], "sy": sector[1]})
        effects += [Whisper(who, heard), StatePatch(who, HEARD, scene.turn.round_number)]
    return Step(effects=tuple(effects))


def provokes(scene: Scene, role: str) -> bool:
    """Whether a provoking act opens a window for opportunity attacks: in a fight, unless the map shows no one next
    to the one who acts (R25: only an adjacent character may strike, whoever runs it)."""
    acting = scene.one(role)
    return scene.turn.in_combat and _anyone_next_to(scene, acting, {acting.id})


def _anyone_next_to(scene: Scene, character: CharacterSnapshot, besides: set[int]) -> bool:
    """Whether anyone not in `besides` may act next to `character` (an opportunity attack, a Guard): one of the
    living on the square beside it where the map shows who stands where, players' and GMs' alike; anyone where it
    does not, who may say they are adjacent."""
    everyone, here = scene.members(EVERYONE), actions.square(character)
    if not everyone or here is None:
        return True
    return any(
        other.id not in besides
        and fate_of(other) is None
        and (apart := actions.distance(character, other)) is not None
        and apart <= 1
        for other in everyone
    )


def opportunity_window(scene: Scene, window: Window) -> Pause:
    """R25, D36: a provoking act (spellcasting, entering spirit form) waits for opportunity attacks on its maker,
    then the step its `window` names carries it out."""
    return Pause(window, _opportunity_waits(scene, window.caster, window.what, grail_options(scene.options)))


def answer_window(scene: Scene, state: Window, answer: Answer, go_on: Callable[[], Step]) -> Step:
    """An opportunity attack on the maker of a provoking act, the window staying open for others (D16b: unlimited
    unless `opportunity_cap`); or, the window closed, the act itself (`go_on`). A maker who falls loses it. A hit
    waits for the maker's reactions first, as any attack's does (the window's `strike`, its striker cast as
    `STRIKER` meanwhile)."""
    if state.strike is not None:
        rest = state.model_copy(update={"strike": None})
        return _after_opportunity(scene, rest, _reaction(scene, state.strike, answer), go_on)
    if answer.wait != OPPORTUNITY_WAIT:
        return go_on()
    role = state.caster
    caster, striker = scene.one(role), scene.one(ANSWERER)
    if striker.id == caster.id:
        raise RuleError("grail_guard_self", name=striker.name)
    if striker.id in state.struck_by:  # D16b: one opportunity attack per trigger for each character
        raise RuleError("grail_struck_already", name=striker.name)
    if (apart := actions.distance(striker, caster)) is not None and apart > 1:
        raise RuleError("grail_not_adjacent", name=caster.name, distance=apart)
    struck = _strike(scene, ANSWERER, role, counter=False, alone=True)
    again = state.model_copy(update={"struck_by": (*state.struck_by, striker.id)})
    if struck.pause is not None:
        blow = _hit_waiting(struck.pause).model_copy(update={"by": STRIKER})
        return Step(
            rolls=struck.rolls,
            effects=struck.effects,
            outcomes=struck.outcomes,
            cast={STRIKER: (striker.id,)},
            pause=Pause(again.model_copy(update={"strike": blow}), struck.pause.waits),
        )
    return _after_opportunity(scene, again, struck, go_on)


def _after_opportunity(scene: Scene, state: Window, struck: Step, go_on: Callable[[], Step]) -> Step:
    """An opportunity attack resolved: a maker it felled loses its act (and pays nothing for it); else the window
    opens again for the others, or (its cap reached) the act goes on."""
    options = grail_options(scene.options)
    if _fell(struck, scene.one(state.caster).name):
        return struck
    if options.opportunity_cap is None or len(state.struck_by) < options.opportunity_cap:
        waits = _opportunity_waits(scene, state.caster, state.what, options, struck=True)
        return Step.of(struck, pause=Pause(state, waits))
    return struck.then(go_on())


def _opportunity_waits(
    scene: Scene, caster_role: str, what: Text | str, options: GrailZhOptions, *, struck: bool = False
) -> tuple[Wait, ...]:
    """Any player's opportunity attack on the caster (an adjacent character's, where the map is kept), and the GMs'
    button that lets the spell go on; with no answer the spell goes on when `reaction_minutes` pass. Once someone
    has `struck`, the closed window says that the opening passed, not that no one took it."""
    caster = scene.one(caster_role)
    said: dict[str, str | int | Text] = {"caster": caster.name, "act": what}
    strike = Option(OPPORTUNITY, Text("opportunity.button"), tone="danger", summary=Text("opportunity.done", said))
    go_on = Option(GO_ON, Text("opportunity.go_on"), tone="secondary")
    return (
        Wait(
            OPPORTUNITY_WAIT,
            Audience.players(),
            Text("opportunity.prompt", said),
            (strike,),
            settled=Text("opportunity.passed" if struck else "opportunity.closed", said),
        ),
        Wait(
            CAST_WAIT,
            Audience.gms(),
            Text("opportunity.gm_prompt", said),
            (go_on,),
            deadline_seconds=options.reaction_minutes * 60,
            default=GO_ON,
        ),
    )


def means_text(name: str) -> Text | str:
    """An attack's means in the reader's words: melee, a ranged attack, attack magecraft; an NP or a feat by name."""
    return Text(f"means.{name}") if name in ("melee", "ranged", "rifle", "grenade", "bolt") else name


def _consent(
    scene: Scene, servant: CharacterSnapshot, master: CharacterSnapshot | None, given: GrailAttackInput, means: Means
) -> Step:
    """The Master is asked, as the `master` of the exchange, whether it gives MP for its Servant's cost."""
    if master is None:
        raise RuleError("grail_no_master", name=servant.name)
    said: dict[str, str | int | Text] = {
        "master": master.name,
        "servant": servant.name,
        "cost": means.cost,
        "mp": servant.pools[MP].current,
    }
    choices = (
        Option(GIVE, Text("consent.give"), tone="success", summary=Text("consent.given", said)),
        Option(REFUSE, Text("consent.refuse"), tone="secondary", summary=Text("consent.refused", said)),
    )
    wait = Wait(CONSENT_WAIT, Audience.character(MASTER_ROLE), Text("consent.prompt", said), choices)
    return Step(cast={MASTER_ROLE: (master.id,)}, pause=Pause(Consenting(given=given), (wait,)))


def consent(scene: Scene, state: Consenting, answer: Answer) -> Step:
    """The Master's answer: the attack goes on, paid with its help or without it (refused when it cannot be)."""
    given = state.given
    attacker = scene.one(ATTACKER)
    means = means_of(attacker, given.action, given.actions, grail_options(scene.options))
    if answer.option == GIVE:
        return _carried_out(scene, given, means, consented=True)
    try:
        return _carried_out(scene, given, means, consented=False)
    except RuleError:  # it cannot pay alone: the attack does not happen, and its action is not spent
        withheld = Step(outcomes=(Withheld(name=attacker.name, cost=means.cost),))
        return actions.given_back(
            ATTACKER, attacker, scene.turn, actions.MINOR if means.sustained else actions.STANDARD
        ).then(withheld)


class Withheld(Outcome):
    event = "mp.withheld"
    name: str
    cost: int


def opportunity(scene: Scene, state: AttackWindow, answer: Answer) -> Step:
    """An attack spell's window for opportunity attacks; closed, the spell."""
    given = state.given
    means = means_of(scene.one(ATTACKER), given.action, given.actions, grail_options(scene.options))
    return answer_window(scene, state, answer, lambda: _carried_out(scene, given, means))


def _carried_out(scene: Scene, given: GrailAttackInput, means: Means, *, consented: bool | None = None) -> Step:
    """The attack itself: its cost, its d20, each target's resolution. Without `auto_transfer`, a cost the Servant
    cannot pay alone waits first for its Master's consent to give (R14: 「player confirms」)."""
    attacker = scene.one(ATTACKER)
    defenders = scene.members(DEFENDER)
    master = attacker.partner(CONTRACT)
    short = attacker.kind == SERVANT and attacker.pools[MP].current - means.cost < 1
    if (
        short
        and consented is None
        and not grail_options(scene.options).auto_transfer
        and upkeep.can_give(master, attacker)
    ):
        return _consent(scene, attacker, master, given, means)
    paid = payment(scene, ATTACKER, attacker, means.cost, given.confirm, helped=consented is not False)
    if means.key == NP and means.sustained:  # R13: kept up, it is paid again at the start of each later round
        paid = paid.then(Step(effects=(StatePatch(ATTACKER, SUSTAINING, {"name": means.name, "cost": means.cost}),)))
    if any(isinstance(o, Paid) and o.vanished for o in paid.outcomes):
        return paid  # D18: the last of its MP went into the release: it vanishes before the blow
    state = Blow(means=means, given=given)
    if means.resolution == "attack_roll":  # one d20 for every target; a save or a sure effect rolls none
        d20 = luck_d20(scene.dice, luck_of(attacker), optional_rerolls=takes_luck_rerolls(attacker))
        state = Blow(means=means, given=given, d20=d20)
    steps = [paid]
    if means.resolution == "save":  # no attack roll to head the post: the release itself, and who must save
        steps.append(
            Step(
                outcomes=(
                    Released(
                        attacker=attacker.name,
                        means=means.name,
                        save_stat=means.save_stat,
                        defenders=[defender.name for defender in defenders],
                    ),
                )
            )
        )
    for position, defender in enumerate(defenders):
        steps.append(_resolved(scene, member(DEFENDER, position), defender, state, alone=len(defenders) == 1))
    return Step.of(*steps)


def map_distance(attacker: CharacterSnapshot, defender: CharacterSnapshot, given: GrailAttackInput) -> int | None:
    """Squares between them: the map's where it is kept for both (what a player says cannot shorten it), else the
    distance the attack states."""
    apart = actions.distance(attacker, defender)
    return apart if apart is not None else (given.distance or None)


def _grenade_thrown(
    attacker: CharacterSnapshot, defenders: Sequence[CharacterSnapshot], given: GrailAttackInput
) -> Step:
    """R29: one of its ten grenades, thrown at most 10 squares onto a 3x3 area holding every target."""
    thrown = int(attacker.state.get(GRENADES_THROWN, 0) or 0)
    if thrown >= master_of(attacker).grenades:
        raise RuleError("grail_no_grenades", name=attacker.name)
    squares = [there for defender in defenders if (there := actions.square(defender)) is not None]
    for axis in (0, 1):
        if squares and max(s[axis] for s in squares) - min(s[axis] for s in squares) >= GRENADE_AREA:
            raise RuleError("grail_grenade_area", size=GRENADE_AREA)
    for defender in defenders:
        apart = map_distance(attacker, defender, given)
        if apart is not None and apart > GRENADE_RANGE:
            raise RuleError("grail_grenade_range", name=defender.name, distance=apart, range=GRENADE_RANGE)
    return Step(effects=(StatePatch(ATTACKER, GRENADES_THROWN, thrown + 1),))


def _within_reach(
    attacker: CharacterSnapshot,
    defender: CharacterSnapshot,
    means: Means,
    given: GrailAttackInput,
    options: GrailZhOptions,
) -> None:
    """Where both squares are kept, a melee attack needs the target adjacent (R25), or within a charge (R26); the
    rifle has no maximum range unless `sniper_range` sets one (D25)."""
    apart = actions.distance(attacker, defender)
    if means.name == "rifle" and options.sniper_range is not None:
        reach = map_distance(attacker, defender, given)
        if reach is not None and reach > options.sniper_range:
            raise RuleError("grail_out_of_range", name=defender.name, distance=reach, range=options.sniper_range)
    if apart is None or means.ranged or apart <= 1:
        return
    if not given.charge:
        raise RuleError("grail_not_adjacent", name=defender.name, distance=apart)


def _charged(
    scene: Scene, attacker: CharacterSnapshot, target: CharacterSnapshot, means: Means, options: GrailZhOptions
) -> Step:
    """R26's charge: a standard action that moves up to its speed, then one melee attack; it ends on the free square
    next to the target nearest to where it began (on the map, when both squares are kept)."""
    if means.ranged:
        raise RuleError("grail_charge_melee", name=attacker.name)
    speed = speed_of(attacker, options)
    apart = actions.distance(attacker, target)
    if apart is None:
        return Step()
    if speed is not None and apart - 1 > speed:
        raise RuleError("grail_too_far", name=target.name, distance=apart, speed=speed)
    there, here = actions.square(target), actions.square(attacker)
    if there is None or here is None or apart <= 1:
        return Step()
    taken = {
        spot
        for other in scene.members(EVERYONE)
        if other.id != attacker.id and (spot := actions.square(other)) is not None
    }
    around = [(there[0] + dx, there[1] + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
    free = sorted((max(abs(x - here[0]), abs(y - here[1])), (x, y)) for x, y in around if (x, y) not in taken)
    if not free or (speed is not None and free[0][0] > speed):
        raise RuleError("grail_no_room", name=target.name)
    x, y = free[0][1]
    landing = actions.position_value(
        x % actions.SECTOR_SQUARES,
        y % actions.SECTOR_SQUARES,
        (x // actions.SECTOR_SQUARES, y // actions.SECTOR_SQUARES),
    )
    return Step(effects=(StatePatch(ATTACKER, actions.POSITION, landing),))


def _plus_used(scene: Scene, attacker: CharacterSnapshot, means: Means) -> Step:
    """R17: once a day, a burst Noble Phantasm's "+" multiplies what its release does (its damage here)."""
    if means.key != NP or not means.pluses:
        raise RuleError("grail_no_plus", name=means_text(means.name))
    day = upkeep.day_of(attacker)
    if attacker.state.get(PLUS_DAY) == day:
        raise RuleError("grail_plus_today", name=attacker.name)
    return Step(effects=(StatePatch(ATTACKER, PLUS_DAY, day),))


def _attack_roll(
    scene: Scene, attacker: CharacterSnapshot, defender: CharacterSnapshot, state: Blow, options: GrailZhOptions
) -> AttackRoll:
    if state.d20 is None:
        raise TypeError(f"{state.means.name} is resolved without an attack roll")
    modifiers, defense, stance = _roll_terms(attacker, defender, state.means, state.given, options)
    if state.penalty:  # Chinese Martial Arts' counter (R19)
        modifiers = (*modifiers, Modifier("skill:martial_arts", -state.penalty))
    return AttackRoll(state.d20, modifiers, defense, defend_stance=stance)


def _roll_terms(
    attacker: CharacterSnapshot,
    defender: CharacterSnapshot,
    means: Means,
    given: GrailAttackInput,
    options: GrailZhOptions,
) -> tuple[tuple[Modifier, ...], int, bool]:
    """What an attack roll reads of the two, for `/attack` and `/odds` alike (R3): the attacker's terms (the range
    from the map where it is kept), the target's defence unless it is unaware, and its Defend stance (R26)."""
    given = given.model_copy(update={"distance": map_distance(attacker, defender, given) or 0})
    modifiers = attacker_modifiers(attacker, defender, means, given, options)
    defense = 0 if _unaware(given, defender) else _defense(defender, options)
    return modifiers, defense, DEFENDING in defender.state


def _striker(scene: Scene, state: Blow) -> CharacterSnapshot:
    return scene.one(state.by or ATTACKER)


def _resolved(scene: Scene, role: str, defender: CharacterSnapshot, state: Blow, *, alone: bool) -> Step:
    """One target's resolution: its save, a sure effect, or the attack roll, then (targeted by a melee attack) its
    Chinese Martial Arts' counter, whose own reactions come first, then the blow's result (`_landed`)."""
    options = grail_options(scene.options)
    attacker = _striker(scene, state)
    means = state.means
    if means.resolution == "save":
        return _saved(scene, role, defender, state)
    if means.resolution == "auto":  # an effect that needs no roll: it strikes, and no reaction changes that
        struck = Attacked(
            attacker=attacker.name,
            defender=defender.name,
            means=means.name,
            total=0,
            hit=True,
            auto=None,
            automatic=True,
        )
        return Step(outcomes=(struck,)).then(_damage(scene, role, defender, state))
    roll = _attack_roll(scene, attacker, defender, state, options)
    attacked = Attacked(
        attacker=attacker.name,
        defender=defender.name,
        means=means.name,
        total=roll.total,
        hit=roll.hit,
        auto=roll.d20.auto,
        stance=roll.defend_stance and not succeeds_alone(roll),
    )
    # A blow from outside its striker's turn is not countered in turn: two masters of the art would never stop.
    countered = Step() if state.by is not None else _countered(scene, role, defender, means, state, alone=alone)
    shown = Step(rolls=(roll.roll(),), outcomes=(attacked,)).then(countered)
    if countered.pause is not None or _fell(countered, attacker.name):
        return shown  # a striker the counter fells loses its blow, as a caster its spell
    return shown.then(_landed(scene, role, defender, roll, state, alone=alone))


def _fell(step: Step, name: str) -> bool:
    """Whether `step` puts `name` out of play: dead, vanished or down (Battle Continuation holds off a fall)."""
    return any(
        isinstance(o, Damaged) and o.defender == name and o.fate not in (None, CONTINUING) for o in step.outcomes
    )


def _landed(
    scene: Scene, role: str, defender: CharacterSnapshot, roll: AttackRoll, state: Blow, *, alone: bool
) -> Step:
    """An attack roll's result for its target: a miss (a one-shot anti-army or anti-city NP still deals half to
    whoever evades it, R4), or a hit (`_hit`)."""
    if roll.hit:
        return _hit(scene, role, defender, roll, state, alone=alone)
    return _damage(scene, role, defender, state, halved=True) if _splashes(state.means) else Step()


def _hit(scene: Scene, role: str, defender: CharacterSnapshot, roll: AttackRoll, state: Blow, *, alone: bool) -> Step:
    """A hit waits for the reactions the rules give its target (`_reactions`), whoever strikes it; one of several
    targets (an area attack, or a blow re-made against a guard) takes its Mind's Eye at once, as it only helps."""
    options = grail_options(scene.options)
    if not alone:
        if _minds_eye(defender, options) and roll.d20.auto != "success" and not roll.defend_stance:
            return _eye_rolled(scene, role, defender, roll, state)
        return _damage(scene, role, defender, state)
    waits = _reactions(scene, role, defender, roll, state)
    if waits:
        return Step(pause=Pause(_awaiting(state, role), waits))
    return _damage(scene, role, defender, state)


def succeeds_alone(roll: AttackRoll) -> bool:
    """Whether the roll hits without the Defend stance's help."""
    return AttackRoll(roll.d20, roll.modifiers, roll.defense).hit


def _splashes(means: Means) -> bool:
    return means.one_shot and means.scope in ("anti_army", "anti_city")


def _reactions(scene: Scene, role: str, defender: CharacterSnapshot, roll: AttackRoll, state: Blow) -> tuple[Wait, ...]:
    """The hit's reactions, whoever runs the characters (the GMs answer for theirs): Mind's Eye for a defender that
    has it (「你遭遇攻击时」), unless Luck or the Defend stance made it hit (R19); in a fight, the Guard of whoever
    stands next to it (R26, 「任何时候…临近你的一个角色受到一次命中类攻击时」). None: the damage lands at once."""
    options = grail_options(scene.options)
    attacker = _striker(scene, state)
    said: dict[str, str | int | Text] = {"defender": defender.name, "attacker": attacker.name, "total": roll.total}
    deadline = options.reaction_minutes * 60
    waits = []
    eye = _minds_eye(defender, options)
    if scene.turn.in_combat and _anyone_next_to(scene, defender, {defender.id, attacker.id}):
        button = Option(GUARD, Text("guard.button"), tone="secondary", summary=Text("guard.done", said))
        waits.append(
            Wait(
                GUARD_WAIT,
                Audience.players(),
                Text("guard.prompt", said),
                (button,),
                settled=Text("guard.closed", said),
            )
        )
    if eye and roll.d20.auto != "success" and not roll.defend_stance:
        choices: tuple[Option, ...] = (
            Option(MINDS_EYE, Text("reaction.minds_eye")),
            Option(TAKE, Text("reaction.take"), tone="secondary"),
        )
        # Mind's Eye is free and can only help: a defender who does not answer uses it.
        waits.append(
            Wait(
                REACTION_WAIT,
                Audience.character(role),
                Text("reaction.prompt", said),
                choices,
                deadline_seconds=deadline,
                default=MINDS_EYE,
            )
        )
    elif waits:
        choices = (Option(TAKE, Text("reaction.take"), tone="secondary"),)
        waits.append(
            Wait(
                REACTION_WAIT,
                Audience.character(role),
                Text("reaction.take_prompt", said),
                choices,
                deadline_seconds=deadline,
                default=TAKE,
            )
        )
    return tuple(waits)


def reacted(scene: Scene, state: Reaction, answer: Answer) -> Step:
    """A hit's reactions answered (`_reaction`); when the hit was a Chinese Martial Arts counter, the blow it
    answered then goes on (`after`): its own reactions, or its damage, unless the counter felled its striker."""
    step = _reaction(scene, state, answer)
    if state.after is None:
        return step
    role, blow = state.after.role, state.after.state
    defender, striker = scene.one(role), _striker(scene, blow)
    if _fell(step, striker.name):
        return step
    roll = _attack_roll(scene, striker, defender, blow, grail_options(scene.options))
    return step.then(_landed(scene, role, defender, roll, blow, alone=True))


def _reaction(scene: Scene, state: Reaction, answer: Answer) -> Step:
    """The hit's reaction window closed: Mind's Eye rolled (strictly above the attack roll evades, D14), an ally
    guarding (the attack roll made again against the guard, who takes what it does), or the hit taken."""
    options = grail_options(scene.options)
    role = state.role
    defender, striker = scene.one(role), _striker(scene, state)
    if fate_of(defender) in (DEAD, VANISHED):  # gone while the hit waited (a GM's award): it strikes no one
        return Step()
    if answer.wait == GUARD_WAIT:
        guard = scene.one(ANSWERER)
        if guard.id in (defender.id, striker.id):
            raise RuleError("grail_guard_self", name=guard.name)
        if (apart := actions.distance(guard, defender)) is not None and apart > 1:  # R26: an adjacent ally
            raise RuleError("grail_not_adjacent", name=defender.name, distance=apart)
        if guard.state.get(REACTED) == scene.turn.round_number:  # R25: one reaction action a round
            raise RuleError("grail_reaction_used", name=guard.name)
        # The attack's defender is the guard from now on; a blow from outside a turn keeps the exchange's roles.
        guarded = Step(
            effects=(StatePatch(ANSWERER, REACTED, scene.turn.round_number),),
            outcomes=(Guarded(guard=guard.name, defender=defender.name),),
            cast={} if state.by is not None else {DEFENDER: (guard.id,)},
        )
        return guarded.then(_resolved(scene, ANSWERER, guard, state, alone=False))
    if answer.option == MINDS_EYE:
        return _eye_rolled(scene, role, defender, _attack_roll(scene, striker, defender, state, options), state)
    return _damage(scene, role, defender, state)


def _eye_rolled(scene: Scene, role: str, defender: CharacterSnapshot, roll: AttackRoll, state: Blow) -> Step:
    """R19 and D14: Mind's Eye, d20 + (X - 3), evades when strictly above the attack roll before the defence (or,
    with `minds_eye_compare`, the final total); a one-shot anti-army or anti-city NP still deals half."""
    options = grail_options(scene.options)
    means = state.means
    compared = roll.before_defense if options.minds_eye_compare == "attack_roll" else roll.total
    eye_roll, evaded = minds_eye(
        scene.dice,
        luck_of(defender),
        _minds_eye(defender, options),
        compared,
        optional_rerolls=takes_luck_rerolls(defender),
    )
    judged = Evaded(defender=defender.name, total=eye_roll.total, against=compared, evaded=evaded)
    shown = Step(rolls=(eye_roll,), outcomes=(judged,))
    if evaded:
        return shown.then(_damage(scene, role, defender, state, halved=True)) if _splashes(means) else shown
    return shown.then(_damage(scene, role, defender, state))


def _saved(scene: Scene, role: str, defender: CharacterSnapshot, state: Blow) -> Step:
    """R6: a Noble Phantasm resolved by a save: DC (rank + 1 - the target's MAG or LUK) × 5, Military Tactics
    moving an anti-army one's; Magic Resistance adds to a save against magecraft; half or none of its damage."""
    options = grail_options(scene.options)
    attacker = scene.one(ATTACKER)
    means = state.means
    source = Rank.parse(means.np_rank or "E")
    if servant_like(defender):
        target_rank = servant_of(defender, options).ranks["MAG" if means.save_stat == "MAG" else "LUK"]
        target = target_rank.magnitude(options.ex_value) if target_rank.ex else target_rank.n
    else:  # D10: a Master resists magic with its best of int, wis and cha, and has no Luck rank
        sheet = master_file(defender)
        target = max(sheet.attribute(name) for name in ("int", "wis", "cha")) if means.save_stat == "MAG" else 0
    tactics = 0
    if means.scope == "anti_army":
        tactics = _magnitude(attacker, "tactics", options) - _magnitude(defender, "tactics", options)
    dc = save_dc(source.magnitude(options.ex_value) if source.ex else source.n, target, tactics=tactics)
    resistance = _magnitude(defender, "magic_resistance", options) if means.magecraft else 0
    bonus = (Modifier("skill:magic_resistance", resistance),) if resistance else ()
    result = save(
        scene.dice, luck_of(defender), dc, bonus, optional_rerolls=takes_luck_rerolls(defender), name=defender.name
    )
    saved = Step(
        rolls=(result.roll,),
        outcomes=(Saved(defender=defender.name, dc=dc, total=result.roll.total, result=result.outcome),),
    )
    if result.outcome == "none":
        # D41: ignoring a save's effect is not an evasion, unless the GM option gives a one-shot's half anyway.
        if options.one_shot_save_half and _splashes(means):
            return saved.then(_damage(scene, role, defender, state, halved=True))
        return saved
    return saved.then(_damage(scene, role, defender, state, halved=result.outcome == "half"))


def _damage(scene: Scene, role: str, defender: CharacterSnapshot, state: Blow, *, halved: bool = False) -> Step:
    """R4 and R5: the damage rolled (an Assassin's on an unaware target at its maximum, and its AGI again), then
    halving, the Defend stance, Magic Resistance, Military Tactics; temporary HP first, then HP; the fate that
    follows (D24, R16, R19) and MP for a kill with a normal attack (R15) for whoever strikes (`Blow.by`)."""
    options = grail_options(scene.options)
    by = state.by or ATTACKER
    attacker = scene.one(by)
    means, given = state.means, state.given
    extra: list[Modifier] = []
    assassin_unaware = (
        attacker.kind == SERVANT
        and means.key == "melee"
        and _unaware(given, defender)
        and (servant_file(attacker).servant_class == "assassin")
    )
    if assassin_unaware:
        extra.append(Modifier("unaware", servant_of(attacker, options).ranks["AGI"].n))
    if means.scope == "anti_army" and (tactics := _magnitude(attacker, "tactics", options)):
        extra.append(Modifier("skill:tactics", tactics))
    if charisma := _charisma(attacker, options):
        extra.append(Modifier("skill:charisma", charisma))
    maximal = assassin_unaware or means.aim >= FULL_AIM_ROUNDS  # 「瞄准3分钟后伤害骰取满」
    rolled = damage_roll(scene.dice, means.damage, f"damage:{attacker.name}", extra, maximal=maximal)
    rolls = [rolled]
    if slayer := _against(attacker, "slayer", _kinds_of(defender), options):  # R18: +Xd6 against its kind
        rolls.append(damage_roll(scene.dice, Damage(count=slayer, sides=6), "slayer"))
    no_mystery = not means.mystery and servant_like(defender)
    warded = 5 * _magnitude(defender, "magic_resistance", options) if means.magecraft else 0
    resisted = 5 * _against(defender, "resist", _types_of(means, given), options)  # R18: 5X against its type
    outwitted = _magnitude(defender, "tactics", options) if means.scope == "anti_army" else 0
    flat = warded + resisted + outwitted
    stance = None
    if DEFENDING in defender.state:
        stance = (
            servant_of(defender, options).ranks["END"].n
            if servant_like(defender)
            else (master_file(defender).attribute("con"))
        )
    multiplier = plus_multiplier(means.pluses, options.plus_mode) if given.plus else 1
    reductions = Reductions(multiplier=multiplier, halved=halved, defend=stance, flat=flat)
    dealt = sum(roll.total for roll in rolls)
    taken = 0 if no_mystery else damage_taken(dealt, reductions)
    split = split_damage(taken, defender.pools[TEMP_HP].current)
    effects: list[Effect] = []
    if split.temp_hp:
        effects.append(PoolDelta(role, TEMP_HP, -split.temp_hp))
    hp = defender.pools[HP]
    lost = min(split.hp, hp.current - hp.minimum)
    if lost:
        effects.append(PoolDelta(role, HP, -lost))
    fate, fate_effects = _fate(scene, role, defender, hp.current - split.hp, options)
    effects += fate_effects
    # A Master's death leaves its Servant masterless (R16).
    orphaned = upkeep.master_fell(scene, role) if fate == DEAD else Step()
    kill_mp = 0
    if fate in (DEAD, VANISHED) and means.normal and attacker.kind == SERVANT:
        mp = attacker.pools[MP]
        kill_mp = min(KILL_MP, (mp.maximum or mp.current + KILL_MP) - mp.current)
        if kill_mp:
            effects.append(PoolDelta(by, MP, kill_mp))
    applied = (
        ("halved", halved),
        ("defend", stance is not None),
        ("magic_resistance", warded > 0),
        ("resisted", resisted > 0),
        ("tactics", outwitted > 0),
    )
    reduced = () if no_mystery else tuple(name for name, applies in applied if applies)
    damaged = Damaged(
        defender=defender.name,
        rolled=dealt,
        taken=taken,
        temp_hp=split.temp_hp,
        fate=fate,
        no_mystery=no_mystery,
        kill_mp=kill_mp,
        multiplier=multiplier,
        reduced=reduced,
    )
    return Step(rolls=tuple(rolls), effects=tuple(effects), outcomes=(damaged,)).then(orphaned)


def _against(character: CharacterSnapshot, skill: str, words: frozenset[str], options: GrailZhOptions) -> int:
    """The X of a resistance or a slayer skill whose `target` is one of `words`; 0 otherwise."""
    if not servant_like(character):
        return 0
    found = servant_of(character, options).skill(skill)
    if found is None or found.target is None or found.target.casefold() not in words:
        return 0
    return found.rank.magnitude(options.ex_value)


def _types_of(means: Means, given: GrailAttackInput) -> frozenset[str]:
    """The words a resistance may name for an attack: melee or ranged, magecraft, noble_phantasm, and its type."""
    words = {"ranged" if means.ranged else "melee"}
    if means.magecraft:
        words.add("magecraft")
    if means.key == NP:
        words.add("noble_phantasm")
    words.update(word.casefold() for word in (means.damage_type, given.type) if word)
    return frozenset(words)


def _kinds_of(character: CharacterSnapshot) -> frozenset[str]:
    """The words a slayer may name for a target: its kind (master, servant, puppet, familiar), a Servant's class,
    and the kinds its file gives."""
    words = {character.kind}
    sheet = servant_file(character) if servant_like(character) else master_file(character)
    if character.kind == SERVANT:
        words.add(servant_file(character).servant_class)
    words.update(kind.casefold() for kind in sheet.creature)
    return frozenset(words)


def _fate(
    scene: Scene, role: str, character: CharacterSnapshot, hp: int, options: GrailZhOptions
) -> tuple[str | None, list[Effect]]:
    """What HP at or below 0 means: a Master dies (D24); a Servant vanishes, unless Battle Continuation holds it
    for X minutes while its HP stays at or above -10(X-1) (R19, E20)."""
    if hp > 0 or character.state.get(FATE) is not None:
        return None, []
    x = _magnitude(character, "battle_continuation", options)
    if x and hp >= -10 * (x - 1):
        if CONTINUING in character.state:
            return None, []
        until = scene.turn.round_number + ROUNDS_PER_MINUTE * x
        return CONTINUING, [StatePatch(role, CONTINUING, until)]
    if options.dying_rounds:  # D24's option: a few rounds to be healed before the end
        if DYING in character.state:
            return None, []
        return DOWN, [
            StatePatch(role, DYING, scene.turn.round_number + options.dying_rounds),
            StatePatch(role, CONTINUING, None),
        ]
    end = VANISHED if servant_like(character) else DEAD
    return end, [StatePatch(role, FATE, end), StatePatch(role, CONTINUING, None)]


class Continuing(Outcome):
    event = "battle_continuation.held"
    name: str


def pool_changed(scene: Scene, role: str, pool: str) -> Step:
    """A pool moved outside an attack (a GM's award) meets the rules damage meets: HP at or below 0 kills (D24)
    unless Battle Continuation holds it at or above -10(X-1) (R19, 「HP下降到0/-10/-20/-30/-40的时候仍能持续战斗」);
    a Master's death, by HP or by MP (「一旦MP为0，master死亡」), leaves its Servant masterless (R16). A fall to 0 MP
    is written down as a blow's is: MP given back later raises no one (「英灵如果自己的MP为0，会立刻消失」)."""
    character = scene.one(role)
    if pool == HP:
        fate, effects = _fate(scene, role, character, character.pools[HP].current, grail_options(scene.options))
    else:
        fate = fate_of(character)
        emptied = fate in (DEAD, VANISHED) and recorded_fate(character) is None
        effects = [StatePatch(role, FATE, fate)] if emptied else []
    held = (Continuing(name=character.name),) if fate == CONTINUING else ()
    orphaned = upkeep.master_fell(scene, role) if character.kind == MASTER and fate == DEAD else Step()
    return Step(effects=tuple(effects), outcomes=held).then(orphaned)


def expired_continuations(
    scene: Scene, role: str, characters: Sequence[CharacterSnapshot], *, all_of_them: bool = False
) -> Step:
    """At a round's start (every one of them, when story time passes): a Servant whose Battle Continuation ran
    out with HP below 1 vanishes; a dying character (D24) not healed by then dies."""
    effects: list[Effect] = []
    outcomes: list[Outcome] = []
    for position, character in enumerate(characters):
        who = member(role, position)
        for key in (CONTINUING, DYING):
            until = character.state.get(key)
            if not isinstance(until, int) or (scene.turn.round_number < until and not all_of_them):
                continue
            effects.append(StatePatch(who, key, None))
            if character.pools[HP].current < 1 and recorded_fate(character) is None:
                end = VANISHED if servant_like(character) else DEAD
                effects.append(StatePatch(who, FATE, end))
                ended = Ended(name=character.name) if key == CONTINUING else DiedOfWounds(name=character.name, fate=end)
                outcomes.append(ended)
    return Step(effects=tuple(effects), outcomes=tuple(outcomes))


class Ended(Outcome):
    event = "battle_continuation.ended"
    name: str


class DiedOfWounds(Outcome):
    event = "character.died_of_wounds"
    name: str
    fate: str  # dead or vanished


class Dropped(Outcome):
    event = "np.dropped"
    name: str
    phantasm: str


def sustained_costs(scene: Scene, role: str, characters: Sequence[CharacterSnapshot]) -> Step:
    """R13 (E19): at each later round's start a sustained release is paid again, or it ends."""
    steps: list[Step] = []
    for position, character in enumerate(characters):
        kept = character.state.get(SUSTAINING)
        if not isinstance(kept, Mapping) or character.state.get(FATE) is not None:
            continue
        who = member(role, position)
        try:
            steps.append(payment(scene, who, character, int(kept["cost"]), False))
        except RuleError:
            dropped = Dropped(name=character.name, phantasm=str(kept["name"]))
            steps.append(Step(effects=(StatePatch(who, SUSTAINING, None),), outcomes=(dropped,)))
    return Step.of(*steps)


class Struck(Outcome):
    """A blow outside the attack's own order: an opportunity attack or a martial-arts counter."""

    event = "attack.opportunity"
    striker: str
    target: str
    total: int
    hit: bool
    counter: bool  # Chinese Martial Arts' counter (R19), else an opportunity attack (R25)


def _strike(scene: Scene, by: str, at: str, *, counter: bool, alone: bool, penalty: int = 0) -> Step:
    """A melee attack from outside its striker's turn (R25's opportunity action, or a Chinese Martial Arts counter at
    -`penalty`): one roll against the target's defence; a hit meets the target's reactions as any other (`_hit`)."""
    options = grail_options(scene.options)
    striker, target = scene.one(by), scene.one(at)
    given = GrailAttackInput(targets=(target.name,), action="melee")
    d20 = luck_d20(scene.dice, luck_of(striker), optional_rerolls=takes_luck_rerolls(striker))
    state = Blow(means=means_of(striker, "melee", 1, options), given=given, d20=d20, penalty=penalty, by=by)
    roll = _attack_roll(scene, striker, target, state, options)
    struck = Struck(striker=striker.name, target=target.name, total=roll.total, hit=roll.hit, counter=counter)
    shown = Step(rolls=(roll.roll(),), outcomes=(struck,))
    return shown.then(_hit(scene, at, target, roll, state, alone=alone)) if roll.hit else shown


def _countered(scene: Scene, role: str, defender: CharacterSnapshot, means: Means, state: Blow, *, alone: bool) -> Step:
    """R19: a defender with Chinese Martial Arts, targeted by a melee attack, strikes back at -(6 - X) before the
    blow lands (「每当你受到一次近战攻击时，你用借机动作对对方做一次近战攻击」); while the counter waits for the
    attacker's reactions, the blow it answers waits with it (`after`)."""
    options = grail_options(scene.options)
    x = _magnitude(defender, "martial_arts", options)
    if not x or means.key != "melee" or fate_of(defender) is not None:
        return Step()
    countered = _strike(scene, role, ATTACKER, counter=True, alone=alone, penalty=max(0, 6 - x))
    if countered.pause is None:
        return countered
    after = Countered(role=role, state=state)
    waiting = _hit_waiting(countered.pause).model_copy(update={"after": after})
    return Step.of(countered, pause=Pause(waiting, countered.pause.waits))


def odds(
    attacker: CharacterSnapshot, defender: CharacterSnapshot, given: GrailAttackInput, options: GrailZhOptions
) -> tuple[tuple[Text, Fraction], ...]:
    """The exact chance the attack hits, as it would be rolled now; for a defender with Mind's Eye, also the chance
    it still hits after the defender rolls it."""
    means = _aimed(attacker, defender, means_of(attacker, given.action, given.actions, options))
    if means.resolution != "attack_roll":
        raise RuleError("grail_odds_attack_rolls", name=means.name)
    modifiers, defense, stance = _roll_terms(attacker, defender, means, _declared(attacker, given), options)
    bonus = sum(modifier.value for modifier in modifiers)
    attack_d20 = d20_outcomes(luck_of(attacker), optional_rerolls=takes_luck_rerolls(attacker))
    lines = [(Text("odds.hit"), hit_chance(attack_d20, bonus, defense, stance=stance))]
    if eye := _minds_eye(defender, options):
        eye_d20 = d20_outcomes(luck_of(defender), optional_rerolls=takes_luck_rerolls(defender))
        against_final = options.minds_eye_compare != "attack_roll"
        chance = hit_chance(
            attack_d20, bonus, defense, stance=stance, eye=eye_d20, eye_bonus=eye - 3, eye_against_final=against_final
        )
        lines.append((Text("odds.minds_eye"), chance))
    return tuple(lines)
