"""A loopback model server for driving the real agent clients: the Anthropic Messages API
(`POST /v1/messages`, JSON or streaming SSE; `count_tokens`), the OpenAI Responses API
(`POST /v1/responses`, JSON or streaming SSE) and OpenAI Chat Completions (`POST /v1/chat/completions`,
JSON: what Ollama, llama.cpp's server and vLLM speak), on 127.0.0.1 at a free port.

Answers are chosen by rule, not by queue position, because the clients send side requests of their
own (titles, quota probes, compaction summaries) in an order the test does not control:

    with LoopbackModels() as models:
        models.answer_when("remember the port", "Noted: the staging port is 8471.")
        ... run a client with models.url ...
        assert any("briefing" in r.text for r in models.model_requests())

A request whose last user text contains a rule's phrase gets that rule's text; any other request
gets `default_text`. `answer_with_tool(phrase, name, input)` answers with a `tool_use` of `name`
instead (the Responses API: a `function_call`; `mcp__memory__search` is Codex's namespace
`mcp__memory`, tool `search`), once per conversation: when a user turn holds the phrase, the request
offers the tool and no earlier turn used it. Rules chain: a `ToolSearch` rule, then one for the
tool it loads (Claude Code defers MCP tools behind its ToolSearch tool). Every request is recorded (`requests`), with the whole request text
(`RecordedCall.text`: system prompt and every message) for assertions.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMPACTION_SUMMARY = "Summary of the conversation so far: the user is testing memory hooks."


def _texts(value: object) -> list[str]:
    """Every string under a JSON value (content blocks, nested tool results, system parts)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):
        return [text for key, item in value.items() if key not in ("type", "role", "id") for text in _texts(item)]
    return []


@dataclass
class ToolUse:
    """A scripted `tool_use` answer."""

    name: str
    input: dict


@dataclass
class RecordedCall:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: dict

    @property
    def api(self) -> str:
        if self.path.startswith("/v1/chat/completions"):
            return "openai-chat"
        return "openai-responses" if self.path.startswith("/v1/responses") else "anthropic-messages"

    @property
    def text(self) -> str:
        """System prompt, instructions and every message, as one string."""
        parts = _texts(self.body.get("system")) + _texts(self.body.get("instructions"))
        return "\n".join(parts + _texts(self.body.get("messages")) + _texts(self.body.get("input")))

    @property
    def tool_names(self) -> set[str]:
        """Every tool offered; a Responses `namespace` tool's own tools as `NAMESPACE__NAME` (Codex
        offers an MCP server's tools as the namespace `mcp__SERVER`)."""
        names = set()
        for tool in self.body.get("tools") or []:
            if isinstance(tool, dict):
                names.add(str(tool.get("name")))
                names |= {f"{tool.get('name')}__{inner.get('name')}" for inner in tool.get("tools") or []
                          if tool.get("type") == "namespace" and isinstance(inner, dict)}
        return names

    def blocks(self, kind: str, role: str | None = None) -> list[dict]:
        """Every content block of `kind` ("tool_use", "tool_result", "text") in the messages."""
        return [block for turn in self.body.get("messages") or []
                if isinstance(turn, dict) and (role is None or turn.get("role") == role)
                and isinstance(turn.get("content"), list)
                for block in turn["content"] if isinstance(block, dict) and block.get("type") == kind]

    def function_calls(self) -> list[dict]:
        """The Responses API's `function_call` items in the input (Codex's earlier tool calls)."""
        items = self.body.get("input")
        return [item for item in items if isinstance(item, dict) and item.get("type") == "function_call"] \
            if isinstance(items, list) else []

    @staticmethod
    def call_name(item: dict) -> str:
        return f"{item['namespace']}__{item.get('name')}" if item.get("namespace") else str(item.get("name"))

    @property
    def used_tools(self) -> set[str]:
        return {str(block.get("name")) for block in self.blocks("tool_use")} | \
            {self.call_name(item) for item in self.function_calls()}

    def function_outputs(self, name: str | None = None) -> list[str]:
        """The text of each Responses `function_call_output` item (of the tool `name`), in order."""
        names = {item.get("call_id"): self.call_name(item) for item in self.function_calls()}
        items = self.body.get("input") if isinstance(self.body.get("input"), list) else []
        return ["\n".join(_texts(item.get("output"))) for item in items
                if isinstance(item, dict) and item.get("type") == "function_call_output"
                and (name is None or names.get(item.get("call_id")) == name)]

    def tool_results(self, name: str | None = None) -> list[str]:
        """The text of each tool_result block (of the tool `name`, when given), in order."""
        names = {block.get("id"): block.get("name") for block in self.blocks("tool_use")}
        return ["\n".join(_texts(block.get("content"))) for block in self.blocks("tool_result")
                if name is None or names.get(block.get("tool_use_id")) == name]

    @property
    def user_text(self) -> str:
        """What the user typed, every turn (tool results left out)."""
        turns = self.body.get("messages") or self.body.get("input") or []
        turns = [t for t in turns if isinstance(t, dict) and t.get("role") == "user"] if isinstance(turns, list) else \
            [{"content": turns}]
        return "\n".join(t["content"] if isinstance(t.get("content"), str) else
                         "\n".join(_texts([b for b in t.get("content") or []
                                            if isinstance(b, dict) and b.get("type") != "tool_result"]))
                         for t in turns)

    @property
    def last_user_text(self) -> str:
        turns = self.body.get("messages") or self.body.get("input") or []
        if isinstance(turns, str):
            return turns
        users = [turn for turn in turns if isinstance(turn, dict) and turn.get("role") == "user"]
        return "\n".join(_texts(users[-1].get("content"))) if users else ""


