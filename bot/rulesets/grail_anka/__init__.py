"""grail_anka: the Japanese forum Holy Grail War (rules in `rules/grail_anka`).

Masters, Servants and other characters with GM-entered parameters; camps with formations, talismans and bases;
every decision a committed secret plus an anchor number from another participant (`decisions.py`); battles as one
exchange from setup skills to the aftermath (`fight.py`).
"""

from importlib import resources

from bot.rulesets.base import Ruleset
from bot.rulesets.grail_anka.bench import BENCH
from bot.rulesets.grail_anka.play import GrailAnkaPlay
from rules.grail_anka.options import GrailAnkaOptions

RULESET = Ruleset(
    "grail_anka",
    GrailAnkaOptions,
    resources.files(__name__) / "i18n",
    play=GrailAnkaPlay(),
    extension="bot.rulesets.grail_anka.cog",
    proper_noun_keys=frozenset(
        {
            "anka.param_value",
            "anka.effect.param",
            "anka.rate_line",
            "anka.means.skill",
            "anka.effect.list",
            "anka.purpose.check",
            "anka.camp_heading",
        }
    ),
    bench=BENCH,
)
