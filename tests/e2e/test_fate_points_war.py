"""Fate/Points part 2 through the emulator: a two-round fight between two Master/Servant pairs.

Each test has a campaign of its own, so the tests pass in any order and one at a time.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import yaml

from bot.emulator.models import EVERYONE, Channel, Guild, Message, User
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.harness import Harness, running_harness


@dataclass(frozen=True)
class Field:
    harness: Harness
    guild: Guild
    channel: Channel
    gm: User
    mei: User
    ken: User


async def _import(harness: Harness, channel: Channel, user: User, gm: User, kind: str, **fields: Any) -> None:
    """A player's character from the template, which sets values only a GM may set: `gm` approves it."""
    template = (await harness.slash(user, channel, "character template", kind=kind)).reply
    data = yaml.safe_load(template.attachments[0].data) | fields
    created = await harness.slash(
        user, channel, "character import", file=("sheet.yaml", yaml.safe_dump(data, allow_unicode=True).encode())
    )
    assert created.reply.visible_to is EVERYONE, created.reply.content
    await harness.approve_sheet(gm, channel, data["name"])


@pytest.fixture(scope="module", params=BACKENDS)
async def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Field]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("war")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        gm, mei, ken = (
            emulator.add_user("kirei"),
            emulator.add_user("mei", locale="zh-CN"),
            emulator.add_user("ken", locale="ja"),
        )
        guild = emulator.add_guild("Fuyuki", owner=gm)
        for player in (mei, ken):
            emulator.add_member(guild, player)
        await harness.start_bot()
        yield Field(harness, guild, emulator.add_channel(guild, "lobby"), gm, mei, ken)


@pytest.fixture
async def field(server: Field) -> Field:
    """A campaign of its own for each test, with the two pairs: Sakura and Heracles, Kiritsugu and Saber."""
    harness, gm, mei, ken = server.harness, server.gm, server.mei, server.ken
    channel = harness.new_channel(server.guild)
    await harness.slash(gm, channel, "campaign start", ruleset="fate_points", name="Fourth War")
    await _import(harness, channel, mei, gm, "master", name="Sakura")
    await _import(harness, channel, mei, gm, "servant", name="Heracles", master="Sakura", servant_class="Berserker",
                  rank_steps={"STR": 1}, mad_enchantment=True)  # fmt: skip
    await _import(harness, channel, ken, gm, "master", name="Kiritsugu")
    await _import(harness, channel, ken, gm, "servant", name="Saber", master="Kiritsugu")
    for player, servant in ((mei, "Heracles"), (ken, "Saber")):
        await harness.slash(player, channel, "character use", name=servant)
    return replace(server, channel=channel)


async def _pools(field: Field) -> dict[str, dict[str, int]]:
    roster = (await field.harness.slash(field.gm, field.channel, "character list")).reply
    pools: dict[str, dict[str, int]] = {}
    for line in roster.embeds[0]["description"].splitlines():
        name = line.split("**")[1]
        shown = line.split("): ")[1]  # "HP 30/40 · prana 50/91 · ..."
        pools[name] = {pool.lower(): int(current) for pool, current in re.findall(r"(\w+) (-?\d+)", shown)}
    return pools


async def _set_prana(field: Field, name: str, value: int) -> None:
    current = (await _pools(field))[name]["prana"]
    await field.harness.slash(
        field.gm, field.channel, "gm award", character=name, resource="prana", amount=value - current
    )


def _text(message: Message) -> str:
    return message.text()


