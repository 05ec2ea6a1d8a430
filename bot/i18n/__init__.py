"""Message catalogs in English, Simplified Chinese and Japanese, chosen by the interaction's locale.

Every user-facing string is a catalog key; `Translator` formats it for one language. The shared catalogs
sit beside this module and each ruleset's in its own package (`bot/rulesets/<id>/i18n`). They are merged
with each ruleset's keys under its id (`<id>:pool.hp`), so two rulesets may both say what `pool.hp`
is; a translator scoped to a ruleset reads its keys first, then the shared ones, and a ruleset key that
shadows a shared one is an error. The command tree's names and descriptions come from the same catalogs
through `CommandTranslator`.

A message that counts something is a `Plural`: its forms by CLDR plural category, chosen by the language's
plural rule (through Babel) for one numeric parameter.
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Protocol, TypeAlias, runtime_checkable

import discord
from babel import Locale
from babel.lists import format_list
from babel.numbers import format_decimal
from babel.units import format_unit
from discord import app_commands

from rules.exchange import Text, UserRef

ENGLISH = "en"
CHINESE = "zh-CN"
JAPANESE = "ja"
LANGUAGES = (ENGLISH, CHINESE, JAPANESE)

# Shared catalog values that are rightly the same in every language (names, notation).
SHARED_PROPER_NOUN_KEYS = frozenset(
    {"choice.format.json", "choice.format.csv", "log.choice_active", "wait.value", "list.lines"}
    | {f"{prefix}.{language}" for prefix in ("campaign.language", "choice.language") for language in LANGUAGES}
)

_LOCALE_LANGUAGES = {
    discord.Locale.chinese: CHINESE,
    discord.Locale.taiwan_chinese: CHINESE,
    discord.Locale.japanese: JAPANESE,
}


def mention(user_id: int | None) -> str:
    """A user as Discord shows them to the reader; "—" for nobody."""
    return f"<@{user_id}>" if user_id is not None else "—"


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
def _babel_locale(language: str) -> Locale:
    return Locale.parse(language, sep="-")


class CatalogOwner(Protocol):
    """A ruleset as its catalogs see it: its id, the folder of its catalogs and its keys that are not translated."""

    @property
    def id(self) -> str: ...

    @property
    def catalogs(self) -> Traversable: ...

    @property
    def proper_noun_keys(self) -> frozenset[str]: ...


class _Catalogs:
    # The rulesets whose catalogs are merged with the shared one, handed in by the registry that lists them (a test
    # may add a ruleset of its own to that mapping: it is read, not copied).
    rulesets: Mapping[str, CatalogOwner] = {}


def use_rulesets(rulesets: Mapping[str, CatalogOwner]) -> None:
    _Catalogs.rulesets = rulesets


@dataclass(frozen=True)
class CatalogSource:
    """One folder of catalogs (`en.json`, `zh-CN.json`, `ja.json`) and its keys that are not translated."""

    name: str
    folder: Traversable
    proper_noun_keys: frozenset[str]

    def entries(self, language: str) -> dict[str, Message]:
        return _read(str(self.folder), language)


def catalog_sources() -> tuple[CatalogSource, ...]:
    return _sources(tuple(_Catalogs.rulesets))


# Keyed by the registered rulesets' ids, so that every translation does not rebuild the sources (a test may
# register a ruleset of its own, which gives a new key).
@cache
def _sources(ruleset_ids: tuple[str, ...]) -> tuple[CatalogSource, ...]:
    shared = CatalogSource("shared", resources.files(__package__), SHARED_PROPER_NOUN_KEYS)
    rulesets = [_Catalogs.rulesets[ruleset_id] for ruleset_id in ruleset_ids]
    return (shared, *(CatalogSource(r.id, r.catalogs, r.proper_noun_keys) for r in rulesets))


@cache
def _read(folder: str, language: str) -> dict[str, Message]:
    entries = json.loads(Path(folder).joinpath(f"{language}.json").read_text(encoding="utf-8"))
    return {key: _message(value, f"{folder}/{language}.json: {key}") for key, value in entries.items()}


# The key of a plural message's object that names the parameter counted; its other keys are CLDR plural categories.
PLURAL = "plural"
CLDR_CATEGORIES = frozenset({"zero", "one", "two", "few", "many", "other"})


@dataclass(frozen=True)
class Plural:
    """A message worded by a number: `{"plural": "count", "one": "{count} event", "other": "{count} events"}` in a
    catalog. The language's CLDR plural rule picks the form for the parameter `count`; a form may be a plural itself,
    for a sentence that counts two things."""

    parameter: str
    forms: Mapping[str, Message]

    def form(self, language: str, params: Mapping[str, object]) -> str:
        """The text these parameters call for, each counted parameter's form chosen in turn."""
        chosen = self.forms.get(plural_category(language, params[self.parameter])) or self.forms["other"]
        return chosen.form(language, params) if isinstance(chosen, Plural) else chosen

    def texts(self) -> list[str]:
        return [text for form in self.forms.values() for text in texts(form)]

    def parameters(self) -> frozenset[str]:
        """Every parameter counted, in this plural or a form nested in it."""
        nested = (form.parameters() for form in self.forms.values() if isinstance(form, Plural))
        return frozenset({self.parameter}).union(*nested)


