"""Embeds and lines for what the bot posts; every word comes from the catalogs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import discord

from bot.db.models import DEADLINE_TRIES, Campaign, Event
from bot.i18n import Translator, mention
from bot.options import option_name, option_text, stored_words, value_words
from bot.services.campaigns import LANGUAGE_SET, OPTION_SET, CampaignSummary
from bot.services.common import DICE_DIALECT
from bot.services.log import Fall, LogEntry
from bot.services.reminders import OpenWait
from bot.services.rolls import dice_dialect, summary_text, verdict_text
from rules.dice import RollResult, Summary, render
from rules.exchange import Roll, Text
from rules.play import Pool, Renderer

ROLL_COLOUR = discord.Colour.blurple()
SECRET_COLOUR = discord.Colour.dark_grey()
CAMPAIGN_COLOUR = discord.Colour.gold()


def timestamp(event_or_campaign: Event | Campaign) -> str:
    return f"<t:{int(event_or_campaign.created_at.timestamp())}:f>"


class CatalogWords:
    """A roll's verdicts and counts in one reader's words."""

    def __init__(self, tr: Translator) -> None:
        self.tr = tr

    def verdict(self, met: bool) -> str:
        return self.tr.text(verdict_text(met))

    def summary(self, summary: Summary) -> str:
        return self.tr.text(summary_text(summary))


def roll_embed(tr: Translator, user: str, result: RollResult, label: str | None, *, secret: bool) -> discord.Embed:
    title = tr("roll.title_label", user=user, label=label) if label else tr("roll.title", user=user)
    described = render(result, words=CatalogWords(tr))
    embed = discord.Embed(title=title, description=described, colour=SECRET_COLOUR if secret else ROLL_COLOUR)
    if secret:
        embed.set_footer(text=tr("roll.secret_footer"))
    return embed


def campaign_embed(tr: Translator, summary: CampaignSummary, server_language: str) -> discord.Embed:
    campaign = summary.campaign
    embed = discord.Embed(title=campaign.name, colour=CAMPAIGN_COLOUR)
    embed.add_field(name=tr("campaign.field.ruleset"), value=ruleset_name(tr, campaign.ruleset), inline=True)
    embed.add_field(name=tr("campaign.field.channel"), value=f"<#{campaign.channel_id}>", inline=True)
    embed.add_field(
        name=tr("campaign.field.session"),
        value=tr("campaign.session_turn", session=campaign.session_number, turn=campaign.turn_number),
        inline=True,
    )
    embed.add_field(name=tr("campaign.field.language"), value=tr(f"campaign.language.{campaign.language or 'server'}"))
    chosen = campaign.options.get(DICE_DIALECT)
    dialect = value_words(tr, DICE_DIALECT, dice_dialect(chosen, campaign.language or server_language))
    embed.add_field(
        name=option_name(tr, DICE_DIALECT),
        value=dialect if chosen is not None else tr("campaign.dice_dialect_by_language", dialect=dialect),
    )
    embed.add_field(name=tr("campaign.field.gms"), value=" ".join(mention(gm) for gm in summary.gm_ids), inline=False)
    embed.add_field(name=tr("campaign.field.players"), value=str(summary.player_count), inline=True)
    embed.add_field(name=tr("campaign.field.started"), value=timestamp(campaign), inline=True)
    words = tr.scoped(campaign.ruleset)  # the options are named in the ruleset's catalog
    options = "\n".join(
        words("campaign.option_line", option=option_name(words, name), value=stored_words(words, name, value))
        for name, value in sorted(summary.changed_options.items())
    )
    embed.add_field(name=tr("campaign.field.options"), value=options or tr("campaign.options_default"), inline=False)
    return embed


def ruleset_name(tr: Translator, ruleset: str) -> str:
    """A ruleset's name from its own catalog; its id if it is no longer registered."""
    key = f"{ruleset}:ruleset.{ruleset}"
    return tr(key) if tr.has(key) else ruleset


def logged_value(tr: Translator, value: Any) -> Any:
    """A stored value as a log line shows it: yes and no, and nothing, in the reader's words, never `True`/`None`."""
    if isinstance(value, bool):
        return tr("log.yes" if value else "log.no")
    if value is None:
        return tr("log.nothing")
    return value


