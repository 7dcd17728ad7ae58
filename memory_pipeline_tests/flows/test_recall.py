"""recall(): in process and through the recall service, on small stores built directly."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.index.observations import IndexStats, index_points
from memory_pipeline.flows.recall.client import recall
from memory_pipeline.flows.recall.engine import open_store
from memory_pipeline.models import stable_id
from memory_pipeline.resources.daemons import recall_service
from memory_pipeline.resources.vectors.edge_payloads import table_path
from memory_pipeline.resources.vectors.edge_recall import PAGED_IN, data_bytes
from memory_pipeline.resources.redis.embedded_redis import process_alive
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline.resources.vectors.vector_store import StorePoint
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.support.doors import env_settings, redis_limits, runtime_dir

pytestmark = pytest.mark.slow

NOW = datetime(2026, 11, 10, tzinfo=timezone.utc)
ROWS = [
    ("messages", "2026-11-01", "s1", None, "We raised the Redis pool max_connections from 10 to 64", ["u1"]),
    ("messages", "2026-11-02", "s2", None, "The orders API now uses keyset pagination on created_at", ["u7"]),
    ("observations", "2026-11-03", "s2", "high", "User prefers uv over pip for installs", ["u9", "a9"]),
    ("observations", "2026-11-04", "s3", "low", "The Docker image moved to a multi-stage build", ["a3"]),
]


def add_points(workspace, rows, tag="base") -> list[str]:
    store = open_store(workspace, Settings.from_env(), get_embedder().dimension)
    points = [StorePoint(id=stable_id(tag, text), text=text, payload={
        "tier": tier, "date": day, "session_id": session, "priority": priority, "source_message_ids": sources,
        "created_ts": datetime.fromisoformat(day).replace(tzinfo=timezone.utc).timestamp(),
        **({"role": "user", "message": text} if tier == "messages" else {})})
        for tier, day, session, priority, text, sources in rows]
    index_points(store, get_embedder(), points, IndexStats())
    return [p.id for p in points]


@pytest.fixture
def indexed(workspace, monkeypatch):
    monkeypatch.setenv("MEMORY_RECALL_IDLE_TIMEOUT", "60")
    ids = add_points(workspace, ROWS)
    yield workspace, ids
    recall_service.stop_service(workspace, runtime_dir())


def test_in_process_recall_ranks_filters_and_counts_hits(indexed):
    workspace, ids = indexed
    hits = recall(workspace, "redis connection pool size", now=NOW, use_service=False, settings=env_settings())
    assert hits[0].id == ids[0] and hits[0].source_message_ids == ["u1"]
    assert hits[0].why["sparse_rank"] == 1 and hits[0].why["dense_rank"] == 1
    assert {h.tier for h in recall(workspace, "pagination build pip", tier="observations", now=NOW,
                                   use_service=False, settings=env_settings())} == {"observations"}
    assert [h.id for h in recall(workspace, "docker uv redis orders", since="2026-11-03", until="2026-11-03",
                                 now=NOW, use_service=False, settings=env_settings())] == [ids[2]]
    assert [h.priority for h in recall(workspace, "docker uv", priority="low", now=NOW, use_service=False, settings=env_settings())] == ["low"]
    assert {h.session_id for h in recall(workspace, "api uv", session_id="s2", now=NOW, use_service=False, settings=env_settings())} == {"s2"}
    assert len(recall(workspace, "redis orders uv docker", limit=2, now=NOW, use_service=False, settings=env_settings())) == 2
    rewritten = recall(workspace, "What did we ever decide about the Redis pool?", rewrite=True, now=NOW,
                       use_service=False, settings=env_settings())
    assert rewritten[0].id == ids[0]
    redis_store = RedisStore(connect_redis(None, workspace.state, *redis_limits()))
    before = redis_store.recall_hits([ids[0]])[ids[0]]
    assert before >= 1
    recall(workspace, "redis pool", now=NOW, use_service=False, limit=1, settings=env_settings())
    assert redis_store.recall_hits([ids[0]])[ids[0]] == before + 1
    recall(workspace, "redis pool", now=NOW, record=False, use_service=False, settings=env_settings())
    assert redis_store.recall_hits([ids[0]])[ids[0]] == before + 1


def test_empty_workspace_gives_no_hits_without_starting_a_service(workspace):
    assert recall(workspace, "anything at all", settings=env_settings()) == []
    assert recall_service.ping(workspace, runtime_dir()) is None


def test_service_starts_on_demand_is_reused_and_reloads_new_points(indexed):
    workspace, ids = indexed
    hits = recall(workspace, "keyset pagination", now=NOW, settings=env_settings())
    assert hits[0].id == ids[1]
    status = recall_service.ping(workspace, runtime_dir())
    assert status and status["points"] == 4
    startup = status["startup"]  # the start's split: imports, then the model and the shard at once
    assert set(startup) == {"imports_s", "model_s", "open_s", "warm_s", "ready_s"}
    assert 0 < startup["imports_s"] <= startup["ready_s"] and max(startup["model_s"], startup["open_s"]) <= startup["warm_s"]
    deadline = time.monotonic() + 30  # the page-in after the open, in the background: the payloads too (room here)
    while (paged := recall_service.ping(workspace, runtime_dir()))["paged_in_s"] is None and time.monotonic() < deadline:
        time.sleep(0.05)
    shard = workspace.state_path("vectors")
    found = {p for pattern in PAGED_IN for p in shard.glob(pattern)} | {table_path(shard)}  # the payload table too
    walked = sum(data_bytes(f) for f in found | {f for d in found if d.is_dir() for f in d.rglob("*")} if f.is_file())
    # the shard is live (the open shard's files and the table's write-ahead log may change size between the
    # page-in and this walk: 33.0 MiB read against 32.8 walked was seen), so the two agree to half a MiB
    assert table_path(shard).is_file() and paged["paged_in_mb"] > 0
    assert abs(paged["paged_in_mb"] - walked / (1 << 20)) <= 0.5, (paged["paged_in_mb"], walked / (1 << 20))
    socket = recall_service.socket_path(workspace, runtime_dir())
    assert socket.stat().st_mode & 0o777 == 0o600
    recall(workspace, "docker build", now=NOW, settings=env_settings())
    assert recall_service.ping(workspace, runtime_dir())["pid"] == status["pid"]
    new = add_points(workspace, [("messages", "2026-11-05", "s4", None, "Flamingo deploys run on Fridays", ["u2"])],
                     tag="later")
    deadline = time.monotonic() + 30
    found = []
    while time.monotonic() < deadline and not found:
        found = [h for h in recall(workspace, "flamingo deploys", now=NOW, settings=env_settings()) if h.id == new[0]]
    assert found, "the service did not pick up the new point"
    assert recall_service.ping(workspace, runtime_dir())["pid"] == status["pid"]


def test_the_service_counts_its_hits_once_it_has_answered(indexed):
    workspace, ids = indexed
    hits = recall(workspace, "redis connection pool size", now=NOW, limit=1, settings=env_settings())
    assert [h.id for h in hits] == [ids[0]]
    redis_store = RedisStore(connect_redis(None, workspace.state, *redis_limits()))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and redis_store.recall_hits([ids[0]])[ids[0]] < 1:
        time.sleep(0.1)
    assert redis_store.recall_hits([ids[0]])[ids[0]] == 1


def test_two_clients_starting_at_once_get_one_service(indexed):
    workspace, _ = indexed
    pids, errors = [], []

    def client():
        try:
            recall(workspace, "redis pool", now=NOW, record=False, settings=env_settings())
            pids.append(recall_service.ping(workspace, runtime_dir())["pid"])
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=client) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors and len(set(pids)) == 1


def test_idle_service_shuts_itself_down(workspace, monkeypatch):
    monkeypatch.setenv("MEMORY_RECALL_IDLE_TIMEOUT", "2")
    add_points(workspace, ROWS[:1])
    try:
        assert recall(workspace, "redis pool", now=NOW, record=False, settings=env_settings())
        pid = recall_service.ping(workspace, runtime_dir())["pid"]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and recall_service.socket_path(workspace, runtime_dir()).exists():
            time.sleep(0.2)
        assert not recall_service.socket_path(workspace, runtime_dir()).exists()
        assert recall_service.ping(workspace, runtime_dir()) is None
        while time.monotonic() < deadline and process_alive(pid):
            time.sleep(0.2)
        assert not process_alive(pid)
    finally:
        recall_service.stop_service(workspace, runtime_dir())


def test_a_workspace_too_deep_for_a_unix_socket_still_gets_the_service(tmp_path, monkeypatch):
    deep = Workspace(tmp_path / ("d" * 60) / ("e" * 60) / "workspace").create()
    monkeypatch.setenv("MEMORY_WORKSPACE", str(deep.root))
    monkeypatch.setenv("MEMORY_RECALL_IDLE_TIMEOUT", "60")
    ids = add_points(deep, ROWS[:2])
    path = recall_service.socket_path(deep, runtime_dir())
    assert path.parent != deep.state and len(str(path)) < 100
    try:
        assert recall(deep, "keyset pagination", now=NOW, record=False, settings=env_settings())[0].id == ids[1]
        assert recall_service.ping(deep, runtime_dir()) is not None  # answered through the short socket
        assert path.parent.stat().st_mode & 0o777 == 0o700 and path.stat().st_mode & 0o777 == 0o600
    finally:
        recall_service.stop_service(deep, runtime_dir())
    assert not path.exists()


def test_the_engine_queries_the_shard_itself_and_sees_each_completed_write(indexed):
    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest

    workspace, ids = indexed
    engine = RecallEngine(workspace, env_settings())
    hits = engine.search(SearchRequest("redis connection pool", record=False, now=NOW.timestamp()))
    assert hits[0].id == ids[0]
    assert not workspace.state_path("recall_cache").exists()  # no copy of the shard is made
    new = add_points(workspace, [("messages", "2026-11-05", "s4", None, "Flamingo deploys run on Fridays", ["u2"])],
                     tag="later")  # a writer in this process: the engine does not hold the shard between requests
    found = engine.search(SearchRequest("flamingo deploys", record=False, now=NOW.timestamp()))
    assert found[0].id == new[0]


def test_the_service_engine_holds_the_shard_once_warm_without_importing_qdrant_client(indexed):
    workspace, _ = indexed
    code = (
        "import sys\n"
        "from memory_pipeline.flows.recall.engine import RecallEngine\n"
        "from memory_pipeline.config import Settings\n"
        "from memory_pipeline.resources.workspace import Workspace\n"
        f"engine = RecallEngine(Workspace({str(workspace.root)!r}), Settings.from_env(), service=True)\n"
        "engine.warm()\n"
        "print(engine.store.held, sorted(engine.warmed), 'qdrant_client' in sys.modules)\n"
        "engine.release_shard()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "True ['model_s', 'open_s', 'warm_s'] False"


HOLD_SHARD = """
import sys, time
from pathlib import Path
from memory_pipeline.resources.vectors.edge_store import EdgeStore
with EdgeStore(Path(sys.argv[1]), dimension=384, lock_timeout=30).session():
    print("holding", flush=True)
    while Path(sys.argv[2]).exists():
        time.sleep(0.05)
