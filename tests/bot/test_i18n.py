"""Catalogs are complete and consistent, commands carry localizations, and replies never hard-code text."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from pathlib import Path

import discord
import pytest
from discord import app_commands

from bot.app import Fatebot, extensions
from bot.db.engine import Database
from bot.emulator.validation import validate_commands
from bot.errors import rule_refused
from bot.i18n import (
    CHINESE,
    ENGLISH,
    JAPANESE,
    LANGUAGES,
    CatalogSource,
    CommandMention,
    CommandTranslator,
    Message,
    Plural,
    Translator,
    catalog,
    catalog_sources,
    placeholders,
    plural_categories,
    proper_noun_keys,
    remember_command_ids,
    texts,
)
from bot.interactions import error_text
from rules.dice import FixedDice
from rules.exchange import RuleError
from rules.fate_points import ACTIONS, ActionState, use_action

BOT_PACKAGE = Path(__file__).resolve().parents[2] / "bot"
TRANSLATED = (CHINESE, JAPANESE)
# Calls whose text reaches a Discord user, and the arguments that carry it.
REPLY_CALLS: dict[str, set[str | int]] = {
    "send_message": {"content", 0},
    "send": {"content", 0},
    "edit_message": {"content"},
    "edit_original_response": {"content"},
    "edit": {"content"},
    "Embed": {"title", "description"},
    "add_field": {"name", "value"},
    "set_footer": {"text"},
    "set_author": {"name"},
    "Button": {"label"},
    # bot.output, which every reply goes through: (where, content, ...)
    "reply": {"content", 1},
    "post": {"content", 1},
    "update": {"content", 1},
    "rewrite": {"content", 1},
}


SOURCES = {source.name: source for source in catalog_sources()}
CHECKED = [(name, language) for name in SOURCES for language in TRANSLATED]


def test_every_ruleset_has_its_own_catalogs() -> None:
    assert set(SOURCES) == {"shared", "fate_points", "grail_zh", "crest_magia", "grail_anka"}
    for name, source in SOURCES.items():
        if name != "shared":
            assert f"ruleset.{name}" in source.entries(ENGLISH), name


@pytest.mark.parametrize(("source", "language"), CHECKED)
def test_catalogs_have_the_same_keys(source: str, language: str) -> None:
    catalogs: CatalogSource = SOURCES[source]
    assert set(catalogs.entries(language)) == set(catalogs.entries(ENGLISH))


@pytest.mark.parametrize(("source", "language"), CHECKED)
def test_placeholders_match_english(source: str, language: str) -> None:
    english, translated = SOURCES[source].entries(ENGLISH), SOURCES[source].entries(language)
    mismatched = {
        key: (placeholders(text), placeholders(translated[key]))
        for key, text in english.items()
        if placeholders(text) != placeholders(translated.get(key, text))
    }
    assert mismatched == {}


@pytest.mark.parametrize(("source", "language"), CHECKED)
def test_translations_differ_from_english_except_proper_nouns(source: str, language: str) -> None:
    english, translated = SOURCES[source].entries(ENGLISH), SOURCES[source].entries(language)
    nouns = SOURCES[source].proper_noun_keys
    untranslated = [key for key, text in english.items() if translated.get(key) == text and key not in nouns]
    assert untranslated == []


def test_proper_nouns_exist() -> None:
    for source in SOURCES.values():
        assert set(source.entries(ENGLISH)) >= source.proper_noun_keys, source.name
    assert set(catalog(ENGLISH)) >= proper_noun_keys()


def test_no_ruleset_key_shadows_a_shared_one() -> None:
    """Each ruleset's keys live under its id, so two rulesets may both word `check.title`; none redefines a shared
    key, which would change the shared text for that ruleset's campaigns only."""
    shared = set(SOURCES["shared"].entries(ENGLISH))
    for source in SOURCES.values():
        if source.name != "shared":
            assert not shared & set(source.entries(ENGLISH)), source.name


async def test_every_command_option_and_choice_is_localized(tmp_path: Path) -> None:
    # Entered as `fatebot run` enters it: a sharded client sets up its shards' queue there, and closes through it.
    database = Database.from_url(f"sqlite:///{tmp_path / 'tree.sqlite3'}")
    async with Fatebot(database, FixedDice([])) as bot:
        await _walk_the_tree(bot)
    await database.dispose()