async def test_a_two_round_fight(field: Field) -> None:
    harness, channel, gm, mei, ken = field.harness, field.channel, field.gm, field.mei, field.ken
    # Heracles heals on Saber's turn below: this table lets anyone act at any moment of the round.
    await harness.slash(gm, channel, "campaign set", option="own_turn_only", value="false")
    await _set_prana(field, "Saber", 60)
    started = (await harness.slash(gm, channel, "combat start", order="Saber, Heracles")).reply
    assert started.embeds[0]["footer"]["text"] == "Turn: Saber"
    round_one = int(started.embeds[0]["title"].rsplit(" ", 1)[1])

    # Saber (ken, ja) attacks: the round's Attack action and 5 prana (rank A).
    harness.dice.queue([15])
    await harness.slash(ken, channel, "attack", target="Heracles", action="melee|Invisible Air")
    prompt = harness.last(channel, mei)
    assert prompt.buttons()[-2:] == ["Take the hit", "Cancel (GM)"]
    await harness.emulator.click(mei, prompt, "Take the hit")

    # The pair's one transfer of the round, as Saber's General action.
    before = await _pools(field)
    moved = (await harness.slash(ken, channel, "fate transfer", amount=3)).reply
    assert moved.content.startswith("Saber: 3 prana flows from Master to Servant")
    after = await _pools(field)
    assert after["Saber"]["prana"] == before["Saber"]["prana"] + 3
    assert after["Kiritsugu"]["prana"] == before["Kiritsugu"]["prana"] - 3
    await harness.slash(ken, channel, "character use", name="Kiritsugu")
    again = (await harness.slash(ken, channel, "fate transfer", amount=1)).reply
    assert again.ephemeral
    assert again.content == "このマスターとサーヴァントはこのラウンドにすでに魔力を供給しています。"
    await harness.slash(ken, channel, "character use", name="Saber")

    # Saber activates Excalibur (A++ = 34 prana) with the Extra action; the General one is spent.
    activated = (await harness.slash(ken, channel, "fate activate", name="Excalibur", extra=True)).reply
    assert activated.content.startswith("Saber activates Excalibur for 34 prana.")
    logged = (await harness.slash(ken, channel, "log show")).reply.text()
    assert "Saber が Excalibur を発動（魔力 34）" in logged
    spent = (await harness.slash(ken, channel, "fate activate", name="Mana Burst")).reply
    assert spent.content == "このラウンドの一般アクション（と追加アクション）は使用済みです。"
    status = (await harness.slash(ken, channel, "combat status")).reply
    assert "**Saber**：移動（" in status.embeds[0]["description"]

    # Heracles's turn: Mad Enchantment draws Sakura's full allowance.
    before = await _pools(field)
    heracles_turn = (await harness.slash(gm, channel, "combat next")).reply
    assert "Mad Enchantment: Heracles draws" in _text(heracles_turn)
    after = await _pools(field)
    assert after["Sakura"]["prana"] < before["Sakura"]["prana"]

    await harness.restart()

    # Round two, after the restart: Heracles regenerates, and Saber has all its actions back.
    second = (await harness.slash(gm, channel, "combat round")).reply
    assert second.embeds[0]["title"] == f"Round {round_one + 1}"
    assert "**Saber**: attack · move · general · extra" in second.embeds[0]["description"]
    before = await _pools(field)
    healed = (await harness.slash(mei, channel, "fate regen", hp=1)).reply
    assert healed.content.startswith("Heracles heals 1 HP for 4 prana.")
    assert (await _pools(field))["Heracles"]["hp"] == before["Heracles"]["hp"] + 1

    # A Servant paying its last prana needs confirmation, and dies of it.
    await harness.slash(mei, channel, "combat round")
    await _set_prana(field, "Heracles", 4)
    refused = (await harness.slash(mei, channel, "fate regen", hp=1)).reply
    assert refused.ephemeral
    assert "confirm:true" in refused.content
    died = (await harness.slash(mei, channel, "fate regen", hp=1, confirm=True)).reply
    assert "Heracles has died and disappears." in died.content
    turn = (await harness.slash(gm, channel, "combat next")).reply
    assert turn.embeds[0]["footer"]["text"] == "Turn: Saber"
    # The fallen Heracles is skipped: Saber's next turn opens a new round.
    skipped = (await harness.slash(gm, channel, "combat next")).reply
    assert skipped.embeds[0]["footer"]["text"] == "Turn: Saber"
    assert skipped.embeds[0]["title"] == f"Round {int(turn.embeds[0]['title'].rsplit(' ', 1)[1]) + 1}"

    log = (await harness.slash(gm, channel, "log show")).reply
    assert "Heracles died" in log.text()


