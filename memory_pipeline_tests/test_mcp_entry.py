"""The MCP door's protocol (memory_pipeline/mcp_entry.py), one JSON-RPC message a line, without a
workspace: what is answered at once (the handshake, the tool list, ping, errors) and the arguments
refused before any call leaves the door."""

from __future__ import annotations

import io
import json

from memory_pipeline import mcp_entry


def converse(*messages: object, environ: dict[str, str] | None = None) -> list[dict]:
    lines = b"".join((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in messages)
    out = io.BytesIO()
    server = mcp_entry.Server(io.BytesIO(lines), out, environ or {"MEMORY_WORKSPACE": "/nonexistent/ws"}, "/tmp")
    server.start_behind = False
    assert server.serve() == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def request(ident: int, method: str, **params) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


def test_the_handshake_and_the_tool_list_are_answered_from_static_data():
    answers = converse(request(1, "initialize", protocolVersion="2025-06-18", capabilities={},
                               clientInfo={"name": "t", "version": "1"}),
                       {"jsonrpc": "2.0", "method": "notifications/initialized"},
                       request(2, "tools/list"), request(3, "ping"), request(4, "initialize", protocolVersion="2099-01-01"))
    assert [a["id"] for a in answers] == [1, 2, 3, 4]  # the notification gets no answer
    assert answers[0]["result"]["protocolVersion"] == "2025-06-18" and answers[0]["result"]["serverInfo"]["name"] == "memory"
    assert answers[0]["result"]["capabilities"] == {"tools": {"listChanged": False}}
    tools = answers[1]["result"]["tools"]
    assert [t["name"] for t in tools] == ["search", "get", "timeline", "trace", "brief"]
    assert all("outputSchema" not in t and t["annotations"]["readOnlyHint"] for t in tools)
    assert answers[2]["result"] == {} and answers[3]["result"]["protocolVersion"] == "2025-11-25"  # ours, newest


def test_what_is_not_mcp_gets_a_json_rpc_error_and_the_server_goes_on():
    answers = converse(b"not json", b"[1, 2]", request(5, "server/discover"), request(6, "tools/list"))
    assert answers[0]["error"]["code"] == -32700 and answers[1]["error"]["code"] == -32600
    assert answers[2]["error"]["code"] == -32601 and "server/discover" in answers[2]["error"]["message"]
    assert answers[3]["id"] == 6 and answers[3]["result"]["tools"]


def test_bad_arguments_are_refused_at_the_door_as_one_line_tool_errors():
    calls = [({"name": "search", "arguments": {"query": "x", "limit": 0}}, "search: limit must be an integer from 1 to 50, got 0"),
             ({"name": "search", "arguments": {"query": "x", "limit": 2.5}}, "limit must be an integer"),
             ({"name": "search", "arguments": {}}, "search: query is required (what to look for, in plain words)"),
             ({"name": "get", "arguments": {"ids": ["a"] * 21}}, "ids must be a list of 1 to 20 strings"),
             ({"name": "trace", "arguments": "target"}, "trace: the arguments must be an object"),
             ({"name": "forget", "arguments": {}}, "unknown tool 'forget'")]
    answers = converse(*(request(n, "tools/call", **params) for n, (params, _) in enumerate(calls)))
    for answer, (_, says) in zip(sorted(answers, key=lambda a: a["id"]), calls):
        result = answer["result"]
        assert result["isError"] is True and [c["type"] for c in result["content"]] == ["text"]
        assert says in result["content"][0]["text"] and "\n" not in result["content"][0]["text"]


def test_the_checked_arguments_carry_every_default():
    assert mcp_entry.check_arguments("search", {"query": "redis"}) == {
        "query": "redis", "limit": 10, "since": None, "tier": "all", "project": None, "all_projects": False}
    assert mcp_entry.check_arguments("brief", None) == {"all_projects": False}