def _log_params(tr: Translator, payload: dict[str, Any]) -> dict[str, Any]:
    """An event's payload as catalog parameters: nested outcomes flattened one level, texts translated."""
    params: dict[str, Any] = {}
    nested: list[dict[str, Any]] = []
    for key, value in payload.items():
        if isinstance(value, dict) and "key" in value and "params" in value:
            params[key] = tr.text(Text.from_dict(value))
        elif isinstance(value, dict):
            nested.append(value)
        elif not isinstance(value, list):
            params[key] = value
    for inner in nested:  # the event's own fields win over those of an outcome inside it
        for key, value in inner.items():
            if not isinstance(value, dict | list):
                params.setdefault(key, value)
    return params


def language_name(tr: Translator, language: str | None) -> str:
    """A campaign's language by its name (None: the server's)."""
    return tr(f"campaign.language.{language or 'server'}")


def fall_line(tr: Translator, fall: Fall) -> str:
    """Who fell, as the log says it: in the ruleset's or the shared words for that fate, else as out of play."""
    key = f"event.character.{fall.fate}"
    return tr(key, name=fall.name) if tr.has(key) else tr("recap.fell", name=fall.name)


def log_line(tr: Translator, entry: LogEntry, renderer: Renderer | None = None) -> str:
    return f"`#{entry.event.id}` {timestamp(entry.event)} {log_text(tr, entry, renderer)}"


def log_text(tr: Translator, entry: LogEntry, renderer: Renderer | None = None, *, with_rolls: bool = True) -> str:
    """What an event tells, in the reader's words (Discord Markdown), without its number and time; ending with the
    rolls it carries unless the caller shows them apart (`with_rolls=False`)."""
    event = entry.event
    kind = f"{event.kind}_secret" if entry.redacted else event.kind
    params = _log_params(tr, entry.payload)
    params["actor"] = mention(event.actor_id)
    if "user" in params:
        params["user"] = mention(params["user"])
    if "ruleset" in params:
        params["ruleset"] = ruleset_name(tr, str(params["ruleset"]))
    if event.kind == "dialogue.me":  # in italics, as the channel shows it: its own Markdown as typed
        params["text"] = discord.utils.escape_markdown(str(params.get("text", "")))
    for key in ("old", "new"):
        if key in entry.payload:
            stored = entry.payload[key]
            if event.kind == OPTION_SET:
                params[key] = stored_words(tr, str(params["option"]), stored)
            elif event.kind == LANGUAGE_SET:
                params[key] = language_name(tr, stored)
            elif stored is not None and not isinstance(stored, bool):  # a sheet's value as its file has it
                params[key] = option_text(stored)
    if event.kind == OPTION_SET:
        params["option"] = option_name(tr, str(params["option"]))
    if "resource" in params:  # a pool, in the reader's words
        params["resource"] = pool_label(tr, str(params["resource"]))
    if event.kind == "campaign.time":
        params["duration"] = tr.duration(days=int(params.get("days") or 0), hours=int(params.get("hours") or 0))
    if event.kind == "roll":
        params["label"] = params.get("label") or tr("roll.no_label")
        if "expression" in params:  # quoted as code: a backtick in a comment or annotation would end the quote
            params["expression"] = str(params["expression"]).replace("`", "ˋ")
        if event.secret and not entry.redacted:
            kind = "roll_secret_revealed"
        if "summary" in params and not entry.redacted:  # what its numbers mean: a target's verdict, successes
            kind = f"{kind}_summarized"
    params = {key: logged_value(tr, value) for key, value in params.items()}
    own = renderer.log_line(event.kind, entry.payload) if renderer is not None and not entry.redacted else None
    try:
        if own is not None:
            text = tr.text(
                Text(own.key, {**params, **{name: logged_value(tr, value) for name, value in own.params.items()}})
            )
        else:
            text = tr(f"event.{kind}", **params)
    except KeyError:  # an event from an older version whose payload lacks a field: still listed, by its kind
        text = f"`{event.kind}`"
    # A step's first event carries all its rolls: each die and term as the post showed them, in every ruleset.
    shown_rolls = () if entry.redacted or not with_rolls else entry.payload.get("rolls") or ()
    rolls = [Roll.from_dict(roll) for roll in shown_rolls]
    if rolls:
        text = tr(
            "log.with_rolls", line=text, rolls=tr("log.roll_separator").join(roll_line(tr, roll) for roll in rolls)
        )
    return text