"""

WRITE_POINT = """
import sys, time
from datetime import datetime, timezone
from memory_pipeline.config import Settings
from memory_pipeline.flows.index.observations import IndexStats, index_points
from memory_pipeline.flows.recall.engine import open_store
from memory_pipeline.models import stable_id
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.vectors.vector_store import StorePoint
from memory_pipeline.resources.workspace import Workspace

workspace = Workspace(sys.argv[1])
store = open_store(workspace, Settings.from_env(), get_embedder().dimension, lock_timeout=float(sys.argv[3]))
point = StorePoint(id=stable_id("writer", sys.argv[2]), text=sys.argv[2], payload={
    "tier": "messages", "date": "2026-11-06", "session_id": "s5", "role": "user", "message": sys.argv[2],
    "source_message_ids": ["w1"], "created_ts": datetime(2026, 11, 6, tzinfo=timezone.utc).timestamp()})
started = time.monotonic()
index_points(store, get_embedder(), [point], IndexStats())
print(point.id, round(time.monotonic() - started, 2), flush=True)
"""


def test_a_writer_gets_the_shard_from_the_service_and_recall_then_sees_its_points(indexed):
    """The recall service holds the shard between requests; an ingest-like writer in another process
    asks it to let go over its socket, writes within seconds (not its lock timeout), and the service's
    next answer, opened again after the write, holds the new point."""
    import subprocess
    import sys

    workspace, ids = indexed
    assert recall(workspace, "redis connection pool", now=NOW, record=False, settings=env_settings())[0].id == ids[0]  # the service holds it
    assert recall_service.ping(workspace, runtime_dir())["points"] == len(ids)
    text = "Pelican backups are verified every Monday"
    assert text not in [h.text for h in recall(workspace, "pelican backups", now=NOW, record=False, settings=env_settings())]
    done = subprocess.run([sys.executable, "-c", WRITE_POINT, str(workspace.root), text, "20"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    new_id, _seconds = done.stdout.split()
    hits = recall(workspace, "pelican backups", now=NOW, record=False, settings=env_settings())
    assert hits[0].id == new_id  # the same service (never restarted), after the write
    assert recall_service.ping(workspace, runtime_dir())["requests"] >= 3


def test_recall_during_a_write_waits_a_bounded_time_then_says_so(indexed, tmp_path, monkeypatch):
    """While a writer holds the shard the service answers nothing older: a request waits (at most the
    lock timeout) and gets a clear error; once the writer is done the same service answers again."""
    import subprocess
    import sys

    from memory_pipeline.errors import ServiceError

    workspace, ids = indexed
    monkeypatch.setenv("MEMORY_QDRANT_LOCK_TIMEOUT", "1")
    assert recall(workspace, "redis connection pool", now=NOW, record=False, settings=env_settings())[0].id == ids[0]  # service up, holding
    flag = tmp_path / "hold.flag"
    flag.write_text("held")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_SHARD, str(workspace.state_path("vectors")), str(flag)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"  # it asked the service to let go, and got the shard
        with pytest.raises(ServiceError, match="a writer .* holds it"):
            recall(workspace, "redis connection pool", now=NOW, record=False, settings=env_settings())
    finally:
        flag.unlink()
        holder.wait(timeout=30)
    assert recall(workspace, "redis connection pool", now=NOW, record=False, settings=env_settings())[0].id == ids[0]


def test_stored_points_by_id_or_session_through_the_service_and_in_process(indexed):
    from memory_pipeline.errors import BadInputError
    from memory_pipeline.flows.recall.client import stored_points

    workspace, ids = indexed
    for use_service in (True, False):
        [point] = stored_points(workspace, ids=[ids[0], "00000000-0000-0000-0000-000000000000"], use_service=use_service, settings=env_settings())
        assert point["id"] == ids[0] and point["text"] == ROWS[0][4] and point["source_message_ids"] == ["u1"]
        session = stored_points(workspace, session_id="s2", use_service=use_service, settings=env_settings())
        assert sorted(p["id"] for p in session) == sorted(ids[1:3])
    assert recall_service.ping(workspace, runtime_dir()) is not None
    with pytest.raises(BadInputError, match="not both"):
        stored_points(workspace, ids=ids, session_id="s2", settings=env_settings())


def test_the_service_answers_a_request_its_model_does_not_describe_with_a_bad_input_error(indexed):
    """flows/recall/protocol.py: the service reads `args` as the request model, so a misspelt filter
    is refused (it used to be dropped, and the search ran unfiltered), and the service keeps answering."""
    from memory_pipeline.flows.recall.client import ask_service
    from memory_pipeline.flows.recall.protocol import RecallRequest

    workspace, _ = indexed
    settings = env_settings()
    assert recall(workspace, "Redis pool", settings=settings)  # the service is up
    path = recall_service.socket_path(workspace, runtime_dir())
    answer = recall_service.request(path, {"op": "recall", "args": {"query": "Redis pool", "tier": "messages",
                                                                      "sesion_id": "s9"}})
    assert answer == {"ok": False, "kind": "bad_input",
                      "error": "bad recall request: sesion_id: Extra inputs are not permitted"}
    answer = recall_service.request(path, {"op": "points", "args": {"ids": "not a list"}})
    assert answer["ok"] is False and answer["kind"] == "bad_input" and answer["error"].startswith("bad points request: ids:")
    hits = ask_service(workspace, settings, "recall", RecallRequest(query="Redis pool", tier="messages"))["hits"]
    assert hits and {hit["tier"] for hit in hits} == {"messages"}


def test_each_item_of_a_comparison_question_is_looked_up_on_its_own(workspace):
    """The engine looks each item a comparison question names up by keyword (stages/recall/parts.py):
    the pager turn, the only match of "pager rotation", tops that item's list and joins at the keyword
    weight (0.6 of the fused scale) when that beats its score for the whole question."""
    from dataclasses import replace

    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest
    from memory_pipeline.stages.recall.rank import RankOptions

    rows = [
        ("messages", "2026-10-01", "s1", None, "We finished the Kubernetes cluster migration for every service", ["k1"]),
        ("messages", "2026-10-03", "s1", None, "The Kubernetes cluster migration plan came first in review", ["k3"]),
        ("messages", "2026-10-09", "s2", None, "I took over the pager rotation this week", ["p1"]),
    ]
    add_points(workspace, rows)
    request = SearchRequest(query="Which came first, the Kubernetes cluster migration plan or the pager rotation?",
                            limit=5, record=False, now=NOW.timestamp())

    def pager_fused(options: RankOptions) -> float:
        hits = RecallEngine(workspace, Settings.from_env(), options).search(request)
        return next(h.why["fused"] for h in hits if h.source_message_ids == ["p1"])

    base = replace(RankOptions(), pair_weight=0.0)  # the rescoring's ordered pairs ("pager rotation") apart
    alone = pager_fused(replace(base, query_parts=False))
    assert pager_fused(base) == pytest.approx(max(alone, RankOptions().sparse_weight), rel=1e-4)
    assert alone < RankOptions().sparse_weight  # the whole question's words rank it lower


def index_turns(workspace, tag: str, turns: list[tuple[str, str, str]]) -> None:
    """(role, message id, text) turns indexed as message points of one day, a month before NOW."""
    store = open_store(workspace, Settings.from_env(), get_embedder().dimension)
    ts = NOW.timestamp() - 30 * 86400
    index_points(store, get_embedder(), [StorePoint(id=stable_id(tag, mid), text=text, payload={
        "tier": "messages", "date": "2026-10-11", "session_id": f"s-{mid}", "source_message_ids": [mid],
        "created_ts": ts, "role": role, "message": text}) for role, mid, text in turns], IndexStats())


def test_a_question_about_what_the_user_did_prefers_the_user_turn(workspace):
    """The engine reads whose words a question asks about (stages/recall/speaker.py): the assistant's
    long reply on weddings matches "cousin's wedding" better, the user's own turn holds the answer."""
    from dataclasses import replace

    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest
    from memory_pipeline.stages.recall.rank import RankOptions

    turns = [("user", "u1", "My cousin's wedding last month was at a vineyard in Napa, so pretty"),
             ("assistant", "a1", "Cousin's wedding ideas: for a cousin's wedding, a wedding at a barn, a wedding "
                                 "in a garden, or a beach wedding all work for a family wedding"),
             ("user", "f1", "The wedding cake order is due next week"),  # the rest scale the lists
             ("user", "f2", "We raised the Redis pool max_connections from 10 to 64"),
             ("assistant", "f3", "The orders API now uses keyset pagination on created_at")]
    index_turns(workspace, "speaker", turns)
    request = SearchRequest(query="Where was my cousin's wedding?", limit=2, record=False, now=NOW.timestamp())

    def first(options: RankOptions) -> list[str]:
        return RecallEngine(workspace, Settings.from_env(), options).search(request)[0].source_message_ids

    base = replace(RankOptions(), answer_weight=0.0)  # the answer's type ("in Napa", a place) apart
    assert first(replace(base, speaker_factor=1.0)) == ["a1"]  # without the rule: the better match
    assert first(base) == ["u1"]


