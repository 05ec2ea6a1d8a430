"""Fate/Points plugged into the shared commands: sheets, creation, checks, attacks and defences, the hooks.

A character's stored sheet is `{"file": <the validated import file>, "derived": <what the bot rolled>}`;
its state holds `combat` (CombatState), `actions` (ActionState), `fate` (a Fate/Point effect),
`servant_present`, `passive_off`, `np_rulings`, `min_np_rank` and, on a Master, `transfer_round`.
A Servant is bound to its Master under the relation "master".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cached_property
from typing import Any, Literal, cast

from pydantic import Field, field_validator

from rules.dice import DiceSource
from rules.exchange import (
    Answer,
    Audience,
    Effect,
    Modifier,
    Option,
    OptionGroup,
    Outcome,
    Pause,
    PoolDelta,
    Resolution,
    RuleError,
    StatePatch,
    Step,
    Text,
    UserRef,
    Wait,
    member,
)
from rules.fate_points import (
    ATTACK_TYPES,
    DEFENCE_CHOICES,
    EX,
    MAX_STAT,
    STATS,
    TAKE,
    Ability,
    AttackSpec,
    AttackType,
    AttackVanished,
    Combatant,
    CombatState,
    FatePointsOptions,
    MasterSheet,
    NoblePhantasm,
    ServantSheet,
    SheetError,
    Stat,
    attack,
    best_defence_weapon,
    check,
    create_master,
    create_servant,
    defend,
    fate,
    is_np_rank,
    master_problems,
    odds,
    parse_master,
    parse_servant,
    rank_letter,
    servant_problems,
    servant_stats,
)
from rules.fate_points.actions import ActionState, actions_in_round, attack_actions, use_action
from rules.fate_points.events import (
    Activated,
    AttackDeclared,
    AttackFaded,
    AttackResolved,
    CheckRolled,
    CompatibilitySet,
    ExCostSet,
    FateDenied,
    FateRequested,
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
from rules.fate_points.fate_points import fate_effect_expired, spend_fate_point
from rules.fate_points.phantasms import (
    NoblePhantasmRuling,
    ability_activation_cost,
    np_activation_cost,
    np_defence_options,
)
from rules.fate_points.prana import (
    activate,
    mad_enchantment_draw,
    passive_replenishment,
    regenerate,
    rest,
    transfer_mana,
)
from rules.fate_points.states import APPROVAL_WAIT, DEFENCE_WAIT, WEAPON_WAIT, ChoosingWeapon, Defending, FateApproval
from rules.options import CampaignOptions
from rules.play import (
    ACTOR,
    ATTACKER,
    CURRENT,
    DEFENDER,
    EVERYONE,
    AttackInput,
    Binding,
    CharacterDraft,
    CharacterSnapshot,
    CheckInput,
    Choice,
    Odds,
    Play,
    Pool,
    Preset,
    Resumes,
    Scene,
    SheetLine,
    Turn,
)
from rules.words import joined

MASTER: Literal["master"] = "master"
SERVANT: Literal["servant"] = "servant"
# A Servant is bound to its Master; the pair's operations name them by these roles.
CONTRACT = "master"
PAIR_MASTER = "master"
PAIR_SERVANT = "servant"
# GM-awarded extra Servant points (R2) may be negative ("award or deduct"), but not without bound.
SERVANT_POINTS_FLOOR = -10
ACTION_SEPARATOR = "|"
# What a player may change with /character edit: the names of their weapons and skills.
PLAYER_EDITABLE = re.compile(r"^(weapons|skills|magecraft)\.\d+\.name$")
# Creation rules that a GM's edit (an advancement) is not held to: the Master's 15 points, the Servant's steps.
CREATION_BUDGETS = frozenset({"budget", "step_sum", "step_sign"})
NP_ACTION = "np"
# A24: a stat boosted by a Fate/Point with no opposing Servant rises to rank A.
SERVANT_LEVEL_WITHOUT_TARGET = 5
# Which attack types a weapon offers in the /attack list.
RANGED_WEAPONS = frozenset({"bow", "dagger"})
HOURS_PER_DAY = 24
BEST_WEAPON = "best"  # the weapon whose modifiers defend best (`best_defence_weapon`)
PARRY = "parry"

# The example files; the names a player replaces are catalog texts, in the campaign's language.
MASTER_TEMPLATE: dict[str, Any] = {
    "name": "Rin Tohsaka",
    "STR": 2,
    "END": 3,
    "AGI": 3,
    "MAG": 4,
    "LUK": 3,
    "weapons": [{"name": Text("example.gandr"), "type": "magic"}, {"name": Text("example.azoth"), "type": "dagger"}],
    "magecraft": [{"name": Text("example.jewels"), "roll_mods": {"attack:magical": -1}, "mana_cost": 5}],
}
SERVANT_TEMPLATE: dict[str, Any] = {
    "name": "Saber",
    "servant_class": "Saber",
    "master": "Rin Tohsaka",
    "rank_steps": {"MAG": 1},
    "weapons": [{"name": Text("example.invisible_air"), "type": "sword"}],
    "skills": [{"name": Text("example.mana_burst"), "roll_mods": {"attack:melee": -1}, "mana_cost": 3}],
    "noble_phantasms": [{"name": Text("example.excalibur"), "rank": "A++"}],
    "mad_enchantment": False,
}


class FateAttackInput(AttackInput):
    attacks: int = Field(1, ge=1, le=10, description="param.attacks")
    rank: Literal["A", "B", "C", "D", "E"] | None = Field(None, description="param.rank")
    confirm: bool = Field(False, description="param.confirm")

    @field_validator("rank", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value


def _options(options: CampaignOptions) -> FatePointsOptions:
    return cast(FatePointsOptions, options)


def _master_sheet(character: CharacterSnapshot) -> MasterSheet:
    return MasterSheet.model_validate(character.sheet["file"])


def _stats(character: CharacterSnapshot) -> dict[Stat, int]:
    if character.kind == MASTER:
        file = character.sheet["file"]
        return {stat: int(file[stat]) for stat in STATS}
    return {cast(Stat, stat): int(value) for stat, value in character.sheet["derived"]["stats"].items()}


def activated(character: CharacterSnapshot, turn: Turn) -> tuple[str, ...]:
    """The skills and NPs paid for with `/fate activate` that still apply: for the rest of the round in a fight,
    until the next attack or defence roll outside one."""
    record = character.state.get("activated") or {}
    current = turn.round_number if turn.in_combat else None
    return tuple(record.get("names", ())) if record and record.get("round") == current else ()


def _used_up_activation(
    who: str, character: CharacterSnapshot, turn: Turn, phantasm: str | None = None
) -> list[Effect]:
    """Outside a fight an activation lasts one roll: the roll that used it ends it. An activated Noble Phantasm
    is spent by the one attack it was activated for (R16): attacking with it again needs a new activation."""
    active = activated(character, turn)
    if not active:
        return []
    if not turn.in_combat:
        return [StatePatch(who, "activated", None)]
    if phantasm not in active:
        return []
    left = [name for name in active if name != phantasm]
    return [StatePatch(who, "activated", {"round": turn.round_number, "names": left})]


def compatibility(master: CharacterSnapshot) -> int:
    """The rolled compatibility with the GM's modifier (R1), set with /fate compatibility."""
    return int(master.sheet["derived"]["compatibility"]) + int(master.state.get("compat_mod", 0))


