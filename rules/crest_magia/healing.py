"""Healing in Crest Magia (R15, C19): a GM heals a character by an amount, or by a healer's roll (the house
default: 2d6 and the rank of a healing crest, or of Medicine), and the healed character places the HP pool by
pool; what no pool has room for is lost."""

from __future__ import annotations

from rules.crest_magia import fight
from rules.crest_magia.damage import healed
from rules.crest_magia.model import STATS, Stat
from rules.crest_magia.options import CrestMagiaOptions
from rules.crest_magia.rolls import healing_roll
from rules.crest_magia.states import HEAL_WAIT, HealPlacing
from rules.exchange import Answer, Audience, Modifier, Outcome, Pause, RuleError, Step, Text, Wait
from rules.play import ACTOR, CharacterSnapshot, Scene

HEALER = "healer"  # the role of the character whose crest or Medicine heals


class HealRolled(Outcome):
    event = "heal.rolled"
    healer: str
    name: str
    total: int


class Recovered(Outcome):
    event = "heal.recovered"
    name: str
    stat: str
    amount: int


class HealEnded(Outcome):
    event = "heal.ended"
    name: str
    lost: int  # what no pool had room for


def heal(scene: Scene, amount: int | None, options: CrestMagiaOptions) -> Step:
    """R15/C19: a GM heals a character: a number of HP, or (the house default, `house_healing`) 2d6 and the
    rank of the healer's healing crest, or of its Medicine skill. The healed character places the HP pool by
    pool; none goes past a pool's maximum."""
    character = scene.one(ACTOR)
    if amount is not None:
        return _placing(character, fight.hp_of(character), amount, Step(), options)
    if not options.house_healing:  # no roll to decide it: only an amount does, whoever heals
        raise RuleError("heal_amount_only")
    healer = scene.get(HEALER)
    if healer is None:
        raise RuleError("heal_amount_needed")
    sheet = fight.sheet_of(healer)
    crest = next((crest for crest in sheet.crests if crest.category == "healing"), None)
    bonus = (
        Modifier(f"crest:{crest.name}", crest.rank) if crest else (Modifier("skill:Medicine", sheet.skill("Medicine")))
    )
    roll = healing_roll(bonus, scene.dice)
    rolled = HealRolled(healer=healer.name, name=character.name, total=roll.total)
    shown = Step(rolls=roll.rolls(), outcomes=(rolled,))
    return _placing(character, fight.hp_of(character), roll.total, shown, options)


def placed(scene: Scene, state: HealPlacing, answer: Answer) -> Step:
    """The pool the healed character chose for the HP still to place."""
    options = fight.crest_options(scene.options)
    character = scene.one(ACTOR)
    stat = fight.stat_answered(answer)
    hp = fight.hp_of(character)
    after, left = healed(hp[stat], character.pools[fight.pool(stat)].maximum or 0, state.left)
    if after == hp[stat]:  # filled meanwhile (another heal): the choice is asked again among the pools with room
        return _placing(character, hp, left, Step(), options)
    recovered = Recovered(name=character.name, stat=stat, amount=after - hp[stat])
    return _placing(character, {**hp, stat: after}, left, Step(outcomes=(recovered,)), options)


def _placing(
    character: CharacterSnapshot, hp: dict[Stat, int], left: int, step: Step, options: CrestMagiaOptions
) -> Step:
    """The HP still to place: into the only pool with room, or a choice among those with some; what no pool has
    room for is lost. The pools change once, to `hp` as placed so far, at the end of the step."""
    maximum = {stat: character.pools[fight.pool(stat)].maximum or 0 for stat in STATS}
    outcomes: list[Outcome] = []
    room = [stat for stat in STATS if hp[stat] < maximum[stat]]
    if left > 0 and len(room) == 1:
        (stat,) = room
        after, left = healed(hp[stat], maximum[stat], left)
        outcomes.append(Recovered(name=character.name, stat=stat, amount=after - hp[stat]))
        hp, room = {**hp, stat: after}, []
    effects = fight.hp_changes(ACTOR, character, hp, options)
    if left <= 0 or not room:
        outcomes.append(HealEnded(name=character.name, lost=max(0, left)))
        return Step.of(step, Step(effects=tuple(effects), outcomes=tuple(outcomes)))
    prompt = Text("heal.which", {"name": character.name, "left": left})
    wait = Wait(HEAL_WAIT, Audience.character(ACTOR), prompt, fight.stat_options(tuple(room)))
    return Step.of(
        step, Step(effects=tuple(effects), outcomes=tuple(outcomes)), pause=Pause(HealPlacing(left=left), (wait,))
    )
