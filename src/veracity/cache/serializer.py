"""How cache entries are written: plain JSON, read back as plain JSON and nothing else.

LangGraph's default serializer revives the types an entry names, importing and calling them;
anyone able to write to the cache file could then run code in the next check. This one never
imports or calls anything: an entry is JSON data, and `entries.py` decides whether its shape is
one the cache wrote.
"""

from __future__ import annotations

import json
from typing import Any


class UnreadableEntry(ValueError):
    """A cache entry that is not plain JSON (another encoding, or broken bytes)."""


class PlainJsonSerializer:
    """A LangGraph `SerializerProtocol` that writes plain JSON and reads back plain JSON only."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """`obj` (JSON data: dicts, lists, strings, numbers, booleans, None) as ('json', its bytes)."""
        return "json", json.dumps(obj, separators=(",", ":")).encode("ascii")

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """The JSON data of a ('json', bytes) entry; any other encoding raises `UnreadableEntry`."""
        encoding, raw = data
        if encoding != "json":
            raise UnreadableEntry(f"encoded as {encoding!r}, not plain JSON")
        try:
            return json.loads(raw)
        except (ValueError, TypeError) as exc:  # broken bytes or text: JSONDecodeError, UnicodeDecodeError
            raise UnreadableEntry(f"not valid JSON ({exc})") from None
