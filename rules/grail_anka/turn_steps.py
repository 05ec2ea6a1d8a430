"""The campaign's turns in the anka game (R17-R23), as steps of the shared clock's hook and of the game's own
commands: a turn's end in R23's order, Servants taking new Masters with both players' consent (R20), a command
seal spent on the story with a GM's approval (R18), and a death that ends a protagonist's game (R21).

At a turn's end the clock's scene holds every character (`everyone`) and every camp (`side0`, `side1`...). The
masterless Servants' vanish checks are committed decisions like any other: the turn's end waits for their
anchors, and tells what ends the war once they are read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from rules.exchange import (
    Answer,
    Audience,
    Bind,
    Effect,
    JoinSide,
    Option,
    Outcome,
    Pause,
    PoolDelta,
    RuleError,
    SidePatch,
    StatePatch,
    Step,
    Text,
    Wait,
    member,
)
from rules.grail_anka import checks, turns
from rules.grail_anka.decisions import Continuations, anka_options, request
from rules.grail_anka.fight import DEAD, FATIGUE, MASTER_RELATION, VANISHED, fatigue_of, has_master, is_servant
from rules.grail_anka.outcomes import (
    Contract,
    Finale,
    MasterlessFrozen,
    MasterlessMoot,
    Order,
    Purpose,
    Recovered,
    TimeUp,
    TurnEnded,
    VanishChecked,
    Vanished,
)
from rules.grail_anka.states import Consenting, MasterlessChecks, OrderAsked
from rules.play import EVERYONE, CharacterSnapshot, Scene, SideSnapshot
from rules.words import joined

MASTERLESS_TURNS: Final = "turns_masterless"
PROTAGONIST: Final = "protagonist"
ACTION: Final = "action"  # a camp's declared turn action: {"turn": N, "kind": "rest" | "other", "note": ...}
RELATIONS: Final = "relations"  # a camp's standing with others, by their names in lower case
STANDING: Final = "standing"  # a GM's override of whether a camp is still in the war: "active" or "out"
WAR_OVER: Final = "war_over"  # on every camp once the war ended: out of time, its last protagonist dead, the finale
# On a camp whose player's protagonist died (R21): {"who": name, "id": character id}; it is out of the war.
GAME_OVER: Final = "game_over"
# On each camp granted extra actions before the finale (R22): {"left": n}, until the finale begins.
FINALE: Final = "finale"
FINALE_BEGUN: Final = "finale"  # the war's end once the final processing began
LAST_PROTAGONIST_DIED: Final = "game_over"  # the war's end once no protagonist lives (R21)
REST: Final = "rest"
SERVANT_ROLE, MASTER_ROLE, CAMP_ROLE, SERVANT_CAMP_ROLE = "servant", "master", "camp", "servant_camp"


def in_play(character: CharacterSnapshot) -> bool:
    return not (character.state.get(VANISHED) or character.state.get(DEAD))


def _master_id(servant: CharacterSnapshot) -> int | None:
    master = servant.partner(MASTER_RELATION)
    return master.id if master is not None else None


def camp_of(scene: Scene, character: CharacterSnapshot) -> SideSnapshot | None:
    return next((side for side in scene.sides.values() if any(m.id == character.id for m, _ in side.members)), None)


def resting(camp: SideSnapshot | None, turn: int) -> bool:
    action = camp.state.get(ACTION) if camp is not None else None
    return isinstance(action, Mapping) and action.get("turn") == turn and action.get("kind") == REST


def war_over(scene: Scene) -> str | None:
    """Why the war is over ("time_up", "game_over", "finale"), if it is: every camp carries it."""
    return next((str(side.state[WAR_OVER]) for side in scene.sides.values() if side.state.get(WAR_OVER)), None)


def war_over_refusal(reason: str) -> str:
    """The refusal's code for anything that would move a war that is over: the final processing runs, or it ended."""
    return "finale_running" if reason == FINALE_BEGUN else "war_over"


