"""grail_zh: a Chinese Fate/stay night d20 game. Mechanics to come: campaigns, dice and the log work."""

from importlib import resources

from bot.rulesets.base import Ruleset
from rules.grail_zh.options import GrailZhOptions

RULESET = Ruleset("grail_zh", GrailZhOptions, resources.files(__name__) / "i18n")
