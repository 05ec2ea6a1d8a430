"""The game's rolls, with injected dice: Luck's d20 (R1), action checks (R2), attack rolls (R3), damage (R4, R5),
saves (R6), contradictions (R7), initiative (R24), paying a Servant's costs (R14), the "+" multiplier (R17) and a
masterless Servant's drain (R16)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rules.dice import DiceSource
from rules.exchange import Modifier, Roll, RuleError
from rules.grail_zh.model import ROUNDS_PER_MINUTE
from rules.grail_zh.ranks import Rank
from rules.grail_zh.sheets import Damage

Auto = Literal["success", "failure"] | None
SUCCEEDS_AT = 10  # 「结果如果大于等于10，该次行动成功」


@dataclass(frozen=True)
class D20:
    """A d20 after Luck: every face rolled in order (rerolls included), the one that counts, and whether Luck makes
    the action succeed or fail whatever the total."""

    faces: tuple[int, ...]
    auto: Auto

    @property
    def final(self) -> int:
        return self.faces[-1]

    def roll(self, label: str, modifiers: Sequence[Modifier] = ()) -> Roll:
        total = self.final + sum(modifier.value for modifier in modifiers)
        return Roll(label, 20, self.faces, (self.final,), tuple(modifiers), total, rerolled=len(self.faces) > 1)


def luck_d20(dice: DiceSource, luck: Rank | None, *, optional_rerolls: bool = True) -> D20:
    """R1 and T5. A Master (`luck` None) rolls a plain d20. A Servant's forced rerolls repeat; its optional one is
    taken at most once and the second result stands (D35), unless the player declines them."""
    faces = [dice.roll(1, 20)[0]]
    if luck is None:
        return D20(tuple(faces), None)
    n, x = luck.n, luck.x  # EX counts as A+1 here (D6)
    forced = {1: (19, 20), 2: (20,)}.get(n, ())
    while faces[-1] in forced:
        faces.append(dice.roll(1, 20)[0])
    r = faces[-1]
    may_reroll = (n == 4 and r == 1) or (n == 5 and r <= 2 + x and r < 18 - x)
    if may_reroll and optional_rerolls:
        faces.append(dice.roll(1, 20)[0])
        r = faces[-1]
    auto: Auto = None
    if (n == 1 and r <= 3) or (n == 2 and r <= 2) or (n == 3 and r == 1):
        auto = "failure"
    elif (n == 3 and r == 20) or (n == 4 and r >= 19) or (n == 5 and r >= 18 - x):
        auto = "success"
    return D20(tuple(faces), auto)


def succeeds(d20: D20, total: int, target: int = SUCCEEDS_AT) -> bool:
    """R2: Luck's verdict first, then the total against the target."""
    if d20.auto is not None:
        return d20.auto == "success"
    return total >= target


def range_penalty(distance: int, clairvoyance: int) -> int:
    """R3 and D34: -1 per full 10 squares, after the free range of Clairvoyance (100 squares per X)."""
    return max(0, distance - 100 * clairvoyance) // 10


@dataclass(frozen=True)
class AttackRoll:
    """R3. `before_defense` is the 「攻击投」 that Mind's Eye compares with (D14); `total` the 结果 after the
    target's defence."""

    d20: D20
    modifiers: tuple[Modifier, ...]  # the attacker's side: bonus, range, Instinct...
    defense: int  # subtracted when the target is aware of the attacker
    defend_stance: bool = False  # the target is in the Defend stance: every attack roll hits (R26)

    @property
    def before_defense(self) -> int:
        return self.d20.final + sum(modifier.value for modifier in self.modifiers)

    @property
    def total(self) -> int:
        return self.before_defense - self.defense

    @property
    def hit(self) -> bool:
        return self.defend_stance or succeeds(self.d20, self.total)

    def roll(self) -> Roll:
        defense = (Modifier("defense", -self.defense),) if self.defense else ()
        return self.d20.roll("attack", (*self.modifiers, *defense))


