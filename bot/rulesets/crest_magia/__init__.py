"""crest_magia: Crest Magia, 2d6 plus a stat die. Mechanics to come: campaigns, dice and the log work."""

from importlib import resources

from bot.rulesets.base import Ruleset
from rules.crest_magia.options import CrestMagiaOptions

RULESET = Ruleset("crest_magia", CrestMagiaOptions, resources.files(__name__) / "i18n")
