"""Names imported on first use (PEP 562), so importing a module stays cheap: the one way veracity defers an import."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

Exports = tuple[Callable[[str], Any], Callable[[], list[str]]]
"""A module's `__getattr__` and `__dir__`."""


def lazy_exports(namespace: dict[str, Any], modules: Mapping[str, str]) -> Exports:
    """A module's `__getattr__` and `__dir__`: each name in `modules` is imported from its module when first read.

    The name is then kept in `namespace` (the module's globals), so the next read finds it there.
    """

    def public_name(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return public_name, names
