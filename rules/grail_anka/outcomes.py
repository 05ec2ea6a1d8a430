"""What happens in the anka game, as data: names, numbers and the rules' own words (parameters, timings, talismans),
each kind of happening its own event. The bot's renderer words them for the table and the log."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.exchange import Outcome
from rules.grail_anka.battle import WinRate as RateResult
from rules.grail_anka.model import SkillKind, SkillTag, Talisman, Timing
from rules.grail_anka.sheets import SkillEffect

Reading = Literal["critical", "success", "failure", "fumble"]


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# Anchored decisions (R1-R3)


class Purpose(_Part):
    """What a decision decides: a GM's check (`said`, in the GM's words), an assassination, the third parameter
    (among `choices`), a battle, a winner's fatigue, a loser's or a masterless Servant's vanishing."""

    decides: Literal["check", "assassination", "third", "battle", "fatigue", "vanish", "masterless"]
    who: str | None = None
    skill: str | None = None
    side: str | None = None
    choices: tuple[str, ...] = ()
    turns: int | None = None
    said: str | None = None


class Committed(_Part):
    id: str
    purpose: Purpose
    digest: str
    rate: int | None = None


class DecisionsCommitted(Outcome):
    event: ClassVar[str] = "anka.committed"

    decisions: tuple[Committed, ...]


class AnchorTaken(Outcome):
    event: ClassVar[str] = "anka.anchored"

    anchor: int
    user: int | None
    ids: tuple[str, ...]


class AnchorWindow(Outcome):
    """What became of an anchor window: opened again, extended, or closed (the decisions left shifted up to the last
    anchor, their anchors drawn by the bot, left to the GMs, or waiting on past the window)."""

    event: ClassVar[str] = "anka.window"

    became: Literal["reopened", "extended", "shifted_up", "drawn", "closed_gm", "passed"]
    count: int = 0


class DecisionRevealed(Outcome):
    event: ClassVar[str] = "anka.revealed"

    id: str
    secret: str
    hashed: str
    anchor: int
    value: int


class Checked(Outcome):
    """A check read against its rate: a GM's (`said`), an assassination (`who`'s), or the battle's."""

    event: ClassVar[str] = "anka.checked"

    of: Literal["gm", "assassination", "battle"]
    value: int
    rate: int
    reading: Reading
    who: str | None = None
    said: str | None = None


# Battles (R4-R15, R18)


class Formation(_Part):
    side: str
    main: tuple[str, ...]
    subs: tuple[str, ...]
    companions: tuple[str, ...]


class BattleBegun(Outcome):
    """R5.1: the sides in their order, where the battle is (`home`'s base, None where it was not recorded), and the
    formations."""

    event: ClassVar[str] = "anka.battle_begun"

    first: str
    second: str
    home: str | None = None
    base: str | None = None
    formations: tuple[Formation, ...] = ()


class FirstDrawn(Outcome):
    event: ClassVar[str] = "anka.first"

    side: str


class SkillPassed(Outcome):
    event: ClassVar[str] = "anka.pass"

    side: str
    timing: Timing


class SkillActivated(Outcome):
    event: ClassVar[str] = "anka.skill"

    who: str
    skill: str
    kind: SkillKind
    side: str


class SkillCancelled(Outcome):
    """R11: cancelled by a talisman of `side`, or by `counter_who`'s counter-skill."""

    event: ClassVar[str] = "anka.cancel"

    who: str
    skill: str
    side: str
    talisman: Talisman | None = None
    counter_who: str | None = None
    counter_skill: str | None = None


class SkillResolved(Outcome):
    event: ClassVar[str] = "anka.skill_used"

    who: str
    skill: str
    effect: SkillEffect
    tags: tuple[SkillTag, ...] = ()


class ParamPicked(Outcome):
    event: ClassVar[str] = "anka.pick"

    side: str
    param: str


class ThirdParam(Outcome):
    event: ClassVar[str] = "anka.third"

    param: str
    drawn: bool = False


class Suppressed(_Part):
    """R10: a used skill that took no effect, overridden by `np_who`'s Noble Phantasm `np`, else offset."""

    who: str
    skill: str
    np: str | None = None
    np_who: str | None = None


class RateSkill(_Part):
    """A skill that took effect, as the win rate counts it for its side."""

    side: str
    who: str
    skill: str
    timing: Timing
    effect: SkillEffect


class WinRate(Outcome):
    """R7 with R10: the skills that took no effect, each chosen parameter's strengths, the skills counted, and the
    rate with every term (or the automatic result)."""

    event: ClassVar[str] = "anka.rate"

    side_a: str
    side_b: str
    result: RateResult
    strength_a: dict[str, int]
    strength_b: dict[str, int]
    skills: tuple[RateSkill, ...] = ()
    suppressed: tuple[Suppressed, ...] = ()


