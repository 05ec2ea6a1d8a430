"""Properties of the anka game's rules: decisions are fair whatever the anchor, commitments bind exactly one secret,
strength only grows with the members' parameters, and command seals stay within their strokes."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from rules.dice.source import FixedDice
from rules.grail_anka import battle, checks, turns
from rules.grail_anka.model import PARAMS, SEAL_RECOVERY

anchors = st.integers(checks.ANCHOR_MIN, checks.ANCHOR_MAX)
parameter_sets = st.fixed_dictionaries({param: st.integers(0, 200) for param in PARAMS})


@given(anchors)
def test_the_value_is_uniform_over_the_secrets_for_any_anchor(anchor: int) -> None:
    values = Counter(checks.value_of(secret, anchor) for secret in range(checks.VALUES))
    assert sorted(values) == list(range(checks.VALUES)) and set(values.values()) == {1}


@given(anchors)
def test_the_third_parameter_is_uniform_for_any_anchor(anchor: int) -> None:
    drawn = Counter(battle.third_parameter(["np", "str"], checks.value_of(secret, anchor)) for secret in range(100))
    assert set(drawn.values()) == {25}


nonces = st.binary(min_size=16, max_size=16)


@given(st.integers(0, 99), st.integers(0, 99), nonces, nonces)
def test_a_commitment_verifies_its_own_secret_and_nonce_only(
    secret: int, other: int, nonce: bytes, other_nonce: bytes
) -> None:
    committed = checks.commit_decision("camp", "d1", FixedDice([secret + 1, *(byte + 1 for byte in nonce)]))
    assert committed.secret == checks.secret_text(secret) and committed.nonce == nonce.hex()
    assert checks.verifies("camp", "d1", committed.secret, committed.nonce, committed.digest)
    if other != secret:
        assert not checks.verifies("camp", "d1", checks.secret_text(other), committed.nonce, committed.digest)
    if other_nonce != nonce:
        assert not checks.verifies("camp", "d1", committed.secret, other_nonce.hex(), committed.digest)
    assert not checks.verifies("camp", "d2", committed.secret, committed.nonce, committed.digest)


@given(parameter_sets, st.lists(parameter_sets, max_size=2), st.sampled_from(PARAMS), st.integers(0, 50),
       st.integers(0, 2))  # fmt: skip
def test_strength_grows_with_every_members_parameters(
    main: dict[str, int], subs: list[dict[str, int]], param: str, more: int, who: int
) -> None:
    before = battle.strength(main, subs)
    if who == 0 or who > len(subs):
        main = {**main, param: main[param] + more}
    else:
        subs = [*subs[: who - 1], {**subs[who - 1], param: subs[who - 1][param] + more}, *subs[who:]]
    after = battle.strength(main, subs)
    assert all(after[name] >= before[name] for name in PARAMS)


@given(st.integers(0, 60))
def test_a_seal_never_takes_fatigue_below_zero(fatigue: int) -> None:
    assert battle.seal_recovery(fatigue) == max(0, fatigue - SEAL_RECOVERY)


@given(st.integers(0, 100), st.booleans(), st.booleans())
def test_fatigue_never_goes_below_zero(fatigue: int, has_master: bool, resting: bool) -> None:
    after = turns.recovered(fatigue, has_master=has_master, resting=resting)
    assert 0 <= after <= fatigue
    assert battle.winner_fatigue(fatigue, 0) >= 0 and battle.seal_recovery(fatigue) >= 0
