"""What every ruleset's campaign options model shares."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from rules.dice.dialects import DiceDialect


class CampaignOptions(BaseModel):
    """A ruleset's GM options: every field has the spec's default; unknown names are refused.

    The fields declared here are every ruleset's.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    # How /roll reads the expressions dice engines read differently (`2d6>=7`, `4d6k3`); None: as the tables of
    # the campaign's language do.
    dice_dialect: DiceDialect | None = None


class OptionError(Exception):
    """An option name or value the ruleset does not accept."""

    def __init__(self, code: str, option: str) -> None:
        super().__init__(code)
        self.code = code
        self.option = option


NONE = "none"
_NONE_WORDS = frozenset({NONE, "null", "off", "-"})


@dataclass(frozen=True)
class WholeNumbers:
    """Whole numbers from `minimum` to `maximum` (None: unbounded on that side)."""

    minimum: int | None
    maximum: int | None


# What an option takes: a word typed as it is (a choice, `true`, `false`, `none`, or an example of a free text's
# shape), or whole numbers in a range.
Accepted = str | WholeNumbers


def accepted(model: type[CampaignOptions], name: str) -> list[Accepted]:
    """What an option takes, in its model's order."""
    schema = model.model_json_schema()["properties"][name]
    alternatives = schema.get("anyOf", [schema])
    found: list[Accepted] = []
    for alternative in alternatives:
        if "enum" in alternative:
            found.extend(str(value) for value in alternative["enum"])
        elif "const" in alternative:
            found.append(str(alternative["const"]))
        elif alternative.get("type") == "boolean":
            found.extend(("true", "false"))
        elif alternative.get("type") == "integer":
            found.append(WholeNumbers(alternative.get("minimum"), alternative.get("maximum")))
        elif alternative.get("type") == "null":
            found.append(NONE)
        elif alternative.get("type") == "string":  # free text in a shape: the field's own examples show it
            found.extend(str(example) for example in schema.get("examples", []))
    return found


def with_option(options: CampaignOptions, name: str, raw_value: str) -> CampaignOptions:
    """A copy of `options` with one option set from its typed text, validated by the model."""
    model = type(options)
    if name not in model.model_fields:
        raise OptionError("unknown", name)
    value: object = raw_value.strip()
    field = model.model_fields[name]
    if (
        isinstance(value, str)
        and value.lower() in _NONE_WORDS
        and not field.is_required()
        and _accepts_none(model, name)
    ):
        value = None
    try:
        return model.model_validate({**options.model_dump(), name: value})
    except ValueError as error:
        raise OptionError("invalid", name) from error


def _accepts_none(model: type[CampaignOptions], name: str) -> bool:
    schema = model.model_json_schema()["properties"][name]
    return any(alternative.get("type") == "null" for alternative in schema.get("anyOf", []))
