"""A page's body, bounded: decompressed a piece at a time up to a byte cap, then decoded to text.

The cap counts *decoded* bytes, and each piece is inflated only as far as the room left under
the cap, so a compressed page that would grow to gigabytes (a gzip bomb) costs no more than
the cap. Only gzip and deflate are read; a page sent in another content coding is refused. The
character set comes from the Content-Type header, else from a ``<meta>`` tag near the start;
one Python does not know as a text encoding is read as UTF-8 (with replacement) and noted.
"""

from __future__ import annotations

import codecs
import re
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

ACCEPTED_ENCODINGS = "gzip, deflate"
"""What the Accept-Encoding header offers: the content codings `read_capped` can bound."""

_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]{1,40})""", re.IGNORECASE)
_META_WINDOW = 2048
"""Bytes at the start of a page searched for a ``<meta charset>``."""
_NOT_PAGE_CHARSETS = frozenset({"punycode", "idna", "undefined"})
"""Codecs Python knows that no web page is written in (and whose decoding is slow or always fails)."""


class BodyRefused(Exception):
    """The body cannot be read (a content coding not read here, a corrupt compressed stream)."""


@dataclass(frozen=True)
class Decoded:
    """A page's text, and a note when its declared character set could not be used."""

    text: str
    note: str | None = None


class _Inflater:
    """gzip or deflate, inflated no further than asked.

    A gzip body may hold several members one after another (RFC 1952); each is inflated in turn.
    Bytes after the end of the stream that are not another member are dropped, not kept:
    `finished` then says that nothing more needs to be read.
    """

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.finished = False
        self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS if coding == "gzip" else zlib.MAX_WBITS)
        self._started = False
        self._members = 0
        self._carry = b""

    def inflate(self, data: bytes, room: int) -> bytes:
        """At most `room` (>= 1) bytes of `data` inflated (what is left over stays pending)."""
        out = bytearray()
        pending, self._carry = self._carry + self._inflater.unconsumed_tail + data, b""
        while not self.finished:
            try:
                out += self._inflater.decompress(pending, room - len(out))
            except zlib.error as exc:
                if self._members:  # bytes after the last gzip member: not part of the page
                    self.finished = True
                    break
                if self.coding != "deflate" or self._started:
                    raise BodyRefused(f"the page's {self.coding} stream is corrupt: {exc}") from exc
                # "deflate" is sent both with and without the zlib header; try it without
                self._inflater, self._started = zlib.decompressobj(-zlib.MAX_WBITS), True
                continue
            self._started = True
            if not self._inflater.eof:
                break
            if self.coding != "gzip":
                self.finished = True
                break
            pending = self._inflater.unused_data
            self._inflater, self._members = zlib.decompressobj(16 + zlib.MAX_WBITS), self._members + 1
            if len(out) >= room:
                self._carry = pending
                break
            if not pending:
                break
        return bytes(out)


async def read_capped(chunks: AsyncIterator[bytes], content_encoding: str, limit: int) -> tuple[bytes, bool]:
    """The body from the raw (still encoded) `chunks`, decoded and cut at `limit` bytes; whether it was cut."""
    coding = content_encoding.strip().lower()
    coding = "gzip" if coding == "x-gzip" else coding
    if coding not in ("", "identity", "gzip", "deflate"):
        raise BodyRefused(f"the page is sent with content coding {content_encoding!r}, which is not read")
    inflater = _Inflater(coding) if coding in ("gzip", "deflate") else None
    body = bytearray()
    async for chunk in chunks:
        room = limit + 1 - len(body)
        body += inflater.inflate(chunk, room) if inflater else chunk[:room]
        if len(body) > limit:
            del body[limit:]
            return bytes(body), True
        if inflater and inflater.finished:
            break
    return bytes(body), False


def decode_page(raw: bytes, header_charset: str | None) -> Decoded:
    """The page's text: in the header's character set, else its ``<meta>`` one, else UTF-8; never an exception."""
    declared = header_charset or _meta_charset(raw)
    if not declared:
        return Decoded(raw.decode("utf-8", errors="replace"))
    try:
        if codecs.lookup(declared).name in _NOT_PAGE_CHARSETS:
            raise LookupError(declared)
        return Decoded(raw.decode(declared, errors="replace"))
    except (LookupError, UnicodeError, ValueError):
        shown = declared[:40]
        return Decoded(raw.decode("utf-8", errors="replace"),
                       note=f"its character set {shown!r} is unknown, so it was read as UTF-8")


def _meta_charset(raw: bytes) -> str | None:
    found = _META_CHARSET.search(raw[:_META_WINDOW])
    return found.group(1).decode("ascii") if found else None
