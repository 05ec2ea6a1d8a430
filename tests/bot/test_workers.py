"""The workers' bounds: a user's jobs beyond their share are refused at once while others' run; a job past its time
is answered "too long" and keeps its user's place until its thread is done; one that never got a thread never
runs."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from bot.errors import UserError
from bot.workers import Workers

FLOODER, NEIGHBOUR = 1, 2
# Long enough for any machine to start a thread, short enough for a test.
SHORT = 0.3


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """Held jobs wait for it; it opens at the end of the test whatever happened, so no thread outlives the test."""
    opened = threading.Event()
    yield opened
    opened.set()


def held(gate: threading.Event, ran: list[str] | None = None, name: str = "") -> str:
    gate.wait()
    if ran is not None:
        ran.append(name)
    return name


async def test_a_users_jobs_past_their_share_are_refused_while_another_users_run(gate: threading.Event) -> None:
    workers = Workers(3, per_user=2, seconds=30)
    flooding = [asyncio.ensure_future(workers.run(FLOODER, held, gate)) for _ in range(2)]
    await asyncio.sleep(0)  # they take their places
    for _ in range(5):
        with pytest.raises(UserError) as refused:
            await workers.run(FLOODER, held, gate)
        assert refused.value.key == "error.job_busy"
    assert await asyncio.wait_for(workers.run(NEIGHBOUR, sum, [1, 2]), 5) == 3
    gate.set()
    assert await asyncio.gather(*flooding) == ["", ""]
    assert await workers.run(FLOODER, sum, [4]) == 4  # its places are free again


async def test_a_job_past_its_time_is_too_long_and_keeps_its_place_until_its_thread_ends(gate: threading.Event) -> None:
    workers = Workers(2, per_user=1, seconds=SHORT)
    with pytest.raises(UserError) as late:
        await workers.run(FLOODER, held, gate)
    assert late.value.key == "error.job_too_long"
    # The thread cannot be stopped: it still runs, so its user may not start another beside it.
    with pytest.raises(UserError) as refused:
        await workers.run(FLOODER, sum, [1])
    assert refused.value.key == "error.job_busy"
    gate.set()
    for _ in range(50):  # the thread gives its place back as it ends
        await asyncio.sleep(0.02)
        try:
            assert await workers.run(FLOODER, sum, [1]) == 1
            return
        except UserError:
            pass
    pytest.fail("the job's place was never given back")


async def test_a_job_whose_time_ran_out_before_it_had_a_thread_never_runs(gate: threading.Event) -> None:
    workers = Workers(1, per_user=2, seconds=SHORT)
    ran: list[str] = []
    first = asyncio.ensure_future(workers.run(NEIGHBOUR, held, gate, ran, "first"))
    await asyncio.sleep(0)
    with pytest.raises(UserError):
        await workers.run(NEIGHBOUR, held, gate, ran, "queued")  # the only thread is the first job's
    with pytest.raises(UserError):
        await first
    gate.set()
    await asyncio.sleep(SHORT)
    assert ran == ["first"]
    assert await workers.run(NEIGHBOUR, sum, [2]) == 2
