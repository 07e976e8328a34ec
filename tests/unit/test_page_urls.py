"""Which cited URLs are fetched: normalised once, refused with a reason, and never skipped silently."""

from __future__ import annotations

import ipaddress

import pytest

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.calculator.plugin import ShippedCalculator
from veracity.context import Context
from veracity.contracts import Claim, Evidence, Verdict
from veracity.nodes.evaluate import evaluate
from veracity.nodes.page import page_to_check
from veracity.pages import AddressPolicy, FetchSettings, check_page
from veracity.pages.addresses import AddressRefused, embedded_ipv4
from veracity.pages.urls import URLRefused, page_url
from veracity.resources import capabilities_of

TEXT = "Canberra is the capital of Australia."
NOTE = "Canberra is the capital city of Australia."


@pytest.mark.parametrize(("raw", "normalised"), [
    ("HTTP://169.254.169.254/latest/meta-data/", "http://169.254.169.254/latest/meta-data/"),
    ("  https://example.org/a?b=1  ", "https://example.org/a?b=1"),
    ("HtTpS://Example.org/page#section", "https://Example.org/page"),
    ("\thttp://example.org/\n", "http://example.org/"),
])
def test_a_url_is_normalised_once(raw: str, normalised: str) -> None:
    assert page_url(raw) == normalised


@pytest.mark.parametrize(("raw", "reason"), [
    ("file:///etc/passwd", "file: URLs are not fetched"),
    ("FILE:///etc/passwd", "file: URLs are not fetched"),
    ("ftp://example.org/notes.txt", "ftp: URLs are not fetched"),
    ("javascript:alert(1)", "javascript: URLs are not fetched"),
    ("data:text/html,<p>hi</p>", "data: URLs are not fetched"),
    ("/wiki/Canberra", "is relative"),
    ("wiki/Canberra", "is relative"),
    ("//example.org/a", "is relative"),
    ("", "the cited URL is empty"),
    ("   ", "the cited URL is empty"),
    (None, "the cited URL is empty"),
    ("http:///etc/passwd", "names no host"),
    ("http://[::1/", "malformed"),
    ("http://example.org:99999/", "malformed"),
])
def test_anything_but_an_http_url_with_a_host_is_refused_with_its_reason(raw: str | None, reason: str) -> None:
    with pytest.raises(URLRefused, match=reason):
        page_url(raw)


@pytest.mark.parametrize(("address", "inner"), [
    ("::127.0.0.1", "127.0.0.1"),            # IPv4-compatible
    ("::ffff:127.0.0.1", "127.0.0.1"),       # IPv4-mapped
    ("::ffff:0:127.0.0.1", "127.0.0.1"),     # IPv4-translated (SIIT)
    ("64:ff9b::7f00:1", "127.0.0.1"),        # NAT64, well-known prefix
    ("64:ff9b::a9fe:a9fe", "169.254.169.254"),
    ("2002:7f00:1::", "127.0.0.1"),          # 6to4
    ("2002:a9fe:a9fe::1", "169.254.169.254"),
    ("2002:c0a8:101::", "192.168.1.1"),
])
def test_ipv6_forms_carrying_a_non_public_ipv4_address_are_refused(address: str, inner: str) -> None:
    parsed = ipaddress.ip_address(address)
    assert str(embedded_ipv4(parsed)[0]) == inner
    assert AddressPolicy().refusal(parsed) is not None


def test_teredo_and_local_nat64_are_refused() -> None:
    teredo = ipaddress.ip_address("2001:0:4136:e378:8000:63bf:80ff:fffe")  # client 127.0.0.1
    assert str(embedded_ipv4(teredo)[1]) == "127.0.0.1"
    assert AddressPolicy().refusal(teredo) is not None
    assert AddressPolicy().refusal(ipaddress.ip_address("64:ff9b:1::808:808")) is not None


