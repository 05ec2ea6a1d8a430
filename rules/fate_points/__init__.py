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
  step_without_points  {value}                 field "rank_steps.X": a step where there are no Servant points
  final_stat_range     {value, min, max}       field "rank_steps.X": the final stat leaves E..A
  rank_steps_disabled  {points}                field "rank_steps": steps given in servant_points_mode=roll_mods
  invalid              {detail}                any other pydantic error (detail = pydantic's error type)

Rule errors (`RuleError.code` -> params):
  too_many_attacks {declared, max}, attacks_already_declared {declared}, no_attacks_left {declared},
  hold_back_above_rank {rank, max}, hold_back_servants_only {}, invalid_rank {rank},
  ex_attack_cost_missing {}, np_ex_cost_missing {rank}, not_enough_mana {cost, mana},
  confirm_zero_mana {cost, mana}, unknown_weapon {name}, unknown_ability {name},
  unknown_noble_phantasm {name}, no_such_phantasm {servant, name} (a GM's ruling), dead {name},
  target_dead {name}, invalid_defence {choice}, auto_hit {choice},
  defence_not_allowed {choice} (not among the attack's `defence_options`: the GM's NP ruling, or God Hand),
  np_ruling_without_np {} (an AttackSpec.np_ruling without a noble_phantasm);
  actions: unknown_action_kind {action}, action_used {action} (worded per action: neither it nor the Extra one is left);
  mana: invalid_amount {amount} (a transfer/regeneration below 1, a negative activation cost),
  transfer_used {round} (the pair already transferred, or Mad Enchantment drew, this round),
  nothing_to_transfer {} (every cap is 0), invalid_hours {hours}, nothing_to_heal {} (at full HP),
  too_much_healing {requested, missing}, passive_ability {name} (a skill without a mana cost);
  Fate/Points: fate_masters_only {}, unknown_fate_use {use}, boost_needs_stat {}, stat_not_needed {use},
  no_fate_points {}.

Roll labels: creation "hp", "compatibility", "prana_d50", "prana_mag" (Master); "prana_mag", "prana_end",
"prana_luk", "prana_d50", "hp_end" (Servant); combat "attack", "defence", "crit"; `check` "check" (or its label).
Modifier sources on d20 rolls: "stat:<STAT>" (or "fp_boost:<STAT>"), "class", "multi_attack", "weapon_penalty",
"parry_bonus", "ability:<name>", "servant_points", "gm", "weapon:<type>", "carry" (staggers),
"repeat_carry" (the previous defence's repeat penalty), "repeat"; zero terms are left out.

`defend` outcome keys: hit, damage, choice, attack_score, defence_score (None without a roll), staggered,
repeat_penalty, carry, auto_hit, null_damage, crit_bonus, parry_bonus_round (None unless a parry succeeded),
defence_stat and weapon (None without a roll), mana_cost (defender abilities), np_no_effect (an NP below the
defender's `min_np_rank`: no roll, no hit, no damage), defender_fate ("dead" | "down" | None).
An NP attack's `AttackSpec.np_ruling` (NoblePhantasmRuling) limits `defence_options` (plus "take"), makes it an
auto-hit when no defence is allowed, sets the stat it rolls with, and replaces the damage of a hit.

Other outcome keys (effects' `who`: "master"/"servant" for the pair, "actor" for a character's own pools):
  transfer_mana          amount, requested, limited_by ("compatibility" | "master_mana" | "room" | None), round
  mad_enchantment_draw   drawn, gained, wasted
  passive_replenishment  hours, gained, master_paid
  rest                   restored (its effect names the Master: "master")
  regenerate             healed, cost, fate ("dead" | None)
  activate               name, cost, fate ("dead" | None)
  spend_fate_point       use, effect ({"roll_vs_servant": True} | {"boost": STAT}, plus granted_round, duration)
R4 actions are tracked in an `ActionState` (round, left); `use_action` returns it with the action spent.
"""

from rules.fate_points.actions import ACTIONS, ActionState, actions_in_round, attack_actions, use_action
from rules.fate_points.combat import (
    AttackOutcome,
    AttackSpec,
    AttackVanished,
    CheckResult,
    Combatant,
    CombatState,
    attack,
    best_defence_weapon,
    check,
    defend,
    fate,
)
from rules.fate_points.creation import MasterCreation, ServantCreation, create_master, create_servant, quarter_to_5
from rules.fate_points.fate_points import FATE_USES, FateUse, fate_effect_expired, spend_fate_point
from rules.fate_points.model import (
    ATTACK_TYPES,
    CLASS_ATTACK_MOD,
    CLASS_BASE,
    CLASS_MANA_MOD,
    DEFENCE_CHOICES,
    EX,
    MASTER_MAG_POINTS,
    MAX_STAT,
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
    np_rank_key,
    rank_letter,
    rank_value,
    require_mana,
)
from rules.fate_points.odds import odds
from rules.fate_points.options import FatePointsOptions
from rules.fate_points.phantasms import (
    NoblePhantasmRuling,
    ability_activation_cost,
    np_activation_cost,
    np_defence_options,
    np_rank_below,
    np_undefendable,
)
from rules.fate_points.prana import (
    activate,
    mad_enchantment_draw,
    passive_replenishment,
    regenerate,
    rest,
    transfer_mana,
)
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
    "ACTIONS",
    "ATTACK_TYPES",
    "CLASS_ATTACK_MOD",
    "CLASS_BASE",
    "CLASS_MANA_MOD",
    "DEFENCE_CHOICES",
    "EX",
    "FATE_USES",
    "MASTER_MAG_POINTS",
    "MAX_STAT",
    "NP_BASE",
    "ROLL_KINDS",
    "SERVANT_CLASSES",
    "STATS",
    "TAKE",
    "WEAPON_TYPES",
    "Ability",
    "ActionState",
    "AttackOutcome",
    "AttackSpec",
    "AttackType",
    "AttackVanished",
    "CheckResult",
    "CombatState",
    "Combatant",
    "DefenceChoice",
    "FatePointsOptions",
    "FateUse",
    "Kind",
    "MasterCreation",
    "MasterSheet",
    "NoblePhantasm",
    "NoblePhantasmRuling",
    "RollKind",
    "ServantClass",
    "ServantCreation",
    "ServantSheet",
    "SheetError",
    "SheetProblem",
    "Stat",
    "Weapon",
    "WeaponType",
    "ability_activation_cost",
    "actions_in_round",
    "activate",
    "attack",
    "attack_actions",
    "best_defence_weapon",
    "check",
    "create_master",
    "create_servant",
    "defend",
    "fate",
    "fate_effect_expired",
    "is_np_rank",
    "mad_enchantment_draw",
    "master_problems",
    "np_activation_cost",
    "np_cost",
    "np_defence_options",
    "np_rank_below",
    "np_rank_key",
    "np_undefendable",
    "odds",
    "parse_master",
    "parse_servant",
    "passive_replenishment",
    "quarter_to_5",
    "rank_letter",
    "rank_value",
    "regenerate",
    "require_mana",
    "rest",
    "servant_points",
    "servant_problems",
    "servant_stats",
    "spend_fate_point",
    "transfer_mana",
    "use_action",
]
