"""A battle between two camps as one exchange (R4-R15, R18): setup skills, each side's parameter and a random
third, main skills, the win rate, the anchored decision, cleanup skills, and the aftermath.

The exchange's sides are `a` (the side whose win rate is computed: the player camp against a GM-run one, else the
first side) and `b`; its `fighter` role holds every member in the formations, side a's first, and `fighters` in its
state tells each one's side and place. Each side is asked only for what is its own to choose: its skills (offered
privately, so a rival learns a skill only when it is used), its parameter, a cancel of the other side's activation
while it can still be cancelled (R11), and, for each losing Servant, its Master's player's way out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar

from rules.exchange import (
    Answer,
    Audience,
    Effect,
    Option,
    OptionGroup,
    Outcome,
    Pause,
    PoolDelta,
    Roll,
    RuleError,
    SidePatch,
    StatePatch,
    Step,
    Text,
    Wait,
    member,
)
from rules.grail_anka import battle, checks
from rules.grail_anka.decisions import Continuations, anka_options, reading, request
from rules.grail_anka.model import (
    PARAMS,
    RETREAT_FATIGUE,
    UNDO_VANISH_SEALS,
    SkillTag,
    Talisman,
    Timing,
)
from rules.grail_anka.outcomes import (
    BattleBegun,
    BattleCancelled,
    BattleOver,
    BattleWon,
    Checked,
    FateFaced,
    FirstDrawn,
    Formation,
    ParamPicked,
    Purpose,
    RateSkill,
    Retreated,
    SkillActivated,
    SkillCancelled,
    SkillPassed,
    SkillResolved,
    Suppressed,
    ThirdParam,
    VanishChecked,
    Vanished,
    WayOutGone,
    WinnerFatigue,
    WinRate,
)
from rules.grail_anka.sheets import FILES, CharacterFile, Skill, SkillEffect
from rules.grail_anka.states import (
    After,
    Aftermath,
    Assassinating,
    Battle,
    ChoosingFate,
    ChoosingSkill,
    Countering,
    Deciding,
    DrawingThird,
    Picking,
    Placed,
    RollingAftermath,
    Spent,
    Undoing,
    Used,
)
from rules.play import CharacterSnapshot, Scene
from rules.words import joined

FIGHTER: Final = "fighter"
MASTER_RELATION: Final = "master"
FATIGUE: Final = "fatigue"
SEALS: Final = "command_seals"
VANISHED: Final = "vanished"
DEAD: Final = "dead"
TALISMANS: Final = "talismans"
BASE: Final = "base"
MAIN, SUB, COMPANION = battle.MAIN, battle.SUB, battle.COMPANION
PLACES: Final = (MAIN, SUB, COMPANION)
BattleT = TypeVar("BattleT", bound=Battle)
AftermathT = TypeVar("AftermathT", bound=Aftermath)

PASS, ALLOW = "pass", "allow"
SKILL_GROUP, CANCEL_GROUP = "skills", "counters"
WINDOW_TIMINGS: Final = (Timing.SETUP, Timing.MAIN, Timing.CLEANUP)
# A losing Servant's ways out (R14), in the order the rules try them.
FATES: Final = ("retreat_skill", Talisman.SUBSTITUTE_KAI.value, Talisman.SUBSTITUTE.value, "seal", "face")


def sheet_of(character: CharacterSnapshot) -> CharacterFile:
    return FILES[character.kind].model_validate(character.sheet["file"])


def is_servant(character: CharacterSnapshot) -> bool:
    return FATIGUE in character.pools


def fatigue_of(character: CharacterSnapshot) -> int:
    return character.pools[FATIGUE].current if is_servant(character) else 0


def other(side: str) -> str:
    return "b" if side == "a" else "a"


@dataclass(frozen=True)
class Fighter:
    index: int
    ref: str
    character: CharacterSnapshot
    side: str
    place: str

    @property
    def sheet(self) -> CharacterFile:
        return sheet_of(self.character)

    @property
    def master_ref(self) -> str:
        return f"{self.ref}.{MASTER_RELATION}"


def fighters(scene: Scene, state: Battle) -> list[Fighter]:
    if len(scene.members(FIGHTER)) != len(state.fighters):
        raise RuleError("fighter_gone")  # deleted meanwhile: the battle cannot go on, a GM cancels it
    return [
        Fighter(index, member(FIGHTER, index), character, entry.side, entry.place)
        for index, (character, entry) in enumerate(zip(scene.members(FIGHTER), state.fighters, strict=True))
    ]


def side_name(scene: Scene, side: str) -> str:
    return scene.side(side).name


def talismans(scene: Scene, side: str) -> dict[str, int]:
    held = scene.side(side).state.get(TALISMANS, {})
    return {kind.value: int(held.get(kind.value, 0)) for kind in Talisman}


def spend_talisman(
    scene: Scene, state: BattleT, side: str, kind: str, *, already: int = 0
) -> tuple[SidePatch, BattleT]:
    """A talisman spent (after `already` spent earlier in the step being built), and the state that remembers it
    (a cancelled battle gives it back)."""
    held = talismans(scene, side)
    spent = state.model_copy(update={"spent": (*state.spent, (side, kind))})
    return SidePatch(side, TALISMANS, {**held, kind: held[kind] - already - 1}), spent


# The battle's start


def begin(scene: Scene, first: str, home: str | None, fighter_places: Sequence[tuple[str, str]]) -> Step:
    """R5.1: the battle opens with its sides and formations; each Servant's fatigue is noted for the win rate (R7)
    and the skills it may use (R9)."""
    state = Battle(
        first=first,
        home=home,
        fighters=tuple(Placed(side=side, place=place) for side, place in fighter_places),
        fatigue_start=tuple(fatigue_of(character) for character in scene.members(FIGHTER)),
    )
    # Where the battle is: beaten at home, a camp that retreats loses its base (R14).
    base = scene.side(home).state.get(BASE) if home is not None else None
    begun = BattleBegun(
        first=side_name(scene, first),
        second=side_name(scene, other(first)),
        home=side_name(scene, home) if home is not None else None,
        base=str(base) if base else None,
        formations=tuple(_formation(scene, state, side) for side in ("a", "b")),
    )
    return Step(outcomes=(begun,)).then(_advance(scene, state))


def _formation(scene: Scene, state: Battle, side: str) -> Formation:
    present = [fighter for fighter in fighters(scene, state) if fighter.side == side]
    main, subs, companions = (tuple(f.character.name for f in present if f.place == place) for place in PLACES)
    return Formation(side=side_name(scene, side), main=main, subs=subs, companions=companions)


def first_drawn(scene: Scene, face: int, first: str) -> Step:
    """`first_side_rule: random`: the die that said which side goes first (1: the camp named first)."""
    line = FirstDrawn(side=side_name(scene, first))
    return Step(rolls=(Roll("first_side", 2, (face,), (face,), (), face),), outcomes=(line,))


def order(state: Battle) -> tuple[str, str]:
    return state.first, other(state.first)


# Skill windows (R5.2, R5.6, R5.8, R9)


def _advance(scene: Scene, state: Battle) -> Step:
    """The next side's skill window at this timing, or what follows the timing."""
    timing = state.timing
    while state.turn < 2:
        side = order(state)[state.turn]
        offered = _skill_options(scene, state, side, timing)
        if offered:
            prompt = Text(
                "anka.skill_prompt", {"side": side_name(scene, side), "timing": Text(f"anka.timing.{timing}")}
            )
            wait = Wait(
                "skill",
                Audience.side(side),
                prompt,
                options=(*offered, Option(PASS, Text("anka.pass"), tone="secondary")),
                groups=(OptionGroup(SKILL_GROUP, Text("anka.use_a_skill"), Text("anka.which_skill")),),
                deadline_seconds=anka_options(scene).response_minutes * 60,
                default=PASS,
            )
            return Step(pause=Pause(ChoosingSkill.of(state), (wait,)))
        state = state.model_copy(update={"turn": state.turn + 1})
    state = state.model_copy(update={"turn": 0})
    if timing == Timing.SETUP:
        return _ask_pick(scene, state)
    if timing == Timing.MAIN:
        return _decide(scene, state)
    return _aftermath(scene, state)


