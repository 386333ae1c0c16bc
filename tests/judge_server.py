"""A small OpenAI-compatible chat-completions server for the judge tests and benchmark.

It answers ``POST /v1/chat/completions`` with deterministic verdicts derived from markers in
the retrieved text, so that tests can compute the exact expected metric values:

* ``[g=N]`` in a chunk sets its grade ``N`` (0-3, default 0);
* relevance (``llm_relevancy`` / ``llm_precision``): ``yes`` iff grade >= 1;
* usefulness (``context_precision``): ``yes`` iff grade >= 2;
* grade (``llm_ndcg``) and source (``llm_source_quality``): the grade;
* aspects (``llm_aspect_recall``, ``llm_alpha_ndcg``): ``[aspects=a,b]`` in the query
  lists the aspects (default one, ``main``); ``[c=a,b]`` in a chunk, the aspects it covers;
* score (``rerank_relevancy``): ``[s=X]`` if present, else grade / 3;
* claims (``context_recall``): the reference answer split on ``.``; a claim is attributed iff
  one of its ``F<digits>`` fact tokens appears in the context.

Questions about a pipeline's generated answer (sentences are split on ``.``):

* faithfulness: each answer sentence is a claim, supported iff it appears (case-insensitively)
  in a retrieved passage, with itself as the quote; an unsupported claim has quote ``""``;
* questions (``answer_relevancy``): one question per answer sentence (the sentence + ``?``);
  noncommittal iff the answer contains "I don't know";
* correctness: answer sentences found in the reference are TP, the others FP; reference
  sentences not found in the answer are FN;
* completeness: each reference sentence is a claim, covered iff it appears in the answer.
* truthfulness: ``[grade=WORD]`` in the answer is the grade (any word, for malformed grades);
  else, asked with a reference answer: ``perfect`` when every reference sentence is in the
  answer and every answer sentence in the reference, ``acceptable`` when some reference
  sentence is in the answer, ``missing`` for an answer containing "I don't know",
  ``incorrect`` otherwise; asked without one (the collection holds no answer): ``missing``
  for an answer containing "not in the sources", else ``incorrect``.

``POST /v1/embeddings`` answers every input with :func:`embed_text` (a hashed bag of words,
deterministic); an input containing ``[dim=N]`` gets N dimensions, ``[zero]`` a zero vector.

Further markers make the judge misbehave in known ways:

* ``[flip]``: the judge gets the chunk wrong: relevance and usefulness verdicts are flipped,
  the grade is ``3 - N`` and the score ``1 - score``;
* ``[wobble]``: repeated samples disagree: every second request for the same question and
  chunk is answered as if the chunk carried ``[flip]`` (the first one never is);
* ``[echo]``: the reason repeats the API key the request presented (a proxy that echoes it).

Faults are programmed from the test with :meth:`JudgeServer.inject` and apply to the next
requests in order. Request bodies and headers are kept in memory only (the tests use them to
prove that an API key is sent but never written to disk).
"""

from __future__ import annotations

import base64
import json
import re
import socket
import threading
import time
import zlib
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FAULTS",
    "SPELLINGS",
    "JudgeServer",
    "RecordedRequest",
    "embed_text",
    "expected_answer",
    "grade_of",
    "presented_key",
    "running_judge_server",
    "spelt_key",
]

#: Fault kinds :meth:`JudgeServer.inject` accepts.
FAULTS = (
    "429",  # rate limited, with ``Retry-After: <retry_after>``
    "500",  # internal server error
    "503",  # service unavailable
    "401",  # authentication error
    "sleep",  # sleep ``seconds`` and then answer normally (to exceed the client's timeout)
    "prose",  # a plain-text answer instead of JSON
    "wrong_shape",  # valid JSON of the wrong shape
    "wrong_length",  # a claims list of the wrong length (empty)
    "answer",  # a fixed answer ``content`` (a dict, sent as JSON)
    "echo_key",  # an error (``status``, default 401) whose message repeats the presented key,
    # spelt as ``spelling`` says (see :func:`spelt_key`)
    "fabricate",  # faithfulness: every claim "supported", quoting the claim itself
    "trickle",  # the normal answer one byte every ``interval`` s, for at most ``seconds`` s
    # (then the connection is closed): an endpoint that never stops sending
    "html",  # a 200 whose body is an HTML page (a proxy's error page)
    "truncated",  # a 200 whose JSON body is cut short
)

#: What the ``echo_key`` fault can say about the presented key ``Bearer <key>``.
SPELLINGS = ("plain", "base64", "base64url", "hex", "tail")