async def _walk_the_tree(bot: Fatebot) -> None:
    for extension in extensions():
        await bot.load_extension(extension)
    translator = CommandTranslator()
    missing: list[str] = []

    def check(where: str, payload: dict[str, object], field: str) -> None:
        localizations = payload.get(f"{field}_localizations") or {}
        assert isinstance(localizations, dict)
        for locale in (discord.Locale.chinese.value, discord.Locale.japanese.value):
            if not localizations.get(locale):
                missing.append(f"{where} {field} [{locale}]")

    def walk(where: str, payload: dict[str, object]) -> None:
        check(where, payload, "name")
        check(where, payload, "description")
        for option in payload.get("options", []):  # type: ignore[attr-defined]
            walk(f"{where} {option['name']}", option)
        for choice in payload.get("choices", []):  # type: ignore[attr-defined]
            check(f"{where} choice {choice['value']}", choice, "name")

    commands = bot.tree.get_commands()
    assert {command.name for command in commands} >= {"roll", "campaign", "log"}
    payloads = []
    for command in commands:
        assert isinstance(command, app_commands.Command | app_commands.Group)
        payloads.append(await command.get_translated_payload(bot.tree, translator))
        walk(command.name, payloads[-1])
    assert missing == []
    # As Discord takes them: no two commands (or options of one) under one name in any language.
    validate_commands(payloads)