def _uses(state: Battle, fighter: int, skill: int) -> int:
    return state.uses.get(f"{fighter}:{skill}", 0)


def _used(state: BattleT, fighter: int, skill: int) -> BattleT:
    """The state with one more use of a fighter's skill."""
    return state.model_copy(update={"uses": {**state.uses, f"{fighter}:{skill}": _uses(state, fighter, skill) + 1}})


def _usable(state: Battle, fighter: Fighter, timing: Timing) -> list[tuple[int, Skill]]:
    start = state.fatigue_start[fighter.index]
    return [
        (index, skill)
        for index, skill in enumerate(fighter.sheet.skills)
        if battle.usable(
            skill, timing, place=fighter.place, fatigue_at_start=start, used=_uses(state, fighter.index, index)
        )
        is None
    ]


def _skill_options(scene: Scene, state: Battle, side: str, timing: Timing) -> list[Option]:
    offered = []
    for fighter in fighters(scene, state):
        if fighter.side != side or _gone(fighter.character):
            continue
        for index, skill in _usable(state, fighter, timing):
            if skill.effect.cancels:  # a counter-skill answers another's activation
                continue
            label = Text(
                "anka.skill_choice",
                {"who": fighter.character.name, "skill": skill.name, "kind": Text(f"anka.kind.{skill.kind}")},
            )
            offered.append(Option(f"u{fighter.index}_{index}", label, group=SKILL_GROUP))
    return offered


def _gone(character: CharacterSnapshot) -> bool:
    return bool(character.state.get(VANISHED) or character.state.get(DEAD))


def has_master(servant: CharacterSnapshot) -> bool:
    """Whether a Servant has a living Master (R19)."""
    master = servant.partner(MASTER_RELATION)
    return master is not None and not _gone(master)


def _picked(key: str) -> tuple[int, int]:
    fighter, skill = key[1:].split("_")
    return int(fighter), int(skill)


