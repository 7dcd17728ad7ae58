"""Typed access to staged proposals in Redis (hashes memory:review:proposal:{id}, the pending list)."""

from __future__ import annotations

import json
import secrets

from memory_pipeline.models import Proposal
from memory_pipeline.resources.redis.redis_store import RedisStore
from memory_pipeline.stages.proposal_ids import SUFFIX_ALPHABET, SUFFIX_CHARS
from memory_pipeline.stages.review.review_md import text_key

LIST_FIELDS = ("source_observation_ids", "source_fact_ids", "sessions", "source_message_ids", "evidence")
BOOL_FIELDS = ("quotes_transcript", "promoted")


def random_suffix() -> str:
    """The random part of a new proposal or fix id, from the operating system's secure source."""
    return "".join(secrets.choice(SUFFIX_ALPHABET) for _ in range(SUFFIX_CHARS))


def to_mapping(proposal: Proposal) -> dict[str, str]:
    data = proposal.model_dump()
    mapping = {}
    for key, value in data.items():
        if key in LIST_FIELDS or key in BOOL_FIELDS:
            mapping[key] = json.dumps(value)
        else:
            mapping[key] = "" if value is None else str(value)
    return mapping


def from_mapping(found: dict[str, str]) -> Proposal:
    data: dict[str, object] = dict(found)
    for key in LIST_FIELDS + BOOL_FIELDS:
        if key in data:
            data[key] = json.loads(str(data[key]) or "null") or ([] if key in LIST_FIELDS else False)
    for key in ("decided", "decided_by", "staged"):
        data[key] = data.get(key) or None
    return Proposal.model_validate(data)


class ProposalStore:
    def __init__(self, store: RedisStore):
        self.store = store

    def get(self, pid: str) -> Proposal | None:
        found = self.store.get_proposal(pid)
        return from_mapping(found) if found else None

    def save(self, proposal: Proposal) -> None:
        self.store.save_proposal(proposal.id, to_mapping(proposal))
        if proposal.status == "pending":
            self.store.add_pending(proposal.id)

    def all(self) -> dict[str, Proposal]:
        found = {}
        for pid in self.store.proposal_ids("p-") + self.store.proposal_ids("f-"):
            proposal = self.get(pid)
            if proposal is not None:
                found[pid] = proposal
        return found

    def pending(self) -> list[Proposal]:
        """Pending proposals in queue order; ids whose hash is gone or decided are dropped from the queue."""
        result = []
        for pid in self.store.pending():
            proposal = self.get(pid)
            if proposal is None or proposal.status != "pending":
                self.store.remove_pending(pid)
                continue
            result.append(proposal)
        return result

    def transition(self, pid: str, expected: str, status: str, **fields: object) -> bool:
        """Move a proposal between statuses atomically; the loser of a race gets False."""
        mapping = {k: (json.dumps(v) if k in LIST_FIELDS + BOOL_FIELDS else ("" if v is None else str(v)))
                   for k, v in fields.items()}
        changed = self.store.set_proposal_status_if(pid, expected, status, mapping)
        if changed and status != "pending":
            self.store.remove_pending(pid)
        return changed

    def update(self, pid: str, **fields: object) -> None:
        self.store.update_proposal(pid, {k: (json.dumps(v) if k in LIST_FIELDS + BOOL_FIELDS else str(v))
                                         for k, v in fields.items()})

    def claimed_by(self, text: str, project: str = "") -> tuple[str, str] | None:
        """(status, id) of the proposal that already says `text`: a pending or approved one, or a
        rejected one. An entry naming an expired or vanished proposal is dropped (the text may be
        proposed again), which also heals indexes written before expiry released them."""
        key = text_key(text, project)
        rejected = self.store.rejected_for_text(key)
        if rejected:
            return "rejected", rejected
        owner = self.store.proposal_for_text(key)
        found = self.get(owner) if owner else None
        if owner is None or found is None or found.status == "expired":
            if owner:
                self.store.release_proposal_text(key, owner)
            return None
        if found.status == "rejected":
            self.release_text(found)
            return "rejected", owner
        return found.status, owner

    def release_text(self, proposal: Proposal) -> None:
        """An expired proposal frees its text; a rejected one moves it to the rejected index."""
        key = text_key(proposal.original_text or proposal.text, proposal.project)
        if proposal.status == "rejected":
            self.store.mark_text_rejected(key, proposal.id)
        self.store.release_proposal_text(key, proposal.id)
