"""MP between a Master and its Servant, and what a day does (R11, R14, R15, R16, R26): the Defend stance, manual
and reverse transfers, the ritual, a Master's rest, daily upkeep at each day's turn, and the masterless."""

from __future__ import annotations

import math
from collections.abc import Sequence

from bot.rulesets.base import ACTOR, CharacterSnapshot, Scene
from bot.rulesets.grail_zh import actions
from bot.rulesets.grail_zh.characters import (
    CONTRACT,
    DEFENDING,
    FATE,
    MASTER,
    MP,
    SERVANT,
    VANISHED,
    fate_of,
    grail_options,
    master_file,
    master_of,
    servant_of,
)
from rules.exchange import Effect, Outcome, PoolDelta, Roll, RuleError, StatePatch, Step, member
from rules.grail_zh.model import INDEPENDENT_ACTION_DAYS, ROUNDS_PER_MINUTE
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.rolls import Payment, pay, transfer

HOURS = "story_hours"  # the character state key of the story's hours it has lived through: its days
RESTED = "rested_day"  # the day a Master last rested (R15: once a day)
RITUAL = "ritual_day"  # the day a pair last held the ritual (D22, D23: once a day, either way)
MASTERLESS = "masterless"  # days left to a Servant with Independent Action, or the round it vanishes at
REVERSE_RATE = 10  # 「英灵每消耗10MP，master才能回复1MP」
HOURS_PER_DAY = 24


def day_of(character: CharacterSnapshot) -> int:
    hours = character.state.get(HOURS, 0)
    return int(hours) // HOURS_PER_DAY if isinstance(hours, int) else 0


class Defending(Outcome):
    event = "stance.defend"
    name: str


class Transferred(Outcome):
    event = "mp.transfer"
    master: str
    servant: str
    paid: int  # MP the giver paid
    gained: int  # MP the other gained
    reverse: bool  # the Servant gave to its Master (the ritual's reverse direction)


class Rested(Outcome):
    event = "mp.rest"
    name: str
    gained: int


class DailyUpkeep(Outcome):
    event = "mp.daily_upkeep"
    name: str
    cost: int
    from_master: int
    vanished: bool


class Masterless(Outcome):
    event = "servant.masterless"
    name: str
    days: int | None  # Independent Action's days; None: it vanishes within rounds


class Vanished(Outcome):
    event = "servant.vanished"
    name: str


def _pair(scene: Scene) -> tuple[str, CharacterSnapshot, str, CharacterSnapshot]:
    """(Master's reference, Master, Servant's reference, Servant) of the active character's contract."""
    character = scene.one(ACTOR)
    if character.kind == SERVANT:
        master = scene.get(f"{ACTOR}.{CONTRACT}")
        if master is None:
            raise RuleError("grail_no_master", name=character.name)
        return f"{ACTOR}.{CONTRACT}", master, ACTOR, character
    servant = scene.get(f"{ACTOR}.by.{CONTRACT}")
    if servant is None:
        raise RuleError("grail_no_servant", name=character.name)
    return ACTOR, character, f"{ACTOR}.by.{CONTRACT}", servant


def _alive(*characters: CharacterSnapshot) -> None:
    for character in characters:
        if fate_of(character) is not None:
            raise RuleError("grail_gone", name=character.name)


def defend(scene: Scene) -> Step:
    """R26: a standard action; until its next turn (D39) every attack roll against it hits, for half the damage
    less its CON or END."""
    character = scene.one(ACTOR)
    spent = actions.spend(ACTOR, character, scene.turn, actions.STANDARD)
    return spent.then(Step(effects=(StatePatch(ACTOR, DEFENDING, scene.turn.round_number),),
                           outcomes=(Defending(name=character.name),)))  # fmt: skip


def give(scene: Scene, amount: int) -> Step:
    """R14's manual transfer: the Master (not an ordinary human) pays, the Servant gains twice as much, never above
    its maximum (D43), and the Master keeps at least 1 MP (「一旦MP为0，master死亡」)."""
    master_ref, master, servant_ref, servant = _pair(scene)
    _alive(master, servant)
    if master_file(master).master_type == "ordinary":
        raise RuleError("grail_ordinary_transfer", name=master.name)
    mp, room_max = servant.pools[MP], servant.pools[MP].maximum or 0
    paid, gained = transfer(master.pools[MP].current, amount, mp.current, room_max)
    if paid == 0:
        raise RuleError("grail_servant_full", name=servant.name)
    if master.pools[MP].current - paid < 1:
        raise RuleError("grail_master_cost", cost=paid, mp=master.pools[MP].current)
    moved = Transferred(master=master.name, servant=servant.name, paid=paid, gained=gained, reverse=False)
    return Step(effects=(PoolDelta(master_ref, MP, -paid), PoolDelta(servant_ref, MP, gained)), outcomes=(moved,))


