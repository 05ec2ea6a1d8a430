"""Spellcasting besides attack magecraft (R21 for Masters, R22 for Casters and Servants with Spellcasting) and
spirit form (R23). Each spell and entering spirit form provoke in a fight (R25, D36): they wait for opportunity
attacks before they happen. What lasts (protections, flight, a reinforced item, a barrier's setup) ends or
comes to be on its own as rounds and story time pass; familiars and puppets are summoned as characters."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rules.exchange import (
    Answer,
    Effect,
    Modifier,
    Outcome,
    PoolDelta,
    RuleError,
    StatePatch,
    Step,
    Summon,
    Text,
    member,
)
from rules.grail_zh import actions, fight
from rules.grail_zh.model import (
    BARRIER_REACH,
    BARRIER_SETUP_MINUTES,
    FAMILIARS,
    FLIGHT_BASE_SPEED,
    FLIGHT_MP_PER_ROUND,
    HEAL_PER_MP,
    PUPPET_MP,
    PUPPET_RANK_BELOW_MAG,
    PUPPETS_PER_MAG,
    REINFORCE_MP_PER_RANK,
    ROUNDS_PER_MINUTE,
    SHIELD_MINUTES,
    SHIELD_PER_MP,
    SHIELD_RANGE,
    TELEPORT_MP_PER_SQUARE,
)
from rules.grail_zh.ranks import Rank
from rules.grail_zh.rolls import luck_d20, succeeds
from rules.grail_zh.stored import (
    FAMILIAR,
    HP,
    MAKER,
    MASTER,
    MP,
    PUPPET,
    REINFORCED,
    SERVANT,
    SPIRIT_FORM,
    TEMP_HP,
    fate_of,
    grail_options,
    luck_of,
    master_file,
    master_of,
    servant_file,
    servant_like,
    servant_of,
    takes_luck_rerolls,
)
from rules.options import CampaignOptions
from rules.play import ACTOR, EVERYONE, OPPONENT, CharacterSnapshot, Scene
from rules.text import NAME_LIMIT, unseen_character

SPIRIT_WINDOW, SPELL_WINDOW = "spirit_window", "spell_window"  # the pauses of a provoking act, by what follows
SHIELD = "shield"  # the state key of a protection: {"caster": id, "until": round, "kept": bool}
SUMMON_NUMBER_ROOM = 4  # the " 12" a summoned creature's name takes
FLYING = "flying"  # the state key of the round a flier took off in (R22)


class SpiritFormTaken(Outcome):
    event = "spirit.form"
    name: str
    entered: bool


class SpiritWindow(fight.Window):
    """Entering spirit form in a fight, waiting for opportunity attacks before it happens."""

    stored_as: ClassVar[str] = SPIRIT_WINDOW


# What /grail cast was given: its amount, modifier, square, item and flags, by name (None: not given).
SpellParams = dict[str, int | str | bool | None]


class SpellWindow(fight.Window):
    """A spell in a fight, waiting for opportunity attacks before it is cast."""

    stored_as: ClassVar[str] = SPELL_WINDOW

    spell: str
    params: SpellParams


def spirit_form(scene: Scene, leave: bool) -> Step:
    """R23: a Servant turns to spirit form with its whole turn (D15), which provokes in a fight; it leaves freely."""
    servant = scene.one(ACTOR)
    if servant.kind != SERVANT:
        raise RuleError("grail_spirit_servants", name=servant.name)
    if leave:
        if SPIRIT_FORM not in servant.state:
            raise RuleError("grail_not_spirit", name=servant.name)
        return Step(
            effects=(StatePatch(ACTOR, SPIRIT_FORM, None),),
            outcomes=(SpiritFormTaken(name=servant.name, entered=False),),
        )
    if SPIRIT_FORM in servant.state:
        raise RuleError("grail_spirit_already", name=servant.name)
    whole_turn = actions.spend(scene, ACTOR, actions.STANDARD, actions.MOVE, actions.MINOR)
    if fight.provokes(scene, ACTOR):
        act = Text("provoke.spirit_form")
        waiting = Step(outcomes=(fight.Provoking(name=servant.name, act=act.to_dict()),))
        window = fight.opportunity_window(scene, SpiritWindow(caster=ACTOR, what=act))
        return Step.of(whole_turn, waiting, pause=window)
    return whole_turn.then(_spirit_entered(scene))


def spirit_window(scene: Scene, state: SpiritWindow, answer: Answer) -> Step:
    return fight.answer_window(scene, state, answer, lambda: _spirit_entered(scene))


def _spirit_entered(scene: Scene) -> Step:
    servant = scene.one(ACTOR)
    return Step(
        effects=(StatePatch(ACTOR, SPIRIT_FORM, scene.turn.round_number),),
        outcomes=(SpiritFormTaken(name=servant.name, entered=True),),
    )


def _column(caster: CharacterSnapshot) -> str:
    """Which column of T2 a caster reads: a Servant's spells are a Caster's (R22), a Master's its own (R21)."""
    return "caster" if servant_like(caster) else "master"