def ending(scene: Scene, reason: str) -> list[Effect]:
    """The war over for every camp; no extra action is left to anyone."""
    over: list[Effect] = [SidePatch(role, WAR_OVER, reason) for role in scene.sides]
    return over + [SidePatch(role, FINALE, None) for role, side in scene.sides.items() if FINALE in side.state]


def resumed(scene: Scene) -> list[Effect]:
    """The war going on again: a protagonist lives once more after the last one's death had ended it (R21)."""
    if war_over(scene) != LAST_PROTAGONIST_DIED:
        return []
    return [SidePatch(role, WAR_OVER, None) for role in scene.sides]


def extra_actions_left(state: Mapping[str, Any]) -> int | None:
    """A camp's extra actions still to take before the finale, while the GM's grace runs (None: no grace)."""
    grace = state.get(FINALE)
    return int(grace["left"]) if isinstance(grace, Mapping) else None


def game_over_of(state: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Whose death put a camp out of the game (R21), if one did."""
    over = state.get(GAME_OVER)
    return over if isinstance(over, Mapping) else None


def game_over_refusal(camp: str, state: Mapping[str, Any]) -> RuleError | None:
    """R21: what refuses anything asked or answered for a camp whose game is over, if it is."""
    over = game_over_of(state)
    return None if over is None else RuleError("camp_game_over", camp=camp, who=str(over["who"]))


def refuse_game_over(scene: Scene) -> None:
    """An answer for a camp of the exchange whose game ended meanwhile goes no further (a GM cancels it)."""
    for side in scene.sides.values():
        if (refusal := game_over_refusal(side.name, side.state)) is not None:
            raise refusal


def turn_ended(scene: Scene) -> Step:
    """R23: 1) the masterless Servants' vanish checks (committed now, read once anchored), 2) fatigue -1 for every
    Servant with a living Master (-2 in a camp that rested), 3) the next turn (the shared clock), 4) what ends the
    war, once the checks are read."""
    turn = scene.turn.turn_number
    if (reason := war_over(scene)) is not None:  # nothing moves any more, the turns neither: the GM ends it
        raise RuleError(war_over_refusal(reason))
    rested_camps = []
    for side in scene.sides.values():
        action = side.state.get(ACTION)
        # What a camp did is its own; that it rested, its Servants' recovery tells anyway.
        if isinstance(action, Mapping) and action.get("turn") == turn and action.get("kind") == REST:
            rested_camps.append(side.name)
    lines: list[Outcome] = [TurnEnded(turn=turn, rested=tuple(rested_camps))]
    effects: list[Effect] = []
    masterless: list[int] = []
    bound: list[int | None] = []  # each masterless Servant's (dead) Master when its check is committed
    purposes: list[Purpose] = []
    rates: list[int] = []
    servants = [
        (index, character)
        for index, character in enumerate(scene.members(EVERYONE))
        if is_servant(character) and in_play(character)
    ]
    # R23's order: the masterless Servants first, then the others' recovery.
    for index, character in sorted(servants, key=lambda entry: has_master(entry[1])):
        ref = member(EVERYONE, index)
        if has_master(character) and character.state.get(MASTERLESS_TURNS) is not None:
            effects.append(StatePatch(ref, MASTERLESS_TURNS, None))  # a Master again: R19's count starts over
        if not has_master(character):
            counted = int(character.state.get(MASTERLESS_TURNS, 0)) + 1
            effects.append(StatePatch(ref, MASTERLESS_TURNS, counted))
            masterless.append(index)
            bound.append(_master_id(character))
            rate = turns.masterless_survive_rate(counted)
            purposes.append(Purpose(decides="masterless", who=character.name, turns=counted))
            rates.append(rate)
            lines.append(MasterlessFrozen(who=character.name, turns=counted, fatigue=fatigue_of(character)))
            continue
        before = fatigue_of(character)
        rested = resting(camp_of(scene, character), turn)
        after = turns.recovered(before, has_master=True, resting=rested)
        if after != before:
            effects.append(PoolDelta(ref, FATIGUE, after - before))
            lines.append(Recovered(who=character.name, before=before, after=after, rested=rested))
    step = Step(effects=tuple(effects), outcomes=tuple(lines))
    if masterless:
        state = MasterlessChecks(turn=turn, masterless=tuple(masterless), rates=tuple(rates), bound=tuple(bound))
        return step.then(request(scene, state, purposes, rates=rates))
    return step.then(war_standing(scene, turn, frozenset()))


def masterless_checked(scene: Scene, state: MasterlessChecks, values: list[int], revealed: Step) -> Step:
    """R19: each masterless Servant survives at 100 - 5 x its turns without a Master (exact, D18)."""
    everyone = scene.members(EVERYONE)
    critical_fumble = anka_options(scene).critical_fumble_all_checks
    effects: list[Effect] = []
    lines: list[Outcome] = []
    gone: set[int] = set()
    for index, rate, value, was in zip(state.masterless, state.rates, values, state.bound, strict=True):
        character = everyone[index]
        if not in_play(character) or _master_id(character) != was:
            # Vanished meanwhile (an earlier turn's check), or it found a Master since (R20): the check is moot.
            lines.append(MasterlessMoot(who=character.name))
            continue
        survived = checks.survives_vanish(value, rate, critical_fumble_all_checks=critical_fumble)
        read = VanishChecked(who=character.name, value=value, rate=max(rate, 0), survived=survived, masterless=True)
        lines.append(read)
        if not survived:
            effects.append(StatePatch(member(EVERYONE, index), VANISHED, True))
            lines.append(Vanished(who=character.name))
            gone.add(character.id)
    checked = Step.of(revealed, Step(effects=tuple(effects), outcomes=tuple(lines)))
    return checked.then(war_standing(scene, state.turn, frozenset(gone)))


def camp_active(side: SideSnapshot, gone: frozenset[int]) -> bool:
    """D17 with a GM's override; a camp whose game is over (R21) is out whatever its members."""
    if game_over_of(side.state) is not None:
        return False
    standing = str(side.state.get(STANDING, ""))
    if standing in ("active", "out"):
        return standing == "active"
    return turns.active(
        (character.kind, in_play(character) and character.id not in gone) for character, _ in side.members
    )


