"""How an attack reads in Fate/Points and Crest Magia: the post names what it was made with and adds up a hit's
damage, and the log lines tell the answer in words, what it did and the fall; events stored before these fields
were kept still read."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rules.crest_magia.fight import Attacked, DamageRolled
from rules.crest_magia.render import CrestMagiaRenderer
from rules.exchange import Answer, Modifier, Outcome, Roll, Step, Text, UserRef
from rules.fate_points.combat import damage_of
from rules.fate_points.events import AttackDeclared, AttackResolved
from rules.fate_points.outcomes import DamageTerms
from rules.fate_points.play import FatePointsPlay
from rules.fate_points.render import FatePointsRenderer
from rules.play import Renderer
from tests.rules import test_crest_magia_steps as crest
from tests.rules import test_fate_points_steps as fate
from tests.rules.logged import logged_line

FATE = FatePointsRenderer()
CREST = CrestMagiaRenderer()


def _words(text: Text) -> list[str]:
    """Every catalog key and plain value of a text, nested ones too."""
    found = [text.key]
    for value in text.params.values():
        found += _words(value) if isinstance(value, Text) else [] if isinstance(value, UserRef) else [str(value)]
    return found


def _payload(outcome: Outcome) -> dict[str, Any]:
    """An outcome as the log stores it."""
    loaded: dict[str, Any] = json.loads(json.dumps(outcome.model_dump(mode="json")))
    return loaded


def _of(step: Step, kind: type[Any]) -> Any:
    (found,) = (outcome for outcome in step.outcomes if isinstance(outcome, kind))
    return found


def _told(renderer: Renderer, kind: str, payload: dict[str, Any]) -> Text | None:
    """An event's own log line (None: the generic one); the rolls it ends with are the bot's to add."""
    return renderer.log_line(kind, payload)


def _fate_answer(option: str, *faces: int) -> Step:
    return fate._answer(fate._paused(fate._attack(12)), fate._fight(*faces), option)


def test_a_fate_points_hit_post_adds_up_its_damage() -> None:
    landed = _fate_answer("take")
    resolved = _of(landed, AttackResolved)
    terms = resolved.result.damage_terms
    assert isinstance(terms, DamageTerms) and damage_of(terms) == resolved.result.damage > 0
    summed = next(note for note in FATE.report(landed.outcomes).notes if note.key == "attack.damage_terms")
    assert summed.params["damage"] == resolved.result.damage
    words = _words(summed)
    assert "weapon_type.sword" in words and "damage.term.armour" in words
    assert str(terms.base) in words and f"{-terms.armour:+d}" in words


def test_a_servant_hitting_a_human_multiplies_in_the_terms() -> None:
    terms = DamageTerms(weapon="sword", base=4, stat=3, multiplier=10, multiplied="base", armour=2)
    assert damage_of(terms) == 41
    assert damage_of(terms.model_copy(update={"multiplied": "all"})) == 68
    assert damage_of(terms.model_copy(update={"armour": 99})) == 0


def test_a_fate_points_attack_post_and_log_name_what_it_is_made_with() -> None:
    declared = AttackDeclared(
        attacker="Saber",
        defender="Lancer",
        action="np|Excalibur",
        score=9,
        crit=False,
        mana_cost=34,
        auto_hit=False,
        round=1,
    )
    report = FATE.report((declared,))
    assert (Text("attack.made_with"), Text("attack_logged.np", {"name": "Excalibur"})) in report.fields
    line = _told(FATE, "attack.declared", _payload(declared))
    assert line == Text("event.attack.declared_paid", {"action": Text("attack_logged.np", {"name": "Excalibur"})})
    # A reader who may not know a hidden sheet's cost reads a payload without it.
    hidden = {key: value for key, value in _payload(declared).items() if key != "mana_cost"}
    assert _told(FATE, "attack.declared", hidden) == Text(
        "event.attack.declared", {"action": Text("attack_logged.np", {"name": "Excalibur"})}
    )


def test_a_fate_points_answer_logs_in_words_with_its_score_and_what_it_did() -> None:
    dodged = _of(_fate_answer("dodge", 1), AttackResolved)
    line = _told(FATE, "attack.resolved", _payload(dodged))
    assert line is not None and line.key == "event.attack.resolved"
    assert line.params["choice"] == Text(
        "attack_logged.defence_score", {"choice": Text("choice.dodge"), "score": dodged.result.defence_score}
    )
    assert line.params["result"] == Text("attack_logged.missed")
    taken = _of(_fate_answer("take"), AttackResolved)
    line = _told(FATE, "attack.resolved", _payload(taken))
    assert line is not None and line.params["choice"] == Text("choice.take")
    assert line.params["result"] == Text("attack_logged.damage", {"damage": taken.result.damage})


def test_a_fate_points_answer_stored_before_the_damage_terms_still_logs_the_fall() -> None:
    stored = {
        "attacker": "Saber",
        "defender": "Sakura",
        "forced": False,
        "parry_bonus_shown_round": None,
        "result": {
            "choice": "take",
            "attack_score": 9,
            "defence_score": None,
            "auto_hit": True,
            "staggered": False,
            "repeat_penalty": 0,
            "carry": 0,
            "parry_bonus_round": None,
            "defence_stat": None,
            "weapon": None,
            "mana_cost": 0,
            "hit": True,
            "damage": 41,
            "null_damage": False,
            "crit_bonus": 0,
            "np_no_effect": False,
            "defender_fate": "down",
        },
        "rolls": [],
        "effects": [],
    }
    line = _told(FATE, "attack.resolved", stored)
    assert line == Text(
        "event.attack.resolved",
        {
            "choice": Text("attack_logged.undefendable"),
            "result": Text(
                "attack_logged.then_down",
                {"result": Text("attack_logged.damage", {"damage": 41}), "defender": "Sakura"},
            ),
        },
    )
    old = AttackResolved.model_validate({key: stored[key] for key in AttackResolved.model_fields})
    assert old.result.damage_terms is None
    assert [note.key for note in FATE.report((old,)).notes] == ["outcome.auto_hit"]


class PrivateSheets(FatePointsPlay):
    private_sheets = True


def test_a_hidden_sheet_keeps_its_damage_terms_out_of_the_post() -> None:
    pause = fate._paused(fate._attack(12))
    answer = Answer(pause.waits[0].key, option="take")
    landed = PrivateSheets().resumes.resume(fate._fight(), pause.stored_as, pause.stored_state(), answer)
    resolved = _of(landed, AttackResolved)
    assert resolved.result.damage > 0 and resolved.result.damage_terms is None


def _crest_hit() -> tuple[Step, Step]:
    """Aiko's sword on Bram, defended with Physique and no skill and hit: the attack, and the damage rolled."""
    attacked = crest._attack()
    stat = crest._answer(crest._paused(attacked), crest._fight(), "defence_stat", "physique")
    skill = crest._answer(crest._paused(stat), crest._fight(1, 1, 1), "defence_skill", "no_skill")
    rolled = crest._answer(crest._paused(skill), crest._fight(3, 4), "reroll", "keep")
    return attacked, rolled


