"""The package layout: no import cycle, one job per top-level entry, stable public import paths."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import mcplint

PACKAGE = Path(mcplint.__file__).parent

#: The top-level modules, each with one job; anything else belongs in a package (README "Architecture").
TOP_LEVEL_MODULES = {
    "__init__",  # the version
    "__main__",  # python -m mcplint
    "api",  # the public library surface
    "cli",  # click wiring of the commands
    "model",  # records and findings: the vocabulary every module speaks
    "protocol",  # facts of the specification per revision
    "excerpt",  # secret-free text from a capture, for everything mcplint prints
    "untrusted",  # untrusted text becomes output text here
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The mcplint modules that ``path`` imports anywhere (deferred imports in functions too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            # `from x import y`: the module x.y when there is one, else (a name defined in x) x itself
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imported_modules(p, modules) for p in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_imports_one_that_imports_it_back():
    graph = import_graph()
    assert "mcplint.analysis.lint" in graph["mcplint.api"]  # the walk sees imports at all
    report = [f"{' <-> '.join(c)}: " + "; ".join(f"{m} imports {sorted(graph[m] & set(c))}" for m in c)
              for c in cycles(graph)]
    assert report == []


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_every_top_level_entry_is_a_package_or_a_module_with_one_job():
    entries = {p for p in PACKAGE.iterdir() if p.name != "__pycache__" and not p.name.startswith("_rule_docs")}
    modules = {p.stem for p in entries if p.suffix == ".py"}
    packages = {p for p in entries if p.is_dir()}
    assert modules == TOP_LEVEL_MODULES
    assert {p for p in entries if p.suffix != ".py" and not p.is_dir()} == set()
    for package in packages:
        init = package / "__init__.py"
        assert init.is_file(), f"{package.name}/ is not a package"
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__main__.py":
            continue
        assert ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))), f"{path}: no docstring says its job"


def test_public_import_paths_are_stable():
    api = importlib.import_module("mcplint.api")
    for name in ("InputError", "LintOptions", "UnknownInput", "discover", "exceeds", "expand_paths", "lint_lines",
                 "lint_paths", "lint_stream", "split_sessions", "auto_jobs"):
        assert hasattr(api, name), name
    model = importlib.import_module("mcplint.model")
    for name in ("Direction", "Finding", "Kind", "Record", "Related", "Severity", "id_key"):
        assert hasattr(model, name), name
    assert importlib.import_module("mcplint.cli").main.name == "main"
