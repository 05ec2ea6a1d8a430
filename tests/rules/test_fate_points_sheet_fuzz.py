"""Any file a player can write gets field-by-field problems or a sheet, never a crash."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.fate_points import FatePointsOptions, parse_master, parse_servant
from rules.fate_points.sheets import MasterSheet
from rules.sheets import SheetError

OPTIONS = FatePointsOptions()
MASTER = MasterSheet.model_validate({"name": "Rin", "STR": 3, "END": 3, "AGI": 3, "MAG": 3, "LUK": 3})
FIELDS = ["name", "STR", "END", "AGI", "MAG", "LUK", "weapons", "magecraft", "skills", "servant_class", "master",
          "rank_steps", "ex_stats", "noble_phantasms", "mad_enchantment", "hp", "type", "rank"]  # fmt: skip
plain = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.sampled_from(["Saber", "sword", "A+", "EX", "melee", "attack:melee"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=5), inner,
                                                                max_size=4),
    max_leaves=12,
)  # fmt: skip
files = st.dictionaries(st.sampled_from(FIELDS), plain, max_size=8)


def _either(parse: Any, data: dict[str, Any]) -> None:
    try:
        parse(data)
    except SheetError as refused:
        assert refused.problems, "a refusal names at least one field"


@settings(max_examples=300)
@given(files)
def test_a_master_file_never_crashes(data: dict[str, Any]) -> None:
    _either(lambda d: parse_master(d, OPTIONS), data)


@settings(max_examples=300)
@given(files)
def test_a_servant_file_never_crashes(data: dict[str, Any]) -> None:
    _either(lambda d: parse_servant(d, MASTER, 0, OPTIONS), data)
