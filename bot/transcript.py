"""A campaign's log as a transcript to read: one self-contained HTML page (or a Markdown file) of the posts in
character, the rolls with their dice, the outcomes, and the session, fight and round markers between them.

Every line is worded as `/log show` words it (`bot.render.log_text`), in the reader's language and time zone, with
the same redaction. The page asks for nothing from outside: no remote picture, font, script or style sheet, and a
Content-Security-Policy says so to the browser. A speaker is shown by a coloured initial, not by its portrait:
portraits are kept as web addresses, and a picture from another site would be a request to it.
"""

from __future__ import annotations

import html
import json
import re
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import discord
from babel.dates import format_datetime

from bot.db.models import Event
from bot.i18n import Translator
from bot.render import log_text, rolls_text
from bot.services.log import Exportable, ExportRow, LogEntry
from rules.exchange import Roll
from rules.play import Renderer

HTML = "html"
MARKDOWN = "markdown"
TRANSCRIPT_FORMATS = (HTML, MARKDOWN)
EXTENSIONS = {HTML: "html", MARKDOWN: "md"}
POSTS = ("dialogue.say", "dialogue.me")
# The events that open a part of the story: a transcript shows them as headings between its lines.
MARKERS = frozenset(
    {
        "campaign.started",
        "campaign.ended",
        "campaign.session",
        "campaign.turn",
        "campaign.time",
        "combat.started",
        "combat.ended",
        "round.started",
    }
)
# Colours readable on white, far enough apart that neighbouring speakers differ.
SPEAKER_COLOURS = (
    "#b3261e",
    "#1a5fb4",
    "#26734d",
    "#8f3fb5",
    "#a65a00",
    "#00727a",
    "#c2185b",
    "#4a5a9c",
    "#6b6b00",
    "#7b4b2a",
    "#0b7a3e",
    "#5c3c92",
)
# Discord Markdown as the log's lines and the players' posts use it; an escaped character is itself.
_INLINE = re.compile(
    r"\\(?P<escaped>[^\sA-Za-z0-9])"
    r"|`(?P<code>[^`]+)`"
    r"|\*\*(?P<bold>.+?)\*\*"
    r"|__(?P<underline>.+?)__"
    r"|\*(?P<italic>[^*\s](?:.*?[^*\s])?)\*"
    r"|(?<!\w)_(?P<underscored>[^_\s](?:.*?[^_\s])?)_(?!\w)"
    r"|~~(?P<struck>.+?)~~"
    r"|\|\|(?P<spoiler>.+?)\|\|",
    re.DOTALL,
)
# What Discord turns into a name, a time or a command where the transcript cannot: mentions and time stamps.
_DISCORD_TOKENS = re.compile(
    r"<@!?(?P<user>\d+)>|<t:(?P<moment>-?\d{1,12})(?::[tTdDfFR])?>|</(?P<command>[^:<>]+):\d+>"
)
_TAGS = {"bold": "strong", "underline": "u", "italic": "em", "underscored": "em", "struck": "s", "spoiler": "mark"}
_MARKDOWN_SPECIAL = re.compile(r"[<>&]")


@dataclass(frozen=True)
class Reader:
    """Who reads the transcript: their words (scoped to the campaign's ruleset) and their time zone."""

    tr: Translator
    renderer: Renderer | None
    time_zone: str


def speaker_colour(name: str) -> str:
    """The same colour for a speaker in every transcript, whoever exports it."""
    return SPEAKER_COLOURS[zlib.crc32(name.encode("utf-8")) % len(SPEAKER_COLOURS)]


def local_time(reader: Reader, moment: datetime) -> str:
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return format_datetime(
        aware, "short", tzinfo=ZoneInfo(reader.time_zone), locale=reader.tr.language.replace("-", "_")
    )


def entry_of(row: ExportRow, exportable: Exportable) -> LogEntry:
    """An export's row as `/log show` reads an event: secret results and hidden sheets redacted alike."""
    event_id, created_at, kind, actor_id, secret, payload = row
    event = Event(id=event_id, kind=kind, actor_id=actor_id, secret=bool(secret), payload=json.loads(payload))
    event.created_at = created_at if created_at.tzinfo else created_at.replace(tzinfo=UTC)
    own = actor_id == exportable.actor_id
    return LogEntry(
        event,
        redacted=bool(secret) and not exportable.sees_secrets and not own,
        sees_sheets=exportable.sees_secrets or own,
    )


def _plain_tokens(text: str, exportable: Exportable, reader: Reader) -> str:
    """Mentions as the server names the user, time stamps in the reader's zone, commands by their name."""

    def replaced(found: re.Match[str]) -> str:
        if found["user"] is not None:
            name = exportable.user_names.get(int(found["user"]))
            # A name as written, not as Markdown: a star in a nickname is no emphasis.
            return f"@{discord.utils.escape_markdown(name)}" if name is not None else reader.tr("transcript.someone")
        if found["moment"] is not None:
            return local_time(reader, datetime.fromtimestamp(int(found["moment"]), UTC))
        return f"/{found['command']}"

    return _DISCORD_TOKENS.sub(replaced, text)


