"""The held-out recall sets, written from the public sources the dev sets were cut from
(`python -m benchmarks.heldout --locomo-zip ZIP --lme-git GITDIR --out DIR`).

- **LoCoMo held-out**: the seven conversations of LoCoMo's `locomo10` (snap-research/locomo,
  `data/locomo10.zip`, CC BY-NC) that `locomo-dev.json` leaves out, in its format (`DIR/locomo-held.json`).
- **LongMemEval held half**: the answerable oracle questions that lme-dev leaves out (236 of 470; the oracle
  instances as hussainzs/Memoria publishes them in `evaluations/data/lme_jsons/`, MIT), pooled into one
  user's history the way lme-dev's README says: one Claude Code transcript per session in project `chat`,
  30 seconds a turn, dates shifted so the latest session is 14 days before 2026-11-24, a session that two
  questions date differently kept at its first date (`DIR/lme-held/`, as `--lme` reads it).

Both are read by `memory-pipeline bench recall --quality --data DIR/locomo-held.json --lme DIR/lme-held`.
They are the data the product is judged on: measure with them, never make a rule or a weight from what
they show. Nothing of them is written into the repository (DIR is yours; LoCoMo's licence forbids copies).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import uuid
import zipfile
from datetime import datetime, timedelta
from pathlib import Path

from benchmarks.lme import DEFAULT_LME
from benchmarks.locomo import DEFAULT_DATA

LOCOMO_KEYS = re.compile(r"session_\d+(?:_date_time)?|speaker_[ab]")
LME_FOLDER = "evaluations/data/lme_jsons/"
LAST_SESSION = datetime(2026, 11, 10)  # 14 days before 2026-11-24, as lme-dev
NAMESPACE = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")


def locomo_held(zip_path: Path, dev: Path = DEFAULT_DATA) -> list[dict]:
    """locomo10's conversations that the dev file does not hold, as `{sample_id, conversation, qa}`."""
    known = {row["sample_id"] for row in json.loads(dev.read_text(encoding="utf-8"))}
    held = []
    with zipfile.ZipFile(zip_path) as archive:
        for name in sorted(n for n in archive.namelist() if n.endswith(".json")):
            sample_id = "conv-" + Path(name).stem
            if sample_id in known:
                continue
            raw = json.loads(archive.read(name))
            conversation = {k: v for k, v in raw.items() if LOCOMO_KEYS.fullmatch(k)}
            held.append({"sample_id": sample_id, "conversation": conversation, "qa": raw["qa"]})
    return held


def oracle_instances(git_dir: Path) -> dict[str, dict]:
    """Every answerable oracle instance (all its sessions answer sessions) in a Memoria git directory."""
    listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "--name-only", "HEAD", LME_FOLDER],
                             capture_output=True, text=True, check=True).stdout.split()
    found: dict[str, dict] = {}
    for path in listing:
        if not path.endswith(".json") or path.endswith("_abs.json"):
            continue
        shown = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"HEAD:{path}"],
                               capture_output=True, text=True, check=False)
        if shown.returncode != 0:  # listed, its blob not in the snapshot
            continue
        row = json.loads(shown.stdout)
        if all(s.startswith("answer_") for s in row["haystack_session_ids"]):
            found.setdefault(row["question_id"], row)
    return found


def _when(text: str) -> datetime:  # "2023/05/21 (Sun) 19:50"
    day, _, clock = text.split(" ")
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M")


def _line(session_id: str, turn: int, parent: str | None, when: datetime, role: str, text: str) -> dict:
    uid = str(uuid.uuid5(NAMESPACE, f"{session_id}:{turn}"))
    line = {"uuid": uid, "parentUuid": parent, "sessionId": session_id, "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "cwd": "/home/user/chat", "version": "2.1.39", "isSidechain": False, "userType": "external", "type": role}
    if role == "user":
        line["message"] = {"role": "user", "content": text}
    else:
        line["message"] = {"id": "msg_" + uid.replace("-", "")[:24], "type": "message", "role": "assistant",
                           "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": text}],
                           "stop_reason": "end_turn", "usage": {"input_tokens": 1000, "output_tokens": 40}}
    return line


def write_lme_held(instances: dict[str, dict], dev: Path, out: Path) -> dict:
    """The instances lme-dev does not ask, pooled into `out/transcripts/` and `out/questions.jsonl`."""
    asked = {json.loads(line)["id"] for line in (dev / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line}
    held = [row for qid, row in sorted(instances.items()) if qid not in asked]
    sessions: dict[str, list] = {}
    dates: dict[str, datetime] = {}
    for row in held:
        for sid, day, turns in zip(row["haystack_session_ids"], row["haystack_dates"], row["haystack_sessions"], strict=True):
            if sid not in dates:
                dates[sid], sessions[sid] = _when(day), turns
    last = max(dates.values())
    shift = (LAST_SESSION.replace(hour=last.hour, minute=last.minute) - last).days
    (out / "transcripts").mkdir(parents=True, exist_ok=True)
    for sid, turns in sessions.items():
        start, parent, lines = dates[sid] + timedelta(days=shift), None, []
        for at, turn in enumerate(turns):
            line = _line(sid, at, parent, start + timedelta(seconds=30 * at), turn["role"], turn["content"])
            lines.append(json.dumps(line))
            parent = line["uuid"]
        (out / "transcripts" / f"{sid}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = []
    for row in held:
        evidence = [str(uuid.uuid5(NAMESPACE, f"{sid}:{at}"))
                    for sid, turns in zip(row["haystack_session_ids"], row["haystack_sessions"], strict=True)
                    for at, turn in enumerate(turns)
                    if turn.get("has_answer") and at < len(sessions[sid]) and sessions[sid][at]["content"] == turn["content"]]
        if evidence:
            rows.append(json.dumps({"id": row["question_id"], "query": row["question"], "type": row["question_type"],
                                    "evidence": evidence}))
    (out / "questions.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return {"questions": len(rows), "sessions": len(sessions), "turns": sum(map(len, sessions.values())),
            "shift_days": shift}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--locomo-zip", type=Path, help="snap-research/locomo's data/locomo10.zip")
    parser.add_argument("--lme-git", type=Path, help="a git directory of hussainzs/Memoria")
    parser.add_argument("--out", type=Path, required=True, help="a folder outside the repository")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.locomo_zip:
        held = locomo_held(args.locomo_zip)
        (args.out / "locomo-held.json").write_text(json.dumps(held), encoding="utf-8")
        print(f"locomo-held.json: {len(held)} conversations, {sum(len(c['qa']) for c in held)} questions")
    if args.lme_git:
        print("lme-held:", write_lme_held(oracle_instances(args.lme_git), DEFAULT_LME, args.out / "lme-held"))


if __name__ == "__main__":
    main()