def skill_chosen(scene: Scene, state: ChoosingSkill, answer: Answer) -> Step:
    side = order(state)[state.turn]
    timing = state.timing
    if answer.option == PASS or answer.option is None:
        passed = SkillPassed(side=side_name(scene, side), timing=timing)
        return Step(outcomes=(passed,)).then(_advance(scene, state.model_copy(update={"turn": state.turn + 1})))
    fighter_index, skill_index = _picked(answer.option)
    fighter = fighters(scene, state)[fighter_index]
    skill = fighter.sheet.skills[skill_index]
    using = Countering.of(_used(state, fighter_index, skill_index), using=(fighter_index, skill_index))
    activated = SkillActivated(
        who=fighter.character.name, skill=skill.name, kind=skill.kind, side=side_name(scene, side)
    )
    offered = _cancel_options(scene, using, other(side), skill)
    if not offered:
        return Step(outcomes=(activated,)).then(_resolve_use(scene, using))
    prompt = Text(
        "anka.cancel_prompt",
        {"side": side_name(scene, other(side)), "who": fighter.character.name, "skill": skill.name},
    )
    wait = Wait(
        "cancel",
        Audience.side(other(side)),
        prompt,
        options=(*offered, Option(ALLOW, Text("anka.allow"), tone="secondary")),
        groups=(OptionGroup(CANCEL_GROUP, Text("anka.cancel_it"), Text("anka.cancel_how")),),
        deadline_seconds=anka_options(scene).response_minutes * 60,
        default=ALLOW,
    )
    return Step(outcomes=(activated,), pause=Pause(using, (wait,)))


def _cancel_options(scene: Scene, state: Battle, side: str, target: Skill) -> list[Option]:
    """What the other side could cancel this activation with: a talisman it holds, or a counter-skill of one of
    its members at this timing (R11)."""
    offered = [
        Option(kind, Text(f"anka.talisman.{kind}"), group=CANCEL_GROUP)
        for kind in (Talisman.ILLUSION, Talisman.ILLUSION_KAI)
        if talismans(scene, side)[kind.value] > 0 and battle.cancellable_by(kind, target.kind)
    ]
    if not battle.cancellable_by("counter", target.kind):
        return offered
    for fighter in fighters(scene, state):
        if fighter.side != side or _gone(fighter.character):
            continue
        for index, skill in _usable(state, fighter, state.timing):
            if skill.effect.cancels:
                label = Text(
                    "anka.skill_choice",
                    {"who": fighter.character.name, "skill": skill.name, "kind": Text(f"anka.kind.{skill.kind}")},
                )
                offered.append(Option(f"c{fighter.index}_{index}", label, group=CANCEL_GROUP))
    return offered


def cancel_chosen(scene: Scene, state: Countering, answer: Answer) -> Step:
    fighter_index, skill_index = state.using
    fighter = fighters(scene, state)[fighter_index]
    skill = fighter.sheet.skills[skill_index]
    if answer.option in (ALLOW, None):
        return _resolve_use(scene, state)
    canceller = other(fighter.side)
    effects: list[Effect] = []
    now: Battle = Battle.of(state, using=None)
    if answer.option in (Talisman.ILLUSION, Talisman.ILLUSION_KAI):
        spent, now = spend_talisman(scene, now, canceller, answer.option)
        effects.append(spent)
        cancelled = SkillCancelled(
            who=fighter.character.name,
            skill=skill.name,
            side=side_name(scene, canceller),
            talisman=Talisman(answer.option),
        )
    else:
        counter_index, counter_skill = _picked(answer.option)
        counter = fighters(scene, now)[counter_index]
        used = counter.sheet.skills[counter_skill]
        effects += _tire(counter, used.fatigue_cost)
        now = _record(_used(now, counter_index, counter_skill), counter_index, counter_skill, cancelled=False)
        cancelled = SkillCancelled(
            who=fighter.character.name,
            skill=skill.name,
            side=side_name(scene, canceller),
            counter_who=counter.character.name,
            counter_skill=used.name,
        )
    now = _record(now, fighter_index, skill_index, cancelled=True)
    return Step(effects=tuple(effects), outcomes=(cancelled,)).then(_advance(scene, now))


def _record(state: Battle, fighter: int, skill: int, *, cancelled: bool) -> Battle:
    entry = Used(fighter=fighter, skill=skill, timing=state.timing, cancelled=cancelled)
    return state.model_copy(update={"activations": (*state.activations, entry)})


def _tire(fighter: Fighter, cost: int) -> list[Effect]:
    """R9: a skill's fatigue lands at once on the Servant who used it (Masters and others have none)."""
    return [PoolDelta(fighter.ref, FATIGUE, cost)] if cost and is_servant(fighter.character) else []


def _resolve_use(scene: Scene, using: Countering) -> Step:
    fighter_index, skill_index = using.using
    fighter = fighters(scene, using)[fighter_index]
    skill = fighter.sheet.skills[skill_index]
    state = _record(Battle.of(using, using=None), fighter_index, skill_index, cancelled=False)
    used = Step(
        effects=tuple(_tire(fighter, skill.fatigue_cost)),
        outcomes=(
            SkillResolved(who=fighter.character.name, skill=skill.name, effect=skill.effect, tags=tuple(skill.tags)),
        ),
    )
    if SkillTag.ASSASSINATION in skill.tags:
        rate = skill.effect.success_rate or 0
        purpose = Purpose(decides="assassination", who=fighter.character.name, skill=skill.name)
        asked = request(scene, Assassinating.of(state, assassin=fighter_index), [purpose], rates=[rate])
        return used.then(asked)
    return used.then(_advance(scene, state))