def phantasms(servant: CharacterSnapshot) -> list[NoblePhantasm]:
    """The sheet's Noble Phantasms, each EX one with the cost the GM gave it (/fate ex-cost)."""
    costs = servant.state.get("np_ex_costs", {})
    return [
        NoblePhantasm.model_validate({**np, "ex_cost": costs[np["name"]]} if np["name"] in costs else np)
        for np in servant.sheet["file"].get("noble_phantasms", [])
    ]


def servant_at_side(master: CharacterSnapshot) -> bool:
    """R11: a Master is "without their Servant" when he has none, or it has died and disappeared (R18), whatever
    `/fate presence` says; a living Servant is at his side until the GM says otherwise."""
    servant = master.dependant(CONTRACT)
    if servant is None or fate(SERVANT, servant.pools["hp"].current, servant.pools["prana"].current):
        return False
    return bool(master.state.get("servant_present", True))


def combatant(
    character: CharacterSnapshot, fate_effects: Mapping[str, Any] | None = None, paid: Sequence[str] = ()
) -> Combatant:
    """The rules' view of a stored character: sheet, current pools, combat state and Fate/Point effect.

    `fate_effects` overrides the stored effect: an attack keeps the one it was declared with until it resolves.
    `paid` names the skills and NPs activated beforehand that apply to this roll (see `activated`).
    """
    file = character.sheet["file"]
    state = character.state
    if fate_effects is None:
        fate_effects = state.get("fate") or {}
    common: dict[str, Any] = {
        "name": character.name,
        "stats": _stats(character),
        "hp": character.pools["hp"].current,
        "mana": character.pools["prana"].current,
        "state": CombatState.model_validate(state.get("combat", {})),
        "fp_roll_vs_servant": bool(fate_effects.get("roll_vs_servant")),
        "fp_boost": fate_effects.get("boost"),
        "min_np_rank": state.get("min_np_rank"),
        "activated": tuple(paid),
    }
    if character.kind == MASTER:
        sheet = MasterSheet.model_validate(file)
        return Combatant(
            kind=MASTER,
            weapons=sheet.weapons,
            abilities=sheet.magecraft,
            servant_present=servant_at_side(character),
            **common,
        )
    servant = ServantSheet.model_validate(file)
    return Combatant(
        kind=SERVANT,
        servant_class=servant.servant_class,
        weapons=servant.weapons,
        abilities=servant.skills,
        noble_phantasms=phantasms(character),
        roll_mod=int(character.sheet["derived"].get("roll_mod", 0)),
        **common,
    )


def _fate_ended(
    character: CharacterSnapshot,
    options: FatePointsOptions,
    *,
    round_number: int,
    used: bool,
    scene_ended: bool = False,
) -> bool:
    effect = character.state.get("fate") or {}
    return bool(effect) and fate_effect_expired(
        effect, used_in_roll=used, round_number=round_number, scene_ended=scene_ended, options=options
    )


def _spent_fate(who: str, character: CharacterSnapshot, options: FatePointsOptions, round_number: int) -> list[Effect]:
    """The Fate/Point effect a roll used up, if that roll ended it."""
    return (
        [StatePatch(who, "fate", None)] if _fate_ended(character, options, round_number=round_number, used=True) else []
    )


def _recast(effects: Sequence[Effect], roles: Mapping[str, str]) -> tuple[Effect, ...]:
    """The pure rules name a pair "master" and "servant": here they are roles of the scene."""
    return tuple(
        replace(effect, who=roles[effect.who])
        if isinstance(effect, PoolDelta | StatePatch) and effect.who in roles
        else effect
        for effect in effects
    )


def _compact(mods: Mapping[str, int]) -> str:
    """Roll modifiers as a GM reads them: `attack:melee -1, damage +2`."""
    return ", ".join(f"{kind} {value:+d}" for kind, value in mods.items())


def stored_actions(character: CharacterSnapshot) -> ActionState | None:
    stored = character.state.get("actions")
    return ActionState.model_validate(stored) if stored else None


def spend_action(who: str, character: CharacterSnapshot, *kinds: str, turn: Turn) -> list[Effect]:
    """The `actions` state after spending one action of each of `kinds`; nothing is counted outside a fight."""
    if not turn.in_combat:
        return []
    actions = actions_in_round(stored_actions(character), turn.round_number)
    for kind in kinds:
        actions, _ = use_action(actions, kind, turn.round_number)
    return [StatePatch(who, "actions", actions.model_dump(mode="json"))]


