"""Fate/Points: d20 roll-under, Masters and Servants (rules/fate_points.md).

Sheet problems (`SheetProblem.code` -> params; `field` is a dotted path such as "STR" or "weapons.1.type"):
  unknown_field        {}                      a field the format does not have
  derived_field        {}                      a rolled/computed value typed in (see sheets.DERIVED_FIELDS and,
                                               for Servants, SERVANT_DERIVED_FIELDS: also STR..LUK)
  missing              {}                      a required field is absent
  wrong_type           {expected}              expected: integer | text | boolean | list | mapping
  invalid_choice       {value, choices}        choices: comma-separated accepted values
  empty                {}                      an empty name
  out_of_range         {value, min, max}       a number outside its bounds (Master stats 1..5...)
  invalid_rank         {value}                 not an NP rank like A, B+, C-- or EX
  duplicate_name       {name}                  two weapons/abilities/NPs with the same name
  budget               {total, expected}       field "stats": Master stats must sum to the budget (R1)
  master_mismatch      {value, expected}       field "master": not the Master's name
  step_sum             {total, expected}       field "rank_steps": steps must sum to the Servant points (R2)
  step_sign            {value, points}         field "rank_steps.X": a step against the sign of the points
  final_stat_range     {value, min, max}       field "rank_steps.X": the final stat leaves E..A
  rank_steps_disabled  {points}                field "rank_steps": steps given in servant_points_mode=roll_mods
  invalid              {detail}                any other pydantic error (detail = pydantic's error type)

Rule errors (`RuleError.code` -> params):
  too_many_attacks {declared, max}, attacks_already_declared {declared}, no_attacks_left {declared},
  hold_back_above_rank {rank, max}, hold_back_servants_only {}, invalid_rank {rank},
  ex_attack_cost_missing {}, np_ex_cost_missing {rank}, not_enough_mana {cost, mana},
  confirm_zero_mana {cost, mana}, unknown_weapon {name}, unknown_ability {name},
  unknown_noble_phantasm {name}, dead {name}, target_dead {name}, invalid_defence {choice}, auto_hit {choice}.

Roll labels: creation "hp", "compatibility", "prana_d50", "prana_mag" (Master); "prana_mag", "prana_end",
"prana_luk", "prana_d50", "hp_end" (Servant); combat "attack", "defence", "crit"; `check` "check" (or its label).
Modifier sources on d20 rolls: "stat:<STAT>" (or "fp_boost:<STAT>"), "class", "multi_attack", "weapon_penalty",
"parry_bonus", "ability:<name>", "servant_points", "gm", "weapon:<type>", "carry", "repeat"; zero terms are left out.

`defend` outcome keys: hit, damage, choice, attack_score, defence_score (None without a roll), staggered,
repeat_penalty, carry, auto_hit, null_damage, crit_bonus, parry_bonus_round (None unless a parry succeeded),
defence_stat and weapon (None without a roll), mana_cost (defender abilities), defender_fate ("dead" | "down" | None).
"""

from rules.fate_points.combat import (
    AttackOutcome,
    AttackSpec,
    CheckResult,
    Combatant,
    CombatState,
    attack,
    check,
    defend,
    fate,
)
from rules.fate_points.creation import MasterCreation, ServantCreation, create_master, create_servant, quarter_to_5
from rules.fate_points.model import (
    ATTACK_TYPES,
    CLASS_ATTACK_MOD,
    CLASS_BASE,
    CLASS_MANA_MOD,
    DEFENCE_CHOICES,
    MASTER_MAG_POINTS,
    NP_BASE,
    ROLL_KINDS,
    SERVANT_CLASSES,
    STATS,
    TAKE,
    WEAPON_TYPES,
    AttackType,
    DefenceChoice,
    Kind,
    RollKind,
    ServantClass,
    Stat,
    WeaponType,
    is_np_rank,
    np_cost,
    rank_letter,
    rank_value,
)
from rules.fate_points.odds import odds
from rules.fate_points.options import FatePointsOptions
from rules.fate_points.sheets import (
    Ability,
    MasterSheet,
    NoblePhantasm,
    ServantSheet,
    Weapon,
    master_problems,
    parse_master,
    parse_servant,
    servant_points,
    servant_problems,
    servant_stats,
)
from rules.sheets import SheetError, SheetProblem

__all__ = [
    "ATTACK_TYPES",
    "CLASS_ATTACK_MOD",
    "CLASS_BASE",
    "CLASS_MANA_MOD",
    "DEFENCE_CHOICES",
    "MASTER_MAG_POINTS",
    "NP_BASE",
    "ROLL_KINDS",
    "SERVANT_CLASSES",
    "STATS",
    "TAKE",
    "WEAPON_TYPES",
    "Ability",
    "AttackOutcome",
    "AttackSpec",
    "AttackType",
    "CheckResult",
    "CombatState",
    "Combatant",
    "DefenceChoice",
    "FatePointsOptions",
    "Kind",
    "MasterCreation",
    "MasterSheet",
    "NoblePhantasm",
    "RollKind",
    "ServantClass",
    "ServantCreation",
    "ServantSheet",
    "SheetError",
    "SheetProblem",
    "Stat",
    "Weapon",
    "WeaponType",
    "attack",
    "check",
    "create_master",
    "create_servant",
    "defend",
    "fate",
    "is_np_rank",
    "master_problems",
    "np_cost",
    "odds",
    "parse_master",
    "parse_servant",
    "quarter_to_5",
    "rank_letter",
    "rank_value",
    "servant_points",
    "servant_problems",
    "servant_stats",
]
