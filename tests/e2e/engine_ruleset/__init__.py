"""A ruleset that exists only in the tests, registered by them: three exchanges that prove the engine's shapes."""

from pathlib import Path

from bot.rulesets.base import Ruleset
from rules.options import CampaignOptions
from tests.e2e.engine_ruleset.play import EnginePlay
from tests.e2e.engine_ruleset.render import EngineRenderer


class EngineOptions(CampaignOptions):
    """No options: the engine is what is tested."""


RULESET = Ruleset(
    "engine_test",
    EngineOptions,
    Path(__file__).parent / "i18n",
    play=EnginePlay(),
    renderer=EngineRenderer(),
    extension="tests.e2e.engine_ruleset.cog",
)
