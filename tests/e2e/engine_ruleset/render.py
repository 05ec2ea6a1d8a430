"""How the test ruleset's outcomes read: each line of its story as a note of the step's post."""

from __future__ import annotations

from collections.abc import Sequence

from rules.exchange import Outcome, Text
from rules.play import Renderer, Report
from tests.e2e.engine_ruleset.play import Said


class EngineRenderer(Renderer):
    def report(self, outcomes: Sequence[Outcome]) -> Report:
        return Report(notes=tuple(Text(o.key, o.params) for o in outcomes if isinstance(o, Said)))
