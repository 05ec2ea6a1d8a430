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
from typing import Any

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
    Reveal,
    Roll,
    RuleError,
    Step,
    Text,
    ValueRange,
    Wait,
)
from rules.options import CampaignOptions
from rules.play import ATTACKER, DEFENDER, CharacterDraft, CharacterSnapshot, Handler, Play, Pool, Report, Scene

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


class EnginePlay(Play):
    kinds = (HERO,)
    pool_names = ("hp", "resolve", "luck")

    def __init__(self) -> None:
        super().__init__()
        # How often a broken or busy reaction was answered, by the name of the ally it asks.
        self.tries: Counter[str] = Counter()
        # What a busy reaction meets: the database locked, or any other trouble of the database's.
        self.database_trouble: type[Exception] = Busy

    @property
    def handlers(self) -> Mapping[str, Handler]:
        return {
            SHIELD: self.shield,
            BROKEN_SHIELD: self.broken_shield,
            BUSY_SHIELD: self.busy_shield,
            STALE_SHIELD: self.stale_shield,
            LOST_SHIELD: self.lost_shield,
            "defence": self.defence,
            "withstand": self.withstand,
            "overflow": self.overflow,
            "pick_first": self.pick_first,
            "pick_second": self.pick_second,
            "number": self.number,
            "seal": self.seal,
        }

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

    def report(self, outcomes: Sequence[Outcome]) -> Report:
        return Report(notes=tuple(Text(o.key, o.params) for o in outcomes if isinstance(o, Said)))

    # 1. A step that resolves at once and offers a third party a reaction with a deadline.
    def strike(self, scene: Scene, handler: str = SHIELD) -> Step:
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
            Pause(handler, (wait,), {"damage": damage.total, **({"stale": True} if handler == STALE_SHIELD else {})}),
        )  # fmt: skip

    def shield(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        target, ally = scene.get(DEFENDER), scene.get(ALLY)
        if target is None or ally is None:
            raise RuleError("hero_gone")
        if answer.option != "shield":
            key = "engine.too_late" if answer.expired else "engine.unshielded"
            return Step(outcomes=(said(key, ally=ally.name, target=target.name),))
        damage = int(state["damage"])
        effects = (PoolDelta(DEFENDER, "hp", damage), PoolDelta(ALLY, "resolve", -1))
        return Step(
            effects=effects, outcomes=(said("engine.shielded", ally=ally.name, target=target.name, healed=damage),)
        )

    def broken_shield(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        """A bug in the rules: letting the blow be asks for a pool heroes do not have, which the engine refuses."""
        self.tries[scene.one(ALLY).name] += 1
        if answer.option == "shield":
            return self.shield(scene, state, answer)
        return Step(effects=(PoolDelta(ALLY, "mana", -1),))

    def busy_shield(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        """A reaction that meets a database locked by others (as the next statement would) a few times first."""
        ally = scene.one(ALLY).name
        self.tries[ally] += 1
        if self.tries[ally] <= BUSY_TRIES:
            raise self.database_trouble
        return self.shield(scene, state, answer)

    def stale_shield(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        """An exchange stored by rules that changed since: every answer, and its undo, asks its state for what the
        rules of its time did not store."""
        return Step(effects=(PoolDelta(DEFENDER, "hp", int(state["blow"])),))

    def lost_shield(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        """Rules that read a table from a file that is gone: an OSError of the rules', not the database's."""
        raise FileNotFoundError("shields.yaml")

    def cancelled(self, scene: Scene, kind: str, state: Mapping[str, Any]) -> Step | None:
        if state.get("stale"):
            return Step(effects=(PoolDelta(DEFENDER, "hp", int(state["blow"])),))
        return None

    # 2. Attack -> defence choice -> withstand choice -> overflow choice.
    def duel(self, scene: Scene) -> Step:
        attacker, defender = scene.one(ATTACKER), scene.one(DEFENDER)
        attack = _roll("attack", 20, scene.dice)
        wait = Wait("defence", Audience.character(DEFENDER),
                    Text("engine.defence_prompt", {"defender": defender.name, "attack": attack.total}),
                    _options(("dodge", "brace")))  # fmt: skip
        rolled = said("engine.attacks", attacker=attacker.name, defender=defender.name, attack=attack.total)
        return Step((attack,), (), (rolled,), Pause("defence", (wait,), {"attack": attack.total}))

    def defence(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        defender = scene.one(DEFENDER)
        defence = _roll("defence", 20, scene.dice)
        if defence.total >= int(state["attack"]):
            return Step((defence,), outcomes=(said("engine.missed", defender=defender.name, defence=defence.total),))
        prompt = Text("engine.withstand_prompt", {"defender": defender.name})
        wait = Wait("withstand", Audience.character(DEFENDER), prompt, _options(("armor", "endure")))
        hit = said("engine.hit", defender=defender.name, defence=defence.total)
        return Step((defence,), outcomes=(hit,), pause=Pause("withstand", (wait,), {**state, "defence": answer.option}))

    def withstand(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
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
            Pause("overflow", (wait,), {**state, "overflow": overflow}),
        )  # fmt: skip

    def overflow(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        defender = scene.one(DEFENDER)
        pool = answer.option or "resolve"
        overflow = int(state["overflow"])
        outcome = said("engine.overflowed", defender=defender.name, overflow=overflow, pool=pool)
        return Step(effects=(PoolDelta(DEFENDER, pool, -overflow),), outcomes=(outcome,))

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
            pause=Pause("pick_first", (wait,)),
        )

    def pick_first(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        second = scene.side(SECOND)
        left = [weapon for weapon in WEAPONS if weapon != answer.option]
        wait = Wait("pick", Audience.side(SECOND), Text("engine.pick_prompt", {"side": second.name, "digest": "—"}),
                    _options(left))  # fmt: skip
        picked = said("engine.picked", side=scene.side(FIRST).name, weapon=str(answer.option))
        return Step(outcomes=(picked,), pause=Pause("pick_second", (wait,), {"first": answer.option}))

    def pick_second(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        second = scene.side(SECOND)
        wait = Wait("number", Audience.side(SECOND), Text("engine.number_prompt", {"side": second.name}),
                    value=ValueRange(1, 100))  # fmt: skip
        picked = said("engine.picked", side=second.name, weapon=str(answer.option))
        return Step(outcomes=(picked,), pause=Pause("number", (wait,), {**state, "second": answer.option}))

    def number(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        first = scene.side(FIRST)
        wait = Wait("seal", Audience.side(FIRST), Text("engine.seal_prompt", {"side": first.name}),
                    _options(("ready",)), needs_all=True)  # fmt: skip
        given = said("engine.numbered", number=int(answer.value or 0))
        return Step(outcomes=(given,), pause=Pause("seal", (wait,), {**state, "number": answer.value}))

    def seal(self, scene: Scene, state: Mapping[str, Any], answer: Answer) -> Step:
        committed = scene.commitments[COMMITMENT]
        value = (int(committed.secret) + int(state["number"])) % 100
        revealed = said(
            "engine.revealed", secret=committed.secret, nonce=committed.nonce, digest=committed.digest,
            number=int(state["number"]), value=value, sealed=len(answer.each),
        )  # fmt: skip
        return Step(effects=(Reveal(COMMITMENT),), outcomes=(revealed,))
