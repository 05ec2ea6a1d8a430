"""The anka game's constants: the six parameters, the win-rate table (T1), the fatigue table (T2), talismans (T5),
and the shape of skills, Noble Phantasms and mystic codes."""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Literal

# Source order 筋耐速魔運宝: the order a random third parameter is drawn from (R6).
PARAMS: Final = ("str", "end", "agi", "mag", "luk", "np")
Param = Literal["str", "end", "agi", "mag", "luk", "np"]

AUTO_WIN: Final = "auto_win"
AUTO_LOSE: Final = "auto_lose"

# T1: (advantages, disadvantages) of side A over the three chosen parameters -> its win rate.
WIN_RATE_TABLE: Final[dict[tuple[int, int], int | str]] = {
    (0, 0): 50,
    (0, 1): 40,
    (0, 2): 20,
    (0, 3): AUTO_LOSE,
    (1, 0): 60,
    (1, 1): 50,
    (1, 2): 30,
    (2, 0): 80,
    (2, 1): 70,
    (3, 0): AUTO_WIN,
}

# T2: the last digit of a winner's decision -> its fatigue change, and the source's words for it.
FATIGUE_TABLE: Final = (-1, 0, 0, 1, 1, 1, 2, 2, 3, 5)
FATIGUE_MOODS: Final = ("refreshed", "fine", "fine", "tired", "tired", "tired", "worn", "worn", "spent", "overspent")

COMMAND_SEALS: Final = 3
# A Servant this fatigued at a battle's start uses no skill that costs fatigue, retreat skills aside (R9).
FATIGUE_LOCK: Final = 7
# A loser survives its vanish check at 70 - 5 x fatigue percent (R14); a masterless Servant at 100 - 5 x turns.
SURVIVE_BASE: Final = 70
VANISH_PER_FATIGUE: Final = 5
# A retreat after a loss costs 3 fatigue, except through an improved substitute talisman.
RETREAT_FATIGUE: Final = 3
SEAL_RECOVERY: Final = 6  # R18: one stroke takes 6 fatigue off one's own Servant
UNDO_VANISH_SEALS: Final = 2


class SkillKind(StrEnum):
    NORMAL = "normal"
    SPECIAL = "special"
    NP = "np"
    MYSTIC_CODE = "mystic_code"
    ADV_MYSTIC_CODE = "adv_mystic_code"


class Timing(StrEnum):
    SETUP = "setup"
    MAIN = "main"
    CLEANUP = "cleanup"
    POST_BATTLE = "post_battle"
    PASSIVE = "passive"


class SkillTag(StrEnum):
    ASSASSINATION = "assassination"
    RETREAT = "retreat"
    COMPANION_OK = "companion_ok"


class Talisman(StrEnum):
    ILLUSION = "illusion"
    ILLUSION_KAI = "illusion_kai"
    SUBSTITUTE = "substitute"
    SUBSTITUTE_KAI = "substitute_kai"


# What cancels what (R11, T4): an illusion talisman and a counter-skill reach normal skills and mystic codes; only
# the improved illusion talisman reaches Noble Phantasms and advanced mystic codes; nothing reaches a special skill.
CANCELLED_BY_ILLUSION: Final = frozenset({SkillKind.NORMAL, SkillKind.MYSTIC_CODE})
CANCELLED_BY_ILLUSION_KAI: Final = CANCELLED_BY_ILLUSION | {SkillKind.NP, SkillKind.ADV_MYSTIC_CODE}
