"""How grail_zh's outcomes read: each step's post from what its outcomes tell, and the log lines of its events that
the generic `event.<kind>` line would not word."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import singledispatch
from typing import Any

from rules.exchange import Outcome, Text
from rules.grail_zh import actions, detection, fight, magecraft, play, rulings, upkeep
from rules.grail_zh.actions import SECTOR_SQUARES
from rules.grail_zh.fight import FULL_AIM_ROUNDS, means_text
from rules.grail_zh.rulings import contradiction_words
from rules.grail_zh.stored import CONTINUING, target_text
from rules.play import Renderer, Report
from rules.words import joined

# How a save can end (`fight.Saved.result`), and what Luck can make of a d20 (`fight.Attacked.auto`).
SAVE_RESULTS = ("full", "half", "none")
LUCK_RESULTS = ("success", "failure")

# A headline (the step's title when it comes first, else one of its lines) and the lines that follow it.
Tale = tuple[Text | None, list[Text]]


class GrailZhRenderer(Renderer):
    def report(self, outcomes: Sequence[Outcome]) -> Report:
        """Each outcome as it is told: the first headline is the title, the rest are lines in order."""
        title: Text | None = None
        notes: list[Text] = []
        for outcome in outcomes:
            told = tale(outcome)
            if told is None:
                continue
            headline, lines = told
            if headline is not None and title is None:
                title = headline
            elif headline is not None:
                notes.append(headline)
            notes += lines
        return Report(title, notes=tuple(notes))

    def log_line(self, kind: str, payload: Mapping[str, Any]) -> Text | None:
        return event_line(kind, payload)


def _nested(line: Text, payload: Mapping[str, Any]) -> Text:
    """A line to be read inside another: nested, it gets none of the parameters the bot gives the log's own lines
    from the event, so it takes the event's fields here."""
    return Text(line.key, {**_scalars(payload), **line.params})


def _with_luck(line: Text, payload: Mapping[str, Any]) -> Text:
    """A d20's line, and Luck's automatic success or failure where it decided the roll."""
    if payload.get("auto") not in LUCK_RESULTS:
        return line
    return Text("log.with_luck", {"line": _nested(line, payload), "luck": Text(f"luck.{payload['auto']}")})


def event_line(kind: str, payload: Mapping[str, Any]) -> Text | None:
    """The line of one of grail_zh's events the generic `event.<kind>` line would not word (None: that one)."""
    if kind == fight.Attacked.event:
        return _with_luck(_attack_line(payload), payload)
    if kind == fight.Casting.event and isinstance(payload.get("means"), str):
        return Text("event.attack.casting_with", {"means": means_text(payload["means"])})
    if kind == fight.Saved.event and payload.get("result") in SAVE_RESULTS:
        return Text(f"save.{payload['result']}")
    if kind == fight.Evaded.event and isinstance(payload.get("evaded"), bool):
        return Text("attack.evaded" if payload["evaded"] else "attack.not_evaded")
    if kind == fight.Struck.event and isinstance(payload.get("hit"), bool):
        result = Text("attack.result_hit" if payload["hit"] else "attack.result_miss")
        return Text("attack.counter" if payload.get("counter") else "attack.opportunity", {"result": result})
    if kind == fight.Released.event and {"defenders", "save_stat"} <= payload.keys():
        said = {"defender": joined(payload["defenders"]), "stat": Text(f"stat.{payload['save_stat']}")}
        return Text("event.attack.save_release_on", said)
    if kind == play.Initiated.event and isinstance(payload.get("order"), list):
        return Text("event.combat.initiative_order", {"order": initiative_order(payload["order"])})
    if kind == fight.Paid.event and payload.get("master") and payload.get("from_master"):
        return Text("event.mp.paid_with_master")
    if kind == fight.Damaged.event:
        return _damage_line(payload)
    if kind == play.CheckRolled.event and {"stat", "target"} <= payload.keys():
        result = Text("check.success" if payload.get("success") else "check.failure", {"target": payload["target"]})
        said = {"stat": Text(f"stat.{payload['stat']}"), "result": result}
        return _with_luck(Text("event.check.result", said), payload)
    if kind == "status.set" and payload.get("status") in upkeep.STATUSES:
        return Text("event.status.set", {"status": Text(f"status.{payload['status']}")})
    if kind in ("plus.on", "plus.off") and isinstance(payload.get("target"), str):
        return Text(f"event.{kind}", {"target": target_text(payload["target"])})
    if kind == magecraft.SpiritFormTaken.event:
        return Text("event.spirit.entered" if payload.get("entered") else "event.spirit.left")
    if kind == rulings.Contradicted.event:
        return Text(f"event.{kind}", contradiction_words(payload))
    if kind == upkeep.DailyUpkeep.event and int(payload.get("days", 1)) > 1:
        return Text("event.mp.daily_upkeep_days")
    return None


