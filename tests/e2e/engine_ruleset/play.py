"""The test ruleset's rules: heroes with three pools, and one exchange for each shape the engine must carry.

1. strike: resolves at once, then offers an ally a reaction that expires after a minute (default: none); a broken
   reaction fails on any answer but a shield (its default, at its deadline, included), a busy one finds the
   database locked a few times first, a stale one (stored by rules that changed since) fails on any answer and
   on its GM's cancel, and a lost one reads a file that is gone.
2. duel: attack -> the defender's defence choice -> a withstand choice -> an overflow choice when the damage
   is more than the hit points left.
3. draft: a committed secret, two sides picking in turn, a number given by command, every member of the first
   side sealing the result, and the reveal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any, ClassVar

from bot.db.engine import Busy
from bot.db.models import DEADLINE_TRIES
from rules.commitment import commit
from rules.dice import DiceSource
from rules.exchange import (
    Answer,
    Audience,
    Commit,
    Option,
    Outcome,
    Pause,
    PoolDelta,
    Resumption,
    Reveal,
    Roll,
    RuleError,
    Step,
    Text,
    ValueRange,
    Wait,
)
from rules.options import CampaignOptions
from rules.play import ATTACKER, DEFENDER, CharacterDraft, CharacterSnapshot, Play, Pool, Resumes, Scene

HERO = "hero"
ALLY = "ally"
FIRST, SECOND = "first", "second"
WEAPONS = ("sword", "bow", "lance", "axe")
REACTION_SECONDS = 60
SHIELD, BROKEN_SHIELD, BUSY_SHIELD, STALE_SHIELD = "shield", "broken_shield", "busy_shield", "stale_shield"
LOST_SHIELD = "lost_shield"
# How often a busy reaction finds the database locked before it goes through: more than a broken one may fail.
BUSY_TRIES = DEADLINE_TRIES + 1
COMMITMENT = "secret"


def commitment_prefix(campaign_id: int) -> str:
    return f"engine|{campaign_id}|draft"


class Said(Outcome):
    """One line of the story, as a catalog key and its parameters."""

    event = "engine.said"
    key: str
    params: dict[str, str | int]


def said(key: str, **params: str | int) -> Said:
    return Said(key=key, params=params)


def _roll(label: str, sides: int, dice: DiceSource) -> Roll:
    (face,) = dice.roll(1, sides)
    return Roll(label, sides, (face,), (face,), (), face)


def _options(keys: Sequence[str]) -> tuple[Option, ...]:
    return tuple(Option(key, Text(f"engine.choice.{key}")) for key in keys)


class Shielding(Resumption):
    """A blow struck, waiting for the ally's reaction; each kind of reaction is its own state, so its own step."""

    stored_as: ClassVar[str] = SHIELD

    damage: int


class BrokenShielding(Shielding):
    stored_as: ClassVar[str] = BROKEN_SHIELD


class BusyShielding(Shielding):
    stored_as: ClassVar[str] = BUSY_SHIELD


class LostShielding(Shielding):
    stored_as: ClassVar[str] = LOST_SHIELD


class ShieldingOfOld(Shielding):
    """A stale reaction's state as the rules of its time stored it: without the `blow` the rules read since."""

    stored_as: ClassVar[str] = STALE_SHIELD


class StaleShielding(Resumption):
    """A stale reaction's state as the rules read it since they changed: a `blow`, which no state stored before has."""

    stored_as: ClassVar[str] = STALE_SHIELD

    blow: int


# The reactions /engine strike may offer, by the name it is given.
REACTIONS: dict[str, type[Shielding]] = {
    reaction.stored_as: reaction
    for reaction in (Shielding, BrokenShielding, BusyShielding, ShieldingOfOld, LostShielding)
}


class Defending(Resumption):
    """An attack rolled, waiting for the defender's defence."""

    stored_as: ClassVar[str] = "defence"

    attack: int


class Withstanding(Defending):
    """A hit, waiting for how the defender withstands it."""

    stored_as: ClassVar[str] = "withstand"

    defence: str | None


class Overflowing(Withstanding):
    """More damage than hit points left, waiting for the pool the rest comes from."""

    stored_as: ClassVar[str] = "overflow"

    overflow: int


class PickingFirst(Resumption):
    """The secret committed, waiting for the first side's pick."""

    stored_as: ClassVar[str] = "pick_first"


class PickingSecond(Resumption):
    """The first side's pick, waiting for the second side's."""

    stored_as: ClassVar[str] = "pick_second"

    first: str | None


class Numbering(PickingSecond):
    """Both sides picked, waiting for the second side's number."""

    stored_as: ClassVar[str] = "number"

    second: str | None


class Sealing(Numbering):
    """The number given, waiting for every member of the first side to seal the result."""

    stored_as: ClassVar[str] = "seal"

    number: int


