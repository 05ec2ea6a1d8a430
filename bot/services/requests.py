"""What a player's roll asks of the GMs, for every ruleset: the terms the rules leave to the GM (the modifiers
"the GM deems fit", the boons and banes "you as the GM could consider to grant") and what else the ruleset leaves
to their agreement (another stat than the usual one, say).

A player who gives any of them does not roll yet: the GMs are asked to grant or refuse it, and the roll follows
their answer, with what was asked or without it. A GM's own roll needs no one's agreement. The request is a wait
for the GMs like any other, so /gm pending lists it and it survives restarts; the roll it leads to is the
player's, in the log as everywhere, and the GM who answered is named as the one who granted or refused it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from bot.errors import UserError, refusal_text, rule_refused
from bot.services.held import refuse_fallen, refuse_unreachable
from rules.exchange import Answer, Audience, Option, Outcome, Pause, Resumption, RuleError, Step, Text, Wait
from rules.play import ACTOR, ATTACK, ATTACKER, CHECK, DEFENDER, OPPONENT, CommandInput, Play, Scene
from rules.words import joined

GM_REQUEST = "gm_request"
GRANT = "grant"
REFUSE = "refuse"


class RequestAsked(Outcome):
    event = "request.asked"
    name: str
    what: dict[str, Any]  # the roll, as a text
    asked: dict[str, Any]  # everything asked, as a text


class RequestGranted(Outcome):
    event = "request.granted"
    name: str
    asked: dict[str, Any]
    user: int | None  # the GM who granted it

    def credited_to(self) -> int | None:
        return self.user


class RequestRefused(Outcome):
    event = "request.refused"
    name: str
    asked: dict[str, Any]
    user: int | None  # the GM who refused it; None when no GM answered in time

    def credited_to(self) -> int | None:
        return self.user


class RequestDropped(Outcome):
    event = "request.dropped"
    name: str
    asked: dict[str, Any]
    user: int | None  # the GM who answered; None when no GM answered in time
    reason: dict[str, Any]  # why nothing is rolled, as a text


class Requesting(Resumption):
    """A roll of `kind` asked of the GMs for the character `name` by the user `by`: the input it is made with if they
    grant `asked` (`given`), and if they refuse it or let the deadline pass (`refused`), both as stored."""

    stored_as: ClassVar[str] = GM_REQUEST

    kind: str
    given: dict[str, Any]
    refused: dict[str, Any]
    by: int
    name: str
    asked: Text


def term_texts(terms: Mapping[str, int]) -> list[Text]:
    """Each GM term asked for in words (`term.<field>` of the catalogs: "modifier +20", "boons 2")."""
    return [Text(f"term.{name}", {"value": value, "signed": f"{value:+d}"}) for name, value in terms.items()]


def request_step(
    name: str,
    kind: str,
    what: Text,
    asked: Sequence[Text],
    given: Mapping[str, Any],
    refused: Mapping[str, Any],
    by: int,
    deadline_seconds: int | None = None,
) -> Step:
    """The GMs asked to grant `asked` (at least one thing) for the roll `what` of the character `name`, made by
    the user `by`: granted, the roll of `kind` is made with the input `given`; refused, or at the deadline, with
    `refused` (both as stored)."""
    words = joined(asked, "request.and")
    if not isinstance(words, Text):
        raise ValueError("a request asks for something")
    said: dict[str, str | int | Text] = {"name": name, "what": what, "asked": words}
    options = (
        Option(GRANT, Text("request.grant"), tone="success", summary=Text("request.granted", said)),
        Option(REFUSE, Text("request.refuse"), tone="secondary", summary=Text("request.refused", said)),
    )
    wait = Wait(
        GM_REQUEST,
        Audience.gms(),
        Text("request.asked", said),
        options,
        deadline_seconds=deadline_seconds,
        default=REFUSE if deadline_seconds is not None else None,
    )
    state = Requesting(kind=kind, given=dict(given), refused=dict(refused), by=by, name=name, asked=words)
    outcome = RequestAsked(name=name, what=what.to_dict(), asked=words.to_dict())
    return Step(outcomes=(outcome,), pause=Pause(state, (wait,)))


class _Rolled(Exception):
    """A die was asked for: the act rolls, so the terms it is rolled with count."""


class _NoDice:
    def roll(self, count: int, sides: int) -> list[int]:
        raise _Rolled


def rolls(act: Callable[[Scene], Step], scene: Scene) -> bool:
    """Whether `act` rolls dice. It is tried without them, so what it refuses is refused now, before the GMs are
    asked, and an act that rolls nothing (a suggestion that holds at once) leaves them nothing to grant."""
    try:
        act(replace(scene, dice=_NoDice()))
    except _Rolled:
        return True
    return False


def asked_of_gms(play: Play, scene: Scene, kind: str, params: CommandInput, by: int) -> Step | None:
    """A player's check or attack that gives GM terms or asks what the ruleset leaves to the GMs: the request;
    None when it asks nothing and is rolled at once."""
    asking = play.asking(scene, kind, params)
    terms = params.gm_terms()
    if not terms and not asking.asks:
        return None
    if not rolls(lambda tried: play.requested(tried, kind, params.model_dump(mode="json")), scene):
        return None
    refused = (asking.refused or params).without_gm_terms()
    name = scene.one(ACTOR if kind == CHECK else ATTACKER).name
    return request_step(
        name,
        kind,
        asking.what,
        [*term_texts(terms), *asking.asks],
        params.model_dump(mode="json"),
        refused.model_dump(mode="json"),
        by,
        asking.deadline_seconds,
    )


@dataclass(frozen=True)
class OwnTerms:
    """The input of a ruleset's own command (`kind`, made again by `Play.requested`) as stored, `given`, with the
    fields of it only the GMs give and the value each has when they give nothing (`defaults`); `what` is the act in
    words."""

    kind: str
    what: Text
    given: Mapping[str, Any]
    defaults: Mapping[str, Any]


def own_terms_asked(name: str, terms: OwnTerms, by: int, scene: Scene, act: Callable[[Scene], Step]) -> Step | None:
    """A player's own command of a ruleset (`act`) that gives GM terms to a roll it makes: the request; None when
    it gives none, or rolls nothing (`rolls`)."""
    asked = {
        field: terms.given[field]
        for field, default in terms.defaults.items()
        if terms.given.get(field, default) != default
    }
    if not asked or not rolls(act, scene):
        return None
    refused = {**terms.given, **terms.defaults}
    return request_step(name, terms.kind, terms.what, term_texts(asked), terms.given, refused, by)


def _refuse_fallen(play: Play, ruleset: str, scene: Scene, kind: str) -> None:
    """What the command refused before the GMs were asked, refused again at their answer: a character that can no
    longer act (one who fell meanwhile), a target gone for good."""
    if kind == ATTACK:
        refuse_fallen(play, ruleset, scene.members(ATTACKER))
        refuse_unreachable(play, ruleset, scene.members(DEFENDER))
    else:
        refuse_fallen(play, ruleset, [*scene.members(ACTOR), *(scene.members(OPPONENT) if kind == CHECK else ())])


def decided(play: Play, ruleset: str, scene: Scene, state: Requesting, answer: Answer) -> Step:
    """The GMs' answer (none when the deadline passed): the roll, with what was asked or without it, credited to
    the player who asked. A roll the rules refuse by now (its roller fell meanwhile, its one attack of the round
    is made) is not made, and the request ends saying why: no answer of the GMs could roll it."""
    granted, name, asked = answer.option == GRANT, state.name, state.asked.to_dict()
    try:
        _refuse_fallen(play, ruleset, scene, state.kind)
        rolled = play.requested(scene, state.kind, state.given if granted else state.refused)
    except RuleError as error:
        reason = refusal_text(rule_refused(error, ruleset))
    except UserError as refusal:
        reason = refusal_text(refusal)
    else:
        outcome = (RequestGranted if granted else RequestRefused)(name=name, asked=asked, user=answer.by)
        return replace(Step(outcomes=(outcome,)).then(rolled), by=state.by)
    dropped = RequestDropped(name=name, asked=asked, user=answer.by, reason=reason.to_dict())
    return Step(outcomes=(dropped,), by=state.by)


def decision_notes(outcomes: Sequence[Outcome]) -> tuple[Text, ...]:
    """The line a roll that followed a request opens with: granted, refused, or not answered in time; or why no
    roll followed."""
    notes: list[Text] = []
    for outcome in outcomes:
        if isinstance(outcome, RequestDropped):
            notes.append(Text("request.note_dropped", {"name": outcome.name, "reason": Text.from_dict(outcome.reason)}))
        elif isinstance(outcome, RequestGranted):
            notes.append(Text("request.note_granted", {"name": outcome.name}))
        elif isinstance(outcome, RequestRefused):
            key = "request.note_refused" if outcome.user is not None else "request.note_expired"
            notes.append(Text(key, {"name": outcome.name}))
    return tuple(notes)
