"""The exchange `fatebot bench` times in this ruleset's campaigns, its buttons as an English server names them."""

from __future__ import annotations

from bot.rulesets.bench import BenchExchange, BenchMove

# Aiko's sword on Bram, who defends with Physique and no skill, lets his roll stand, withstands with his
# armour and takes what overflows on Dexterity (or what is left); a GM heals both pools first, so that he
# stands through every round.
BENCH = BenchExchange(
    moves=(
        BenchMove.award("Bram", "physique", 20),
        BenchMove.award("Bram", "dexterity", 20),
        BenchMove("/attack", "player", "attack", {"target": "Bram", "action": "melee|Sword"}),
        BenchMove(
            "defence clicks",
            "rival",
            buttons=("Physique", "No skill", "Let it stand", "Leather (0)", "Dexterity", "Wit", "Intelligence"),
        ),
    ),
    sheets=((("bearer", {"name": "Aiko"}),), (("bearer", {"name": "Bram"}),)),
)
