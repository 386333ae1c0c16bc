"""Async retrievers, and the (sync) fixture called from inside pytest-asyncio tests."""

from __future__ import annotations

from textwrap import dedent

from harness import SERIAL_ONLY

RETRIEVERS = """
import asyncio

async def async_lookup(query):
    await asyncio.sleep(0.001)
    return lookup(query)

class AsyncOnly:
    \"\"\"Only a LangChain-style ``ainvoke``.\"\"\"

    async def ainvoke(self, query):
        await asyncio.sleep(0)
        return lookup(query)

LOOPS = []

async def loop_recording(query):
    LOOPS.append(id(asyncio.get_running_loop()))
    return lookup(query)
"""

EXPECTED = """
    # suite.PERFECT at k=2: precision@2 = (1/2 + 1/2 + 2/2 + 1/2) / 4
    assert result["precision@2"] == 0.625
    assert result["mrr@2"] == 1.0
"""


# Not about processes: pytest-xdist is covered by
# test_summary.py::test_summary_after_a_regression[xdist].
@SERIAL_ONLY
def test_async_retrievers_and_pytest_asyncio_tests(suite, run_mode):
    suite.make(
        dedent(
            """
            import pytest
            from conftest import AsyncOnly, async_lookup
            from pytest_ragcheck import ragcheck
            @ragcheck("golden.jsonl", k=2, baseline=False, min_mrr=0.9)
            @pytest.mark.parametrize("retriever", [async_lookup, AsyncOnly()], ids=["fn", "ainvoke"])
            def test_rag(ragcheck, retriever):
                result = ragcheck(retriever)
            """
        )
        + EXPECTED,
        extra=RETRIEVERS,
        name="test_sync",
    )
    suite.test(
        dedent(
            """
            import asyncio

            import pytest
            import conftest
            from conftest import async_lookup, loop_recording
            from pytest_ragcheck import ragcheck
            @pytest.mark.asyncio
            @ragcheck("golden.jsonl", k=2, baseline=False)
            async def test_sync_retriever(ragcheck, retriever):
                result = ragcheck(retriever)
            """
        )
        + EXPECTED
        + dedent(
            """

            @pytest.mark.asyncio
            @ragcheck("golden.jsonl", k=2, baseline=False)
            async def test_async_retriever(ragcheck):
                result = ragcheck(async_lookup)
            """
        )
        + EXPECTED
        + dedent(
            """

            @pytest.mark.asyncio
            @ragcheck("golden.jsonl", k=2, baseline=False)
            async def test_loop_is_left_alone(ragcheck):
                running = asyncio.get_running_loop()
                ragcheck(loop_recording)
                # The retriever ran on another loop; the test's loop still runs, unpatched.
                assert conftest.LOOPS
                assert id(running) not in conftest.LOOPS
                assert asyncio.get_running_loop() is running
                assert not hasattr(asyncio, "_nest_patched")
                await asyncio.sleep(0)
            """
        ),
        name="test_asyncio",
    )
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=5)


def test_async_retriever_errors_and_timeouts(suite):
    suite.make(
        """
        from conftest import flaky
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=2, baseline=False, timeout=0.3)
        def test_rag(ragcheck):
            ragcheck(flaky)
        """,
        extra="""
        import asyncio

        async def flaky(query):
            if "beta" in query:
                raise RuntimeError("async backend down")
            if "gamma" in query:
                await asyncio.sleep(5)
            return lookup(query)
        """,
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    result.stdout.fnmatch_lines(
        [
            "*The retriever failed on 2 of 4 case(s)*",
            "*q2  'what is beta': RuntimeError: async backend down*",
            "*q3  'gamma and delta': timed out after 0.3 s*",
        ]
    )
