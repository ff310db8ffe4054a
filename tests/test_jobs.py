"""Cancellable jobs: the newest start wins, cancel stops between chunks, errors reach the section."""
import asyncio

from weighttying.app.jobs import Job


def chunks(n, seen):
    for i in range(n):
        seen.append(i)
        yield i


def test_new_start_cancels_stale_job_and_cancel_stops_between_chunks():
    async def main():
        job, a, b, done = Job(), [], [], []
        job.start(chunks(1000, a), lambda i: None, done.append)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        job.start(chunks(5, b), lambda i: None, done.append)
        await asyncio.sleep(0.01)
        assert len(a) < 10 and b == [0, 1, 2, 3, 4] and done == [4]
        c = []
        job.start(chunks(1000, c), lambda i: None, done.append)
        await asyncio.sleep(0)
        assert job.cancel()
        await asyncio.sleep(0.01)
        assert len(c) < 10 and done == [4] and not job.running and not job.cancel()
    asyncio.run(main())


def test_errors_are_reported_not_raised():
    def boom():
        yield 1
        raise FloatingPointError("diverged")

    async def main():
        errs = []
        await Job().start(boom(), lambda i: None, on_error=errs.append)
        assert [str(e) for e in errs] == ["diverged"]
    asyncio.run(main())