def test_a_question_naming_one_speaker_of_a_dialogue_prefers_that_speakers_turns(workspace):
    """An imported dialogue between named people (each turn opens with its speaker's name): a question
    that names one of them ranks that one's turn above the other's closer match (stages/recall/speaker.py)."""
    from dataclasses import replace

    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest
    from memory_pipeline.stages.recall.rank import RankOptions

    turns = [("user", "c1", "Caroline: Melanie, what painting did you do? My painting of a lake is done"),
             ("assistant", "m1", "Melanie: I did a sunset painting last weekend, Caroline"),
             ("user", "c2", "Caroline: The support group meeting was on Friday"),
             ("assistant", "m2", "Melanie: The kids loved the museum"),
             ("user", "c3", "Caroline: I joined a mentorship program"),
             ("assistant", "m3", "Melanie: We went camping at the beach")]
    index_turns(workspace, "named", turns)

    def first(query: str, options: RankOptions) -> list[str]:
        request = SearchRequest(query=query, limit=2, record=False, now=NOW.timestamp())
        return RecallEngine(workspace, Settings.from_env(), options).search(request)[0].source_message_ids

    base = replace(RankOptions(), answer_weight=0.0)
    assert first("What painting did Melanie do?", replace(base, speaker_factor=1.0)) == ["c1"]  # the closer match
    assert first("What painting did Melanie do?", base) == ["m1"]
    assert first("What painting did Caroline do?", base) == ["c1"]


