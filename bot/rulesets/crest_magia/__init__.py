"""crest_magia: Crest Magia, 2d6 plus a stat die (rules in `rules/crest_magia`).

Characters (files, the creation budget, pools per stat, the rulebook's crests), action checks and opposed
checks, attacks on one target or several, odds, Destiny Points, GM requests, standing boons and healing;
`fight.py` is the attack's exchange.
"""

from importlib import resources

from bot.rulesets.base import Ruleset
from bot.rulesets.crest_magia.bench import BENCH
from bot.rulesets.crest_magia.play import CrestMagiaPlay
from rules.crest_magia.options import CrestMagiaOptions

RULESET = Ruleset(
    "crest_magia",
    CrestMagiaOptions,
    resources.files(__name__) / "i18n",
    play=CrestMagiaPlay(),
    extension="bot.rulesets.crest_magia.cog",
    proper_noun_keys=frozenset({"sheet.stat_die", "sheet.skill_rank"}),
    bench=BENCH,
)