def roll_line(tr: Translator, roll: Roll) -> str:
    """`HP: 2d10 [4, **7**] +3 (END) = 10`: every die, the ones that count in bold when some do not; a die rolled
    again shows its earlier faces struck through (`1d20 [~~20~~, 2]`)."""
    if roll.rerolled:
        dice = f"1d{roll.sides} [{', '.join([*(f'~~{face}~~' for face in roll.dice[:-1]), str(roll.dice[-1])])}]"
    else:
        partial = len(roll.kept) < len(roll.dice)
        remaining = list(roll.kept)
        faces = []
        for face in roll.dice:
            if partial and face in remaining:
                remaining.remove(face)
                faces.append(f"**{face}**")
            else:
                faces.append(str(face))
        dice = f"{len(roll.dice)}d{roll.sides} [{', '.join(faces)}]"
    text = f"{_named(tr, 'roll.label', roll.label)}: {dice}"
    if roll.multiplier != 1:
        text += f" ×{roll.multiplier}"
    for modifier in roll.modifiers:
        text += f" {modifier.value:+d} ({_named(tr, 'roll.source', modifier.source)})"
    return f"{text} = **{roll.total}**"


def _named(tr: Translator, prefix: str, name: str) -> str:
    """A roll's label or a modifier's source, `kind` or `kind:detail` (`skill:Melee`), in words: the catalogs'
    words for the whole name (`prefix.skill.Melee`) where they have them, else for its kind with the detail as
    written (`prefix.stat` with "STR"), else the name itself."""
    head, _, detail = name.partition(":")
    whole = f"{prefix}.{head}.{detail}" if detail else f"{prefix}.{head}"
    if tr.has(whole):
        return tr(whole)
    if tr.has(f"{prefix}.{head}"):
        return tr(f"{prefix}.{head}", detail=detail)
    return name


def _known(tr: Translator, key: str, fallback: str) -> str:
    """A catalog text where the rules name something the catalogs know, else the rules' own name."""
    return tr(key) if tr.has(key) else fallback


def rolls_text(tr: Translator, rolls: tuple[Roll, ...]) -> str:
    return "\n".join(roll_line(tr, roll) for roll in rolls)


def pool_label(tr: Translator, name: str) -> str:
    return _known(tr, f"pool.{name}", name)


def pool_text(tr: Translator, name: str, current: int, maximum: int | None) -> str:
    label = pool_label(tr, name)
    return f"{label} {current}/{maximum}" if maximum is not None else f"{label} {current}"


def pools_text(tr: Translator, pools: Mapping[str, Pool]) -> str:
    return " · ".join(pool_text(tr, name, pool.current, pool.maximum) for name, pool in pools.items())


def changed_pools(tr: Translator, pools: dict[str, dict[str, tuple[int, int | None]]]) -> list[tuple[str, str]]:
    """(`Saber`, `HP 30/40 · prana 12/91`) for each character whose pools changed."""
    return [
        (name, " · ".join(pool_text(tr, pool, current, top) for pool, (current, top) in changed.items()))
        for name, changed in pools.items()
    ]


def waited_on(tr: Translator, wait: OpenWait) -> str:
    """Whom a wait waits for: as its ruleset words it, its character and players, the GMs, or any player."""
    if wait.waiting_for is not None:
        return tr.text(wait.waiting_for)
    if wait.to_gms:
        return tr("wait.the_gms")
    if wait.open_to_players:
        return tr("wait.any_player")
    users = " ".join(mention(user_id) for user_id in wait.audience_ids)
    return tr("waiting.who", subject=wait.subject, users=users) if wait.subject else users


def given_up_text(tr: Translator, error_id: str) -> str:
    """What a wait the deadlines gave up on shows: that it failed, the error id it was logged with, and who acts."""
    return tr("wait.given_up", tries=DEADLINE_TRIES, error=error_id)


def open_wait_line(tr: Translator, wait: OpenWait, *, with_campaign: bool) -> str:
    """One line of a list of whose move it is: what waits, for whom, since when, and a link to its prompt; for a
    wait the deadlines gave up on, that they did, with its error id."""
    scoped = tr.scoped(wait.ruleset)
    line = scoped(
        "waiting.line",
        title=scoped.text(wait.title),
        who=waited_on(scoped, wait),
        since=f"<t:{int(wait.created_at.timestamp())}:R>",
    )
    if with_campaign:
        line = tr("waiting.in_campaign", campaign=wait.campaign_name, line=line)
    if wait.link:
        line = f"{line} {wait.link}"
    return f"{line}\n{given_up_text(tr, wait.given_up_error)}" if wait.given_up_error else line
