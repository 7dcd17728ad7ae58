"""The held-out sets' builder: LoCoMo's other conversations, LongMemEval's other oracle questions pooled as
lme-dev is, read back by the bench's own loaders."""

from __future__ import annotations

import json
import subprocess
import zipfile

from benchmarks.heldout import locomo_held, oracle_instances, write_lme_held
from benchmarks.lme import load_questions
from memory_pipeline.stages.transcripts.parse import parse_transcript


def _conversation(speaker: str) -> dict:
    return {"speaker_a": speaker, "speaker_b": "Bo", "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": speaker, "dia_id": "D1:1", "text": "I went hiking yesterday."}],
            "session_1_summary": "a summary", "events_session_1": {"date": "8 May, 2023"},
            "qa": [{"question": f"When did {speaker} go hiking?", "answer": "7 May 2023", "evidence": ["D1:1"],
                    "category": 2}]}


def test_locomo_held_leaves_out_the_dev_conversations_and_keeps_only_the_dialogue(tmp_path):
    archive = tmp_path / "locomo10.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("data/multimodal_dialog/locomo10_v2/26.json", json.dumps(_conversation("Ann")))
        out.writestr("data/multimodal_dialog/locomo10_v2/42.json", json.dumps(_conversation("Cy")))
    dev = tmp_path / "dev.json"
    dev.write_text(json.dumps([{"sample_id": "conv-26", "conversation": {}, "qa": []}]))
    held = locomo_held(archive, dev)
    assert [c["sample_id"] for c in held] == ["conv-42"]
    assert sorted(held[0]["conversation"]) == ["session_1", "session_1_date_time", "speaker_a", "speaker_b"]
    assert held[0]["qa"][0]["question"] == "When did Cy go hiking?"


def _instance(qid: str, sessions: list[tuple[str, str, list[dict]]]) -> dict:
    return {"question_id": qid, "question_type": "single-session-user", "question": f"question {qid}?",
            "haystack_session_ids": [s[0] for s in sessions], "haystack_dates": [s[1] for s in sessions],
            "haystack_sessions": [s[2] for s in sessions]}


def test_lme_held_pools_the_questions_dev_does_not_ask(tmp_path):
    said = [{"role": "user", "content": "I adopted a cat named Luna.", "has_answer": True},
            {"role": "assistant", "content": "Luna is a lovely name!"}]
    other = [{"role": "user", "content": "My commute takes 40 minutes.", "has_answer": True}]
    instances = {
        "q1": _instance("q1", [("answer_a", "2023/05/21 (Sun) 19:50", said)]),
        # a session two questions date differently: kept at its first date, the second question's evidence still found
        "q2": _instance("q2", [("answer_a", "2023/06/01 (Thu) 10:00", said), ("answer_b", "2023/05/28 (Sun) 08:30", other)]),
        "q3": _instance("q3", [("answer_c", "2023/01/02 (Mon) 09:00", other)]),
    }
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "questions.jsonl").write_text(json.dumps({"id": "q3", "query": "?", "type": "x", "evidence": []}) + "\n")
    summary = write_lme_held(instances, dev, tmp_path / "held")
    assert summary["questions"] == 2 and summary["sessions"] == 2 and summary["turns"] == 3
    questions = load_questions(tmp_path / "held")
    assert [q.query for q in questions] == ["question q1?", "question q2?"]
    transcript = parse_transcript(tmp_path / "held" / "transcripts" / "answer_a.jsonl", format="claude-code")
    ids = [m.id for m in transcript.messages]
    assert questions[0].evidence == (ids[0],)
    assert len(questions[1].evidence) == 2 and ids[0] in questions[1].evidence
    last = parse_transcript(tmp_path / "held" / "transcripts" / "answer_b.jsonl", format="claude-code")
    assert last.messages[0].timestamp.date().isoformat() == "2026-11-10"  # the latest session, 14 days before 11-24
    assert transcript.messages[0].timestamp.date().isoformat() == "2026-11-03"  # 7 days before it, as in the source
    assert (transcript.messages[1].timestamp - transcript.messages[0].timestamp).total_seconds() == 30


def test_oracle_instances_reads_answer_only_instances_from_a_git_directory(tmp_path):
    repo = tmp_path / "memoria"
    folder = repo / "evaluations" / "data" / "lme_jsons"
    folder.mkdir(parents=True)
    said = [{"role": "user", "content": "hi", "has_answer": True}]
    (folder / "1_q1.json").write_text(json.dumps(_instance("q1", [("answer_a", "2023/05/21 (Sun) 19:50", said)])))
    (folder / "51_q1.json").write_text(json.dumps(_instance("q1", [("sharegpt_x", "2023/05/21 (Sun) 19:50", said)])))
    (folder / "1_q2_abs.json").write_text(json.dumps(_instance("q2", [("answer_b", "2023/05/21 (Sun) 19:50", said)])))
    git = ["git", "-C", str(repo), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], check=True)
    found = oracle_instances(repo / ".git")
    assert list(found) == ["q1"] and found["q1"]["haystack_session_ids"] == ["answer_a"]