def _letters(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return any(character.isalpha() for character in node.value)
    if isinstance(node, ast.JoinedStr):
        return any(_letters(part) for part in node.values if isinstance(part, ast.Constant))
    return False


def _call_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    if isinstance(node.func, ast.Name):
        return node.func.id
    return None


def _tree(source: str) -> ast.Module:
    """A module's syntax tree. CPython 3.11 can raise a spurious "AST constructor recursion depth mismatch"
    SystemError (python/cpython#106905, seen in threaded processes) for a source it reads fine the next time."""
    try:
        return ast.parse(source)
    except SystemError:
        return ast.parse(source)


def hard_coded_texts(source: str) -> list[int]:
    lines = []
    for node in ast.walk(_tree(source)):
        if not isinstance(node, ast.Call) or (name := _call_name(node)) not in REPLY_CALLS:
            continue
        carriers = REPLY_CALLS[name]
        arguments = [value for index, value in enumerate(node.args) if index in carriers]
        arguments += [keyword.value for keyword in node.keywords if keyword.arg in carriers]
        if any(_letters(argument) for argument in arguments):
            lines.append(node.lineno)
    return lines


def test_the_literal_check_catches_literals() -> None:
    assert hard_coded_texts('await i.response.send_message("Hello")') == [1]
    assert hard_coded_texts('discord.Embed(title=f"Log of {name}")') == [1]
    assert hard_coded_texts('await i.response.send_message(tr("roll.title", user=u))') == []
    assert hard_coded_texts('embed.add_field(name=tr("x"), value=f"<#{channel}>")') == []
    assert hard_coded_texts('await output.reply(interaction, "Done")') == [1]
    assert hard_coded_texts('await output.reply(interaction, tr("done"), ephemeral=True)') == []


def test_replies_and_embeds_never_pass_literal_text() -> None:
    offenders = {
        str(path.relative_to(BOT_PACKAGE)): lines
        for path in BOT_PACKAGE.rglob("*.py")
        if "emulator" not in path.parts and (lines := hard_coded_texts(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


def test_languages_are_the_three_supported() -> None:
    assert LANGUAGES == (ENGLISH, CHINESE, JAPANESE)


def _user_errors(source: str) -> list[tuple[int, str, bool]]:
    """Each `UserError("key", ...)` with a literal key: its line, key, and whether `.within(ruleset)` scopes it."""
    tree = _tree(source)
    scoped = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "within" and isinstance(node.value, ast.Call)
    }
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and _call_name(node) == "UserError"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value, id(node) in scoped))
    return found


def test_every_error_a_module_raises_has_its_message() -> None:
    """A shared message is in the shared catalog; a ruleset's is in its own, and the error says whose it is."""
    shared = SOURCES["shared"].entries(ENGLISH)
    missing = []
    for path in BOT_PACKAGE.rglob("*.py"):
        ruleset = next((name for name in SOURCES if name != "shared" and name in path.parts), None)
        own = SOURCES[ruleset].entries(ENGLISH) if ruleset else {}
        for line, key, scoped in _user_errors(path.read_text(encoding="utf-8")):
            if key not in shared and not (scoped and key in own):
                missing.append(f"{path.relative_to(BOT_PACKAGE)}:{line}: {key}")
    assert missing == []


def test_a_refusal_with_a_variant_reads_the_variants_own_message() -> None:
    """Where a word of a refusal shapes its whole sentence (a Fate/Points action spent), the rules give it as the
    refusal's variant and its message is `rule.code.variant`, its parameters kept: no shared code knows the code."""
    refusal = rule_refused(RuleError("some_code", variant="some_word", name="Saber"), "some_ruleset")
    assert (refusal.key, refusal.params, refusal.ruleset) == ("rule.some_code.some_word", {"name": "Saber"},
                                                              "some_ruleset")  # fmt: skip
    spent = ActionState(round=1, left=())
    for language in LANGUAGES:
        tr = Translator(language, "fate_points")
        worded = set()
        for action in ACTIONS:
            with pytest.raises(RuleError) as error:
                use_action(spent, action, 1)
            worded.add(error_text(tr, rule_refused(error.value, "fate_points")))
        assert worded == {tr(f"rule.action_used.{action}") for action in ACTIONS}
        assert len(worded) == len(ACTIONS)


def test_a_command_in_a_text_is_its_mention_with_the_readers_name_beside() -> None:
    """`{command:...}`: a mention with the synced id under the default name, the localized name after it where it
    differs; a command synced to several guilds (an id in each) is named without a mention."""
    remember_command_ids([("anchor", 11), ("anka", 12), ("anka", 13)])
    try:
        assert format(CommandMention(JAPANESE), "anchor") == "</anchor:11>（/安価）"
        assert format(CommandMention(CHINESE), "anchor") == "</anchor:11>（/安价）"
        assert format(CommandMention(ENGLISH), "anchor") == "</anchor:11>"
        assert format(CommandMention(JAPANESE), "anka finale") == "`/anka finale`（/安価聖杯 最終処理）"
        assert Translator(JAPANESE)("command.mention_named", mention="m", name="n") == "m（n）"
    finally:
        remember_command_ids([])


def _command_path(key: str) -> str | None:
    """The command a catalog key names (`cmd.character.show.name`, or a ruleset's `fate_points:cmd.fate.name`)."""
    own = key.partition(":")[2] or key
    if not (own.startswith("cmd.") and own.endswith(".name")) or ".arg." in own:
        return None
    return own.removeprefix("cmd.").removesuffix(".name").replace(".", " ")


def _english_commands_in(language: str) -> dict[str, list[str]]:
    """Each catalog text of `language` that writes a command by its English name where the language names it
    otherwise (`/character show` in a Chinese sentence, where a Chinese client lists `/角色 查看`)."""
    english, translated = catalog(ENGLISH), catalog(language)
    renamed = {path for key, name in english.items() if (path := _command_path(key)) and translated.get(key) != name}
    written = re.compile(r"(?<![\w/<])/(" + "|".join(sorted(map(re.escape, renamed), key=len, reverse=True)) + r")\b")
    found = {
        key: [name for text in texts(message) for name in written.findall(text)] for key, message in translated.items()
    }
    return {key: names for key, names in found.items() if names}


@pytest.mark.parametrize("language", TRANSLATED)
def test_no_translated_text_names_a_command_in_english(language: str) -> None:
    """A message names a command as `{command:...}` (a mention, and the reader's own name for it); a command's or an
    option's description, which Discord shows as plain text, by the command's name in the language."""
    assert _english_commands_in(language) == {}
    (no_campaign,) = texts(catalog(language)["error.no_campaign"])
    assert no_campaign.count("{command:campaign start}") == 1


# A plural written by hand, which reads wrong for one or for several: "1 event(s)", "2 attack(s)".
HAND_PLURAL = re.compile(r"\w\((?:s|es|ies)\)")


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_catalog_text_writes_a_plural_by_hand(language: str) -> None:
    """A text that counts is a plural message, its form chosen by the number."""
    hand_written = [key for key, message in catalog(language).items() if any(map(HAND_PLURAL.search, texts(message)))]
    assert hand_written == []


def plural_problems(entries: Mapping[str, Message], english: Mapping[str, Message], language: str) -> list[str]:
    """Each plural of a catalog whose forms are not its language's CLDR categories, and each text that counts in
    English but not in the translation."""
    categories = plural_categories(language)
    problems: list[str] = []

    def check(key: str, message: Message) -> None:
        if isinstance(message, Plural):
            if set(message.forms) != categories:
                problems.append(f"{key}: {sorted(message.forms)}, not {sorted(categories)}")
            for form in message.forms.values():
                check(key, form)

    for key, message in entries.items():
        check(key, message)
        if isinstance(english.get(key), Plural) and not isinstance(message, Plural):
            problems.append(f"{key}: counted in English, not here")
    return problems


def test_the_plural_check_catches_wrong_forms() -> None:
    english: dict[str, Message] = {"n": Plural("count", {"one": "{count} event", "other": "{count} events"})}
    assert plural_problems(english, english, ENGLISH) == []
    assert plural_problems({"n": Plural("count", {"other": "{count} events"})}, english, ENGLISH) != []
    assert plural_problems({"n": Plural("count", {"other": "{count} 件"})}, english, JAPANESE) == []
    assert plural_problems({"n": Plural("count", {"one": "{count} 件", "other": "{count} 件"})}, english, JAPANESE)
    assert plural_problems({"n": "{count} 件"}, english, JAPANESE) != []


@pytest.mark.parametrize(("source", "language"), [(name, language) for name in SOURCES for language in LANGUAGES])
def test_plurals_have_their_languages_forms(source: str, language: str) -> None:
    """English says one and other; Chinese and Japanese count without changing the word, in the one form "other"."""
    entries = SOURCES[source].entries(language)
    assert plural_problems(entries, SOURCES[source].entries(ENGLISH), language) == []


def test_a_plural_is_read_with_its_forms_and_must_say_other(tmp_path: Path) -> None:
    """A catalog's plural object becomes a `Plural`; one without "other", or with a form no CLDR category names,
    is refused when read."""
    written = {"ok": {"plural": "count", "one": "{count} die", "other": "{count} dice"}}
    (tmp_path / "en.json").write_text(json.dumps(written), encoding="utf-8")
    source = CatalogSource("sample", tmp_path, frozenset())
    assert source.entries(ENGLISH) == {"ok": Plural("count", {"one": "{count} die", "other": "{count} dice"})}
    assert placeholders(source.entries(ENGLISH)["ok"]) == {"count"}
    for folder, wrong in (("no_other", {"one": "{count} die"}), ("unknown", {"single": "x", "other": "y"})):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "en.json").write_text(json.dumps({"bad": {"plural": "count", **wrong}}), encoding="utf-8")
        with pytest.raises(ValueError, match="CLDR"):
            CatalogSource("sample", tmp_path / folder, frozenset()).entries(ENGLISH)


