"""How Crest Magia's outcomes read: the post of each step (a check, a contest, an attack, a heal, a Destiny Point,
a GM's standing) and the log lines of its events."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from rules.crest_magia import fight
from rules.crest_magia.healing import HealEnded, HealRolled, Recovered
from rules.crest_magia.model import CONSEQUENCES, STATS
from rules.crest_magia.play import (
    CheckRolled,
    ContestDecided,
    DestinyDenied,
    DestinyRequested,
    DestinyReset,
    DestinySpent,
    StandingSet,
)
from rules.exchange import Outcome, Text
from rules.play import Renderer, Report
from rules.words import joined

HEALING_OUTCOMES = (HealRolled, Recovered, HealEnded)


class CrestMagiaRenderer(Renderer):
    """Crest Magia's posts and log lines, from the outcomes its steps give."""

    def report(self, outcomes: Sequence[Outcome]) -> Report:
        """The step's report, after a line for a critical success a reroll took back."""
        shown = _shown(outcomes)
        first = tuple(Text("check.crit_revoked") for o in outcomes if isinstance(o, fight.Rerolled) and o.revoked)
        return replace(shown, notes=first + shown.notes) if first else shown

    def log_line(self, kind: str, payload: Mapping[str, Any]) -> Text | None:
        return _event_line(kind, payload)


def _event_line(kind: str, payload: Mapping[str, Any]) -> Text | None:
    """The line of one of Crest Magia's events the generic `event.<kind>` line would not word (None: that one)."""
    if kind == "standing.set":
        names = payload.get("names")
        who: str | Text = (
            Text("standing.everyone")
            if payload.get("everyone")
            else (", ".join(names) if isinstance(names, list) else "—")
        )
        modifier = payload.get("modifier")
        return Text(
            "event.standing.set", {"names": who, "modifier": f"{modifier:+d}" if isinstance(modifier, int) else "—"}
        )
    if kind == "contest":
        return Text("event.contest.won" if payload.get("won") else "event.contest.held")
    if kind.startswith("destiny.") and isinstance(payload.get("use"), str):
        return Text(f"event.{kind}", {"use": Text(f"destiny.use.{payload['use']}")})
    stat = Text(f"stat.{payload['stat']}") if payload.get("stat") in STATS else None
    if kind == "attack.declared" and isinstance(payload.get("means_kind"), str):
        made_with = fight.means_words(payload["means_kind"], str(payload.get("means") or ""), payload.get("form"))
        return Text("event.attack.declared_with", {"means": made_with})
    if kind == "attack.defended":
        # Not its skill: a hidden sheet's roll shows its terms summed, and the skill is one of them.
        said: dict[str, str | int | Text] = {"stat": stat or "—"}
        if isinstance(payload.get("defence_total"), int):
            scored = "event.attack.hit_scored" if payload.get("hit") else "event.attack.missed_scored"
            return Text(scored, said)
        return Text("event.attack.hit" if payload.get("hit") else "event.attack.missed", said)
    if kind in ("check", "attack.damage", "attack.overflow", "heal.recovered") and stat is not None:
        return Text(f"event.{kind}", {"stat": stat})
    if kind == "attack.placed" and isinstance(payload.get("losses"), dict):
        losses = [_loss(str(name), int(taken)) for name, taken in payload["losses"].items()]
        lost = payload.get("lost")
        if isinstance(lost, int) and lost > 0:  # what found no HP is what climbs the consequences
            key = "event.attack.placed_lost" if losses else "event.attack.lost"
            return Text(key, {"losses": joined(losses) or "—", "lost": lost})
        return Text("event.attack.placed", {"losses": joined(losses) or "—"})
    if kind == "attack.consequence" and isinstance(payload.get("level"), int):
        return Text("event.attack.consequence", {"level": Text(f"consequence.{CONSEQUENCES[payload['level']]}")})
    return None