class LoopbackModels:
    """Serves both APIs; `answer_when(phrase, text)` scripts answers, `requests` records calls."""

    def __init__(self, default_text: str = "Done.", model: str = "loopback-model"):
        self.default_text = default_text
        self.model = model
        self.report_usage = True  # False: answers carry no `usage` (as some local servers send)
        self.rules: list[tuple[str, str | ToolUse]] = []
        self.requests: list[RecordedCall] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def answer_when(self, phrase: str, text: str) -> None:
        self.rules.append((phrase, text))

    def answer_with_tool(self, phrase: str, name: str, tool_input: dict) -> None:
        self.rules.append((phrase, ToolUse(name, tool_input)))

    def model_requests(self, api: str | None = None) -> list[RecordedCall]:
        """The generation calls (not count_tokens), optionally of one API."""
        return [r for r in self.requests if not r.path.split("?")[0].endswith("count_tokens")
                and (api is None or r.api == api)]

    def reply_for(self, call: RecordedCall) -> str | ToolUse:
        last = call.last_user_text
        for phrase, text in self.rules:
            if isinstance(text, ToolUse):
                if text.name in call.tool_names and text.name not in call.used_tools and phrase in call.user_text:
                    return text
            elif phrase in last:
                return text
        if "summary" in last.lower() and ("conversation" in last.lower() or "compact" in last.lower()):
            return COMPACTION_SUMMARY
        return self.default_text

    # --- lifecycle -------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "LoopbackModels":
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="loopback-models", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> "LoopbackModels":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def record(self, path: str, headers: dict[str, str], body: dict) -> RecordedCall:
        call = RecordedCall(path, headers, body)
        with self._lock:
            self.requests.append(call)
        return call