def test_a_crest_magia_attack_post_and_log_name_what_it_is_made_with() -> None:
    attacked, _ = _crest_hit()
    declared = _of(attacked, Attacked)
    assert (declared.means, declared.means_kind) == ("Sword", "melee")
    made_with = Text("attack_choice.melee", {"name": "Sword"})
    assert Text("attack.made_with", {"means": made_with}) in CREST.report(attacked.outcomes).notes
    assert _told(CREST, "attack.declared", _payload(declared)) == Text(
        "event.attack.declared_with", {"means": made_with}
    )
    crested = declared.model_copy(update={"means": "Crest of Flames", "means_kind": "crest", "form": "Explosion"})
    assert _told(CREST, "attack.declared", _payload(crested)) == Text(
        "event.attack.declared_with",
        {
            "means": Text(
                "attack.means_form",
                {"means": Text("attack_choice.crest", {"name": "Crest of Flames"}), "form": "Explosion"},
            )
        },
    )
    # Stored before the means were kept: the generic line, which needs nothing more.
    stored = {key: value for key, value in _payload(declared).items() if key not in ("means", "means_kind", "form")}
    assert _told(CREST, "attack.declared", stored) is None


def test_a_crest_magia_damage_roll_is_an_event_of_its_own() -> None:
    _, rolled = _crest_hit()
    dealt = rolled.outcomes[0]
    assert isinstance(dealt, DamageRolled) and (dealt.attacker, dealt.defender) == ("Aiko", "Bram")
    (damage_roll, *_) = rolled.rolls
    assert damage_roll.label == "damage" and dealt.damage == damage_roll.total


def test_a_crest_magia_defence_logs_its_total_against_the_attack() -> None:
    payload = {
        "attacker": "Aiko",
        "defender": "Bram",
        "stat": "Dexterity",
        "skill": "Agility",
        "attack_total": 15,
        "defence_total": 13,
        "hit": True,
        "maxed": False,
        "crit": None,
    }
    # Its skill stays out: where the GMs hide the sheet, it is theirs to know.
    assert _told(CREST, "attack.defended", payload) == Text("event.attack.hit_scored", {"stat": Text("stat.Dexterity")})
    old = {key: value for key, value in payload.items() if key != "defence_total"}
    assert _told(CREST, "attack.defended", {**old, "skill": None}) == Text(
        "event.attack.hit", {"stat": Text("stat.Dexterity")}
    )


def test_a_crest_magia_placement_logs_what_found_no_hp() -> None:
    payload = {"defender": "Bram", "losses": {"Dexterity": 6}, "lost": 6, "more": False}
    line = _told(CREST, "attack.placed", payload)
    loss = Text("attack.loss", {"taken": 6, "stat": Text("stat.Dexterity")})
    assert line is not None and line.key == "event.attack.placed_lost" and line.params["lost"] == 6
    assert loss.key in _words(line)
    assert _told(CREST, "attack.placed", {**payload, "losses": {}}) == Text(
        "event.attack.lost", {"losses": "—", "lost": 6}
    )


