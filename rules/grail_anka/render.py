"""How the anka game's outcomes read: each outcome as the lines the forum would post, a step's post their sequence
(the battle's many small steps read in the channel as in the log)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from rules.exchange import Outcome, Text, UserRef
from rules.grail_anka import checks, outcomes
from rules.grail_anka.fight import counted_parts, effect_text, percent
from rules.grail_anka.turn_steps import extra_actions_text
from rules.play import Renderer, Report
from rules.words import joined

# What the first release logged: every outcome as its catalog line (`key`, `params`).
TOLD = "anka.told"
EVENTS: dict[str, type[Outcome]] = {
    kind.event: kind
    for kind in vars(outcomes).values()
    if isinstance(kind, type) and issubclass(kind, Outcome) and kind is not Outcome
}


@dataclass(frozen=True)
class Line:
    text: Text
    headline: bool = False
    # Whether it reads the step's rolls (the die that drew a side or a parameter): they are shown just before it.
    reads_roll: bool = False


def _names(names: Sequence[str]) -> str:
    return ", ".join(names) or "—"


def _line(
    key: str, /, *, headline: bool = False, reads_roll: bool = False, **params: str | int | Text | UserRef
) -> Line:
    return Line(Text(key, params), headline, reads_roll)


def purpose_text(purpose: outcomes.Purpose) -> Text:
    if purpose.decides == "check":
        return Text("anka.purpose.check", {"purpose": purpose.said or ""})
    params: dict[str, str | int | Text] = {
        name: value
        for name, value in (
            ("who", purpose.who),
            ("skill", purpose.skill),
            ("side", purpose.side),
            ("turns", purpose.turns),
        )
        if value is not None
    }
    if purpose.choices:
        params["choices"] = joined([Text(f"anka.param.{param}") for param in purpose.choices])
    return Text(f"anka.purpose.{purpose.decides}", params)


def rate_lines(rate: outcomes.WinRate) -> list[Text]:
    """The comparison of each chosen parameter, the table's base and every correction, and the exact chances."""
    result = rate.result
    lines = [
        Text(
            "anka.compared",
            {
                "param": Text(f"anka.param.{param}"),
                "a": rate.strength_a[param],
                "b": rate.strength_b[param],
                "side_a": rate.side_a,
                "side_b": rate.side_b,
            },
        )
        for param in result.chosen
    ]
    # Each skill that took effect, passive ones too: what it adds to its side (T3's skill term, the strengths).
    skills = [
        Text(
            "anka.rate_skill",
            {
                "side": skill.side,
                "who": skill.who,
                "skill": skill.skill,
                "timing": Text(f"anka.timing.{skill.timing}"),
                "effect": joined(parts),
            },
        )
        for skill in rate.skills
        if (parts := counted_parts(skill.effect, rate=not result.automatic))
    ]
    if result.automatic:
        lines.append(Text(f"anka.{result.automatic}", {"side": rate.side_a}))
        return lines + skills
    lines.append(
        Text(
            "anka.rate_terms",
            {
                "advantages": result.advantages,
                "disadvantages": result.disadvantages,
                "base": result.base,
                "totals": f"{result.totals:+d}",
                "levels": f"{result.levels:+d}",
                "fatigue": f"{result.fatigue:+d}",
                "skills": f"{result.skills:+d}",
                "rate": result.rate or 0,
                "side": rate.side_a,
            },
        )
    )
    lines += skills
    if result.floor is not None:
        lines.append(Text("anka.rate_floor", {"floor": result.floor}))
    if result.ceiling is not None:
        lines.append(Text("anka.rate_ceiling", {"ceiling": result.ceiling}))
    chances = checks.chances(result.rate or 0)
    lines.append(Text("anka.chances", {name: percent(chance) for name, chance in chances.items()}))
    return lines


def _means(retreat: outcomes.Retreated) -> Text:
    if retreat.by == "skill":
        return Text("anka.means.skill", {"skill": retreat.skill or ""})
    if retreat.by == "seal":
        return Text("anka.means.seal", {"count": retreat.seals})
    if retreat.by == "check":
        return Text("anka.means.check")
    return Text(f"anka.talisman.{retreat.by}")


