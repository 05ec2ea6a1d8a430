"""Buttons through the emulator, which refuses what Discord refuses: the longest names a sheet allows on a prompt's
buttons, more choices than one message holds (every one reachable, the best first), and a wait whose prompt could
not be posted, answered from /gm pending."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import yaml

from bot import output
from bot.emulator.models import Channel, Guild, Message, User
from rules.crest_magia.model import SKILLS
from rules.text import NAME_LIMIT
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.harness import Harness, running_harness

CHANNEL_MESSAGES = r"/channels/\d+/messages$"
# The longest weapon names a sheet takes, and one that fits a button only once its type is left out.
LONGEST = "Azoth Dagger of the Tohsaka Line, Passed Down From Father to Daughter Since the Third Grail War, Rin"
LONG = LONGEST[:96]
# Every Crest Magia skill: Agility and Melee at 3, Athletics and Awareness at 2, the others at 1; with Dodging
# (Agility) and Parry (Melee), the two best defences are the last of its 26 answers in the sheet's order.
EVERY_SKILL: dict[str, int] = {
    skill: {"Agility": 3, "Melee": 3, "Athletics": 2, "Awareness": 2}.get(skill, 1) for skill in SKILLS
}
SPECIALTY_RANK = 1  # what a specialty adds where its sheet gives it no rank
SPECIALTIES = [{"name": "Swords", "skill": "Melee"}, {"name": "History", "skill": "Lore"},
               {"name": "Sight", "skill": "Awareness"}, {"name": "Dodging", "skill": "Agility"},
               {"name": "Parry", "skill": "Melee"}]  # fmt: skip
BEST = ["Agility + Dodging 4", "Melee + Swords 4", "Melee + Parry 4"]
MORE = "More choices ({page}/{count})"
BEST_WEAPON = "The best weapon by the rules"


@dataclass(frozen=True)
class Table:
    harness: Harness
    guild: Guild
    channel: Channel
    gm: User
    bob: User
    mei: User


@pytest.fixture(scope="module", params=BACKENDS)
async def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("components")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        gm, bob, mei = emulator.add_user("kirei"), emulator.add_user("bob"), emulator.add_user("mei")
        guild = emulator.add_guild("Fuyuki", owner=gm)
        for player in (bob, mei):
            emulator.add_member(guild, player)
        await harness.start_bot()
        yield Table(harness, guild, emulator.add_channel(guild, "lobby"), gm, bob, mei)


async def _campaign(server: Table, ruleset: str) -> Table:
    channel = server.harness.new_channel(server.guild)
    await server.harness.slash(server.gm, channel, "campaign start", ruleset=ruleset, name="Components")
    return replace(server, channel=channel)


async def _template(table: Table, user: User, kind: str) -> dict[str, Any]:
    reply = (await table.harness.slash(user, table.channel, "character template", kind=kind)).reply
    data: dict[str, Any] = yaml.safe_load(reply.attachments[0].data)
    return data


async def _import(table: Table, user: User, data: dict[str, Any], *, npc: bool = False) -> None:
    text = yaml.safe_dump(data, allow_unicode=True).encode()
    created = (await table.harness.slash(user, table.channel, "character import", file=("sheet.yaml", text),
                                         npc=npc)).reply  # fmt: skip
    assert not created.ephemeral or npc, created.content


async def _fate_points_pairs(table: Table) -> None:
    """bob's Rin, whose two weapons have the longest names a sheet takes, and her Archer; mei's Sakura and Rider."""
    for user, master, servant in ((table.bob, "Rin", "Archer"), (table.mei, "Sakura", "Rider")):
        data = await _template(table, user, "master")
        data["name"] = master
        if master == "Rin":
            data["weapons"] = [{"name": LONG, "type": "magic"}, {"name": LONGEST, "type": "dagger"}]
        await _import(table, user, data)
        await table.harness.approve_sheet(table.gm, table.channel, master)
        data = await _template(table, user, "servant")
        data.update(name=servant, master=master, servant_class=servant)
        await _import(table, user, data)
        await table.harness.approve_sheet(table.gm, table.channel, servant)
        await table.harness.slash(user, table.channel, "character use", name=servant)


async def _block_prompt(table: Table) -> Message:
    """Rider attacks Rin, and bob's answer is to block: the prompt that asks which weapon she blocks with is
    what the bot posts next."""
    await _fate_points_pairs(table)
    table.harness.dice.queue([18])
    await table.harness.slash(table.mei, table.channel, "attack", target="Rin", action="melee|Invisible Air")
    prompt = table.harness.last(table.channel, table.bob)
    table.harness.dice.queue([5])
    return prompt


def _weapon_button(name: str, kind: str) -> str:
    return output.shorten_label(f"{name} ({kind})", output.BUTTON_LABEL_LIMIT)


async def test_the_longest_weapon_names_are_offered_and_answer_the_defence(server: Table) -> None:
    assert len(LONGEST) == NAME_LIMIT and len(LONG) == 96
    table = await _campaign(server, "fate_points")
    harness = table.harness
    attack = await _block_prompt(table)
    blocked = await harness.emulator.click(table.bob, attack, "Block")
    assert blocked.error is None, blocked.error
    question = await harness.prompt_with(table.channel, table.bob, _weapon_button(LONGEST, "dagger"))
    assert question.content.endswith("Rin: Block with which weapon?")
    buttons = question.buttons()
    assert buttons[:3] == [BEST_WEAPON, _weapon_button(LONG, "magic"), _weapon_button(LONGEST, "dagger")]
    assert all(len(label) <= output.BUTTON_LABEL_LIMIT for label in buttons) and "…" in buttons[2]
    # The two weapons' names share their first 96 characters: the labels keep their ends, which tell them apart.
    assert buttons[1] != buttons[2] and buttons[2].endswith("Rin (dagger)")
    answered = await harness.emulator.click(table.bob, question, buttons[2])
    assert answered.error is None, answered.error
    assert harness.current(question).buttons() == []
    assert harness.emulator.rejections == []


async def test_a_wait_whose_prompt_failed_is_answered_from_gm_pending(server: Table) -> None:
    table = await _campaign(server, "fate_points")
    harness = table.harness
    attack = await _block_prompt(table)
    harness.emulator.refuse_next("POST", CHANNEL_MESSAGES, status=500, code=0)
    await harness.emulator.click(table.bob, attack, "Block")
    assert not any("Block with which weapon?" in message.content for message in harness.emulator.messages)
    listed = await harness.slash(table.gm, table.channel, "gm pending")
    assert listed.error is None, listed.error
    waiting = next(reply for reply in listed.replies if reply.buttons())
    assert "waiting for Rin" in waiting.content
    assert waiting.buttons() == [
        BEST_WEAPON,
        _weapon_button(LONG, "magic"),
        _weapon_button(LONGEST, "dagger"),
        "Cancel (GM)",
    ]
    answered = await harness.emulator.click(table.gm, waiting, _weapon_button(LONGEST, "dagger"))
    assert answered.error is None, answered.error
    assert "Nothing is waiting" in (await harness.slash(table.gm, table.channel, "gm pending")).reply.content


async def _bearer(table: Table, user: User, name: str, *, npc: bool = False) -> None:
    """A Crest Magia character by the creation rules, then given every skill and five specialties by the GM."""
    data = await _template(table, user, "bearer")
    data["name"] = name
    await _import(table, user, data, npc=npc)
    for field, value in (("skills", EVERY_SKILL), ("specialties", SPECIALTIES)):
        edited = await table.harness.slash(table.gm, table.channel, "character edit", name=name, field=field,
                                           value=yaml.safe_dump(value, default_flow_style=True).strip())  # fmt: skip
        assert edited.error is None and "changed" in edited.reply.content, edited.reply.content


def _skill_answers() -> list[str]:
    plain = [f"{skill} {EVERY_SKILL[skill]}" for skill in SKILLS]
    specialties = [f"{entry['skill']} + {entry['name']} {EVERY_SKILL[entry['skill']] + SPECIALTY_RANK}"
                   for entry in SPECIALTIES]  # fmt: skip
    return [*plain, *specialties, "No skill"]


async def test_every_defence_is_offered_the_best_first_and_a_later_page_answers_alike(server: Table) -> None:
    table = await _campaign(server, "crest_magia")
    harness = table.harness
    await _import(table, table.bob, {**await _template(table, table.bob, "bearer"), "name": "Aiko"})
    await _bearer(table, table.mei, "Bram")
    harness.dice.queue([6, 5, 4])
    await harness.slash(table.bob, table.channel, "attack", target="Bram", action="melee|Sword")
    stat = await harness.prompt_with(table.channel, table.mei, "Dexterity")
    assert (await harness.emulator.click(table.mei, stat, "Dexterity")).error is None
    first = await harness.prompt_with(table.channel, table.mei, MORE.format(page=2, count=2))
    offered = first.buttons()
    assert offered[:3] == BEST
    assert offered[-2:] == [MORE.format(page=2, count=2), "Cancel (GM)"]
    await harness.restart()  # the page buttons are answered from their ids, as the answers are
    turned = await harness.emulator.click(table.mei, first, MORE.format(page=2, count=2))
    second = turned.reply
    assert second.ephemeral
    assert second.buttons()[-2:] == [MORE.format(page=1, count=2), "Cancel (GM)"]
    every = offered[:-2] + second.buttons()[:-2]
    assert sorted(every) == sorted(_skill_answers()) and len(every) == len(set(every))
    # A private page turns in place, and back again.
    assert (await harness.emulator.click(table.mei, second, MORE.format(page=1, count=2))).error is None
    assert harness.current(second).buttons()[:3] == BEST
    assert (
        await harness.emulator.click(table.mei, harness.current(second), MORE.format(page=2, count=2))
    ).error is None
    harness.dice.queue([1, 1, 1])
    answered = await harness.emulator.click(table.mei, harness.current(second), "No skill")
    assert answered.error is None, answered.error
    closed = harness.current(first)
    assert closed.buttons() == [] and "No skill" in closed.content, closed.content  # the public prompt is closed
    assert harness.emulator.rejections == []


async def test_gm_auto_offers_the_best_defence_first_and_a_creature_defends_with_it(server: Table) -> None:
    table = await _campaign(server, "crest_magia")
    harness = table.harness
    await _import(table, table.bob, {**await _template(table, table.bob, "bearer"), "name": "Aiko"})
    await _bearer(table, table.gm, "Wolf", npc=True)
    typed = {"character": "Wolf", "wait": "defence_skill", "answer": ""}
    offered = await harness.emulator.autocomplete(table.gm, table.channel, "gm auto", typed, "answer")
    assert [choice["name"] for choice in offered][:3] == BEST
    best = offered[0]["value"]
    for wait, answer in (("defence_stat", "dexterity"), ("defence_skill", best)):
        preset = await harness.slash(table.gm, table.channel, "gm auto", character="Wolf", wait=wait, answer=answer)
        assert "without asking" in preset.reply.content, preset.reply.content
    harness.dice.queue([6, 5, 4, 1, 1, 1])
    attacked = (await harness.slash(table.bob, table.channel, "attack", target="Wolf", action="melee|Sword")).reply
    assert "+3 (Agility) +1 (Dodging)" in attacked.text(), attacked.text()
