"""Crest Magia offers every answer of a defence, the best first: what a prompt shows first is what adds most."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.crest_magia.fight import NO_SKILL, SPECIALTY, skill_options
from rules.crest_magia.model import MAX_SKILL, MAX_SPECIALTY, SKILLS
from rules.crest_magia.sheets import CharacterFile
from tests.examples import CREST_MAGIA as TEMPLATE

skill_ranks = st.dictionaries(st.sampled_from(SKILLS), st.integers(0, MAX_SKILL))
specialties = st.lists(
    st.tuples(st.sampled_from(SKILLS), st.integers(1, MAX_SPECIALTY)).map(
        lambda pair: {"skill": pair[0], "rank": pair[1]}
    ),
    max_size=40,
)


def _adds(sheet: CharacterFile, key: str) -> int:
    if key == NO_SKILL:
        return 0
    if key.startswith(SPECIALTY):
        specialty = sheet.specialties[int(key.removeprefix(SPECIALTY))]
        return sheet.skill(specialty.skill) + specialty.rank
    return sheet.skill(next(skill for skill in SKILLS if skill.lower() == key))


@settings(max_examples=100, deadline=None)
@given(skill_ranks, specialties)
def test_every_skill_and_specialty_is_offered_the_best_first(
    ranks: dict[str, int], given: list[dict[str, object]]
) -> None:
    sheet = CharacterFile.model_validate({
        **TEMPLATE, "skills": ranks,
        "specialties": [{"name": f"Specialty {index}", **entry} for index, entry in enumerate(given)],
    })  # fmt: skip
    keys = [option.key for option in skill_options(sheet)]
    expected = {skill.lower() for skill, rank in ranks.items() if rank} | {f"{SPECIALTY}{i}" for i in range(len(given))}
    assert sorted(keys) == sorted(expected | {NO_SKILL}) and len(keys) == len(set(keys))
    added = [_adds(sheet, key) for key in keys]
    assert added == sorted(added, reverse=True)
    assert keys[-1] == NO_SKILL