def _reading(word: str) -> Text:
    return Text(f"anka.reading.{word}")


def _battle_lines(outcome: Outcome) -> list[Line] | None:
    match outcome:
        case outcomes.BattleBegun():
            lines = [_line("anka.battle_begun", headline=True, first=outcome.first, second=outcome.second)]
            if outcome.home is not None:
                lines.append(
                    _line("anka.battle_at_base", camp=outcome.home, base=outcome.base)
                    if outcome.base
                    else _line("anka.battle_at_unrecorded_base", camp=outcome.home)
                )
            return lines + [
                _line(
                    "anka.formation",
                    side=f.side,
                    main=_names(f.main),
                    subs=_names(f.subs),
                    companions=_names(f.companions),
                )
                for f in outcome.formations
            ]
        case outcomes.FirstDrawn():
            return [_line("anka.first_drawn", reads_roll=True, side=outcome.side)]
        case outcomes.SkillPassed():
            return [_line("anka.passed", side=outcome.side, timing=Text(f"anka.timing.{outcome.timing}"))]
        case outcomes.SkillActivated():
            return [
                _line(
                    "anka.skill_activated",
                    who=outcome.who,
                    skill=outcome.skill,
                    kind=Text(f"anka.kind.{outcome.kind}"),
                    side=outcome.side,
                )
            ]
        case outcomes.SkillCancelled():
            if outcome.talisman is not None:
                talisman = Text(f"anka.talisman.{outcome.talisman}")
                means = Text("anka.talisman_of", {"side": outcome.side, "talisman": talisman})
            else:
                counter = {"who": outcome.counter_who or "", "skill": outcome.counter_skill or ""}
                means = Text("anka.counter_by", counter)
            return [_line("anka.skill_cancelled", who=outcome.who, skill=outcome.skill, means=means)]
        case outcomes.SkillResolved():
            return [
                _line(
                    "anka.skill_resolved",
                    who=outcome.who,
                    skill=outcome.skill,
                    effect=effect_text(outcome.effect, outcome.tags),
                )
            ]
        case outcomes.ParamPicked():
            return [_line("anka.param_picked", side=outcome.side, param=Text(f"anka.param.{outcome.param}"))]
        case outcomes.ThirdParam():
            return [_line("anka.third_param", reads_roll=outcome.drawn, param=Text(f"anka.param.{outcome.param}"))]
        case outcomes.WinRate():
            suppressed = [
                _line("anka.skill_offset", who=s.who, skill=s.skill)
                if s.np is None
                else _line("anka.skill_overridden", who=s.who, skill=s.skill, np=s.np, np_who=s.np_who or "")
                for s in outcome.suppressed
            ]
            return [
                _line("anka.win_rate", headline=True),
                *suppressed,
                *(_line("anka.rate_line", line=line) for line in rate_lines(outcome)),
            ]
        case outcomes.BattleWon():
            won = _line(
                "anka.battle_won",
                headline=True,
                winner=outcome.winner,
                loser=outcome.loser,
                how=Text(f"anka.decided_by.{outcome.how}"),
            )
            return [won, *([_line("anka.retreat_disabled", side=outcome.loser)] if outcome.retreat_disabled else [])]
        case outcomes.WayOutGone():
            return [_line("anka.way_out_gone", who=outcome.who)]
        case outcomes.FateFaced():
            return [_line("anka.fate_faced", who=outcome.who)]
        case outcomes.Retreated():
            return [_line("anka.retreated", who=outcome.who, means=_means(outcome), fatigue=outcome.fatigue)]
        case outcomes.WinnerFatigue():
            return [
                _line(
                    "anka.winner_fatigue",
                    who=outcome.who,
                    digit=outcome.digit,
                    delta=f"{outcome.delta:+d}",
                    fatigue=outcome.fatigue,
                    mood=Text(f"anka.mood.{outcome.digit}"),
                )
            ]
        case outcomes.VanishChecked():
            return [
                _line(
                    "anka.masterless_checked" if outcome.masterless else "anka.vanish_checked",
                    who=outcome.who,
                    value=checks.shown(outcome.value),
                    rate=outcome.rate,
                    reading=Text("anka.survived" if outcome.survived else "anka.vanishes"),
                )
            ]
        case outcomes.Vanished():
            return [_line("anka.vanished", who=outcome.who)]
        case outcomes.BattleOver():
            lines = []
            if outcome.others:
                lines.append(
                    _line(
                        "anka.negotiation" if outcome.negotiate else "anka.others_retreat",
                        names=", ".join(outcome.others),
                        winner=outcome.winner,
                    )
                )
            if outcome.lost_base is not None:
                lines.append(_line("anka.base_lost", side=outcome.loser, base=outcome.lost_base))
            return [*lines, _line("anka.battle_over", headline=True, winner=outcome.winner)]
        case outcomes.BattleCancelled():
            if outcome.winner is None:
                return [_line("anka.battle_cancelled")]
            return [_line("anka.battle_cancelled_after", winner=outcome.winner)]
    return None