def counted_parts(effect: SkillEffect, *, rate: bool = True) -> list[str | Text]:
    """What of a skill's effect the win rate counts: its win rate and guarantee (`rate`: unless the result is
    automatic, W8), and its parameters, which the strengths compared hold."""
    parts: list[str | Text] = []
    if effect.win_rate_delta and rate:
        parts.append(Text("anka.effect.win_rate", {"delta": f"{effect.win_rate_delta:+d}"}))
    for param, delta in effect.param_delta.items():
        if delta:
            parts.append(Text("anka.effect.param", {"param": Text(f"anka.param.{param}"), "delta": f"{delta:+d}"}))
    if effect.min_win_rate is not None and rate:
        parts.append(Text("anka.effect.min_win_rate", {"rate": effect.min_win_rate}))
    return parts


def effect_text(effect: SkillEffect, tags: Sequence[SkillTag]) -> Text:
    """What a skill does, in the reader's words."""
    parts = counted_parts(effect)
    if effect.success_rate is not None:
        parts.append(Text("anka.effect.assassination", {"rate": effect.success_rate}))
    if effect.cancels:
        parts.append(Text("anka.effect.cancels"))
    if SkillTag.RETREAT in tags:
        parts.append(Text("anka.effect.retreat"))
    if not parts:
        return Text("anka.effect.narrative")
    return Text("anka.effect.list", {"effects": joined(parts)})


def assassinated(scene: Scene, state: Assassinating, values: list[int], revealed: Step) -> Step:
    """R12: a success wins the battle for the assassin's side, skipping the rest; a failure lets it go on."""
    fighter = fighters(scene, state)[state.assassin]
    activation = state.activations[-1]
    skill = fighter.sheet.skills[activation.skill]
    verdict = checks.judge(values[0], skill.effect.success_rate or 0)
    line = Checked(
        of="assassination", value=verdict.value, rate=verdict.rate, reading=reading(verdict), who=fighter.character.name
    )
    if not verdict.success:
        return Step.of(revealed, Step(outcomes=(line,))).then(_advance(scene, Battle.of(state, assassin=None)))
    won = state.model_copy(update={"winner": fighter.side, "decided_by": "assassination", "retreat_disabled": False})
    decided = BattleWon(
        winner=side_name(scene, fighter.side), loser=side_name(scene, other(fighter.side)), how="assassination"
    )
    return Step.of(revealed, Step(outcomes=(line, decided))).then(_aftermath(scene, won))


# Parameters (R5.3-R5.5, R6)


def _ask_pick(scene: Scene, state: Battle) -> Step:
    picks = state.picks
    side = "a" if not picks else "b"
    offered = tuple(Option(param, Text(f"anka.param.{param}")) for param in PARAMS if param not in picks)
    prompt = Text("anka.pick_prompt", {"side": side_name(scene, side), "order": len(picks) + 1})
    return Step(pause=Pause(Picking.of(state), (Wait("pick", Audience.side(side), prompt, options=offered),)))


def param_picked(scene: Scene, state: Picking, answer: Answer) -> Step:
    picks = (*state.picks, str(answer.option))
    side = "a" if len(picks) == 1 else "b"
    picked = Step(outcomes=(ParamPicked(side=side_name(scene, side), param=picks[-1]),))
    now = Battle.of(state, picks=picks)
    if len(picks) == 1:
        return picked.then(_ask_pick(scene, now))
    if anka_options(scene).random_param_source == "server_rng":
        left = battle.remaining(picks)
        (face,) = scene.dice.roll(1, len(left))
        rolled = Step(rolls=(Roll("third_param", len(left), (face,), (face,), (), face),))
        return picked.then(Step.of(rolled, _third(scene, now, left[face - 1], drawn=True)))
    purpose = Purpose(decides="third", choices=battle.remaining(picks))
    return picked.then(request(scene, DrawingThird.of(now), [purpose]))


def third_drawn(scene: Scene, state: DrawingThird, values: list[int], revealed: Step) -> Step:
    return Step.of(revealed, _third(scene, Battle.of(state), battle.third_parameter(state.picks, values[0])))


def _third(scene: Scene, state: Battle, third: str, *, drawn: bool = False) -> Step:
    line = ThirdParam(param=third, drawn=drawn)
    return Step(outcomes=(line,)).then(
        _advance(scene, state.model_copy(update={"picks": (*state.picks, third), "timing": Timing.MAIN, "turn": 0}))
    )


# The win rate and the decision (R7, R8, R10)


def standing_activations(scene: Scene, state: Battle) -> list[battle.Activation]:
    """The skills used in the battle, then the passive ones of everyone present (always on, never used)."""
    everyone = fighters(scene, state)
    used = [
        battle.Activation(
            everyone[entry.fighter].side,
            everyone[entry.fighter].sheet.skills[entry.skill],
            everyone[entry.fighter].character.name,
            cancelled=entry.cancelled,
        )
        for entry in state.activations
    ]
    by_side = [passive_activations(f.side, [(f.sheet, f.place)]) for f in everyone if not _gone(f.character)]
    return used + [activation for activations in by_side for activation in activations]


def passive_activations(side: str, members: Sequence[tuple[CharacterFile, str]]) -> list[battle.Activation]:
    """The passive skills of a side's members (a companion's only where it may use them): always on."""
    return [
        battle.Activation(side, skill, sheet.name)
        for sheet, place in members
        for skill in sheet.skills
        if skill.timing == Timing.PASSIVE and (place != COMPANION or SkillTag.COMPANION_OK in skill.tags)
    ]


