"""Finding the others on the map (R27) and hiding from them (R28): a search rolls once and names only whom it
finds, to the searcher alone; a failed search says nothing of who was there. Presence Concealment is entered out of
a fight, and its first attack treats the target as unaware, then it ends (D29)."""

from __future__ import annotations

from rules.exchange import Modifier, Outcome, Roll, RuleError, StatePatch, Step
from rules.grail_zh import actions
from rules.grail_zh.model import Stat
from rules.grail_zh.rolls import D20, luck_d20
from rules.grail_zh.stored import (
    CONCEALED,
    FAMILIAR,
    MAKER,
    MASTER,
    SPIRIT_FORM,
    fate_of,
    grail_options,
    luck_of,
    master_file,
    servant_like,
    servant_of,
    takes_luck_rerolls,
)
from rules.grail_zh.upkeep import HOURS
from rules.options import CampaignOptions
from rules.play import ACTOR, EVERYONE, CharacterSnapshot, Scene

DETECTION_TARGET = 10  # R2's 10
MASTER_HIDDEN = -5  # 「侦查MASTER时结果-5」
SEARCHED = "searched"  # the state key of the moment a character last searched: [round, story hour]
CONCEALMENT_BASE, CONCEALMENT_STEP = 10, 5  # found at 10 + 5X (「若结果小于15/20/25/30/35，他们无法发现你」)


class Searched(Outcome):
    event = "map.search"
    secret: bool = True  # what a character finds is its player's alone
    observer: str
    found: list[str]
    squares: list[list[int]]  # each found character's, across sectors


def search(scene: Scene) -> Step:
    """R27: a d20 (with Luck) + wis for a Master, + the better of MAG and AGI for a Servant, reaching 10 finds a
    Servant in its sector (a Master at -5), or in sectors up to Clairvoyance's X away; R28: one concealed is found
    only by d20 + wis (a Master) or + MAG + AGI (a Servant) reaching 10 + 5X. Whoever is inside the searcher's
    alarm barrier is sensed without the roll (R21)."""
    options = grail_options(scene.options)
    observer = scene.one(ACTOR)
    here = actions.square(observer)
    if here is None and actions.BARRIER not in observer.state:
        raise RuleError("grail_search_unplaced", name=observer.name)
    moment = _moment(scene, observer)
    if observer.state.get(SEARCHED) == moment:
        raise RuleError("grail_searched_already", name=observer.name)
    senses = _senses_of(observer, scene.members(EVERYONE))
    reach = servant_of(senses, options).magnitude("clairvoyance", options.ex_value) if servant_like(senses) else 0
    d20 = luck_d20(scene.dice, luck_of(senses), optional_rerolls=takes_luck_rerolls(senses))
    plain, against_concealment = _search_rolls(senses, d20, options)
    # Both readings are shown whoever is near (a Master's are one): one shown only when someone hides would tell that
    # someone does.
    rolls = (plain,) if against_concealment.total == plain.total else (plain, against_concealment)
    found: list[str] = []
    squares: list[list[int]] = []
    for other in scene.members(EVERYONE):
        there = actions.square(other)
        if other.id == observer.id or there is None or fate_of(other) is not None:
            continue
        if SPIRIT_FORM in other.state and not _sees_spirits(senses):
            continue
        concealment = concealment_of(other, options)
        if actions.inside_barrier(observer, other, scene.turn.round_number) and _barrier_sees(observer, other, options):
            seen = True  # R21: the barrier's owner senses whoever is inside it
        elif here is None or _sectors_apart(here, there) > reach:
            continue
        elif concealment:
            seen = against_concealment.total >= CONCEALMENT_BASE + CONCEALMENT_STEP * concealment
        else:
            seen = plain.total + (MASTER_HIDDEN if other.kind == MASTER else 0) >= DETECTION_TARGET
        if seen:
            found.append(other.name)
            squares.append(list(there))
    searched = Searched(observer=observer.name, found=found, squares=squares)
    return Step(rolls=rolls, effects=(StatePatch(ACTOR, SEARCHED, moment),), outcomes=(searched,))