async def test_an_action_cannot_be_used_twice_in_a_round(field: Field) -> None:
    harness, channel, gm, ken = field.harness, field.channel, field.gm, field.ken
    await harness.slash(gm, channel, "combat start", order="Saber, Heracles")
    first = (await harness.slash(ken, channel, "fate move")).reply
    assert first.content == "Saber moves."
    second = (await harness.slash(ken, channel, "fate move")).reply  # the Extra action pays
    assert second.visible_to is EVERYONE
    third = (await harness.slash(ken, channel, "fate move")).reply
    assert third.ephemeral
    assert third.content == "このラウンドの移動アクション（と追加アクション）は使用済みです。"
    ended = (await harness.slash(gm, channel, "combat end")).reply
    assert "The fight is over" in ended.content
    await _set_prana(field, "Saber", 10)
    passed = (await harness.slash(gm, channel, "campaign time", hours=2)).reply
    gained = (await _pools(field))["Saber"]["prana"] - 10
    # Heracles is full: it gains nothing, and says so.
    assert passed.content.splitlines() == [
        "Time passes: 2 hours.",
        "Heracles: +0 prana (0 from the Master).",
        f"Saber: +{gained} prana ({gained} from the Master).",
    ]
    assert gained > 0
    opted_out = (await harness.slash(ken, channel, "fate passive", enabled=False)).reply
    assert opted_out.content == "Saber no longer replenishes prana as hours pass."
    quiet = (await harness.slash(gm, channel, "campaign time", hours=1)).reply
    assert quiet.content.splitlines() == ["Time passes: 1 hour.", "Heracles: +0 prana (0 from the Master)."]


async def test_gm_rulings_for_noble_phantasms_and_god_hand(field: Field) -> None:
    harness, channel, gm, ken = field.harness, field.channel, field.gm, field.ken
    await _set_prana(field, "Saber", 90)
    ruled = (
        await harness.slash(gm, channel, "fate np-rule", servant="Saber", phantasm="Excalibur", defences="none",
                            damage=50)
    ).reply  # fmt: skip
    assert ruled.content == "GM ruling for Excalibur of Saber: no defence allowed, damage 50."
    some = (
        await harness.slash(gm, channel, "fate np-rule", servant="Saber", phantasm="Excalibur",
                            defences="block, dodge, parry_agi")
    ).reply  # fmt: skip
    assert some.content == (
        "GM ruling for Excalibur of Saber: Block, Dodge and Parry (AGI) allowed; its damage is the rules' own."
    )
    ruled = (
        await harness.slash(gm, channel, "fate np-rule", servant="Saber", phantasm="Excalibur", defences="none",
                            damage=50)
    ).reply  # fmt: skip
    shielded = (await harness.slash(gm, channel, "fate god-hand", character="Sakura", rank="EX")).reply
    assert shielded.content == "Noble Phantasms below rank EX have no effect on Sakura."

    harness.dice.queue([10])
    blocked = (await harness.slash(ken, channel, "attack", target="Sakura", action="np|Excalibur")).reply
    assert "Sakura avoids the attack of Saber" in blocked.text()
    assert "This Noble Phantasm has no effect on this target." in blocked.text()

    await harness.slash(gm, channel, "fate god-hand", character="Sakura", rank="none")
    await harness.slash(gm, channel, "combat start", order="Saber, Sakura")
    harness.dice.queue([10])
    hit = (await harness.slash(ken, channel, "attack", target="Sakura", action="np|Excalibur")).reply
    assert "Sakura is hit by Saber: 50 damage" in hit.text()
    assert "Sakura is down." in hit.text()


async def test_a_second_fight_cannot_start_over_the_first(field: Field) -> None:
    harness, channel, gm = field.harness, field.channel, field.gm
    started = (await harness.slash(gm, channel, "combat start", order="Saber, Heracles")).reply
    first_round = started.embeds[0]["title"]
    again = (await harness.slash(gm, channel, "combat start", order="Heracles, Saber")).reply
    assert again.ephemeral
    end = harness.mention("combat end")
    assert again.content == f"A fight is already on in this campaign: {end} ends it before a new one starts."
    status = (await harness.slash(gm, channel, "combat status")).reply
    assert status.embeds[0]["footer"]["text"] == "Turn: Saber"
    assert first_round.rsplit(" ", 1)[1] in status.embeds[0]["title"]
    await harness.slash(gm, channel, "combat end")


