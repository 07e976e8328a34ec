"""Exceptions raised to callers. Failures inside a check are data on the report instead."""

from __future__ import annotations

from typing import Literal


class VeracityError(Exception):
    """Base class for errors veracity raises to its caller."""


class InputError(VeracityError, ValueError):
    """The text to check is unusable: empty, or over the size limit."""


class ConfigurationError(VeracityError):
    """A model or evidence backend is not configured, e.g. a missing API key."""


class SettingError(VeracityError, ValueError):
    """A setting's value breaks its rule (`veracity.Context` checks each); the message says each value refused."""


ToolErrorKind = Literal["timeout", "rate_limit", "malformed", "auth", "unavailable", "error"]
"""How an evidence backend call failed."""


class ToolError(VeracityError):
    """An evidence backend call failed; `kind` says how, `transient` whether to retry."""

    def __init__(self, kind: ToolErrorKind, message: str, *, transient: bool = True) -> None:
        super().__init__(message)
        self.kind = kind
        self.transient = transient


class SourceConflictError(ConfigurationError):
    """A source text was given together with another evidence kind (a search or a bound backend); drop one.

    `conflict` names what contradicts the source ("search 'web'", "the bound backend 'notes'"), and
    `search` the search it named, if that was it; `worded` says it in a surface's own option names.
    """

    def __init__(self, conflict: str, *, search: str | None = None) -> None:
        self.conflict = conflict
        self.search = search
        super().__init__(self.worded())

    def worded(self, search_option: str | None = None, source_option: str = "source_text") -> str:
        """The message, naming the search as `search_option` (e.g. '--search web') and the source as `source_option`."""
        conflict = f"{search_option} {self.search}" if search_option and self.search is not None else self.conflict
        return (f"a source text was given, so the evidence is that source; {conflict} cannot be combined with "
                f"{source_option} (drop one)")


class KnowledgeBaseError(ConfigurationError):
    """The knowledge base is missing, corrupt, incompatible or busy; the message says how to fix it."""
