"""Where things are: each module and subpackage of `veracity`, said by the first paragraph of its docstring.

The sources are read, not imported, so listing a module runs none of its code.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path


def package_layout() -> str:
    """A table of the package's top-level modules and subpackages: what each says it is, and what a package holds."""
    spec = importlib.util.find_spec("veracity")
    if spec is None or not spec.submodule_search_locations:
        raise LookupError("the veracity package is not installed")
    package = Path(next(iter(spec.submodule_search_locations)))
    rows = ["| module | what it is |", "|---|---|", f"| `__init__.py` | {_summary(package / '__init__.py')} |"]
    for path in _members(package):
        if path.is_dir():
            held = ", ".join(f"`{member.name}/`" if member.is_dir() else f"`{member.stem}`"
                             for member in _members(path))
            rows.append(f"| `{path.name}/` | {_summary(path / '__init__.py')} Holds: {held}. |")
        else:
            rows.append(f"| `{path.name}` | {_summary(path)} |")
    return "\n".join(rows) + "\n"


def _members(package: Path) -> list[Path]:
    """The modules and subpackages of `package`, by name, leaving out private ones and `__init__.py`."""
    return sorted((path for path in package.iterdir() if not path.name.startswith(("_", "."))
                   and (path.suffix == ".py" or (path / "__init__.py").is_file())), key=lambda path: path.name)


def _summary(source: Path) -> str:
    """The first paragraph of the module's docstring, on one line, with table pipes escaped."""
    docstring = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or ""
    paragraph = docstring.split("\n\n", 1)[0]
    return " ".join(paragraph.split()).replace("|", "\\|") or "(no docstring)"
