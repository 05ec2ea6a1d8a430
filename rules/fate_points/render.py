"""How Fate/Points' outcomes read: the post of each step and the log lines of its events."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.exchange import Outcome, Text
from rules.fate_points.events import (
    Activated,
    AttackDeclared,
    AttackFaded,
    AttackResolved,
    CheckRolled,
    CompatibilitySet,
    ExCostSet,
    FateSpent,
    GodHandSet,
    MadDraw,
    Moved,
    PassiveSet,
    PhantasmRuled,
    PresenceSet,
    Regenerated,
    Replenished,
    Rested,
    Transferred,
)
from rules.fate_points.outcomes import DamageTerms
from rules.fate_points.play import parse_action, use_words
from rules.play import Renderer, Report

# Outcome flags worth a line of their own, in display order.
OUTCOME_FLAGS = (
    "auto_hit",
    "staggered",
    "repeat_penalty",
    "crit_bonus",
    "null_damage",
    "np_no_effect",
    "parry_bonus_round",
)

ONE_LINERS: dict[type[Outcome], str] = {
    Transferred: "fate.transferred",
    Regenerated: "fate.regenerated",
    Activated: "fate.activated",
    Rested: "fate.rested",
    Replenished: "fate.replenished",
    MadDraw: "turn.mad_enchantment",
}


def _defences_words(allowed: object) -> Text:
    """The defences an NP ruling allows, as a phrase: all of them, none, or the ones it names."""
    if not isinstance(allowed, list):
        return Text("fate.defences_all")
    names = [Text(f"choice.{choice}") for choice in allowed]
    if not names:
        return Text("fate.defences_none")
    if len(names) == 1:
        return names[0]
    *first, last = names
    pair = Text("fate.defences_pair", {"first": first[-1], "last": last})
    for earlier in reversed(first[:-1]):
        pair = Text("fate.defences_list", {"first": earlier, "rest": pair})
    return pair


def _action_words(action: str) -> Text:
    """An attack's action as the log tells it ("melee with Invisible Air"), not as the command sends it."""
    kind, name = parse_action(action)
    if name is None:
        return Text("attack_logged.sorcery" if kind == "magical" else "attack_logged.unarmed")
    return Text(f"attack_logged.{kind}", {"name": name})


def _damage_words(terms: DamageTerms, damage: int) -> Text:
    """R10's sum as a hit's post adds it up: `4 (sword) +3 (attack stat) -2 (END) = 5`."""
    added = Text("damage.term.weapon", {"value": terms.base, "weapon": Text(f"weapon_type.{terms.weapon}")})
    if terms.multiplier != 1 and terms.multiplied == "base":
        added = Text("damage.times", {"terms": added, "multiplier": terms.multiplier})
    for name, value in (("stat", terms.stat), ("bonus", terms.bonus), ("crit", terms.crit)):
        if value or name == "stat":
            added = Text("damage.then", {"terms": added, "term": Text(f"damage.term.{name}", {"value": f"{value:+d}"})})
    if terms.multiplier != 1 and terms.multiplied == "all":
        added = Text("damage.times_all", {"terms": added, "multiplier": terms.multiplier})
    for name, value in (("armour", -terms.armour), ("taken", terms.taken)):
        if value or name == "armour":
            added = Text("damage.then", {"terms": added, "term": Text(f"damage.term.{name}", {"value": f"{value:+d}"})})
    return Text("attack.damage_terms", {"terms": added, "damage": damage})


def _resolution_words(result: Mapping[str, Any], defender: object) -> Text:
    """What an answered attack did, as its log line tells it: missed, no effect, null, or the damage to HP, and
    the defender's fall."""
    if not result.get("hit"):
        return Text("attack_logged.missed")
    if result.get("np_no_effect"):
        return Text("attack_logged.no_effect")
    if result.get("null_damage"):
        return Text("attack_logged.null_damage")
    landed = Text("attack_logged.damage", {"damage": int(result.get("damage") or 0)})
    fell = result.get("defender_fate")
    if fell in ("down", "dead"):
        return Text(f"attack_logged.then_{fell}", {"result": landed, "defender": str(defender)})
    return landed