def war_standing(scene: Scene, turn: int, gone: frozenset[int]) -> Step:
    """R21, R22: out of time past `max_turns`; the finale offered when two camps remain or all are at peace."""
    lines: list[Outcome] = []
    effects: list[Effect] = []
    if turns.time_up(turn + 1, anka_options(scene).max_turns):
        lines.append(TimeUp(turn=turn))
        effects += ending(scene, "time_up")
    camps = [side for side in scene.sides.values() if camp_active(side, gone)]
    relations = {
        frozenset((side.name.lower(), other)): kind
        for side in camps
        for other, kind in dict(side.state.get(RELATIONS, {})).items()
    }
    names = tuple(side.name for side in camps)
    granted = {side.name: extra_actions_left(side.state) for side in scene.sides.values()}
    if not effects and any(left is not None for left in granted.values()):
        # R22's grace: the finale begins at the end of the turn in which the camps in the war took their last.
        left = {side.name: granted[side.name] or 0 for side in camps}
        if not any(left.values()):
            lines.append(Finale(stage="begun", camps=names))
            effects += ending(scene, FINALE_BEGUN)
        else:
            lines.append(Finale(stage="grace", left=left))
        return Step(effects=tuple(effects), outcomes=tuple(lines))
    reason = turns.finale_reason([side.name.lower() for side in camps], relations)
    if reason is not None and not effects:
        lines.append(Finale(stage="due", camps=names, reason=reason))
    return Step(effects=tuple(effects), outcomes=tuple(lines))


def extra_actions_text(left: Mapping[str, int]) -> Text | str:
    """Each camp's extra actions still to take before the finale."""
    return joined([Text("anka.extra_actions_of", {"camp": camp, "count": count}) for camp, count in left.items()])


# New contracts (R20)