class BattleWon(Outcome):
    event: ClassVar[str] = "anka.won"

    winner: str
    loser: str
    # Assassination, auto (the table decided it), critical, fumble or roll.
    how: str
    # A loss on 01 or 00: the loser's retreat skills are disabled.
    retreat_disabled: bool = False


class WayOutGone(Outcome):
    event: ClassVar[str] = "anka.way_out_gone"

    who: str


class FateFaced(Outcome):
    event: ClassVar[str] = "anka.facing"

    who: str


class Retreated(Outcome):
    """R14, R18: a Servant out of the battle by its retreat skill, a substitute talisman, `seals` strokes, or a
    vanish check survived; its fatigue after it."""

    event: ClassVar[str] = "anka.retreat"

    who: str
    # Its retreat skill, a substitute talisman (`substitute`, `substitute_kai`), a command seal, or a check.
    by: str
    fatigue: int
    skill: str | None = None
    seals: int = 0


class WinnerFatigue(Outcome):
    """R13: a winner's fatigue from its decision's last digit."""

    event: ClassVar[str] = "anka.winner_fatigue"

    who: str
    digit: int
    delta: int
    fatigue: int


class VanishChecked(Outcome):
    """A losing Servant's vanish check (R14), or a masterless one's at a turn's end (R19)."""

    event: ClassVar[str] = "anka.vanish_check"

    who: str
    value: int
    rate: int
    survived: bool
    masterless: bool = False


class Vanished(Outcome):
    event: ClassVar[str] = "anka.vanish"

    who: str


class BattleOver(Outcome):
    """R14's end: the loser's other members (`others`) retreat with it or negotiate; a camp beaten at home that
    retreats loses its base (`lost_base`)."""

    event: ClassVar[str] = "anka.battle_over"

    winner: str
    loser: str
    others: tuple[str, ...] = ()
    negotiate: bool = False
    lost_base: str | None = None


class BattleCancelled(Outcome):
    """A GM's cancel; once decided (`winner`), what was read stands."""

    event: ClassVar[str] = "anka.battle_cancelled"

    winner: str | None = None


# Turns, contracts and command seals (R18-R23)


class TurnEnded(Outcome):
    event: ClassVar[str] = "anka.turn_ended"

    turn: int
    rested: tuple[str, ...] = ()


class MasterlessFrozen(Outcome):
    event: ClassVar[str] = "anka.masterless"

    who: str
    turns: int
    fatigue: int


class MasterlessMoot(Outcome):
    event: ClassVar[str] = "anka.moot"

    who: str


class Recovered(Outcome):
    """Fatigue taken off: by a turn's end (in a camp that `rested`, or not), or by a command seal's stroke
    (`master`'s, with `seals` left)."""

    event: ClassVar[str] = "anka.recovered"

    who: str
    before: int
    after: int
    rested: bool = False
    master: str | None = None
    seals: int = 0


class TimeUp(Outcome):
    event: ClassVar[str] = "anka.time_up"

    turn: int


class Finale(Outcome):
    """R22: the finale begun, its grace running (each camp's extra actions `left`), or due for `reason`."""

    event: ClassVar[str] = "anka.finale_near"

    stage: Literal["begun", "grace", "due"]
    camps: tuple[str, ...] = ()
    left: dict[str, int] = Field(default_factory=dict)
    reason: str | None = None


class Contract(Outcome):
    """R20: a contract made (into `camp`), refused by `who`, or lapsed."""

    event: ClassVar[str] = "anka.contract_end"

    result: Literal["made", "refused", "lapsed"]
    servant: str | None = None
    master: str | None = None
    camp: str | None = None
    who: str | None = None


class Order(Outcome):
    """R18's fourth use: a command seal spent for the story (`seals` left), denied, or with none left."""

    event: ClassVar[str] = "anka.ordered"

    result: Literal["spent", "denied", "no_seals"]
    master: str
    reason: str | None = None
    seals: int = 0


# A GM's rulings (R21)


class FateSet(Outcome):
    event: ClassVar[str] = "anka.fate"

    # The rules' word for it: dead (a Master, another character) or vanished (a Servant).
    fate: str
    on: bool
    who: str


class GameOver(Outcome):
    """R21: a protagonist's death ends its player's (`user`'s) game, or the campaign's once it was the last."""

    event: ClassVar[str] = "anka.game_over"

    who: str
    user: int | None = None


class CampStanding(Outcome):
    event: ClassVar[str] = "anka.camp"

    camp: str
    out: bool


class WarResumed(Outcome):
    event: ClassVar[str] = "anka.war_resumed"
