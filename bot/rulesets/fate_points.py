"""Fate/Points plugged into the shared commands: sheets, creation, checks, attacks and defences.

A character's stored sheet is `{"file": <the validated import file>, "derived": <what the bot rolled>}`;
its state is `{"combat": <CombatState>, "servant_present": bool, "fate": {...}}` (Fate/Point effects).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from fractions import Fraction
from typing import Any, Literal, cast

from bot.rulesets.play import (
    CharacterDraft,
    CharacterSnapshot,
    Choice,
    Declaration,
    Pool,
    SheetLine,
    Turn,
)
from rules.dice import DiceSource
from rules.exchange import Awaiting, Effect, Modifier, Resolution, RuleError, StateUpdate
from rules.fate_points import (
    ATTACK_TYPES,
    STATS,
    TAKE,
    Ability,
    AttackOutcome,
    AttackSpec,
    AttackType,
    Combatant,
    CombatState,
    FatePointsOptions,
    MasterSheet,
    NoblePhantasm,
    ServantSheet,
    Stat,
    attack,
    check,
    create_master,
    create_servant,
    defend,
    fate,
    is_np_rank,
    np_cost,
    odds,
    parse_master,
    parse_servant,
    rank_letter,
)
from rules.fate_points.actions import ActionState, actions_in_round, use_action
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
from rules.options import CampaignOptions

MASTER: Literal["master"] = "master"
SERVANT: Literal["servant"] = "servant"
# GM-awarded extra Servant points (R2) may be negative ("award or deduct"), but not without bound.
SERVANT_POINTS_FLOOR = -10
ACTION_SEPARATOR = "|"
NP_ACTION = "np"
# A24: a stat boosted by a Fate/Point with no opposing Servant rises to rank A.
SERVANT_LEVEL_WITHOUT_TARGET = 5
# Which attack types a weapon offers in the /attack list.
RANGED_WEAPONS = frozenset({"bow", "dagger"})

MASTER_TEMPLATE: dict[str, Any] = {
    "name": "Rin Tohsaka",
    "STR": 2,
    "END": 3,
    "AGI": 3,
    "MAG": 4,
    "LUK": 3,
    "weapons": [{"name": "Gandr", "type": "magic"}, {"name": "Azoth Dagger", "type": "dagger"}],
    "magecraft": [{"name": "Jewel Magecraft", "roll_mods": {"attack:magical": -1}, "mana_cost": 5}],
}
SERVANT_TEMPLATE: dict[str, Any] = {
    "name": "Saber",
    "servant_class": "Saber",
    "master": "Rin Tohsaka",
    "rank_steps": {"MAG": 1},
    "weapons": [{"name": "Invisible Air", "type": "sword"}],
    "skills": [{"name": "Mana Burst", "roll_mods": {"attack:melee": -1}, "mana_cost": 3}],
    "noble_phantasms": [{"name": "Excalibur", "rank": "A++"}],
    "mad_enchantment": False,
}


def _options(options: CampaignOptions) -> FatePointsOptions:
    return cast(FatePointsOptions, options)


def _master_sheet(character: CharacterSnapshot) -> MasterSheet:
    return MasterSheet.model_validate(character.sheet["file"])


def _stats(character: CharacterSnapshot) -> dict[Stat, int]:
    if character.kind == MASTER:
        file = character.sheet["file"]
        return {stat: int(file[stat]) for stat in STATS}
    return {cast(Stat, stat): int(value) for stat, value in character.sheet["derived"]["stats"].items()}


def combatant(character: CharacterSnapshot, fate_effects: Mapping[str, Any] | None = None) -> Combatant:
    """The rules' view of a stored character: sheet, current pools, combat state and Fate/Point effect.

    `fate_effects` overrides the stored effect: an attack keeps the one it was declared with until it resolves.
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
    }
    if character.kind == MASTER:
        sheet = MasterSheet.model_validate(file)
        return Combatant(
            kind=MASTER, weapons=sheet.weapons, abilities=sheet.magecraft,
            servant_present=bool(state.get("servant_present", True)), **common,
        )  # fmt: skip
    servant = ServantSheet.model_validate(file)
    return Combatant(
        kind=SERVANT, servant_class=servant.servant_class, weapons=servant.weapons, abilities=servant.skills,
        noble_phantasms=servant.noble_phantasms, roll_mod=int(character.sheet["derived"].get("roll_mod", 0)),
        **common,
    )  # fmt: skip


