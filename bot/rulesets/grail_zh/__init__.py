"""grail_zh: the Chinese Fate/stay night d20 game (rules in `rules/grail_zh`).

Masters by point-buy and Servants by their legend, held for a GM's approval (R8, R9, R18); Luck's d20, action
checks, attacks with a hit's reactions, damage and saves, fates, initiative and combat upkeep; `fight.py` is the
attack's exchange, `upkeep.py` MP between a Master and its Servant and what a day does.
"""

from importlib import resources

from bot.rulesets.base import Ruleset
from bot.rulesets.bench import BenchExchange, BenchMove
from bot.rulesets.words import CatalogSpelling
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.play import GrailZhPlay
from rules.grail_zh.render import GrailZhRenderer

# The exchange `fatebot bench` times in this ruleset's campaigns, its buttons as an English server names them.
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

CATALOGS = resources.files(__name__) / "i18n"
RULESET = Ruleset(
    "grail_zh",
    GrailZhOptions,
    CATALOGS,
    play=GrailZhPlay(CatalogSpelling(CATALOGS)),
    renderer=GrailZhRenderer(),
    extension="bot.rulesets.grail_zh.cog",
    proper_noun_keys=frozenset(
        {"sheet.rank", "sheet.value", "pool.hp", "pool.mp"}
        | {f"cmd.grail.{command}.arg.{axis}.name" for command in ("move", "place", "cast") for axis in ("x", "y")}
    ),
    bench=BENCH,
)