def test_a_question_about_my_thing_lifts_the_turn_where_the_user_says_my_thing(workspace):
    """The engine rescores its top candidates (stages/recall/proximity.py): a turn holding the
    question's words in order ("cousin's wedding") gains pair_weight × the share of its pairs, and
    the user's turn that says "my cousin's wedding" gains owned_weight besides."""
    from dataclasses import replace

    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest
    from memory_pipeline.stages.recall.rank import RankOptions

    turns = [("user", "u1", "Last weekend I was at my cousin's wedding at the Grand Ballroom downtown"),
             ("user", "u2", "Which photos of a cousin's wedding go in the album, the ones with the bride?"),
             ("user", "f1", "The cake order is due next week"),  # the rest scale the lists
             ("user", "f2", "We raised the Redis pool max_connections from 10 to 64"),
             ("assistant", "f3", "The orders API now uses keyset pagination on created_at")]
    index_turns(workspace, "owned", turns)
    request = SearchRequest(query="Where did I attend my cousin's wedding?", limit=2, record=False,
                            now=NOW.timestamp())

    def fused(options: RankOptions) -> dict[str, float]:
        hits = RecallEngine(workspace, Settings.from_env(), options).search(request)
        return {h.source_message_ids[0]: h.why["fused"] for h in hits}

    before, after = fused(replace(RankOptions(), owned_weight=0.0, pair_weight=0.0)), fused(RankOptions())
    assert set(before) == set(after) == {"u1", "u2"}
    # one of the question's two pairs (attend → cousin, cousin → wedding) in each; "my" said only in u1
    assert after["u2"] - before["u2"] == pytest.approx(0.05 / 2, abs=1e-4)
    assert after["u1"] - before["u1"] == pytest.approx(0.05 / 2 + 0.1, abs=1e-4)


