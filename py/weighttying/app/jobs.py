"""Long computations as cancellable asyncio tasks that yield to the event loop between chunks.

In the worker there is one Python thread. A training run is a generator whose every `next()` is
one short chunk; between chunks we await, so the worker's message handler runs, other sections'
widgets stay live and a Cancel click lands. Starting a job cancels the one before it, so a result
computed for a stale setting is never shown.
"""
from __future__ import annotations

import asyncio
from typing import Callable, Iterator, TypeVar

T = TypeVar("T")


class Job:
    """At most one running computation per owner; the newest start wins."""

    def __init__(self) -> None:
        self._task: asyncio.Task | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def task(self) -> asyncio.Task | None:
        """The newest computation's task (done once it has ended), None before the first start."""
        return self._task

    def start(self, steps: Iterator[T], on_step: Callable[[T], None],
              on_done: Callable[[T | None], None] = lambda last: None,
              on_error: Callable[[Exception], None] = lambda err: None) -> asyncio.Task:
        """Drive `steps` in the background, calling on_step after each chunk."""
        self.cancel()
        self._task = asyncio.ensure_future(self._drive(steps, on_step, on_done, on_error))
        return self._task

    def cancel(self) -> bool:
        """Stop the running computation, if any; True when there was one to stop."""
        if not self.running:
            return False
        self._task.cancel()
        return True

    @staticmethod
    async def _drive(steps, on_step, on_done, on_error) -> None:
        last = None
        try:
            if hasattr(steps, "__aiter__"):  # a run in other workers (app.pooled): it awaits their messages
                async for last in steps:
                    on_step(last)
            else:
                for last in steps:
                    on_step(last)
                    await asyncio.sleep(0)
        except asyncio.CancelledError:
            # The driver is the task's outermost frame and nobody awaits it: ending quietly keeps
            # Pyodide's event loop from logging every Cancel click as an error.
            return
        except Exception as err:  # a reader's setting broke the numerics: say so in the section
            on_error(err)
            return
        on_done(last)