def members(scene: Scene, state: Battle, side: str) -> list[battle.Member]:
    """A side's formation as the win rate sees it, with each Servant's fatigue at the battle's start (R7)."""
    return [
        battle.Member(f.place, f.sheet.values, f.sheet.level, state.fatigue_start[f.index])
        for f in fighters(scene, state)
        if f.side == side
    ]


def rate_of(scene: Scene, state: Battle) -> tuple[battle.Rated, list[battle.Activation]]:
    """R7 with the skills that took effect (R10): side A's win rate, every term apart."""
    options = anka_options(scene)
    met = battle.interplay(standing_activations(scene, state), np_priority_fatigue=options.np_priority_fatigue)
    rated = battle.formation_rate(
        state.picks,
        members(scene, state, "a"),
        members(scene, state, "b"),
        companions_tire=options.fatigue_scope == "present_servants",
        skills_a=battle.totals(met, "a"),
        skills_b=battle.totals(met, "b"),
    )
    return rated, met


def win_rate(side_a: str, side_b: str, rated: battle.Rated, suppressed: Sequence[Suppressed] = ()) -> WinRate:
    """Side A's win rate as the table reads it: each chosen parameter's strengths (no other), and each skill that
    took effect, passive ones too, with what it adds to its side (T3's skill term, the strengths)."""
    chosen = rated.result.chosen
    skills = tuple(
        RateSkill(
            side=side,
            who=activation.who,
            skill=activation.skill.name,
            timing=activation.skill.timing,
            effect=activation.skill.effect,
        )
        for side, counted in ((side_a, rated.skills_a), (side_b, rated.skills_b))
        for activation in counted.terms
    )
    return WinRate(
        side_a=side_a,
        side_b=side_b,
        result=rated.result,
        strength_a={param: rated.strength_a[param] for param in chosen},
        strength_b={param: rated.strength_b[param] for param in chosen},
        skills=skills,
        suppressed=tuple(suppressed),
    )


def _decide(scene: Scene, state: Battle) -> Step:
    rated, met = rate_of(scene, state)
    result = rated.result
    everyone = fighters(scene, state)
    effects: list[Effect] = []
    suppressed = []
    refunded = []
    # The used skills come first in `met`, in the order of the state's activations; passive ones follow.
    for number, (entry, activation) in enumerate(zip(state.activations, met, strict=False)):
        if activation.suppressed:
            fighter = everyone[entry.fighter]
            suppressed.append(_suppressed(scene, state, met, fighter, activation))
            cost = activation.skill.fatigue_cost
            if not activation.tires and cost and is_servant(fighter.character):
                effects.append(PoolDelta(fighter.ref, FATIGUE, -cost))  # D20: like a cancel, no fatigue
                refunded.append(number)
    state = state.model_copy(update={"refunded": tuple(refunded)})
    rate = win_rate(side_name(scene, "a"), side_name(scene, "b"), rated, suppressed)
    computed = Step(effects=tuple(effects), outcomes=(rate,))
    automatic = battle.automatic_winner(result)
    if automatic is not None:
        winner = "a" if automatic else "b"
        state = state.model_copy(update={"winner": winner, "decided_by": "auto", "retreat_disabled": False})
        decided = BattleWon(winner=side_name(scene, winner), loser=side_name(scene, other(winner)), how="auto")
        return computed.then(Step(outcomes=(decided,))).then(_cleanup(scene, state))
    purpose = Purpose(decides="battle", side=side_name(scene, "a"))
    return computed.then(request(scene, Deciding.of(state, rate=result.rate or 0), [purpose], rates=[result.rate or 0]))


def _suppressed(
    scene: Scene,
    state: Battle,
    met: Sequence[battle.Activation],
    fighter: Fighter,
    activation: battle.Activation,
) -> Suppressed:
    """Why a used skill took no effect (R10): which Noble Phantasm of its category took priority, and whose (a
    passive one is its camp's), or that it and the other side's effect offset each other."""
    by = activation.overridden_by
    if by is None:
        return Suppressed(who=fighter.character.name, skill=activation.skill.name)
    np = met[by]
    used = state.activations
    owner = fighters(scene, state)[used[by].fighter].character.name if by < len(used) else side_name(scene, np.side)
    return Suppressed(who=fighter.character.name, skill=activation.skill.name, np=np.skill.name, np_who=owner)


def battle_decided(scene: Scene, state: Deciding, values: list[int], revealed: Step) -> Step:
    """R8: side A wins iff its check succeeds; a loss on 01 or 00 disables the loser's retreat skills."""
    verdict = checks.judge(values[0], state.rate)
    winner = "a" if verdict.success else "b"
    how = "critical" if verdict.critical else "fumble" if verdict.fumble else "roll"
    decided = Battle.of(state, winner=winner, decided_by=how, retreat_disabled=verdict.critical or verdict.fumble)
    lines = (
        Checked(of="battle", value=verdict.value, rate=verdict.rate, reading=reading(verdict)),
        BattleWon(
            winner=side_name(scene, winner),
            loser=side_name(scene, other(winner)),
            how=how,
            retreat_disabled=decided.retreat_disabled,
        ),
    )
    return Step.of(revealed, Step(outcomes=lines)).then(_cleanup(scene, decided))


