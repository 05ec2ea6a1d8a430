"""Character templates in the reader's language: each field's comment and the example's names are the reader's,
the field names the rules' own, and a template filled in as it comes imports in every language."""

from __future__ import annotations

import pytest
import yaml

from bot.cogs.characters import FORM_LIMIT
from bot.i18n import CHINESE, ENGLISH, JAPANESE, Translator
from bot.rulesets.registry import RULESETS
from tests.e2e.conftest import Table

# Example names each ruleset words in the reader's language, by catalog key, as English writes them.
LOCALIZED: dict[str, dict[str, tuple[str, ...]]] = {
    "crest_magia": {"bearer": ("example.sword", "example.leather", "example.swords", "example.history")},
    "fate_points": {
        "master": ("example.gandr", "example.azoth", "example.jewels"),
        "servant": ("example.invisible_air", "example.mana_burst", "example.excalibur"),
    },
    "grail_zh": {
        "servant": ("skill.clairvoyance", "example.caladbolg"),
        "puppet": ("example.puppet",),
        "familiar": ("example.familiar",),
    },
    "grail_anka": {"master": ("anka.example.gems",), "servant": ("anka.example.clairvoyance",)},
}


@pytest.mark.parametrize("language", [ENGLISH, JAPANESE, CHINESE])
@pytest.mark.parametrize("ruleset", list(LOCALIZED))
async def test_a_template_reads_in_the_readers_language_and_imports_as_it_comes(
    table: Table, ruleset: str, language: str
) -> None:
    harness, gm = table.harness, table.alice
    reader = {ENGLISH: table.bob, JAPANESE: table.ken, CHINESE: table.mei}[language]
    channel = harness.emulator.add_channel(table.guild, f"{ruleset}-{language}")
    await harness.slash(gm, channel, "campaign start", ruleset=ruleset, name=f"{ruleset} {language}")
    await harness.slash(gm, channel, "campaign language", language=language)
    play = RULESETS[ruleset].play
    assert play is not None
    tr, english = Translator(language, ruleset), Translator(ENGLISH, ruleset)
    for kind in play.kinds:
        by = gm if kind in play.gm_kinds else reader
        text = (await harness.slash(by, channel, "character template", kind=kind)).reply.attachments[0].data.decode()
        assert len(text) <= FORM_LIMIT, kind  # the form's text, its comments included, is shorter still
        lines = text.splitlines()
        said = tr if by is reader else english  # comments in the reader's language, names in the campaign's
        assert set(play.template_comments(kind)) == set(yaml.safe_load(text)) - {"kind"}, kind  # every field
        for field in play.template_comments(kind):
            above = lines[lines.index(next(line for line in lines if line.startswith(f"{field}:"))) - 1]
            assert above == f"# {said(f'template.{kind}.{field}')}", (kind, field)
        for key in LOCALIZED[ruleset].get(kind, ()):
            assert tr(key) in text, (kind, key)
            if language != ENGLISH:
                assert english(key) not in text, (kind, key)
        created = await harness.slash(by, channel, "character import", npc=kind in play.gm_kinds,
                                      file=(f"{kind}.yaml", text.encode()))  # fmt: skip
        assert created.error is None, created.error
        assert str(yaml.safe_load(text)["name"]) in created.reply.text(), created.reply.text()


@pytest.mark.parametrize("ruleset", list(LOCALIZED))
async def test_the_form_holds_the_commented_template_and_creates_from_it_as_it_comes(
    table: Table, ruleset: str
) -> None:
    harness, ken = table.harness, table.ken
    channel = harness.emulator.add_channel(table.guild, f"{ruleset}-form")
    await harness.slash(table.alice, channel, "campaign start", ruleset=ruleset, name=f"{ruleset} form")
    await harness.slash(table.alice, channel, "campaign language", language=JAPANESE)
    play = RULESETS[ruleset].play
    assert play is not None
    kind, tr = play.kinds[0], Translator(JAPANESE, ruleset)
    form = await harness.slash(ken, channel, "character create", kind=kind)
    assert form.modal is not None
    text = form.modal["components"][0]["components"][0]["value"]
    assert set(play.template_comments(kind)) == set(yaml.safe_load(text)) - {"kind"}
    for field in play.template_comments(kind):
        assert f"# {tr(f'template.{kind}.{field}')}\n{field}:" in text, field
    created = await harness.emulator.submit_modal(ken, form, {tr("character.form_label"): text})
    assert created.error is None, created.error
    assert str(yaml.safe_load(text)["name"]) in created.reply.text(), created.reply.text()