_GRADE_RE = re.compile(r"\[g=(\d)\]")
_FLIP, _WOBBLE, _ECHO = "[flip]", "[wobble]", "[echo]"
_SCORE_RE = re.compile(r"\[s=([0-9.]+)\]")
_FACT_RE = re.compile(r"\bF\d+\b")
_TAG_RE = "<{tag}>\n?(.*?)\n?</{tag}>"


def grade_of(text: str) -> int:
    """The grade a chunk text carries (``[g=N]``, default 0)."""
    m = _GRADE_RE.search(text)
    return int(m.group(1)) if m else 0


def _tag(text: str, tag: str) -> list[str]:
    return re.findall(_TAG_RE.format(tag=tag), text, flags=re.S)


EMBEDDING_DIM = 16
_DIM_RE = re.compile(r"\[dim=(\d+)\]")


def embed_text(text: str) -> list[float]:
    """The deterministic embedding the server returns: hashed word counts."""
    if "[zero]" in text:
        return [0.0] * EMBEDDING_DIM
    m = _DIM_RE.search(text)
    dim = int(m.group(1)) if m else EMBEDDING_DIM
    vector = [0.0] * dim
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[zlib.crc32(word.encode()) % dim] += 1.0
    return vector


def sentences(text: str) -> list[str]:
    """The claims of a text as the server sees them: its ``.``-separated sentences."""
    return [s.strip() for s in text.split(".") if s.strip()]


def _answer_kinds(kind: str, user_text: str, fabricate: bool) -> dict[str, Any] | None:
    answer = "".join(_tag(user_text, "generated_answer"))
    reference = "".join(_tag(user_text, "reference_answer"))
    if kind.endswith("faithfulness"):
        context = "\n".join(_tag(user_text, "retrieved_text")).lower()
        claims = []
        for claim in sentences(answer):
            found = claim.lower() in context
            quote = claim if found or fabricate else ""
            claims.append({"claim": claim, "supported": found or fabricate, "quote": quote})
        return {"claims": claims}
    if kind.endswith("questions"):
        return {
            "questions": [f"{s}?" for s in sentences(answer)],
            "noncommittal": "i don't know" in answer.lower(),
        }
    if kind.endswith("correctness"):
        said, truth = sentences(answer), sentences(reference)
        low_ref, low_answer = reference.lower(), answer.lower()
        return {
            "TP": [s for s in said if s.lower() in low_ref],
            "FP": [s for s in said if s.lower() not in low_ref],
            "FN": [s for s in truth if s.lower() not in low_answer],
        }
    if kind.endswith("truthfulness"):
        return {"grade": _truth_grade(answer, reference, user_text), "reason": "test judge"}
    if kind.endswith("completeness"):
        low_answer = answer.lower()
        return {
            "claims": [
                {"claim": s, "covered": s.lower() in low_answer} for s in sentences(reference)
            ]
        }
    return None


def spelt_key(authorization: str, spelling: str) -> str:
    """An error message holding the ``Authorization`` value ``Bearer <key>`` (or its key) as
    a gateway might spell it."""
    key = authorization.removeprefix("Bearer ").strip()
    raw = authorization.encode()
    if spelling == "plain":
        return f"Incorrect API key provided: {key}. You can find your key at..."
    if spelling == "base64":
        return "bad auth " + base64.b64encode(raw).decode()
    if spelling == "base64url":
        return "bad auth " + base64.urlsafe_b64encode(raw).decode().rstrip("=")
    if spelling == "hex":
        return f"bad auth header (hex) {raw.hex()}"
    if spelling == "tail":
        return f"invalid key ending in {key[-12:]}"
    raise ValueError(f"unknown spelling {spelling!r}; known: {', '.join(SPELLINGS)}")


def _truth_grade(answer: str, reference: str, user_text: str) -> str:
    forced = re.search(r"\[grade=(\w+)\]", answer)
    low = answer.lower()
    if forced:
        return forced.group(1)
    if "<reference_answer>" not in user_text:  # the collection holds no answer
        return "missing" if "not in the sources" in low else "incorrect"
    if "i don't know" in low:
        return "missing"
    said, truth = sentences(answer), sentences(reference)
    covered = [s.lower() in low for s in truth]
    if all(covered) and all(s.lower() in reference.lower() for s in said):
        return "perfect"
    return "acceptable" if any(covered) else "incorrect"


def presented_key(headers: dict[str, str]) -> str:
    """The API key a request presented (``Authorization: Bearer <key>``), or ``""``."""
    auth = headers.get("authorization", "")
    return auth.removeprefix("Bearer ").strip()


