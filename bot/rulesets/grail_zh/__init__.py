"""grail_zh: the Chinese Fate/stay night d20 game (rules in `rules/grail_zh`).

Masters by point-buy and Servants by their legend, held for a GM's approval (R8, R9, R18); Luck's d20, action
checks, attacks with a hit's reactions, damage and saves, fates, initiative and combat upkeep; `fight.py` is the
attack's exchange, `upkeep.py` MP between a Master and its Servant and what a day does.
"""

from importlib import resources

from bot.rulesets.base import Ruleset
from bot.rulesets.grail_zh.bench import BENCH
from bot.rulesets.grail_zh.play import GrailZhPlay
from rules.grail_zh.options import GrailZhOptions

RULESET = Ruleset(
    "grail_zh",
    GrailZhOptions,
    resources.files(__name__) / "i18n",
    play=GrailZhPlay(),
    extension="bot.rulesets.grail_zh.cog",
    proper_noun_keys=frozenset(
        {"sheet.rank", "sheet.value", "pool.hp", "pool.mp"}
        | {f"cmd.grail.{command}.arg.{axis}.name" for command in ("move", "place", "cast") for axis in ("x", "y")}
    ),
    bench=BENCH,
)
