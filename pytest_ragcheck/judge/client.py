"""Calling the judge through litellm: the only module that imports litellm.

Our own retry loop (exponential backoff with jitter, ``Retry-After`` honoured) on rate limits,
5xx, timeouts and connection errors; the SDK's retries are off (``max_retries=0``), because
they would multiply requests behind the budget's back. Every HTTP request counts against
``judge_max_calls``, and every failed one is counted by its kind (:mod:`.failures`) so that a
budget spent on failures says which. A malformed answer is re-asked once, then reported.

``judge_timeout`` bounds each whole request, body included: litellm's ``timeout`` is the
HTTP client's, which waits that long for each read, so an endpoint that trickles its answer a
byte at a time would hold a call for as long as it likes. Each call runs under
:func:`asyncio.wait_for`; running out of time is a timeout like any other (retried).

litellm is imported on first need, after setting the environment that keeps it quiet and
offline at import: the bundled model cost map, production mode (no ``.env`` loading) and
error-only logging. Its own warnings are silenced while it runs so that projects with
``filterwarnings = error`` keep working; the HTTP clients it creates during a run are closed
before the run's event loop ends (no unclosed-socket warnings later).

Error texts and answers pass :mod:`pytest_ragcheck.common.redact` before anything else sees them: an
endpoint (a proxy, a gateway) may echo the API key it was given.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import math
import os
import sys
import warnings
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from types import ModuleType
from typing import Any, Literal

from pytest_ragcheck.common.display import shorten
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.common.redact import redact, redact_data, remember
from pytest_ragcheck.judge.failures import (
    Failures,
    RequestTimeout,
    failure_label,
    is_fatal,
    is_transient,
    malformed_label,
)
from pytest_ragcheck.judge.prompts import Prompt
from pytest_ragcheck.judge.retry import Budget, RetryPolicy, retry_after_seconds, status_code
from pytest_ragcheck.judge.schemas import MalformedAnswer, parse_answer

__all__ = [
    "INSTALL_HINT",
    "Budget",
    "CallError",
    "JudgeClient",
    "RetryPolicy",
    "import_litellm",
    "litellm_installed",
    "quiet_litellm",
    "retry_after_seconds",
]

INSTALL_HINT = 'pip install "pytest-ragcheck[llm]"'

#: Set (unless the user set them) before litellm is imported.
LITELLM_ENVIRONMENT = {
    # use the cost map bundled with the package instead of downloading it at import
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    # "DEV" (the default) loads .env files from the working directory at import
    "LITELLM_MODE": "PRODUCTION",
    "LITELLM_LOG": "ERROR",
}

#: Sent as the key to a self-hosted ``api_base`` when the provider's key variable is unset;
#: OpenAI-compatible servers without authentication ignore it. Never stored.
KEYLESS_API_KEY = "not-needed"

FailureKind = Literal["budget", "fatal", "failed", "malformed"]


def litellm_installed() -> bool:
    """True when litellm can be imported (checked without importing it)."""
    return "litellm" in sys.modules or importlib.util.find_spec("litellm") is not None


@contextmanager
def quiet_litellm() -> Iterator[None]:
    """Silence warnings while litellm runs: its notices are not the user's to fix.

    Enter it once around a whole run (never per coroutine: ``catch_warnings`` saves and
    restores process-wide state, so interleaved entries would leak filters).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def import_litellm() -> ModuleType:
    """Import litellm in its quiet configuration, or raise a usage error with the fix."""
    if not litellm_installed():
        raise ConfigError(
            f"LLM-judge metrics need litellm, which is not installed: {INSTALL_HINT} "
            "(or record verdicts where it is installed and run with --ragcheck-judge-offline)"
        )
    if "litellm" not in sys.modules:
        for name, value in LITELLM_ENVIRONMENT.items():
            os.environ.setdefault(name, value)
    try:
        with quiet_litellm():
            import litellm
    except ImportError as exc:  # pragma: no cover - a broken installation
        raise ConfigError(f"cannot import litellm ({exc}); reinstall it: {INSTALL_HINT}") from exc
    litellm.suppress_debug_info = True
    return litellm