async def test_a_fighter_deleted_mid_fight_leaves_the_order_and_the_turns_go_on(field: Field) -> None:
    harness, channel, gm = field.harness, field.channel, field.gm
    await harness.slash(gm, channel, "combat start", order="Kiritsugu, Saber, Sakura")
    await harness.slash(gm, channel, "combat next")  # Saber's turn
    await harness.slash(gm, channel, "character delete", name="Saber")
    moved = await harness.slash(gm, channel, "combat next")
    assert moved.error is None and moved.reply.visible_to is EVERYONE
    assert moved.reply.embeds[0]["footer"]["text"] == "Turn: Sakura"
    assert "Saber" not in moved.reply.embeds[0]["description"]
    again = (await harness.slash(gm, channel, "combat next")).reply
    assert again.embeds[0]["footer"]["text"] == "Turn: Kiritsugu"
    await harness.slash(gm, channel, "combat end")


async def test_each_fight_counts_its_rounds_from_one(field: Field) -> None:
    harness, channel, gm, ken = field.harness, field.channel, field.gm, field.ken
    await _set_prana(field, "Saber", 60)
    first = (await harness.slash(gm, channel, "combat start", order="Saber, Heracles")).reply
    assert first.embeds[0]["title"] == "The fight begins: round 1"
    await harness.slash(gm, channel, "combat next")
    second = (await harness.slash(gm, channel, "combat next")).reply
    assert second.embeds[0]["title"] == "Round 2"
    moved = (await harness.slash(ken, channel, "fate transfer", amount=1)).reply
    assert moved.visible_to is EVERYONE, moved.content
    ended = (await harness.slash(gm, channel, "combat end")).reply
    assert ended.content.startswith("The fight is over after round 2.")
    again = (await harness.slash(gm, channel, "combat start", order="Heracles, Saber")).reply
    assert again.embeds[0]["title"] == "The fight begins: round 1"
    early = (await harness.slash(ken, channel, "fate transfer", amount=1)).reply
    switch = f"{harness.mention('character use')}（/キャラクター 使用）"
    assert early.content == (
        "この戦闘は今 Heracles の手番です。Saber は自分の手番にしか行動できません"
        f"（自分の別のキャラクターで行動するなら、先に {switch} で切り替えてください）。"
    )
    await harness.slash(gm, channel, "combat next")
    # A new fight is a new round for the once-a-round rules too: the pair may transfer again.
    moved_again = (await harness.slash(ken, channel, "fate transfer", amount=1)).reply
    assert moved_again.visible_to is EVERYONE, moved_again.content
    log = (await harness.slash(gm, channel, "log show")).reply.text()
    assert "started round 3" not in log
    await harness.slash(gm, channel, "combat end")


async def _events(field: Field, kind: str) -> list[dict[str, Any]]:
    exported = (await field.harness.slash(field.gm, field.channel, "log export", format="json")).reply
    return [event for event in json.loads(exported.attachments[0].data)["events"] if event["kind"] == kind]


def _sources(event: dict[str, Any]) -> dict[str, int]:
    """The modifiers of the event's one d20, by source."""
    (roll,) = event["payload"]["rolls"]
    return {modifier["source"]: modifier["value"] for modifier in roll["modifiers"]}


async def test_the_extra_action_is_a_second_attack_for_a_one_weapon_servant(field: Field) -> None:
    harness, channel, gm, mei, ken = field.harness, field.channel, field.gm, field.mei, field.ken
    await harness.slash(gm, channel, "combat start", order="Saber, Heracles")
    for _ in range(2):
        harness.dice.queue([20])
        declared = (
            await harness.slash(ken, channel, "attack", target="Heracles", action="melee|Invisible Air",
                                details="attacks:2")
        ).reply  # fmt: skip
        assert declared.visible_to is EVERYONE, declared.content
        await harness.emulator.click(mei, harness.last(channel, mei), "Take the hit")
    third = (
        await harness.slash(ken, channel, "attack", target="Heracles", action="melee|Invisible Air",
                            details="attacks:2")
    ).reply  # fmt: skip
    assert third.content == "このラウンドに宣言した 2 回の攻撃はすべて使いました。"
    # Both attacks shared the Attack action and the Extra one; each carries the +1 of two attacks (A10).
    attacks = await _events(field, "attack.declared")
    assert [_sources(event)["multi_attack"] for event in attacks] == [1, 1]
    status = (await harness.slash(gm, channel, "combat status")).reply
    assert "**Saber**: move · general" in status.embeds[0]["description"]
    await harness.slash(gm, channel, "combat round")
    too_many = (
        await harness.slash(ken, channel, "attack", target="Heracles", action="melee|Invisible Air",
                            details="attacks:3")
    ).reply  # fmt: skip
    assert too_many.ephemeral
    assert "3" in too_many.content and "2" in too_many.content
    await harness.slash(gm, channel, "combat end")


