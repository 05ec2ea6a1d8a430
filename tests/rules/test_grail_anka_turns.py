"""A turn's end in the anka game on built scenes: R23's order, fatigue never below 0, and a vanished Servant left
out of everything."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rules.dice.source import SeededDice
from rules.exchange import PoolDelta, StatePatch, Step, member
from rules.grail_anka import fight, turn_steps
from rules.grail_anka.options import GrailAnkaOptions
from rules.grail_anka.render import lines_of
from rules.play import EVERYONE, CharacterSnapshot, Pool, Scene, SideSnapshot, Turn

PARAMS = {"str": 10, "end": 10, "agi": 10, "mag": 10, "luk": 10, "np": 10}
TURN = 4

servants = st.lists(
    st.tuples(st.integers(0, 15), st.sampled_from(["alive", "dead", "none"]), st.booleans(), st.integers(0, 5)),
    min_size=1, max_size=6,
)  # fmt: skip


def _scene(entries: list[tuple[int, str, bool, int]], resting: bool) -> Scene:
    everyone: list[CharacterSnapshot] = []
    masters: dict[str, tuple[CharacterSnapshot, ...]] = {}
    for index, (fatigue, master, vanished, masterless) in enumerate(entries):
        bound = {}
        if master != "none":
            boss = CharacterSnapshot(100 + index, f"m{index}", "master", 1, {"file": {"name": f"m{index}",
                                     "params": PARAMS}}, {fight.SEALS: Pool(3, 3)},
                                     {fight.DEAD: True} if master == "dead" else {})  # fmt: skip
            bound = {fight.MASTER_RELATION: (boss,)}
            masters[f"{member(EVERYONE, index)}.{fight.MASTER_RELATION}"] = (boss,)
        state: dict[str, object] = {fight.VANISHED: True} if vanished else {}
        if masterless:
            state[turn_steps.MASTERLESS_TURNS] = masterless
        everyone.append(CharacterSnapshot(index + 1, f"s{index}", "servant", 1, {"file": {"name": f"s{index}",
                        "params": PARAMS}}, {fight.FATIGUE: Pool(fatigue, None)}, state, bound_to=bound))  # fmt: skip
    action = {turn_steps.ACTION: {"turn": TURN, "kind": turn_steps.REST}} if resting else {}
    camp = SideSnapshot(1, "camp", tuple((character, "member") for character in everyone), action)
    return Scene(1, {EVERYONE: tuple(everyone), **masters}, Turn(1, False, 1, TURN, 1), GrailAnkaOptions(),
                 SeededDice(3), {"side0": camp})  # fmt: skip


@given(servants, st.booleans())
def test_a_turns_end_in_r23s_order(entries: list[tuple[int, str, bool, int]], resting: bool) -> None:
    scene = _scene(entries, resting)
    step: Step = turn_steps.turn_ended(scene)
    told = [line.text for outcome in step.outcomes for line in lines_of(outcome)]
    keys = [text.key for text in told]
    recoveries = [i for i, key in enumerate(keys) if key.startswith("anka.turn_recovery")]
    masterless_lines = [i for i, key in enumerate(keys) if key == "anka.masterless_frozen"]
    assert not recoveries or not masterless_lines or max(masterless_lines) < min(recoveries)
    everyone = scene.members(EVERYONE)
    for effect in step.effects:
        if isinstance(effect, PoolDelta):
            character = everyone[int(effect.who.partition("#")[2] or 0)]
            assert not character.state.get(fight.VANISHED)
            assert character.partner(fight.MASTER_RELATION) is not None  # only Servants with a Master recover
            assert fight.fatigue_of(character) + effect.delta >= 0
        if isinstance(effect, StatePatch) and effect.key == turn_steps.MASTERLESS_TURNS:
            character = everyone[int(effect.who.partition("#")[2] or 0)]
            assert not character.state.get(fight.VANISHED)
            if effect.value is None:  # a Master again: the count starts over
                assert fight.has_master(character)
            else:
                assert effect.value == int(character.state.get(turn_steps.MASTERLESS_TURNS, 0)) + 1
    named = " ".join(str(text.params) for text in told)
    for index, (_, _, vanished, _) in enumerate(entries):
        if vanished:
            assert f"'s{index}'" not in named
    waiting = step.pause is not None
    assert waiting == any(master != "alive" and not vanished for _, master, vanished, _ in entries)


@given(st.lists(st.booleans(), min_size=2, max_size=4))
def test_a_vanished_servant_is_never_offered_a_skill(vanished: list[bool]) -> None:
    skill = {"name": "Rage", "timing": "setup"}
    fighters = []
    for index, gone in enumerate(vanished):
        file = {"name": f"s{index}", "params": PARAMS, "skills": [skill]}
        fighters.append(
            CharacterSnapshot(
                index + 1,
                f"s{index}",
                "servant",
                1,
                {"file": file},
                {fight.FATIGUE: Pool(0, None)},
                {fight.VANISHED: True} if gone else {},
            )
        )
    sides = {side: SideSnapshot(n, side, ()) for n, side in enumerate(("a", "b"))}
    scene = Scene(1, {fight.FIGHTER: tuple(fighters)}, Turn(1, False, 1, 1, 1), GrailAnkaOptions(), SeededDice(1),
                  sides)  # fmt: skip
    places = [("a" if index % 2 == 0 else "b", "main" if index < 2 else "sub") for index in range(len(fighters))]
    step = fight.begin(scene, "a", None, places)
    offered = [option for wait in (step.pause.waits if step.pause else ()) for option in wait.options]
    for option in offered:
        if option.key.startswith("u"):
            assert not vanished[int(option.key[1:].split("_")[0])]
