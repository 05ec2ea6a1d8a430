"""Every ruleset's exchange as it declares it for `fatebot bench` (`Ruleset.bench`), driven by the fault and crash
tests: opened with the bot up, answered under a fault or a kill, and then seen through to its end."""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from bot.bench import Players, answerable, make
from bot.emulator.models import Channel, InteractionRecord, Message
from bot.rulesets.bench import BenchExchange, BenchMove
from bot.rulesets.registry import RULESETS


def exchange_of(ruleset: str) -> BenchExchange:
    exchange = RULESETS[ruleset].bench
    assert exchange is not None, f"{ruleset} declares no exchange"
    return exchange


# The rulesets whose exchange ends with a click on a prompt (the others end with a command).
ANSWERED_BY_A_CLICK = [ruleset for ruleset in RULESETS if not exchange_of(ruleset).moves[-1].command]


@dataclass(frozen=True)
class Declared:
    """A ruleset's exchange in one of its campaigns."""

    players: Players
    ruleset: str
    channel: Channel

    @property
    def exchange(self) -> BenchExchange:
        return exchange_of(self.ruleset)

    @property
    def opening(self) -> list[BenchMove]:
        """The GMs' moves before anyone else's."""
        moves = list(self.exchange.moves)
        return moves[: next(number for number, move in enumerate(moves) if move.seat != "gm")]

    @property
    def played(self) -> BenchMove:
        """The first move after the GMs' opening: the player's command."""
        return self.exchange.moves[len(self.opening)]

    @property
    def last(self) -> BenchMove:
        return self.exchange.moves[-1]

    async def made(self, moves: list[BenchMove]) -> None:
        """The moves, in order, their clicks on any prompt of the campaign still waiting for them."""
        for move in moves:
            await make(self.players, self.channel, move, 0)

    def prompt(self) -> Message | None:
        """The prompt the last move clicks first, when one waits for it."""
        return answerable(self.players, self.players.seated(self.last.seat), self.channel, self.last.buttons, 0)

    def answer(self, *, wait: bool = True, settle: bool = True) -> Coroutine[Any, Any, InteractionRecord] | None:
        """The last move's first interaction, to be awaited: its command, or its click on the prompt waiting for
        its seat (None when the dice left nothing to answer)."""
        emulator, user = self.players.emulator, self.players.seated(self.last.seat)
        if self.last.command:
            return emulator.slash(user, self.channel, self.last.command, self.last.options, wait=wait, settle=settle)
        prompt = self.prompt()
        if prompt is None:
            return None
        label = next(label for label in self.last.buttons if label in prompt.buttons())
        return emulator.click(user, prompt, label, wait=wait, settle=settle)

    async def open_until_answerable(self, tries: int = 20) -> None:
        """The exchange but its last move, again (a new round, a new attack) until something waits for the last
        move: an attack can miss (grail_zh's bench attack leaves something to answer about half the time, so
        twenty tries all miss about once in three hundred thousand)."""
        for _ in range(tries):
            await self.made(list(self.exchange.moves[:-1]))
            if self.last.command or self.prompt() is not None:
                return
        raise AssertionError(f"{self.ruleset}: nothing to answer after {tries} tries")

    async def see_through(self) -> None:
        """Everything of the exchange still waiting is answered: each prompt showing its buttons by its seat, and
        whatever was never posted by a GM from `/gm pending`, until nothing the exchange's buttons answer is left."""
        emulator, gm = self.players.emulator, self.players.gm
        clicks = [move for move in self.exchange.moves if move.buttons]
        buttons = {label for move in clicks for label in move.buttons}
        await self.made(clicks)
        for _ in range(len(self.exchange.moves)):
            listed = await emulator.slash(gm, self.channel, "gm pending")
            pending = [message for message in listed.replies if buttons & set(message.buttons())]
            if not pending:
                return
            for message in pending:
                label = next(label for label in message.buttons() if label in buttons)
                assert (await emulator.click(gm, message, label)).error is None
            await self.made(clicks)
