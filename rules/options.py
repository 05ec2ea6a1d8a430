"""What every ruleset's campaign options model shares."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class CampaignOptions(BaseModel):
    """A ruleset's GM options: every field has the spec's default; unknown names are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


class OptionError(Exception):
    """An option name or value the ruleset does not accept."""

    def __init__(self, code: str, option: str, expected: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.option = option
        self.expected = expected


_NONE_WORDS = frozenset({"none", "null", "off", "-"})


def expected_values(model: type[CampaignOptions], name: str) -> str:
    """A language-neutral description of the accepted values, such as `dN | d2N` or `1..20 | none`."""
    schema = model.model_json_schema()["properties"][name]
    alternatives = schema.get("anyOf", [schema])
    described: list[str] = []
    for alternative in alternatives:
        if "enum" in alternative:
            described.extend(str(value) for value in alternative["enum"])
        elif "const" in alternative:
            described.append(str(alternative["const"]))
        elif alternative.get("type") == "boolean":
            described.append("true | false")
        elif alternative.get("type") == "integer":
            described.append(f"{alternative.get('minimum', '…')}..{alternative.get('maximum', '…')}")
        elif alternative.get("type") == "null":
            described.append("none")
        elif alternative.get("type") == "string":  # free text in a shape: the field's own examples show it
            described.extend(str(example) for example in schema.get("examples", []))
    return " | ".join(described)


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
        raise OptionError("invalid", name, expected_values(model, name)) from error


def _accepts_none(model: type[CampaignOptions], name: str) -> bool:
    schema = model.model_json_schema()["properties"][name]
    return any(alternative.get("type") == "null" for alternative in schema.get("anyOf", []))