def _attack_line(payload: Mapping[str, Any]) -> Text:
    """Who struck whom, with what (a Noble Phantasm by its name), and whether it hit."""
    key = "event.attack.rolled.hit" if payload.get("hit") else "event.attack.rolled.missed"
    if not isinstance(payload.get("means"), str):  # stored before the means was kept
        return Text(key)
    return Text(f"{key}_with", {"means": means_text(payload["means"])})


def _damage_line(payload: Mapping[str, Any]) -> Text | None:
    """The HP lost, and how much of it temporary HP took; a mundane blow on a Servant took nothing."""
    if payload.get("no_mystery"):
        return Text("event.attack.no_mystery")
    if payload.get("temp_hp"):
        return Text("event.attack.damage_with_temp", {"temp": payload["temp_hp"]})
    return None


def _scalars(payload: Mapping[str, Any]) -> dict[str, str | int | Text]:
    """An event's own fields a generic line reads: its words and numbers (the rolls and changes are not)."""
    return {
        name: value for name, value in payload.items() if isinstance(value, str | int) and not isinstance(value, bool)
    }


@singledispatch
def tale(outcome: Outcome) -> Tale | None:
    """What a post tells of an outcome; None for one it does not tell (the bot's own)."""
    return None


@tale.register
def _moved(outcome: actions.Moved) -> Tale:
    key = "move.placed" if outcome.placed else "move.ran" if outcome.ran else "move.moved"
    return Text(key, {"name": outcome.name}), []


@tale.register
def _searched(outcome: detection.Searched) -> Tale:
    title = Text("search.title", {"name": outcome.observer})
    if not outcome.found:
        return title, [Text("search.nothing", {"name": outcome.observer})]
    return title, [
        Text(
            "where.square",
            {
                "name": name,
                "sx": x // SECTOR_SQUARES,
                "sy": y // SECTOR_SQUARES,
                "x": x % SECTOR_SQUARES,
                "y": y % SECTOR_SQUARES,
            },
        )
        for name, (x, y) in zip(outcome.found, outcome.squares, strict=True)
    ]


@tale.register
def _concealed(outcome: detection.Concealed) -> Tale:
    return Text("conceal.on" if outcome.hidden else "conceal.off", {"name": outcome.name}), []


@tale.register
def _attacked(outcome: fight.Attacked) -> Tale:
    said: dict[str, str | int | Text] = {
        "attacker": outcome.attacker,
        "defender": outcome.defender,
        "means": means_text(outcome.means),
        "total": outcome.total,
    }
    key = "attack.automatic" if outcome.automatic else "attack.hit" if outcome.hit else "attack.missed"
    lines = [Text(f"luck.{outcome.auto}")] if outcome.auto else []
    if outcome.stance:
        lines.append(Text("attack.stance", {"defender": outcome.defender}))
    return Text(key, said), lines


