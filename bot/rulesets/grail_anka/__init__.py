"""grail_anka: the Japanese forum Holy Grail War (rules in `rules/grail_anka`).

Masters, Servants and other characters with GM-entered parameters; camps with formations, talismans and bases;
every decision a committed secret plus an anchor number from another participant (`decisions.py`); battles as one
exchange from setup skills to the aftermath (`fight.py`).
"""

from importlib import resources

from bot.rulesets.base import Ruleset
from bot.rulesets.bench import BenchExchange, BenchMove
from bot.rulesets.words import CatalogSpelling
from rules.grail_anka.options import GrailAnkaOptions
from rules.grail_anka.play import GrailAnkaPlay
from rules.grail_anka.render import AnkaRenderer

# The exchange `fatebot bench` times in this ruleset's campaigns, its buttons as an English server names them.
# A GM's check, its decision committed, and a player's anchor that reveals it; the next check is anchored by
# the rival, since nobody anchors two decisions in a row.
BENCH = BenchExchange(
    moves=(
        BenchMove("/anka check", "gm", "anka check", {"rate": 50, "purpose": "Bench"}),
        BenchMove("/anchor", "player", "anchor", {"number": 42}),
        BenchMove("/anka check", "gm", "anka check", {"rate": 50, "purpose": "Bench"}),
        BenchMove("/anchor", "rival", "anchor", {"number": 17}),
    )
)

CATALOGS = resources.files(__name__) / "i18n"
RULESET = Ruleset(
    "grail_anka",
    GrailAnkaOptions,
    CATALOGS,
    play=GrailAnkaPlay(CatalogSpelling(CATALOGS)),
    renderer=AnkaRenderer(),
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