def expected_answer(
    kind: str, user_text: str, *, flip: bool | None = None, key: str = ""
) -> dict[str, Any]:
    """The deterministic answer for one request (``kind`` is the schema name).

    ``flip`` overrides the chunk's ``[flip]`` marker (the server sets it for ``[wobble]``);
    ``key`` is what an ``[echo]`` chunk's reason repeats.
    """
    answered = _answer_kinds(kind, user_text, fabricate=False)
    if answered is not None:
        return answered
    chunks = _tag(user_text, "retrieved_text")
    chunk = chunks[0] if chunks else ""
    g = grade_of(chunk)
    wrong = _FLIP in chunk if flip is None else flip
    reason = f"grade marker {g}" + (f" (key {key})" if _ECHO in chunk else "")
    if kind.endswith("relevance"):
        return {"reason": reason, "verdict": "yes" if (g >= 1) != wrong else "no"}
    if kind.endswith("usefulness"):
        return {"reason": reason, "verdict": "yes" if (g >= 2) != wrong else "no"}
    if kind.endswith(("grade", "source")):  # llm_ndcg, llm_source_quality
        return {"reason": reason, "grade": 3 - g if wrong else g}
    if kind.endswith("score"):
        m = _SCORE_RE.search(chunk)
        score = float(m.group(1)) if m else g / 3
        score = 1 - score if wrong else score
        return {"reason": f"score {score:g}", "score": score}
    if kind.endswith("aspects"):  # [aspects=a,b] in the query lists them
        found = re.search(r"\[aspects=([^\]]*)\]", "".join(_tag(user_text, "query")))
        ids = [i for i in (found.group(1).split(",") if found else ["main"]) if i]
        return {"aspects": [{"id": i, "aspect": f"about {i}"} for i in ids]}
    if kind.endswith("covers"):  # [c=a,b] in the chunk says which aspects it covers
        found = re.search(r"\[c=([^\]]*)\]", chunk)
        return {"covers": [i for i in found.group(1).split(",") if i] if found else []}
    if kind.endswith("claims"):
        reference = "".join(_tag(user_text, "reference_answer"))
        context = "\n".join(chunks)
        context_facts = set(_FACT_RE.findall(context))
        claims = []
        for sentence in reference.split("."):
            sentence = sentence.strip()
            if sentence:
                facts = set(_FACT_RE.findall(sentence))
                claims.append({"claim": sentence, "attributed": bool(facts & context_facts)})
        return {"claims": claims}
    raise ValueError(f"unknown judge request kind {kind!r}")


