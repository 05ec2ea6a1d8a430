"""The decision method (R1, R3): a committed secret 0..99, an anchor 1..100 from someone else, the last two digits
of their sum against a success rate; 00 a fumble, 01 a critical.

Every decision is committed as `sha256("anka-v1|<campaign>|<decision>|<secret as two digits>|<nonce>")` before any
anchor is taken. Whatever the anchor, a uniform secret makes the value uniform over 0..99, so neither the committer
(bound by the digest) nor the anchor giver (who cannot see the secret) can steer it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from rules.commitment import Commitment, commit, hashed_text, verify
from rules.dice.source import DiceSource

ANCHOR_MIN: Final = 1
ANCHOR_MAX: Final = 100
VALUES: Final = 100
SCHEME: Final = "anka-v1"
FUMBLE: Final = 0
CRITICAL: Final = 1


def prefix(campaign: int | str, decision: str) -> str:
    return f"{SCHEME}|{campaign}|{decision}"


def secret_text(secret: int) -> str:
    return f"{secret:02d}"


def commit_decision(campaign: int | str, decision: str, dice: DiceSource) -> Commitment:
    """A fresh secret 0..99 and its commitment (D6, R3)."""
    (face,) = dice.roll(1, VALUES)
    return commit(prefix(campaign, decision), secret_text(face - 1), dice)


def verifies(campaign: int | str, decision: str, secret: str, nonce: str, digest: str) -> bool:
    return verify(prefix(campaign, decision), secret, nonce, digest)


def hashed(campaign: int | str, decision: str, secret: str, nonce: str) -> str:
    """The text a revealed decision's commitment is the SHA-256 of, campaign id included."""
    return hashed_text(prefix(campaign, decision), secret, nonce)


def value_of(secret: int, anchor: int) -> int:
    """The last two digits of secret + anchor; 0 is read as "00"."""
    return (secret + anchor) % VALUES


def shown(value: int) -> str:
    return f"{value:02d}"


@dataclass(frozen=True)
class Verdict:
    value: int
    rate: int
    success: bool
    critical: bool
    fumble: bool


def judge(value: int, rate: int) -> Verdict:
    """R1 and D2: success iff the value is at most the rate; 00 always fails, 01 always succeeds (D3)."""
    fumble, critical = value == FUMBLE, value == CRITICAL
    success = critical or (not fumble and value <= rate)
    return Verdict(value, rate, success, critical, fumble)


def digit(value: int) -> int:
    """The 0-9 of a decision (the fatigue table, D11): its last digit, whatever its 00 or 01."""
    return value % 10


def chances(rate: int) -> dict[str, Fraction]:
    """The exact chance of each reading of a check at `rate`: critical, success (not critical), failure (not a
    fumble), fumble; over the hundred equally likely values."""
    plain = sum(1 for value in range(2, VALUES) if value <= rate)
    return {
        "critical": Fraction(1, VALUES),
        "success": Fraction(plain, VALUES),
        "failure": Fraction(VALUES - 2 - plain, VALUES),
        "fumble": Fraction(1, VALUES),
    }


def survives_vanish(value: int, survive_rate: int, *, critical_fumble_all_checks: bool) -> bool:
    """R14 and D18: a vanish check is an exact (100 - survive_rate)% chance: 00 reads as 100, so a survive rate of
    0 or less always vanishes; with `critical_fumble_all_checks`, 01 survives and 00 vanishes as in any check."""
    if critical_fumble_all_checks:
        return judge(value, survive_rate).success
    return (value or VALUES) <= survive_rate


def survive_chance(survive_rate: int, *, critical_fumble_all_checks: bool) -> Fraction:
    count = sum(
        survives_vanish(value, survive_rate, critical_fumble_all_checks=critical_fumble_all_checks)
        for value in range(VALUES)
    )
    return Fraction(count, VALUES)