@tale.register
def _provoking(outcome: fight.Provoking) -> Tale:
    return Text("provoke.waits", {"name": outcome.name, "act": Text.from_dict(outcome.act)}), []


@tale.register
def _unveiled(outcome: fight.Unveiled) -> Tale:
    return None, [Text("conceal.struck", {"name": outcome.name})]


@tale.register
def _casting(outcome: fight.Casting) -> Tale:
    said: dict[str, str | int | Text] = {
        "caster": outcome.caster,
        "means": means_text(outcome.means),
        "defender": outcome.defender,
    }
    return Text("attack.casting", said), []


@tale.register
def _paid(outcome: fight.Paid) -> Tale:
    if outcome.secret:
        return None, [Text("mp.paid_secret", {"name": outcome.name})]
    key = "mp.paid_with_master" if outcome.master else "mp.paid"
    return None, [
        Text(
            key,
            {"name": outcome.name, "cost": outcome.cost, "master": outcome.master or "", "given": outcome.from_master},
        )
    ]


@tale.register
def _released(outcome: fight.Released) -> Tale:
    said: dict[str, str | int | Text] = {
        "attacker": outcome.attacker,
        "means": means_text(outcome.means),
        "defender": joined(outcome.defenders),
        "stat": Text(f"stat.{outcome.save_stat}"),
    }
    return Text("attack.save_release", said), []


@tale.register
def _saved(outcome: fight.Saved) -> Tale:
    return None, [
        Text(f"save.{outcome.result}", {"defender": outcome.defender, "dc": outcome.dc, "total": outcome.total})
    ]


@tale.register
def _evaded(outcome: fight.Evaded) -> Tale:
    said: dict[str, str | int | Text] = {
        "defender": outcome.defender,
        "total": outcome.total,
        "against": outcome.against,
    }
    return None, [Text("attack.evaded" if outcome.evaded else "attack.not_evaded", said)]


@tale.register
def _guarded(outcome: fight.Guarded) -> Tale:
    return None, [Text("attack.guarded", {"guard": outcome.guard, "defender": outcome.defender})]


@tale.register
def _damaged(outcome: fight.Damaged) -> Tale:
    rolled: str | int | Text = outcome.rolled
    if outcome.reduced:
        by = joined([Text(f"reduced.{name}") for name in outcome.reduced])
        rolled = Text("damage.reduced", {"rolled": outcome.rolled, "by": by})
    said: dict[str, str | int | Text] = {
        "defender": outcome.defender,
        "rolled": rolled,
        "taken": outcome.taken,
        "temp": outcome.temp_hp,
    }
    key = "damage.no_mystery" if outcome.no_mystery else "damage.with_temp" if outcome.temp_hp else "damage.taken"
    lines = [Text(key, said)]
    if outcome.multiplier > 1:
        lines.append(Text("damage.plus", {"multiplier": outcome.multiplier}))
    if outcome.fate == CONTINUING:  # death and vanishing are told by the bot with every fall
        lines.append(Text("fate.continuing", {"name": outcome.defender}))
    if outcome.kill_mp:
        lines.append(Text("damage.kill_mp", {"mp": outcome.kill_mp}))
    return None, lines


@tale.register
def _aimed(outcome: fight.Aimed) -> Tale:
    said: dict[str, str | int | Text] = {
        "name": outcome.name,
        "target": outcome.target,
        "rounds": outcome.rounds,
        "bonus": outcome.bonus,
    }
    lines = [Text("aim.full" if outcome.rounds >= FULL_AIM_ROUNDS else "aim.bonus", said)]
    return Text("aim.title", said), lines


@tale.register
def _withheld(outcome: fight.Withheld) -> Tale:
    return Text("consent.called_off", {"name": outcome.name, "cost": outcome.cost}), []


@tale.register
def _continuing(outcome: fight.Continuing) -> Tale:
    return None, [Text("fate.continuing", {"name": outcome.name})]