# --- the two wire formats ----------------------------------------------------------------
def anthropic_message(reply: str | ToolUse, model: str, number: int) -> dict:
    if isinstance(reply, ToolUse):
        block = {"type": "tool_use", "id": f"toolu_loopback_{number}", "name": reply.name, "input": reply.input}
        stop, size = "tool_use", len(json.dumps(reply.input))
    else:
        block, stop, size = {"type": "text", "text": reply}, "end_turn", len(reply)
    return {"id": f"msg_loopback_{number}", "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": max(1, size // 4)}}


def anthropic_events(reply: str | ToolUse, model: str, number: int) -> list[tuple[str, dict]]:
    message = anthropic_message(reply, model, number)
    start = {**message, "content": [], "stop_reason": None, "usage": {"input_tokens": 100, "output_tokens": 1}}
    block = message["content"][0]
    if isinstance(reply, ToolUse):
        opened = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(reply.input)}
    else:
        opened, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": reply}
    return [
        ("message_start", {"type": "message_start", "message": start}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": opened}),
        ("ping", {"type": "ping"}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                           "usage": {"output_tokens": message["usage"]["output_tokens"]}}),
        ("message_stop", {"type": "message_stop"}),
    ]


def openai_response(text: str, model: str, number: int) -> dict:
    item = {"id": f"msg_loopback_{number}", "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}
    usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": max(1, len(text) // 4), "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 100 + max(1, len(text) // 4)}
    return {"id": f"resp_loopback_{number}", "object": "response", "created_at": 0, "status": "completed",
            "model": model, "output": [item], "usage": usage}


def openai_chat(text: str, model: str, number: int) -> dict:
    usage = {"prompt_tokens": 100, "completion_tokens": max(1, len(text) // 4), "total_tokens": 100 + max(1, len(text) // 4)}
    return {"id": f"chatcmpl-loopback-{number}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": usage}


def openai_events(text: str, model: str, number: int) -> list[tuple[str, dict]]:
    response = openai_response(text, model, number)
    item = response["output"][0]
    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    return [
        ("response.created", {"type": "response.created", "response": pending}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                        "item": {**item, "status": "in_progress", "content": []}}),
        ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item["id"],
                                        "output_index": 0, "content_index": 0, "delta": text}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": response}),
    ]


def openai_function_call_events(reply: ToolUse, model: str, number: int) -> list[tuple[str, dict]]:
    """A Responses API answer that calls a tool: `NAMESPACE__NAME` (an MCP tool as Codex offers it)
    becomes a `function_call` in that namespace."""
    namespace, _, name = reply.name.rpartition("__")
    item = {"type": "function_call", "id": f"fc_loopback_{number}", "call_id": f"call_loopback_{number}",
            "name": name, "arguments": json.dumps(reply.input), "status": "completed",
            **({"namespace": namespace} if namespace else {})}
    response = openai_response("", model, number) | {"output": [item]}
    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    return [
        ("response.created", {"type": "response.created", "response": pending}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                        "item": {**item, "arguments": "", "status": "in_progress"}}),
        ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta",
                                                    "item_id": item["id"], "output_index": 0, "delta": item["arguments"]}),
        ("response.function_call_arguments.done", {"type": "response.function_call_arguments.done",
                                                   "item_id": item["id"], "output_index": 0, "arguments": item["arguments"]}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": response}),
    ]


def _handler_for(server: LoopbackModels) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

        def do_HEAD(self) -> None:
            self._send_json(200, {})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            headers = {name.lower(): value for name, value in self.headers.items()}
            path = self.path.split("?")[0]
            call = server.record(self.path, headers, body if isinstance(body, dict) else {})
            number = len(server.requests)
            model = str(call.body.get("model") or server.model)
            if path.endswith("/messages/count_tokens"):
                self._send_json(200, {"input_tokens": max(1, len(call.text) // 4)})
            elif path.endswith("/messages"):
                text = server.reply_for(call)
                if call.body.get("stream"):
                    self._send_events(anthropic_events(text, model, number))
                else:
                    self._send_json(200, anthropic_message(text, model, number))
            elif path.endswith("/chat/completions"):
                answer = openai_chat(server.reply_for(call), model, number)
                if not server.report_usage:
                    del answer["usage"]
                self._send_json(200, answer)
            elif path.endswith("/responses"):
                reply = server.reply_for(call)
                if isinstance(reply, ToolUse):  # streamed, as Codex asks
                    self._send_events(openai_function_call_events(reply, model, number))
                elif call.body.get("stream", True):
                    self._send_events(openai_events(reply, model, number))
                else:
                    self._send_json(200, openai_response(reply, model, number))
            else:
                self._send_json(404, {"error": {"type": "not_found_error", "message": f"no route {path}"}})

        def _send_json(self, status: int, document: dict) -> None:
            payload = json.dumps(document).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        def _send_events(self, events: list[tuple[str, dict]]) -> None:
            payload = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output clean

    return Handler
