"""Masters and Servants as the bot stores them, and the values the rules derive from them.

A Master's sheet is `{"file": <its validated file>}`; a Servant's also keeps `derived.ranks`, its effective ranks
when it was summoned (R9 needs its Master's attributes, and a Servant outlives its Master). The GMs' creatures
have kinds of their own: a puppet (R22, D33) rolls as a Servant, a familiar (R21) as a mortal with no stats.
Pools: `hp`, `mp` and `temp_hp` for every kind. A character's `fate` state is "dead" (a Master, D24) or
"vanished" (a Servant, R16); `continuing` holds the round at which a Servant's Battle Continuation ends (R19).
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

from bot.rulesets.base import CharacterSnapshot
from bot.rulesets.words import as_written
from rules.exchange import Outcome, Text
from rules.grail_zh.characters import MasterStats, ServantStats, master_stats, plus_on, stats_at
from rules.grail_zh.model import ATTRIBUTES, CLASS_TABLE, FAMILIAR_SPEED, SKILLS, STATS, Attribute, Stat
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.ranks import Rank
from rules.grail_zh.rolls import plus_multiplier
from rules.grail_zh.sheets import FamiliarFile, MasterFile, PuppetFile, ServantFile
from rules.options import CampaignOptions

CATALOGS = resources.files("bot.rulesets.grail_zh") / "i18n"
MASTER, SERVANT = "master", "servant"
PUPPET, FAMILIAR = "puppet", "familiar"  # creatures only a GM makes
CONTRACT = "contract"  # a Servant's bond to its Master
HP, MP, TEMP_HP = "hp", "mp", "temp_hp"
FATE = "fate"
DEAD, VANISHED = "dead", "vanished"
CONTINUING = "continuing"
DYING = "dying"  # the state key of the round at which a character at 0 HP dies, with `dying_rounds` (D24)
DOWN = "down"  # its fate meanwhile: out of the fight, not yet out of the war
UNAWARE = "unaware"  # the state key of a character a GM ruled unaware of its attackers
SPIRIT_FORM = "spirit_form"  # the state key of a Servant in spirit form (R23)
BOOST = "rank_boost"  # the state key of a fight's rank boost: {"stat", "ranks"}
PLUS_ACTIVE = "plus_active"  # the state key of a passive "+" that is on: {"target", "pluses", "until", "extra"}
DEFENDING = "defending"  # the state key of the round its Defend stance began (R26)
UPKEEP_UNPAID = "upkeep_unpaid"  # the state key of a fight whose combat upkeep it could not pay (D19)
# What /check takes: a Master's six attributes and a Servant's five stats, each by one upper-case word.
CHECK_WORDS: dict[str, Attribute | Stat] = {
    **{attribute.upper(): attribute for attribute in ATTRIBUTES}, **{stat: stat for stat in STATS}
}  # fmt: skip


Tale = tuple[Text | None, list[Text]]


class Told(Outcome):
    """An outcome that says itself: a headline (the step's title when it comes first, else one of its lines) and
    the lines that follow it."""

    def told(self) -> Tale:
        return None, []


def target_text(target: str) -> Text | str:
    """What a "+" is on: a stat or a skill by its name in the reader's words, or a Servant's own skill as written."""
    if target in STATS:
        return Text(f"stat.{target}")
    return Text(f"skill.{target}") if target in SKILLS else target


def grail_options(options: CampaignOptions) -> GrailZhOptions:
    if not isinstance(options, GrailZhOptions):
        raise TypeError("grail_zh campaigns have GrailZhOptions")
    return options


def written_skills(data: Mapping[str, Any]) -> dict[str, Any]:
    """A Servant's file with the skills the rules know named as the rules write them, whatever language the
    player wrote them in (`对魔力`, `Magic Resistance`)."""
    skills = data.get("skills")
    if not isinstance(skills, list):
        return dict(data)
    named = [
        {**skill, "name": as_written(CATALOGS, "skill", SKILLS, skill.get("name"))} if isinstance(skill, Mapping)
        else skill
        for skill in skills
    ]  # fmt: skip
    return {**data, "skills": named}


def servant_like(character: CharacterSnapshot) -> bool:
    """Whether it rolls as a Servant does (ranks, Luck, the mystery gate): a Servant or a puppet (「视作英灵」)."""
    return character.kind in (SERVANT, PUPPET)


def master_file(character: CharacterSnapshot) -> MasterFile:
    if character.kind == FAMILIAR:
        return FamiliarFile.model_validate(character.sheet["file"]).as_master()
    return MasterFile.model_validate(character.sheet["file"])


def servant_file(character: CharacterSnapshot) -> ServantFile:
    if character.kind == PUPPET:
        return PuppetFile.model_validate(character.sheet["file"]).as_servant()
    return ServantFile.model_validate(character.sheet["file"])


def derived_ranks(character: CharacterSnapshot) -> dict[Stat, Rank]:
    ranks = character.sheet["derived"]["ranks"]
    return {stat: Rank.parse(ranks[stat]) for stat in STATS}


def master_of(character: CharacterSnapshot) -> MasterStats:
    return master_stats(master_file(character))


def servant_of(character: CharacterSnapshot, options: CampaignOptions) -> ServantStats:
    """Its values as they stand: its ranks with a fight's rank boost (R19, D40), and a "+" that is on (R17)."""
    rules_options = grail_options(options)
    sheet, ranks = servant_file(character), derived_ranks(character)
    boost = character.state.get(BOOST)
    if isinstance(boost, Mapping) and boost.get("stat") in ranks:
        stat = boost["stat"]
        ranks[stat] = ranks[stat].shifted(int(boost["ranks"]))
    stats = stats_at(sheet, ranks, rules_options, class_abilities=character.kind == SERVANT)
    active = character.state.get(PLUS_ACTIVE)
    if isinstance(active, Mapping):
        multiplier = plus_multiplier(int(active["pluses"]), rules_options.plus_mode)
        stats = plus_on(stats, str(active["target"]), multiplier, CLASS_TABLE[sheet.servant_class].hp)
    return stats


def luck_of(character: CharacterSnapshot) -> Rank | None:
    """A Servant's LUK for its d20s (R1); a Master rolls a plain d20."""
    return derived_ranks(character)["LUK"] if servant_like(character) else None


def takes_luck_rerolls(character: CharacterSnapshot) -> bool:
    return character.kind != SERVANT or servant_file(character).luck_rerolls


def speed_of(character: CharacterSnapshot, options: CampaignOptions) -> int | None:
    """Squares a move action covers; None for a familiar that teleports (a Caster's, T2)."""
    if servant_like(character):
        return servant_of(character, options).speed
    if character.kind == FAMILIAR:
        return None if FamiliarFile.model_validate(character.sheet["file"]).teleports else FAMILIAR_SPEED
    return master_of(character).speed


def fate_of(character: CharacterSnapshot) -> str | None:
    fate = character.state.get(FATE)
    return fate if isinstance(fate, str) else None