async def test_an_activated_skill_applies_to_the_rolls_it_was_paid_for(field: Field) -> None:
    harness, channel, gm, mei, ken = field.harness, field.channel, field.gm, field.mei, field.ken
    await harness.slash(gm, channel, "campaign set", option="own_turn_only", value="false")
    await _set_prana(field, "Saber", 60)
    await harness.slash(gm, channel, "combat start", order="Saber, Heracles")
    activated = (await harness.slash(ken, channel, "fate activate", name="Mana Burst")).reply
    assert "Mana Burst applies to their rolls for the rest of this round." in activated.content.splitlines()
    again = (await harness.slash(ken, channel, "fate activate", name="Mana Burst", extra=True)).reply
    assert again.content == "Mana Burst はすでに発動しています。"
    # Mana Burst (attack:melee -1) was paid once, 3 prana; the rank-A attack pays its own 5.
    harness.dice.queue([20])
    await harness.slash(ken, channel, "attack", target="Heracles", action="melee|Invisible Air")
    await harness.emulator.click(mei, harness.last(channel, mei), "Take the hit")
    assert (await _pools(field))["Saber"]["prana"] == 60 - 3 - 5
    await harness.slash(gm, channel, "combat round")
    harness.dice.queue([20])
    await harness.slash(ken, channel, "attack", target="Heracles", action="melee|Invisible Air")
    await harness.emulator.click(mei, harness.last(channel, mei), "Take the hit")
    first, second = await _events(field, "attack.declared")
    assert _sources(first)["ability:Mana Burst"] == -1
    assert "ability:Mana Burst" not in _sources(second)  # the round it was for is over
    await harness.slash(gm, channel, "combat end")

    # Outside a fight an activation lasts the next attack or defence roll.
    activated = (await harness.slash(ken, channel, "fate activate", name="Mana Burst")).reply
    assert "Mana Burst applies to their next attack or defence roll." in activated.content.splitlines()
    for _ in range(2):
        await harness.slash(gm, channel, "combat round")
        harness.dice.queue([20])
        await harness.slash(ken, channel, "attack", target="Heracles", action="melee|Invisible Air")
        await harness.emulator.click(mei, harness.last(channel, mei), "Take the hit")
    *_, third, fourth = await _events(field, "attack.declared")
    assert _sources(third)["ability:Mana Burst"] == -1
    assert "ability:Mana Burst" not in _sources(fourth)


async def test_a_servant_paying_its_last_prana_for_an_attack_vanishes_before_the_blow(field: Field) -> None:
    harness, channel, mei, ken = field.harness, field.channel, field.mei, field.ken
    await _set_prana(field, "Saber", 5)
    hp_before = (await _pools(field))["Heracles"]["hp"]
    refused = (await harness.slash(ken, channel, "attack", target="Heracles", action="melee|Invisible Air")).reply
    assert refused.ephemeral and "confirm:true" in refused.content
    prompts_before = len(harness.emulator.visible_to(mei, channel))
    gone = (
        await harness.slash(ken, channel, "attack", target="Heracles", action="melee|Invisible Air",
                            details="confirm")
    ).reply  # fmt: skip
    assert gone.visible_to is EVERYONE
    assert "Saber pays its last 5 prana and vanishes before its blow reaches Heracles" in gone.text()
    assert "Saber has died and disappears." in gone.text()
    # No die was rolled, no defence is asked for, and Heracles is untouched.
    assert "1d20" not in gone.text()
    assert len(harness.emulator.visible_to(mei, channel)) == prompts_before + 1  # the announcement only
    assert (await _pools(field))["Heracles"]["hp"] == hp_before
    assert (await _pools(field))["Saber"]["prana"] == 0
    (vanished,) = await _events(field, "attack.vanished")
    assert vanished["payload"]["mana_cost"] == 5
    assert not await _events(field, "attack.declared")


