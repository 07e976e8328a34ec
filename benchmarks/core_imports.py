"""How much of veracity the core reaches: imports from the core into plug-ins, and the judge step's import tree.

Reads the source tree statically (grimp, the library behind import-linter), so it measures any
checkout: point ``--src`` at another worktree's ``src`` to compare a commit with the working tree::

    .venv/bin/python benchmarks/core_imports.py --src /tmp/base/src
    .venv/bin/python benchmarks/core_imports.py

Three figures:

* **Core → plug-in imports**: import statements in the core that name a plug-in module. The core
  is the graph, its steps and their support, state, contracts, `Context`, routes, the LLM and
  evidence layers and the small shared modules; the plug-ins are the offline splitter and judge,
  the knowledge base, the calculator, page fetching and the cache. The wiring (`veracity.resources`,
  `veracity.plugins`) is where plug-ins are meant to be named, so it is counted on its own line.
* **The judge step's import tree**: every veracity module that ``veracity.nodes.judge`` imports,
  directly or through others (imports inside functions and under ``TYPE_CHECKING`` included), with
  their lines: what a reader may have to open to follow the step.
* **Loops between first-level packages**: the groups of `veracity`'s first-level packages and modules
  that import each other round a loop (each group a strongly connected component of the imports
  between them), and the imports that would have to go to break every loop (grimp's nomination,
  what the ``acyclic_siblings`` contract in ``pyproject.toml`` reports). ``--list`` names them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import grimp

CORE = ("veracity.graph", "veracity.nodes", "veracity.step_support", "veracity.routes", "veracity.context",
        "veracity.default_context", "veracity.state", "veracity.contracts", "veracity.llm", "veracity.evidence",
        "veracity.protocols", "veracity.mode", "veracity.source_mode", "veracity.run_scope", "veracity.validation",
        "veracity.scores", "veracity.sentences", "veracity.cache_outcomes", "veracity.citations", "veracity.errors",
        "veracity.prompts", "veracity.progress", "veracity.setting_rules", "veracity.per_run")
PLUGINS = ("veracity.offline", "veracity.kb", "veracity.calculator", "veracity.pages", "veracity.cache")
WIRING = ("veracity.resources", "veracity.plugins")
STEP = "veracity.nodes.judge"


def within(module: str, packages: tuple[str, ...]) -> bool:
    """Whether `module` is one of `packages` or inside one."""
    return any(module == package or module.startswith(package + ".") for package in packages)


def imports_into_plugins(graph: grimp.ImportGraph, sources: tuple[str, ...]) -> list[tuple[str, str, int]]:
    """(importer, imported, line) for each import statement from a module in `sources` into a plug-in."""
    found = []
    for importer in sorted(graph.modules):
        if not within(importer, sources) or within(importer, PLUGINS):
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if within(imported, PLUGINS):
                details = graph.get_import_details(importer=importer, imported=imported)
                found += [(importer, imported, detail["line_number"]) for detail in details]
    return found


def first_level(module: str) -> str:
    """The first-level package or module of `veracity` that `module` is in."""
    return ".".join(module.split(".")[:2])


def first_level_loops(graph: grimp.ImportGraph) -> list[list[str]]:
    """The groups of first-level packages and modules joined by a loop of imports, each sorted, largest first."""
    edges: dict[str, set[str]] = {}
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            source, target = first_level(importer), first_level(imported)
            if source != target and "veracity" not in (source, target):
                edges.setdefault(source, set()).add(target)

    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        stack = [start]
        while stack:
            for target in edges.get(stack.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        return seen

    reach = {package: reachable(package) for package in edges}
    groups = {frozenset({package} | {other for other in found if package in reach.get(other, set())})
              for package, found in reach.items() if package in found}
    return sorted((sorted(group) for group in groups), key=lambda group: (-len(group), group))


def module_lines(src: Path, module: str) -> int:
    """Lines in the module's source file (a package counts its ``__init__.py``)."""
    path = src.joinpath(*module.split("."))
    file = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return len(file.read_text(encoding="utf-8").splitlines()) if file.exists() else 0


def main() -> None:
    """Print both figures for the tree at `--src`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1] / "src",
                        help="the src folder of the checkout to measure (default: this one)")
    parser.add_argument("--list", action="store_true",
                        help="also list each core → plug-in import, and each loop with the imports that break it")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    graph = grimp.build_graph("veracity", cache_dir=None)
    import veracity

    if Path(veracity.__file__).resolve().parents[1] != args.src.resolve():
        raise SystemExit(f"veracity was found at {veracity.__file__}, not under {args.src}")

    core = imports_into_plugins(graph, CORE)
    wiring = imports_into_plugins(graph, WIRING)
    print(f"core → plug-in import statements: {len(core)} "
          f"(from {len({importer for importer, _, _ in core})} core modules)")
    print(f"wiring → plug-in import statements (resources, plugins; expected): {len(wiring)}")
    if args.list:
        for importer, imported, line in core:
            print(f"  {importer}:{line} → {imported}")

    tree = sorted(graph.find_upstream_modules(STEP) | {STEP})
    lines = sum(module_lines(args.src, module) for module in tree)
    plugin_modules = [module for module in tree if within(module, PLUGINS)]
    print(f"{STEP} import tree: {len(tree)} modules, {lines:,} lines "
          f"({len(plugin_modules)} of them in plug-ins)")

    loops = first_level_loops(graph)
    breakers = sorted(graph.nominate_cycle_breakers("veracity"))
    print(f"loops between first-level packages and modules: {len(loops)} "
          f"({sum(map(len, loops))} of them in a loop; {len(breakers)} imports would break every loop)")
    if args.list:
        for group in loops:
            print("  loop: " + ", ".join(name.removeprefix("veracity.") for name in group))
        for importer, imported in breakers:
            print(f"  break: {importer} → {imported}")


if __name__ == "__main__":
    main()
