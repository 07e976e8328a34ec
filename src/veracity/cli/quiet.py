"""Third-party log lines a normal command-line run should not print, silenced at the command line only.

The library itself changes no logging: a program that imports veracity keeps every record its
libraries emit. The `veracity` command drops the few records listed here, by logger and by the
start of the message, so that its stderr holds veracity's own output; any other record of
those loggers (a trace upload that failed, say) still shows.
"""

from __future__ import annotations

import logging

KNOWN_NOISE: dict[str, tuple[str, ...]] = {
    # Logged once per process when LangSmith tracing is on and the LangSmith server does not
    # announce compressed ingestion; tracing works regardless (it falls back to plain uploads).
    "langsmith.client": ("Run compression is not enabled",),
}
"""By logger name: the starts of the messages the command line drops."""


class DropKnownNoise(logging.Filter):
    """Drops the records whose message starts with one of `prefixes`."""

    def __init__(self, prefixes: tuple[str, ...]) -> None:
        super().__init__()
        self.prefixes = prefixes

    def filter(self, record: logging.LogRecord) -> bool:
        """False (drop) for a known noisy message, True for every other record."""
        return not record.getMessage().startswith(self.prefixes)


def quiet_third_party() -> None:
    """Drop the `KNOWN_NOISE` records for the rest of this process (calling it again adds nothing)."""
    for name, prefixes in KNOWN_NOISE.items():
        logger = logging.getLogger(name)
        if not any(isinstance(existing, DropKnownNoise) for existing in logger.filters):
            logger.addFilter(DropKnownNoise(prefixes))