def minds_eye(
    dice: DiceSource, luck: Rank | None, magnitude: int, compared: int, *, optional_rerolls: bool = True
) -> tuple[Roll, bool]:
    """R19 and D14: d20 + (X - 3), strictly above the attack roll, and the attack misses."""
    d20 = luck_d20(dice, luck, optional_rerolls=optional_rerolls)
    roll = d20.roll("minds_eye", (Modifier("minds_eye", magnitude - 3),) if magnitude != 3 else ())
    return roll, roll.total > compared


def damage_roll(
    dice: DiceSource, damage: Damage, label: str, extra: Sequence[Modifier] = (), *, maximal: bool = False
) -> Roll:
    """The damage dice and their bonus; `maximal` takes every die at its maximum (an Assassin on an unaware target,
    R4; a sniper after 30 rounds of aim, R29) and rolls nothing."""
    faces = (damage.sides,) * damage.count if maximal else tuple(dice.roll(damage.count, damage.sides))
    modifiers = ((Modifier("damage_bonus", damage.bonus),) if damage.bonus else ()) + tuple(extra)
    return Roll(label, damage.sides, faces, faces, modifiers, sum(faces) + sum(m.value for m in modifiers))


def plus_multiplier(pluses: int, mode: str) -> int:
    """R17 and D20: ×(1+n), or ×2ⁿ with `plus_mode = pow2`."""
    return 2**pluses if mode == "pow2" else 1 + pluses


@dataclass(frozen=True)
class Reductions:
    """What R5 takes off rolled damage, in its order."""

    multiplier: int = 1  # a "+" released (R17)
    halved: bool = False  # a save's half, or a one-shot's splash on an evasion
    defend: int | None = None  # the Defend stance: half, then minus CON or END (R26)
    flat: int = 0  # Magic Resistance 5X, resistance 5X, Military Tactics X


def damage_taken(rolled: int, reductions: Reductions) -> int:
    """R5 (E14): multipliers, halving, the Defend stance, flat reductions, never below 0."""
    amount = rolled * reductions.multiplier
    if reductions.halved:
        amount //= 2
    if reductions.defend is not None:
        amount = amount // 2 - reductions.defend
    return max(0, amount - reductions.flat)


@dataclass(frozen=True)
class Split:
    temp_hp: int  # taken by temporary HP first
    hp: int


def split_damage(amount: int, temp_hp: int) -> Split:
    from_temp = min(temp_hp, amount)
    return Split(from_temp, amount - from_temp)


SaveOutcome = Literal["full", "half", "none"]


def save_dc(source: int, target: int, *, tactics: int = 0) -> int:
    """R6: (the source's rank + 1 - the target's rank) × 5, each rank as its one number (E..A 1..5, EX 6: D6);
    Military Tactics moves an anti-army NP's DC (`tactics`)."""
    return (source + 1 - target) * 5 + tactics


@dataclass(frozen=True)
class Save:
    roll: Roll
    dc: int
    d20: D20

    @property
    def margin(self) -> int:
        return self.roll.total - self.dc

    @property
    def outcome(self) -> SaveOutcome:
        """D28: a margin of 0 or less takes it all, 1..5 half, 6 or more none; Luck decides first."""
        if self.d20.auto == "failure":
            return "full"
        if self.d20.auto == "success" or self.margin >= 6:
            return "none"
        return "half" if self.margin >= 1 else "full"


def save(
    dice: DiceSource,
    luck: Rank | None,
    dc: int,
    bonus: Sequence[Modifier] = (),
    *,
    optional_rerolls: bool = True,
    name: str = "",
) -> Save:
    """R6 (E12): a d20 with Luck's rerolls, plus Magic Resistance against magecraft (`bonus`); its roll labelled
    with the `name` of whoever saves, where several save against one effect."""
    d20 = luck_d20(dice, luck, optional_rerolls=optional_rerolls)
    return Save(d20.roll(f"save:{name}" if name else "save", bonus), dc, d20)


@dataclass(frozen=True)
class InitiativeEntry:
    key: int  # the character's id
    bonus: int  # dex or AGI.n
    luck: Rank | None  # a Servant's, for its rerolls
    luck_n: int  # the second tie-breaker (a Master's is 0)
    name: str = ""  # shown on its roll