async def test_the_repeat_penalty_is_shown_apart_from_staggers(field: Field) -> None:
    harness, channel, gm, mei, ken = field.harness, field.channel, field.gm, field.mei, field.ken
    await _set_prana(field, "Saber", 60)
    results = []
    for _ in range(4):
        # Saber's 20 scores 13; Heracles's dodge of 1 scores the floor, 1: always dodged, never staggered.
        harness.dice.queue([20, 1])
        await harness.slash(ken, channel, "attack", target="Heracles", action="melee|Invisible Air")
        answered = await harness.emulator.click(mei, harness.last(channel, mei), "Dodge")
        results.append(answered.replies[-1])
        await harness.slash(gm, channel, "combat round")
    defences = await _events(field, "attack.resolved")
    third, fourth = (_sources(event) for event in defences[2:])
    assert third["repeat"] == 2 and "repeat_carry" not in third
    assert (fourth["repeat_carry"], fourth["repeat"]) == (2, 2)
    assert "carry" not in fourth  # no stagger
    shown = results[3].embeds[0]["description"]
    assert "+2 (previous repeated defence)" in shown and "+2 (repeated defence)" in shown
    assert "stagger" not in shown


async def _saber_status(field: Field) -> str:
    """Saber's line of `/combat status` without its pools: `**Saber**: attack · move`."""
    status = (await field.harness.slash(field.gm, field.channel, "combat status")).reply
    description: str = status.embeds[0]["description"]
    (line,) = [line for line in description.splitlines() if "**Saber**" in line]
    return line.removeprefix("▶ ").split(" (HP")[0]


async def _strike(field: Field, action: str) -> Message:
    """Saber attacks Heracles, who takes the hit; the attack's post."""
    field.harness.dice.queue([10])
    declared = (await field.harness.slash(field.ken, field.channel, "attack", target="Heracles", action=action)).reply
    assert declared.visible_to is EVERYONE, declared.content
    await field.harness.emulator.click(field.mei, field.harness.last(field.channel, field.mei), "Take the hit")
    return declared


async def test_a_noble_phantasm_attack_is_a_general_action_beside_the_round_s_attack(field: Field) -> None:
    """R4/R16: an NP is "activated via the general or free moves", never the Attack action."""
    harness, channel, gm, ken = field.harness, field.channel, field.gm, field.ken
    # Prana levels a rolled Servant always reaches (its maximum is rolled); Heracles outlives two Excaliburs.
    await _set_prana(field, "Saber", 40)
    await harness.slash(gm, channel, "fate np-rule", servant="Saber", phantasm="Excalibur", defences="normal", damage=1)
    await harness.slash(gm, channel, "combat start", order="Saber, Heracles")
    await harness.slash(ken, channel, "fate activate", name="Excalibur")
    assert (await _pools(field))["Saber"]["prana"] == 40 - 34
    assert await _saber_status(field) == "**Saber**: attack · move · extra"
    # Activated beforehand, the NP attacks without paying or spending an action again...
    await _strike(field, "np|Excalibur")
    assert (await _pools(field))["Saber"]["prana"] == 40 - 34
    assert await _saber_status(field) == "**Saber**: attack · move · extra"
    # ...and leaves the round's Attack action to the sword.
    await _strike(field, "melee|Invisible Air")
    assert await _saber_status(field) == "**Saber**: move · extra"
    # The activation was spent by its attack: the next one pays again, with the Extra action.
    await _set_prana(field, "Saber", 40)
    await _strike(field, "np|Excalibur")
    assert (await _pools(field))["Saber"]["prana"] == 40 - 34
    assert await _saber_status(field) == "**Saber**: move"
    # With no General or Extra action left, the NP is refused before any prana is taken.
    await _set_prana(field, "Saber", 40)
    refused = (await harness.slash(ken, channel, "attack", target="Heracles", action="np|Excalibur")).reply
    assert refused.content == "このラウンドの一般アクション（と追加アクション）は使用済みです。"
    refused = (await harness.slash(ken, channel, "fate activate", name="Excalibur")).reply
    assert refused.content == "このラウンドの一般アクション（と追加アクション）は使用済みです。"
    assert (await _pools(field))["Saber"]["prana"] == 40
    await harness.slash(gm, channel, "combat end")