def _cleanup(scene: Scene, state: Battle) -> Step:
    return _advance(scene, state.model_copy(update={"timing": Timing.CLEANUP, "turn": 0}))


# The aftermath (R12-R15, R18)


def _aftermath(scene: Scene, state: Battle) -> Step:
    winner = state.winner
    everyone = fighters(scene, state)
    used = {entry.fighter for entry in state.activations if not entry.cancelled}
    if state.decided_by == "assassination":  # R12: the assassin, and winners who had already used a skill
        rolling = [
            f
            for f in everyone
            if f.side == winner
            and is_servant(f.character)
            and f.place in (MAIN, SUB)
            and (f.index == state.assassin or f.index in used)
        ]
    else:  # R13: the winners' main and subs; companions skip the table
        rolling = [f for f in everyone if f.side == winner and is_servant(f.character) and f.place in (MAIN, SUB)]
    losers = [f.index for f in everyone if f.side != winner and is_servant(f.character) and not _gone(f.character)]
    after = After(winners=tuple(f.index for f in rolling), queue=tuple(losers))
    return _next_fate(scene, Aftermath.of(state, after=after))


def fate_options(scene: Scene, state: Aftermath, fighter: Fighter) -> list[Option]:
    """The ways out a losing Servant has, in R14's order, each with what it costs; facing the vanish check shows
    its odds."""
    offered = []
    options = anka_options(scene)
    if not state.retreat_disabled and _retreat_skill(state, fighter) is not None:
        offered.append(
            Option("retreat_skill", Text("anka.fate.retreat_skill", {"skill": _retreat_skill_name(state, fighter)}))
        )
    held = talismans(scene, fighter.side)
    spent = state.after.pending
    for kind in (Talisman.SUBSTITUTE_KAI, Talisman.SUBSTITUTE):
        left = held[kind.value] - spent.talismans.get(f"{fighter.side}:{kind.value}", 0)
        if left > 0:
            offered.append(Option(kind.value, Text(f"anka.fate.{kind.value}", {"count": left})))
    seals = seals_left(scene, state, fighter)
    if seals >= 1:
        offered.append(Option("seal", Text("anka.fate.seal", {"seals": seals})))
    rate = battle.survive_rate(fatigue_of(fighter.character))
    chance = checks.survive_chance(rate, critical_fumble_all_checks=options.critical_fumble_all_checks)
    offered.append(Option("face", Text("anka.fate.face", {"chance": percent(chance)}), tone="danger"))
    return offered


def _with_after(state: AftermathT, **changes: Any) -> AftermathT:
    return state.model_copy(update={"after": state.after.model_copy(update=changes)})


def _spend(state: AftermathT, what: Literal["talismans", "seals"], key: str, count: int) -> AftermathT:
    """The state with talismans or seals spent in the step being built: its scene was read before they were."""
    return _with_after(state, pending=state.after.pending.plus(what, key, count))


def _fresh(state: AftermathT) -> AftermathT:
    """The state as a new step reads it: its scene already counts every earlier spend."""
    return _with_after(state, pending=Spent())


def seals_left(scene: Scene, state: Aftermath, fighter: Fighter) -> int:
    """The strokes its Master can still spend for this Servant (none if the Master is gone)."""
    master = scene.get(fighter.master_ref)
    if master is None or _gone(master):
        return 0
    return master.pools[SEALS].current - state.after.pending.seals.get(str(master.id), 0)


def percent(chance: Any) -> str:
    return f"{float(chance) * 100:.1f}%"


def _retreat_skill(state: Battle, fighter: Fighter) -> int | None:
    usable = _usable(state, fighter, Timing.POST_BATTLE)
    return next((index for index, skill in usable if SkillTag.RETREAT in skill.tags), None)


def _retreat_skill_name(state: Battle, fighter: Fighter) -> str:
    index = _retreat_skill(state, fighter)
    return "" if index is None else fighter.sheet.skills[index].name


def _next_fate(scene: Scene, state: Aftermath) -> Step:
    after = state.after
    if not after.queue:
        return _roll_aftermath(scene, state)
    fighter = fighters(scene, state)[after.queue[0]]
    offered = fate_options(scene, state, fighter)
    if len(offered) == 1:  # nothing but the vanish check
        return take_way_out(scene, state, fighter, "face")
    prompt = Text("anka.fate_prompt", {"who": fighter.character.name})
    wait = Wait("fate", Audience.character(fighter.ref), prompt, options=tuple(offered))
    return Step(pause=Pause(ChoosingFate.of(state), (wait,)))


def fate_chosen(scene: Scene, state: ChoosingFate, answer: Answer) -> Step:
    fresh = _fresh(state)
    fighter = fighters(scene, fresh)[fresh.after.queue[0]]
    if answer.option not in {option.key for option in fate_options(scene, fresh, fighter)}:
        gone = Step(outcomes=(WayOutGone(who=fighter.character.name),))
        return gone.then(_next_fate(scene, fresh))  # spent meanwhile for another Servant: ask again
    return take_way_out(scene, fresh, fighter, str(answer.option))


