"""grail_zh's log lines as each language reads them: the rolls of the step an event opened, every die and term;
the Noble Phantasm an attack struck with; what a Master gave for a cost; the HP a blow took; and the lines of
events stored before these facts were kept."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

import bot.rulesets.registry  # noqa: F401  (merges the rulesets' catalogs with the shared one)
from bot.db.models import Event
from bot.i18n import LANGUAGES, Translator
from bot.render import log_line
from bot.services.log import LogEntry
from rules.exchange import Modifier, Outcome, Roll
from rules.grail_zh import fight
from rules.grail_zh.render import GrailZhRenderer

RENDERER = GrailZhRenderer()
ATTACK_ROLL = Roll("attack", 20, (10,), (10,), (Modifier("means:np", 5), Modifier("defense", -2)), 13)
DAMAGE_ROLL = Roll("damage:Saber", 12, (6, 6, 6, 6, 6), (6, 6, 6, 6, 6), (Modifier("damage_bonus", 9),), 39)


def _line(language: str, kind: str, payload: dict[str, Any]) -> str:
    """The line as `/log show` reads it, without its id and time."""
    event = Event(id=3, campaign_id=1, kind=kind, payload=payload, actor_id=42, secret=False,
                  created_at=datetime(2026, 1, 1, tzinfo=UTC))  # fmt: skip
    return log_line(Translator(language, "grail_zh"), LogEntry(event, False), RENDERER).split(" ", 2)[2]


def _attack(**fields: Any) -> dict[str, Any]:
    hit = fight.Attacked(attacker="Saber", defender="Rin", means="Excalibur", total=13, hit=True, auto=None)
    return {**hit.model_dump(), **fields}


def test_an_attacks_line_names_the_noble_phantasm_and_shows_its_rolls() -> None:
    payload = _attack(rolls=[ATTACK_ROLL.to_dict(), DAMAGE_ROLL.to_dict()], effects=[])
    line = _line("en", fight.Attacked.event, payload)
    assert line.startswith("Saber hit Rin with Excalibur (13)")
    assert "attack roll: 1d20 [10] +5 (Noble Phantasm) -2 (defence) = **13**" in line
    assert "damage by Saber: 5d12 [6, 6, 6, 6, 6] +9 (bonus) = **39**" in line


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_shows_the_dice_and_no_internal_name(language: str) -> None:
    line = _line(language, fight.Attacked.event, _attack(rolls=[ATTACK_ROLL.to_dict()]))
    assert "Excalibur" in line and "1d20 [10]" in line and "**13**" in line
    for internal in ("means", "defense", "attack.", "True", "False", "None"):
        assert internal not in line


def test_the_first_event_of_a_step_carries_its_rolls_whatever_it_tells() -> None:
    """A save-based release opens with its cost: the save and the damage are read on that line."""
    paid = fight.Paid(name="Saber", cost=6, from_master=0, master=None, vanished=False)
    save = Roll("save:Kariya", 20, (7,), (7,), (), 7)
    line = _line("en", fight.Paid.event, {**paid.model_dump(), "rolls": [save.to_dict()]})
    assert "Saber paid 6 MP" in line and "Kariya's save: 1d20 [7] = **7**" in line


def test_a_cost_the_master_helped_pay_names_the_master() -> None:
    paid = fight.Paid(name="Saber", cost=50, from_master=4, master="Shirou", vanished=False)
    assert _line("en", fight.Paid.event, paid.model_dump()) == "Saber paid 50 MP, Shirou giving 4 MP for it"


def test_a_blow_s_line_names_the_pool_it_took() -> None:
    damaged = fight.Damaged(defender="Rin", rolled=39, taken=39, temp_hp=5, fate="dead")
    line = _line("en", fight.Damaged.event, damaged.model_dump())
    assert line == "Rin took 39 damage, 5 of it on temporary HP and the rest off its HP"


def test_an_attack_stored_before_its_means_was_kept_still_reads() -> None:
    old = {"attacker": "Saber", "defender": "Rin", "total": 13, "hit": False}
    assert _line("en", fight.Attacked.event, old) == "Saber missed Rin (13)"


def test_a_luck_reroll_shows_the_faces_thrown_away() -> None:
    rerolled = Roll("check", 20, (1, 14), (14,), (Modifier("stat:STR", 4),), 18, rerolled=True)
    line = _line("en", "check", {"name": "Shirou", "stat": "STR", "total": 18, "target": 15, "success": True,
                                  "rolls": [rerolled.to_dict()]})  # fmt: skip
    assert "Shirou checked Strength: **18**, Success (target 15)" in line
    assert "check: 1d20 [~~1~~, 14] +4 (Strength) = **18**" in line


@pytest.mark.parametrize(
    ("outcome", "told"),
    [
        (fight.Saved(defender="Kariya", dc=20, total=7, result="half"), "Kariya's save 7 against 20: half the effect"),
        (
            fight.Evaded(defender="Archer", total=15, against=14, evaded=True),
            "Archer's Mind's Eye (15) beats the attack roll (14): evaded",
        ),
        (
            fight.Struck(striker="Saber", target="Rin", total=13, hit=False, counter=False),
            "Saber's opportunity attack on Rin (13): a miss",
        ),
        (
            fight.Released(attacker="Saber", means="Gae Buidhe", save_stat="LUK", defenders=["Rin", "Taiga"]),
            "Saber released Gae Buidhe on Rin · Taiga: a save by Luck",
        ),
    ],
)
def test_an_answer_to_a_blow_tells_how_it_ended(outcome: Outcome, told: str) -> None:
    assert _line("en", outcome.event, outcome.model_dump()) == told


def test_initiative_tells_the_order_it_rolled() -> None:
    order = {"order": [["Saber"], ["Shirou", "Rin"]]}
    assert _line("en", "combat.initiative", order) == "Initiative rolled: Saber → Shirou = Rin"


@pytest.mark.parametrize("language", LANGUAGES)
def test_luck_that_decided_an_attack_is_told_with_its_dice(language: str) -> None:
    sure = Roll("attack", 20, (20,), (20,), (Modifier("means:melee", 5),), 25)
    line = _line(language, fight.Attacked.event, _attack(auto="success", means="melee", rolls=[sure.to_dict()]))
    luck = Translator(language, "grail_zh")("luck.success")
    assert luck in line and "1d20 [20]" in line and "Rin" in line


def test_a_casting_names_its_magecraft() -> None:
    casting = fight.Casting(caster="Rin", means="bolt", defender="Saber")
    assert _line("en", casting.event, casting.model_dump()) == "Rin began to cast attack magecraft at Saber"
