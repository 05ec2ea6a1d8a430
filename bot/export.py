"""A campaign's log as a JSON or CSV file."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from bot.services.log import CampaignLog, LogEntry

FORMATS = ("json", "csv")
CSV_COLUMNS = ("id", "created_at", "kind", "actor_id", "secret", "redacted", "payload")


def _row(entry: LogEntry) -> dict[str, Any]:
    event = entry.event
    return {
        "id": event.id,
        "created_at": event.created_at.isoformat(),
        "kind": event.kind,
        "actor_id": str(event.actor_id) if event.actor_id is not None else None,
        "secret": event.secret,
        "redacted": entry.redacted,
        "payload": entry.payload,
    }


def export_log(log: CampaignLog, file_format: str) -> bytes:
    rows = [_row(entry) for entry in log.entries]
    if file_format == "json":
        campaign = log.campaign
        document = {
            "campaign": {
                "id": campaign.id,
                "name": campaign.name,
                "ruleset": campaign.ruleset,
                "guild_id": str(campaign.guild_id),
                "channel_id": str(campaign.channel_id),
                "status": campaign.status,
            },
            "events": rows,
        }
        return json.dumps(document, ensure_ascii=False, indent=2).encode()
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, "payload": json.dumps(row["payload"], ensure_ascii=False)})
    return buffer.getvalue().encode()
