"""Commit-reveal: the digest fixes the secret, and the nonce comes from the injected dice."""

from __future__ import annotations

import hashlib

from rules.commitment import NONCE_BYTES, commit, digest_of, verify
from rules.dice import FixedDice, SeededDice


def test_the_digest_is_sha256_of_prefix_secret_and_nonce() -> None:
    made = commit("anka-v1|1|7", "42", FixedDice(list(range(1, NONCE_BYTES + 1))))
    assert made.nonce == bytes(range(NONCE_BYTES)).hex()
    assert made.digest == hashlib.sha256(f"anka-v1|1|7|42|{made.nonce}".encode()).hexdigest()
    assert digest_of("anka-v1|1|7", "42", made.nonce) == made.digest


def test_a_changed_secret_or_nonce_does_not_verify() -> None:
    made = commit("p", "07", SeededDice(3))
    assert verify("p", "07", made.nonce, made.digest)
    assert not verify("p", "08", made.nonce, made.digest)
    assert not verify("p", "07", "00" * NONCE_BYTES, made.digest)
    assert not verify("q", "07", made.nonce, made.digest)