def known_spells(caster: CharacterSnapshot) -> tuple[str, ...]:
    if caster.kind == MASTER:
        return tuple(master_file(caster).spells)
    return tuple(servant_file(caster).spells) if caster.kind == SERVANT else ()


class SpellCast(Outcome):
    event = "spell.cast"
    caster: str
    spell: str
    target: str
    amount: int  # HP healed, temporary HP given, squares crossed
    minutes: int = 0  # how long a protection lasts
    kept: bool = False  # D42: kept up past its time with MP
    took_hold: bool | None = None  # a suggestion's result
    item: str = ""  # what a reinforcement made a Noble Phantasm of
    rank: str = ""
    rate: int = 0  # D42: MP a minute to keep a protection up
    by_gms: bool = False  # cast by a character the GMs run: what it summons is theirs to run


def cast(scene: Scene, spell: str, params: Mapping[str, Any]) -> Step:
    """A spell the caster knows, at the opponent (itself when none is named): its actions (R25: a protection takes
    the whole turn, D15; a teleport is a move action), then, in a fight, a window for opportunity attacks."""
    caster = scene.one(ACTOR)
    if spell not in known_spells(caster):
        raise RuleError("grail_spell_unknown", name=caster.name, spell=Text(f"spell.{spell}"))
    if SPIRIT_FORM in caster.state:
        raise RuleError("grail_spirit_form", name=caster.name)
    if spell == "flight" and FLYING in caster.state:  # landing is free
        return Step(effects=(StatePatch(ACTOR, FLYING, None),), outcomes=(Landed(name=caster.name),))
    target = scene.get(OPPONENT) or caster
    _in_range(caster, target, spell, params)
    needs = {"shield": (actions.STANDARD, actions.MOVE, actions.MINOR), "teleport": (actions.MOVE,)}
    acted = actions.spend(scene, ACTOR, *needs.get(spell, (actions.STANDARD,)))
    if fight.provokes(scene, ACTOR):
        what = Text("provoke.casts", {"means": Text(f"spell.{spell}")})
        waiting = Step(outcomes=(fight.Provoking(name=caster.name, act=what.to_dict()),))
        window = SpellWindow(caster=ACTOR, what=what, spell=spell, params=dict(params))
        return Step.of(acted, waiting, pause=fight.opportunity_window(scene, window))
    return acted.then(_cast(scene, spell, params))


def spell_window(scene: Scene, state: SpellWindow, answer: Answer) -> Step:
    return fight.answer_window(scene, state, answer, lambda: _cast(scene, state.spell, state.params))


def _in_range(caster: CharacterSnapshot, target: CharacterSnapshot, spell: str, params: Mapping[str, Any]) -> None:
    """D30: a healing touches an adjacent target, a protection reaches 5 squares; a suggestion commands someone
    else, never a Servant."""
    apart = actions.distance(caster, target)
    reach = {"heal": 1, "shield": SHIELD_RANGE}.get(spell)
    if reach is not None and apart is not None and apart > reach:
        raise RuleError("grail_spell_reach", name=target.name, distance=apart, reach=reach)
    if spell in ("heal", "shield") and int(params.get("amount") or 0) < 1:
        raise RuleError("grail_spell_amount", spell=Text(f"spell.{spell}"))
    if spell == "suggest" and (target.id == caster.id or servant_like(target)):
        raise RuleError("grail_suggest_target", name=target.name)
    if spell == "teleport" and (params.get("x") is None or params.get("y") is None):
        raise RuleError("grail_teleport_where")
    if spell == "teleport" and actions.square(caster) is None:  # 1 MP a square from where it stands
        raise RuleError("grail_move_unplaced", name=caster.name)
    if fate_of(target) is not None:
        raise RuleError("grail_gone", name=target.name)


