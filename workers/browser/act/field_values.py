"""Values a browser normalises (seed 004 App. F staged input: read back what was typed).

Native date and time inputs hold ISO forms whatever the user's locale shows (`05/20/2010`
is held as `2010-05-20`), colour inputs lower-case hex, number inputs a plain decimal. Typing
the locale form into such a field is filled as its value form (`native_form`), and the
read-back compares meaning, not strings (`same_value`): a normalised value is a success.
"""

from __future__ import annotations

import re
from datetime import date, datetime

DATE_KINDS = frozenset({"date", "time", "datetime-local", "month", "week"})

_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
)}  # fmt: skip
_NUMERIC = re.compile(r"^\s*(\d{1,4})\s*[/.\-]\s*(\d{1,2})\s*[/.\-]\s*(\d{1,4})\s*$")
_WORDS = re.compile(r"^\s*([A-Za-z]{3,})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\s*$")
_WORDS_DMY = re.compile(r"^\s*(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,})\.?,?\s+(\d{4})\s*$")
_TIME = re.compile(r"^\s*(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([AaPp]\.?[Mm]\.?)?\s*$")
_MONTH = re.compile(r"^\s*(\d{1,2})\s*[/.\-]\s*(\d{4})\s*$")
_GROUPED = re.compile(r"^\s*([+-]?)(\d{1,3}(?:[,\s]\d{3})+)(\.\d+)?\s*$")  # 1,000 / 12 500.5
_WEEK = re.compile(r"^\s*(\d{4})\s*[-/ ]?\s*W\s*(\d{1,2})\s*$", re.IGNORECASE)


def parse_date(text: str) -> date | None:
    """A calendar date written as people do: 05/20/2010 (month first unless the first number
    cannot be a month), 20.05.2010, 2010-05-20, May 20, 2010, 20 May 2010."""
    try:
        if m := _NUMERIC.match(text):
            a, b, c = (int(x) for x in m.groups())
            if len(m.group(1)) == 4:  # year first
                return date(a, b, c)
            year = c if c >= 100 else 2000 + c
            return date(year, a, b) if a <= 12 else date(year, b, a)
        if m := _WORDS.match(text):
            month = _MONTHS.get(m.group(1)[:3].lower())
            return date(int(m.group(3)), month, int(m.group(2))) if month else None
        if m := _WORDS_DMY.match(text):
            month = _MONTHS.get(m.group(2)[:3].lower())
            return date(int(m.group(3)), month, int(m.group(1))) if month else None
    except ValueError:
        return None
    return None


def parse_time(text: str) -> str | None:
    """'3:45 PM' -> '15:45', '09:05' -> '09:05', '7pm' -> '19:00' (seconds kept if given)."""
    m = _TIME.match(text)
    if not m or (m.group(2) is None and m.group(4) is None):
        return None
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    if m.group(4):
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if m.group(4)[0] in "Pp" else 0)
    if hour > 23 or minute > 59:
        return None
    out = f"{hour:02d}:{minute:02d}"
    return out + f":{int(m.group(3)):02d}" if m.group(3) else out


def native_form(kind: str, text: str) -> str | None:
    """The value form a native input of this type holds for the text, None if unknown."""
    if kind == "date":
        day = parse_date(text)
        return day.isoformat() if day else None
    if kind == "time":
        return parse_time(text)
    if kind == "datetime-local":
        return _datetime(text)
    if kind == "month":
        if m := _MONTH.match(text):
            return f"{int(m.group(2)):04d}-{int(m.group(1)):02d}"
        day = parse_date(text)
        return f"{day.year:04d}-{day.month:02d}" if day else None
    if kind == "number":  # grouped digits: fill() refuses "1,000", keys drop the comma
        if m := _GROUPED.match(text):
            return m.group(1) + re.sub(r"[,\s]", "", m.group(2)) + (m.group(3) or "")
        return None
    if kind == "week":
        if m := _WEEK.match(text):
            return f"{int(m.group(1)):04d}-W{int(m.group(2)):02d}"
        day = parse_date(text)
        return f"{day.isocalendar()[0]:04d}-W{day.isocalendar()[1]:02d}" if day else None
    return None


def _datetime(text: str) -> str | None:
    try:
        return datetime.fromisoformat(text.strip()).strftime("%Y-%m-%dT%H:%M")
    except ValueError:
        pass
    parts = re.split(r"\s*(?:,|\s+at\s+|T)\s*|\s+(?=\d{1,2}:)", text.strip(), maxsplit=1)
    if len(parts) != 2:
        return None
    day, clock = parse_date(parts[0]), parse_time(parts[1])
    return f"{day.isoformat()}T{clock}" if day and clock else None


def same_value(kind: str, typed: str, value: str) -> bool:
    """The field holds what was typed, up to the browser's normalisation: equal up to case,
    spaces and punctuation; a date/time in its ISO form; the same number; the same colour."""
    if _core(typed) == _core(value):
        return True
    if kind in DATE_KINDS:
        native = native_form(kind, typed)
        return native is not None and _core(native) == _core(value)
    if kind in ("number", "range"):
        return _number(typed) is not None and _number(typed) == _number(value)
    if kind == "color":
        return typed.strip().lower() == value.strip().lower()
    return False


def _core(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _number(text: str) -> float | None:
    try:
        return float(text.strip().replace(",", ""))
    except ValueError:
        return None