class CallError(Exception):
    """One judge call that produced no usable answer."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class JudgeClient:
    """Sends judge requests for one run, inside one event loop."""

    def __init__(
        self,
        *,
        model: str,
        api_base: str | None,
        timeout: float,
        concurrency: int,
        budget: Budget,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        litellm: ModuleType | None = None,
    ) -> None:
        self.model = model
        self.api_base = api_base
        self.timeout = timeout
        self.budget = budget
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._litellm = litellm or import_litellm()
        self._semaphore = asyncio.Semaphore(concurrency)
        self._api_key = self._keyless_key()
        remember(api_base=api_base)  # its user info and key parameters are secrets
        self._fatal: str | None = None
        self._clients_before: set[Any] = set()
        #: Requests sent, retries among them, and the failed ones by kind.
        self.calls = 0
        self.retries = 0
        self.failures = Failures()

    def _keyless_key(self) -> str | None:
        """A placeholder key for a self-hosted endpoint when no key is configured."""
        if not self.api_base:
            return None
        try:
            with quiet_litellm():
                env = self._litellm.validate_environment(model=self.model)
        except Exception:
            return None
        missing = env.get("missing_keys") if isinstance(env, Mapping) else None
        if missing and any(str(k).endswith("_API_KEY") for k in missing):
            return KEYLESS_API_KEY
        return None

    async def __aenter__(self) -> JudgeClient:
        self._clients_before = set(self._client_cache_dict())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _client_cache_dict(self) -> dict[Any, Any]:
        cache = getattr(self._litellm, "in_memory_llm_clients_cache", None)
        entries = getattr(cache, "cache_dict", None)
        return entries if isinstance(entries, dict) else {}

    async def aclose(self) -> None:
        """Close the HTTP clients litellm created in this loop and stop its log worker."""
        cache = getattr(self._litellm, "in_memory_llm_clients_cache", None)
        for key in [k for k in self._client_cache_dict() if k not in self._clients_before]:
            client = self._client_cache_dict().get(key)
            for name in ("aclose", "close"):
                method = getattr(client, name, None)
                if callable(method):
                    try:
                        result = method()
                        if inspect.isawaitable(result):
                            await result
                    except Exception:
                        pass
                    break
            delete = getattr(cache, "delete_cache", None)
            if callable(delete):
                delete(key)
        worker_module = sys.modules.get("litellm.litellm_core_utils.logging_worker")
        worker = getattr(worker_module, "GLOBAL_LOGGING_WORKER", None)
        stop = getattr(worker, "stop", None)
        if callable(stop):
            try:
                result = stop()
                if inspect.isawaitable(result):
                    await result
            except Exception:
                pass

    async def ask(
        self, prompt: Prompt, messages: list[dict[str, str]], *, temperature: float
    ) -> dict[str, Any]:
        """One validated answer; a malformed one is re-asked once. Raises :class:`CallError`."""
        content = await self._request(prompt, messages, temperature)
        try:
            return redact_data(parse_answer(prompt.kind, content))
        except MalformedAnswer as first:
            self.failures.note(malformed_label(str(first)))
            reask = [
                *messages,
                {"role": "assistant", "content": content or ""},
                {
                    "role": "user",
                    "content": (
                        f"Your answer could not be used: {first}. Reply again with only a JSON "
                        "object that matches the requested schema."
                    ),
                },
            ]
            second_content = await self._request(prompt, reask, temperature)
            try:
                return redact_data(parse_answer(prompt.kind, second_content))
            except MalformedAnswer as second:
                self.failures.note(malformed_label(str(second)))
                message = (
                    f"malformed judge answer after one re-ask: {second} (first answer: {first})"
                )
                raise CallError("malformed", redact(message)) from None

    async def _request(
        self, prompt: Prompt, messages: list[dict[str, str]], temperature: float
    ) -> str | None:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "response_format": prompt.response_format,
            "temperature": temperature,
            "timeout": self.timeout,
            "max_retries": 0,
            "num_retries": 0,
            "drop_params": True,
        }
        return _content(await self._send(self._litellm.acompletion, kwargs))

    async def embed(self, model: str, texts: list[str]) -> list[list[float]]:
        """Embeddings of ``texts`` in one request (retried and budgeted like verdicts).

        Raises :class:`CallError` for a failed call or an answer that is not one vector of
        numbers per text.
        """
        kwargs: dict[str, Any] = {
            "model": model,
            "input": texts,
            "timeout": self.timeout,
            "max_retries": 0,
            "num_retries": 0,
            "drop_params": True,
        }
        response = await self._send(self._litellm.aembedding, kwargs)
        try:
            vectors = [_vector(item) for item in response.data]
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise CallError("malformed", f"malformed embedding response: {exc}") from None
        if len(vectors) != len(texts):
            raise CallError(
                "malformed",
                f"malformed embedding response: {len(vectors)} vectors for {len(texts)} texts",
            )
        return vectors

    async def _send(self, method: Callable[..., Awaitable[Any]], kwargs: dict[str, Any]) -> Any:
        """One litellm call with the retry loop, the budget and the concurrency bound."""
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key is not None:
            kwargs["api_key"] = self._api_key
        attempt = 0
        while True:
            async with self._semaphore:
                # checked once a slot is free: an earlier call may have failed for good, or
                # spent the last of the budget, while this one waited
                if self._fatal is not None:
                    raise CallError("fatal", self._fatal)
                if not self.budget.take():
                    raise CallError("budget", self._budget_message())
                attempt += 1
                self.calls += 1
                if attempt > 1:
                    self.retries += 1
                try:
                    return await self._within_timeout(method(**kwargs))
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    self.failures.note(failure_label(self._litellm, exc))
                    delay = self._transient_delay(exc, attempt)
                    if delay is None:
                        raise self._final_error(exc) from None
                    if attempt >= self.policy.attempts:
                        reason = _error_text(exc)
                        raise CallError(
                            "failed", f"judge call failed after {attempt} attempts: {reason}"
                        ) from None
            await self._sleep(delay)  # outside the slot: others may proceed meanwhile

    async def _within_timeout(self, call: Awaitable[Any]) -> Any:
        """``call`` cancelled once ``judge_timeout`` has passed, however it is progressing."""
        try:
            return await asyncio.wait_for(call, self.timeout)
        except TimeoutError:
            raise RequestTimeout(
                f"no complete answer within judge_timeout={self.timeout:g} s"
            ) from None

    def _budget_message(self) -> str:
        message = f"judge budget exhausted (judge_max_calls={self.budget.limit}"
        failed = self.failures.total
        if failed:
            message += f"; {failed} call(s) failed: {self.failures}"
        return message + ")"

    def _transient_delay(self, exc: BaseException, attempt: int) -> float | None:
        """Seconds to wait before retrying ``exc``, or ``None`` when it is not transient."""
        lm = self._litellm
        if not is_transient(lm, exc):
            return None
        if status_code(exc) == 429 or isinstance(exc, getattr(lm, "RateLimitError", ())):
            wait = retry_after_seconds(exc)
            if wait is not None:
                return min(wait, self.policy.max_retry_after)
        return self.policy.backoff(attempt)

    def _final_error(self, exc: BaseException) -> CallError:
        text = _error_text(exc)
        if is_fatal(self._litellm, exc, text):
            hint = (
                "check the judge model name, its api_base and the provider's API key "
                "environment variable (e.g. OPENAI_API_KEY)"
            )
            self._fatal = f"the judge cannot be used ({text}); {hint}"
            return CallError("fatal", self._fatal)
        return CallError("failed", f"judge call failed: {text}")


def _error_text(exc: BaseException) -> str:
    """The error on one line, without any API key the endpoint echoed (redacted before it is
    shortened, so no cut-off piece of a key is left)."""
    return shorten(redact(str(exc)), 300)


def _vector(item: Any) -> list[float]:
    raw = item["embedding"] if isinstance(item, Mapping) else item.embedding
    if not isinstance(raw, list) or not all(
        isinstance(x, int | float) and not isinstance(x, bool) for x in raw
    ):
        raise ValueError("an embedding is not a list of numbers")
    if not all(math.isfinite(x) for x in raw):  # never cached: the next run asks again
        raise ValueError("an embedding holds a value that is not a finite number")
    return [float(x) for x in raw]


def _content(response: Any) -> str | None:
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, KeyError, TypeError):
        return None
    return content if isinstance(content, str) else None