def _moment(scene: Scene, observer: CharacterSnapshot) -> list[int]:
    """When a search is made: the round (in a fight, or the campaign's clock outside one) and the story hour. A
    search is one check (R2, 「一个成功的侦查鉴定」): made again at once it would only be retried until it
    succeeds, so the next waits until time moves on."""
    return [scene.turn.round_number, int(observer.state.get(HOURS, 0) or 0)]


def _sees_spirits(observer: CharacterSnapshot) -> bool:
    """R23: a Servant in spirit form is seen by Servants (and its own Master), and sensed nearby as usual by every
    Master, whatever its type (「master和其他人受过魔术训练的人可以如常感知附近的英灵」: Masters, and others trained in
    magecraft besides them)."""
    return servant_like(observer) or observer.kind == MASTER


def _senses_of(observer: CharacterSnapshot, everyone: tuple[CharacterSnapshot, ...]) -> CharacterSnapshot:
    """Whose senses a search uses: a familiar's are its maker's (R21: shared senses), from where the familiar is."""
    if observer.kind != FAMILIAR:
        return observer
    maker = next((other for other in everyone if other.id == observer.state.get(MAKER)), None)
    return maker if maker is not None and fate_of(maker) is None else observer


def _search_rolls(observer: CharacterSnapshot, d20: D20, options: CampaignOptions) -> tuple[Roll, Roll]:
    """The one d20 read twice: as a search, and against Presence Concealment."""
    if servant_like(observer):
        ranks = servant_of(observer, options).ranks
        best: Stat = "MAG" if ranks["MAG"].n >= ranks["AGI"].n else "AGI"
        plain = d20.roll("search", [Modifier(f"stat:{best}", ranks[best].n)])
        both = [Modifier("stat:MAG", ranks["MAG"].n), Modifier("stat:AGI", ranks["AGI"].n)]
        return plain, d20.roll("search_concealed", both)
    wis = Modifier("stat:WIS", master_file(observer).attribute("wis"))
    return d20.roll("search", [wis]), d20.roll("search_concealed", [wis])


def _barrier_sees(owner: CharacterSnapshot, other: CharacterSnapshot, options: CampaignOptions) -> bool:
    """A barrier senses all who do not hide; a Servant's (a Caster's, R22) also those whose Presence Concealment
    is of a lower rank than its MAG."""
    if CONCEALED not in other.state or not servant_like(other):
        return True
    if not servant_like(owner):
        return False
    hiding = servant_of(other, options).skill("presence_concealment")
    return hiding is not None and hiding.rank.mystery < servant_of(owner, options).ranks["MAG"].mystery


def _sectors_apart(here: tuple[int, int], there: tuple[int, int]) -> int:
    a, b = actions.sector_of(here), actions.sector_of(there)
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def concealment_of(character: CharacterSnapshot, options: CampaignOptions) -> int:
    """The X of the Presence Concealment a character is in; 0 when it is not hiding."""
    if CONCEALED not in character.state or not servant_like(character):
        return 0
    return servant_of(character, options).magnitude("presence_concealment", grail_options(options).ex_value)


class Concealed(Outcome):
    event = "map.concealment"
    secret: bool = True  # that it hides is its player's to know
    name: str
    hidden: bool


def conceal(scene: Scene, leave: bool) -> Step:
    """R28, D29: Presence Concealment, entered out of a fight (a standard action there is none of); left freely."""
    options = grail_options(scene.options)
    character = scene.one(ACTOR)
    if leave:
        if CONCEALED not in character.state:
            raise RuleError("grail_not_concealed", name=character.name)
        return Step(
            effects=(StatePatch(ACTOR, CONCEALED, None),), outcomes=(Concealed(name=character.name, hidden=False),)
        )
    x = (
        servant_of(character, options).magnitude("presence_concealment", options.ex_value)
        if servant_like(character)
        else 0
    )
    if not x:
        raise RuleError("grail_no_concealment", name=character.name)
    if scene.turn.in_combat:
        raise RuleError("grail_not_in_a_fight", name=character.name)
    if CONCEALED in character.state:
        raise RuleError("grail_concealed_already", name=character.name)
    return Step(effects=(StatePatch(ACTOR, CONCEALED, True),), outcomes=(Concealed(name=character.name, hidden=True),))
