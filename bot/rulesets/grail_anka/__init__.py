"""grail_anka: a Japanese forum Holy Grail War with win-rate tables. Mechanics to come: campaigns,
dice and the log work."""

from importlib import resources

from bot.rulesets.base import Ruleset
from rules.grail_anka.options import GrailAnkaOptions

RULESET = Ruleset("grail_anka", GrailAnkaOptions, resources.files(__name__) / "i18n")