def _weapon_type(weapon: Mapping[str, Any]) -> Text:
    """A weapon's type in the reader's words."""
    return Text(f"weapon_type.{weapon['type']}")


def weapon_choices(defender: CharacterSnapshot) -> tuple[Choice, ...]:
    """What a block or parry can be made with: the best by the rules, or any of the defender's weapons."""
    weapons = defender.sheet["file"].get("weapons", [])
    return (
        Choice(BEST_WEAPON, Text("choice.best_weapon")),
        *(
            Choice(f"w{index}", Text("choice.weapon", {"name": weapon["name"], "type": _weapon_type(weapon)}))
            for index, weapon in enumerate(weapons)
        ),
    )


def parse_defences(text: str | None) -> list[str] | None:
    """A GM's list of allowed defences: empty or "normal" for all, "none" for none, else names like "block, dodge"."""
    if text is None or text.strip().lower() in ("", "normal", "all"):
        return None
    if text.strip().lower() == "none":
        return []
    return [part.strip().lower() for part in text.replace(" ", ",").split(",") if part.strip()]


def parse_action(action: str) -> tuple[str, str | None]:
    kind, _, name = action.partition(ACTION_SEPARATOR)
    return kind, name or None


def use_words(use: str, stat: str | None) -> dict[str, str | Text]:
    """A Fate/Point's use (with the stat it boosts) as the `use` parameter of a sentence."""
    return {"use": Text(f"fate.use_stat.{use}", {"stat": stat}) if stat else Text(f"fate.use.{use}")}


def defence_wait(attacker: str, defender: str, allowed: Sequence[str]) -> Wait:
    """The defender's choice: block, dodge, parry (AGI or LUK, asked privately) or take the hit."""
    parries = [choice for choice in allowed if choice.startswith(f"{PARRY}_")]
    grouped = len(parries) > 1
    options = tuple(
        Option(
            choice,
            Text(f"choice.{choice}"),
            group=PARRY if grouped and choice in parries else None,
            tone="secondary" if choice == TAKE else "primary",
        )
        for choice in allowed
    )
    groups = (OptionGroup(PARRY, Text("choice.parry"), Text("choice.parry.question")),) if grouped else ()
    prompt = Text("attack.prompt", {"defender": defender, "attacker": attacker})
    return Wait(DEFENCE_WAIT, Audience.character(DEFENDER), prompt, options, groups)


