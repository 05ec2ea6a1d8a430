"""Anchored decisions (R1-R3) as steps of any exchange of the game: commit, take anchors, reveal, read.

`request` commits one secret per decision and posts the digests before any anchor is taken; one wait then takes
the anchors in order (the k-th eligible number anchors the k-th decision, or one number all of them with
`batch_anchor`), all within the request's one window (R2: each wait keeps what is left of it). When the window
closes short, the decisions left take the last anchor received (shift up); with none received, the campaign's
fallback applies: keep waiting, let the GMs give the number, or draw it. Once every
decision has its anchor, all are revealed and the exchange goes on with the values (a continuation of the ruleset's,
found by the type of the state it continues). Anchors arrive as numbers from the game's own service, which checks who
may give them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from rules.exchange import Answer, Audience, Commit, Note, Option, Pause, Reveal, Roll, Step, Text, ValueRange, Wait
from rules.grail_anka import checks, states
from rules.grail_anka.options import GrailAnkaOptions
from rules.grail_anka.outcomes import (
    AnchorTaken,
    AnchorWindow,
    Committed,
    DecisionRevealed,
    DecisionsCommitted,
    Purpose,
    Reading,
)
from rules.grail_anka.states import Anchoring, Continued, Request
from rules.play import Scene

ANCHOR_WAIT: Final = "anchor"
ANCHOR_EVENT: Final = "anka.anchor"
# Where a stored state keeps its open request.
REQUEST: Final = states.REQUEST
CLOSE: Final = "close"
EXTEND: Final = "extend"
# Who may give the next anchor: anyone but the GMs while the window is open or after it (fallback "wait"); the GMs
# once the window closed with fallback "gm" or a GM closed it.
OPEN, AFTER, GMS = "open", "after", "gms"
ID_DIGITS: Final = 8

# A continuation: the exchange's state, the values of its decisions in order, the step so far.
Then = Callable[[Scene, Any, list[int], Step], Step]
# The continuations of a ruleset, by the type of the state each continues.
Continuations = Mapping[type[Continued], Then]


def anka_options(scene: Scene) -> GrailAnkaOptions:
    assert isinstance(scene.options, GrailAnkaOptions)
    return scene.options


def decision_id(scene: Scene) -> str:
    """A short id that names the decision in commands and in its hashed string."""
    return "".join(f"{face - 1:x}" for face in scene.dice.roll(ID_DIGITS, 16))


def request(
    scene: Scene,
    state: Continued,
    purposes: Sequence[Purpose],
    *,
    rates: Sequence[int | None] = (),
) -> Step:
    """Commit one decision per purpose (with its success rate, if it is a check) and wait for their anchors; the
    exchange then goes on with `state`."""
    ids, effects, lines = [], [], []
    for index, purpose in enumerate(purposes):
        key = decision_id(scene)
        committed = checks.commit_decision(scene.campaign_id, key, scene.dice)
        ids.append(key)
        effects.append(Commit(key, committed.digest, committed.secret, committed.nonce))
        rate = rates[index] if index < len(rates) else None
        lines.append(Committed(id=key, purpose=purpose, digest=committed.digest, rate=rate))
    pending = Request(
        ids=tuple(ids),
        purposes=tuple(purpose.model_dump(mode="json") for purpose in purposes),
        rates=tuple(rates),
        phase=OPEN,
    )
    opened = Step(effects=tuple(effects), outcomes=(DecisionsCommitted(decisions=tuple(lines)),))
    return opened.then(_anchor_pause(scene, Anchoring(request=pending, continued=state)))


def _asked(state: Anchoring, **changes: Any) -> Anchoring:
    """The state with its request changed."""
    return state.model_copy(update={"request": state.request.model_copy(update=changes)})


def _anchor_pause(scene: Scene, state: Anchoring, *, deadline_seconds: int | None = None) -> Step:
    """The wait for the next anchor; its window ends `deadline_seconds` from now (default: a whole window)."""
    options = anka_options(scene)
    pending = state.request
    taken = len(pending.anchors)
    ids = pending.ids
    target = ids[taken]
    phase = pending.phase
    if phase == GMS:
        prompt = Text("anka.anchor_prompt_gms", {"id": target})
    elif phase == AFTER:
        prompt = Text("anka.anchor_prompt_after", {"id": target})
    elif options.batch_anchor and len(ids) > 1:
        prompt = Text("anka.anchor_prompt_batch", {"ids": ", ".join(f"`{key}`" for key in ids)})
    else:
        prompt = Text("anka.anchor_prompt", {"id": target, "order": taken + 1, "count": len(ids)})
    timed = phase == OPEN
    left = len(ids) - taken
    # What the window's end does: the decisions left take the last anchor once one came (shift up), else the
    # campaign's fallback.
    if taken and not options.batch_anchor:
        lapse = Text("anka.lapse.shift_up", {"count": left})
    else:
        lapse = Text(f"anka.lapse.{options.anchor_fallback}")
    extend = Option(EXTEND, Text("anka.anchor_extend"), tone="secondary")
    # Once a GM gives the number, there is no window left to close.
    offered = (extend,) if phase == GMS else (Option(CLOSE, Text("anka.anchor_close"), tone="secondary"), extend)
    wait = Wait(
        ANCHOR_WAIT,
        Audience.gms(),
        prompt,
        options=offered,
        value=ValueRange(checks.ANCHOR_MIN, checks.ANCHOR_MAX),
        deadline_seconds=(deadline_seconds or options.anchor_window_s + options.anchor_grace_s) if timed else None,
        default=CLOSE if timed else None,
        lapse=lapse if timed else None,
        waiting_for=None if phase == GMS else Text("anka.waiting_for_anchor"),
    )
    return Step(pause=Pause(state, (wait,)))


def anchored(scene: Scene, state: Anchoring, answer: Answer, continuations: Continuations) -> Step:
    """An anchor given, a window closed or extended."""
    pending = state.request
    options = anka_options(scene)
    left = len(pending.ids) - len(pending.anchors)
    if answer.value is not None:
        count = left if options.batch_anchor else 1
        state = _asked(
            state, anchors=(*pending.anchors, *[answer.value] * count), by=(*pending.by, *[answer.by] * count)
        )
        taken = len(state.request.anchors)
        anchored_ids = pending.ids[taken - count : taken]
        given = Step(
            effects=(Note(ANCHOR_EVENT, {"user": answer.by, "anchor": answer.value}),),
            outcomes=(AnchorTaken(anchor=answer.value, user=answer.by, ids=anchored_ids),),
        )
        # R2: one window for the whole request: the next decision's wait keeps what is left of it.
        left_of_window = None if answer.seconds_left is None else max(1, answer.seconds_left)
        return given.then(_proceed(scene, state, continuations, deadline_seconds=left_of_window))
    if answer.option == EXTEND:
        state = _asked(state, phase=OPEN)
        if answer.seconds_left is None:  # no window was running: one opens from now
            reopened = Step(outcomes=(AnchorWindow(became="reopened"),))
            return reopened.then(_anchor_pause(scene, state))
        # The deadline itself moves back by one window, whenever the GM clicks.
        later = answer.seconds_left + options.anchor_window_s
        extended = Step(outcomes=(AnchorWindow(became="extended"),))
        return extended.then(_anchor_pause(scene, state, deadline_seconds=later))
    if pending.anchors:  # shift up: the decisions left take the last anchor received
        state = _asked(
            state, anchors=(*pending.anchors, *[pending.anchors[-1]] * left), by=(*pending.by, *[pending.by[-1]] * left)
        )
        shifted = Step(outcomes=(AnchorWindow(became="shifted_up", count=left),))
        return shifted.then(_proceed(scene, state, continuations))
    fallback = options.anchor_fallback
    if answer.option == CLOSE and not answer.expired and fallback == "wait":
        fallback = "gm"  # a GM who closes a window nobody answered, rather than wait on, gives the number
    if fallback == "bot_random":
        rolls = tuple(Roll("anchor", 100, (face,), (face,), (), face) for face in scene.dice.roll(left, 100))
        state = _asked(
            state, anchors=(*pending.anchors, *[roll.total for roll in rolls]), by=(*pending.by, *[None] * left)
        )
        drawn = Step(rolls=rolls, outcomes=(AnchorWindow(became="drawn", count=left),))
        return drawn.then(_proceed(scene, state, continuations))
    state = _asked(state, phase=GMS if fallback == "gm" else AFTER)
    closed = AnchorWindow(became="closed_gm" if fallback == "gm" else "passed")
    return Step(outcomes=(closed,)).then(_anchor_pause(scene, state))


def _proceed(
    scene: Scene,
    state: Anchoring,
    continuations: Continuations,
    *,
    deadline_seconds: int | None = None,
) -> Step:
    pending = state.request
    if len(pending.anchors) < len(pending.ids):
        return _anchor_pause(scene, state, deadline_seconds=deadline_seconds)
    values, lines = [], []
    for key, anchor in zip(pending.ids, pending.anchors, strict=True):
        committed = scene.commitments[key]
        value = checks.value_of(int(committed.secret), anchor)
        values.append(value)
        hashed = checks.hashed(scene.campaign_id, key, committed.secret, committed.nonce)
        lines.append(DecisionRevealed(id=key, secret=committed.secret, hashed=hashed, anchor=anchor, value=value))
    revealed = Step(effects=tuple(Reveal(key) for key in pending.ids), outcomes=tuple(lines))
    return continuations[type(state.continued)](scene, state.continued, values, revealed)


def phase_of(state: Mapping[str, Any]) -> str | None:
    """Who may anchor an exchange's open request now (OPEN and AFTER: anyone but the GMs; GMS: the GMs), as its state
    is stored."""
    pending = state.get(REQUEST)
    return pending["phase"] if isinstance(pending, Mapping) else None


def reading(verdict: checks.Verdict) -> Reading:
    """A check's value as the table reads it: critical, success, failure, fumble."""
    if verdict.critical or verdict.fumble:
        return "critical" if verdict.critical else "fumble"
    return "success" if verdict.success else "failure"