def contract_asked(scene: Scene, asker: int, *, asked_by_gm: bool) -> Step:
    """A Servant and another camp's Master agree to a contract: each player consents (one who asked already has;
    a GM asking speaks for the characters the GMs run)."""
    servant, master = scene.one(SERVANT_ROLE), scene.one(MASTER_ROLE)
    waiting = [
        role
        for role, character in ((SERVANT_ROLE, servant), (MASTER_ROLE, master))
        if not (character.gm_run and asked_by_gm) and (character.gm_run or character.owner_id != asker)
    ]
    current = servant.partner(MASTER_RELATION)
    return _next_consent(scene, Consenting(waiting=tuple(waiting), was=current.id if current is not None else None))


def _next_consent(scene: Scene, state: Consenting) -> Step:
    servant, master = scene.one(SERVANT_ROLE), scene.one(MASTER_ROLE)
    if not state.waiting:
        return _contracted(scene, state.was)
    role = state.waiting[0]
    prompt = Text("anka.contract_prompt", {"servant": servant.name, "master": master.name, "who": scene.one(role).name})
    offered = (
        Option("agree", Text("anka.contract_agree"), tone="success"),
        Option("refuse", Text("anka.contract_refuse"), tone="danger"),
    )
    wait = Wait("consent", Audience.character(role), prompt, options=offered)
    return Step(pause=Pause(state, (wait,)))


def contract_answered(scene: Scene, state: Consenting, answer: Answer) -> Step:
    refuse_game_over(scene)
    if answer.option != "agree":
        refused = Contract(result="refused", who=scene.one(state.waiting[0]).name)
        return Step(outcomes=(refused,))
    return _next_consent(scene, state.model_copy(update={"waiting": state.waiting[1:]}))


def _contracted(scene: Scene, was: int | None) -> Step:
    """R20: the Servant is the new Master's, in its camp; the old Master (alive or not) keeps its seals; the
    count of turns without a Master starts again. An offer made before the Servant took another Master lapses."""
    servant, master = scene.one(SERVANT_ROLE), scene.one(MASTER_ROLE)
    current = servant.partner(MASTER_RELATION)
    if (current.id if current is not None else None) != was or not in_play(servant) or not in_play(master):
        return Step(outcomes=(Contract(result="lapsed", servant=servant.name, master=master.name),))
    # The Servant is played from now on by the new Master's player (the GMs, for one of theirs).
    effects: list[Effect] = [
        Bind(SERVANT_ROLE, MASTER_RELATION, MASTER_ROLE, with_player=True),
        StatePatch(SERVANT_ROLE, MASTERLESS_TURNS, None),
    ]
    camp = scene.sides.get(CAMP_ROLE)
    if camp is not None:
        effects.append(JoinSide(SERVANT_ROLE, CAMP_ROLE))
    line = Contract(
        result="made", servant=servant.name, master=master.name, camp=camp.name if camp is not None else None
    )
    return Step(effects=tuple(effects), outcomes=(line,))


# A command seal for the story (R18's fourth use)


def order_asked(scene: Scene, reason: str) -> Step:
    master = scene.one(MASTER_ROLE)
    prompt = Text("anka.order_prompt", {"master": master.name, "reason": reason})
    offered = (
        Option("allow", Text("anka.order_allow"), tone="success"),
        Option("deny", Text("anka.order_deny"), tone="danger"),
    )
    wait = Wait("order", Audience.gms(), prompt, options=offered)
    return Step(pause=Pause(OrderAsked(reason=reason), (wait,)))


def order_answered(scene: Scene, state: OrderAsked, answer: Answer) -> Step:
    refuse_game_over(scene)
    master = scene.one(MASTER_ROLE)
    if answer.option != "allow":
        return Step(outcomes=(Order(result="denied", master=master.name, reason=state.reason),))
    seals = master.pools["command_seals"].current
    if seals < 1:
        return Step(outcomes=(Order(result="no_seals", master=master.name),))
    line = Order(result="spent", master=master.name, reason=state.reason, seals=seals - 1)
    return Step(effects=(PoolDelta(MASTER_ROLE, "command_seals", -1),), outcomes=(line,))


CONTINUATIONS: Final[Continuations] = {MasterlessChecks: masterless_checked}