def markdown_html(text: str) -> str:
    """Discord Markdown as HTML: everything else in it escaped, so that what a player typed stays text."""
    parts: list[str] = []
    position = 0
    for found in _INLINE.finditer(text):
        parts.append(html.escape(text[position : found.start()]))
        position = found.end()
        kind = found.lastgroup or ""
        inner = found[kind]
        if kind == "escaped":
            parts.append(html.escape(inner))
        elif kind == "code":
            parts.append(f"<code>{html.escape(inner)}</code>")
        else:
            parts.append(f"<{_TAGS[kind]}>{markdown_html(inner)}</{_TAGS[kind]}>")
    parts.append(html.escape(text[position:]))
    return "".join(parts).replace("\n", "<br>")


def _dice_lines(entry: LogEntry, tr: Translator) -> list[str]:
    """Every die of the event's rolls as Markdown: a plain roll's dice groups (`2d6 [3, ~~1~~, 5]`, a face that
    does not count struck through), an exchange step's rolls with their modifiers."""
    payload = entry.payload
    if isinstance(payload.get("rolls"), list) and payload["rolls"]:
        return rolls_text(tr, tuple(Roll.from_dict(roll) for roll in payload["rolls"])).splitlines()
    record = payload.get("roll")
    return _dice_groups(record) if isinstance(record, dict) else []


def _dice_groups(node: Any) -> list[str]:
    if isinstance(node, list):
        return [line for item in node for line in _dice_groups(item)]
    if not isinstance(node, dict):
        return []
    if node.get("type") == "dice" and isinstance(node.get("dice"), list):
        faces = [str(die["face"]) if die.get("kept", True) else f"~~{die['face']}~~" for die in node["dice"]]
        return [f"{node.get('notation', '')} [{', '.join(faces)}]"]
    return [line for value in node.values() for line in _dice_groups(value)]


@dataclass(frozen=True)
class Shown:
    """One event as the transcript lays it out."""

    kind: str  # "say", "me", "marker" or "line"
    moment: str
    iso: str
    text: str  # Discord Markdown, mentions and time stamps already worded
    speaker: str | None = None
    dice: tuple[str, ...] = ()
    hidden: bool = False  # shown to this reader only: players do not see it until the campaign ends


def shown(row: ExportRow, exportable: Exportable, reader: Reader) -> Shown:
    entry = entry_of(row, exportable)
    event = entry.event
    moment, iso = local_time(reader, event.created_at), event.created_at.isoformat()
    hidden = event.secret and not entry.redacted
    if event.kind in POSTS and not entry.redacted:
        speaker = str(entry.payload.get("character", ""))
        text = str(entry.payload.get("text", ""))
        if event.kind == "dialogue.me":  # an action as the channel shows it: its Markdown as typed
            text = discord.utils.escape_markdown(text)
        kind = "say" if event.kind == "dialogue.say" else "me"
        return Shown(kind, moment, iso, _plain_tokens(text, exportable, reader), speaker, hidden=hidden)
    # The rolls come as dice lines of their own, below the words.
    text = _plain_tokens(log_text(reader.tr, entry, reader.renderer, with_rolls=False), exportable, reader)
    kind = "marker" if event.kind in MARKERS else "line"
    return Shown(kind, moment, iso, text, dice=tuple(_dice_lines(entry, reader.tr)), hidden=hidden)


CSS = """
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC",sans-serif;
color:#1f1f1f;background:#f6f5f2;overflow-wrap:anywhere;word-break:normal}
header,main{max-width:46rem;margin:0 auto;padding:0 .9rem}
header{padding-top:1rem;border-bottom:1px solid #ddd}
h1{font-size:1.35rem;margin:.2rem 0}
.range{color:#555;margin:.2rem 0 .8rem;font-size:.9rem}
main{padding-bottom:2rem}
article,.line{display:flex;gap:.6rem;margin:.7rem 0;min-width:0}
.body{min-width:0;flex:1}
.avatar{flex:none;width:2.4rem;height:2.4rem;border-radius:50%;background:var(--speaker);color:#fff;
display:flex;align-items:center;justify-content:center;font-weight:700;overflow:hidden}
.speaker{color:var(--speaker);font-weight:700}
.meta{margin:0;font-size:.9rem}
.text{margin:.1rem 0 0}
.me .text{font-style:italic}
time{color:#777;font-size:.8rem;white-space:nowrap}
.line{font-size:.92rem;color:#333;padding-left:3rem;flex-direction:column;gap:.1rem}
.dice{margin:0;padding:0;list-style:none;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem}
.dice li{background:#ecebe6;border-radius:4px;padding:.1rem .4rem;margin-top:.15rem;display:inline-block;
max-width:100%}
.marker{text-align:center;font-size:1rem;margin:1.4rem 0 .8rem;padding:.3rem;border-top:1px solid #ccc;
border-bottom:1px solid #ccc;color:#333}
.marker time{display:block}
.hidden{border-left:3px dashed #999;padding-left:.5rem}
.badge{font-size:.75rem;background:#555;color:#fff;border-radius:3px;padding:0 .3rem;margin-left:.3rem}
code{font-family:ui-monospace,Menlo,Consolas,monospace;background:#ecebe6;border-radius:3px;padding:0 .2rem}
mark{background:#333;color:#fff}
"""
# Nothing from outside: the page's own styles, and nothing else.
CSP = "default-src 'none'; style-src 'unsafe-inline'"


