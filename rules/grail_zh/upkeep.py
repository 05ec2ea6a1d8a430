"""MP between a Master and its Servant, and what a day does (R11, R14, R15, R16, R26): the Defend stance, manual
and reverse transfers, the ritual, a Master's rest, daily upkeep at each day's turn, and the masterless."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rules.exchange import Effect, Outcome, PoolDelta, PoolMaximum, Roll, RuleError, StatePatch, Step, Text, member
from rules.grail_zh import actions
from rules.grail_zh.characters import plus_on
from rules.grail_zh.model import (
    CLASS_TABLE,
    INDEPENDENT_ACTION_DAYS,
    ROUNDS_PER_MINUTE,
    STATS,
    TERRITORY_SQUARES,
    TRANSFER_RANGE,
)
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.ranks import combat_cost
from rules.grail_zh.rolls import Payment, masterless_drain, pay, plus_multiplier, transfer
from rules.grail_zh.sheets import ServantFile
from rules.grail_zh.stored import (
    BOOST,
    CONTRACT,
    DEFENDING,
    FATE,
    HP,
    MASTER,
    MP,
    PLUS_ACTIVE,
    SERVANT,
    SPIRIT_FORM,
    UNAWARE,
    VANISHED,
    fate_of,
    grail_options,
    hidden_sheet,
    master_file,
    master_of,
    pluses_on,
    servant_file,
    servant_like,
    servant_of,
    target_text,
)
from rules.play import ACTOR, CharacterSnapshot, Scene

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
    secret: bool = False  # a hidden sheet: the amounts would tell its MP and its maximum
    name: str = ""  # the Master, whom the players' log names when the amounts are kept from it


class Rested(Outcome):
    event = "mp.rest"
    name: str
    gained: int
    secret: bool = False  # a hidden sheet: what it recovers is what it lacked of its maximum
    days: int = 0  # rests taken as story time passed, on each day it had not rested (R15)


class DailyUpkeep(Outcome):
    event = "mp.daily_upkeep"
    name: str
    cost: int
    from_master: int
    vanished: bool
    secret: bool = False  # a hidden sheet: what it pays would tell its ranks
    days: int = 1  # the days paid for, summed, as story time passed: `cost` and `from_master` are theirs in all


class Masterless(Outcome):
    event = "servant.masterless"
    name: str
    days: int | None  # Independent Action's days; None: it vanishes within rounds


class Vanished(Outcome):
    event = "servant.vanished"
    name: str


def _pair(scene: Scene) -> tuple[str, CharacterSnapshot, str, CharacterSnapshot]:
    """(Master's reference, Master, Servant's reference, Servant) of the active character's contract, both still in
    the war: nothing passes to or from the dead."""
    character = scene.one(ACTOR)
    if character.kind == SERVANT:
        master = scene.get(f"{ACTOR}.{CONTRACT}")
        if master is None:
            raise RuleError("grail_no_master", name=character.name)
        pair = (f"{ACTOR}.{CONTRACT}", master, ACTOR, character)
    else:
        servant = scene.get(f"{ACTOR}.by.{CONTRACT}")
        if servant is None:
            raise RuleError("grail_no_servant", name=character.name)
        pair = (ACTOR, character, f"{ACTOR}.by.{CONTRACT}", servant)
    _alive(pair[3])
    if fate_of(pair[1]) is not None:
        raise RuleError("grail_master_gone", master=pair[1].name, servant=pair[3].name)
    return pair


def _alive(*characters: CharacterSnapshot) -> None:
    for character in characters:
        if fate_of(character) is not None:
            raise RuleError("grail_gone", name=character.name)


def defend(scene: Scene) -> Step:
    """R26: a standard action; until its next turn (D39) every attack roll against it hits, for half the damage
    less its CON or END."""
    character = scene.one(ACTOR)
    spent = actions.spend(scene, ACTOR, actions.STANDARD)
    return spent.then(
        Step(
            effects=(StatePatch(ACTOR, DEFENDING, scene.turn.round_number),), outcomes=(Defending(name=character.name),)
        )
    )


def give(scene: Scene, amount: int) -> Step:
    """R14's manual transfer: the Master (not an ordinary human) pays, the Servant gains twice as much, never above
    its maximum (D43), and the Master keeps at least 1 MP (「一旦MP为0，master死亡」)."""
    master_ref, master, servant_ref, servant = _pair(scene)
    if master_file(master).master_type == "ordinary":
        raise RuleError("grail_ordinary_transfer", name=master.name)
    if not can_give(master, servant):
        raise RuleError("grail_too_far_to_give", name=master.name, range=TRANSFER_RANGE)
    mp, room_max = servant.pools[MP], servant.pools[MP].maximum or 0
    paid, gained = transfer(master.pools[MP].current, amount, mp.current, room_max)
    if paid == 0:
        raise RuleError("grail_servant_full", name=servant.name)
    if master.pools[MP].current - paid < 1:
        raise RuleError("grail_master_cost", cost=paid, mp=master.pools[MP].current)
    moved = Transferred(
        master=master.name,
        servant=servant.name,
        paid=paid,
        gained=gained,
        reverse=False,
        secret=_hidden(master, servant),
        name=master.name,
    )
    return Step(effects=(PoolDelta(master_ref, MP, -paid), PoolDelta(servant_ref, MP, gained)), outcomes=(moved,))


def _hidden(*characters: CharacterSnapshot) -> bool:
    return any(hidden_sheet(character) for character in characters)


def ritual(scene: Scene, reverse: int | None) -> Step:
    """The 30-minute ritual, once a day for a pair (D22, D23): the Servant recovers half its MP maximum; or, the
    other way, it gives 10 MP for each 1 its Master recovers. Any pair unless `ritual_ordinary_only`."""
    options = grail_options(scene.options)
    master_ref, master, servant_ref, servant = _pair(scene)
    if options.ritual_ordinary_only and master_file(master).master_type != "ordinary":
        raise RuleError("grail_ritual_ordinary", name=master.name)
    if scene.turn.in_combat:  # half an hour's ritual
        raise RuleError("grail_not_in_a_fight", name=master.name)
    day = day_of(master)
    if master.state.get(RITUAL) == day:
        raise RuleError("grail_ritual_today", name=master.name)
    held = StatePatch(master_ref, RITUAL, day)
    if reverse is None:
        mp = servant.pools[MP]
        gained = min((mp.maximum or 0) // 2, (mp.maximum or 0) - mp.current)
        if gained <= 0:  # the day's ritual is not spent on nothing
            raise RuleError("grail_servant_full", name=servant.name)
        moved = Transferred(
            master=master.name,
            servant=servant.name,
            paid=0,
            gained=gained,
            reverse=False,
            secret=_hidden(master, servant),
            name=master.name,
        )
        return Step(effects=(held, PoolDelta(servant_ref, MP, gained)), outcomes=(moved,))
    master_mp = master.pools[MP]
    gained = min(reverse, (master_mp.maximum or 0) - master_mp.current)
    cost = REVERSE_RATE * gained
    if gained <= 0:
        raise RuleError("grail_master_full", name=master.name)
    if servant.pools[MP].current - cost < 1:
        raise RuleError("grail_cost_fatal", cost=cost, mp=servant.pools[MP].current)
    moved = Transferred(
        master=master.name,
        servant=servant.name,
        paid=cost,
        gained=gained,
        reverse=True,
        secret=_hidden(master, servant),
        name=master.name,
    )
    return Step(effects=(held, PoolDelta(servant_ref, MP, -cost), PoolDelta(master_ref, MP, gained)), outcomes=(moved,))


def rest(scene: Scene) -> Step:
    """R15: once a day a Master rests 8 hours and recovers all its MP."""
    master = scene.one(ACTOR)
    if master.kind != MASTER:
        raise RuleError("grail_rest_masters", name=master.name)
    _alive(master)
    if scene.turn.in_combat:  # eight hours' rest
        raise RuleError("grail_not_in_a_fight", name=master.name)
    day = day_of(master)
    if master.state.get(RESTED) == day:
        raise RuleError("grail_rested_today", name=master.name)
    mp = master.pools[MP]
    gained = master_of(master).mp_max - mp.current
    if gained <= 0:
        raise RuleError("grail_master_full", name=master.name)
    return Step(
        effects=(StatePatch(ACTOR, RESTED, day), PoolDelta(ACTOR, MP, gained)),
        outcomes=(Rested(name=master.name, gained=gained, secret=hidden_sheet(master)),),
    )


def master_fell(scene: Scene, master_ref: str) -> Step:
    """The Servant of a Master who has just died (R16)."""
    servant_ref = f"{master_ref}.by.{CONTRACT}"
    servant = scene.get(servant_ref)
    if servant is None or fate_of(servant) is not None or MASTERLESS in servant.state:
        return Step()
    return orphaned(scene, servant_ref, servant)


def masters_lost(
    scene: Scene, role: str, characters: Sequence[CharacterSnapshot], fallen: Callable[[CharacterSnapshot], bool]
) -> Step:
    """Servants whose Master fell some other way than a blow or an award (its rounds of dying ran out, say), found at
    the next round."""
    steps = []
    for position, character in enumerate(characters):
        who = member(role, position)
        master = scene.get(f"{who}.{CONTRACT}")
        if (
            character.kind == SERVANT
            and master is not None
            and MASTERLESS not in character.state
            and (fate_of(character) is None and fallen(master))
        ):
            steps.append(orphaned(scene, who, character))
    return Step.of(*steps)


def orphaned(scene: Scene, servant_ref: str, servant: CharacterSnapshot) -> Step:
    """R16 and D7: a Servant whose Master died vanishes within 1d3 rounds, or with Independent Action after its
    days (T4); with `masterless_rule = drain` it loses a tenth of its MP maximum each minute instead."""
    options = grail_options(scene.options)
    days = _independent_days(servant, options)
    if days is not None:
        return _independent(servant_ref, servant, days)
    if options.masterless_rule == "drain":  # counted from this round: a tenth of its maximum at each whole minute
        return Step(
            effects=(StatePatch(servant_ref, MASTERLESS, {"drain": scene.turn.round_number}),),
            outcomes=(Masterless(name=servant.name, days=None),),
        )
    rounds = scene.dice.roll(1, 3)[0]
    roll = Roll("masterless", 3, (rounds,), (rounds,), (), rounds)
    until = StatePatch(servant_ref, MASTERLESS, {"round": scene.turn.round_number + rounds})
    return Step(rolls=(roll,), effects=(until,), outcomes=(Masterless(name=servant.name, days=None),))


def _independent_days(servant: CharacterSnapshot, options: GrailZhOptions) -> int | None:
    """The days Independent Action keeps a masterless Servant (T4); None without it."""
    action = servant_of(servant, options).skill("independent_action")
    return INDEPENDENT_ACTION_DAYS[action.rank.n] if action is not None else None


def _independent(servant_ref: str, servant: CharacterSnapshot, days: int) -> Step:
    return Step(
        effects=(StatePatch(servant_ref, MASTERLESS, {"days": days}),),
        outcomes=(Masterless(name=servant.name, days=days),),
    )


def masterless_rounds(scene: Scene, role: str, characters: Sequence[CharacterSnapshot]) -> Step:
    """At a round's start: a masterless Servant whose rounds ran out vanishes; a drained one loses a tenth of its
    maximum at the end of each whole minute since its Master died (「每分钟会流失最大魔力值的10%」, D8's minute)."""
    steps: list[Step] = []
    for position, character in enumerate(characters):
        state = character.state.get(MASTERLESS)
        if not isinstance(state, dict) or fate_of(character) is not None:
            continue
        who = member(role, position)
        if "round" in state and scene.turn.round_number >= int(state["round"]):
            steps.append(_vanish(who, character))
        elif "drain" in state:
            rounds = scene.turn.round_number - int(state["drain"])
            if loss := masterless_drain(character.pools[MP].maximum or 0, rounds):
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


def days_passed(
    scene: Scene,
    role: str,
    characters: Sequence[CharacterSnapshot],
    hours: int,
    fallen: Callable[[CharacterSnapshot], bool],
) -> Step:
    """Story time passing: each character's hours move on; at every day's turn a Servant pays its daily upkeep
    (R11, forced: from its Master's MP too with `auto_transfer`, vanishing at 0), and a masterless one counts its
    days of Independent Action down. An hour at the least outlasts 「1d3轮（不到1分钟）」 and the ten minutes the drain
    takes (D7): a masterless Servant without Independent Action is gone at once, even one whose Master is only now
    found `fallen` (a GM's award, a Battle Continuation that ran out in this very step). A Master rests at the end
    of each day it had not rested in (R15), before the next day's upkeep draws on it."""
    options = grail_options(scene.options)
    steps: list[Step] = []
    days_ahead: list[tuple[int, int, int]] = []  # (hours from now, 0 a Master's rest | 1 an upkeep, position)
    for position, character in enumerate(characters):
        who = member(role, position)
        before = day_of(character)
        start = int(character.state.get(HOURS, 0) or 0)
        now = start + hours
        steps.append(Step(effects=(StatePatch(who, HOURS, now),)))
        days = now // HOURS_PER_DAY - before
        turns = [HOURS_PER_DAY * (before + day) - start for day in range(1, days + 1)]  # each day's turn, from now
        if character.kind == MASTER and fate_of(character) is None:
            days_ahead += [(turn, 0, position) for turn in turns if _rested_in(character, start, turn)]
        if character.kind != SERVANT or fate_of(character) is not None:
            continue
        masterless = character.state.get(MASTERLESS)
        master = scene.get(f"{who}.{CONTRACT}")
        if masterless is None and master is not None and fallen(master):
            held = _independent_days(character, options)
            if held is None:
                steps.append(_vanish(who, character))
                continue
            steps.append(_independent(who, character, held))
            masterless = {"days": held}
        if isinstance(masterless, dict) and ("round" in masterless or "drain" in masterless):
            steps.append(_vanish(who, character))
            continue
        if isinstance(masterless, dict) and "days" in masterless:
            left = int(masterless["days"]) - days
            if days and left <= 0:
                steps.append(_vanish(who, character))
                continue
            if days:
                steps.append(Step(effects=(StatePatch(who, MASTERLESS, {"days": left}),)))
        days_ahead += [(turn, 1, position) for turn in turns]
    return Step.of(*steps, _days_lived(scene, role, characters, sorted(days_ahead), options))


REST_HOURS = 8  # 「每天一次，Master休息8小时，可以恢复自己全部的MP」


def _rested_in(master: CharacterSnapshot, start: int, turn: int) -> bool:
    """Whether story time passing gives a Master the rest of the day that ends `turn` hours from now: the rules give
    it one a day (R15), and the time passed holds its 8 hours of that day, which it had not rested in."""
    day = (start + turn) // HOURS_PER_DAY - 1
    return min(turn, HOURS_PER_DAY) >= REST_HOURS and master.state.get(RESTED) != day


def _days_lived(
    scene: Scene,
    role: str,
    characters: Sequence[CharacterSnapshot],
    days_ahead: Sequence[tuple[int, int, int]],
    options: GrailZhOptions,
) -> Step:
    """The days story time passes through, in their order: at the end of each a Master rests unless it did (R15),
    at each day's turn a Servant pays its upkeep (R11) from its MP and its Master's as they then are. What the days
    come to is one change of MP and one line for each character: a year passed at once is a few writes and a short
    post, not a change and a line for every day."""
    refs = {character.id: member(role, position) for position, character in enumerate(characters)}
    before = {character.id: character.pools[MP].current for character in characters}
    mp = dict(before)
    rests: dict[int, list[int]] = {}  # each Master's rests, by position: the MP each gave back
    paid: dict[int, DailyUpkeep] = {}  # each Servant's days of upkeep, by position, summed
    unpaid: dict[int, DailyUpkeep] = {}  # the day a Servant could not pay, by position: its last
    for _, what, position in days_ahead:
        character = characters[position]
        if what == 0:
            gained = master_of(character).mp_max - mp[character.id]
            if gained > 0:  # a full pool does not spend the day's rest (as `rest`)
                rests.setdefault(position, []).append(gained)
                mp[character.id] += gained
            continue
        if position in unpaid:
            continue
        who = refs[character.id]
        master = scene.get(f"{who}.{CONTRACT}")
        if master is not None:
            refs.setdefault(master.id, f"{who}.{CONTRACT}")
            before.setdefault(master.id, master.pools[MP].current)
            mp.setdefault(master.id, master.pools[MP].current)
        day, payment = _daily(
            character, mp[character.id], master, mp[master.id] if master is not None else None, options
        )
        mp[character.id] = payment.servant_mp
        if master is not None and payment.master_mp is not None:
            mp[master.id] = payment.master_mp
        if day.vanished:
            unpaid[position] = day
        elif (so_far := paid.get(position)) is not None:
            summed = {"cost": so_far.cost + day.cost, "from_master": so_far.from_master + day.from_master}
            paid[position] = so_far.model_copy(update={**summed, "days": so_far.days + 1})
        else:
            paid[position] = day
    effects: list[Effect] = [PoolDelta(refs[key], MP, mp[key] - before[key]) for key in mp if mp[key] != before[key]]
    effects += [StatePatch(member(role, position), FATE, VANISHED) for position in unpaid]
    told: list[Outcome] = [
        day
        for position in sorted(paid.keys() | unpaid.keys())
        for day in (paid.get(position), unpaid.get(position))
        if day is not None
    ]
    told += [
        Rested(
            name=characters[position].name,
            gained=sum(gains),
            days=len(gains),
            secret=hidden_sheet(characters[position]),
        )
        for position, gains in rests.items()
    ]
    return Step(effects=tuple(effects), outcomes=tuple(told))


def _daily(
    servant: CharacterSnapshot,
    mp: int,
    master: CharacterSnapshot | None,
    master_mp: int | None,
    options: GrailZhOptions,
) -> tuple[DailyUpkeep, Payment]:
    """One day's upkeep, paid from `mp` and (with `auto_transfer`) the Master's `master_mp`."""
    cost = servant_of(servant, options).daily_cost
    payment = pay(cost, mp, master_mp, from_master=options.auto_transfer and can_give(master, servant), forced=True)
    told = DailyUpkeep(
        name=servant.name,
        cost=cost,
        from_master=payment.from_master,
        vanished=payment.vanished,
        secret=hidden_sheet(servant),
    )
    return told, payment


PLUS_DAYS = "plus_days"  # the state key of the day each passive "+" was last turned on, by its target
PLUS_ROUNDS = 10 * ROUNDS_PER_MINUTE  # R17: for up to 10 minutes


class Boosted(Outcome):
    event = "skill.rank_boost"
    name: str
    stat: str
    ranks: int
    extra_cost: int  # combat upkeep for the boosted ranks, when `upkeep_before_boost` is off (D40)


class PlusOn(Outcome):
    event = "plus.on"
    name: str
    target: str
    multiplier: int


class PlusOff(Outcome):
    event = "plus.off"
    name: str
    target: str


def boost(scene: Scene, ranks: int) -> Step:
    """R19's rank boost, chosen once a fight: up to X ranks on the stat picked at creation, for the fight. Upkeep
    was paid on the ranks before it (D40); with `upkeep_before_boost` off, the boosted ranks' upkeep is paid now."""
    options = grail_options(scene.options)
    servant = scene.one(ACTOR)
    _alive(servant)
    skill = servant_of(servant, options).skill("rank_boost") if servant.kind == SERVANT else None
    if skill is None or skill.target not in STATS:
        raise RuleError("grail_no_rank_boost", name=servant.name)
    if not scene.turn.in_combat:
        raise RuleError("grail_boost_in_fights", name=servant.name)
    if BOOST in servant.state:
        raise RuleError("grail_boosted_already", name=servant.name)
    most = skill.rank.magnitude(options.ex_value)
    if ranks > most:
        raise RuleError("grail_boost_too_high", name=servant.name, most=most)
    stat = skill.target
    before = servant_of(servant, options).ranks[stat]
    extra = 0 if options.upkeep_before_boost else combat_cost(before.shifted(ranks)) - combat_cost(before)
    paid = Step()
    if extra:
        effects, _ = servant_pays(ACTOR, servant, extra, scene.get(f"{ACTOR}.{CONTRACT}"), forced=False)
        paid = Step(effects=tuple(effects))
    boosted = Boosted(name=servant.name, stat=str(stat), ranks=ranks, extra_cost=extra)
    return paid.then(Step(effects=(StatePatch(ACTOR, BOOST, {"stat": stat, "ranks": ranks}),), outcomes=(boosted,)))


def plus(scene: Scene, target: str) -> Step:
    """R17: once a day, a "+" on a stat or a passive skill is turned on for up to 10 minutes: the effect x(1+n)
    (D20; `plus_mode`). END's and MAG's extra HP and MP come with it and go when it ends."""
    options = grail_options(scene.options)
    servant = scene.one(ACTOR)
    _alive(servant)
    if servant.kind != SERVANT:
        raise RuleError("grail_plus_servants", name=servant.name)
    sheet = servant_file(servant)
    pluses = _pluses_on(sheet, target)
    if not pluses:
        raise RuleError("grail_no_plus", name=servant.name, target=target_text(target))
    active = pluses_on(servant)
    if any(entry.get("target") == target for entry in active):
        raise RuleError("grail_plus_active", name=servant.name, target=target_text(target))
    day = day_of(servant)
    used = servant.state.get(PLUS_DAYS) or {}
    if isinstance(used, dict) and used.get(target) == day:
        raise RuleError("grail_plus_today", name=servant.name)
    before = servant_of(servant, options)
    multiplier = plus_multiplier(pluses, options.plus_mode)
    after = plus_on(before, target, multiplier, CLASS_TABLE[sheet.servant_class].hp)
    extra = {HP: after.hp_max - before.hp_max, MP: after.mp_max - before.mp_max}
    effects: list[Effect] = [
        StatePatch(
            ACTOR,
            PLUS_ACTIVE,
            [
                *active,
                {"target": target, "pluses": pluses, "until": scene.turn.round_number + PLUS_ROUNDS, "extra": extra},
            ],
        ),
        StatePatch(ACTOR, PLUS_DAYS, {**(used if isinstance(used, dict) else {}), target: day}),
    ]
    for pool, amount in extra.items():
        if amount:
            effects += [
                PoolMaximum(ACTOR, pool, (servant.pools[pool].maximum or 0) + amount),
                PoolDelta(ACTOR, pool, amount),
            ]
    return Step(effects=tuple(effects), outcomes=(PlusOn(name=servant.name, target=target, multiplier=multiplier),))


def _pluses_on(sheet: ServantFile, target: str) -> int:
    """The "+" on a stat of the legend or on one of its skills (a Noble Phantasm's are released with it)."""
    if target in sheet.legend:
        return sheet.legend[target].pluses
    skill = sheet.skill(target)
    return skill.rank.pluses if skill is not None else 0


def plus_expired(who: str, character: CharacterSnapshot, *, now: int | None) -> Step:
    """A "+" that is on ends after its 10 minutes (`now`: the round; None: story time passed, ending it at once);
    its extra HP and MP go with it, the pools coming down to their maxima."""
    active = pluses_on(character)
    ended = [entry for entry in active if now is None or now >= int(entry["until"])]
    if not ended:
        return Step()
    kept = [entry for entry in active if entry not in ended]
    effects: list[Effect] = [StatePatch(who, PLUS_ACTIVE, kept or None)]
    lowered: dict[str, int] = {}
    for entry in ended:
        for pool, amount in (entry.get("extra") or {}).items():
            lowered[pool] = lowered.get(pool, 0) + int(amount)
    for pool, amount in lowered.items():
        if amount:
            effects.append(PoolMaximum(who, pool, (character.pools[pool].maximum or 0) - amount))
    outcomes = tuple(PlusOff(name=character.name, target=str(entry["target"])) for entry in ended)
    return Step(effects=tuple(effects), outcomes=outcomes)


def can_give(master: CharacterSnapshot | None, servant: CharacterSnapshot) -> bool:
    """R14: a living Master gives MP the usual way, unless an ordinary human (T1), within 30 squares of its Servant
    (where the map is kept)."""
    if master is None or fate_of(master) is not None or master_file(master).master_type == "ordinary":
        return False
    apart = actions.distance(master, servant)
    return apart is None or apart <= TRANSFER_RANGE


def servant_pays(
    role: str,
    servant: CharacterSnapshot,
    cost: int,
    master: CharacterSnapshot | None,
    *,
    forced: bool,
    helped: bool = True,
    fatal: bool = False,
) -> tuple[list[Effect], Payment]:
    """R14 as effects: the Servant pays from its MP, its Master (`helped`) giving for twice as much; at 0 it
    vanishes."""
    mp = servant.pools[MP].current
    master_mp = master.pools[MP].current if master is not None else None
    payment = pay(cost, mp, master_mp, from_master=helped and can_give(master, servant), forced=forced, fatal=fatal)
    effects: list[Effect] = [PoolDelta(role, MP, payment.servant_mp - mp)]
    if payment.from_master:
        effects.append(PoolDelta(f"{role}.{CONTRACT}", MP, -payment.from_master))
    if payment.vanished:
        effects.append(StatePatch(role, FATE, VANISHED))
    return effects, payment


STATUSES = {"defend": DEFENDING, "unaware": UNAWARE, "spirit_form": SPIRIT_FORM}
SECRET_STATUSES = frozenset({"unaware"})  # a public prompt never tells who is caught unaware


class StatusSet(Outcome):
    event = "status.set"
    name: str
    status: str
    on: bool
    secret: bool = False  # a fact its holder does not know (unaware of its attackers): the GMs' to keep


def status(scene: Scene, name: str, on: bool) -> Step:
    """A GM's ruling on a character's status: the Defend stance, unaware of its attackers (no defence against
    them, R3), spirit form (R23: it only moves and scouts)."""
    character = scene.one(ACTOR)
    key = STATUSES[name]
    if (key in character.state) == on:
        raise RuleError("grail_status_unchanged", name=character.name, status=Text(f"status.{name}"))
    value = scene.turn.round_number if on else None
    ruled = StatusSet(name=character.name, status=name, on=on, secret=name in SECRET_STATUSES)
    return Step(effects=(StatePatch(ACTOR, key, value),), outcomes=(ruled,))


TERRITORY = "territory"  # the state key of a Caster's territory: its centre square and the story hour it stands


class TerritoryFounded(Outcome):
    event = "skill.territory"
    name: str


def found_territory(scene: Scene) -> Step:
    """Territory Creation (R20, §2.6): a territory of 50x50 squares around the Caster's square, standing after a
    day's work; a new one replaces the old."""
    options = grail_options(scene.options)
    caster = scene.one(ACTOR)
    _alive(caster)
    if not servant_like(caster) or not servant_of(caster, options).magnitude("territory", options.ex_value):
        raise RuleError("grail_no_territory", name=caster.name)
    if scene.turn.in_combat:  # a day's work
        raise RuleError("grail_not_in_a_fight", name=caster.name)
    here = actions.square(caster)
    if here is None:
        raise RuleError("grail_territory_unplaced", name=caster.name)
    hours = int(caster.state.get(HOURS, 0) or 0)
    territory = {"x": here[0], "y": here[1], "from_hour": hours + HOURS_PER_DAY}
    return Step(effects=(StatePatch(ACTOR, TERRITORY, territory),), outcomes=(TerritoryFounded(name=caster.name),))


def _territory_minutes(character: CharacterSnapshot, minutes: int, hours_ahead: int) -> int:
    """How many of the coming `minutes` (ending `hours_ahead` story hours from now) a Caster spends in its standing
    territory: none where it stands outside it."""
    territory, here = character.state.get(TERRITORY), actions.square(character)
    if not isinstance(territory, Mapping) or here is None:
        return 0
    half = TERRITORY_SQUARES // 2
    if not all(-half <= here[axis] - int(territory[key]) < half for axis, key in ((0, "x"), (1, "y"))):
        return 0
    standing_for = int(character.state.get(HOURS, 0) or 0) + hours_ahead - int(territory["from_hour"])
    return max(0, min(minutes, standing_for * 60)) if hours_ahead else (minutes if standing_for >= 0 else 0)


class Regenerated(Outcome):
    event = "skill.regeneration"
    name: str
    hp: int
    mp: int


def regeneration(
    scene: Scene, role: str, characters: Sequence[CharacterSnapshot], *, rounds: int, minutes: int, hours: int = 0
) -> Step:
    """R15 and R18: HP regeneration X a round, MP regeneration X a minute and a Caster's Territory Creation X a
    minute inside its standing territory, over `rounds` rounds and `minutes` minutes (`hours` of story time),
    never above the maxima."""
    options = grail_options(scene.options)
    steps: list[Step] = []
    for position, character in enumerate(characters):
        if character.kind != SERVANT or fate_of(character) is not None:
            continue
        stats = servant_of(character, options)
        hp_x, mp_x = stats.magnitude("hp_regen", options.ex_value), stats.magnitude("mp_regen", options.ex_value)
        territory_x = stats.magnitude("territory", options.ex_value)
        territory_mp = territory_x * _territory_minutes(character, minutes, hours) if territory_x else 0
        if not hp_x and not mp_x and not territory_mp:
            continue
        who = member(role, position)
        hp, mp = character.pools[HP], character.pools[MP]
        hp_gain = min(hp_x * rounds, (hp.maximum or 0) - hp.current) if hp_x else 0
        mp_gain = min(mp_x * minutes + territory_mp, (mp.maximum or 0) - mp.current)
        effects: list[Effect] = []
        if hp_gain > 0:
            effects.append(PoolDelta(who, HP, hp_gain))
        if mp_gain > 0:
            effects.append(PoolDelta(who, MP, mp_gain))
        if effects:
            steps.append(
                Step(
                    effects=tuple(effects),
                    outcomes=(Regenerated(name=character.name, hp=max(0, hp_gain), mp=max(0, mp_gain)),),
                )
            )
    return Step.of(*steps)
