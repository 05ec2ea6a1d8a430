"""The anka game on Discord: Masters, Servants and other characters, camps, anchored decisions and battles (rules in
`rules/grail_anka`).

A character's stored sheet is `{"file": <the validated file>}` with its parameters as numbers. A Master has the pool
`command_seals` (3 of 3), a Servant `fatigue` (from 0, unbounded); a vanished Servant and a dead character carry
`vanished` or `dead` in their state. Parameters, levels and skills are the GM's to enter (D1): a player's file waits
for a GM's approval.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, Final

from rules.dice import DiceSource
from rules.exchange import Answer, RuleError, Step, Text
from rules.grail_anka import checks, decisions, fight, turn_steps
from rules.grail_anka.decisions import Continuations, reading, request
from rules.grail_anka.model import COMMAND_SEALS, PARAMS
from rules.grail_anka.options import GrailAnkaOptions
from rules.grail_anka.outcomes import Checked, Purpose
from rules.grail_anka.sheets import FILES, ServantFile, Skill, parse_file
from rules.grail_anka.states import Anchoring, Battle, Checking
from rules.options import CampaignOptions
from rules.play import (
    AttackInput,
    Binding,
    CharacterDraft,
    CharacterSnapshot,
    CheckInput,
    Play,
    Pool,
    Resumes,
    Scene,
    SheetLine,
)
from rules.words import joined

MASTER, SERVANT, OTHER = "master", "servant", "other"
BATTLE_KIND: Final = "anka.battle"

TEMPLATE_PARAMS: Final = {"str": 30, "end": 30, "agi": 30, "mag": 30, "luk": 30, "np": 30}
# The example files; their names are catalog texts, written in the campaign's language.
TEMPLATES: Final[dict[str, dict[str, Any]]] = {
    MASTER: {
        "name": Text("anka.example.master"),
        "level": 5,
        "params": {**TEMPLATE_PARAMS, "mag": "B"},
        "skills": [
            {
                "name": Text("anka.example.gems"),
                "kind": "mystic_code",
                "timing": "main",
                "category": Text("anka.example.magecraft"),
                "effect": {"win_rate_delta": 5},
            }
        ],
    },
    SERVANT: {
        "name": Text("anka.example.servant"),
        "master": Text("anka.example.master"),
        "servant_class": Text("anka.example.servant"),
        "level": 10,
        "params": {"str": "D", "end": "C", "agi": "C", "mag": "B", "luk": "E", "np": "A+"},
        "skills": [
            {
                "name": Text("anka.example.clairvoyance"),
                "kind": "normal",
                "timing": "main",
                "category": Text("anka.example.sight"),
                "fatigue_cost": 1,
                "effect": {"param_delta": {"agi": 5}},
            },
            {"name": Text("anka.example.retreat"), "timing": "post_battle", "tags": ["retreat"]},
        ],
    },
    OTHER: {"name": Text("anka.example.other"), "level": 1, "params": dict.fromkeys(PARAMS, 5)},
}


def anka_options(options: CampaignOptions) -> GrailAnkaOptions:
    assert isinstance(options, GrailAnkaOptions)
    return options


def said_of(purpose: Text) -> str:
    """What a GM's check is for, in the GM's words (`anka.purpose.check`'s)."""
    return str(purpose.params["purpose"])


def gm_check(scene: Scene, rate: int, purpose: Text) -> Step:
    """A GM's check at any success rate outside battles (the source's 判定)."""
    decides = Purpose(decides="check", said=said_of(purpose))
    return request(scene, Checking(rate=rate, purpose=purpose.to_dict()), [decides], rates=[rate])


def _checked(scene: Scene, state: Checking, values: list[int], revealed: Step) -> Step:
    verdict = checks.judge(values[0], state.rate)
    said = said_of(Text.from_dict(state.purpose))
    line = Checked(of="gm", value=verdict.value, rate=verdict.rate, reading=reading(verdict), said=said)
    return Step.of(revealed, Step(outcomes=(line,)))


CONTINUATIONS: Final[Continuations] = {**fight.CONTINUATIONS, **turn_steps.CONTINUATIONS, Checking: _checked}


class GrailAnkaPlay(Play):
    kinds: tuple[str, ...] = (MASTER, SERVANT, OTHER)
    pool_names: tuple[str, ...] = (fight.FATIGUE, fight.SEALS)
    template_note_key = "anka.template_note"
    # A rival camp's parameters, skills and Noble Phantasms stay hidden until used.
    private_sheets = True
    final_fates = frozenset({fight.DEAD, fight.VANISHED})
    # Both sides commit to their numbers before either anchors them.
    commits = True

    @cached_property
    def resumes(self) -> Resumes:
        return Resumes(
            self.anchored,
            fight.skill_chosen,
            fight.cancel_chosen,
            fight.param_picked,
            fight.fate_chosen,
            fight.undo_chosen,
            turn_steps.contract_answered,
            turn_steps.order_answered,
        )

    def anchored(self, scene: Scene, state: Anchoring, answer: Answer) -> Step:
        """An anchor given, or a window closed or extended, in any exchange of the game."""
        return decisions.anchored(scene, state, answer, CONTINUATIONS)

    def template(self, kind: str) -> dict[str, Any]:
        return dict(TEMPLATES[kind])

    def template_comments(self, kind: str) -> tuple[str, ...]:
        return tuple(TEMPLATES[kind])

    def binding(self, kind: str) -> Binding | None:
        # A Master may hold several Servants (R20).
        return Binding(fight.MASTER_RELATION, "master", MASTER, per_target=None) if kind == SERVANT else None

    def build(
        self,
        kind: str,
        data: Mapping[str, Any],
        bound: Mapping[str, CharacterSnapshot],
        dice: DiceSource,
        options: CampaignOptions,
        *,
        gm_run: bool = False,
    ) -> CharacterDraft:
        sheet = parse_file(kind, data, anka_options(options))
        pools: dict[str, Pool] = {}
        if kind == MASTER:
            pools[fight.SEALS] = Pool(COMMAND_SEALS, COMMAND_SEALS)
        if kind == SERVANT:
            pools[fight.FATIGUE] = Pool(0, None)
        return CharacterDraft(sheet.name, kind, {"file": sheet.model_dump(mode="json")}, pools, ())

    def gm_only_fields(self, kind: str, sheet: Mapping[str, Any]) -> tuple[str, ...]:
        """D1: parameters, level and skills are the GM's to enter."""
        file = sheet["file"]
        params = ", ".join(f"{param} {file['params'][param]}" for param in PARAMS)
        fields = [f"`level`: {file['level']}", f"`params`: {params}"]
        fields += [f"`skills.{index}`: {skill['name']}" for index, skill in enumerate(file["skills"])]
        return tuple(fields)

    def editable(self, kind: str, field: str, *, by_gm: bool) -> bool:
        root = field.split(".", 1)[0]
        return by_gm and root in FILES[kind].model_fields and root not in ("name", "master")

    def edited_sheet(
        self, character: CharacterSnapshot, file: Mapping[str, Any], options: CampaignOptions, *, by_gm: bool
    ) -> dict[str, Any]:
        return {"file": parse_file(character.kind, file, anka_options(options)).model_dump(mode="json")}

    def sheet_lines(self, character: CharacterSnapshot, options: CampaignOptions, *, full: bool) -> list[SheetLine]:
        sheet = fight.sheet_of(character)
        lines = []
        if character.kind == SERVANT and (servant := ServantFile.model_validate(character.sheet["file"])).servant_class:
            lines.append(SheetLine("anka.sheet.class", servant.servant_class))
        fate = self.out_of_play(character)
        if fate is not None:
            lines.append(SheetLine("anka.sheet.fate", Text(f"anka.fate_word.{fate}")))
        if not full:
            return lines
        lines.append(SheetLine("anka.sheet.level", str(sheet.level)))
        shown = [
            Text("anka.param_value", {"param": Text(f"anka.param.{param}"), "value": sheet.params[param]})
            for param in PARAMS
        ]
        lines.append(SheetLine("anka.sheet.params", joined(shown), inline=False))
        if sheet.skills:
            lines.append(
                SheetLine("anka.sheet.skills", joined([skill_line(skill) for skill in sheet.skills]), inline=False)
            )
        return lines

    def check(self, scene: Scene, params: CheckInput) -> Step:
        raise RuleError("checks_by_gm")

    def attack(self, scene: Scene, params: AttackInput) -> Step:
        raise RuleError("battles_between_camps")

    def pools_shown(self, character: CharacterSnapshot, viewer: int | None, *, gm: bool) -> bool:
        """Fatigue and command seals are no secret here: the battles' posts tell them, and the win rate counts
        fatigue in the open. Parameters and skills are what a private sheet hides."""
        return True

    def cancelled(self, scene: Scene, kind: str, state: Any) -> Step | None:
        battle = state.continued if isinstance(state, Anchoring) else state
        return fight.cancelled(scene, battle) if kind == BATTLE_KIND and isinstance(battle, Battle) else None

    def campaign_turn_ended(self, scene: Scene) -> Step | None:
        return turn_steps.turn_ended(scene)

    def out_of_play(self, character: CharacterSnapshot) -> str | None:
        return fate_of(character)


def fate_of(character: CharacterSnapshot) -> str | None:
    """Dead (a Master, another character) or vanished (a Servant): out of the war for good (R21)."""
    if character.state.get(fight.DEAD):
        return fight.DEAD
    if character.state.get(fight.VANISHED):
        return fight.VANISHED
    return None


def skill_line(skill: Skill) -> Text:
    details = [Text(f"anka.kind.{skill.kind}"), Text(f"anka.timing.{skill.timing}")]
    if skill.fatigue_cost:
        details.append(Text("anka.fatigue_cost", {"cost": skill.fatigue_cost}))
    return Text(
        "anka.skill_line",
        {"name": skill.name, "details": joined(details), "effect": fight.effect_text(skill.effect, skill.tags)},
    )
