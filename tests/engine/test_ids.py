"""Ids the engine stores: their text never changes from one release to the next.

Task ids are matched against pending writes a saver stored, maybe by an
older release, so the same parts must always give the same text.
"""

import hashlib
import uuid
from datetime import datetime, timedelta, timezone

from engine._internal._ids import checkpoint_id, iso_of, now_iso, random_uuid, task_id


def test_a_task_id_is_the_version_4_uuid_of_its_parts_hash() -> None:
    for parts in [("cp", 1, "node"), ("", 0, ""), ("é", -3, "a" * 100), (None, 2.5, ("x", "y"))]:
        digest = hashlib.blake2b("\x00".join(map(str, parts)).encode(), digest_size=16).digest()
        assert task_id(*parts) == str(uuid.UUID(bytes=digest, version=4))
    assert task_id("cp", 1, "node") == "fad012f2-ca68-4532-b58d-342bae2a63fb"


def test_checkpoint_ids_are_version_6_uuids_in_increasing_order() -> None:
    ids = [checkpoint_id() for _ in range(500)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for text in ids[:5]:
        parsed = uuid.UUID(text)
        assert str(parsed) == text and parsed.version == 6 and parsed.variant == uuid.RFC_4122


def test_random_ids_are_distinct_version_4_uuids() -> None:
    ids = [random_uuid() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for text in ids[:50]:
        parsed = uuid.UUID(text)
        assert str(parsed) == text and parsed.version == 4 and parsed.variant == uuid.RFC_4122


def test_a_version_time_is_written_as_datetime_writes_it() -> None:
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    base = 1_795_000_000 * 10**9  # 2026
    for ns in [base, base + 1_000, base + 999_999_999, base + 10**9, base + 123_456_789, base + 5 * 10**9 + 999, 0]:
        expected = (epoch + timedelta(microseconds=ns // 1000)).isoformat()  # no ".000000" on a whole second
        assert iso_of(ns) == expected
        assert iso_of(ns) == expected  # the second's text made on the first call is reused
    before = datetime.now(timezone.utc)
    now = datetime.fromisoformat(now_iso())
    assert before <= now <= datetime.now(timezone.utc)