@tale.register
def _ended(outcome: fight.Ended) -> Tale:
    return None, [Text("fate.continuation_ended", {"name": outcome.name})]


@tale.register
def _died_of_wounds(outcome: fight.DiedOfWounds) -> Tale:
    return None, [Text(f"fate.dying_ended.{outcome.fate}", {"name": outcome.name})]


@tale.register
def _dropped(outcome: fight.Dropped) -> Tale:
    return None, [Text("np.dropped", {"name": outcome.name, "phantasm": outcome.phantasm})]


@tale.register
def _struck(outcome: fight.Struck) -> Tale:
    result = Text("attack.result_hit" if outcome.hit else "attack.result_miss")
    said: dict[str, str | int | Text] = {
        "striker": outcome.striker,
        "target": outcome.target,
        "total": outcome.total,
        "result": result,
    }
    return None, [Text("attack.counter" if outcome.counter else "attack.opportunity", said)]


@tale.register
def _spirit_form_taken(outcome: magecraft.SpiritFormTaken) -> Tale:
    return Text("spirit.entered" if outcome.entered else "spirit.left", {"name": outcome.name}), []


@tale.register
def _spell_cast(outcome: magecraft.SpellCast) -> Tale:
    said: dict[str, str | int | Text] = {
        "caster": outcome.caster,
        "target": outcome.target,
        "amount": outcome.amount,
        "minutes": outcome.minutes,
        "spell": Text(f"spell.{outcome.spell}"),
        "item": outcome.item,
        "rank": outcome.rank,
        "rate": outcome.rate,
    }
    lines: list[Text] = []
    if outcome.spell == "suggest":
        lines.append(Text("spell.suggest_held" if outcome.took_hold else "spell.suggest_failed", said))
    else:
        lines.append(Text(f"spell.{outcome.spell}_done" + ("_gms" if outcome.by_gms else ""), said))
    if outcome.kept:
        lines.append(Text("spell.shield_kept", said))
    return Text("spell.title", said), lines


@tale.register
def _landed(outcome: magecraft.Landed) -> Tale:
    return None, [Text("spell.flight_spent" if outcome.spent else "spell.landed", {"name": outcome.name})]


@tale.register
def _reinforcement_ended(outcome: magecraft.ReinforcementEnded) -> Tale:
    return None, [Text("spell.reinforce_ended", {"name": outcome.name, "item": outcome.item})]


@tale.register
def _shield_ended(outcome: magecraft.ShieldEnded) -> Tale:
    return None, [Text("spell.shield_ended", {"name": outcome.name, "lost": outcome.lost})]


@tale.register
def _shield_kept(outcome: magecraft.ShieldKept) -> Tale:
    return None, [Text("spell.shield_upkeep", {"caster": outcome.caster, "name": outcome.name, "cost": outcome.cost})]


@tale.register
def _check_rolled(outcome: play.CheckRolled) -> Tale:
    title = Text("check.title", {"name": outcome.name, "stat": Text(f"stat.{outcome.stat}"), "total": outcome.total})
    lines = [Text("check.success" if outcome.success else "check.failure", {"target": outcome.target})]
    return title, lines + ([Text(f"luck.{outcome.auto}")] if outcome.auto else [])


def initiative_order(order: Sequence[Sequence[str]]) -> str:
    """`Saber → Shirou = Rin`: who acts in turn, those acting at the same time as one."""
    return " → ".join(" = ".join(group) for group in order)


@tale.register
def _initiated(outcome: play.Initiated) -> Tale:
    return Text("initiative.title"), [Text("initiative.order", {"order": initiative_order(outcome.order)})]


@tale.register
def _upkeep_paid(outcome: play.UpkeepPaid) -> Tale:
    key = ("upkeep.paid" if outcome.paid else "upkeep.unpaid") + ("_secret" if outcome.secret else "")
    return None, [Text(key, {"name": outcome.name, "cost": outcome.cost, "given": outcome.from_master})]


