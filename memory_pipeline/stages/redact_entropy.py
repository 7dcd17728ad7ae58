"""High-entropy tokens in prose: a secret with no known prefix and no name before it.

A token is taken for a secret when it is long (≥ MIN_LENGTH), mixes upper case, lower case and
digits, is not hex (git SHAs, content hashes), not a UUID, not a path of words, and changes
character class often (random strings do, CamelCase identifiers and words do not) with enough
Shannon entropy per character (close to the most a token of its length can have: random base62
tokens of 20–40 characters pass 94–99 %, CamelCase identifiers with digits do not). The thresholds were chosen on the labelled set in
memory_pipeline_tests/security/secret_samples.py (half secrets, half look-alikes).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from itertools import pairwise

MIN_LENGTH = 20
MAX_LENGTH = 128  # longer opaque runs are data (thinking signatures, images); keys are shorter
ENTROPY_SLACK = 0.9  # bits per character below log2(length), the most a random token of that length has
MAX_ENTROPY_NEEDED = 4.5
MIN_SWITCH_RATE = 0.3  # class changes per character (base62 random ≈ 0.6, CamelCase ≈ 0.15)
TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_\-.\[:@])[A-Za-z0-9+/=_\-.]{20,}(?![A-Za-z0-9+/=_\-])")
_HEX = re.compile(r"[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HASH_PREFIX = re.compile(r"^(?:sha\d+|md5|blake2b?)[-_:]", re.IGNORECASE)
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")  # binding.readFileUtf8: code, not a key
_FILE = re.compile(r"^[/~.]|\.[A-Za-z][A-Za-z0-9]{0,5}$")  # /var/folders/…/x.log: a path
_SSH_PUBLIC_KEY = re.compile(r"^AAAA[BCE][0-9A-Za-z]{8}")  # ssh-rsa, ssh-ed25519, ecdsa-…: a public key's blob
_RESOURCE_ID = re.compile(r"^(?:[a-z]{2,12}[_-])+[A-Za-z0-9]{12,}$")  # msg_…, toolu_…, req_…, chatcmpl-…: ids, not keys


def entropy(token: str) -> float:
    counts = Counter(token)
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())


def _kind(c: str) -> int:
    return 0 if c.isupper() else 1 if c.islower() else 2 if c.isdigit() else 3


def switch_rate(token: str) -> float:
    return sum(_kind(a) != _kind(b) for a, b in pairwise(token)) / max(len(token) - 1, 1)


def _wordy_path(token: str) -> bool:
    """`src/memory_pipeline/stages`, `orders-service.v2.yaml`, `Selector.<sha1>`: parts that are words or hashes."""
    parts = [p for p in re.split(r"[/._\-]", token) if p]
    opaque = [p for p in parts if len(p) >= 12 and not p.isalpha() and not _HEX.fullmatch(p)]  # a sha is a word here
    return len(parts) >= 2 and sum(len(p) for p in opaque) < 12


def _camel_words(token: str) -> bool:
    """`TokenizerFastForSeq2Seq`: words (a capital, then two or more lower-case letters), acronyms and short
    numbers, most of it lower case. A random token has lone lower-case letters between its capitals and digits,
    and about as many capitals and digits as lower-case letters; a name has neither."""
    runs = re.findall(r"[a-z]+|[A-Z]+|[0-9]+|[^A-Za-z0-9]+", token)
    lower = [r for r in runs if r.islower()]
    lower_chars = sum(map(len, lower))
    return bool(lower) and all(len(r) >= 2 for r in lower) and lower_chars >= max(3 * len(lower), 0.6 * len(token)) \
        and all(len(r) <= 4 for r in runs if r.isdigit())


def looks_like_secret(token: str) -> bool:
    core = token.strip("=.-_")
    if not MIN_LENGTH <= len(core) <= MAX_LENGTH or _HEX.fullmatch(core.replace("-", "")) or _UUID.search(core):
        return False
    if _HASH_PREFIX.match(core) or _RESOURCE_ID.match(core) or _wordy_path(core) or _SSH_PUBLIC_KEY.match(core):
        return False
    if ("/" in token and _FILE.search(token)) or _DOTTED.fullmatch(core) or _camel_words(core):
        return False
    if not (any(c.isupper() for c in core) and any(c.islower() for c in core) and any(c.isdigit() for c in core)):
        return False
    needed = min(math.log2(len(core)) - ENTROPY_SLACK, MAX_ENTROPY_NEEDED)
    return switch_rate(core) >= MIN_SWITCH_RATE and entropy(core) >= needed


def redact_random_tokens(text: str, replacement: str) -> str:
    return TOKEN.sub(lambda m: replacement if looks_like_secret(m[0]) else m[0], text)
