"""The recall service's request and reply models: what the client sends is what the service reads,
and a request the model does not describe is a clear error, never a traceback."""

from __future__ import annotations

import json

import pytest

from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.recall.engine import SearchRequest
from memory_pipeline.flows.recall.protocol import (
    PointsReply,
    PointsRequest,
    RecallReply,
    RecallRequest,
    RecallTimings,
    parse_request,
    reply,
)
from memory_pipeline.models import RecallHit
from memory_pipeline.stages.recall.rank import RecallFilters


def test_a_recall_request_survives_the_wire_and_becomes_the_same_search():
    filters = RecallFilters(tier="messages", since="2026-11-01", until="2026-11-09", priority="high",
                            session_id="s1", project="/code/api")
    sent = RecallRequest.of("redis pool", 5, filters, rewrite=True, record=False, now=1_762_732_800.0)
    wire = json.loads(json.dumps({"op": "recall", "args": sent.model_dump(mode="json")}))
    read = parse_request(RecallRequest, wire["args"])
    assert read == sent and read.filters() == filters
    search = SearchRequest.of(read)
    assert (search.query, search.limit, search.filters, search.rewrite, search.record, search.now, search.mode) == (
        "redis pool", 5, filters, True, False, 1_762_732_800.0, "hybrid")


def test_the_service_reads_a_request_with_only_a_query_with_the_defaults():
    read = parse_request(RecallRequest, {"query": "uv"})
    assert (read.limit, read.tier, read.record, read.wait, read.filters()) == (10, "all", True, 2.0, RecallFilters())


@pytest.mark.parametrize(("args", "says"), [
    ({"query": "uv", "limt": 3}, "bad recall request: limt: Extra inputs are not permitted"),
    ({"query": "uv", "limit": "three"}, "bad recall request: limit:"),
    ({"limit": 3}, "bad recall request: query: Field required"),
    (["uv"], "bad recall request: args:"),
    ({"ids": "p1"}, "bad points request: ids:"),
])
def test_a_request_the_model_does_not_describe_is_a_bad_input_error(args, says):
    model = PointsRequest if "ids" in args else RecallRequest
    with pytest.raises(BadInputError) as raised:
        parse_request(model, args)
    assert str(raised.value).startswith(says)


def test_a_reply_is_ok_beside_the_models_fields_and_reads_back_as_the_model():
    hit = RecallHit(id="p1", tier="observations", text="User prefers uv", score=0.5, date="2026-11-03",
                    session_id="s2", priority="high", source_message_ids=["u9"])
    sent = RecallReply(hits=[hit], timings=RecallTimings(embed_ms=1.5, search_ms=2.0, total_ms=3.5))
    wire = json.loads(json.dumps(reply(sent)))
    assert wire["ok"] is True and wire["hits"][0]["id"] == "p1" and wire["timings"]["total_ms"] == 3.5
    assert RecallReply.model_validate({k: v for k, v in wire.items() if k != "ok"}) == sent
    assert reply(PointsReply(points=[{"id": "p1", "text": "x"}])) == {"ok": True, "points": [{"id": "p1", "text": "x"}]}