@tale.register
def _contradicted(outcome: rulings.Contradicted) -> Tale:
    said = contradiction_words(outcome.model_dump())
    key = "contradiction.by_dice" if outcome.by_dice else "contradiction.by_mystery"
    return Text("contradiction.title", said), [Text(key, said)]


@tale.register
def _defending(outcome: upkeep.Defending) -> Tale:
    return Text("defend.title", {"name": outcome.name}), []


@tale.register
def _transferred(outcome: upkeep.Transferred) -> Tale:
    key = "transfer.reverse" if outcome.reverse else "transfer.given" if outcome.paid else "transfer.ritual"
    said: dict[str, str | int | Text] = {
        "master": outcome.master,
        "servant": outcome.servant,
        "paid": outcome.paid,
        "gained": outcome.gained,
    }
    return Text(key + ("_secret" if outcome.secret else ""), said), []


@tale.register
def _rested(outcome: upkeep.Rested) -> Tale:
    said: dict[str, str | int | Text] = {"name": outcome.name, "gained": outcome.gained, "days": outcome.days}
    if outcome.days:
        return None, [Text("rest.story_days" + ("_secret" if outcome.secret else ""), said)]
    return Text("rest.title" + ("_secret" if outcome.secret else ""), said), []


@tale.register
def _daily_upkeep(outcome: upkeep.DailyUpkeep) -> Tale:
    if outcome.vanished:  # its last MP went into it: it could not pay the day
        return None, [Text("upkeep.daily_unpaid", {"name": outcome.name})]
    said: dict[str, str | int | Text] = {
        "name": outcome.name,
        "cost": outcome.cost,
        "given": outcome.from_master,
        "days": outcome.days,
    }
    key = "upkeep.daily" if outcome.days == 1 else "upkeep.days"
    if outcome.secret:
        return None, [Text(f"{key}_secret", said)]
    return None, [Text(f"{key}_with_master" if outcome.from_master else key, said)]


@tale.register
def _masterless(outcome: upkeep.Masterless) -> Tale:
    key = "masterless.days" if outcome.days is not None else "masterless.rounds"
    return None, [Text(key, {"name": outcome.name, "days": outcome.days or 0})]


@tale.register
def _vanished(outcome: upkeep.Vanished) -> Tale:
    return None, [Text("masterless.vanished", {"name": outcome.name})]


@tale.register
def _boosted(outcome: upkeep.Boosted) -> Tale:
    title = Text("boost.title", {"name": outcome.name, "stat": Text(f"stat.{outcome.stat}"), "ranks": outcome.ranks})
    return title, [Text("boost.paid", {"cost": outcome.extra_cost})] if outcome.extra_cost else []


@tale.register
def _plus_on(outcome: upkeep.PlusOn) -> Tale:
    said: dict[str, str | int | Text] = {
        "name": outcome.name,
        "target": target_text(outcome.target),
        "multiplier": outcome.multiplier,
    }
    return Text("plus.on", said), []


@tale.register
def _plus_off(outcome: upkeep.PlusOff) -> Tale:
    return None, [Text("plus.off", {"name": outcome.name, "target": target_text(outcome.target)})]


@tale.register
def _status_set(outcome: upkeep.StatusSet) -> Tale:
    said: dict[str, str | int | Text] = {"name": outcome.name, "status": Text(f"status.{outcome.status}")}
    return Text("status.on" if outcome.on else "status.off", said), []


@tale.register
def _territory_founded(outcome: upkeep.TerritoryFounded) -> Tale:
    return Text("territory.founded", {"name": outcome.name}), [Text("territory.ready_after_a_day")]


@tale.register
def _regenerated(outcome: upkeep.Regenerated) -> Tale:
    return None, [Text("regenerated", {"name": outcome.name, "hp": outcome.hp, "mp": outcome.mp})]