@dataclass(frozen=True)
class Initiative:
    order: tuple[tuple[int, ...], ...]  # groups acting in turn; several in one group act at the same time
    rolls: tuple[tuple[int, Roll], ...]


def initiative(dice: DiceSource, entries: Sequence[InitiativeEntry]) -> Initiative:
    """R24 (E15): d20 (R1) + dex or AGI; ties to the higher dex/AGI, then to the higher Luck, then together."""
    rolled = []
    for entry in entries:
        label = f"initiative:{entry.name}" if entry.name else "initiative"
        roll = luck_d20(dice, entry.luck).roll(label, (Modifier("initiative", entry.bonus),))
        rolled.append((entry, roll))
    ranked: dict[tuple[int, int, int], list[int]] = {}
    for entry, roll in rolled:
        ranked.setdefault((roll.total, entry.bonus, entry.luck_n), []).append(entry.key)
    order = tuple(tuple(ranked[key]) for key in sorted(ranked, reverse=True))
    return Initiative(order, tuple((entry.key, roll) for entry, roll in rolled))


def contradiction(
    dice: DiceSource,
    first: Rank,
    second: Rank,
    luck: tuple[Rank | None, Rank | None],
    labels: tuple[str, str] = ("contradiction", "contradiction"),
) -> tuple[bool, tuple[Roll, ...]]:
    """R7: the higher mystery wins; equal mysteries roll d20s (with Luck) until one is higher, each side's roll
    under its label. True: the first wins."""
    if first.mystery != second.mystery:
        return first.mystery > second.mystery, ()
    rolls: list[Roll] = []
    while True:
        a, b = luck_d20(dice, luck[0]).roll(labels[0]), luck_d20(dice, luck[1]).roll(labels[1])
        rolls += (a, b)
        if a.total != b.total:
            return a.total > b.total, tuple(rolls)


@dataclass(frozen=True)
class Payment:
    """A Servant's cost paid (R14): what its Master gave, and the pools after."""

    servant_mp: int
    master_mp: int | None
    from_master: int  # MP the Master spent; the Servant gained twice as much
    vanished: bool  # the Servant's MP reached 0 (「会立刻消失」)


def pay(
    cost: int, servant_mp: int, master_mp: int | None, *, from_master: bool, forced: bool, fatal: bool = False
) -> Payment:
    """R14 (E7, E16). The Servant pays from its own MP while it keeps at least 1; else its Master (`master_mp`,
    None without one who can give: dead, an ordinary human, too far) gives ceil(need/2) for twice as much, as long
    as the Master keeps 1 MP. A forced cost (upkeep) is then paid whatever is left, and the Servant vanishes at 0;
    a voluntary one that would bring it to 0 is refused unless the player confirms it (`fatal`, D18)."""
    gave = 0
    if servant_mp - cost < 1 and from_master and master_mp is not None:
        need = math.ceil((cost - servant_mp + 1) / 2)
        if master_mp - need >= 1:
            gave = need
    servant_mp += 2 * gave
    if servant_mp - cost < 1 and not (forced or fatal):
        raise RuleError("grail_cost_fatal", cost=cost, mp=servant_mp)
    left = max(0, servant_mp - cost)
    return Payment(left, None if master_mp is None else master_mp - gave, gave, left == 0)


def transfer(master_mp: int, amount: int, servant_mp: int, servant_max: int) -> tuple[int, int]:
    """R14's manual transfer (E16): the Master pays `amount`, the Servant gains twice that, never above its maximum
    (D43); what would not fit is not taken. Returns (MP the Master pays, MP the Servant gains)."""
    room = max(0, servant_max - servant_mp)
    paid = min(amount, math.ceil(room / 2))
    return paid, min(2 * paid, room)


def masterless_drain(mp_max: int, rounds: int) -> int:
    """R16 under `masterless_rule = drain` (D7): 「每分钟会流失最大魔力值的10%」, a tenth of the MP maximum (rounded up)
    at the end of each whole minute (D8: 10 rounds) of the `rounds` since the Master died; none in between."""
    if rounds <= 0 or rounds % ROUNDS_PER_MINUTE:
        return 0
    return math.ceil(mp_max / 10)
