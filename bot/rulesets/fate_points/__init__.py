"""fate_points: Fate/Points, d20 roll-under with Masters and Servants (rules in `rules/fate_points`)."""

from importlib import resources

from bot.rulesets.base import Ruleset
from bot.rulesets.fate_points.bench import BENCH
from bot.rulesets.fate_points.play import FatePointsPlay
from rules.fate_points.options import FatePointsOptions

RULESET = Ruleset(
    "fate_points",
    FatePointsOptions,
    resources.files(__name__) / "i18n",
    play=FatePointsPlay(),
    extension="bot.rulesets.fate_points.cog",
    proper_noun_keys=frozenset({"roll.source.stat", "roll.source.ability"}),
    bench=BENCH,
)