def _cast(scene: Scene, spell: str, params: Mapping[str, Any]) -> Step:
    caster = scene.one(ACTOR)
    target_role = OPPONENT if scene.get(OPPONENT) is not None else ACTOR
    target = scene.one(target_role)
    if fate_of(caster) is not None:
        return Step()  # it fell to an opportunity attack: the spell is lost
    column = _column(caster)
    confirm = bool(params.get("confirm"))
    if spell == "heal":
        rate, hp = HEAL_PER_MP[column], target.pools[HP]
        healed = min(rate * int(params["amount"]), (hp.maximum or hp.current) - hp.current)
        if healed <= 0:
            raise RuleError("grail_heal_full", name=target.name)
        cost = -(-healed // rate)  # only the MP the wound takes (D30: never above the maximum)
        done = SpellCast(caster=caster.name, spell=spell, target=target.name, amount=healed)
        effect: tuple[Effect, ...] = (PoolDelta(target_role, HP, healed),)
        return fight.payment(scene, ACTOR, caster, cost, confirm).then(Step(effects=effect, outcomes=(done,)))
    if spell == "shield":
        return _shielded(scene, caster, target_role, target, int(params["amount"]), bool(params.get("keep")), confirm)
    if spell == "suggest":
        return _suggested(scene, caster, target, int(params.get("modifier") or 0))
    if spell == "alarm":
        return _barrier(scene, caster)
    if spell == "flight":
        taken_off = Step(
            effects=(StatePatch(ACTOR, FLYING, scene.turn.round_number),),
            outcomes=(
                SpellCast(
                    caster=caster.name, spell="flight", target=caster.name, amount=air_speed(caster, scene.options)
                ),
            ),
        )
        return fight.payment(scene, ACTOR, caster, FLIGHT_MP_PER_ROUND, confirm).then(taken_off)
    if spell == "reinforce":
        return _reinforced(scene, caster, target_role, target, params, confirm)
    if spell in ("familiar", "puppets"):
        return _summoned(scene, caster, spell, params, confirm)
    return _teleported(scene, caster, params, confirm)


def _summoned(scene: Scene, caster: CharacterSnapshot, spell: str, params: Mapping[str, Any], confirm: bool) -> Step:
    """R21.3 and R22: familiars (a Master keeps 3, a Servant 10 that teleport) and puppet soldiers (up to 5 x MAG,
    5 MP each, every rank MAG - 2, D33), each a character of its caster's to run."""
    count = int(params.get("amount") or 1)
    kind = FAMILIAR if spell == "familiar" else PUPPET
    base = str(params.get("item") or "").strip()
    if not base:
        raise RuleError("grail_summon_name", kind=Text(f"kind.{kind}"))
    if (code := unseen_character(base)) is not None:
        raise RuleError("grail_bad_name", code=code)
    if len(base) > NAME_LIMIT - SUMMON_NUMBER_ROOM:
        raise RuleError("grail_name_too_long", limit=NAME_LIMIT - SUMMON_NUMBER_ROOM)
    made = [
        other
        for other in scene.members(EVERYONE)
        if other.kind == kind and other.state.get(MAKER) == caster.id and fate_of(other) is None
    ]
    if kind == FAMILIAR:
        limit = FAMILIARS[_column(caster)]
        file: dict[str, Any] = {"teleports": servant_like(caster)}
        cost = 0
    else:
        magic = servant_of(caster, scene.options).ranks["MAG"].n
        if magic - PUPPET_RANK_BELOW_MAG < 1:  # 「视作英灵」 with ranks of nothing: unavailable
            raise RuleError("grail_puppets_too_weak", name=caster.name)
        limit, cost = PUPPETS_PER_MAG * magic, PUPPET_MP * count
        file = {"rank": str(Rank(magic - PUPPET_RANK_BELOW_MAG))}
    if len(made) + count > limit:
        raise RuleError("grail_summon_limit", name=caster.name, kind=Text(f"kind.{kind}"), limit=limit, has=len(made))
    ever = sum(1 for other in scene.members(EVERYONE) if other.kind == kind and other.state.get(MAKER) == caster.id)
    # They come where their maker stands, and move from there.
    state = {
        MAKER: caster.id,
        **({actions.POSITION: caster.state[actions.POSITION]} if actions.square(caster) is not None else {}),
    }
    summons = tuple(
        Summon(ACTOR, kind, {**file, "name": f"{base} {ever + index + 1}"}, state) for index in range(count)
    )
    done = SpellCast(caster=caster.name, spell=spell, target=caster.name, amount=count, item=base, by_gms=caster.gm_run)
    return fight.payment(scene, ACTOR, caster, cost, confirm).then(Step(effects=summons, outcomes=(done,)))


def air_speed(character: CharacterSnapshot, options: CampaignOptions) -> int:
    """R22: 4 + AGI + MAG (their n) squares a move while flying."""
    ranks = servant_of(character, options).ranks
    return FLIGHT_BASE_SPEED + ranks["AGI"].n + ranks["MAG"].n


class Landed(Outcome):
    event = "spell.landed"
    name: str
    spent: bool = False  # it could not pay for another round in the air


def flights_paid(scene: Scene, role: str, characters: Sequence[CharacterSnapshot], *, story_time: bool) -> Step:
    """R22: each round in the air costs 5 MP, paid at its start, or the flier comes down; story time passing (far
    more rounds than any flier could pay) brings every flier down."""
    steps: list[Step] = []
    for position, character in enumerate(characters):
        if FLYING not in character.state or fate_of(character) is not None:
            continue
        who = member(role, position)
        landing = Step(effects=(StatePatch(who, FLYING, None),), outcomes=(Landed(name=character.name, spent=True),))
        if story_time:
            steps.append(landing)
            continue
        try:
            steps.append(fight.payment(scene, who, character, FLIGHT_MP_PER_ROUND, False))
        except RuleError:
            steps.append(landing)
    return Step.of(*steps)


def _reinforced(
    scene: Scene,
    caster: CharacterSnapshot,
    role: str,
    target: CharacterSnapshot,
    params: Mapping[str, Any],
    confirm: bool,
) -> Step:
    """R22: an item becomes a Noble Phantasm of rank k (at most MAG - 1) for an hour, for 5k MP; its holder attacks
    with it as `np:<item>`, with its rank's bonus and T8's damage."""
    item = str(params.get("item") or "").strip()
    if not item:
        raise RuleError("grail_reinforce_item")
    if (code := unseen_character(item)) is not None:
        raise RuleError("grail_bad_name", code=code)
    top = servant_of(caster, scene.options).ranks["MAG"].n - 1
    rank = int(params.get("amount") or 0)
    if not 1 <= rank <= top:
        raise RuleError("grail_reinforce_rank", name=caster.name, top=top)
    reinforced = {"name": item, "rank": str(Rank(rank)), "until": scene.turn.round_number + 60 * ROUNDS_PER_MINUTE}
    done = SpellCast(
        caster=caster.name,
        spell="reinforce",
        target=target.name,
        amount=rank,
        minutes=60,
        item=item,
        rank=str(Rank(rank)),
    )
    effect = Step(effects=(StatePatch(role, REINFORCED, reinforced),), outcomes=(done,))
    return fight.payment(scene, ACTOR, caster, REINFORCE_MP_PER_RANK * rank, confirm).then(effect)


def reinforcements_end(
    role: str, characters: Sequence[CharacterSnapshot], round_number: int, *, story_hours: int
) -> Step:
    """A reinforced item is an item again after its hour (rounds in a fight, or an hour of story time)."""
    effects = []
    outcomes: list[Outcome] = []
    for position, character in enumerate(characters):
        item = character.state.get(REINFORCED)
        if not isinstance(item, Mapping) or (round_number < int(item["until"]) and story_hours < 1):
            continue
        effects.append(StatePatch(member(role, position), REINFORCED, None))
        outcomes.append(ReinforcementEnded(name=character.name, item=str(item["name"])))
    return Step(effects=tuple(effects), outcomes=tuple(outcomes))


class ReinforcementEnded(Outcome):
    event = "spell.reinforcement_ended"
    name: str
    item: str


def _barrier(scene: Scene, caster: CharacterSnapshot) -> Step:
    """R21, R22: an alarm barrier around the caster's square, standing after 3 minutes of setup (30 rounds, or
    once story time passes): a Master's 20 squares around, a Servant's 100 x 100."""
    here = actions.square(caster)
    if here is None:
        raise RuleError("grail_territory_unplaced", name=caster.name)
    column = _column(caster)
    barrier = {
        "x": here[0],
        "y": here[1],
        "reach": BARRIER_REACH[column],
        "ready": scene.turn.round_number + BARRIER_SETUP_MINUTES * ROUNDS_PER_MINUTE,
    }
    done = SpellCast(
        caster=caster.name,
        spell="alarm",
        target=caster.name,
        amount=BARRIER_REACH[column],
        minutes=BARRIER_SETUP_MINUTES,
    )
    return Step(effects=(StatePatch(ACTOR, actions.BARRIER, barrier),), outcomes=(done,))


def barriers_set_up(role: str, characters: Sequence[CharacterSnapshot], round_number: int) -> Step:
    """Story time passing finishes every barrier's three minutes of setup."""
    effects = [
        StatePatch(member(role, position), actions.BARRIER, {**barrier, "ready": round_number})
        for position, character in enumerate(characters)
        if isinstance(barrier := character.state.get(actions.BARRIER), Mapping) and int(barrier["ready"]) > round_number
    ]
    return Step(effects=tuple(effects))


def _shielded(
    scene: Scene,
    caster: CharacterSnapshot,
    role: str,
    target: CharacterSnapshot,
    cost: int,
    keep: bool,
    confirm: bool,
) -> Step:
    """R21/R22 and D30: 2 (a Caster's 5) temporary HP for each MP, the target's in all at most the caster's MP
    maximum; it lasts 3 (10) minutes, or longer when kept up with MP (D42)."""
    column = _column(caster)
    ceiling = servant_of(caster, scene.options).mp_max if servant_like(caster) else master_of(caster).mp_max
    given = min(SHIELD_PER_MP[column] * cost, ceiling - target.pools[TEMP_HP].current)
    if given <= 0:
        raise RuleError("grail_shield_full", name=target.name, cap=ceiling)
    cost = -(-given // SHIELD_PER_MP[column])  # only the MP the room left takes
    minutes = SHIELD_MINUTES[column]
    shield = {"caster": caster.id, "until": scene.turn.round_number + minutes * ROUNDS_PER_MINUTE, "kept": keep}
    done = SpellCast(
        caster=caster.name,
        spell="shield",
        target=target.name,
        amount=given,
        minutes=minutes,
        kept=keep,
        rate=grail_options(scene.options).shield_upkeep_mp_per_minute,
    )
    effects = (PoolDelta(role, TEMP_HP, given), StatePatch(role, SHIELD, shield))
    return fight.payment(scene, ACTOR, caster, cost, confirm).then(Step(effects=effects, outcomes=(done,)))


def _suggested(scene: Scene, caster: CharacterSnapshot, target: CharacterSnapshot, modifier: int) -> Step:
    """R21: d20 + cha + the GM's modifier reaching 10 commands a mortal who is not a magus; R22: a Caster's holds
    a mortal at once, and a magus on d20 + MAG.n + the modifier."""
    magus = target.kind == MASTER and master_file(target).master_type == "magus"
    if caster.kind == MASTER and magus:
        raise RuleError("grail_suggest_magus", name=target.name)
    if servant_like(caster) and not magus:
        return Step(
            outcomes=(SpellCast(caster=caster.name, spell="suggest", target=target.name, amount=0, took_hold=True),)
        )
    power = (
        Modifier("stat:MAG", servant_of(caster, scene.options).ranks["MAG"].n)
        if servant_like(caster)
        else Modifier("stat:CHA", master_file(caster).attribute("cha"))
    )
    d20 = luck_d20(scene.dice, luck_of(caster), optional_rerolls=takes_luck_rerolls(caster))
    roll = d20.roll("spell:suggest", [power, *([Modifier("situational", modifier)] if modifier else [])])
    held = succeeds(d20, roll.total, 10)
    done = SpellCast(caster=caster.name, spell="suggest", target=target.name, amount=0, took_hold=held)
    return Step(rolls=(roll,), outcomes=(done,))


def _teleported(scene: Scene, caster: CharacterSnapshot, params: Mapping[str, Any], confirm: bool) -> Step:
    """R22: a move action, 1 MP for each square crossed."""
    x, y = int(params["x"]), int(params["y"])
    sector = (int(params.get("sector_x") or 0), int(params.get("sector_y") or 0))
    target = actions.position_value(x, y, sector)
    here = actions.square(caster)
    there = (sector[0] * actions.SECTOR_SQUARES + x, sector[1] * actions.SECTOR_SQUARES + y)
    crossed = 0 if here is None else max(abs(here[0] - there[0]), abs(here[1] - there[1]))
    done = SpellCast(caster=caster.name, spell="teleport", target=caster.name, amount=crossed)
    moved = Step(effects=(StatePatch(ACTOR, actions.POSITION, target),), outcomes=(done,))
    return fight.payment(scene, ACTOR, caster, crossed * TELEPORT_MP_PER_SQUARE, confirm).then(moved)


class ShieldEnded(Outcome):
    event = "spell.shield_ended"
    name: str
    lost: int


class ShieldKept(Outcome):
    event = "spell.shield_kept"
    caster: str
    name: str
    cost: int


def shields_expire(scene: Scene, role: str, characters: Sequence[CharacterSnapshot], minutes_past: int) -> Step:
    """A protection past its time ends, taking the temporary HP still left (R21: 「最多持续3分钟」); one kept up
    costs its caster `shield_upkeep_mp_per_minute` a minute for each minute past it (D42) while it can pay.
    `minutes_past`: the story minutes gone by beyond the current round (0 at a round's start)."""
    rate = grail_options(scene.options).shield_upkeep_mp_per_minute
    now = scene.turn.round_number + minutes_past * ROUNDS_PER_MINUTE
    casters = {character.id: (member(role, position), character) for position, character in enumerate(characters)}
    effects: list[Effect] = []
    outcomes: list[Outcome] = []
    paying: dict[int, int] = {}  # MP each caster has left after what it paid here
    for position, character in enumerate(characters):
        shield = character.state.get(SHIELD)
        if not isinstance(shield, Mapping) or now < int(shield["until"]):
            continue
        who = member(role, position)
        minutes = max(1, (now - int(shield["until"])) // ROUNDS_PER_MINUTE + 1)
        caster_ref, caster = casters.get(int(shield["caster"]), (None, None))
        if shield.get("kept") and caster is not None and caster_ref is not None and fate_of(caster) is None:
            left = paying.get(caster.id, caster.pools[MP].current)
            # Minute by minute while it can pay, never its last MP: the shield lasts as long as the MP does.
            paid_for = minutes if not rate else min(minutes, (left - 1) // rate)
            if paid_for > 0:
                cost = rate * paid_for
                paying[caster.id] = left - cost
                effects.append(PoolDelta(caster_ref, MP, -cost))
                outcomes.append(ShieldKept(caster=caster.name, name=character.name, cost=cost))
            if paid_for == minutes:
                # Paid up to the minute after `now`, counted from the campaign's round as it stands.
                until = int(shield["until"]) + (minutes - minutes_past) * ROUNDS_PER_MINUTE
                effects.append(StatePatch(who, SHIELD, {**shield, "until": until}))
                continue
        lost = character.pools[TEMP_HP].current
        effects.append(StatePatch(who, SHIELD, None))
        if lost:
            effects.append(PoolDelta(who, TEMP_HP, -lost))
        outcomes.append(ShieldEnded(name=character.name, lost=lost))
    return Step(effects=tuple(effects), outcomes=tuple(outcomes))
