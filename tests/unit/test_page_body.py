"""A page's body within bounds: decompressed no further than the cap, decoded whatever its declared charset,
and folded for matching without holding the whole page's words at once."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
from collections.abc import AsyncIterator

import pytest

from veracity.citations import normalize
from veracity.contracts import Verdict
from veracity.pages import examine_page
from veracity.pages.body import BodyRefused, decode_page, read_capped
from veracity.pages.match import fold_page, quote_on_page, words_in_order

CAP = 100_000
QUOTE = "The Sydney Harbour Bridge opened to traffic on 19 March 1932"


async def chunks_of(data: bytes, size: int = 65_536) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start:start + size]


def bomb(decoded_bytes: int) -> bytes:
    squeezer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\0" * 1_000_000
    return b"".join([*(squeezer.compress(block) for _ in range(decoded_bytes // len(block))), squeezer.flush()])


async def test_a_gzip_bomb_is_inflated_only_up_to_the_cap() -> None:
    compressed = bomb(200_000_000)
    assert len(compressed) < 300_000  # one network chunk inflates to tens of megabytes
    tracemalloc.start()
    try:
        body, truncated = await read_capped(chunks_of(compressed), "gzip", CAP)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert truncated and len(body) == CAP
    assert peak < 2_000_000, f"{peak:,} bytes held to read a {CAP:,}-byte capped body"


async def test_bytes_after_the_gzip_stream_are_neither_kept_nor_read() -> None:
    page = b"<p>Harbour news.</p>"
    sent = gzip.compress(page) + bytes(range(256)) * 40_000  # then 10 MB that are not a gzip member
    read: list[int] = []

    async def counted() -> AsyncIterator[bytes]:
        async for chunk in chunks_of(sent):
            read.append(len(chunk))
            yield chunk

    tracemalloc.start()
    try:
        body, truncated = await read_capped(counted(), "gzip", CAP)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert body == page and not truncated
    assert len(read) == 1, f"{len(read)} chunks read after the stream ended"
    assert peak < 2_000_000, f"{peak:,} bytes held for a {len(page)}-byte page"


@pytest.mark.parametrize("size", [7, 1000, 65_536])
async def test_a_gzip_body_of_several_members_is_read_whole_and_capped(size: int) -> None:
    parts = [f"<p>Part {number} of the harbour news.</p>".encode() * 50 for number in range(40)]
    joined = b"".join(gzip.compress(part) for part in parts)
    body, truncated = await read_capped(chunks_of(joined, size), "gzip", CAP)
    assert body == b"".join(parts) and not truncated
    many = b"".join(gzip.compress(part) for part in parts * 100)
    capped, cut = await read_capped(chunks_of(many, size), "gzip", CAP)
    assert cut and capped == b"".join(parts * 100)[:CAP]


@pytest.mark.parametrize(("coding", "encode"), [
    ("gzip", gzip.compress),
    ("x-gzip", gzip.compress),
    ("deflate", zlib.compress),
    ("deflate", lambda data: zlib.compress(data)[2:-4]),  # raw deflate, as some servers send it
    ("", lambda data: data),
    ("identity", lambda data: data),
])
async def test_a_body_is_decoded_in_each_coding_and_cut_at_the_cap(coding: str, encode) -> None:
    page = ("<p>" + "Harbour news. " * 20_000 + "</p>").encode()
    body, truncated = await read_capped(chunks_of(encode(page), 1000), coding, CAP)
    assert truncated and body == page[:CAP]
    whole, cut = await read_capped(chunks_of(encode(page[:5000]), 1000), coding, CAP)
    assert not cut and whole == page[:5000]


@pytest.mark.parametrize("coding", ["br", "zstd", "gzip, gzip", "compress"])
async def test_other_content_codings_are_refused(coding: str) -> None:
    with pytest.raises(BodyRefused, match="not read"):
        await read_capped(chunks_of(b"data"), coding, CAP)


async def test_a_corrupt_gzip_stream_is_refused() -> None:
    with pytest.raises(BodyRefused, match="corrupt"):
        await read_capped(chunks_of(b"\x1f\x8b\x08\x00 this is not gzip at all"), "gzip", CAP)


@pytest.mark.parametrize("charset", ["x-no-such-charset", "utf-42", "undefined", "base64", "zlib", "rot13",
                                     "punycode", "a" * 300])
def test_an_unknown_charset_is_read_as_utf8_and_noted(charset: str) -> None:
    decoded = decode_page("Caf\u00e9 \u2013 Sydney".encode(), charset)
    assert decoded.text == "Caf\u00e9 \u2013 Sydney"
    assert decoded.note is not None and "is unknown, so it was read as UTF-8" in decoded.note
    assert len(decoded.note) < 120


def test_a_known_charset_from_the_header_or_the_meta_tag_is_used() -> None:
    latin = "<html><head><meta charset='windows-1252'></head><body>Caf\u00e9 \u2013 Sydney</body></html>"
    assert decode_page(latin.encode("cp1252"), None).text == latin
    assert decode_page("Caf\u00e9".encode("latin-1"), "ISO-8859-1").text == "Caf\u00e9"
    unknown_meta = b'<meta http-equiv="Content-Type" content="text/html; charset=x-mystery">Caf\xc3\xa9'
    decoded = decode_page(unknown_meta, None)
    assert decoded.text.endswith("Caf\u00e9") and "x-mystery" in (decoded.note or "")
    assert decode_page(b"plain \xff bytes", None).note is None


HTML = ("<html><head><title>Bridge</title><script>var a = 1 < 2 && 3 > 2;</script></head><body>"
        "<p class='lead'>The <a href=\"/s x\" title='a  b'>Sydney Harbour&nbsp;Bridge</a> opened to traffic on "
        "19&nbsp;March 1932 \u2013 after eight\n\n years of work.</p><p>A&amp;B  &lt;not a tag&gt; "
        "caf\u00e9\u200b CAF\u00c9 \ufb01ne \u201cquoted\u201d</p><img src='data:x' alt='a > b'>"
        "<div>word" + "x" * 700 + " tail</div></body></html>")


@pytest.mark.parametrize("piece", [1, 2, 3, 7, 16, 50, 333, 10_000])
def test_folding_a_piece_at_a_time_is_folding_the_whole(piece: int) -> None:
    assert fold_page(HTML, piece=piece) == normalize(HTML)
    assert fold_page("main text", HTML, piece=piece) == normalize(f"main text\n{HTML}")


def test_words_in_order_reads_the_page_once_as_a_stream() -> None:
    quote = "a b c d e".split()
    assert words_in_order(quote, iter("x a b c d e y".split())) == 1.0
    assert words_in_order(quote, iter("e d c b a".split())) == pytest.approx(0.2)
    assert words_in_order(quote, iter(["a", "b", *["z"] * 50, "c", "d", "e"])) == pytest.approx(0.6)
    assert words_in_order(quote, iter(["q", "a", "x", "c"])) == pytest.approx(0.4)  # a stretch cut by the end
    assert quote_on_page(QUOTE, "the bridge " * 5000 + QUOTE.lower().replace("19 ", "")) == ("verified_fragment",
                                                                                            pytest.approx(10 / 11))


def test_examining_a_capped_page_does_not_hold_its_words_at_once() -> None:
    page = "<html><body><p>" + "Harbour news of no interest to this claim. " * 50_000 + "</p></body></html>"
    verdict = Verdict(claim_id="c1", label="supported", reason="r", evidence_id="c1-e1", quote=QUOTE,
                      citation_verified=True)
    examine_page("The bridge opened in 1932.", verdict, "<p>warm up</p>", "text/html")
    tracemalloc.start()
    try:
        outcome, *_ = examine_page("The bridge opened in 1932.", verdict, page, "text/html")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert outcome == "not_found"
    assert peak < 5 * len(page), f"{peak:,} bytes held to examine a {len(page):,}-character page"
