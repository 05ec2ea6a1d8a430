"""fate_points: Fate/Points, d20 roll-under with Masters and Servants (rules in `rules/fate_points`)."""

from importlib import resources

from bot.rulesets.base import Ruleset
from bot.rulesets.bench import BenchExchange, BenchMove
from bot.rulesets.words import CatalogSpelling
from rules.fate_points.options import FatePointsOptions
from rules.fate_points.play import FatePointsPlay
from rules.fate_points.render import FatePointsRenderer

# The exchange `fatebot bench` times in this ruleset's campaigns, its buttons as an English server names them.
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

CATALOGS = resources.files(__name__) / "i18n"
RULESET = Ruleset(
    "fate_points",
    FatePointsOptions,
    CATALOGS,
    play=FatePointsPlay(CatalogSpelling(CATALOGS)),
    renderer=FatePointsRenderer(),
    extension="bot.rulesets.fate_points.cog",
    proper_noun_keys=frozenset({"roll.source.stat", "roll.source.ability"}),
    bench=BENCH,
)
