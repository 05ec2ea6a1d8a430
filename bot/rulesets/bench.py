"""What a ruleset declares for `fatebot bench` (bot/bench.py) and the fault and crash tests: the exchange they time
and drive in its campaigns, move by move, as players of an English server would make it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The seats of a bench exchange: the player who starts it, the rival who answers, and the server's GM.
BENCH_SEATS = ("player", "rival", "gm")


@dataclass(frozen=True)
class BenchMove:
    """One move of a bench exchange, timed in the row `name` (moves of one name share a row). The move's seat (one
    of `BENCH_SEATS`) sends `command` with `options`; or, given `buttons`, clicks the first of them on the newest
    message it sees carrying one, and again while such a message follows (an answer of several clicks, each
    timed; none when the dice left nothing to answer). A command answered privately was refused, and stops the
    bench, unless `private_answer` says that it may be (a heal of someone unhurt is told to the GM alone)."""

    name: str
    seat: str
    command: str = ""
    options: Mapping[str, str | int] = field(default_factory=dict)
    buttons: tuple[str, ...] = ()
    private_answer: bool = False

    @classmethod
    def award(cls, character: str, resource: str, amount: int) -> BenchMove:
        """A GM's `/gm award` (healing a defender before each attack, say): told privately when it changes
        nothing, a pool already at its limit."""
        options: dict[str, str | int] = {"character": character, "resource": resource, "amount": amount}
        return cls("/gm award", "gm", "gm award", options, private_answer=True)


@dataclass(frozen=True)
class BenchExchange:
    """An exchange `fatebot bench` times in a ruleset's campaigns: its `moves`, in order, as the server's English
    names the buttons. `sheets` are the characters the player and then the rival import, each a template's kind
    with fields set on it; each acts with its last. Without sheets, the player imports the template of the
    ruleset's first kind and the rival none."""

    moves: tuple[BenchMove, ...]
    sheets: tuple[tuple[tuple[str, Mapping[str, Any]], ...], tuple[tuple[str, Mapping[str, Any]], ...]] | None = None