def test_a_question_asking_for_a_number_lifts_the_turn_that_says_one(workspace):
    """The engine reads the kind of answer a question asks for (stages/recall/answer_type.py): of the
    top candidates, the turn that says a number ("500 Mbps") gains answer_weight; the turn about
    internet speed in general does not."""
    from dataclasses import replace

    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest
    from memory_pipeline.stages.recall.rank import RankOptions

    turns = [("user", "u1", "I upgraded my internet plan to 500 Mbps about three weeks ago"),
             ("user", "u2", "My internet speed has been slow lately, the plan is not great"),
             ("user", "f1", "The cake order is due next week"),  # the rest scale the lists
             ("assistant", "f3", "The orders API now uses keyset pagination on created_at")]
    index_turns(workspace, "typed", turns)
    request = SearchRequest(query="What speed is my internet plan?", limit=2, record=False, now=NOW.timestamp())

    def fused(options: RankOptions) -> dict[str, float]:
        hits = RecallEngine(workspace, Settings.from_env(), options).search(request)
        return {h.source_message_ids[0]: h.why["fused"] for h in hits}

    before, after = fused(replace(RankOptions(), answer_weight=0.0)), fused(RankOptions())
    assert set(before) == set(after) == {"u1", "u2"}
    assert RankOptions().answer_weight > 0
    assert after["u1"] - before["u1"] == pytest.approx(RankOptions().answer_weight, abs=1e-4)
    assert after["u2"] == pytest.approx(before["u2"], abs=1e-4)