class FatePointsRenderer(Renderer):
    """An attack as its declaration and landing, a check with its verdict, and one line for each of the prana economy's
    and the GMs' decisions."""

    def report(self, outcomes: Sequence[Outcome]) -> Report:
        declared = next((o for o in outcomes if isinstance(o, AttackDeclared)), None)
        resolved = next((o for o in outcomes if isinstance(o, AttackResolved)), None)
        if declared is not None:
            fields: list[tuple[Text, Text | str]] = [(Text("attack.made_with"), _action_words(declared.action))]
            if declared.mana_cost and not declared.cost_kept:
                fields.append((Text("attack.mana_cost"), str(declared.mana_cost)))
            fields.append((Text("attack.round"), str(declared.round)))
            notes = self._landing(resolved) if resolved else ()
            title = Text("attack.declared", {"attacker": declared.attacker, "defender": declared.defender})
            return Report(title, tuple(fields), notes)
        if resolved is not None:
            title, *landed = self._landing(resolved)
            return Report(title, notes=tuple(landed))
        lines: list[Text] = []
        for outcome in outcomes:
            if isinstance(outcome, AttackFaded):
                return Report(
                    Text("attack.vanished", outcome.model_dump(include={"attacker", "defender", "mana_cost"}))
                )
            if isinstance(outcome, CheckRolled):
                title = Text("check.title", {"name": outcome.name, "stat": outcome.stat, "score": outcome.score})
                if outcome.success is None:
                    return Report(title)
                verdict = Text("check.success" if outcome.success else "check.failure")
                return Report(title, ((Text("check.target", {"target": str(outcome.target)}), verdict),))
            lines += self._lines(outcome)
        replenishing = any(isinstance(outcome, Replenished) for outcome in outcomes)
        return Report(notes=tuple(lines), pools=not replenishing)

    def _lines(self, outcome: Outcome) -> list[Text]:
        """The one-line outcomes of the prana economy, Fate/Points and the GM's rulings."""
        if isinstance(outcome, FateSpent):
            # Approved by a GM, the decision on the request already said it.
            return (
                []
                if outcome.approved_by
                else [Text("fate.spent", {"name": outcome.name, **use_words(outcome.use, outcome.stat)})]
            )
        if isinstance(outcome, Transferred | Regenerated | Activated | Rested | Replenished | MadDraw):
            key = ONE_LINERS[type(outcome)]
            if outcome.secret:
                named = {"who": outcome.name, "name": getattr(outcome.result, "name", outcome.name)}
                return [Text(f"{key}_secret", named)]
            values = {
                name: value
                for name, value in outcome.result.model_dump().items()
                if isinstance(value, str | int) and not isinstance(value, bool)
            }
            line = Text(key, {**values, "who": outcome.name, "name": values.get("name", outcome.name)})
            if isinstance(outcome, Activated):
                lasting = "fate.phantasm_lasts" if outcome.phantasm else "fate.activation_lasts"
                return [line, Text(f"{lasting}.{outcome.lasts}", {"name": outcome.result.name})]
            return [line]
        if isinstance(outcome, Moved):
            return [Text("fate.moved", {"who": outcome.name})]
        if isinstance(outcome, PresenceSet):
            return [Text("fate.servant_present" if outcome.present else "fate.servant_absent", {"name": outcome.name})]
        if isinstance(outcome, PassiveSet):
            return [Text("fate.passive_on" if outcome.enabled else "fate.passive_off", {"name": outcome.name})]
        if isinstance(outcome, PhantasmRuled):
            defences = _defences_words(outcome.ruling.get("defences"))
            ruled: dict[str, str | int | Text] = {
                "name": outcome.name,
                "phantasm": outcome.phantasm,
                "defences": defences,
            }
            if outcome.damage is None:
                return [Text("fate.np_ruled_rules_damage", ruled)]
            return [Text("fate.np_ruled", {**ruled, "damage": outcome.damage})]
        if isinstance(outcome, ExCostSet):
            if outcome.phantasm is None:
                return [Text("fate.ex_attack_cost_set", {"name": outcome.name, "cost": outcome.cost})]
            return [
                Text("fate.ex_np_cost_set", {"name": outcome.name, "phantasm": outcome.phantasm, "cost": outcome.cost})
            ]
        if isinstance(outcome, CompatibilitySet):
            return [
                Text(
                    "fate.compatibility_set",
                    {
                        "name": outcome.name,
                        "modifier": f"{outcome.modifier:+d}",
                        "compatibility": outcome.compatibility,
                    },
                )
            ]
        if isinstance(outcome, GodHandSet):
            if outcome.rank is None:
                return [Text("fate.god_hand_removed", {"name": outcome.name})]
            return [Text("fate.god_hand_set", {"name": outcome.name, "rank": outcome.rank})]
        return []

    def _landing(self, resolved: AttackResolved) -> tuple[Text, ...]:
        """The hit or the miss, the damage's terms, and the flags that change what it did."""
        terms = resolved.result.damage_terms
        summed = (_damage_words(terms, resolved.result.damage),) if terms is not None else ()
        return (self._hit_line(resolved), *summed, *self._flags(resolved))

    @staticmethod
    def _hit_line(resolved: AttackResolved) -> Text:
        key = "attack.hit" if resolved.result.hit else "attack.avoided"
        return Text(
            key, {"attacker": resolved.attacker, "defender": resolved.defender, "damage": resolved.result.damage}
        )

    @staticmethod
    def _flags(resolved: AttackResolved) -> tuple[Text, ...]:
        result = resolved.result
        params = {"crit_bonus": result.crit_bonus, "parry_bonus_round": resolved.parry_bonus_shown_round or 0}
        flags = [Text(f"outcome.{flag}", params) for flag in OUTCOME_FLAGS if getattr(result, flag)]
        if resolved.forced:
            flags.append(Text("outcome.forced"))
        return tuple(flags)

    def log_line(self, kind: str, payload: Mapping[str, Any]) -> Text | None:
        if kind.startswith("fate.") and "use" in payload:
            return Text(f"event.{kind}", {"use": Text(f"fate.use.{payload['use']}")})
        if kind in ("attack.declared", "attack.vanished") and isinstance(payload.get("action"), str):
            # The prana it cost, where the reader may know it (a hidden sheet's cost is the GMs').
            paid = kind == "attack.declared" and bool(payload.get("mana_cost"))
            said: dict[str, str | int | Text] = {"action": _action_words(payload["action"])}
            if payload.get("crit") is True and isinstance(payload.get("score"), int):
                said["score"] = Text("attack_logged.critical", {"score": payload["score"]})
            return Text(f"event.{kind}{'_paid' if paid else ''}", said)
        if kind == "attack.resolved" and isinstance(payload.get("result"), dict):
            result = payload["result"]
            choice = str(result.get("choice"))
            score = result.get("defence_score")
            answer = Text("attack_logged.undefendable" if result.get("auto_hit") else f"choice.{choice}")
            if isinstance(score, int):
                answer = Text("attack_logged.defence_score", {"choice": answer, "score": score})
            return Text(
                "event.attack.resolved",
                {"choice": answer, "result": _resolution_words(result, payload.get("defender"))},
            )
        if kind == "fate.activate" and isinstance(payload.get("result"), dict):
            used = payload["result"]
            return Text("event.fate.activate", {"ability": used.get("name"), "cost": used.get("cost")})
        if kind == "fate.passive":
            return Text("event.fate.passive_on" if payload.get("enabled") else "event.fate.passive_off")
        if kind == "fate.god_hand" and payload.get("rank") is None:
            return Text("event.fate.god_hand_removed")
        return None