@dataclass
class RecordedRequest:
    """One request as the server saw it (in memory only)."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    time: float
    fault: str | None = None

    @property
    def kind(self) -> str:
        fmt = self.body.get("response_format") or {}
        return str((fmt.get("json_schema") or {}).get("name", ""))

    @property
    def user_text(self) -> str:
        messages = self.body.get("messages") or []
        for message in messages:
            if message.get("role") == "user":
                return str(message.get("content", ""))
        return ""

    @property
    def is_reask(self) -> bool:
        return len(self.body.get("messages") or []) > 2


@dataclass
class _Fault:
    kind: str
    count: int
    params: dict[str, Any] = field(default_factory=dict)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, {"error": {"message": "invalid JSON body"}})
            return
        owner = self.server.owner
        fault = owner._next_fault()
        owner._record(
            RecordedRequest(
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                time=time.monotonic(),
                fault=fault.kind if fault else None,
            )
        )
        if self.path.rstrip("/").endswith("/embeddings"):
            self._embeddings(body, fault)
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        if fault is not None:
            kind = fault.kind
            if kind == "429":
                retry_after = str(fault.params.get("retry_after", 0))
                self._send(
                    429,
                    {"error": {"message": "rate limited", "type": "rate_limit_error"}},
                    headers={"Retry-After": retry_after},
                )
                return
            if kind in ("500", "503", "401"):
                self._send(int(kind), {"error": {"message": f"injected {kind}"}})
                return
            if kind == "echo_key":
                auth = self.headers.get("Authorization", "")
                message = spelt_key(auth, str(fault.params.get("spelling", "plain")))
                self._send(int(fault.params.get("status", 401)), {"error": {"message": message}})
                return
            if kind == "html":
                page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
                self._send_raw(200, page, content_type="text/html")
                return
            if kind == "sleep":
                time.sleep(float(fault.params.get("seconds", 1.0)))
        try:
            content = self._content(body, fault)
        except ValueError as exc:
            self._send(400, {"error": {"message": str(exc)}})
            return
        if fault is not None and fault.kind == "truncated":
            data = json.dumps(_completion(body, content)).encode()
            self._send_raw(200, data[: len(data) // 2])
            return
        if fault is not None and fault.kind == "trickle":
            self._trickle(json.dumps(_completion(body, content)).encode(), fault)
            return
        self._send(200, _completion(body, content))

    def _trickle(self, data: bytes, fault: _Fault) -> None:
        """Send the headers, then ``data`` a byte at a time; give up after ``seconds``."""
        interval = float(fault.params.get("interval", 0.5))
        deadline = time.monotonic() + float(fault.params.get("seconds", 5.0))
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.flush()
            for byte in data:
                if time.monotonic() >= deadline:
                    break
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(interval)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up: what a whole-request timeout does
        self.close_connection = True

    def _embeddings(self, body: dict[str, Any], fault: _Fault | None) -> None:
        if fault is not None and fault.kind in ("429", "500", "503", "401"):
            self._send(int(fault.kind), {"error": {"message": f"injected {fault.kind}"}})
            return
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
        data = [
            {"object": "embedding", "index": i, "embedding": embed_text(str(t))}
            for i, t in enumerate(texts)
        ]
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        self._send(
            200, {"object": "list", "data": data, "model": body.get("model"), "usage": usage}
        )

    def _content(self, body: dict[str, Any], fault: _Fault | None) -> str:
        kind = str(((body.get("response_format") or {}).get("json_schema") or {}).get("name", ""))
        if fault is not None:
            if fault.kind == "prose":
                return "The chunk looks relevant to me, I would say yes."
            if fault.kind == "wrong_shape":
                return json.dumps({"answer": "yes", "confidence": "high"})
            if fault.kind == "wrong_length":
                return json.dumps({"claims": []})
            if fault.kind == "answer":
                return json.dumps(fault.params["content"])
            if fault.kind == "fabricate":
                text = next(
                    (str(m.get("content", "")) for m in body.get("messages") or []
                     if m.get("role") == "user"),
                    "",
                )  # fmt: skip
                return json.dumps(_answer_kinds(kind, text, fabricate=True))
        user_text = ""
        for message in body.get("messages") or []:
            if message.get("role") == "user":
                user_text = str(message.get("content", ""))
                break
        flip = None
        if _WOBBLE in user_text:
            flip = self.server.owner._nth_time(kind, user_text) % 2 == 0
        key = presented_key({k.lower(): v for k, v in self.headers.items()})
        return json.dumps(expected_answer(kind, user_text, flip=flip, key=key))

    def _send(
        self, status: int, payload: dict[str, Any], *, headers: dict[str, str] | None = None
    ) -> None:
        self._send_raw(status, json.dumps(payload).encode(), headers=headers)

    def _send_raw(
        self,
        status: int,
        data: bytes,
        *,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)


def _completion(body: dict[str, Any], content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": body.get("model", "judge-test"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    allow_reuse_address = True
    owner: JudgeServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-answer is expected in timeout tests


class JudgeServer:
    """The server plus its programmable faults and its request log."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: deque[_Fault] = deque()
        self._seen: dict[tuple[str, str], int] = {}
        self.requests: list[RecordedRequest] = []
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="judge-server", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The ``api_base`` to give the judge client."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> JudgeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def inject(self, kind: str, count: int = 1, **params: Any) -> None:
        """Apply fault ``kind`` to the next ``count`` requests (after earlier injections)."""
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}; known: {', '.join(FAULTS)}")
        with self._lock:
            self._faults.append(_Fault(kind, count, params))

    def clear(self) -> None:
        """Forget pending faults, recorded requests and how often each question was asked."""
        with self._lock:
            self._faults.clear()
            self._seen.clear()
            self.requests.clear()

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def _next_fault(self) -> _Fault | None:
        with self._lock:
            if not self._faults:
                return None
            fault = self._faults[0]
            fault.count -= 1
            if fault.count <= 0:
                self._faults.popleft()
            return fault

    def _nth_time(self, kind: str, user_text: str) -> int:
        """1 for the first request of this question about this text, then 2, 3, ..."""
        with self._lock:
            n = self._seen.get((kind, user_text), 0) + 1
            self._seen[(kind, user_text)] = n
            return n

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)


@contextmanager
def running_judge_server() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        yield server


def main() -> None:  # pragma: no cover - manual use: python tests/judge_server.py
    with running_judge_server() as server:
        print(server.url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":  # pragma: no cover
    main()