def _shown(outcomes: Sequence[Outcome]) -> Report:
    """The post of the step's outcomes: a contest's, an attack's, or that of its first outcome with one."""
    decided = next((outcome for outcome in outcomes if isinstance(outcome, ContestDecided)), None)
    if decided is not None:
        return _contest_report(decided, outcomes)
    if any(isinstance(outcome, FIGHT_OUTCOMES) for outcome in outcomes):
        return _fight_report(outcomes)
    for outcome in outcomes:
        if isinstance(outcome, CheckRolled):
            stat = Text(f"stat.{outcome.stat}")
            what = (
                Text("check.with_skill", {"stat": stat, "skill": Text(f"skill.{outcome.skill}")})
                if (outcome.skill)
                else stat
            )
            title = Text("check.title", {"name": outcome.name, "what": what, "total": outcome.total})
            fields: list[tuple[Text, Text | str]] = []
            if outcome.target is not None:
                verdict = Text("check.success" if outcome.success else "check.failure")
                fields.append((Text("check.target", {"target": outcome.target}), verdict))
            notes = [Text("check.rerolled")] if outcome.rerolled else []
            notes += [Text(f"check.crit_{outcome.crit}")] if outcome.crit else []
            if outcome.destiny_point:
                notes.append(Text("check.destiny_point", {"name": outcome.name}))
            return Report(title, tuple(fields), tuple(notes))
        if isinstance(outcome, DestinySpent):
            if outcome.approved_by is not None:  # the decision on the request said it already
                return Report(pools=True)
            said: dict[str, str | int | Text] = {"name": outcome.name, "use": Text(f"destiny.use.{outcome.use}")}
            return Report(notes=(Text("destiny.spent", said),))
        if isinstance(outcome, DestinyDenied | DestinyRequested):
            return Report()
        if isinstance(outcome, HEALING_OUTCOMES):
            return _healing_report(outcomes)
        if isinstance(outcome, StandingSet):
            return Report(notes=_standing_notes(outcome), pools=False)
        if isinstance(outcome, DestinyReset):
            return Report(notes=(Text("destiny.session", {"points": outcome.points}),), pools=False)
    return Report()


def _contest_report(decided: ContestDecided, outcomes: Sequence[Outcome]) -> Report:
    said: dict[str, str | int | Text] = {
        "name": decided.name,
        "opponent": decided.opponent,
        "total": decided.total,
        "opposed": decided.opposed,
    }
    title = Text("contest.won" if decided.won else "contest.held", said)
    notes = []
    if decided.crit:  # the passive side's critical, and whether it decided (the active side's own may win over it)
        beaten = decided.won == (decided.crit == "success")
        notes.append(Text(f"contest.crit_{decided.crit}{'_beaten' if beaten else ''}", said))
    notes += [Text("check.destiny_point", {"name": o.name}) for o in outcomes if isinstance(o, fight.Earned)]
    return Report(title, notes=tuple(notes))


def _standing_notes(set_: StandingSet) -> tuple[Text, ...]:
    """What changed, and the other standing that still counts with it."""
    who: str | Text = Text("standing.everyone") if set_.everyone else ", ".join(set_.names)
    if set_.boons or set_.banes or set_.modifier:
        changed = Text(
            "standing.set", {"who": who, "boons": set_.boons, "banes": set_.banes, "modifier": f"{set_.modifier:+d}"}
        )
    else:
        changed = Text("standing.cleared_everyone") if set_.everyone else Text("standing.cleared", {"who": who})
    if not set_.kept:
        return (changed,)
    kept = "standing.own_kept" if set_.everyone else "standing.everyone_kept"
    return changed, Text(kept, {"names": ", ".join(set_.kept)})


FIGHT_OUTCOMES = (
    fight.Attacked,
    fight.Intercepted,
    fight.Helpless,
    fight.Down,
    fight.Voided,
    fight.Defended,
    fight.Wounded,
    fight.Placed,
    fight.Climbed,
    fight.Earned,
)


