"""Two packages: lessonkit, the runtime that ships to the browser in lessonkit.zip, and authorkit,
the authoring tools (command line, checks of a lesson folder, prose, golden reports, wheels). No
shipped module may import an authoring one, now or later in a function body: in the page that
import would fail, or drag the tools into every learner's download."""
import ast
from pathlib import Path

from conftest import REPO

from sitebuild.lessons import engine_entries

PY = REPO / "py"


def shipped_modules() -> dict[str, Path]:
    """The modules of lessonkit.zip by dotted name (lessonkit.runner, ...)."""
    return {name[:-3].replace("/", ".").removesuffix(".__init__"): path
            for name, path in engine_entries(PY) if name.endswith(".py")}


def imported(source: str, module: str, names: bool = False) -> list[tuple[int, str]]:
    """(line, dotted name) of every import in `source`, at any depth, relative ones resolved
    against `module` (the dotted name of the module the source is). names: also `X.a` for each
    `from X import a` (a may be a module of package X)."""
    package = module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            # `from . import golden` imports the module lessonkit.golden, not a name of lessonkit
            if node.module:
                found.append((node.lineno, base))
            if names or not node.module:
                found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def outside_the_runtime(source: str, module: str, shipped) -> list[str]:
    """`line: name` for each import of the project's own code that does not ship: authorkit,
    companionkit, the build (tools/sitebuild), or a lessonkit module left out of the zip."""
    own = ("lessonkit", "authorkit", "companionkit", "sitebuild", "tools")
    return [f"{line}: {name}" for line, name in imported(source, module, names=True)
            if name.split(".")[0] in own and name not in shipped
            and (not name.startswith("lessonkit") or _is_module(name))]  # not a name of a module


def _is_module(name: str) -> bool:
    path = PY.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_the_runtime_imports_no_authoring_module():
    shipped = shipped_modules()
    assert {"lessonkit", "lessonkit.runner", "lessonkit.browser", "lessonkit.learner_host"} <= set(shipped)
    found = {module: outside_the_runtime(path.read_text(encoding="utf-8"), module, shipped)
             for module, path in shipped.items()}
    assert {module: names for module, names in found.items() if names} == {}


def test_the_authoring_tools_do_not_ship():
    shipped = shipped_modules()
    assert not [m for m in shipped if m.startswith("authorkit")]
    assert "lessonkit.__main__" not in shipped  # `python -m lessonkit`: authorkit's command line
    for tool in ("cli", "scaffold", "prose", "golden", "wheel_cache", "course", "problems"):
        assert (PY / "authorkit" / f"{tool}.py").is_file() and f"lessonkit.{tool}" not in shipped


def test_an_authoring_import_in_the_runtime_is_caught():
    """The check above can fail: a lazy import of a tool inside a function, a relative import of a
    module the zip leaves out, and the build's package, each named with its line."""
    shipped = shipped_modules()
    source = ("from . import i18n\n"
              "def f():\n"
              "    from authorkit.cli import check_lesson\n"
              "    from . import __main__\n"
              "    import sitebuild.lessons\n"
              "    from lessonkit import __main__, runner\n")
    assert outside_the_runtime(source, "lessonkit.runner", shipped) == [
        "3: authorkit.cli", "3: authorkit.cli.check_lesson", "4: lessonkit.__main__", "5: sitebuild.lessons",
        "6: lessonkit.__main__"]
    # The real modules pass only because none of them does this: the same text in runner.py fails.
    runner = (PY / "lessonkit" / "runner.py").read_text(encoding="utf-8") + "\n" + source
    assert outside_the_runtime(runner, "lessonkit.runner", shipped)


def test_the_packages_import_each_other_one_way_only():
    """authorkit imports lessonkit, never the other way (the test above), and no authoring module
    imports itself through others (cli and scaffold, wheel_cache and requirements once did)."""
    modules = {**shipped_modules(),
               **{f"authorkit.{p.stem}".removesuffix(".__init__"): p for p in (PY / "authorkit").glob("*.py")}}
    graph = {m: {name for _, name in imported(p.read_text(encoding="utf-8"), m, names=True)
                 if name in modules and name != m}
             for m, p in modules.items()}

    def cycle_from(start):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    return path + [start]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
        return None

    # a package's __init__ is imported with each of its modules: not an edge worth a cycle
    graph = {m: {n for n in deps if n not in ("lessonkit", "authorkit")} for m, deps in graph.items()}
    assert [c for c in map(cycle_from, [m for m in graph if m.startswith("authorkit")]) if c] == []
