"""Public names imported on first use (PEP 562), so importing a package stays cheap."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

Exports = tuple[Callable[[str], Any], Callable[[], list[str]]]
"""A module's `__getattr__` and `__dir__`."""


def lazy_exports(namespace: dict[str, Any], modules: Mapping[str, str], *,
                 keep: Callable[[str], bool] = lambda name: True) -> Exports:
    """A package's `__getattr__` and `__dir__`: each name in `modules` is imported from its module when first read.

    A name is then kept in `namespace` (the package's globals) unless `keep` says not to.
    """

    def public_name(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        if keep(name):
            namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return public_name, names
