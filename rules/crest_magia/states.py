"""What a paused Crest Magia exchange keeps until its answer: an attack at each of its waits (the defence's stat and
skill, a GM's word on that skill, a reroll, the withstand, an overflow), a check waiting for a reroll or for the other
side of an opposed check, a heal waiting for its pool, and a narrative Destiny Point waiting for the GMs.

Each state's `stored_as` is the name open waits were stored under before the states were typed (the key of its wait,
too); states are stored flat, as they always were, each step's state holding its predecessor's fields and its own.
A field's default is what older states meant by leaving it out."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict

from rules.crest_magia.model import Crit, Skill, Stat
from rules.crest_magia.rolls import ActionSpec, Score
from rules.exchange import KeptAsDict, Resumption

STAT_WAIT = "defence_stat"
HELPLESS_WAIT = "helpless_stat"
SKILL_WAIT = "defence_skill"
SKILL_REQUEST = "defence_skill_request"
DEFENCE_REROLL = "defence_reroll"
WITHSTAND_WAIT = "withstand"
OVERFLOW_WAIT = "overflow"
CHECK_REROLL = "check_reroll"
CONTEST_STAT = "contest_stat"
CONTEST_SKILL = "contest_skill"
CONTEST_REQUEST = "contest_skill_request"
HEAL_WAIT = "heal_pool"
DESTINY_APPROVAL = "destiny_approval"


# An unresolved action roll's makings, kept as `ActionSpec.to_dict` has always written them.
HeldSpec = Annotated[ActionSpec, KeptAsDict()]


class Means(BaseModel):
    """What an attack is made with: its usual stat and skill (T4, R6; the skill the GMs agreed to instead), its
    damage rating (R7) and type, and the specialty of a crest whose form it takes (R13)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    name: str
    stat: Stat
    skill: Skill
    rating: int
    damage_type: str | None
    form: str | None = None
    form_rank: int = 0


class Attacking(Resumption):
    """What every step of an attack keeps: what it is made with, its Attack Roll's makings (rolled again for a Destiny
    Point, C30) and score, and the defender being answered for, by its position (C24: an area attack takes its
    defenders one after the other); once a defender was hit, the damage 2d6 every other one is hit with (C24), and
    the critical of a defence last offered a reroll."""

    means: Means
    spec: HeldSpec
    action: str
    current: int = 0
    attack: Score
    faces: tuple[int, int] | None = None
    defence_crit: Crit | None = None


class DefenceStat(Attacking):
    """The Attack Roll unresolved: waiting for a reroll, an intercept, the defender's stat or a GM's ruling that it is
    helpless."""

    stored_as: ClassVar[str] = STAT_WAIT


class HelplessStat(Attacking):
    """A defender ruled helpless (C8), waiting for the stat the hit lands on."""

    stored_as: ClassVar[str] = HELPLESS_WAIT


class Defending(Attacking):
    """A defender's stat named (or the one a hit with no Defense Roll lands on); `asked` is a skill put to the GMs."""

    stat: Stat
    asked: str | None = None


class DefenceSkill(Defending):
    """Waiting for the skill the defender defends with."""

    stored_as: ClassVar[str] = SKILL_WAIT


class DefenceSkillRequest(Defending):
    """A skill other than the usual ones (R6), waiting for the GMs to agree to it."""

    stored_as: ClassVar[str] = SKILL_REQUEST

    asked: str


class DefenceReroll(Defending):
    """The Defense Roll made: a hit its player may still roll again for a Destiny Point."""

    stored_as: ClassVar[str] = DEFENCE_REROLL

    defence: HeldSpec
    skill: str | None


class Withstanding(Defending):
    """A hit's Damage Roll, waiting for what the defender withstands it with (R8); the Defense Roll, if it made one."""

    stored_as: ClassVar[str] = WITHSTAND_WAIT

    defence: HeldSpec | None = None
    skill: str | None = None
    damage: int


class Overflowing(Withstanding):
    """Damage left over (R9), waiting for the pool of `choices` it goes on."""

    stored_as: ClassVar[str] = OVERFLOW_WAIT

    left: int
    choices: tuple[Stat, ...]


class Checking(Resumption):
    """What every step of a check keeps: its roll's makings (rolled again for a Destiny Point, C30), its skill and
    specialty, the GM's target, and the critical of the roll that stands so far."""

    spec: HeldSpec
    skill: Skill | None
    specialty: str | None
    target: int | None
    crit: Crit | None = None


class CheckReroll(Checking):
    """A check's roll its player may roll again for a Destiny Point, or let stand."""

    stored_as: ClassVar[str] = CHECK_REROLL


class ContestStat(Checking):
    """An opposed check's active roll (R4), waiting for the passive side's stat (or a reroll of that roll)."""

    stored_as: ClassVar[str] = CONTEST_STAT

    active: Score


class ContestSkill(ContestStat):
    """Waiting for the passive side's skill with `stat`; `asked` is a skill the GMs refused."""

    stored_as: ClassVar[str] = CONTEST_SKILL

    stat: Stat
    asked: str | None = None


class ContestRequest(ContestSkill):
    """The passive side's skill other than the usual ones (R6), waiting for the GMs to agree to it."""

    stored_as: ClassVar[str] = CONTEST_REQUEST

    asked: str


class HealPlacing(Resumption):
    """A heal's HP still to place (C19), waiting for the healed character's pool."""

    stored_as: ClassVar[str] = HEAL_WAIT

    left: int


class DestinyApproval(Resumption):
    """A narrative use of a Destiny Point (R11), waiting for the GMs."""

    stored_as: ClassVar[str] = DESTINY_APPROVAL

    use: str
    note: str | None = None


State = TypeVar("State", bound=Resumption)


def moved(state: Resumption, to: type[State], **changes: Any) -> State:
    """The state of an exchange's next step: what `to` keeps of `state`, and `changes`."""
    kept = {name: getattr(state, name) for name in to.model_fields if name in type(state).model_fields}
    return to.model_validate({**kept, **changes})