def _decision_lines(outcome: Outcome) -> list[Line] | None:
    match outcome:
        case outcomes.DecisionsCommitted():
            lines = [_line("anka.decisions_opened", headline=True, count=len(outcome.decisions))]
            for d in outcome.decisions:
                if d.rate is None:
                    lines.append(
                        _line("anka.decision_committed", id=d.id, purpose=purpose_text(d.purpose), digest=d.digest)
                    )
                else:
                    lines.append(
                        _line(
                            "anka.decision_committed_at",
                            id=d.id,
                            purpose=purpose_text(d.purpose),
                            digest=d.digest,
                            rate=d.rate,
                        )
                    )
            return lines
        case outcomes.AnchorTaken():
            return [
                _line(
                    "anka.anchor_taken",
                    anchor=outcome.anchor,
                    user=UserRef(outcome.user) if outcome.user else "—",
                    id=", ".join(f"`{key}`" for key in outcome.ids),
                )
            ]
        case outcomes.AnchorWindow():
            keys = {
                "reopened": "anka.anchor_reopened",
                "extended": "anka.anchor_extended",
                "shifted_up": "anka.anchor_shifted_up",
                "drawn": "anka.anchor_fallback_drawn",
                "closed_gm": "anka.anchor_window_closed_gm",
                "passed": "anka.anchor_window_passed",
            }
            counted: dict[str, str | int | Text] = (
                {"count": outcome.count} if outcome.became in ("shifted_up", "drawn") else {}
            )
            return [Line(Text(keys[outcome.became], counted), reads_roll=outcome.became == "drawn")]
        case outcomes.DecisionRevealed():
            return [
                _line(
                    "anka.decision_revealed",
                    id=outcome.id,
                    secret=outcome.secret,
                    hashed=outcome.hashed,
                    anchor=outcome.anchor,
                    value=checks.shown(outcome.value),
                )
            ]
        case outcomes.Checked():
            read: dict[str, str | int | Text] = {
                "value": checks.shown(outcome.value),
                "rate": outcome.rate,
                "reading": _reading(outcome.reading),
            }
            if outcome.of == "gm":
                said = Text("anka.purpose.check", {"purpose": outcome.said or ""})
                return [Line(Text("anka.check_decided", {"purpose": said, **read}), headline=True)]
            if outcome.of == "assassination":
                return [Line(Text("anka.assassination_checked", {"who": outcome.who or "", **read}))]
            return [Line(Text("anka.battle_check", read))]
    return None


