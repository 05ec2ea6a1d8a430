"""The one place where CPU-bound work runs: pictures, character files, exports and the fitting of large files.

The jobs run in a thread pool of their own, not the event loop's default executor (which the database driver and
everything else share), and each user may have only a few in the pool at once: a user who asks for many at once
is refused at once, in words, so one person's burst never queues everyone else's work behind it. Each job is
awaited for a bounded time; a thread cannot be stopped, so a job that times out keeps its user's place in the
pool until its thread is done, and what bounds its cost is the job itself (a map draws a bounded number of
cells and names whatever the coordinates; a file is bounded in size).
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from bot.errors import UserError

# Threads of the pool: more than one user's share, so others' jobs keep moving while one user's run.
WORKER_THREADS = 4
# Jobs one user may have in the pool at once (an export and a picture beside it).
JOBS_PER_USER = 2
# How long a job is awaited, its wait for a thread included.
JOB_SECONDS = 20.0

P = ParamSpec("P")
T = TypeVar("T")


class Workers:
    """A pool of threads for CPU-bound jobs, with a limit of jobs per user and a time limit per job."""

    def __init__(
        self, threads: int = WORKER_THREADS, *, per_user: int = JOBS_PER_USER, seconds: float = JOB_SECONDS
    ) -> None:
        self.per_user = per_user
        self.seconds = seconds
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="fatebot-job")
        # Jobs in the pool per user; a job's thread gives its place back, so the count is kept under a lock.
        self._held: Counter[int] = Counter()
        self._lock = threading.Lock()

    async def run(self, user_id: int, job: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """The job's result, computed in the pool for `user_id`. Refused at once (`error.job_busy`) when the user
        has `per_user` jobs there already; `error.job_too_long` when it is not done within `seconds`."""
        with self._lock:
            if self._held[user_id] >= self.per_user:
                raise UserError("error.job_busy")
            self._held[user_id] += 1
        started = self._pool.submit(functools.partial(job, *args, **kwargs))
        # Called in the job's thread when it ends, or at once if it is cancelled before it ran.
        started.add_done_callback(lambda _: self._give_back(user_id))
        try:
            async with asyncio.timeout(self.seconds):
                # Cancelled on timeout: a job still waiting for a thread never runs; a running one runs on.
                return await asyncio.wrap_future(started)
        except TimeoutError as error:
            raise UserError("error.job_too_long") from error

    def _give_back(self, user_id: int) -> None:
        with self._lock:
            self._held[user_id] -= 1
            if not self._held[user_id]:
                del self._held[user_id]


# The process's one pool: every bot object in it (one per group of shards) shares the same processors.
WORKERS = Workers()
