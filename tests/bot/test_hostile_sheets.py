"""Hostile character files, generated for every kind of every ruleset: each ruleset's own template, with values
swapped for others of any type, huge or invisible text, out-of-range numbers, fields removed and fields made up,
written as YAML or JSON, and at times broken as bytes (`tests.hostile_files`) before the loader reads them.

Whatever the file, reading and building the character either succeeds or refuses with a message or problems the
bot can word in English, Chinese and Japanese; nothing else is raised (no crash that would reach a player as the
generic error), and no example takes long. `HOSTILE_SHEETS=2000 pytest tests/bot/test_hostile_sheets.py` searches
longer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cogs.characters import worded
from bot.errors import UserError
from bot.files import parse_sheet_file
from bot.i18n import ENGLISH, Translator
from bot.interactions import error_text, problem_text
from bot.rulesets.registry import RULESETS
from rules.dice import SeededDice
from rules.exchange import RuleError
from rules.play import CharacterSnapshot, Play
from rules.sheets import SheetError
from tests.hostile_files import WHOLE_FILES, hostile_bytes
from tests.sizes import size

EXAMPLES = size("HOSTILE_SHEETS", 60, 2000)
LOCALES = ("en-US", "zh-CN", "ja")

# Values a file may hold where another was expected: every type YAML gives, at and past every bound.
hostile_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.sampled_from([0, -1, 1, 99, 100, 101, 2**31, -(2**63), 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(["", " ", "\u200b", "A+++", "EX", "a" * 101, "x" * 10_000, "1d20", "<@123>", "null", "\n\n"]),
    st.lists(st.integers() | st.text(max_size=5), max_size=4),
    st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3),
)


def kinds() -> list[tuple[str, str]]:
    found = []
    for ruleset_id, ruleset in RULESETS.items():
        if ruleset.play is not None:
            found += [(ruleset_id, kind) for kind in ruleset.play.kinds]
    return found


def paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in the document that holds a value."""
    found: list[tuple[Any, ...]] = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += paths(value, (*prefix, index))
    return found


