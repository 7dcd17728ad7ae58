"""A loopback HTTP server that speaks the Anthropic Messages API, for testing the real SDK path.

Use the fixture in a test module (or load `memory_pipeline_tests.support.plugin`):

    from memory_pipeline_tests.support.anthropic_server import anthropic_server  # noqa: F401

    def test_something(anthropic_server):
        anthropic_server.reply_error(529)            # overloaded_error
        anthropic_server.reply_text("hello", input_tokens=12, output_tokens=3)
        provider = AnthropicProvider(anthropic_server.api_key, anthropic_server.url)
        ...
        assert anthropic_server.requests[-1].body["model"] == "claude-haiku-4-5"

Scripted replies are served in order; a request whose key (`x-api-key`, or `Authorization: Bearer`
as SDK 2.x sends it) is wrong gets a 401 and a request
without `anthropic-version` a 400 (neither consumes a scripted reply); a request past the end of
the script gets a 400 that says so.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: dict | None

    @property
    def api_key(self) -> str | None:
        """The key the client presented, from `x-api-key` or `Authorization: Bearer`."""
        if "x-api-key" in self.headers:
            return self.headers["x-api-key"]
        scheme, _, token = self.headers.get("authorization", "").partition(" ")
        return token if scheme.lower() == "bearer" and token else None


@dataclass
class ScriptedReply:
    status: int
    body: dict
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


def error_body(error_type: str, message: str) -> dict:
    return {"type": "error", "error": {"type": error_type, "message": message}, "request_id": "req_test"}


class AnthropicServer:
    """POST /v1/messages on 127.0.0.1 (a free port), answering from a queue of scripted replies."""

    def __init__(self, api_key: str = "test-api-key"):
        self.api_key = api_key
        self.requests: list[RecordedRequest] = []
        self.script: list[ScriptedReply] = []
        self.standing: dict[str, str] = {}  # system-prompt prefix -> the text every such request gets
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- scripting -------------------------------------------------------------------
    def reply_text(
        self,
        text: str,
        *,
        input_tokens: int = 10,
        output_tokens: int = 5,
        model: str | None = None,
        stop_reason: str = "end_turn",
        delay: float = 0.0,
    ) -> None:
        """A successful Messages API reply; `model` defaults to the one the request asked for."""
        body = {
            "id": f"msg_test_{len(self.script)}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        }
        self.script.append(ScriptedReply(200, body, delay))

    def reply_error(self, status: int, error_type: str | None = None, message: str | None = None) -> None:
        """An HTTP error in Anthropic's error shape, e.g. 529 overloaded_error or 401 authentication_error."""
        kind = error_type or ERROR_TYPES.get(status, "api_error")
        self.script.append(ScriptedReply(status, error_body(kind, message or f"scripted {kind}")))

    def reply_delay(self, seconds: float, text: str = "late answer") -> None:
        """Hold the request for `seconds` before answering (cut short when the server stops)."""
        self.reply_text(text, delay=seconds)

    # --- lifecycle -------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "AnthropicServer":
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="anthropic-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> "AnthropicServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- serving ---------------------------------------------------------------------
    def answer(self, request: RecordedRequest) -> ScriptedReply:
        """Record the request and choose its reply (header checks first, then the script)."""
        with self._lock:
            self.requests.append(request)
            if request.method != "POST" or request.path.split("?")[0] != "/v1/messages":
                return ScriptedReply(404, error_body("not_found_error", f"no route {request.method} {request.path}"))
            if request.api_key != self.api_key:
                return ScriptedReply(401, error_body("authentication_error", "invalid x-api-key"))
            if not request.headers.get("anthropic-version"):
                return ScriptedReply(400, error_body("invalid_request_error", "anthropic-version header is required"))
            if request.body is None:
                return ScriptedReply(400, error_body("invalid_request_error", "body is not JSON"))
            system = str(request.body.get("system") or "")
            standing = next((text for prefix, text in self.standing.items() if system.startswith(prefix)), None)
            if standing is not None:
                return ScriptedReply(200, {"id": "msg_standing", "type": "message", "role": "assistant",
                                           "content": [{"type": "text", "text": standing}], "stop_reason": "end_turn",
                                           "model": request.body.get("model"),
                                           "usage": {"input_tokens": 10, "output_tokens": 10}})
            if not self.script:
                message = f"anthropic_server: no scripted reply left for request {len(self.requests)}"
                return ScriptedReply(400, error_body("invalid_request_error", message))
            reply = self.script.pop(0)
        if reply.status == 200 and reply.body.get("model") is None:
            reply.body = {**reply.body, "model": request.body.get("model")}
        return reply

    def wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)


def _handler_for(server: AnthropicServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self._serve()

        def do_GET(self) -> None:
            self._serve()

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            headers = {name.lower(): value for name, value in self.headers.items()}
            reply = server.answer(RecordedRequest(self.command, self.path, headers, body))
            if reply.delay:
                server.wait(reply.delay)
            payload = json.dumps(reply.body).encode("utf-8")
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.send_header("request-id", "req_test")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing to answer

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output clean

    return Handler


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    """A started AnthropicServer, stopped (and its port freed) after the test."""
    with AnthropicServer() as server:
        yield server
