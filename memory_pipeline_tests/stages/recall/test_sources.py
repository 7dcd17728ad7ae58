"""A merged memory's sources: kept by maintenance (ids only), carried by a hit, said in one line."""

from __future__ import annotations

from memory_pipeline.stages.maintenance.duplicates import Merge, merged_payloads
from memory_pipeline.stages.recall.sources import MAX_SOURCES, hit_sources, point_sources, seen_in


def fact(session: str, day: str, message: str, project: str = "billing") -> dict:
    return {"tier": "observations", "kind": "fact", "session_id": session, "date": day, "project": project,
            "observation_id": f"o-{session}", "source_message_ids": [message], "source_roles": ["user"],
            "text": "Use uv, not pip"}


def test_a_merge_keeps_every_source_of_every_member_with_ids_only():
    payloads = {"a": fact("s1", "2026-11-20", "m1"), "b": fact("s2", "2026-11-21", "m2")}
    keep, folded = merged_payloads(Merge("b", ["a", "b"]), payloads)
    assert [s["session_id"] for s in keep["sources"]] == ["s1", "s2"] and keep["mentions"] == 2
    assert keep["sources"][0] == {"id": "a", "date": "2026-11-20", "session_id": "s1", "project": "billing",
                                  "observation_id": "o-s1", "source_message_ids": ["m1"], "source_roles": ["user"]}
    assert all("text" not in s for s in keep["sources"]) and folded == {"a": {"merged_into": "b"}}
    payloads["b"] |= keep  # merged again later with a third session: the earlier sources come along
    payloads["c"] = fact("s3", "2026-11-22", "m3")
    again, _ = merged_payloads(Merge("c", ["b", "c"]), payloads)
    assert [s["id"] for s in again["sources"]] == ["a", "b", "c"] and again["source_message_ids"] == ["m1", "m2", "m3"]


def test_a_hit_carries_the_sources_of_its_observation_or_its_own():
    merged, _ = merged_payloads(Merge("b", ["a", "b"]), {"a": fact("s1", "2026-11-20", "m1"),
                                                         "b": fact("s2", "2026-11-21", "m2")})
    message = {"tier": "messages", "session_id": "s2", "date": "2026-11-21", "role": "user",
               "source_message_ids": ["m2"]}
    payloads = {"b": fact("s2", "2026-11-21", "m2") | merged, "msg": message}
    sources = hit_sources(payloads, ["msg", "b"], "msg")  # a message best, its merged fact a member
    assert [(s.fact_id, s.session_id, s.message_ids, s.roles) for s in sources] == [
        ("a", "s1", ["m1"], ["user"]), ("b", "s2", ["m2"], ["user"])]
    [own] = hit_sources({"msg": message}, ["msg"], "msg")  # a raw message: its one source, no fact
    assert (own.fact_id, own.session_id, own.message_ids, own.roles) == ("", "s2", ["m2"], ["user"])


def test_seen_in_names_sessions_once_and_caps_the_line():
    one = point_sources("a", fact("s1", "2026-11-20", "m1"))
    assert seen_in(one) == ""
    same_session = point_sources("k", {"sources": [{"id": "a", "session_id": "s1", "date": "2026-11-20"},
                                                   {"id": "b", "session_id": "s1", "date": "2026-11-20"}]})
    assert seen_in(same_session) == ""  # two facts of one session: seen in one session
    many = [{"id": f"f{n}", "session_id": f"session-{n:02d}xx", "date": f"2026-11-{n + 1:02d}"}
            for n in range(MAX_SOURCES + 5)]
    sources = point_sources("k", {"sources": many, "mentions": len(many)})
    assert len(sources) == MAX_SOURCES
    # ids alike in their first 8 characters are named as far as they differ
    assert seen_in(sources, len(many)) == ("seen in 20+ sessions: session-00 (2026-11-01), session-01 (2026-11-02), "
                                           "session-02 (2026-11-03) and 17+ more")
    assert seen_in(sources[:4]) == ("seen in 4 sessions: session-00 (2026-11-01), session-01 (2026-11-02), "
                                    "session-02 (2026-11-03) and 1 more")
    uuids = point_sources("k", {"sources": [fact("1a2b3c4d-0000", "2026-11-20", "m1"), fact("9f8e7d6c-1111", "2026-11-21", "m2")]})
    assert seen_in(uuids) == "seen in 2 sessions: 1a2b3c4d (2026-11-20), 9f8e7d6c (2026-11-21)"