Message: TypeAlias = str | Plural


def _message(value: object, where: str) -> Message:
    if isinstance(value, str):
        return value
    if not isinstance(value, dict) or not isinstance(parameter := value.get(PLURAL), str):
        raise ValueError(f"{where}: a message is a text or a plural naming its counted parameter under {PLURAL!r}")
    forms = {category: form for category, form in value.items() if category != PLURAL}
    if "other" not in forms or not forms.keys() <= CLDR_CATEGORIES:
        raise ValueError(f"{where}: a plural's forms are CLDR categories, 'other' among them: {sorted(forms)}")
    return Plural(parameter, {category: _message(form, where) for category, form in forms.items()})


def texts(message: Message) -> list[str]:
    """Every text a message may show: a plain one, or each form of a plural."""
    return message.texts() if isinstance(message, Plural) else [message]


def plural_categories(language: str) -> frozenset[str]:
    """The CLDR plural categories a language's numbers fall in ("one" and "other" in English, "other" alone in
    Chinese and Japanese)."""
    return _babel_locale(language).plural_form.tags | {"other"}


def plural_category(language: str, count: object) -> str:
    category: str = _babel_locale(language).plural_form(_counted(count))
    return category


def _counted(count: object) -> int | float | Decimal:
    """A count as CLDR's rules read it; some parameters carry their number written out ("3"), as sheets' limits do."""
    if isinstance(count, int | float | Decimal) and not isinstance(count, bool):
        return count
    if isinstance(count, Fraction):
        return Decimal(count.numerator) / Decimal(count.denominator)
    if isinstance(count, str):
        try:
            return Decimal(count)
        except InvalidOperation:
            pass
    raise TypeError(f"a plural message counts a number, not {count!r}")


def scoped(ruleset: str, key: str) -> str:
    return f"{ruleset}:{key}"


@cache
def _merged(language: str, ruleset_ids: tuple[str, ...]) -> Mapping[str, Message]:
    shared, *rulesets = _sources(ruleset_ids)
    merged = dict(shared.entries(language))
    for source in rulesets:
        entries = source.entries(language)
        if clashes := shared.entries(language).keys() & entries.keys():
            raise ValueError(f"catalog keys of {source.name} shadow shared ones: {sorted(clashes)}")
        merged.update({scoped(source.name, key): text for key, text in entries.items()})
    return merged


def catalog(language: str) -> Mapping[str, Message]:
    """The shared catalog and every registered ruleset's (under its id), merged."""
    return _merged(language, tuple(_Catalogs.rulesets))


def proper_noun_keys() -> frozenset[str]:
    """The untranslated keys of every catalog, as the merged catalogs name them."""
    shared, *rulesets = catalog_sources()
    scoped_keys = {scoped(source.name, key) for source in rulesets for key in source.proper_noun_keys}
    return shared.proper_noun_keys | scoped_keys


def placeholders(message: Message) -> frozenset[str]:
    """The parameters a message takes: those its texts name, and those a plural counts."""
    counted = message.parameters() if isinstance(message, Plural) else frozenset()
    return counted.union(field for text in texts(message) for _, field, _, _ in string.Formatter().parse(text) if field)


@runtime_checkable
class Worded(Protocol):
    """A parameter of a message that words itself in the reader's language (an option by its catalog name)."""

    def words(self, tr: Translator) -> str: ...


