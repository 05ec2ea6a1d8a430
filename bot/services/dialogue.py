"""Posts in character: who speaks (a character its player plays, or one the GMs run for a GM), its portrait, and
the campaign log's record of every post, edit and deletion.

A post is made on Discord first and logged after, by the cog: what cannot be logged is taken down again, so
that the log and the channel never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import yarl
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import Character, Event
from bot.errors import UserError
from bot.hosts import is_host
from bot.services.characters import active_character, controls, find_character, owned_or_gm
from bot.services.common import Actor, Clock, Place, active_campaign, record_event

SAY = "say"
ME = "me"
PORTRAIT_LIMIT = 500
# The log's events of posts: one kind for each kind of post, then its edits and deletion.
POSTED = {SAY: "dialogue.say", ME: "dialogue.me"}
EDITED = "dialogue.edited"
DELETED = "dialogue.deleted"


def is_web_address(text: str) -> bool:
    """An http(s) address of an image Discord can fetch (for a post's avatar, a sheet's thumbnail): it refuses the
    whole message for an address it cannot read, so nothing less than a well-formed one with a real host is kept."""
    if not text.isprintable() or any(character in text for character in " <>\"'\\`{}|^"):
        return False
    try:
        address = yarl.URL(text)
    except ValueError:  # an unclosed [ of an IPv6 host, a port that is not one...
        return False
    return address.scheme in ("http", "https") and address.raw_host is not None and is_host(address.raw_host)


@dataclass(frozen=True)
class Speaker:
    character: str
    portrait_url: str | None


@dataclass(frozen=True)
class Post:
    """One of a user's posts in character, as the log keeps it."""

    message_id: int
    channel_id: int
    character: str
    kind: str
    text: str


class DialogueService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock

    async def speaker(self, place: Place, actor: Actor, name: str | None) -> Speaker:
        """Who speaks: the character named, if the actor plays it (or runs it as a GM); else their active one."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place, member=actor)
            if name is None:
                character = await active_character(session, campaign, actor)
            else:
                character = await find_character(session, campaign, name)
                if not await controls(session, campaign, character, actor):
                    raise UserError("error.not_your_character", name=character.name)
            return Speaker(character.name, character.portrait_url)

    async def posted(
        self,
        place: Place,
        actor: Actor,
        speaker: Speaker,
        kind: str,
        text: str,
        message_id: int,
        channel_id: int,
        image: str | None = None,
    ) -> None:
        """A post in character, logged with the name of the picture it carried, if any."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place)
            payload = {
                "character": speaker.character,
                "kind": kind,
                "text": text,
                "message": message_id,
                "channel": channel_id,
                **({"image": image} if image else {}),
            }
            record_event(
                session, campaign.id, POSTED[kind], actor_id=actor.user_id, payload=payload, created_at=self.clock()
            )

    async def own_post(self, place: Place, actor: Actor, message_id: int | None) -> Post:
        """The actor's post in character (their latest in the campaign if no message is named) still standing."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            events = list(
                await session.scalars(
                    select(Event)
                    .where(Event.campaign_id == campaign.id, Event.kind.in_((*POSTED.values(), EDITED, DELETED)))
                    .order_by(Event.id)
                )
            )
        standing: dict[int, Post] = {}
        for event in events:
            payload = event.payload
            if event.kind in POSTED.values() and event.actor_id == actor.user_id:
                standing[payload["message"]] = Post(
                    payload["message"], payload["channel"], payload["character"], payload["kind"], payload["text"]
                )
            elif event.kind == EDITED and payload["message"] in standing:
                before = standing[payload["message"]]
                standing[payload["message"]] = Post(
                    before.message_id, before.channel_id, before.character, before.kind, payload["text"]
                )
            elif event.kind == DELETED:
                standing.pop(payload["message"], None)
        if message_id is not None:
            if message_id not in standing:
                raise UserError("error.not_your_post")
            return standing[message_id]
        if not standing:
            raise UserError("error.no_post")
        return standing[max(standing)]

    async def changed(self, place: Place, actor: Actor, post: Post, text: str | None) -> None:
        """A post edited to `text`, or deleted (None)."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place)
            payload = {"character": post.character, "message": post.message_id, "text": text or "", "before": post.text}
            record_event(
                session,
                campaign.id,
                EDITED if text is not None else DELETED,
                actor_id=actor.user_id,
                payload=payload,
                created_at=self.clock(),
            )

    async def set_portrait(self, place: Place, actor: Actor, name: str, url: str | None) -> str:
        """A character's portrait set (or removed), by its player or a GM; its name as stored returned."""
        if url is not None and (len(url) > PORTRAIT_LIMIT or not is_web_address(url.strip())):
            raise UserError("error.portrait_url", most=PORTRAIT_LIMIT)
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            character: Character = await find_character(session, campaign, name)
            await owned_or_gm(session, campaign, character, actor)
            character.portrait_url = url.strip() if url else None
            kind = "character.portrait_set" if url else "character.portrait_removed"
            record_event(
                session,
                campaign.id,
                kind,
                actor_id=actor.user_id,
                payload={"name": character.name},
                created_at=self.clock(),
                secret=character.gm_run,
            )
            return character.name
