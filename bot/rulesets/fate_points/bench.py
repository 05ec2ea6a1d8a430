"""The exchange `fatebot bench` times in this ruleset's campaigns, its buttons as an English server names them."""

from __future__ import annotations

from bot.rulesets.bench import BenchExchange, BenchMove

# An Archer's melee attack on a Rider, each Servant with its Master, one a round; the defender dodges. A GM
# gives the Rider HP and the Archer prana first, so that the fight goes on for as long as it is timed.
BENCH = BenchExchange(
    moves=(
        BenchMove("/combat round", "gm", "combat round"),
        BenchMove.award("Rider", "hp", 10),
        BenchMove.award("Archer", "prana", 3),
        BenchMove("/attack", "player", "attack", {"target": "Rider", "action": "melee|Invisible Air"}),
        BenchMove("Dodge click", "rival", buttons=("Dodge",)),
    ),
    sheets=(
        (("master", {"name": "Rin"}), ("servant", {"name": "Archer", "master": "Rin", "servant_class": "Archer"})),
        (
            ("master", {"name": "Sakura"}),
            ("servant", {"name": "Rider", "master": "Sakura", "servant_class": "Rider"}),
        ),
    ),
)