class Translator:
    """Formats catalog entries for one language; a key missing there falls back to English.

    Scoped to a ruleset, it reads that ruleset's keys before the shared ones.
    """

    def __init__(self, language: str, ruleset: str | None = None) -> None:
        self.language = language
        self.ruleset = ruleset

    @classmethod
    def for_locale(cls, locale: discord.Locale | str | None, ruleset: str | None = None) -> Translator:
        return cls(language_of(locale), ruleset)

    def scoped(self, ruleset: str | None) -> Translator:
        return Translator(self.language, ruleset)

    def _key(self, key: str) -> str:
        if self.ruleset is not None and scoped(self.ruleset, key) in catalog(ENGLISH):
            return scoped(self.ruleset, key)
        return key

    def __call__(self, key: str, /, **params: object) -> str:
        found = self._key(key)
        # A key missing in the reader's language falls back to English, whose plural rule then picks the form.
        language = self.language if found in catalog(self.language) else ENGLISH
        message = catalog(language)[found]
        template = message.form(language, params) if isinstance(message, Plural) else message
        return template.format(**{COMMAND: CommandMention(self.language), **params})

    def duration(self, *, days: int = 0, hours: int = 0) -> str:
        """A span of story time in words, with CLDR's plurals and list joining ("1 day and 3 hours")."""
        locale = _babel_locale(self.language)
        parts = [
            format_unit(amount, unit, length="long", locale=locale)
            for amount, unit in ((days, "duration-day"), (hours, "duration-hour"))
            if amount
        ]
        return (
            format_list(parts, locale=locale)
            if parts
            else format_unit(0, "duration-hour", length="long", locale=locale)
        )

    def percent(self, chance: Fraction) -> str:
        """A chance as a percentage with one decimal, written the reader's way ("12.5", "12,5")."""
        return format_decimal(float(chance) * 100, format="0.0", locale=_babel_locale(self.language))

    def either(self, words: Sequence[str]) -> str:
        """Alternatives joined the reader's way ("a, b or c")."""
        return format_list(list(words), style="or", locale=_babel_locale(self.language)) if words else ""

    def has(self, key: str) -> bool:
        return self._key(key) in catalog(ENGLISH)

    def text(self, text: Text) -> str:
        """A catalog text with its parameters, those that are texts themselves translated first."""
        return self(text.key, **{name: self.param(value) for name, value in text.params.items()})

    def param(self, value: object) -> object:
        """A parameter of a text as the reader sees it: a text translated, a user mentioned."""
        if isinstance(value, Text):
            return self.text(value)
        if isinstance(value, UserRef):
            return mention(value.user)
        return value

    def first(self, *keys: str) -> str:
        """The first of these keys the catalogs have: a specific message before its generic fallback."""
        return next(key for key in keys if self.has(key))


# The parameter every catalog text may use to name a command: `{command:campaign end}`.
COMMAND = "command"
# The id Discord gave each top-level command when the bot synced it, which a mention of it needs.
_COMMAND_IDS: dict[str, int] = {}


def remember_command_ids(synced: Iterable[tuple[str, int]]) -> None:
    """The top-level commands just synced, by name and id. Synced to several guilds a command has one id in each,
    and a text does not know its guild: such a command is named without a mention."""
    found: dict[str, set[int]] = {}
    for name, command_id in synced:
        found.setdefault(name, set()).add(command_id)
    _COMMAND_IDS.clear()
    _COMMAND_IDS.update({name: next(iter(ids)) for name, ids in found.items() if len(ids) == 1})


class CommandMention:
    """A command in a catalog text, as `{command:campaign end}` writes it: a mention Discord makes clickable (under
    the command's default name: Discord shows every reader a mention as written, and one written with a localized
    name does nothing when clicked), followed by the name the reader's language lists it under where that differs."""

    def __init__(self, language: str) -> None:
        self.language = language

    def __format__(self, path: str) -> str:
        words = path.split()
        command_id = _COMMAND_IDS.get(words[0]) if words else None
        mention = f"</{path}:{command_id}>" if command_id is not None else f"`/{path}`"
        localized = [
            command_text(f"cmd.{'.'.join(words[: depth + 1])}.name", self.language) for depth in range(len(words))
        ]
        named = " ".join(name for name in localized if name is not None)
        if self.language == ENGLISH or None in localized or named == path:
            return mention
        return Translator(self.language)("command.mention_named", mention=mention, name=f"/{named}")


def command_text(key: str, language: str) -> str | None:
    """A command tree's catalog text in a language: a shared command's, or a ruleset's (under its id; command names
    are unique, so one matches). A command's words count nothing: a plural there is no command text."""
    entries = catalog(language)
    found = key if key in entries else next((f for r in _Catalogs.rulesets if (f := scoped(r, key)) in entries), None)
    text = entries[found] if found is not None else None
    return text if isinstance(text, str) else None


# The extra of a command's description (a `locale_str`) that marks the command the GMs' (`bot.gm_only`).
GM_ONLY = "gm_only"


def gm_only_description(description: str, language: str) -> str:
    """A command's description with the words that say only the campaign's GMs may use it."""
    return Translator(language)("command.gm_only", description=description)


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
        translated = command_text(key, language)
        if translated is not None and string.extras.get(GM_ONLY):
            return gm_only_description(translated, language)
        return translated
