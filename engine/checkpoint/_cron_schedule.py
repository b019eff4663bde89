"""Cron schedules: the five-field syntax (minute hour day-of-month month day-of-week), and the next time one fires.

A small parser (no cron library is a dependency of the engine): each field is
``*``, a number, a range ``a-b``, a step ``*/n`` or ``a-b/n``, or a list of
those separated by commas; months and weekdays also by their English three
letter names (``jan``, ``mon``); a weekday of 7 is Sunday, as 0 is. As in
cron, when both the day of the month and the day of the week are restricted,
a day matching either fires. Times are minutes of a wall clock in a time zone
(UTC unless one is named, an IANA name).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["Schedule", "next_fire", "parse_schedule", "zone_of"]

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
#: (name, lowest, highest, names) per field
_FIELDS = (("minute", 0, 59, ()), ("hour", 0, 23, ()), ("day of month", 1, 31, ()), ("month", 1, 12, _MONTHS), ("day of week", 0, 7, _DAYS))
#: The furthest a search for the next firing looks (a schedule such as "0 0 30 2 *" never fires).
_HORIZON_DAYS = 366 * 5


@dataclass(frozen=True, slots=True)
class Schedule:
    """A parsed schedule: the values each field allows."""

    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday
    any_day: bool  # the day of the month is "*"
    any_weekday: bool  # the day of the week is "*"

    def day_matches(self, d: datetime) -> bool:
        by_day, by_weekday = d.day in self.days, (d.isoweekday() % 7) in self.weekdays
        if self.any_day or self.any_weekday:
            return by_day and by_weekday
        return by_day or by_weekday


def _number(text: str, low: int, names: tuple[str, ...], field: str) -> int:
    if text.lower() in names:
        return names.index(text.lower()) + (low if names is _MONTHS else 0)
    if not text.isdigit():
        raise ValueError(f"schedule: {field} {text!r} is not a number")
    return int(text)


def _field(text: str, field: str, low: int, high: int, names: tuple[str, ...]) -> frozenset[int]:
    out: set[int] = set()
    for part in text.split(","):
        base, _, step_text = part.partition("/")
        step = 1
        if step_text:
            if not step_text.isdigit() or int(step_text) == 0:
                raise ValueError(f"schedule: {field} step {step_text!r} is not a positive number")
            step = int(step_text)
        if base == "*":
            first, last = low, high
        elif "-" in base:
            a, _, b = base.partition("-")
            first, last = _number(a, low, names, field), _number(b, low, names, field)
        else:
            first = _number(base, low, names, field)
            last = high if step_text else first
        if not (low <= first <= high and low <= last <= high) or first > last:
            raise ValueError(f"schedule: {field} {part!r} is outside {low}-{high}")
        out.update(range(first, last + 1, step))
    return frozenset(out)


def parse_schedule(text: str) -> Schedule:
    """``text`` parsed; ValueError naming the field when it is not a five-field cron expression."""
    if not isinstance(text, str):
        raise ValueError("schedule: a cron expression (five fields), as a string")
    parts = text.split()
    if len(parts) != 5:
        raise ValueError(f"schedule {text!r}: five fields (minute hour day-of-month month day-of-week), got {len(parts)}")
    values = [_field(p, name, low, high, names) for p, (name, low, high, names) in zip(parts, _FIELDS)]
    weekdays = frozenset(d % 7 for d in values[4])
    return Schedule(values[0], values[1], values[2], values[3], weekdays, parts[2] == "*", parts[4] == "*")


def zone_of(name: str | None) -> ZoneInfo | timezone:
    """The time zone named (IANA), UTC for None; ValueError for an unknown name."""
    if name is None or name == "UTC":
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"timezone {name!r}: not an IANA time zone name") from None


def next_fire(schedule: Schedule | str, after: datetime, tz: str | None = None) -> datetime | None:
    """The first minute after ``after`` (aware) at which ``schedule`` fires, in UTC; None if none within five years."""
    s = parse_schedule(schedule) if isinstance(schedule, str) else schedule
    zone = zone_of(tz)
    t = after.astimezone(zone).replace(second=0, microsecond=0, tzinfo=None) + timedelta(minutes=1)
    end = t + timedelta(days=_HORIZON_DAYS)
    while t < end:
        if t.month not in s.months:
            t = (t.replace(day=1, hour=0, minute=0) + timedelta(days=32)).replace(day=1)
        elif not s.day_matches(t):
            t = t.replace(hour=0, minute=0) + timedelta(days=1)
        elif t.hour not in s.hours:
            t = t.replace(minute=0) + timedelta(hours=1)
        elif t.minute not in s.minutes:
            t += timedelta(minutes=1)
        else:
            fired = t.replace(tzinfo=zone).astimezone(timezone.utc)
            if fired > after:  # a wall time repeated by a clock set back is fired once
                return fired
            t += timedelta(minutes=1)
    return None
