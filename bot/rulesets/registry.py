"""The rule systems a campaign can be bound to, by their fixed ids: the one shared place that names them.

Adding a ruleset is a package in `rules/`, one in `bot/rulesets/` defining its `RULESET`, and a line here.
Only what builds a bot imports it (the app, the CLI, the bench): the bot hands the rulesets to its services, and its
commands and output reach them through the bot (`tests/bot/test_layout.py` holds the layers to this).
"""

from __future__ import annotations

from bot.i18n import use_rulesets
from bot.rulesets import crest_magia, fate_points, grail_anka, grail_zh
from bot.rulesets.base import Ruleset

RULESETS: dict[str, Ruleset] = {
    ruleset.id: ruleset for ruleset in (fate_points.RULESET, grail_zh.RULESET, crest_magia.RULESET, grail_anka.RULESET)
}
# Their catalogs are merged with the shared one wherever text is translated.
use_rulesets(RULESETS)
