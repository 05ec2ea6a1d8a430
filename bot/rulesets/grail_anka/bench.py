"""The exchange `fatebot bench` times in this ruleset's campaigns, its buttons as an English server names them."""

from __future__ import annotations

from bot.rulesets.bench import BenchExchange, BenchMove

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