async def test_after_the_round_s_attack_a_noble_phantasm_is_activated_and_used(field: Field) -> None:
    harness, channel, gm, ken = field.harness, field.channel, field.gm, field.ken
    await _set_prana(field, "Saber", 40)
    await harness.slash(gm, channel, "combat start", order="Saber, Heracles")
    await _strike(field, "melee|Invisible Air")
    await harness.slash(ken, channel, "fate activate", name="Excalibur")
    hit = await _strike(field, "np|Excalibur")
    assert "Saber" in hit.text()
    assert (await _pools(field))["Saber"]["prana"] == 40 - 5 - 34  # the sword at rank A, then Excalibur once
    assert await _saber_status(field) == "**Saber**: move · extra"
    counted = (
        await harness.slash(ken, channel, "attack", target="Heracles", action="np|Excalibur", details="attacks:2")
    ).reply
    assert counted.ephemeral
    assert (
        counted.content
        == "Excalibur は一回の宝具攻撃で、攻撃アクションではありません：`attacks` は指定しないでください。"
    )
    await harness.slash(gm, channel, "combat end")


async def test_a_master_without_a_living_servant_is_hit_automatically(field: Field) -> None:
    """R11: "all Servant attacks automatically land against Masters who are without their Servant"."""
    harness, channel, gm, mei, ken = field.harness, field.channel, field.gm, field.mei, field.ken
    await _import(harness, channel, mei, gm, "master", name="Waver")
    # A GM's "present" cannot conjure a Servant the Master does not have.
    await harness.slash(gm, channel, "fate presence", master="Waver", present=True)
    harness.dice.queue([20])
    alone = (await harness.slash(ken, channel, "attack", target="Waver", action="melee|Invisible Air")).reply
    assert "Waver is hit by Saber" in alone.text()
    await harness.slash(gm, channel, "combat round")
    # Sakura's living Heracles is at her side by default: she defends...
    harness.dice.queue([20])
    guarded = (await harness.slash(ken, channel, "attack", target="Sakura", action="melee|Invisible Air")).reply
    assert "is hit" not in guarded.text()
    assert "Take the hit" in harness.last(channel, mei).buttons()
    await harness.emulator.click(gm, harness.last(channel, mei), "Cancel (GM)")
    await harness.slash(gm, channel, "combat round")
    # ...until it has disappeared (R18).
    await _set_prana(field, "Heracles", 0)
    harness.dice.queue([20])
    bereft = (await harness.slash(ken, channel, "attack", target="Sakura", action="melee|Invisible Air")).reply
    assert "Sakura is hit by Saber" in bereft.text()


async def test_a_master_down_at_zero_hp_funds_no_replenishment_and_falls_once(field: Field) -> None:
    """R20: a Master at 0 HP is down; R14's passive replenishment is drawn from him, so it stops."""
    harness, channel, gm = field.harness, field.channel, field.gm
    await harness.slash(gm, channel, "gm award", character="Sakura", resource="hp", amount=-100)
    await _set_prana(field, "Heracles", 20)
    await _set_prana(field, "Saber", 20)
    before = await _pools(field)
    passed = (await harness.slash(gm, channel, "campaign time", hours=3)).reply
    after = await _pools(field)
    assert (after["Sakura"]["prana"], after["Heracles"]["prana"]) == (before["Sakura"]["prana"], 20)
    assert not any(line.startswith("Heracles") for line in passed.content.splitlines())
    assert after["Saber"]["prana"] > 20  # Kiritsugu, standing, still pays for Saber
    # A Master already down whose prana moves (Mad Enchantment draws on it at Heracles's turn) is not news again.
    await harness.slash(gm, channel, "combat start", order="Saber, Heracles")
    drawn = (await harness.slash(gm, channel, "combat next")).reply
    assert "Mad Enchantment: Heracles draws" in drawn.text()
    assert (await _pools(field))["Sakura"]["prana"] < before["Sakura"]["prana"]
    assert "Sakura is down." not in drawn.text()
    downs = [event["payload"]["name"] for event in await _events(field, "character.down")]
    assert downs == ["Sakura"]
    await harness.slash(gm, channel, "combat end")
