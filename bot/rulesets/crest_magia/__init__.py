"""crest_magia: Crest Magia, 2d6 plus a stat die (rules in `rules/crest_magia`).

Characters (files, the creation budget, pools per stat, the rulebook's crests), action checks and opposed
checks, attacks on one target or several, odds, Destiny Points, GM requests, standing boons and healing;
`fight.py` is the attack's exchange, `states.py` what its paused steps keep, and `render.py` here how its outcomes
read.
"""

from importlib import resources

from bot.rulesets.base import Ruleset
from bot.rulesets.bench import BenchExchange, BenchMove
from bot.rulesets.words import CatalogSpelling
from rules.crest_magia.options import CrestMagiaOptions
from rules.crest_magia.play import CrestMagiaPlay
from rules.crest_magia.render import CrestMagiaRenderer

# The exchange `fatebot bench` times in this ruleset's campaigns, its buttons as an English server names them.
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

CATALOGS = resources.files(__name__) / "i18n"
RULESET = Ruleset(
    "crest_magia",
    CrestMagiaOptions,
    CATALOGS,
    play=CrestMagiaPlay(CatalogSpelling(CATALOGS)),
    renderer=CrestMagiaRenderer(),
    extension="bot.rulesets.crest_magia.cog",
    proper_noun_keys=frozenset({"sheet.stat_die", "sheet.skill_rank"}),
    bench=BENCH,
)
