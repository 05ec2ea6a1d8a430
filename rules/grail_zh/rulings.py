"""A GM's call when two abilities contradict each other (R7): the higher mystery prevails, and equal ones are
settled by each side's d20 with its Luck, rolled again on a tie."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.exchange import Outcome, RuleError, Step, Text
from rules.grail_zh.model import SKILLS, STATS
from rules.grail_zh.ranks import Rank
from rules.grail_zh.rolls import contradiction
from rules.grail_zh.stored import (
    grail_options,
    luck_of,
    servant_file,
    servant_like,
    servant_of,
    target_text,
)
from rules.play import ACTOR, OPPONENT, CharacterSnapshot, Scene
from rules.words import Spelling


class Contradicted(Outcome):
    event = "mystery.contradiction"
    first: str
    first_ability: str
    second: str
    second_ability: str
    first_wins: bool
    by_dice: bool  # equal mysteries: the d20s decided


def contradiction_words(payload: Mapping[str, Any]) -> dict[str, str | int | Text]:
    """A ruling's names in the reader's words (a skill the rules know by its name, not its identifier), and who
    prevailed with what."""
    first, second = (str(payload[key]) for key in ("first", "second"))
    abilities = [target_text(str(payload[key])) for key in ("first_ability", "second_ability")]
    winner = 0 if payload.get("first_wins") else 1
    return {
        "first": first,
        "first_ability": abilities[0],
        "second": second,
        "second_ability": abilities[1],
        "winner": (first, second)[winner],
        "ability": abilities[winner],
    }


def ability_rank(character: CharacterSnapshot, ability: str, scene: Scene, spelling: Spelling) -> tuple[str, Rank]:
    """The ability a ruling names, as the sheet writes it, and its rank: a Noble Phantasm, a skill (a class
    ability too; in any of the game's languages) or a stat."""
    if servant_like(character):
        phantasm = servant_file(character).phantasm(ability)
        if phantasm is not None:
            return phantasm.name, phantasm.rank
        stats = servant_of(character, scene.options)
        stat = spelling("stat", STATS, ability)
        if stat in STATS:
            return str(stat), stats.ranks[stat]
        named = str(spelling("skill", SKILLS, ability))
        skill = stats.skill(named) or next((s for s in stats.skills if s.name.casefold() == named.casefold()), None)
        if skill is not None:
            return skill.name, skill.rank
    raise RuleError("grail_no_ability", name=character.name, ability=ability)


def contradict(scene: Scene, first_ability: str, second_ability: str, spelling: Spelling) -> Step:
    """R7 between the actor's ability and the opponent's. What prevails is told, not the ranks that decided it."""
    grail_options(scene.options)
    first, second = scene.one(ACTOR), scene.one(OPPONENT)
    if first.id == second.id:
        raise RuleError("grail_contradict_self", name=first.name)
    first_name, first_rank = ability_rank(first, first_ability, scene, spelling)
    second_name, second_rank = ability_rank(second, second_ability, scene, spelling)
    first_wins, rolls = contradiction(
        scene.dice,
        first_rank,
        second_rank,
        (luck_of(first), luck_of(second)),
        (f"contradiction:{first.name}", f"contradiction:{second.name}"),
    )
    ruled = Contradicted(
        first=first.name,
        first_ability=first_name,
        second=second.name,
        second_ability=second_name,
        first_wins=first_wins,
        by_dice=bool(rolls),
    )
    return Step(rolls=rolls, outcomes=(ruled,))