@pytest.mark.parametrize("address", ["64:ff9b::808:808", "2002:808:808::1", "2606:2800:220:1::1"])
def test_ipv6_forms_carrying_a_public_ipv4_address_pass(address: str) -> None:
    assert AddressPolicy().refusal(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize("host", ["[::127.0.0.1]", "[2002:7f00:1::]", "[64:ff9b::7f00:1]", "[::ffff:a9fe:a9fe]"])
async def test_a_literal_embedded_address_is_refused_before_any_connection(host: str) -> None:
    with pytest.raises(AddressRefused, match="loopback|link-local"):
        await AddressPolicy().checked_address(host, 80)


@pytest.mark.parametrize(("url", "reason"), [
    ("HTTP://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local"),
    (" http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local"),
    ("http://[::127.0.0.1]/", "carries 127.0.0.1, a loopback address"),
    ("http://[2002:7f00:1::]/", "carries 127.0.0.1, a loopback address"),
    ("http://[64:ff9b::7f00:1]/", "carries 127.0.0.1, a loopback address"),
    ("file:///etc/passwd", "not fetched: file: URLs"),
    ("javascript:alert(1)", "not fetched: javascript: URLs"),
    ("/relative/page", "not fetched: the cited URL '/relative/page' is relative"),
    ("", "not fetched: the cited URL is empty"),
])
async def test_a_refused_url_is_a_failed_page_check_and_no_archive_is_asked(url: str, reason: str) -> None:
    # sockets are off in unit tests: a request to the archive would fail the check with another reason
    settings = FetchSettings(timeout=1.0, archive_url="https://archive.example/web/{url}")
    verdict = Verdict(claim_id="c1", label="supported", reason="r", evidence_id="c1-e1", quote=NOTE,
                      citation_verified=True)
    page = await check_page(TEXT, verdict, url, settings)
    assert page.outcome == "fetch_failed" and reason in page.reason and "archive" not in page.reason
    assert page.url == url


def web_item(url: str | None) -> Evidence:
    return Evidence(id="c1-e1", claim_id="c1", text=NOTE, url=url, backend="web")


@pytest.mark.parametrize("url", ["HTTP://169.254.169.254/", "file:///etc/passwd", "ftp://x/y", "javascript:x",
                                 "/relative", " https://example.org/", "", None])
def test_every_decisive_web_verdict_gets_a_page_check_whatever_its_url(url: str | None) -> None:
    verdict = Verdict(claim_id="c1", label="supported", reason="r", evidence_id="c1-e1", quote=NOTE,
                      citation_verified=True)
    assert page_to_check(verdict, [web_item(url)], Context(), capabilities_of) == (url or "")
    assert page_to_check(verdict, [web_item(url)], Context(verify_pages=False), capabilities_of) is None


def test_a_decisive_web_verdict_whose_page_was_not_checked_fails_the_evaluation() -> None:
    claim = Claim(id="c1", text=TEXT, source=TEXT, span=(0, len(TEXT)))
    verdict = Verdict(claim_id="c1", label="supported", reason="r", evidence_id="c1-e1", quote=NOTE,
                      citation_verified=True)
    state = {"claims": [claim], "verdicts": {"c1": verdict}, "evidence": {"c1": [web_item("https://x.example/")]}}
    rules = {"calculator": ShippedCalculator(), "capabilities": capabilities_of}
    issues = evaluate(state, **rules).issues  # type: ignore[arg-type]
    assert [issue.code for issue in issues] == ["citation_not_on_page"]
    assert "was not checked" in issues[0].message
    assert evaluate(state, allow_snippet_citations=True, **rules).sound  # type: ignore[arg-type]
    assert evaluate(state, verify_pages=False, **rules).sound  # type: ignore[arg-type]
    kb = {**state, "evidence": {"c1": [web_item(None).model_copy(update={"backend": "kb"})]}}
    assert evaluate(kb, **rules).sound  # type: ignore[arg-type]


@pytest.mark.parametrize("url", ["HTTP://169.254.169.254/latest/meta-data/", "file:///etc/passwd",
                                 "ftp://example.org/x", "javascript:alert(1)", "/relative/path",
                                 " http://169.254.169.254/", ""])
def test_a_check_citing_a_url_that_is_not_fetched_does_not_pass(world: FakeWorld, url: str) -> None:
    world.extract(claims_reply((TEXT, TEXT)))
    world.judge(TEXT, verdict_reply("supported", "c1-e1", NOTE))
    world.evidence(TEXT, [hit(NOTE, url=url)])
    report = veracity.check(TEXT, model=world.model(), backend=world.backend(name="web"))
    verdict = report.verdict_for("c1")
    assert verdict is not None and verdict.label == "supported"
    assert verdict.page is not None and verdict.page.outcome == "fetch_failed"
    assert "not fetched" in verdict.page.reason
    assert not report.passed and [issue.code for issue in report.evaluation.issues] == ["citation_not_on_page"]
    lenient = veracity.check(TEXT, model=world.model(), backend=world.backend(name="web"),
                             allow_snippet_citations=True)
    assert lenient.passed