@pytest.mark.parametrize(
    ("ruleset", "key", "counted", "params", "one", "two"),
    [
        (None, "log.exported", "count", {"name": "W"}, "The log of **W**: 1 event.", "The log of **W**: 2 events."),
        (
            "fate_points",
            "rule.attacks_already_declared",
            "declared",
            {},
            "You already declared 1 attack this round: keep the same number.",
            "You already declared 2 attacks this round: keep the same number.",
        ),
        ("grail_anka", "anka.means.seal", "count", {}, "1 command seal", "2 command seals"),
    ],
)
def test_english_words_one_and_two_apart(
    ruleset: str | None, key: str, counted: str, params: dict[str, object], one: str, two: str
) -> None:
    english = Translator(ENGLISH, ruleset)
    assert (english(key, **params, **{counted: 1}), english(key, **params, **{counted: 2})) == (one, two)


def test_a_sentence_that_counts_twice_words_each_count_by_its_own_number() -> None:
    assert Translator(ENGLISH)("recap.counts", events=1, rolls=2) == "1 event, 2 rolls."
    assert Translator(ENGLISH)("recap.counts", events=2, rolls=1) == "2 events, 1 roll."
    terms = {"side": "Matou", "base": 30, "totals": "+0", "levels": "+0", "fatigue": "+0", "skills": "+0", "rate": 30}
    rate = Translator(ENGLISH, "grail_anka")("anka.rate_terms", advantages=1, disadvantages=2, **terms)
    assert rate.startswith("Matou: 1 advantage, 2 disadvantages: 30%")


@pytest.mark.parametrize(
    ("language", "recap", "seal"),
    [(CHINESE, "1个事件，1次掷骰。", "令咒 1 划"), (JAPANESE, "イベント1件、ロール1回。", "令呪 1 画")],
)
def test_chinese_and_japanese_count_one_with_their_only_form(language: str, recap: str, seal: str) -> None:
    assert Translator(language)("recap.counts", events=1, rolls=1) == recap
    assert Translator(language, "grail_anka")("anka.means.seal", count=1) == seal


def test_a_plural_counts_a_number_or_a_number_written_out() -> None:
    assert Translator(ENGLISH)("log.exported", name="W", count="1") == "The log of **W**: 1 event."
    with pytest.raises(TypeError, match="counts a number"):
        Translator(ENGLISH)("log.exported", name="War", count="many")