def _turn_lines(outcome: Outcome) -> list[Line] | None:
    match outcome:
        case outcomes.TurnEnded():
            return [
                _line("anka.turn_ended", headline=True, turn=outcome.turn),
                *(_line("anka.camp_rested", camp=camp) for camp in outcome.rested),
            ]
        case outcomes.MasterlessFrozen():
            return [_line("anka.masterless_frozen", who=outcome.who, turns=outcome.turns, fatigue=outcome.fatigue)]
        case outcomes.MasterlessMoot():
            return [_line("anka.masterless_moot", who=outcome.who)]
        case outcomes.Recovered():
            if outcome.master is not None:
                return [
                    _line(
                        "anka.seal_recovered",
                        headline=True,
                        master=outcome.master,
                        who=outcome.who,
                        before=outcome.before,
                        after=outcome.after,
                        seals=outcome.seals,
                    )
                ]
            return [
                _line(
                    "anka.turn_recovery_rest" if outcome.rested else "anka.turn_recovery",
                    who=outcome.who,
                    before=outcome.before,
                    after=outcome.after,
                )
            ]
        case outcomes.TimeUp():
            return [_line("anka.time_up", turn=outcome.turn)]
        case outcomes.Finale():
            if outcome.stage == "grace":
                return [_line("anka.finale_grace", camps=extra_actions_text(outcome.left))]
            key = "anka.finale_begun" if outcome.stage == "begun" else f"anka.finale_due.{outcome.reason}"
            return [_line(key, camps=_names(outcome.camps))]
        case outcomes.Contract():
            if outcome.result == "refused":
                return [_line("anka.contract_refused", who=outcome.who or "")]
            if outcome.result == "lapsed":
                return [_line("anka.contract_lapsed", servant=outcome.servant or "", master=outcome.master or "")]
            return [
                _line(
                    "anka.contracted",
                    headline=True,
                    servant=outcome.servant or "",
                    master=outcome.master or "",
                    camp=outcome.camp or "—",
                )
            ]
        case outcomes.Order():
            if outcome.result == "denied":
                return [_line("anka.order_denied", master=outcome.master, reason=outcome.reason or "")]
            if outcome.result == "no_seals":
                return [_line("anka.order_no_seals", master=outcome.master)]
            return [
                _line(
                    "anka.order_spent",
                    headline=True,
                    master=outcome.master,
                    reason=outcome.reason or "",
                    seals=outcome.seals,
                )
            ]
        case outcomes.FateSet():
            return [
                _line(f"anka.fate_set.{outcome.fate}.{'on' if outcome.on else 'off'}", headline=True, who=outcome.who)
            ]
        case outcomes.GameOver():
            if outcome.user is None:
                return [_line("anka.game_over_campaign", who=outcome.who)]
            return [_line("anka.game_over_player", who=outcome.who, user=UserRef(outcome.user))]
        case outcomes.CampStanding():
            return [_line("anka.camp_game_over" if outcome.out else "anka.camp_back_in_game", camp=outcome.camp)]
        case outcomes.WarResumed():
            return [_line("anka.war_resumed")]
    return None


def lines_of(outcome: Outcome) -> list[Line]:
    """An outcome's lines as the table reads them (none for one of another game's)."""
    for lines in (_battle_lines, _decision_lines, _turn_lines):
        found = lines(outcome)
        if found is not None:
            return found
    return []


class AnkaRenderer(Renderer):
    def report(self, outcomes: Sequence[Outcome]) -> Report:
        """The step's lines in the order they happened, the body of its post (they are the whole story of the step,
        no aside); one that opens the step with a headline is its title. Its rolls come where they were read."""
        lines = [line for outcome in outcomes for line in lines_of(outcome)]
        title = lines[0].text if lines and lines[0].headline else None
        notes = lines[1:] if title is not None else lines
        reader = next((line.text for line in notes if line.reads_roll), None)
        return Report(title, notes=tuple(line.text for line in notes), rolls_before=reader, notes_body=True)

    def log_line(self, kind: str, payload: Mapping[str, Any]) -> Text | None:
        if kind == TOLD:
            return Text.from_dict({"key": payload["key"], "params": payload.get("params", {})})
        if kind not in EVENTS:
            return None
        model = EVENTS[kind]
        try:  # the event also carries the step's rolls and changes, which are not the outcome's
            outcome = model.model_validate({name: payload[name] for name in model.model_fields if name in payload})
        except ValidationError:
            return None
        line = joined([line.text for line in lines_of(outcome)])
        return line if isinstance(line, Text) else None
