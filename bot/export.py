"""A campaign's log as a JSON or CSV file, or a transcript to read (`bot.transcript`), written a page at a time
into a temporary file.

Each page is serialized by the workers (`bot.workers`), so the event loop answers everyone else meanwhile,
and memory holds one page, however long the log.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import tempfile
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.services.common import SHEET_SECRETS, payload_as_read
from bot.services.log import Exportable, ExportRow
from bot.transcript import (
    EXTENSIONS,
    TRANSCRIPT_FORMATS,
    Reader,
    transcript_footer,
    transcript_header,
    transcript_page,
)
from bot.workers import WORKERS

FORMATS = ("json", "csv", *TRANSCRIPT_FORMATS)
CSV_COLUMNS = ("id", "created_at", "kind", "actor_id", "actor", "secret", "redacted", "payload")
_JSON_BOOL = {True: "true", False: "false"}
_JSON_NULL = "null"


def _header(exportable: Exportable, file_format: str) -> str:
    campaign = exportable.campaign
    if file_format == "csv":
        buffer = io.StringIO()
        csv.writer(buffer).writerow(CSV_COLUMNS)
        return buffer.getvalue()
    about = {
        "id": campaign.id,
        "name": campaign.name,
        "ruleset": campaign.ruleset,
        "guild_id": str(campaign.guild_id),
        "channel_id": str(campaign.channel_id),
        "status": campaign.status,
    }
    users = {str(user_id): name for user_id, name in exportable.user_names.items()}
    return (
        f'{{"campaign": {json.dumps(about, ensure_ascii=False)}, "users": {json.dumps(users, ensure_ascii=False)}, '
        f'"events": [\n'
    )


def _fields(row: ExportRow, exportable: Exportable) -> tuple[list[Any], str]:
    """An event's columns as the file shows them, and its payload as JSON text (only a label once redacted:
    a secret result stays between the roller and the GMs until the campaign ends)."""
    event_id, created_at, kind, actor_id, secret, payload = row
    own = actor_id == exportable.actor_id
    redacted = bool(secret) and not exportable.sees_secrets and not own
    if redacted:
        payload = json.dumps({"label": json.loads(payload).get("label")}, ensure_ascii=False)
    elif f'"{SHEET_SECRETS}"' in payload:  # only such events are decoded and encoded again
        read = payload_as_read(json.loads(payload), exportable.sees_secrets or own)
        payload = json.dumps(read, ensure_ascii=False)
    moment = (created_at if created_at.tzinfo else created_at.replace(tzinfo=UTC)).isoformat()
    actor = str(actor_id) if actor_id is not None else None
    name = exportable.user_names.get(actor_id) if actor_id is not None else None
    return [event_id, moment, kind, actor, name, bool(secret), redacted], payload


def _page(rows: list[ExportRow], exportable: Exportable, file_format: str, first: bool) -> str:
    """One page of the file; runs in a worker thread."""
    if file_format == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        for row in rows:
            fields, payload = _fields(row, exportable)
            writer.writerow([*fields, payload])
        return buffer.getvalue()
    lines = []
    for row in rows:
        (event_id, moment, kind, actor, name, secret, redacted), payload = _fields(row, exportable)
        # The payload is JSON already: it goes in as it is.
        # Kinds are the bot's own dotted names and ids are digits: nothing in them needs escaping; names may.
        actor_text = _JSON_NULL if actor is None else f'"{actor}"'
        name_text = _JSON_NULL if name is None else json.dumps(name, ensure_ascii=False)
        lines.append(
            f'{{"id": {event_id}, "created_at": "{moment}", "kind": "{kind}", "actor_id": {actor_text}, '
            f'"actor": {name_text}, "secret": {_JSON_BOOL[secret]}, "redacted": {_JSON_BOOL[redacted]}, '
            f'"payload": {payload}}}'
        )
    text = ",\n".join(lines)
    return text if first else f",\n{text}"


async def write_export(
    exportable: Exportable,
    pages: AsyncIterator[list[ExportRow]],
    file_format: str,
    folder: Path,
    reader: Reader | None = None,
    span: tuple[datetime, datetime] | None = None,
) -> tuple[Path, int]:
    """The log written to a file in `folder`, and how many events it holds. A transcript is written for its
    `reader`, its header naming the `span` of its events."""
    campaign = exportable.campaign
    path = folder / f"campaign-{campaign.id}-log.{EXTENSIONS.get(file_format, file_format)}"
    transcript = reader if file_format in TRANSCRIPT_FORMATS else None
    if file_format in TRANSCRIPT_FORMATS and transcript is None:
        raise ValueError("a transcript is written for a reader")
    count = 0
    with path.open("w", encoding="utf-8", newline="") as sink:
        sink.write(
            transcript_header(exportable, transcript, file_format, span)
            if transcript
            else _header(exportable, file_format)
        )
        # While a worker thread writes one page, the next is read from the database; one page at a time is the
        # exporter's, so an export takes one of its user's places among the workers.
        writing: asyncio.Future[str] | None = None
        async for rows in pages:
            if writing is not None:
                sink.write(await writing)
            writing = asyncio.ensure_future(
                WORKERS.run(exportable.actor_id, transcript_page, rows, exportable, transcript, file_format)
                if transcript
                else WORKERS.run(exportable.actor_id, _page, rows, exportable, file_format, count == 0)
            )
            count += len(rows)
        if writing is not None:
            sink.write(await writing)
        if file_format == "json":
            sink.write("\n]}\n")
        elif transcript is not None:
            sink.write(transcript_footer(file_format))
    return path, count


def scratch_folder() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="fatebot-export-")
