"""The real bot connected to the emulator, with dice the tests can load, restartable on the same database."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable

from bot.app import Fatebot, point_at
from bot.db.engine import Database
from bot.emulator import Emulator
from bot.emulator.models import BotOutput, Channel, Guild, InteractionRecord, Message, User
from rules.dice import SeededDice

EVENTUALLY_SECONDS = 5
# Tests move the clock past a deadline and expect the bot to notice soon after.
DEADLINE_POLL_SECONDS = 0.05


def free_port() -> int:
    """A TCP port nobody listens on now, for a server a test starts (the bot's `/health`)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class QueuedDice:
    """Hands out the faces a test queued, then seeded ones: a test states only the dice it asserts on."""

    def __init__(self) -> None:
        self._queued: deque[int] = deque()
        self._fallback = SeededDice(7)

    def queue(self, faces: Iterable[int]) -> None:
        self._queued.extend(faces)

    def roll(self, count: int, sides: int) -> list[int]:
        faces = [self._queued.popleft() for _ in range(min(count, len(self._queued)))]
        for face in faces:
            assert 1 <= face <= sides, f"queued face {face} does not fit a d{sides}"
        return faces + self._fallback.roll(count - len(faces), sides)


class Harness:
    def __init__(self, emulator: Emulator, database_url: str) -> None:
        self.emulator = emulator
        self.database_url = database_url
        self.dice = QueuedDice()
        self.bot: Fatebot | None = None
        self._task: asyncio.Task[None] | None = None
        self._names = itertools.count(1)
        # Whether the bot reads plain messages (set before it starts).
        self.read_messages = False

    async def start_bot(self) -> Fatebot:
        database = Database.from_url(self.database_url)
        # The bot keeps the emulator's time, so a test that moves the clock moves the bot's deadlines too.
        bot = Fatebot(
            database, self.dice, clock=self.emulator.clock.now, guild_ready_timeout=0.05,
            deadline_poll_seconds=DEADLINE_POLL_SECONDS, read_messages=self.read_messages,
        )  # fmt: skip
        self._task = asyncio.create_task(bot.start(self.emulator.bot_token))
        self.bot = bot
        await self.emulator.wait_ready()
        return bot

    async def stop_bot(self) -> None:
        if self.bot is None:
            return
        await self.bot.close()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.bot.database.dispose()
        self.bot = None

    async def restart(self) -> Fatebot:
        """A new process in all but name: a new bot object, new connection, same database."""
        await self.stop_bot()
        return await self.start_bot()

    def new_channel(self, guild: Guild) -> Channel:
        return self.emulator.add_channel(guild, f"scene-{next(self._names)}")

    async def slash(
        self, user: User, channel: Channel, command: str, /, locale: str | None = None, **options: object
    ) -> InteractionRecord:
        return await self.emulator.slash(user, channel, command, options, locale=locale)

    def seen_by(self, user: User, channel: Channel) -> str:
        """All the text the user can see in the channel, for asserting what leaks and what does not."""
        return "\n".join(message.text() for message in self.emulator.visible_to(user, channel))

    async def eventually(self, check: Callable[[], bool]) -> None:
        """Wait for something the bot does after it answered (a DM after the reply), without a fixed sleep."""
        arrived = asyncio.Event()

        def on_output(_: BotOutput) -> None:
            if check():
                arrived.set()

        self.emulator.add_listener(on_output)
        try:
            if not check():
                async with asyncio.timeout(EVENTUALLY_SECONDS):
                    await arrived.wait()
        finally:
            self.emulator.remove_listener(on_output)

    async def approve_sheet(self, gm: User, channel: Channel, name: str) -> None:
        """A GM approves the sheet of `name`, held because its file sets values only a GM may set."""
        prompt = self.last(channel, gm)
        assert name in prompt.content and len(prompt.buttons()) == 2, prompt.content
        approve = prompt.buttons()[0]  # Approve, in the campaign's language, then Reject
        answered = await self.emulator.click(gm, prompt, approve)
        assert answered.error is None, answered.error

    def current(self, message: Message) -> Message:
        """The message as it is now, after any edits."""
        return next(stored for stored in self.emulator.messages if stored.id == message.id)

    def last(self, channel: Channel, user: User) -> Message:
        return self.emulator.last_message(channel, visible_to=user)

    def mention(self, path: str) -> str:
        """A command as the bot's messages name it: Discord's mention of the synced command, `</character use:ID>`."""
        top = path.split(maxsplit=1)[0]
        command_id = next(command["id"] for command in self.emulator.commands() if command["name"] == top)
        return f"</{path}:{command_id}>"

    async def prompt_with(self, channel: Channel, user: User, label: str) -> Message:
        """The newest message the user sees in the channel with that button, once the bot has posted one: a prompt
        that follows a click's answer may come after the emulator has gone quiet (a busy machine)."""

        def newest() -> Message | None:
            shown = self.emulator.visible_to(user, channel)
            return next((message for message in reversed(shown) if label in message.buttons()), None)

        await self.eventually(lambda: newest() is not None)
        found = newest()
        assert found is not None
        return found


@contextlib.asynccontextmanager
async def running_harness(database_url: str) -> AsyncIterator[Harness]:
    async with Emulator(seed=11) as emulator:
        restore = point_at(emulator.api_base, emulator.gateway_url)
        harness = Harness(emulator, database_url)
        try:
            yield harness
        finally:
            await harness.stop_bot()
            restore()