class FatePointsPlay(Play):
    kinds: tuple[str, ...] = (MASTER, SERVANT)
    pool_names: tuple[str, ...] = ("hp", "prana", "fate_points", "servant_points")
    check_stats: tuple[str, ...] = STATS
    template_note_key = "fate_points.template_note"
    attack_input = FateAttackInput
    presets = (
        Preset(
            DEFENCE_WAIT,
            Text("preset.defence"),
            tuple(Choice(choice, Text(f"choice.{choice}")) for choice in (*DEFENCE_CHOICES, TAKE)),
        ),
        # The character's own weapons: `preset_choices`.
        Preset(WEAPON_WAIT, Text("preset.defence_weapon"), ()),
    )

    def preset_choices(self, preset: Preset, character: CharacterSnapshot) -> tuple[Choice, ...]:
        return weapon_choices(character) if preset.wait == WEAPON_WAIT else preset.options

    @cached_property
    def resumes(self) -> Resumes:
        return Resumes(self.defence, self.defence_weapon, self.approval)

    def template(self, kind: str) -> dict[str, Any]:
        return dict(MASTER_TEMPLATE if kind == MASTER else SERVANT_TEMPLATE)

    def template_comments(self, kind: str) -> tuple[str, ...]:
        return tuple(self.template(kind))

    def binding(self, kind: str) -> Binding | None:
        return Binding(CONTRACT, "master", MASTER) if kind == SERVANT else None

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
        rules_options = _options(options)
        if kind == MASTER:
            return self._build_master(data, dice, rules_options)
        return self._build_servant(data, bound[CONTRACT], dice, rules_options)

    def _build_master(self, data: Mapping[str, Any], dice: DiceSource, options: FatePointsOptions) -> CharacterDraft:
        sheet = parse_master(data, options)
        created = create_master(sheet, dice, options)
        derived = {"compatibility": created.compatibility, "servant_points": created.servant_points}
        pools = {
            "hp": Pool(created.hp_max, created.hp_max),
            "prana": Pool(created.prana_max, created.prana_max),
            "fate_points": Pool(created.fate_points, None),
            "servant_points": Pool(0, None, SERVANT_POINTS_FLOOR),
        }
        return CharacterDraft(
            sheet.name, MASTER, {"file": sheet.model_dump(mode="json"), "derived": derived}, pools, created.rolls
        )

    def _build_servant(
        self, data: Mapping[str, Any], master: CharacterSnapshot, dice: DiceSource, options: FatePointsOptions
    ) -> CharacterDraft:
        master_sheet = _master_sheet(master)
        extra = master.pools["servant_points"].current if "servant_points" in master.pools else 0
        sheet = parse_servant(data, master_sheet, extra, options)
        created = create_servant(sheet, master_sheet, extra, dice, options)
        derived = {
            "stats": created.stats,
            "ranks": created.ranks,
            "points": created.points,
            "roll_mod": created.roll_mod,
        }
        pools = {"hp": Pool(created.hp_max, created.hp_max), "prana": Pool(created.prana_max, created.prana_max)}
        return CharacterDraft(
            sheet.name, SERVANT, {"file": sheet.model_dump(mode="json"), "derived": derived}, pools, created.rolls
        )

    def editable(self, kind: str, field: str, *, by_gm: bool) -> bool:
        """A GM edits any field but the name and the Master a Servant is bound to; a player only renames their
        weapons and skills: every other field moves the rules' numbers, which the GM decides."""
        if by_gm:
            root = field.split(".", 1)[0]
            model = MasterSheet if kind == MASTER else ServantSheet
            return root in model.model_fields and root not in ("name", CONTRACT)
        return PLAYER_EDITABLE.match(field) is not None

    def edited_sheet(
        self, character: CharacterSnapshot, file: Mapping[str, Any], options: CampaignOptions, *, by_gm: bool
    ) -> dict[str, Any]:
        """The file validated as at creation, but a GM's edit is an advancement that the creation budgets (R1,
        R2) no longer bind. Nothing is rolled again; a Servant's stats follow its class, steps and EX ranks."""
        rules_options = _options(options)
        derived = dict(character.sheet["derived"])
        if character.kind == MASTER:
            problems = master_problems(file, rules_options)
        else:
            master = character.partner(CONTRACT)
            if master is None:
                raise RuleError("servant_without_master", name=character.name)
            extra = master.pools["servant_points"].current if "servant_points" in master.pools else 0
            problems = servant_problems(file, _master_sheet(master), extra, rules_options)
        if by_gm:
            problems = [problem for problem in problems if problem.code not in CREATION_BUDGETS]
        if problems:
            raise SheetError(problems)
        if character.kind == MASTER:
            return {"file": MasterSheet.model_validate(file).model_dump(mode="json"), "derived": derived}
        sheet = ServantSheet.model_validate(file)
        stats = servant_stats(sheet, rules_options)
        derived.update(stats=stats, ranks={stat: rank_letter(value) for stat, value in stats.items()})
        return {"file": sheet.model_dump(mode="json"), "derived": derived}

    def gm_only_fields(self, kind: str, sheet: Mapping[str, Any]) -> tuple[str, ...]:
        """What the specification leaves to the GM: EX ranks (A3), the per-weapon extra attack penalty (A10), every
        skill's modifiers and cost (A35) and the Noble Phantasms themselves, with their cost adjustments (R16)."""
        file = sheet["file"]
        ex = ", ".join(
            f"{stat} EX" + (f" ({value})" if value else "") for stat, value in file.get("ex_stats", {}).items()
        )
        fields = [f"`ex_stats`: {ex}"] if ex else []
        for index, weapon in enumerate(file.get("weapons", [])):
            if weapon.get("extra_attack_penalty"):
                fields.append(f"`weapons.{index}.extra_attack_penalty`: {weapon['extra_attack_penalty']}")
        for list_name in ("skills", "magecraft"):
            for index, ability in enumerate(file.get(list_name, [])):
                if ability.get("roll_mods"):
                    fields.append(f"`{list_name}.{index}.roll_mods`: {_compact(ability['roll_mods'])}")
                if ability.get("mana_cost") is not None:
                    fields.append(f"`{list_name}.{index}.mana_cost`: {ability['mana_cost']}")
        for index, phantasm in enumerate(file.get("noble_phantasms", [])):
            fields.append(f"`noble_phantasms.{index}`: {self._phantasm_text(NoblePhantasm.model_validate(phantasm))}")
        return tuple(fields)

    def sheet_lines(self, character: CharacterSnapshot, options: CampaignOptions, *, full: bool) -> list[SheetLine]:
        if not full:  # what a player sees of a character the GMs run: its kind, in the title
            return []
        file = character.sheet["file"]
        stats = " · ".join(f"{stat} {rank_letter(value)} ({value})" for stat, value in _stats(character).items())
        lines = [SheetLine("sheet.stats", stats, inline=False)]
        if character.kind == SERVANT:
            lines += [SheetLine("sheet.class", file["servant_class"]), SheetLine("sheet.master", file["master"])]
        else:
            lines.append(SheetLine("sheet.compatibility", str(compatibility(character))))
        weapons = [
            Text("choice.weapon", {"name": weapon["name"], "type": _weapon_type(weapon)})
            for weapon in file.get("weapons", [])
        ]
        lines.append(SheetLine("sheet.weapons", joined(weapons) if weapons else "", inline=False))
        abilities = file.get("skills") or file.get("magecraft") or []
        lines.append(SheetLine("sheet.skills", ", ".join(self._ability_text(ability) for ability in abilities), False))
        if character.kind == SERVANT:
            listed = ", ".join(self._phantasm_text(np) for np in phantasms(character))
            lines.append(SheetLine("sheet.noble_phantasms", listed, inline=False))
        return lines

    @staticmethod
    def _ability_text(ability: Mapping[str, Any]) -> str:
        mods = _compact(ability.get("roll_mods", {}))
        cost = f" ({ability['mana_cost']})" if ability.get("mana_cost") is not None else ""
        return f"{ability['name']} [{mods}]{cost}" if mods else f"{ability['name']}{cost}"

    @staticmethod
    def _phantasm_text(phantasm: NoblePhantasm) -> str:
        try:
            cost = str(np_activation_cost(phantasm))
        except RuleError:  # an EX rank waiting for the GM's cost
            cost = "?"
        return f"{phantasm.name} ({phantasm.rank}, {cost})"

    def check(self, scene: Scene, params: CheckInput) -> Step:
        character = scene.one(ACTOR)
        stat = cast(Stat, params.stat)
        rules_options = _options(scene.options)
        modifiers = (Modifier("gm", params.modifier),) if params.modifier else ()
        value = _stats(character)[stat]
        boosted = (character.state.get("fate") or {}).get("boost") == stat
        if boosted:
            # A24 with no opposing Servant: the stat rises to a Servant's A.
            value = max(value, SERVANT_LEVEL_WITHOUT_TARGET)
        result = check(stat, value, modifiers, params.target, scene.dice, rules_options, by=character.name)
        rolled = CheckRolled(
            name=character.name,
            stat=stat,
            modifier=params.modifier,
            target=params.target,
            score=result.score,
            success=result.success,
            boosted=boosted,
        )
        effects = _spent_fate(ACTOR, character, rules_options, 0) if boosted else []
        return Step(rolls=(result.roll,), effects=tuple(effects), outcomes=(rolled,))

    def attack_actions(self, attacker: CharacterSnapshot) -> list[Choice]:
        file = attacker.sheet["file"]
        actions: list[Choice] = []
        for weapon in file.get("weapons", []):
            types: tuple[AttackType, ...]
            if weapon["type"] == "magic":
                types = ("magical",)
            elif weapon["type"] in RANGED_WEAPONS:
                types = ("melee", "ranged") if weapon["type"] == "dagger" else ("ranged",)
            else:
                types = ("melee",)
            actions += [
                Choice(
                    f"{kind}{ACTION_SEPARATOR}{weapon['name']}",
                    Text(f"attack_choice.{kind}", {"weapon": weapon["name"], "type": _weapon_type(weapon)}),
                )
                for kind in types
            ]
        actions.append(Choice(f"melee{ACTION_SEPARATOR}", Text("attack_choice.unarmed")))
        actions.append(Choice(f"magical{ACTION_SEPARATOR}", Text("attack_choice.sorcery")))
        actions += [
            Choice(
                f"{NP_ACTION}{ACTION_SEPARATOR}{np['name']}",
                Text("attack_choice.np", {"name": np["name"], "rank": np["rank"]}),
            )
            for np in file.get("noble_phantasms", [])
        ]
        return actions

    def _spec(
        self, attacker: CharacterSnapshot, action: str, attacks: int, rank: str | None, confirm: bool
    ) -> AttackSpec:
        kind, name = parse_action(action)
        if kind != NP_ACTION and kind not in ATTACK_TYPES:
            raise RuleError("unknown_action", action=action)
        weapons = attacker.sheet["file"].get("weapons", [])
        # A10: one attack per weapon; one more is the Extra action spent as an attack (reusing a weapon).
        uses_extra = attacks > max(1, len(weapons))
        if kind == NP_ACTION:
            weapon = weapons[0]["name"] if weapons else None
            ruling = attacker.state.get("np_rulings", {}).get(name or "")
            return AttackSpec.from_dict(
                {
                    "attack_type": "melee",
                    "weapon": weapon,
                    "noble_phantasm": name,
                    "attacks_declared": attacks,
                    "rank_used": rank,
                    "confirm_zero_mana": confirm,
                    "np_ruling": ruling,
                    "uses_extra_action": uses_extra,
                    "ex_cost": attacker.state.get("ex_attack_cost"),
                }
            )
        return AttackSpec.from_dict(
            {
                "attack_type": kind,
                "weapon": name,
                "attacks_declared": attacks,
                "rank_used": rank,
                "confirm_zero_mana": confirm,
                "uses_extra_action": uses_extra,
                "ex_cost": attacker.state.get("ex_attack_cost"),
            }
        )

    def attack(self, scene: Scene, params: AttackInput) -> Step:
        """R5: the attack is rolled and paid now; the defender answers later (or at once when it cannot be
        defended, R11)."""
        given = cast(FateAttackInput, params)
        if len(scene.members(DEFENDER)) != 1:
            raise RuleError("one_target")
        attacker, defender = scene.one(ATTACKER), scene.one(DEFENDER)
        rules_options = _options(scene.options)
        turn = scene.turn
        spec = self._spec(attacker, given.action, given.attacks, given.rank, given.confirm)
        active = activated(attacker, turn)
        fighter = combatant(attacker, paid=active)
        kinds = attack_actions(
            noble_phantasm=spec.noble_phantasm is not None,
            paid_beforehand=spec.noble_phantasm in active,
            first_of_round=fighter.state.attack_round != turn.round_number,
            uses_extra=spec.uses_extra_action,
        )
        actions = spend_action(ATTACKER, attacker, *kinds, turn=turn)
        outcome = attack(fighter, combatant(defender), spec, turn.round_number, scene.dice, rules_options)
        if isinstance(outcome, AttackVanished):
            vanished = AttackFaded(
                attacker=attacker.name, defender=defender.name, action=given.action, mana_cost=outcome.mana_cost
            )
            return Step(effects=(*outcome.effects, *actions), outcomes=(vanished,))
        declared = AttackDeclared(
            attacker=attacker.name,
            defender=defender.name,
            action=given.action,
            score=outcome.score,
            crit=outcome.crit,
            mana_cost=outcome.mana_cost,
            auto_hit=outcome.auto_hit,
            round=turn.shown_round,
            cost_kept=self._hidden(attacker),
        )
        effects = (
            *outcome.effects,
            *actions,
            *_spent_fate(ATTACKER, attacker, rules_options, turn.round_number),
            *_used_up_activation(ATTACKER, attacker, turn, spec.noble_phantasm),
        )
        state = Defending(
            attack=outcome, spec=spec, attacker_fate=attacker.state.get("fate") or {}, attacker_activated=active
        )
        rolled = Step(rolls=(outcome.roll,), effects=effects, outcomes=(declared,))
        if not outcome.auto_hit:
            wait = defence_wait(attacker.name, defender.name, outcome.defence_options)
            return Step.of(rolled, pause=Pause(state, (wait,)))
        # R11: nothing to choose, so the hit lands at once.
        return rolled.then(self._land(attacker, defender, state, Answer(DEFENCE_WAIT, option=TAKE), scene))

    def defence(self, scene: Scene, state: Defending, answer: Answer) -> Step:
        attacker, defender = scene.get(ATTACKER), scene.get(DEFENDER)
        if attacker is None or defender is None:
            raise RuleError("fighter_gone")
        weapons = defender.sheet["file"].get("weapons", [])
        # The defender (or, for one they run, the GMs) chooses what it blocks or parries with.
        if answer.option not in (TAKE, "dodge") and len(weapons) > 1:
            prompt = Text(
                "defence.which_weapon", {"defender": defender.name, "choice": Text(f"choice.{answer.option}")}
            )
            options = tuple(Option(choice.value, choice.label) for choice in weapon_choices(defender))
            wait = Wait(WEAPON_WAIT, Audience.character(DEFENDER), prompt, options)
            chosen = ChoosingWeapon(**dict(state), choice=str(answer.option))
            return Step(pause=Pause(chosen, (wait,)))
        return self._land(attacker, defender, state, answer, scene)

    def defence_weapon(self, scene: Scene, state: ChoosingWeapon, answer: Answer) -> Step:
        attacker, defender = scene.get(ATTACKER), scene.get(DEFENDER)
        if attacker is None or defender is None:
            raise RuleError("fighter_gone")
        weapons = defender.sheet["file"].get("weapons", [])
        choice = state.choice
        if answer.option == BEST_WEAPON:
            weapon = best_defence_weapon(
                combatant(attacker, state.attacker_fate, state.attacker_activated),
                combatant(defender, paid=activated(defender, scene.turn)),
                state.spec.attack_type,
                choice,
                _options(scene.options),
            )
        else:
            index = int((answer.option or "w0").removeprefix("w"))
            weapon = weapons[index]["name"] if index < len(weapons) else None
        chosen = Answer(DEFENCE_WAIT, option=choice, by=answer.by, forced=answer.forced)
        return self._land(attacker, defender, state, chosen, scene, weapon=weapon)

    def _land(
        self,
        attacker: CharacterSnapshot,
        defender: CharacterSnapshot,
        state: Defending,
        answer: Answer,
        scene: Scene,
        *,
        weapon: str | None = None,
    ) -> Step:
        rules_options = _options(scene.options)
        round_number = scene.turn.round_number
        resolution = defend(
            combatant(attacker, state.attacker_fate, state.attacker_activated),
            combatant(defender, paid=activated(defender, scene.turn)),
            state.attack,
            state.spec,
            answer.option or TAKE,
            round_number,
            scene.dice,
            rules_options,
            weapon=weapon,
        )
        rolled = resolution.outcome.defence_score is not None
        # A defender taking the hit keeps a Fate/Point and an activation it has not used.
        spent = (
            [
                *_spent_fate(DEFENDER, defender, rules_options, round_number),
                *_used_up_activation(DEFENDER, defender, scene.turn),
            ]
            if rolled
            else []
        )
        bonus_round = resolution.outcome.parry_bonus_round
        shown_bonus_round = None if bonus_round is None else bonus_round - round_number + scene.turn.shown_round
        resolved = AttackResolved(
            attacker=attacker.name,
            defender=defender.name,
            forced=answer.forced,
            # A hidden sheet's stats would show in the damage's terms: the post tells the damage alone.
            result=(
                resolution.outcome.model_copy(update={"damage_terms": None})
                if self._hidden(attacker, defender)
                else resolution.outcome
            ),
            parry_bonus_shown_round=shown_bonus_round,
        )
        return Step(resolution.rolls, (*resolution.effects, *spent), (resolved,))

    def approval(self, scene: Scene, state: FateApproval, answer: Answer) -> Step:
        """A GM's decision on a Fate/Point request: approved, it is spent as if the Master had spent it now."""
        master = scene.one(ACTOR)
        use, stat = state.use, state.stat
        if answer.option != "approve":
            return Step(outcomes=(FateDenied(name=master.name, use=use, stat=stat),))
        return self.spend_fate_point(scene, use, stat, approved_by=answer.by)

    def _hidden(self, *characters: CharacterSnapshot) -> bool:
        return any(self.sheet_hidden(character.gm_run, character.state) for character in characters)

    def acts_on_own_turn(self, options: CampaignOptions) -> bool:
        return _options(options).own_turn_only

    def out_of_play(self, character: CharacterSnapshot) -> str | None:
        return fate(cast(Any, character.kind), character.pools["hp"].current, character.pools["prana"].current)

    def actions_left(self, character: CharacterSnapshot, turn: Turn) -> tuple[Text, ...]:
        left = actions_in_round(stored_actions(character), turn.round_number).left
        return tuple(Text(f"action.{action}") for action in left)

    def turn_started(self, scene: Scene) -> Step | None:
        """R13: a Servant under Mad Enchantment draws its Master's full allowance at each of its turns."""
        character = scene.one(CURRENT)
        master_role = f"{CURRENT}.{CONTRACT}"
        master = scene.get(master_role)
        if character.kind != SERVANT or master is None or not character.sheet["file"].get("mad_enchantment"):
            return None
        drawn = mad_enchantment_draw(
            compatibility(master),
            master.pools["prana"].current,
            character.pools["prana"].current,
            character.pools["prana"].maximum or 0,
        )
        # The draw is the pair's one transfer of the round (A19).
        effects = _recast(drawn.effects, {PAIR_MASTER: master_role, PAIR_SERVANT: CURRENT})
        used = StatePatch(master_role, "transfer_round", scene.turn.round_number)
        draw = MadDraw(name=character.name, result=drawn.outcome, secret=self._hidden(master, character))
        return Step(effects=(*effects, used), outcomes=(draw,))

    def _expire_fate(self, scene: Scene, *, scene_ended: bool) -> Step | None:
        options = _options(scene.options)
        ended = tuple(
            StatePatch(member(EVERYONE, position), "fate", None)
            for position, character in enumerate(scene.members(EVERYONE))
            if _fate_ended(
                character, options, round_number=scene.turn.round_number, used=False, scene_ended=scene_ended
            )
        )
        return Step(effects=ended) if ended else None

    def round_started(self, scene: Scene) -> Step | None:
        return self._expire_fate(scene, scene_ended=False)

    def combat_ended(self, scene: Scene) -> Step | None:
        return self._expire_fate(scene, scene_ended=True)

    def session_started(self, scene: Scene) -> Step | None:
        return self._expire_fate(scene, scene_ended=True)

    def time_passed(self, scene: Scene, hours: int, days: int) -> Step | None:
        """R14: every contracted Servant replenishes from its Master, hour by hour, out of combat."""
        if scene.turn.in_combat:
            raise RuleError("time_in_combat")
        total = hours + HOURS_PER_DAY * days
        steps = []
        for position, servant in enumerate(scene.members(EVERYONE)):
            reference = member(EVERYONE, position)
            master = scene.get(f"{reference}.{CONTRACT}")
            # A Master down at 0 HP (R20) funds nothing until the GMs bring him back.
            if (
                master is None
                or self.out_of_play(servant) is not None
                or self.out_of_play(master) is not None
                or not self.replenishes(servant)
            ):
                continue
            replenished = passive_replenishment(
                total,
                compatibility(master),
                master.pools["prana"].current,
                servant.pools["prana"].current,
                servant.pools["prana"].maximum or 0,
                _options(scene.options),
            )
            effects = _recast(replenished.effects, {PAIR_MASTER: f"{reference}.{CONTRACT}", PAIR_SERVANT: reference})
            shown = Replenished(name=servant.name, result=replenished.outcome, secret=self._hidden(master, servant))
            steps.append(Step(effects=effects, outcomes=(shown,)))
        return Step.of(*steps)

    def replenishes(self, servant: CharacterSnapshot) -> bool:
        """R14 "unless the player specifies otherwise": a player may turn passive replenishment off."""
        return servant.kind == SERVANT and not servant.state.get("passive_off", False)

    def odds(
        self,
        attacker: CharacterSnapshot,
        defender: CharacterSnapshot,
        params: AttackInput,
        options: CampaignOptions,
        turn: Turn,
    ) -> Odds:
        """The exact chance that this attack hits, for each defence the defender could choose, from the defender's
        current staggers and streak. A GM's ruling on a Noble Phantasm may allow only some defences: the others
        are not offered, so not shown."""
        given = cast(FateAttackInput, params)
        spec = self._spec(attacker, given.action, given.attacks, given.rank, confirm=True)
        chances = odds(combatant(attacker), combatant(defender), spec, turn.round_number, _options(options))
        allowed = np_defence_options(spec.np_ruling)
        lines = tuple(
            (Text(f"choice.{choice}"), chance)
            for choice, chance in chances.items()
            if choice in DEFENCE_CHOICES and (chance == 1 or choice in allowed)
        )
        return Odds(lines, Text("odds.footer"))

    # What only Fate/Points has, for its own commands (bot.rulesets.fate_points.cog).

    def transfer(self, scene: Scene, amount: int) -> Step:
        """R12: the pair's one transfer of the round, as the acting one's General action."""
        actor, master, servant = scene.one(ACTOR), scene.one(PAIR_MASTER), scene.one(PAIR_SERVANT)
        moved = transfer_mana(
            compatibility(master),
            master.pools["prana"].current,
            servant.pools["prana"].current,
            servant.pools["prana"].maximum or 0,
            amount,
            master.state.get("transfer_round"),
            scene.turn.round_number,
        )
        effects = (
            *moved.effects,
            *spend_action(ACTOR, actor, "general", turn=scene.turn),
            StatePatch(PAIR_MASTER, "transfer_round", scene.turn.round_number),
        )
        secret = self._hidden(master, servant)
        return Step(effects=effects, outcomes=(Transferred(name=actor.name, result=moved.outcome, secret=secret),))

    def regenerate(self, scene: Scene, hp_points: int, confirm: bool) -> Step:
        """R17: HP for mana, a General action in a fight and free outside one."""
        servant = scene.one(ACTOR)
        if servant.kind != SERVANT:
            raise RuleError("servants_only")
        hp, prana = servant.pools["hp"], servant.pools["prana"]
        healed = regenerate(hp_points, hp.current, hp.maximum or 0, prana.current, _options(scene.options), confirm)
        regenerated = Regenerated(name=servant.name, result=healed.outcome, secret=self._hidden(servant))
        return self._own(scene, healed, regenerated, "general")

    def activate(self, scene: Scene, name: str, use_extra: bool, confirm: bool) -> Step:
        """R16: a Noble Phantasm or a skill with a cost, as a General (or the Extra) action."""
        actor = scene.one(ACTOR)
        file = actor.sheet["file"]
        phantasm = next((np for np in phantasms(actor) if np.name == name), None)
        ability = next((a for a in file.get("skills") or file.get("magecraft") or [] if a["name"] == name), None)
        if phantasm is not None:
            cost = np_activation_cost(phantasm)
        elif ability is not None:
            cost = ability_activation_cost(Ability.model_validate(ability))
        else:
            raise RuleError("unknown_ability", name=name)
        turn = scene.turn
        active = activated(actor, turn)
        if name in active:
            raise RuleError("already_active", name=name)
        paid = activate(cost, actor.pools["prana"].current, confirm, name, kind=cast(Any, actor.kind))
        record = {"round": turn.round_number if turn.in_combat else None, "names": [*active, name]}
        outcome = Activated(
            name=actor.name,
            result=paid.outcome,
            lasts="round" if turn.in_combat else "next_roll",
            phantasm=phantasm is not None,
            secret=self._hidden(actor),
        )
        action = "extra" if use_extra else "general"
        return self._own(scene, paid, outcome, action, StatePatch(ACTOR, "activated", record))

    def move(self, scene: Scene) -> Step:
        actor = scene.one(ACTOR)
        return Step(
            effects=tuple(spend_action(ACTOR, actor, "move", turn=scene.turn)), outcomes=(Moved(name=actor.name),)
        )

    def _own(self, scene: Scene, resolution: Resolution[Any], outcome: Outcome, action: str, *more: Effect) -> Step:
        """A character's own spend, as one of its actions."""
        effects = _recast(resolution.effects, {"actor": ACTOR})
        actions = spend_action(ACTOR, scene.one(ACTOR), action, turn=scene.turn)
        return Step(effects=(*effects, *actions, *more), outcomes=(outcome,))

    def rest(self, scene: Scene) -> Step:
        master = scene.one(ACTOR)
        if master.kind != MASTER:
            raise RuleError("masters_only")
        rested = rest(master.pools["prana"].current, master.pools["prana"].maximum or 0)
        effects = _recast(rested.effects, {PAIR_MASTER: ACTOR})
        return Step(
            effects=effects, outcomes=(Rested(name=master.name, result=rested.outcome, secret=self._hidden(master)),)
        )

    def rule_phantasm(self, scene: Scene, name: str, defences: str | None, damage: int | None) -> Step:
        """The GM's ruling on one NP: which defences it allows and its damage."""
        servant = scene.one(ACTOR)
        if all(np["name"] != name for np in servant.sheet["file"].get("noble_phantasms", [])):
            raise RuleError("no_such_phantasm", servant=servant.name, name=name)
        try:
            ruling = NoblePhantasmRuling.from_dict({"defences": parse_defences(defences), "damage": damage})
        except ValueError as error:
            raise RuleError("bad_ruling", phantasm=name) from error
        rulings = {**servant.state.get("np_rulings", {}), name: ruling.to_dict()}
        ruled = PhantasmRuled(
            name=servant.name, phantasm=name, defences=defences or "normal", damage=damage, ruling=ruling.to_dict()
        )
        return Step(effects=(StatePatch(ACTOR, "np_rulings", rulings),), outcomes=(ruled,))

    def god_hand(self, scene: Scene, minimum: str | None) -> Step:
        character = scene.one(ACTOR)
        if minimum is not None and not is_np_rank(minimum):
            raise RuleError("invalid_rank", rank=minimum)
        return Step(
            effects=(StatePatch(ACTOR, "min_np_rank", minimum),),
            outcomes=(GodHandSet(name=character.name, rank=minimum),),
        )

    def set_ex_cost(self, scene: Scene, cost: int, phantasm: str | None) -> Step:
        """R16: "the amount of mana points required ... will need to be discussed with the current GM": the GM's
        cost of attacks at an EX stat (R15), or of one EX Noble Phantasm."""
        servant = scene.one(ACTOR)
        if servant.kind != SERVANT:
            raise RuleError("servants_only")
        if phantasm is None:
            if all(value <= MAX_STAT for value in _stats(servant).values()):
                raise RuleError("no_ex_stat", name=servant.name)
            patch = StatePatch(ACTOR, "ex_attack_cost", cost)
        else:
            found = next((np for np in phantasms(servant) if np.name.lower() == phantasm.lower()), None)
            if found is None:
                raise RuleError("no_such_phantasm", servant=servant.name, name=phantasm)
            if not found.rank.startswith(EX):
                raise RuleError("not_an_ex_phantasm", name=found.name, rank=found.rank)
            phantasm = found.name
            patch = StatePatch(ACTOR, "np_ex_costs", {**servant.state.get("np_ex_costs", {}), found.name: cost})
        return Step(effects=(patch,), outcomes=(ExCostSet(name=servant.name, phantasm=phantasm, cost=cost),))

    def set_compatibility(self, scene: Scene, modifier: int) -> Step:
        master = scene.one(ACTOR)
        if master.kind != MASTER:
            raise RuleError("masters_only")
        if modifier == int(master.state.get("compat_mod", 0)):
            raise RuleError("compatibility_unchanged", name=master.name, modifier=f"{modifier:+d}")
        value = int(master.sheet["derived"]["compatibility"]) + modifier
        if value < 0:
            raise RuleError("compatibility_below_zero", name=master.name, value=value)
        outcome = CompatibilitySet(name=master.name, modifier=modifier, compatibility=value)
        return Step(effects=(StatePatch(ACTOR, "compat_mod", modifier),), outcomes=(outcome,))

    def set_presence(self, scene: Scene, present: bool) -> Step:
        master = scene.one(ACTOR)
        if master.kind != MASTER:
            raise RuleError("masters_only")
        return Step(
            effects=(StatePatch(ACTOR, "servant_present", present),),
            outcomes=(PresenceSet(name=master.name, present=present),),
        )

    def set_passive(self, scene: Scene, enabled: bool) -> Step:
        servant = scene.one(PAIR_SERVANT)
        return Step(
            effects=(StatePatch(PAIR_SERVANT, "passive_off", not enabled),),
            outcomes=(PassiveSet(name=servant.name, enabled=enabled),),
        )

    def spend_fate_point(self, scene: Scene, use: str, stat: str | None, *, approved_by: int | None = None) -> Step:
        """R19. A round-long effect needs a fight's round; outside one the rules make it last a roll.
        One effect at a time: a second point would silently replace the first."""
        master = scene.one(ACTOR)
        if master.state.get("fate"):
            raise RuleError("fate_already_active", name=master.name)
        round_number = scene.turn.round_number if scene.turn.in_combat else None
        pool = master.pools.get("fate_points")
        spent = spend_fate_point(
            master.kind,
            pool.current if pool else 0,
            use,
            stat,
            round_number=round_number,
            options=_options(scene.options),
        )
        effects = (*_recast(spent.effects, {PAIR_MASTER: ACTOR}), StatePatch(ACTOR, "fate", spent.outcome.effect))
        granted = FateSpent(name=master.name, use=use, stat=stat, effect=spent.outcome.effect, approved_by=approved_by)
        return Step(effects=effects, outcomes=(granted,))

    def request_fate_point(self, scene: Scene, use: str, stat: str | None, requester: int) -> Step:
        """A Fate/Point that waits for a GM's approval (asked by the user `requester`); refused at once if no GM could
        approve it."""
        master = scene.one(ACTOR)
        self.spend_fate_point(scene, use, stat)
        labels = use_words(use, stat)
        decided = {"name": master.name, **labels}
        options = (
            Option("approve", Text("fate.approve"), tone="success", summary=Text("fate.approved", decided)),
            Option("deny", Text("fate.deny"), tone="secondary", summary=Text("fate.denied", decided)),
        )
        prompt = Text("fate.requested", {**decided, "user": UserRef(requester)})
        wait = Wait(APPROVAL_WAIT, Audience.gms(), prompt, options)
        requested = FateRequested(name=master.name, use=use, stat=stat)
        return Step(outcomes=(requested,), pause=Pause(FateApproval(use=use, stat=stat), (wait,)))