class EnginePlay(Play):
    kinds = (HERO,)
    pool_names = ("hp", "resolve", "luck")
    commits = True

    def __init__(self) -> None:
        super().__init__()
        # How often a broken or busy reaction was answered, by the name of the ally it asks.
        self.tries: Counter[str] = Counter()
        # What a busy reaction meets: the database locked, or any other trouble of the database's.
        self.database_trouble: type[Exception] = Busy

    @cached_property
    def resumes(self) -> Resumes:
        return Resumes(
            self.shield,
            self.broken_shield,
            self.busy_shield,
            self.stale_shield,
            self.lost_shield,
            self.defence,
            self.withstand,
            self.overflow,
            self.pick_first,
            self.pick_second,
            self.number,
            self.seal,
        )

    def template(self, kind: str) -> dict[str, Any]:
        return {"name": "Hero"}

    def build(
        self, kind: str, data: Mapping[str, Any], bound: Mapping[str, CharacterSnapshot], dice: DiceSource,
        options: CampaignOptions, *, gm_run: bool = False,
    ) -> CharacterDraft:  # fmt: skip
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise RuleError("no_name")
        pools = {"hp": Pool(10, 10), "resolve": Pool(5, 5), "luck": Pool(3, 3)}
        return CharacterDraft(name, HERO, {"file": dict(data)}, pools, ())

    def out_of_play(self, character: CharacterSnapshot) -> str | None:
        return "down" if character.pools["hp"].current <= 0 and character.pools["resolve"].current <= 0 else None

    # 1. A step that resolves at once and offers a third party a reaction with a deadline.
    def strike(self, scene: Scene, reaction: type[Shielding] = Shielding) -> Step:
        attacker, target, ally = scene.one(ATTACKER), scene.one(DEFENDER), scene.one(ALLY)
        damage = _roll("damage", 6, scene.dice)
        prompt = Text("engine.shield_prompt", {"ally": ally.name, "target": target.name})
        options = (
            Option("shield", Text("engine.choice.shield")),
            Option("let_be", Text("engine.choice.let_be"), tone="secondary"),
        )
        wait = Wait(
            "shield", Audience.character(ALLY), prompt, options, deadline_seconds=REACTION_SECONDS, default="let_be"
        )
        struck = said("engine.struck", attacker=attacker.name, target=target.name, damage=damage.total)
        return Step(
            (damage,), (PoolDelta(DEFENDER, "hp", -damage.total),), (struck,),
            Pause(reaction(damage=damage.total), (wait,)),
        )  # fmt: skip

    def shield(self, scene: Scene, state: Shielding, answer: Answer) -> Step:
        target, ally = scene.get(DEFENDER), scene.get(ALLY)
        if target is None or ally is None:
            raise RuleError("hero_gone")
        if answer.option != "shield":
            key = "engine.too_late" if answer.expired else "engine.unshielded"
            return Step(outcomes=(said(key, ally=ally.name, target=target.name),))
        effects = (PoolDelta(DEFENDER, "hp", state.damage), PoolDelta(ALLY, "resolve", -1))
        shielded = said("engine.shielded", ally=ally.name, target=target.name, healed=state.damage)
        return Step(effects=effects, outcomes=(shielded,))

    def broken_shield(self, scene: Scene, state: BrokenShielding, answer: Answer) -> Step:
        """A bug in the rules: letting the blow be asks for a pool heroes do not have, which the engine refuses."""
        self.tries[scene.one(ALLY).name] += 1
        if answer.option == "shield":
            return self.shield(scene, state, answer)
        return Step(effects=(PoolDelta(ALLY, "mana", -1),))

    def busy_shield(self, scene: Scene, state: BusyShielding, answer: Answer) -> Step:
        """A reaction that meets a database locked by others (as the next statement would) a few times first."""
        ally = scene.one(ALLY).name
        self.tries[ally] += 1
        if self.tries[ally] <= BUSY_TRIES:
            raise self.database_trouble
        return self.shield(scene, state, answer)

    def stale_shield(self, scene: Scene, state: StaleShielding, answer: Answer) -> Step:
        """An exchange stored by rules that changed since: every answer, and its undo, asks its state for what the
        rules of its time did not store."""
        return Step(effects=(PoolDelta(DEFENDER, "hp", state.blow),))

    def lost_shield(self, scene: Scene, state: LostShielding, answer: Answer) -> Step:
        """Rules that read a table from a file that is gone: an OSError of the rules', not the database's."""
        raise FileNotFoundError("shields.yaml")

    def cancelled(self, scene: Scene, kind: str, state: Any) -> Step | None:
        if isinstance(state, StaleShielding):
            return Step(effects=(PoolDelta(DEFENDER, "hp", state.blow),))
        return None

    # 2. Attack -> defence choice -> withstand choice -> overflow choice.
    def duel(self, scene: Scene) -> Step:
        attacker, defender = scene.one(ATTACKER), scene.one(DEFENDER)
        attack = _roll("attack", 20, scene.dice)
        wait = Wait("defence", Audience.character(DEFENDER),
                    Text("engine.defence_prompt", {"defender": defender.name, "attack": attack.total}),
                    _options(("dodge", "brace")))  # fmt: skip
        rolled = said("engine.attacks", attacker=attacker.name, defender=defender.name, attack=attack.total)
        return Step((attack,), (), (rolled,), Pause(Defending(attack=attack.total), (wait,)))

    def defence(self, scene: Scene, state: Defending, answer: Answer) -> Step:
        defender = scene.one(DEFENDER)
        defence = _roll("defence", 20, scene.dice)
        if defence.total >= state.attack:
            return Step((defence,), outcomes=(said("engine.missed", defender=defender.name, defence=defence.total),))
        prompt = Text("engine.withstand_prompt", {"defender": defender.name})
        wait = Wait("withstand", Audience.character(DEFENDER), prompt, _options(("armor", "endure")))
        hit = said("engine.hit", defender=defender.name, defence=defence.total)
        withstanding = Withstanding(attack=state.attack, defence=answer.option)
        return Step((defence,), outcomes=(hit,), pause=Pause(withstanding, (wait,)))

    def withstand(self, scene: Scene, state: Withstanding, answer: Answer) -> Step:
        defender = scene.one(DEFENDER)
        damage = _roll("damage", 6, scene.dice)
        soaked = 1 if answer.option == "armor" else 2
        taken = max(0, damage.total + 4 - soaked)
        left = defender.pools["hp"].current
        if taken <= left:
            outcome = said("engine.took", defender=defender.name, taken=taken)
            return Step((damage,), (PoolDelta(DEFENDER, "hp", -taken),), (outcome,))
        overflow = taken - left
        wait = Wait("overflow", Audience.character(DEFENDER),
                    Text("engine.overflow_prompt", {"defender": defender.name, "overflow": overflow}),
                    _options(("resolve", "luck")))  # fmt: skip
        outcome = said("engine.took", defender=defender.name, taken=left)
        return Step(
            (damage,), (PoolDelta(DEFENDER, "hp", -left),), (outcome,),
            Pause(Overflowing(attack=state.attack, defence=state.defence, overflow=overflow), (wait,)),
        )  # fmt: skip

    def overflow(self, scene: Scene, state: Overflowing, answer: Answer) -> Step:
        defender = scene.one(DEFENDER)
        pool = answer.option or "resolve"
        outcome = said("engine.overflowed", defender=defender.name, overflow=state.overflow, pool=pool)
        return Step(effects=(PoolDelta(DEFENDER, pool, -state.overflow),), outcomes=(outcome,))

    # 3. A commitment, two sides picking in turn, a number by command, every member sealing, the reveal.
    def draft(self, scene: Scene) -> Step:
        first = scene.side(FIRST)
        secret = f"{scene.dice.roll(1, 100)[0] - 1:02d}"
        committed = commit(commitment_prefix(scene.campaign_id), secret, scene.dice)
        wait = Wait("pick", Audience.side(FIRST), Text("engine.pick_prompt", {"side": first.name,
                                                                              "digest": committed.digest}),
                    _options(WEAPONS))  # fmt: skip
        return Step(
            effects=(Commit(COMMITMENT, committed.digest, committed.secret, committed.nonce),),
            outcomes=(said("engine.committed", digest=committed.digest),),
            pause=Pause(PickingFirst(), (wait,)),
        )

    def pick_first(self, scene: Scene, state: PickingFirst, answer: Answer) -> Step:
        second = scene.side(SECOND)
        left = [weapon for weapon in WEAPONS if weapon != answer.option]
        wait = Wait("pick", Audience.side(SECOND), Text("engine.pick_prompt", {"side": second.name, "digest": "—"}),
                    _options(left))  # fmt: skip
        picked = said("engine.picked", side=scene.side(FIRST).name, weapon=str(answer.option))
        return Step(outcomes=(picked,), pause=Pause(PickingSecond(first=answer.option), (wait,)))

    def pick_second(self, scene: Scene, state: PickingSecond, answer: Answer) -> Step:
        second = scene.side(SECOND)
        wait = Wait("number", Audience.side(SECOND), Text("engine.number_prompt", {"side": second.name}),
                    value=ValueRange(1, 100))  # fmt: skip
        picked = said("engine.picked", side=second.name, weapon=str(answer.option))
        numbering = Numbering(first=state.first, second=answer.option)
        return Step(outcomes=(picked,), pause=Pause(numbering, (wait,)))

    def number(self, scene: Scene, state: Numbering, answer: Answer) -> Step:
        first = scene.side(FIRST)
        wait = Wait("seal", Audience.side(FIRST), Text("engine.seal_prompt", {"side": first.name}),
                    _options(("ready",)), needs_all=True)  # fmt: skip
        number = int(answer.value or 0)
        sealing = Sealing(first=state.first, second=state.second, number=number)
        return Step(outcomes=(said("engine.numbered", number=number),), pause=Pause(sealing, (wait,)))

    def seal(self, scene: Scene, state: Sealing, answer: Answer) -> Step:
        committed = scene.commitments[COMMITMENT]
        value = (int(committed.secret) + state.number) % 100
        revealed = said(
            "engine.revealed", secret=committed.secret, nonce=committed.nonce, digest=committed.digest,
            number=state.number, value=value, sealed=len(answer.each),
        )  # fmt: skip
        return Step(effects=(Reveal(COMMITMENT),), outcomes=(revealed,))