def _fate_ended(character: CharacterSnapshot, options: FatePointsOptions, *, round_number: int, used: bool,
                scene_ended: bool = False) -> bool:  # fmt: skip
    effect = character.state.get("fate") or {}
    return bool(effect) and fate_effect_expired(
        effect, used_in_roll=used, round_number=round_number, scene_ended=scene_ended, options=options
    )


def _whole_state(
    character: CharacterSnapshot, effects: tuple[Effect, ...], who: str, options: FatePointsOptions,
    round_number: int, extra: Mapping[str, Any], *, rolled: bool,
) -> StateUpdate:  # fmt: skip
    """The character's whole stored state after the rules' combat-state update, `extra` keys and, when the
    character rolled, a used-up Fate/Point effect (the rules return only the combat part)."""
    state = {**character.state, **extra}
    for effect in effects:
        if isinstance(effect, StateUpdate) and effect.who == who:
            state["combat"] = dict(effect.state)
    if _fate_ended(character, options, round_number=round_number, used=rolled):
        state.pop("fate", None)
    return StateUpdate(who, state)


def _with_states(
    effects: tuple[Effect, ...], fighters: Mapping[str, CharacterSnapshot], options: FatePointsOptions,
    round_number: int, *, rolled: Collection[str], extra: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[Effect, ...]:  # fmt: skip
    """Pool effects as they are, and one whole-state update per fighter the step changed; `rolled` names the
    fighters who rolled (a defender taking the hit keeps a Fate/Point it has not used)."""
    extra = extra or {}
    pools = tuple(effect for effect in effects if not isinstance(effect, StateUpdate))
    states = tuple(
        _whole_state(character, effects, who, options, round_number, extra.get(who, {}), rolled=who in rolled)
        for who, character in fighters.items()
        if who in extra or any(isinstance(effect, StateUpdate) and effect.who == who for effect in effects)
    )
    return pools + states


def stored_actions(character: CharacterSnapshot) -> ActionState | None:
    stored = character.state.get("actions")
    return ActionState.model_validate(stored) if stored else None


def spend_action(character: CharacterSnapshot, kind: str, turn: Turn) -> dict[str, Any]:
    """The `actions` state after spending one action of `kind`; nothing is counted outside a fight."""
    if not turn.in_combat:
        return {}
    actions, _ = use_action(stored_actions(character), kind, turn.round_number)
    return {"actions": actions.model_dump(mode="json")}


StateChanges = Mapping[str, tuple[CharacterSnapshot, Mapping[str, Any]]]


def state_updates(changes: StateChanges) -> tuple[StateUpdate, ...]:
    """One whole-state update per character, whichever roles it plays (the "actor" may also be the "master")."""
    merged: dict[int, tuple[str, dict[str, Any]]] = {}
    for role, (character, extra) in changes.items():
        if extra:
            first_role, state = merged.get(character.id, (role, dict(character.state)))
            merged[character.id] = (first_role, {**state, **extra})
    return tuple(StateUpdate(role, state) for role, state in merged.values())


def with_updates(
    resolution: Resolution, changes: Mapping[str, tuple[CharacterSnapshot, Mapping[str, Any]]]
) -> Resolution:
    return Resolution(resolution.rolls, resolution.effects + state_updates(changes), resolution.outcome)


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


class FatePointsPlay:
    kinds: tuple[str, ...] = (MASTER, SERVANT)
    pool_names: tuple[str, ...] = ("hp", "prana", "fate_points", "servant_points")
    check_stats: tuple[str, ...] = STATS
    template_note_key = "fate_points.template_note"

    def template(self, kind: str) -> dict[str, Any]:
        return dict(MASTER_TEMPLATE if kind == MASTER else SERVANT_TEMPLATE)

    def needs_master(self, kind: str) -> bool:
        return kind == SERVANT

    def build(
        self, kind: str, data: Mapping[str, Any], master: CharacterSnapshot | None, dice: DiceSource,
        options: CampaignOptions,
    ) -> CharacterDraft:  # fmt: skip
        rules_options = _options(options)
        if kind == MASTER:
            return self._build_master(data, dice, rules_options)
        assert master is not None
        return self._build_servant(data, master, dice, rules_options)

    def _build_master(self, data: Mapping[str, Any], dice: DiceSource, options: FatePointsOptions) -> CharacterDraft:
        sheet = parse_master(data, options)
        created = create_master(sheet, dice, options)
        derived = {
            "compatibility": created.compatibility,
            "servant_points": created.servant_points,
        }
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
        derived = {"stats": created.stats, "ranks": created.ranks, "points": created.points,
                   "roll_mod": created.roll_mod}  # fmt: skip
        pools = {"hp": Pool(created.hp_max, created.hp_max), "prana": Pool(created.prana_max, created.prana_max)}
        return CharacterDraft(
            sheet.name, SERVANT, {"file": sheet.model_dump(mode="json"), "derived": derived}, pools, created.rolls
        )

    def sheet_lines(self, character: CharacterSnapshot, options: CampaignOptions) -> list[SheetLine]:
        file = character.sheet["file"]
        derived = character.sheet["derived"]
        stats = " · ".join(f"{stat} {rank_letter(value)} ({value})" for stat, value in _stats(character).items())
        lines = [SheetLine("sheet.stats", stats, inline=False)]
        if character.kind == SERVANT:
            lines += [SheetLine("sheet.class", file["servant_class"]), SheetLine("sheet.master", file["master"])]
        else:
            lines.append(SheetLine("sheet.compatibility", str(derived["compatibility"])))
        weapons = ", ".join(f"{weapon['name']} ({weapon['type']})" for weapon in file.get("weapons", []))
        lines.append(SheetLine("sheet.weapons", weapons, inline=False))
        abilities = file.get("skills") or file.get("magecraft") or []
        lines.append(SheetLine("sheet.skills", ", ".join(self._ability_text(ability) for ability in abilities), False))
        if character.kind == SERVANT:
            phantasms = ", ".join(self._phantasm_text(np) for np in file.get("noble_phantasms", []))
            lines.append(SheetLine("sheet.noble_phantasms", phantasms, inline=False))
        return lines

    @staticmethod
    def _ability_text(ability: Mapping[str, Any]) -> str:
        mods = " ".join(f"{kind} {value:+d}" for kind, value in ability.get("roll_mods", {}).items())
        cost = f" ({ability['mana_cost']})" if ability.get("mana_cost") is not None else ""
        return f"{ability['name']} [{mods}]{cost}" if mods else f"{ability['name']}{cost}"

    @staticmethod
    def _phantasm_text(phantasm: Mapping[str, Any]) -> str:
        rank = str(phantasm["rank"])
        try:
            cost = str(np_cost(rank, int(phantasm.get("gm_cost_adjust", 0)), phantasm.get("ex_cost")))
        except RuleError:  # an EX rank waiting for the GM's cost
            cost = "?"
        return f"{phantasm['name']} ({rank}, {cost})"

    def check(
        self, character: CharacterSnapshot, stat: str, modifier: int, target: int | None, dice: DiceSource,
        options: CampaignOptions,
    ) -> Resolution:  # fmt: skip
        rules_options = _options(options)
        modifiers = (Modifier("gm", modifier),) if modifier else ()
        value = _stats(character)[cast(Stat, stat)]
        boosted = (character.state.get("fate") or {}).get("boost") == stat
        if boosted:
            # A24 with no opposing Servant: the stat rises to a Servant's A.
            value = max(value, SERVANT_LEVEL_WITHOUT_TARGET)
        result = check(value, modifiers, target, dice, rules_options)
        checked = Resolution(
            rolls=(result.roll,), outcome={"score": result.score, "success": result.success, "boosted": boosted}
        )
        if not boosted:
            return checked
        spent = {"fate": None} if _fate_ended(character, rules_options, round_number=0, used=True) else {}
        return with_updates(checked, {"actor": (character, spent)})

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
                Choice(f"{kind}{ACTION_SEPARATOR}{weapon['name']}", f"attack_choice.{kind}",
                       {"weapon": weapon["name"], "type": weapon["type"]})
                for kind in types
            ]  # fmt: skip
        actions.append(Choice(f"melee{ACTION_SEPARATOR}", "attack_choice.unarmed"))
        actions.append(Choice(f"magical{ACTION_SEPARATOR}", "attack_choice.sorcery"))
        actions += [
            Choice(
                f"{NP_ACTION}{ACTION_SEPARATOR}{np['name']}",
                "attack_choice.np",
                {"name": np["name"], "rank": np["rank"]},
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
        if kind == NP_ACTION:
            weapons = attacker.sheet["file"].get("weapons", [])
            weapon = weapons[0]["name"] if weapons else None
            ruling = attacker.state.get("np_rulings", {}).get(name or "")
            return AttackSpec.from_dict({
                "attack_type": "melee", "weapon": weapon, "noble_phantasm": name, "attacks_declared": attacks,
                "rank_used": rank, "confirm_zero_mana": confirm, "np_ruling": ruling,
            })  # fmt: skip
        return AttackSpec.from_dict({
            "attack_type": kind, "weapon": name, "attacks_declared": attacks, "rank_used": rank,
            "confirm_zero_mana": confirm,
        })  # fmt: skip

    def declare_attack(
        self, attacker: CharacterSnapshot, defender: CharacterSnapshot, action: str, attacks: int,
        rank: str | None, confirm: bool, turn: Turn, dice: DiceSource, options: CampaignOptions,
    ) -> Declaration:  # fmt: skip
        rules_options = _options(options)
        round_number = turn.round_number
        spec = self._spec(attacker, action, attacks, rank, confirm)
        fighter = combatant(attacker)
        # The round's declared attacks all share its Attack action (R4/R5): only the first one spends it.
        # A Noble Phantasm is "activated via the general or free moves" instead.
        first_of_round = fighter.state.attack_round != round_number
        kind = "general" if spec.noble_phantasm else "attack"
        actions = spend_action(attacker, kind, turn) if first_of_round or spec.noble_phantasm else {}
        outcome = attack(fighter, combatant(defender), spec, round_number, dice, rules_options)
        declared = Resolution(
            rolls=(outcome.roll,),
            effects=_with_states(
                outcome.effects, {"attacker": attacker, "defender": defender}, rules_options, round_number,
                rolled={"attacker"}, extra={"attacker": actions},
            ),
            outcome={"score": outcome.score, "crit": outcome.crit, "mana_cost": outcome.mana_cost,
                     "auto_hit": outcome.auto_hit, "attacker_fate": outcome.attacker_fate},
        )  # fmt: skip
        state = {"attack": outcome.to_dict(), "spec": spec.to_dict(), "attacker_fate": attacker.state.get("fate") or {}}
        if not outcome.auto_hit:
            return Declaration(declared, Awaiting("defender", outcome.defence_options, state))
        # R11: nothing to choose, so the hit lands at once.
        landed = self.answer(attacker, defender, state, TAKE, round_number, dice, options)
        return Declaration(
            Resolution(
                rolls=declared.rolls + landed.rolls,
                effects=declared.effects + landed.effects,
                outcome={**landed.outcome, **declared.outcome},
            ),
            None,
        )

    def answer(
        self, attacker: CharacterSnapshot, defender: CharacterSnapshot, state: Mapping[str, Any], choice: str,
        round_number: int, dice: DiceSource, options: CampaignOptions,
    ) -> Resolution:  # fmt: skip
        rules_options = _options(options)
        outcome = AttackOutcome.from_dict(state["attack"])
        spec = AttackSpec.from_dict(state["spec"])
        resolution = defend(
            combatant(attacker, state.get("attacker_fate", {})), combatant(defender), outcome, spec, choice,
            round_number, dice, rules_options,
        )  # fmt: skip
        return Resolution(
            rolls=resolution.rolls,
            effects=_with_states(
                resolution.effects,
                {"attacker": attacker, "defender": defender},
                rules_options,
                round_number,
                rolled={"defender"} if resolution.outcome.get("defence_score") is not None else (),
            ),
            outcome=resolution.outcome,
        )

    def out_of_play(self, character: CharacterSnapshot) -> str | None:
        return fate(cast(Any, character.kind), character.pools["hp"].current, character.pools["prana"].current)

    def actions_left(self, character: CharacterSnapshot, round_number: int) -> tuple[str, ...]:
        return actions_in_round(stored_actions(character), round_number).left

    def turn_started(
        self, character: CharacterSnapshot, round_number: int, options: CampaignOptions
    ) -> Resolution | None:
        """R13: a Servant under Mad Enchantment draws its Master's full allowance at each of its turns."""
        master = character.master
        if character.kind != SERVANT or master is None or not character.sheet["file"].get("mad_enchantment"):
            return None
        drawn = mad_enchantment_draw(
            master.sheet["derived"]["compatibility"], master.pools["prana"].current,
            character.pools["prana"].current, character.pools["prana"].maximum or 0,
        )  # fmt: skip
        # The draw is the pair's one transfer of the round (A19).
        used = StateUpdate("master", {**master.state, "transfer_round": round_number})
        return Resolution(
            effects=(*drawn.effects, used),
            outcome={**drawn.outcome, "effect": "mad_enchantment", "name": character.name},
        )

    def round_started(
        self, character: CharacterSnapshot, round_number: int, options: CampaignOptions
    ) -> dict[str, Any] | None:
        if not _fate_ended(character, _options(options), round_number=round_number, used=False):
            return None
        return {key: value for key, value in character.state.items() if key != "fate"}

    def scene_ended(self, character: CharacterSnapshot, options: CampaignOptions) -> dict[str, Any] | None:
        rules_options = _options(options)
        if not _fate_ended(character, rules_options, round_number=0, used=False, scene_ended=True):
            return None
        return {key: value for key, value in character.state.items() if key != "fate"}

    def odds(
        self, attacker: CharacterSnapshot, defender: CharacterSnapshot, action: str, attacks: int, rank: str | None,
        round_number: int, options: CampaignOptions,
    ) -> dict[str, Fraction]:  # fmt: skip
        """The exact chance that this attack hits, for each defence the defender could choose.

        A GM's ruling on a Noble Phantasm may allow only some defences: the others are not offered, so not shown.
        """
        spec = self._spec(attacker, action, attacks, rank, confirm=True)
        chances = odds(combatant(attacker), combatant(defender), spec, round_number, _options(options))
        allowed = np_defence_options(spec.np_ruling)
        return {choice: chance for choice, chance in chances.items() if chance == 1 or choice in allowed}

    def transfer(
        self, actor: CharacterSnapshot, master: CharacterSnapshot, servant: CharacterSnapshot, amount: int,
        turn: Turn,
    ) -> Resolution:  # fmt: skip
        """R12: the pair's one transfer of the round, as the acting one's General action."""
        moved = transfer_mana(
            master.sheet["derived"]["compatibility"], master.pools["prana"].current, servant.pools["prana"].current,
            servant.pools["prana"].maximum or 0, amount, master.state.get("transfer_round"), turn.round_number,
        )  # fmt: skip
        return with_updates(moved, {
            "actor": (actor, spend_action(actor, "general", turn)),
            "master": (master, {"transfer_round": turn.round_number}),
        })  # fmt: skip

    def regenerate(
        self, servant: CharacterSnapshot, hp_points: int, confirm: bool, turn: Turn, options: CampaignOptions
    ) -> Resolution:
        """R17: HP for mana, a General action in a fight and free outside one."""
        if servant.kind != SERVANT:
            raise RuleError("servants_only")
        hp, prana = servant.pools["hp"], servant.pools["prana"]
        healed = regenerate(hp_points, hp.current, hp.maximum or 0, prana.current, _options(options), confirm)
        return with_updates(healed, {"actor": (servant, spend_action(servant, "general", turn))})

    def activate(self, actor: CharacterSnapshot, name: str, use_extra: bool, confirm: bool, turn: Turn) -> Resolution:
        """R16: a Noble Phantasm or a skill with a cost, as a General (or the Extra) action."""
        file = actor.sheet["file"]
        phantasm = next((np for np in file.get("noble_phantasms", []) if np["name"] == name), None)
        ability = next((a for a in file.get("skills") or file.get("magecraft") or [] if a["name"] == name), None)
        if phantasm is not None:
            cost = np_activation_cost(NoblePhantasm.model_validate(phantasm))
        elif ability is not None:
            cost = ability_activation_cost(Ability.model_validate(ability))
        else:
            raise RuleError("unknown_ability", name=name)
        paid = activate(cost, actor.pools["prana"].current, confirm, name, kind=cast(Any, actor.kind))
        return with_updates(paid, {"actor": (actor, spend_action(actor, "extra" if use_extra else "general", turn))})

    def move(self, actor: CharacterSnapshot, turn: Turn) -> Resolution:
        return with_updates(Resolution(), {"actor": (actor, spend_action(actor, "move", turn))})

    def rest(self, master: CharacterSnapshot) -> Resolution:
        if master.kind != MASTER:
            raise RuleError("masters_only")
        return rest(master.pools["prana"].current, master.pools["prana"].maximum or 0)

    def replenishes(self, servant: CharacterSnapshot) -> bool:
        """R14 "unless the player specifies otherwise": a player may turn passive replenishment off."""
        return servant.kind == SERVANT and not servant.state.get("passive_off", False)

    def replenish(
        self, master: CharacterSnapshot, servant: CharacterSnapshot, hours: int, options: CampaignOptions
    ) -> Resolution:
        """R14, for one pair out of combat."""
        return passive_replenishment(
            hours, master.sheet["derived"]["compatibility"], master.pools["prana"].current,
            servant.pools["prana"].current, servant.pools["prana"].maximum or 0, _options(options),
        )  # fmt: skip

    def rule_phantasm(
        self, servant: CharacterSnapshot, name: str, defences: str | None, damage: int | None
    ) -> dict[str, Any]:
        """The servant's state with the GM's ruling on one NP: which defences it allows and its damage."""
        if all(np["name"] != name for np in servant.sheet["file"].get("noble_phantasms", [])):
            raise RuleError("unknown_noble_phantasm", name=name)
        ruling = NoblePhantasmRuling.from_dict({"defences": parse_defences(defences), "damage": damage})
        return {**servant.state, "np_rulings": {**servant.state.get("np_rulings", {}), name: ruling.to_dict()}}

    def god_hand(self, servant: CharacterSnapshot, minimum: str | None) -> dict[str, Any]:
        if minimum is not None and not is_np_rank(minimum):
            raise RuleError("invalid_rank", rank=minimum)
        return {**servant.state, "min_np_rank": minimum}

    def spend_fate_point(
        self, master: CharacterSnapshot, use: str, stat: str | None, turn: Turn, options: CampaignOptions
    ) -> Resolution:
        """R19. A round-long effect needs a fight's round; outside one the rules make it last a roll.
        One effect at a time: a second point would silently replace the first."""
        if master.state.get("fate"):
            raise RuleError("fate_already_active", name=master.name)
        round_number = turn.round_number if turn.in_combat else None
        pool = master.pools.get("fate_points")
        return spend_fate_point(
            master.kind, pool.current if pool else 0, use, stat, round_number=round_number, options=_options(options)
        )