def replaced(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, *rest = path
    if isinstance(data, dict):
        return {**data, head: replaced(data[head], tuple(rest), value)}
    copy = list(data)
    copy[head] = replaced(copy[head], tuple(rest), value)
    return copy


def removed(data: Any, path: tuple[Any, ...]) -> Any:
    head, *rest = path
    if rest:
        copy = dict(data) if isinstance(data, dict) else list(data)
        copy[head] = removed(data[head], tuple(rest))
        return copy
    if isinstance(data, dict):
        return {key: value for key, value in data.items() if key != head}
    return [value for index, value in enumerate(data) if index != head]


@st.composite
def hostile_sheet(draw: st.DrawFn, template: dict[str, Any]) -> dict[str, Any]:
    sheet: Any = template
    for _ in range(draw(st.integers(1, 4))):
        places = paths(sheet)
        if not places:
            break
        place = draw(st.sampled_from(places))
        action = draw(st.sampled_from(["replace", "replace", "remove", "add"]))
        if action == "replace":
            sheet = replaced(sheet, place, draw(hostile_values))
        elif action == "remove":
            sheet = removed(sheet, place)
        elif isinstance(sheet, dict):
            sheet = {**sheet, draw(st.text(min_size=1, max_size=12)): draw(hostile_values)}
    return sheet if isinstance(sheet, dict) else {"name": "x"}


@st.composite
def hostile_file(draw: st.DrawFn, kind: str, template: dict[str, Any]) -> bytes:
    """A hostile sheet as a player would upload it: YAML or JSON, now and then broken as bytes."""
    sheet = {"kind": kind, **draw(hostile_sheet(template))}
    if draw(st.booleans()):
        written = yaml.safe_dump(sheet, allow_unicode=True, sort_keys=False).encode()
    else:
        written = json.dumps(sheet, ensure_ascii=draw(st.booleans())).encode(errors="surrogatepass")
    return draw(st.one_of(st.just(written), st.just(written), hostile_bytes(written)))


def worded_in_every_language(refused: UserError, readers: list[Translator]) -> None:
    for reader in readers:
        worded = error_text(reader, refused)
        assert worded and refused.key not in worded, (refused.key, refused.params, worded)


def example(ruleset: str, kind: str) -> dict[str, Any]:
    """A kind's template as the bot hands it out, its names in English."""
    play = RULESETS[ruleset].play
    assert isinstance(play, Play)
    named: dict[str, Any] = worded(Translator(ENGLISH, ruleset), play.template(kind))
    return named


def bound_to(ruleset: str, play: Play, kind: str, options: Any) -> dict[str, CharacterSnapshot]:
    """The character a kind is bound to (a Servant's Master), built from its own template, as the bot finds it."""
    binding = play.binding(kind)
    if binding is None:
        return {}
    draft = play.build(binding.target_kind, example(ruleset, binding.target_kind), {}, SeededDice(1), options)
    target = CharacterSnapshot(1, draft.name, draft.kind, 7, draft.sheet, draft.pools, {})
    return {binding.relation: target}


@pytest.mark.parametrize(("ruleset", "kind"), kinds())
def test_a_hostile_file_builds_or_is_refused_in_words(ruleset: str, kind: str) -> None:
    play = RULESETS[ruleset].play
    assert isinstance(play, Play)
    template = example(ruleset, kind)
    assert template, f"{ruleset} has no template for {kind}"
    options = RULESETS[ruleset].options_model()
    bound = bound_to(ruleset, play, kind, options)
    readers = [Translator.for_locale(locale, ruleset) for locale in LOCALES]
    refused: list[str] = []

    @settings(max_examples=EXAMPLES, deadline=1000, suppress_health_check=[HealthCheck.too_slow], database=None)
    @given(hostile_file(kind, template), st.booleans())
    def builds_or_refuses(content: bytes, gm_run: bool) -> None:
        try:
            read_kind, sheet = parse_sheet_file(content)
        except UserError as unread:
            worded_in_every_language(unread, readers)
            return
        if read_kind != kind:
            return  # a kind broken by the bytes spliced in is the service's to refuse, as any unknown kind
        try:
            play.build(kind, sheet, bound, SeededDice(1), options, gm_run=gm_run)
        except SheetError as error:
            assert error.problems
            refused.extend(problem.code for problem in error.problems)
            for problem in error.problems:
                for reader in readers:
                    worded = problem_text(reader, problem)
                    assert worded and "sheet.problem" not in worded, (problem, worded)
        except RuleError:
            pass  # a refusal the bot words like any rule's (a Servant without its Master, say)

    builds_or_refuses()
    assert len(set(refused)) >= 2, refused  # the files were hostile enough to be refused, for several reasons


@pytest.mark.parametrize("content", WHOLE_FILES)
def test_any_bytes_are_read_or_refused_in_words(content: bytes) -> None:
    readers = [Translator.for_locale(locale) for locale in LOCALES]
    try:
        parse_sheet_file(content)
    except UserError as refused:
        worded_in_every_language(refused, readers)


@pytest.mark.parametrize(
    ("content", "code", "line"),
    [
        (b'kind: master\nname: "a\x00b"\n', "U+0000", 2),
        (b'kind: master\nname: "a\\0b"\n', "U+0000", 2),
        (b"\x00" * 64, "U+0000", 1),
        (b"\xef\xbb\xbf\x00", "U+0000", 1),
        ("kind: master\n\nname: \ufffe\n".encode(), "U+FFFE", 3),
        (b'kind: master\nname: "\\ud800"\n', "U+D800", 2),
        (b'"\\0": 1\nkind: master\n', "U+0000", 1),
    ],
)
def test_a_character_no_database_keeps_is_named_with_its_line(content: bytes, code: str, line: int) -> None:
    with pytest.raises(UserError) as refused:
        parse_sheet_file(content)
    assert (refused.value.key, refused.value.params) == ("error.file_character", {"code": code, "line": line})


@settings(max_examples=EXAMPLES * 5, deadline=1000, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(hostile_bytes(b"kind: master\nname: Rin\nweapons:\n  - name: Azoth\n"))
def test_generated_bytes_are_read_or_refused_in_words(content: bytes) -> None:
    try:
        kind, _ = parse_sheet_file(content)
    except UserError as refused:
        worded_in_every_language(refused, [Translator.for_locale(locale) for locale in LOCALES])
    else:
        assert isinstance(kind, str)