def ritual(scene: Scene, reverse: int | None) -> Step:
    """The 30-minute ritual, once a day for a pair (D22, D23): the Servant recovers half its MP maximum; or, the
    other way, it gives 10 MP for each 1 its Master recovers. Any pair unless `ritual_ordinary_only`."""
    options = grail_options(scene.options)
    master_ref, master, servant_ref, servant = _pair(scene)
    _alive(master, servant)
    if options.ritual_ordinary_only and master_file(master).master_type != "ordinary":
        raise RuleError("grail_ritual_ordinary", name=master.name)
    day = day_of(master)
    if master.state.get(RITUAL) == day:
        raise RuleError("grail_ritual_today", name=master.name)
    held = StatePatch(master_ref, RITUAL, day)
    if reverse is None:
        mp = servant.pools[MP]
        gained = min((mp.maximum or 0) // 2, (mp.maximum or 0) - mp.current)
        moved = Transferred(master=master.name, servant=servant.name, paid=0, gained=gained, reverse=False)
        return Step(effects=(held, PoolDelta(servant_ref, MP, gained)), outcomes=(moved,))
    master_mp = master.pools[MP]
    gained = min(reverse, (master_mp.maximum or 0) - master_mp.current)
    cost = REVERSE_RATE * gained
    if gained <= 0:
        raise RuleError("grail_master_full", name=master.name)
    if servant.pools[MP].current - cost < 1:
        raise RuleError("grail_cost_fatal", cost=cost, mp=servant.pools[MP].current)
    moved = Transferred(master=master.name, servant=servant.name, paid=cost, gained=gained, reverse=True)
    return Step(effects=(held, PoolDelta(servant_ref, MP, -cost), PoolDelta(master_ref, MP, gained)), outcomes=(moved,))


def rest(scene: Scene) -> Step:
    """R15: once a day a Master rests 8 hours and recovers all its MP."""
    master = scene.one(ACTOR)
    if master.kind != MASTER:
        raise RuleError("grail_rest_masters", name=master.name)
    _alive(master)
    day = day_of(master)
    if master.state.get(RESTED) == day:
        raise RuleError("grail_rested_today", name=master.name)
    mp = master.pools[MP]
    gained = master_of(master).mp_max - mp.current
    return Step(effects=(StatePatch(ACTOR, RESTED, day), PoolDelta(ACTOR, MP, gained)),
                outcomes=(Rested(name=master.name, gained=gained),))  # fmt: skip


def master_fell(scene: Scene, master_ref: str) -> Step:
    """R16 and D7: a Servant whose Master died vanishes within 1d3 rounds, or with Independent Action after its
    days (T4); with `masterless_rule = drain` it loses a tenth of its MP maximum each minute instead."""
    options = grail_options(scene.options)
    servant_ref = f"{master_ref}.by.{CONTRACT}"
    servant = scene.get(servant_ref)
    if servant is None or fate_of(servant) is not None:
        return Step()
    stats = servant_of(servant, options)
    action = stats.skill("independent_action")
    if action is not None:
        days = INDEPENDENT_ACTION_DAYS[action.rank.n]
        return Step(effects=(StatePatch(servant_ref, MASTERLESS, {"days": days}),),
                    outcomes=(Masterless(name=servant.name, days=days),))  # fmt: skip
    if options.masterless_rule == "drain":
        return Step(effects=(StatePatch(servant_ref, MASTERLESS, {"drain": True}),),
                    outcomes=(Masterless(name=servant.name, days=None),))  # fmt: skip
    rounds = scene.dice.roll(1, 3)[0]
    roll = Roll("masterless", 3, (rounds,), (rounds,), (), rounds)
    until = StatePatch(servant_ref, MASTERLESS, {"round": scene.turn.round_number + rounds})
    return Step(rolls=(roll,), effects=(until,), outcomes=(Masterless(name=servant.name, days=None),))


def masterless_rounds(scene: Scene, role: str, characters: Sequence[CharacterSnapshot]) -> Step:
    """At a round's start: a masterless Servant whose rounds ran out vanishes; a drained one loses a tenth of its
    maximum per minute (a hundredth per round, rounded up)."""
    steps: list[Step] = []
    for position, character in enumerate(characters):
        state = character.state.get(MASTERLESS)
        if not isinstance(state, dict) or fate_of(character) is not None:
            continue
        who = member(role, position)
        if "round" in state and scene.turn.round_number >= int(state["round"]):
            steps.append(_vanish(who, character))
        elif state.get("drain"):
            loss = math.ceil((character.pools[MP].maximum or 0) / (10 * ROUNDS_PER_MINUTE))
            steps.append(_drained(who, character, loss))
    return Step.of(*steps)


def _vanish(who: str, character: CharacterSnapshot) -> Step:
    return Step(effects=(StatePatch(who, FATE, VANISHED),), outcomes=(Vanished(name=character.name),))


def _drained(who: str, character: CharacterSnapshot, loss: int) -> Step:
    left = character.pools[MP].current - loss
    effects: list[Effect] = [PoolDelta(who, MP, -min(loss, character.pools[MP].current))]
    if left <= 0:
        effects.append(StatePatch(who, FATE, VANISHED))
        return Step(effects=tuple(effects), outcomes=(Vanished(name=character.name),))
    return Step(effects=tuple(effects))


def days_passed(scene: Scene, role: str, characters: Sequence[CharacterSnapshot], hours: int) -> Step:
    """Story time passing: each character's hours move on; at every day's turn a Servant pays its daily upkeep
    (R11, forced: from its Master's MP too with `auto_transfer`, vanishing at 0), and a masterless one counts its
    days of Independent Action down; time out of a fight ends a masterless Servant's rounds at once."""
    options = grail_options(scene.options)
    steps: list[Step] = []
    for position, character in enumerate(characters):
        who = member(role, position)
        before = day_of(character)
        now = int(character.state.get(HOURS, 0) or 0) + hours
        steps.append(Step(effects=(StatePatch(who, HOURS, now),)))
        days = now // HOURS_PER_DAY - before
        if character.kind != SERVANT or fate_of(character) is not None:
            continue
        masterless = character.state.get(MASTERLESS)
        if isinstance(masterless, dict) and ("round" in masterless or masterless.get("drain")):
            steps.append(_vanish(who, character))  # minutes at the least: the rounds or the MP ran out
            continue
        if isinstance(masterless, dict) and "days" in masterless:
            left = int(masterless["days"]) - days
            if days and left <= 0:
                steps.append(_vanish(who, character))
                continue
            if days:
                steps.append(Step(effects=(StatePatch(who, MASTERLESS, {"days": left}),)))
        master = scene.get(f"{who}.{CONTRACT}")
        mp, master_mp = character.pools[MP].current, master.pools[MP].current if master else None
        for _ in range(days):
            step, payment = _daily(who, character, mp, master, master_mp, options)
            steps.append(step)
            mp, master_mp = payment.servant_mp, payment.master_mp
            if payment.vanished:
                break
    return Step.of(*steps)


def _daily(
    who: str, servant: CharacterSnapshot, mp: int, master: CharacterSnapshot | None, master_mp: int | None,
    options: GrailZhOptions,
) -> tuple[Step, Payment]:  # fmt: skip
    """One day's upkeep, paid from `mp` and (with `auto_transfer`) the Master's `master_mp`."""
    cost = servant_of(servant, options).daily_cost
    gives = options.auto_transfer and master is not None and fate_of(master) is None and (
        master_file(master).master_type != "ordinary")  # fmt: skip
    payment = pay(cost, mp, master_mp, from_master=gives, forced=True)
    effects: list[Effect] = [PoolDelta(who, MP, payment.servant_mp - mp)]
    if payment.from_master:
        effects.append(PoolDelta(f"{who}.{CONTRACT}", MP, -payment.from_master))
    if payment.vanished:
        effects.append(StatePatch(who, FATE, VANISHED))
    paid = DailyUpkeep(name=servant.name, cost=cost, from_master=payment.from_master, vanished=payment.vanished)
    return Step(effects=tuple(effects), outcomes=(paid,)), payment
