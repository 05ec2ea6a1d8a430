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


# Words a ruleset uses that shared code also needs for its own meaning: "other", a kind of character in one
# ruleset, is the CLDR plural category every language has.
SHARED_VOCABULARY = frozenset({"other"})


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
            words.update(dict.fromkeys(ruleset.play.resumes, f"a step of {ruleset.id}"))
    return {word: what for word, what in words.items() if word not in SHARED_VOCABULARY}


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


# What makes a module of `bot/rulesets/<id>/` glue: it speaks to Discord, the database or the bot's own layers. The
# rulesets' declaration interface (`bot.rulesets.*`) does not count: a module that needs only it is a rule.
GLUE_ROOTS = ("discord", "sqlalchemy", "bot")
DECLARATION_INTERFACE = "bot.rulesets"
# A ruleset package's own modules that need no glue import: its declaration.
DECLARATIONS = {"__init__.py"}


def _is_glue(path: Path) -> bool:
    modules = [module for _, module in _imports(ast.parse(path.read_text(encoding="utf-8")))]
    return any(
        module.split(".")[0] in GLUE_ROOTS
        and not (module == DECLARATION_INTERFACE or module.startswith(f"{DECLARATION_INTERFACE}."))
        for module in modules
    )


def test_a_ruleset_s_bot_package_holds_glue_and_its_rules_live_in_rules() -> None:
    """A module of `bot/rulesets/<id>/` that imports neither Discord, the database nor the bot (its rulesets'
    interface aside) is a rule: it belongs in `rules/<id>/`, under the purity test."""
    modules = [path for ruleset_id in RULESETS for path in (ROOT / "bot" / "rulesets" / ruleset_id).rglob("*.py")]
    pure = [str(path.relative_to(ROOT)) for path in modules if path.name not in DECLARATIONS and not _is_glue(path)]
    assert pure == []
    assert len(modules) > 8


def test_the_glue_check_finds_a_pure_module(tmp_path: Path) -> None:
    rule = tmp_path / "odds.py"
    rule.write_text("from rules.exchange import Step\nfrom fractions import Fraction\n", encoding="utf-8")
    declared = tmp_path / "render.py"
    declared.write_text("from bot.rulesets.base import Ruleset\nfrom rules.play import Report\n", encoding="utf-8")
    glue = tmp_path / "service.py"
    glue.write_text("from bot.services.common import record_event\n", encoding="utf-8")
    assert not _is_glue(rule) and not _is_glue(declared)
    assert _is_glue(glue)


# The layers, lowest first. A module imports from its own layer or lower ones only; a command module never imports
# another; the registry sits with the app, so only the app and what builds a bot (the CLI, the bench) name it.
# A module takes the layer of its most specific pattern (`*` is any one name); one no pattern names is shared.
LAYERS = {
    "rules": "rules",
    "shared": "bot bot.rulesets.base bot.rulesets.bench bot.rulesets.words",
    "services": "bot.services bot.rulesets.*.service",
    "output": "bot.render bot.output bot.views bot.pictures bot.pages bot.gm_only bot.webhooks bot.export "
    "bot.transcript bot.interactions bot.exchange_views bot.rulesets.*",
    "commands": "bot.cogs bot.rulesets.*.cog",
    "app": "bot.app bot.rulesets.registry",
    "cli": "bot.cli bot.cli_commands bot.bench bot.bench_stored bot.local bot.__main__",
}
LAYER_NAMES = list(LAYERS)
COMMANDS = "commands"


def _layer(module: str) -> int:
    parts = module.split(".")

    def fit(pattern: str) -> tuple[int, int] | None:
        wanted = pattern.split(".")
        if len(wanted) > len(parts) or any(w not in ("*", p) for w, p in zip(wanted, parts, strict=False)):
            return None
        return len(wanted), sum(w != "*" for w in wanted)

    fits = [
        (found, rank) for rank, patterns in enumerate(LAYERS.values()) for p in patterns.split() if (found := fit(p))
    ]
    return max(fits)[1]


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _run_time_imports(tree: ast.AST) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of each import that runs, at the top or in a function: not those for type checks."""
    found: list[tuple[int, str, list[str]]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.orelse:
                visit(statement)
            return
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, []) for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _upward_imports(module: str, source: str, known: set[str]) -> list[tuple[str, str, str]]:
    """(importer, imported, what is wrong) for each import of `module` from a higher layer, or across commands."""
    offences = []
    own = _layer(module)
    for line, imported, names in _run_time_imports(ast.parse(source)):
        # `from bot import output` imports the module bot.output.
        targets = [f"{imported}.{name}" for name in names if f"{imported}.{name}" in known] or [imported]
        for target in targets:
            if target.split(".")[0] not in ("bot", "rules") or target == module:
                continue
            layer = _layer(target)
            if layer > own or (layer == own and LAYER_NAMES[own] == COMMANDS):
                text = f"{module}:{line} ({LAYER_NAMES[own]}) imports {target} ({LAYER_NAMES[layer]})"
                offences.append((module, target, text))
    return offences


def test_imports_run_one_way_only() -> None:
    paths = [*(ROOT / "bot").rglob("*.py"), *(ROOT / "rules").rglob("*.py")]
    modules = {_module_name(path, ROOT): path for path in paths}
    offences = [
        offence
        for module, path in sorted(modules.items())
        for offence in _upward_imports(module, path.read_text(encoding="utf-8"), set(modules))
    ]
    assert [text for _, _, text in offences] == []


def _texts(module: str, source: str, known: set[str]) -> list[str]:
    return [text for _, _, text in _upward_imports(module, source, known)]


def test_the_layer_check_finds_an_import_that_runs_back_up() -> None:
    known = {"bot.app", "bot.cogs.characters", "bot.rulesets.registry", "bot.output", "bot.services.common"}
    cog = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.app import Fatebot\n"
    assert _texts("bot.cogs.play", cog, known) == []
    assert _texts("bot.cogs.play", "from bot.cogs.characters import pools_text\n", known) == [
        "bot.cogs.play:1 (commands) imports bot.cogs.characters (commands)"
    ]
    assert _texts("bot.rulesets.grail_zh.cog", "def f():\n    import bot.app\n", known) == [
        "bot.rulesets.grail_zh.cog:2 (commands) imports bot.app (app)"
    ]
    assert _texts("bot.services.play", "from bot.rulesets.registry import RULESETS\n", known) == [
        "bot.services.play:1 (services) imports bot.rulesets.registry (app)"
    ]
    assert _texts("bot.services.common", "from bot import output\n", known) == [
        "bot.services.common:1 (services) imports bot.output (output)"
    ]
    assert _texts("bot.cli", "from bot.rulesets.registry import RULESETS\n", known) == []