def html_header(exportable: Exportable, reader: Reader, span: tuple[datetime, datetime] | None) -> str:
    tr, name = reader.tr, exportable.campaign.name
    title = html.escape(tr("transcript.title", name=name))
    if span is None:
        about = tr("transcript.empty")
    else:
        about = tr("transcript.range", first=local_time(reader, span[0]), last=local_time(reader, span[1]))
    zone = tr("transcript.time_zone", zone=reader.time_zone)
    return (
        f'<!DOCTYPE html>\n<html lang="{html.escape(tr.language)}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        f"<title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<header>\n<h1>{title}</h1>\n"
        f'<p class="range">{html.escape(about)}<br>{html.escape(zone)}</p>\n</header>\n<main>\n'
    )


HTML_FOOTER = "</main>\n</body>\n</html>\n"


def _avatar(speaker: str) -> str:
    return f'<div class="avatar" aria-hidden="true">{html.escape(speaker[:1].upper())}</div>'


def html_of(item: Shown, reader: Reader) -> str:
    time = f'<time datetime="{item.iso}">{html.escape(item.moment)}</time>'
    badge = f'<span class="badge">{html.escape(reader.tr("transcript.hidden"))}</span>' if item.hidden else ""
    hidden = " hidden" if item.hidden else ""
    if item.speaker is not None:
        speaker = item.speaker
        style = f' style="--speaker:{speaker_colour(speaker)}"'
        name = f'<span class="speaker">{html.escape(speaker)}</span>'
        if item.kind == "say":
            body = f'<p class="meta">{name} {time}{badge}</p><p class="text">{markdown_html(item.text)}</p>'
        else:
            body = f'<p class="meta">{time}{badge}</p><p class="text">{name} {markdown_html(item.text)}</p>'
        return (
            f'<article class="{item.kind}{hidden}"{style}>{_avatar(speaker)}<div class="body">{body}</div></article>\n'
        )
    if item.kind == "marker":
        return f'<h2 class="marker{hidden}">{markdown_html(item.text)}{badge}{time}</h2>\n'
    dice = "".join(f"<li>{markdown_html(line)}</li>" for line in item.dice)
    listed = f'<ul class="dice">{dice}</ul>' if dice else ""
    return f'<div class="line{hidden}"><div>{time} {markdown_html(item.text)}{badge}</div>{listed}</div>\n'


def _markdown_safe(text: str) -> str:
    """Markdown a viewer shows as typed, with no HTML of its own: a tag a player typed stays text."""
    return _MARKDOWN_SPECIAL.sub(lambda found: html.escape(found[0]), text)


def markdown_header(exportable: Exportable, reader: Reader, span: tuple[datetime, datetime] | None) -> str:
    tr = reader.tr
    title = _markdown_safe(discord.utils.escape_markdown(tr("transcript.title", name=exportable.campaign.name)))
    if span is None:
        about = tr("transcript.empty")
    else:
        about = tr("transcript.range", first=local_time(reader, span[0]), last=local_time(reader, span[1]))
    return f"# {title}\n\n{about}  \n{tr('transcript.time_zone', zone=reader.time_zone)}\n\n"


def markdown_of(item: Shown, reader: Reader) -> str:
    badge = f" *({reader.tr('transcript.hidden')})*" if item.hidden else ""
    if item.speaker is not None:
        name = f"**{_markdown_safe(discord.utils.escape_markdown(item.speaker))}**"
        text = _markdown_safe(item.text)
        if item.kind == "say":
            quoted = "\n".join(f"> {line}" for line in text.splitlines() or [""])
            return f"{name} · {item.moment}{badge}\n{quoted}\n\n"
        return f"*{name} {text}* · {item.moment}{badge}\n\n"
    if item.kind == "marker":
        return f"---\n\n### {_markdown_safe(item.text)}{badge}\n{item.moment}\n\n"
    dice = "".join(f"\n    - {_markdown_safe(line)}" for line in item.dice)
    return f"- {item.moment} · {_markdown_safe(item.text)}{badge}{dice}\n\n"


def transcript_page(rows: list[ExportRow], exportable: Exportable, reader: Reader, file_format: str) -> str:
    """One page of rows as the transcript shows them; runs in a worker thread."""
    write = html_of if file_format == HTML else markdown_of
    return "".join(write(shown(row, exportable, reader), reader) for row in rows)


def transcript_header(
    exportable: Exportable, reader: Reader, file_format: str, span: tuple[datetime, datetime] | None
) -> str:
    return (html_header if file_format == HTML else markdown_header)(exportable, reader, span)


def transcript_footer(file_format: str) -> str:
    return HTML_FOOTER if file_format == HTML else ""
