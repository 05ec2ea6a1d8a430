"""The exchange `fatebot bench` times in this ruleset's campaigns, its buttons as an English server names them."""

from __future__ import annotations

from bot.rulesets.bench import BenchExchange, BenchMove

# Saber's melee on Archer, whose Mind's Eye makes every hit wait for his answer: he takes it; a GM heals him
# first, so that he stands through every round.
BENCH = BenchExchange(
    moves=(
        BenchMove.award("Archer", "hp", 100),
        BenchMove("/attack", "player", "attack", {"target": "Archer", "action": "melee"}),
        BenchMove("Take the hit click", "rival", buttons=("Take the hit",)),
    ),
    sheets=(
        (("master", {"name": "Shirou"}), ("servant", {"name": "Saber", "master": "Shirou"})),
        (
            ("master", {"name": "Rin"}),
            ("servant", {"name": "Archer", "master": "Rin", "skills": [{"name": "心眼（真）", "rank": "B"}]}),
        ),
    ),
)
