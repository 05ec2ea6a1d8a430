"""Bounds that keep every dice expression cheap to parse, roll and render."""

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class DiceLimits:
    """Every limit is inclusive: a value equal to the limit is accepted."""

    max_expression_length: int = 200
    max_comment_length: int = 200
    max_dice: int = 500
    max_sides: int = 1000
    max_depth: int = 10
    max_repeats: int = 20
    max_magnitude: int = 1_000_000_000

    def __post_init__(self) -> None:
        for field in fields(self):
            if getattr(self, field.name) < 1:
                raise ValueError(f"DiceLimits.{field.name} must be at least 1")


DEFAULT_LIMITS = DiceLimits()