OLD_RESOLVED = {
    "attacker": "Saber",
    "defender": "Lancer",
    "forced": False,
    "result": {
        "choice": "block",
        "attack_score": 9,
        "defence_score": 11,
        "auto_hit": False,
        "staggered": False,
        "repeat_penalty": 0,
        "carry": 0,
        "parry_bonus_round": None,
        "defence_stat": "STR",
        "weapon": "sword",
        "mana_cost": 0,
        "hit": True,
        "damage": 30,
        "null_damage": False,
        "crit_bonus": 0,
        "np_no_effect": False,
        "defender_fate": "dead",
    },
    "rolls": [],
    "effects": [],
}
OLD_DECLARED = {
    "attacker": "Aiko",
    "defender": "Bram",
    "action": "Crest of Flames",
    "stat": "Intelligence",
    "total": 11,
    "crit": None,
    "rerolled": False,
    "rolls": [],
    "effects": [],
}


@pytest.mark.parametrize(
    ("language", "answered", "declared"),
    [
        (
            "en",
            "Lancer answered Saber's attack: Block **11**; hit for 30 damage to HP; Lancer dies",
            "Aiko attacks Bram (11)",
        ),
        (
            "zh-CN",
            "Lancer 应对了 Saber 的攻击：格挡（**11**）；命中，生命值受到 30 点伤害；Lancer 死亡",
            "Aiko 攻击 Bram（11）",
        ),
        (
            "ja",
            "Lancer が Saber の攻撃に対応：ブロック（**11**）。命中、体力に 30 ダメージ。Lancer は死亡した",
            "Aiko が Bram を攻撃（11）",
        ),
    ],
)
def test_events_stored_before_the_new_fields_still_read_in_every_language(
    language: str, answered: str, declared: str
) -> None:
    assert logged_line("fate_points", FATE, "attack.resolved", OLD_RESOLVED, language).endswith(answered)
    assert logged_line("crest_magia", CREST, "attack.declared", OLD_DECLARED, language).endswith(declared)


def _with_rolls(payload: dict[str, Any], *rolls: Roll) -> dict[str, Any]:
    return {**payload, "rolls": [roll.to_dict() for roll in rolls]}


DEFENCE = Roll("defence", 20, (11,), (11,), (Modifier("stat:AGI", -4), Modifier("weapon:sword", -1)), 6)
FOLDED = Roll("attack", 20, (12,), (12,), (Modifier("sheet", -3),), 9)
BASE = Roll("base", 6, (3, 5, 2), (5, 3), total=8)
DEXTERITY = Roll("stat:Dexterity", 6, (4,), (4,), (Modifier("skill:Agility", 2), Modifier("specialty:Dodge", 1)), 15)


@pytest.mark.parametrize(
    ("language", "defended", "attacked", "crest_defended"),
    [
        (
            "en",
            "— defence: 1d20 [11] -4 (AGI) -1 (weapon sword) = **6**",
            "— attack: 1d20 [12] -3 (hidden sheet) = **9**",
            "— base dice: 3d6 [**3**, **5**, 2] = **8**; Dexterity die: 1d6 [4] +2 (Agility) +1 (Dodge) = **15**",
        ),
        (
            "zh-CN",
            "——防御: 1d20 [11] -4 (AGI) -1 (武器（剑）) = **6**",
            "——攻击: 1d20 [12] -3 (隐藏的角色卡) = **9**",
            "——基础骰: 3d6 [**3**, **5**, 2] = **8**；灵巧骰: 1d6 [4] +2 (敏捷) +1 (Dodge（专长）) = **15**",
        ),
        (
            "ja",
            " ― 防御: 1d20 [11] -4 (AGI) -1 (武器（剣）) = **6**",
            " ― 攻撃: 1d20 [12] -3 (非公開のシート) = **9**",
            " ― 基本ダイス: 3d6 [**3**, **5**, 2] = **8**；器用ダイス: 1d6 [4] +2 (敏捷) +1 (Dodge（特技）) = **15**",
        ),
    ],
)
def test_each_roll_ends_the_line_of_the_event_that_carries_it(
    language: str, defended: str, attacked: str, crest_defended: str
) -> None:
    fate_defence = _with_rolls(OLD_RESOLVED, DEFENCE)
    assert logged_line("fate_points", FATE, "attack.resolved", fate_defence, language).endswith(defended)
    declared = {"attacker": "Lancer", "defender": "Saber", "action": "melee|Gae Bolg", "score": 9, "crit": False}
    assert logged_line("fate_points", FATE, "attack.declared", _with_rolls(declared, FOLDED), language).endswith(
        attacked
    )
    crest_defence = {
        "attacker": "Aiko",
        "defender": "Bram",
        "stat": "Dexterity",
        "skill": "Agility",
        "hit": False,
        "attack_total": 16,
        "defence_total": 15,
    }
    logged = logged_line("crest_magia", CREST, "attack.defended", _with_rolls(crest_defence, BASE, DEXTERITY), language)
    assert logged.endswith(crest_defended)
