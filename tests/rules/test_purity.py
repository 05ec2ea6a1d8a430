"""`rules` stays pure: no Discord, no database, nothing from the bot."""

from __future__ import annotations

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "rules"
FORBIDDEN = ("discord", "sqlalchemy", "aiosqlite", "asyncpg", "alembic", "aiohttp", "bot")


def _imports(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module.split(".")[0])
    return modules


def test_rules_import_nothing_impure() -> None:
    offenders = {str(path.relative_to(RULES)): sorted(_imports(path) & set(FORBIDDEN)) for path in RULES.rglob("*.py")}
    assert {name: found for name, found in offenders.items() if found} == {}
    assert len(offenders) > 5
