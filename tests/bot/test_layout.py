"""Shared code never names a ruleset, its kinds, pools or options: each ruleset lives in its own packages."""

from __future__ import annotations

import ast
from pathlib import Path

from bot.rulesets.registry import RULESETS
from rules.options import CampaignOptions

ROOT = Path(__file__).resolve().parents[2]
RULESET_PACKAGES = {ROOT / "bot" / "rulesets" / ruleset_id for ruleset_id in RULESETS} | {
    ROOT / "rules" / ruleset_id for ruleset_id in RULESETS
}
# The registry is the one shared place that names the rulesets.
REGISTRY = ROOT / "bot" / "rulesets" / "registry.py"


def _shared_modules() -> list[Path]:
    modules = [*(ROOT / "bot").rglob("*.py"), *(ROOT / "rules").rglob("*.py")]
    return [
        path for path in modules
        if path != REGISTRY and not any(package in path.parents for package in RULESET_PACKAGES)
    ]  # fmt: skip


def _ruleset_words() -> dict[str, str]:
    """Each word that belongs to one ruleset, and what it is."""
    words: dict[str, str] = {}
    for ruleset in RULESETS.values():
        words[ruleset.id] = "a ruleset id"
        own_options = ruleset.options_model.model_fields.keys() - CampaignOptions.model_fields.keys()
        words.update(dict.fromkeys(own_options, f"an option of {ruleset.id}"))
        if ruleset.play is not None:
            words.update(dict.fromkeys(ruleset.play.kinds, f"a kind of {ruleset.id}"))
            words.update(dict.fromkeys(ruleset.play.pool_names, f"a pool of {ruleset.id}"))
            words.update(dict.fromkeys(ruleset.play.handlers, f"a step of {ruleset.id}"))
    return words


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
    return found


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def test_shared_modules_never_name_a_ruleset_or_its_words() -> None:
    words = _ruleset_words()
    offences = []
    for path in _shared_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, value in _strings(tree):
            if value in words:
                offences.append(f"{path.relative_to(ROOT)}:{line}: {value!r} is {words[value]}")
        for line, module in _imports(tree):
            parts = module.split(".")
            own = parts[2:3] if parts[:2] == ["bot", "rulesets"] else parts[1:2] if parts[0] == "rules" else []
            if own and own[0] in RULESETS:
                offences.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    assert offences == []


def test_the_check_finds_a_ruleset_word() -> None:
    tree = ast.parse('kind = "servant"\nfrom rules.fate_points import attack\n')
    assert (1, "servant") in _strings(tree)
    assert (2, "rules.fate_points") in _imports(tree)


def test_every_ruleset_has_its_two_packages() -> None:
    for ruleset_id, ruleset in RULESETS.items():
        assert (ROOT / "rules" / ruleset_id / "__init__.py").exists(), ruleset_id
        assert (ROOT / "bot" / "rulesets" / ruleset_id / "__init__.py").exists(), ruleset_id
        for language in ("en", "zh-CN", "ja"):
            assert ruleset.catalogs.joinpath(f"{language}.json").is_file(), (ruleset_id, language)


# Calls that put something in front of a Discord user; only bot/output.py makes them.
SENDING = frozenset({"send_message", "edit_message", "send", "edit", "edit_original_response"})
OUTPUT = ROOT / "bot" / "output.py"


def _sending_calls(source: str) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SENDING
    ]


def test_every_reply_goes_through_the_output_layer() -> None:
    senders = {
        str(path.relative_to(ROOT)): lines
        for path in [*(ROOT / "bot").rglob("*.py"), *(ROOT / "tests" / "e2e" / "engine_ruleset").rglob("*.py")]
        if path != OUTPUT and "emulator" not in path.parts and (lines := _sending_calls(path.read_text("utf-8")))
    }
    assert senders == {}


def test_the_sending_check_finds_a_direct_send() -> None:
    assert _sending_calls("await interaction.response.send_message('x')") == [1]
    assert _sending_calls("await output.reply(interaction, text)") == []
