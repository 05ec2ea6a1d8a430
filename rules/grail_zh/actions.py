"""R25's turn economy in a fight: one standard, one move and one minor action on a character's own turn, each
refused once used; positions on the map and the distances they give (R27's sectors of 100x100 squares)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.exchange import Outcome, RuleError, StatePatch, Step, Text
from rules.grail_zh.characters import RUN_MULTIPLIER_MASTER, RUN_MULTIPLIER_SERVANT
from rules.grail_zh.stored import CONCEALED, grail_options, servant_like
from rules.play import CharacterSnapshot, Scene, Turn

ACTIONS = "actions"  # the character state key of the actions it used, and the round they were used in
STANDARD, MOVE, MINOR = "standard", "move", "minor"
TURN_ACTIONS = (STANDARD, MOVE, MINOR)
POSITION = "position"  # the character state key of its square: {"sector": [sx, sy], "x": x, "y": y}
SECTOR_SQUARES = 100
COMMITTED = "committed"  # the state key of standard actions of its next turns already spent on a spell (D37)
BARRIER = "barrier"  # the state key of a caster's alarm barrier: {"x", "y", "reach", "ready": round} (R21)
RUNNING_KEY = "running"  # the character state key of the round it ran in: no defence until its next turn (R26)


def used(character: CharacterSnapshot, turn: Turn) -> list[str]:
    actions = character.state.get(ACTIONS)
    if isinstance(actions, Mapping) and actions.get("round") == turn.round_number:
        return [str(action) for action in actions.get("used", [])]
    return []


def left(character: CharacterSnapshot, turn: Turn) -> tuple[Text, ...]:
    spent = used(character, turn)
    return tuple(Text(f"action.{action}") for action in TURN_ACTIONS if action not in spent)


def spend(scene: Scene, role: str, *actions: str) -> Step:
    """In a fight, the actions an act takes, refused when one is used already this round (with
    `action_downgrade`, D32, a move or minor action may take the standard action's place); outside one, nothing."""
    turn, character = scene.turn, scene.one(role)
    if not turn.in_combat:
        return Step()
    downgrade = grail_options(scene.options).action_downgrade
    spent = used(character, turn)
    for action in actions:
        if action == STANDARD and action in spent and character.state.get(RUNNING_KEY) == turn.round_number:
            raise RuleError("grail_ran", name=character.name)  # R26: a run leaves no standard action
        stands_in = downgrade and action in (MOVE, MINOR) and STANDARD not in spent
        if action in spent and not stands_in:
            raise RuleError("grail_action_used", name=character.name, action=Text(f"action.{action}"))
        spent.append(STANDARD if action in spent else action)
    return Step(effects=(StatePatch(role, ACTIONS, {"round": turn.round_number, "used": spent}),))


def given_back(role: str, character: CharacterSnapshot, turn: Turn, action: str) -> Step:
    """An action spent on something that did not happen, returned."""
    spent = used(character, turn)
    if action not in spent:
        return Step()
    spent.remove(action)
    return Step(effects=(StatePatch(role, ACTIONS, {"round": turn.round_number, "used": spent}),))


def committed_turn(role: str, character: CharacterSnapshot, turn: Turn) -> Step:
    """At the start of its turn, a standard action promised to a spell of an earlier turn is spent (D37)."""
    left = character.state.get(COMMITTED)
    if not isinstance(left, int) or left <= 0:
        return Step()
    rest = left - 1 or None
    return Step(
        effects=(
            StatePatch(role, ACTIONS, {"round": turn.round_number, "used": [STANDARD]}),
            StatePatch(role, COMMITTED, rest),
        )
    )


def square(character: CharacterSnapshot) -> tuple[int, int] | None:
    """The character's square in absolute coordinates across sectors, or None where the map is not kept."""
    position = character.state.get(POSITION)
    if not isinstance(position, Mapping):
        return None
    sector = position.get("sector") or [0, 0]
    return int(sector[0]) * SECTOR_SQUARES + int(position["x"]), int(sector[1]) * SECTOR_SQUARES + int(position["y"])


def sector_of(square: tuple[int, int]) -> tuple[int, int]:
    return square[0] // SECTOR_SQUARES, square[1] // SECTOR_SQUARES


def distance(first: CharacterSnapshot, second: CharacterSnapshot) -> int | None:
    """Chebyshev distance in squares (R25: adjacent is 1), or None when either has no square."""
    a, b = square(first), square(second)
    if a is None or b is None:
        return None
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def position_value(x: int, y: int, sector: tuple[int, int]) -> dict[str, Any]:
    if not (0 <= x < SECTOR_SQUARES and 0 <= y < SECTOR_SQUARES):
        raise RuleError("grail_off_the_sector", x=x, y=y, size=SECTOR_SQUARES)
    return {"sector": list(sector), "x": x, "y": y}


class Moved(Outcome):
    event = "character.moved"
    name: str
    ran: bool
    placed: bool  # set by a GM, not moved by its player
    secret: bool = False  # one in Presence Concealment: that it moves is its player's and the GMs' (R28)


def move(scene: Scene, role: str, x: int, y: int, sector: tuple[int, int], *, run: bool, speed: int | None) -> Step:
    """A move action within its speed (a run: four times a Master's, ten times a Servant's, and no standard action
    nor defence until its next turn, R26; no limit for what teleports), from the square it stands on: one not on
    the map yet is placed by a GM first, as a move from nowhere could take it anywhere."""
    character = scene.one(role)
    target = position_value(x, y, sector)
    here = square(character)
    if here is None:
        raise RuleError("grail_move_unplaced", name=character.name)
    there = (sector[0] * SECTOR_SQUARES + x, sector[1] * SECTOR_SQUARES + y)
    reach = None if speed is None else speed * (run_multiplier(character) if run else 1)
    if reach is not None and max(abs(here[0] - there[0]), abs(here[1] - there[1])) > reach:
        raise RuleError("grail_move_too_far", name=character.name, reach=reach)
    spent = spend(scene, role, MOVE, *((STANDARD,) if run else ()))
    effects = [StatePatch(role, POSITION, target)]
    if run:
        effects.append(StatePatch(role, RUNNING_KEY, scene.turn.round_number))
    moved = Moved(name=character.name, ran=run, placed=False, secret=CONCEALED in character.state)
    return spent.then(Step(effects=tuple(effects), outcomes=(moved,)))


def place(scene: Scene, role: str, x: int, y: int, sector: tuple[int, int]) -> Step:
    """A GM sets a character's square, spending nothing."""
    character = scene.one(role)
    moved = Moved(name=character.name, ran=False, placed=True, secret=CONCEALED in character.state)
    return Step(effects=(StatePatch(role, POSITION, position_value(x, y, sector)),), outcomes=(moved,))


def run_multiplier(character: CharacterSnapshot) -> int:
    """R26: a Master runs four times its speed, a Servant ten times."""
    return RUN_MULTIPLIER_SERVANT if servant_like(character) else RUN_MULTIPLIER_MASTER


def inside_barrier(owner: CharacterSnapshot, other: CharacterSnapshot, round_number: int) -> bool:
    """Whether `other` stands inside `owner`'s standing alarm barrier."""
    barrier, there = owner.state.get(BARRIER), square(other)
    if not isinstance(barrier, Mapping) or there is None or int(barrier["ready"]) > round_number:
        return False
    reach = int(barrier["reach"])
    return max(abs(there[0] - int(barrier["x"])), abs(there[1] - int(barrier["y"]))) <= reach