def take_way_out(scene: Scene, state: Aftermath, fighter: Fighter, choice: str) -> Step:
    state = _with_after(state, queue=state.after.queue[1:])
    effects: list[Effect] = []
    name = fighter.character.name
    if choice == "face":
        state = _with_after(state, facing=(*state.after.facing, fighter.index))
        # Its rate is the one posted with its commitment, once every loser has chosen.
        return Step(outcomes=(FateFaced(who=name),)).then(_next_fate(scene, state))
    if choice == "retreat_skill":
        index = _retreat_skill(state, fighter)
        assert index is not None
        state = _with_after(_used(state, fighter.index, index), rescued=True)
        skill: str | None = fighter.sheet.skills[index].name
        gained = RETREAT_FATIGUE
    elif choice in (Talisman.SUBSTITUTE, Talisman.SUBSTITUTE_KAI):
        pending = state.after.pending.talismans.get(f"{fighter.side}:{choice}", 0)
        spent, state = spend_talisman(scene, state, fighter.side, choice, already=pending)
        state = _with_after(_spend(state, "talismans", f"{fighter.side}:{choice}", 1), rescued=True)
        effects.append(spent)
        skill, gained = None, battle.retreat_fatigue(choice)
    else:
        effects.append(PoolDelta(fighter.master_ref, SEALS, -1))
        master = scene.one(fighter.master_ref)
        state = _spend(state, "seals", str(master.id), 1)
        skill, gained = None, RETREAT_FATIGUE
    effects += [PoolDelta(fighter.ref, FATIGUE, gained)] if gained else []
    # What this step spent stays in the state, for the next loser's choices.
    state = _with_after(state, retreated=(*state.after.retreated, fighter.index))
    line = Retreated(
        who=name,
        by="skill" if choice == "retreat_skill" else choice,
        skill=skill,
        seals=1 if choice == "seal" else 0,
        fatigue=fatigue_of(fighter.character) + gained,
    )
    return Step(effects=tuple(effects), outcomes=(line,)).then(_next_fate(scene, state))


def _roll_aftermath(scene: Scene, state: Aftermath) -> Step:
    after = state.after
    everyone = fighters(scene, state)
    purposes = [Purpose(decides="fatigue", who=everyone[index].character.name) for index in after.winners]
    rates: list[int | None] = [None] * len(purposes)
    facing_rates = []
    for index in after.facing:
        rate = battle.survive_rate(fatigue_of(everyone[index].character))
        purposes.append(Purpose(decides="vanish", who=everyone[index].character.name))
        rates.append(rate)
        facing_rates.append(rate)
    if not purposes:
        return _finish(scene, state)
    # The rates posted with the commitments are the rates read: a seal spent before the anchor changes nothing.
    return request(
        scene, RollingAftermath.of(_with_after(state, facing_rates=tuple(facing_rates))), purposes, rates=rates
    )


def aftermath_rolled(scene: Scene, state: RollingAftermath, values: list[int], revealed: Step) -> Step:
    state = _fresh(state)
    after = state.after
    everyone = fighters(scene, state)
    options = anka_options(scene)
    effects: list[Effect] = []
    lines: list[Outcome] = []
    winners = after.winners
    retreated = list(after.retreated)
    for index, value in zip(winners, values, strict=False):
        fighter = everyone[index]
        digit = checks.digit(value)
        now = battle.winner_fatigue(fatigue_of(fighter.character), digit)
        if not has_master(fighter.character):  # R19: a masterless Servant recovers by no means, this one either
            now = max(now, fatigue_of(fighter.character))
        effects.append(PoolDelta(fighter.ref, FATIGUE, now - fatigue_of(fighter.character)))
        lines.append(
            WinnerFatigue(
                who=fighter.character.name, digit=digit, delta=now - fatigue_of(fighter.character), fatigue=now
            )
        )
    undo = []
    for index, rate, value in zip(after.facing, after.facing_rates, values[len(winners) :], strict=True):
        fighter = everyone[index]
        survived = checks.survives_vanish(value, rate, critical_fumble_all_checks=options.critical_fumble_all_checks)
        lines.append(VanishChecked(who=fighter.character.name, value=value, rate=max(rate, 0), survived=survived))
        if survived:
            effects.append(PoolDelta(fighter.ref, FATIGUE, RETREAT_FATIGUE))
            retreated.append(index)
            lines.append(
                Retreated(
                    who=fighter.character.name, by="check", fatigue=fatigue_of(fighter.character) + RETREAT_FATIGUE
                )
            )
        else:
            undo.append(index)
    state = _with_after(state, retreated=tuple(retreated), undo=tuple(undo), facing=())
    return Step.of(revealed, Step(effects=tuple(effects), outcomes=tuple(lines))).then(next_undo(scene, state))