def _fight_report(outcomes: Sequence[Outcome]) -> Report:
    """An attack's step: its headline (declared, hit or missed, damage), then a line for everything else."""
    title: Text | None = None
    notes: list[Text] = []
    for outcome in outcomes:
        if isinstance(outcome, fight.Attacked):
            title = Text(
                "attack.declared", {"attacker": outcome.attacker, "defender": outcome.defender, "total": outcome.total}
            )
            if outcome.means_kind is not None:
                made_with = fight.means_words(outcome.means_kind, outcome.means or "", outcome.form)
                notes.append(Text("attack.made_with", {"means": made_with}))
            if outcome.rerolled:
                notes.append(Text("check.rerolled"))
            if outcome.crit:
                notes.append(Text(f"attack.crit_{outcome.crit}"))
        elif isinstance(outcome, fight.Voided):
            notes.append(Text("attack.voided", {"name": outcome.name}))
        elif isinstance(outcome, fight.Helpless):
            notes.append(Text("attack.helpless", {"defender": outcome.defender}))
        elif isinstance(outcome, fight.Down):
            notes.append(Text("attack.down", {"defender": outcome.defender}))
        elif isinstance(outcome, fight.Intercepted):
            notes.append(
                Text(
                    "attack.intercepted",
                    {"interceptor": outcome.interceptor, "attacker": outcome.attacker, "defender": outcome.defender},
                )
            )
        elif isinstance(outcome, fight.Defended):
            key = "attack.hit" if outcome.hit else "attack.missed"
            line = Text(key, {"attacker": outcome.attacker, "defender": outcome.defender})
            if title is None:
                title = line
            else:
                notes.append(line)
            if outcome.rerolled:
                notes.append(Text("check.rerolled"))
            if outcome.crit:  # a double six that does not stop the attack says so (C2's option off)
                beaten = outcome.crit == "success" and outcome.hit
                notes.append(Text("defence.crit_success_beaten" if beaten else f"defence.crit_{outcome.crit}"))
            if outcome.maxed:
                notes.append(Text("attack.maxed"))
        elif isinstance(outcome, fight.Wounded):
            said: dict[str, str | int | Text] = {
                "defender": outcome.defender,
                "damage": outcome.damage,
                "withstand": outcome.withstand,
                "taken": outcome.taken,
            }
            placed = next((o for o in outcomes if isinstance(o, fight.Placed) and not o.more), None)
            if outcome.taken == 0:
                notes.append(Text("attack.withstood", said))
            elif placed is not None and placed.losses == {outcome.stat: outcome.taken}:
                notes.append(Text("attack.damage", {**said, "stat": Text(f"stat.{outcome.stat}")}))
            else:  # the defending pool had less: where the rest went follows
                notes.append(Text("attack.damage_total", said))
                notes += _placement_notes(placed)
            if outcome.crit:  # the totals alone do not say why (`crit_on_withstand`)
                notes.append(Text(f"withstand.crit_{outcome.crit}", {"defender": outcome.defender}))
        elif isinstance(outcome, fight.Placed) and outcome.more:
            if len(outcome.losses) == 1 and not outcome.lost:
                ((stat, taken),) = outcome.losses.items()
                notes.append(
                    Text(
                        "attack.overflow", {"defender": outcome.defender, "taken": taken, "stat": Text(f"stat.{stat}")}
                    )
                )
            else:
                notes += _placement_notes(outcome)
        elif isinstance(outcome, fight.Climbed):
            level = Text(f"consequence.{CONSEQUENCES[outcome.level]}")
            notes.append(Text("attack.consequence", {"defender": outcome.defender, "level": level}))
        elif isinstance(outcome, fight.Earned):
            notes.append(Text("check.destiny_point", {"name": outcome.name}))
    return Report(title, notes=tuple(notes))


def _loss(stat: str, taken: int) -> Text:
    return Text("attack.loss", {"taken": taken, "stat": Text(f"stat.{stat}") if stat in STATS else stat})


def _placement_notes(placed: fight.Placed | None) -> list[Text]:
    """Where a hit's damage went when it did not all land on one pool: each pool's loss, and what found no HP."""
    if placed is None:
        return []
    parts = [
        Text("attack.loss", {"taken": taken, "stat": Text(f"stat.{stat}")}) for stat, taken in placed.losses.items()
    ]
    notes = [Text("attack.losses", {"defender": placed.defender, "losses": joined(parts)})] if parts else []
    if placed.lost:
        notes.append(Text("attack.lost", {"defender": placed.defender, "lost": placed.lost}))
    return notes


def _healing_report(outcomes: Sequence[Outcome]) -> Report:
    notes = []
    for outcome in outcomes:
        if isinstance(outcome, HealRolled):
            notes.append(Text("heal.rolled", {"healer": outcome.healer, "name": outcome.name, "total": outcome.total}))
        elif isinstance(outcome, Recovered):
            notes.append(
                Text(
                    "heal.recovered",
                    {"name": outcome.name, "stat": Text(f"stat.{outcome.stat}"), "amount": outcome.amount},
                )
            )
        elif isinstance(outcome, HealEnded) and outcome.lost:
            notes.append(Text("heal.lost", {"name": outcome.name, "lost": outcome.lost}))
    return Report(notes=tuple(notes))
