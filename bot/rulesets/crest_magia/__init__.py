"""crest_magia: Crest Magia, 2d6 plus a stat die (rules in `rules/crest_magia`).

Built so far: characters (files, the creation budget, pools per stat), action checks with skills, specialties,
boons and banes and criticals, and Destiny Points at each session's start. Combat is still to come.
"""

from importlib import resources

from bot.rulesets.base import Ruleset
from bot.rulesets.crest_magia.play import CrestMagiaPlay
from rules.crest_magia.options import CrestMagiaOptions

RULESET = Ruleset(
    "crest_magia",
    CrestMagiaOptions,
    resources.files(__name__) / "i18n",
    play=CrestMagiaPlay(),
    extension="bot.rulesets.crest_magia.cog",
    proper_noun_keys=frozenset({"sheet.stat_die", "sheet.skill_rank"}),
)
