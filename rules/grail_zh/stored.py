"""Masters and Servants as the bot stores them, and the values the rules derive from them.

A Master's sheet is `{"file": <its validated file>}`; a Servant's also keeps `derived.ranks`, its effective ranks
when it was summoned (R9 needs its Master's attributes, and a Servant outlives its Master). The GMs' creatures
have kinds of their own: a puppet (R22, D33) rolls as a Servant, a familiar (R21) as a mortal with no stats.
Pools: `hp`, `mp` and `temp_hp` for every kind. A character's `fate` state is "dead" (a Master, D24) or
"vanished" (a Servant, R16); `continuing` holds the round at which a Servant's Battle Continuation ends (R19).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.exchange import Text
from rules.grail_zh.characters import MasterStats, ServantStats, master_stats, plus_on, stats_at
from rules.grail_zh.model import ATTRIBUTES, CLASS_TABLE, FAMILIAR_SPEED, SKILLS, STATS, Attribute, Stat
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.ranks import Rank
from rules.grail_zh.rolls import plus_multiplier
from rules.grail_zh.sheets import FamiliarFile, MasterFile, PuppetFile, ServantFile
from rules.options import CampaignOptions
from rules.play import REVEALED, CharacterSnapshot
from rules.words import Spelling

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
REINFORCED = "reinforced"  # the state key of an item made a Noble Phantasm: {"name", "rank", "until": round}
MAKER = "maker"  # the state key of the character that summoned a familiar or a puppet (R21, R22)
CONCEALED = "concealed"  # the state key of a character in Presence Concealment (R28)
SPIRIT_FORM = "spirit_form"  # the state key of a Servant in spirit form (R23)
BOOST = "rank_boost"  # the state key of a fight's rank boost: {"stat", "ranks"}
PLUS_ACTIVE = "plus_active"  # the state key of the passive "+" that are on: [{"target", "pluses", "until", "extra"}]
DEFENDING = "defending"  # the state key of the round its Defend stance began (R26)
UPKEEP_UNPAID = "upkeep_unpaid"  # the state key of a fight whose combat upkeep it could not pay (D19)
# What /check takes: a Master's six attributes and a Servant's five stats, each by one upper-case word.
CHECK_WORDS: dict[str, Attribute | Stat] = {
    **{attribute.upper(): attribute for attribute in ATTRIBUTES},
    **{stat: stat for stat in STATS},
}


def target_text(target: str) -> Text | str:
    """What a "+" is on: a stat or a skill by its name in the reader's words, or a Servant's own skill as written."""
    if target in STATS:
        return Text(f"stat.{target}")
    return Text(f"skill.{target}") if target in SKILLS else target


def grail_options(options: CampaignOptions) -> GrailZhOptions:
    if not isinstance(options, GrailZhOptions):
        raise TypeError("grail_zh campaigns have GrailZhOptions")
    return options


def written_skills(spelling: Spelling, data: Mapping[str, Any]) -> dict[str, Any]:
    """A Servant's file with the skills the rules know named as the rules write them, whatever language the
    player wrote them in (`对魔力`, `Magic Resistance`)."""
    skills = data.get("skills")
    if not isinstance(skills, list):
        return dict(data)
    named = [_written_skill(spelling, skill) if isinstance(skill, Mapping) else skill for skill in skills]
    return {**data, "skills": named}


def _written_skill(spelling: Spelling, skill: Mapping[str, Any]) -> dict[str, Any]:
    """A skill by the rules' name, and a rank boost's stat too (`力量`, `Strength` are STR)."""
    name = spelling("skill", SKILLS, skill.get("name"))
    written = {**skill, "name": name}
    if name == "rank_boost" and "target" in skill:
        written["target"] = written_stat(spelling, STATS, skill["target"])
    return written


def written_stat(spelling: Spelling, names: tuple[str, ...], value: object) -> object:
    """One of `names` (stats) as the rules write it, from its name in any of the game's languages or another name
    the seed gives it (「力量 对应 劲力」, 「耐久：决定HP」); anything else as typed."""
    named = spelling("stat", names, value)
    return named if named in names else spelling("stat_alias", names, value)


def hidden_sheet(character: CharacterSnapshot) -> bool:
    """Every sheet of this game is its owner's and the GMs' until a GM reveals it: what it pays would tell its
    ranks, so amounts are told only where it is revealed."""
    return not character.state.get(REVEALED)


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
    for active in pluses_on(character):
        multiplier = plus_multiplier(int(active["pluses"]), rules_options.plus_mode)
        stats = plus_on(stats, str(active["target"]), multiplier, CLASS_TABLE[sheet.servant_class].hp)
    return stats


def pluses_on(character: CharacterSnapshot) -> list[Mapping[str, Any]]:
    """Each passive "+" that is on (R17: each its own, once a day)."""
    active = character.state.get(PLUS_ACTIVE)
    if isinstance(active, Mapping):  # one "+" on, as it was stored before several could be
        return [active]
    return [entry for entry in active if isinstance(entry, Mapping)] if isinstance(active, list) else []


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


def recorded_fate(character: CharacterSnapshot) -> str | None:
    """The fate the rules wrote down (a death, a vanishing), whatever the pools say."""
    fate = character.state.get(FATE)
    return fate if isinstance(fate, str) else None


def fate_of(character: CharacterSnapshot) -> str | None:
    """Why a character is out of play, or None: its recorded fate, else what its pools mean. A Master at 0 HP or 0
    MP is dead (D24, 「一旦MP为0，master死亡」); a Servant at 0 MP vanishes (R16), and at 0 HP unless Battle
    Continuation holds it (R19); a puppet or a familiar is gone at 0 HP; one dying (D24's option) is down."""
    fate = recorded_fate(character)
    if fate is not None:
        return fate
    hp, mp = character.pools[HP].current, character.pools[MP].current
    if hp <= 0 and DYING in character.state:
        return DOWN
    if character.kind in (PUPPET, FAMILIAR):  # a body with no MP of its own to lose
        return (VANISHED if character.kind == PUPPET else DEAD) if hp <= 0 else None
    if character.kind == MASTER:
        return DEAD if hp <= 0 or mp <= 0 else None
    return VANISHED if mp <= 0 or (hp <= 0 and CONTINUING not in character.state) else None
