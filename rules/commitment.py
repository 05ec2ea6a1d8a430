"""Commit-reveal: a secret fixed before anyone else speaks, provably unchanged when it is shown.

The committer publishes `digest = sha256(f"{prefix}|{secret}|{nonce}")` first; once the others have
answered, it reveals secret and nonce, and anyone can hash them again. The nonce (128 random bits) makes a
small secret impossible to guess from its digest. Randomness comes from the dice source, so tests fix it
and production draws it from the system's secure generator.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from rules.dice.source import DiceSource

NONCE_BYTES = 16


@dataclass(frozen=True)
class Commitment:
    secret: str
    nonce: str
    digest: str


def hashed_text(prefix: str, secret: str, nonce: str) -> str:
    """The exact text whose SHA-256 is the digest: what anyone hashes again to check a revealed secret."""
    return f"{prefix}|{secret}|{nonce}"


def digest_of(prefix: str, secret: str, nonce: str) -> str:
    return hashlib.sha256(hashed_text(prefix, secret, nonce).encode()).hexdigest()


def draw_nonce(dice: DiceSource) -> str:
    return bytes(face - 1 for face in dice.roll(NONCE_BYTES, 256)).hex()


def commit(prefix: str, secret: str, dice: DiceSource) -> Commitment:
    nonce = draw_nonce(dice)
    return Commitment(secret, nonce, digest_of(prefix, secret, nonce))


def verify(prefix: str, secret: str, nonce: str, digest: str) -> bool:
    return hmac.compare_digest(digest_of(prefix, secret, nonce), digest)