def next_undo(scene: Scene, state: Aftermath) -> Step:
    """R18: a Servant that failed its vanish check may still be pulled back with two strokes, if its Master has
    them; otherwise it vanishes for good."""
    lines: list[Vanished] = []
    effects: list[Effect] = []
    queue = list(state.after.undo)
    while queue:
        fighter = fighters(scene, state)[queue[0]]
        master = scene.get(fighter.master_ref)
        seals = seals_left(scene, state, fighter)
        if master is not None and seals >= UNDO_VANISH_SEALS:
            prompt = Text("anka.undo_prompt", {"who": fighter.character.name, "master": master.name, "seals": seals})
            offered = (
                Option("seal", Text("anka.undo.seal")),
                Option("accept", Text("anka.undo.accept"), tone="danger"),
            )
            wait = Wait("undo", Audience.character(fighter.ref), prompt, options=offered)
            paused = Undoing.of(_with_after(state, undo=tuple(queue)))
            return Step(effects=tuple(effects), outcomes=tuple(lines), pause=Pause(paused, (wait,)))
        effects.append(StatePatch(fighter.ref, VANISHED, True))
        lines.append(Vanished(who=fighter.character.name))
        queue.pop(0)
    return Step(effects=tuple(effects), outcomes=tuple(lines)).then(_finish(scene, _with_after(state, undo=())))


def undo_chosen(scene: Scene, state: Undoing, answer: Answer) -> Step:
    fresh = _fresh(state)
    after = fresh.after
    fighter = fighters(scene, fresh)[after.undo[0]]
    rest = _with_after(fresh, undo=after.undo[1:])
    if answer.option == "seal" and seals_left(scene, fresh, fighter) < UNDO_VANISH_SEALS:
        gone = Step(outcomes=(WayOutGone(who=fighter.character.name),))
        return gone.then(next_undo(scene, fresh))  # spent meanwhile for another Servant: ask again
    if answer.option == "seal":
        rest = _spend(rest, "seals", str(scene.one(fighter.master_ref).id), UNDO_VANISH_SEALS)
        effects = (
            PoolDelta(fighter.master_ref, SEALS, -UNDO_VANISH_SEALS),
            PoolDelta(fighter.ref, FATIGUE, RETREAT_FATIGUE),
        )
        rest = _with_after(rest, retreated=(*after.retreated, fighter.index))
        line = Retreated(
            who=fighter.character.name,
            by="seal",
            seals=UNDO_VANISH_SEALS,
            fatigue=fatigue_of(fighter.character) + RETREAT_FATIGUE,
        )
        return Step(effects=effects, outcomes=(line,)).then(next_undo(scene, rest))
    gone = Step(effects=(StatePatch(fighter.ref, VANISHED, True),), outcomes=(Vanished(who=fighter.character.name),))
    return gone.then(next_undo(scene, rest))


def _finish(scene: Scene, state: Aftermath) -> Step:
    """R14's end: the losing camp's other members retreat with a surviving Servant, or else negotiate with the
    winners (no negotiation after a retreat skill or a substitute talisman); a camp beaten at home that retreats
    loses its base."""
    after = state.after
    loser = other(state.winner)
    others = [f for f in fighters(scene, state) if f.side == loser and not is_servant(f.character)]
    effects: list[Effect] = []
    lost_base = None
    retreating = bool(after.retreated)
    if state.home == loser and (retreating or after.rescued) and scene.side(loser).state.get(BASE):
        effects.append(SidePatch(loser, BASE, None))
        lost_base = str(scene.side(loser).state[BASE])
    over = BattleOver(
        winner=side_name(scene, state.winner),
        loser=side_name(scene, loser),
        others=tuple(f.character.name for f in others),
        negotiate=not (retreating or after.rescued),
        lost_base=lost_base,
    )
    return Step(effects=tuple(effects), outcomes=(over,))


def cancelled(scene: Scene, state: Battle) -> Step | None:
    """A GM's cancel of a battle not yet decided: as if it never happened, its skills' fatigue and its talismans
    come back (the talismans even when a fighter is gone). Once decided, what was read stands: a Servant whose
    vanish check failed vanishes; what was still to be chosen or read is left to the GM."""
    if state.winner is not None:
        return _cancelled_after(scene, state, state.winner)
    effects: list[Effect] = []
    if len(scene.members(FIGHTER)) == len(state.fighters):
        everyone = fighters(scene, state)
        for number, entry in enumerate(state.activations):
            if not entry.cancelled and number not in state.refunded:
                fighter = everyone[entry.fighter]
                effects += [
                    PoolDelta(ref, FATIGUE, -cost)
                    for ref, cost in [(fighter.ref, fighter.sheet.skills[entry.skill].fatigue_cost)]
                    if cost and is_servant(fighter.character)
                ]
    held = {side: talismans(scene, side) for side in ("a", "b")}
    for side, kind in state.spent:
        held[side][kind] += 1
    effects += [SidePatch(side, TALISMANS, held[side]) for side in {side for side, _ in state.spent}]
    if not effects:
        return None
    return Step(effects=tuple(effects), outcomes=(BattleCancelled(),))


def _cancelled_after(scene: Scene, state: Battle, winner: str) -> Step:
    lines: list[Outcome] = [BattleCancelled(winner=side_name(scene, winner))]
    effects: list[Effect] = []
    if len(scene.members(FIGHTER)) == len(state.fighters):
        everyone = fighters(scene, state)
        for index in state.after.undo if state.after else ():
            effects.append(StatePatch(everyone[index].ref, VANISHED, True))
            lines.append(Vanished(who=everyone[index].character.name))
    return Step(effects=tuple(effects), outcomes=tuple(lines))


CONTINUATIONS: Final[Continuations] = {
    Assassinating: assassinated,
    DrawingThird: third_drawn,
    Deciding: battle_decided,
    RollingAftermath: aftermath_rolled,
}
