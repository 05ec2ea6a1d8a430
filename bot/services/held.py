"""Who may act, for every ruleset: sheets held for a GM's approval, and characters out of play.

A player's file that sets values the rules leave to the GM (each ruleset names them) creates the character
at once, held: the GMs get a prompt to approve or reject it, and until they approve it the character cannot
act. Approval is a wait for the GMs like any other, so `/gm pending` lists it and it survives restarts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from bot.errors import UserError
from rules.exchange import Answer, Audience, Option, Outcome, Pause, Resumption, StatePatch, Step, Text, Wait
from rules.play import CharacterSnapshot, Play, Scene

# The character state key: the fields waiting for approval, or REJECTED.
HELD = "held_for_approval"
REJECTED = "rejected"
SHEET_APPROVAL = "sheet_approval"
EXCHANGE_KIND = "character.approval"
SUBJECT = "character"
APPROVE = "approve"
REJECT = "reject"


class SheetApproved(Outcome):
    event = "character.approved"
    name: str


class SheetRejected(Outcome):
    event = "character.rejected"
    name: str


class Approving(Resumption):
    """A held sheet waiting for the GMs: the character is the exchange's SUBJECT, so nothing else is kept."""

    stored_as: ClassVar[str] = SHEET_APPROVAL


def approval_step(name: str, fields: Sequence[str], *, private: bool = False) -> Step:
    """The first step of a held sheet: nothing changes yet, the GMs are asked. Where sheets are private, the prompt
    in the channel does not list the values: the GMs read them with /character show, privately."""
    decided = {"name": name}
    options = (
        Option(APPROVE, Text("sheet.approve"), tone="success", summary=Text("sheet.approved", decided)),
        Option(REJECT, Text("sheet.reject"), tone="danger", summary=Text("sheet.rejected_by_gm", decided)),
    )
    prompt = (
        Text("sheet.held_prompt_private", {"name": name})
        if private
        else Text("sheet.held_prompt", {"name": name, "fields": "\n".join(f"- {field}" for field in fields)})
    )
    wait = Wait(SHEET_APPROVAL, Audience.gms(), prompt, options)
    return Step(pause=Pause(Approving(), (wait,)))


def decide(play: Play, ruleset: str, scene: Scene, state: Approving, answer: Answer) -> Step:
    """The GMs' answer: the sheet approved, or rejected for good."""
    character = scene.one(SUBJECT)
    if answer.option == APPROVE:
        return Step(effects=(StatePatch(SUBJECT, HELD, None),), outcomes=(SheetApproved(name=character.name),))
    return Step(effects=(StatePatch(SUBJECT, HELD, REJECTED),), outcomes=(SheetRejected(name=character.name),))


def refuse_held(character: CharacterSnapshot) -> None:
    """A held sheet cannot act until a GM approves it; a rejected one never will."""
    held = character.state.get(HELD)
    if held == REJECTED:
        raise UserError("error.sheet_rejected", name=character.name)
    if held:
        raise UserError("error.sheet_held", name=character.name)


def refuse_fallen(play: Play, ruleset: str, characters: Iterable[CharacterSnapshot]) -> None:
    """Nothing a dead or downed character does is accepted, nor one whose sheet a GM has not approved: the first
    one out of play refuses the command."""
    for character in characters:
        refuse_held(character)
        fate = play.out_of_play(character)
        if fate is not None:
            raise out_of_play(ruleset, character, fate)


def refuse_unreachable(play: Play, ruleset: str, targets: Iterable[CharacterSnapshot]) -> None:
    """An attack's targets: one that is down can still be hit (the next blow may finish it off), one that is gone
    for good (dead, vanished: the ruleset's `final_fates`) or whose sheet a GM has not approved cannot."""
    for target in targets:
        refuse_held(target)
        fate = play.out_of_play(target)
        if fate in play.final_fates:
            raise out_of_play(ruleset, target, fate)


def out_of_play(ruleset: str, character: CharacterSnapshot, fate: str) -> UserError:
    """The refusal for a character out of play, in its ruleset's words for that fate (dead, down...)."""
    return UserError(f"error.out_of_play.{fate}", name=character.name).within(ruleset)
