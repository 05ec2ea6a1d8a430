"""Message catalogs in English, Simplified Chinese and Japanese, chosen by the interaction's locale.

Every user-facing string is a catalog key; `Translator` formats it for one language. The
command tree's names and descriptions come from the same catalogs through `CommandTranslator`.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from functools import cache
from importlib import resources

import discord
from discord import app_commands

ENGLISH = "en"
CHINESE = "zh-CN"
JAPANESE = "ja"
LANGUAGES = (ENGLISH, CHINESE, JAPANESE)

# Catalog values that are rightly the same in every language (names, notation).
PROPER_NOUN_KEYS = frozenset(
    {
        "choice.format.json",
        "choice.format.csv",
        "log.choice_active",
        "roll.source.stat",
        "roll.source.ability",
    }
)

_LOCALE_LANGUAGES = {
    discord.Locale.chinese: CHINESE,
    discord.Locale.taiwan_chinese: CHINESE,
    discord.Locale.japanese: JAPANESE,
}


def language_of(locale: discord.Locale | str | None) -> str:
    if locale is None:
        return ENGLISH
    if isinstance(locale, str):
        try:
            locale = discord.Locale(locale)
        except ValueError:
            return ENGLISH
    return _LOCALE_LANGUAGES.get(locale, ENGLISH)


@cache
def catalog(language: str) -> Mapping[str, str]:
    text = resources.files(__package__).joinpath(f"{language}.json").read_text(encoding="utf-8")
    entries: dict[str, str] = json.loads(text)
    return entries


def placeholders(template: str) -> frozenset[str]:
    return frozenset(field for _, field, _, _ in string.Formatter().parse(template) if field)


class Translator:
    """Formats catalog entries for one language; a key missing there falls back to English."""

    def __init__(self, language: str) -> None:
        self.language = language

    @classmethod
    def for_locale(cls, locale: discord.Locale | str | None) -> Translator:
        return cls(language_of(locale))

    def __call__(self, key: str, /, **params: object) -> str:
        template = catalog(self.language).get(key) or catalog(ENGLISH)[key]
        return template.format(**params)

    def has(self, key: str) -> bool:
        return key in catalog(ENGLISH)


def command_key(context: app_commands.TranslationContextTypes) -> str | None:
    """The catalog key of one translatable string of the command tree."""
    names = app_commands.TranslationContextLocation
    data = context.data
    if isinstance(data, app_commands.Command | app_commands.Group):
        suffix = "name" if context.location in (names.command_name, names.group_name) else "description"
        return f"cmd.{data.qualified_name.replace(' ', '.')}.{suffix}"
    if isinstance(data, app_commands.Parameter):
        suffix = "name" if context.location is names.parameter_name else "description"
        return f"cmd.{data.command.qualified_name.replace(' ', '.')}.arg.{data.display_name}.{suffix}"
    return None


class CommandTranslator(app_commands.Translator):
    """Discord name and description localizations for zh-CN and ja, from the catalogs."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        language = language_of(locale)
        if language == ENGLISH:
            return None
        key = string.extras.get("key") or command_key(context)
        if key is None:
            return None
        return catalog(language).get(key)
