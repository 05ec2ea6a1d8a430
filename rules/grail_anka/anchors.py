"""Anchors (安価, R2): which posted number counts for a decision, and whose number may count.

A message anchors when it holds exactly one whole number from 1 to 100 (full-width digits too; mentions, channels,
emoji and timestamps are Discord's markup, not numbers). Anything else is chatter: it is skipped and the next
eligible message counts ("shift down"). Nobody anchors twice in a row in a channel, unless the campaign allows it
for small tables with three minutes between the two (`low_participation`); the GMs never anchor (the bot commits,
and a GM who rules on the outcome should not also pick the number).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta
from typing import Final

from rules.grail_anka.checks import ANCHOR_MAX, ANCHOR_MIN

LOW_PARTICIPATION_GAP: Final = timedelta(seconds=180)
_MARKUP = re.compile(r"<[^<>\s]*>")
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")


def anchor_in(text: str) -> int | None:
    """The anchor a message gives, or None when it is chatter."""
    plain = _MARKUP.sub(" ", unicodedata.normalize("NFKC", text))
    numbers = _NUMBER.findall(plain)
    if len(numbers) != 1 or not numbers[0].lstrip("+").isdigit():
        return None
    value = int(numbers[0])
    return value if ANCHOR_MIN <= value <= ANCHOR_MAX else None


def refusal(
    author: int,
    *,
    gm: bool,
    previous_author: int | None,
    previous_at: datetime | None,
    now: datetime,
    low_participation: bool,
) -> str | None:
    """Why this author's number cannot anchor now (a catalog code), or None when it can."""
    if gm:
        return "anchor_by_gm"
    if previous_author != author or previous_at is None:
        return None
    if not low_participation:
        return "anchor_twice"
    if now - previous_at < LOW_PARTICIPATION_GAP:
        return "anchor_too_soon"
    return None
