"""Page verification against a real web server on loopback: the fetch, its limits, and the verdict it leaves."""

from __future__ import annotations

from typing import Any

import pytest

import veracity
from tests.integration.conftest import FakeOpenAI, FakeTavily, Page, PageServer
from veracity.contracts import Verdict
from veracity.pages import AddressPolicy, FetchSettings, check_page

CLAIM = "The Sydney Harbour Bridge opened in 1932."
QUOTE = "The Sydney Harbour Bridge opened to traffic on 19 March 1932"
ARTICLE = ("<html><head><title>Bridge</title></head><body><nav>Menu</nav><article><h1>Sydney Harbour Bridge</h1>"
           "<p>The <a href='/s'>Sydney Harbour Bridge</a> opened to traffic on 19&nbsp;March 1932 \u2013 after "
           "eight years of work.</p></article></body></html>")
LOOPBACK = FetchSettings(timeout=2.0, policy=AddressPolicy.parse("127.0.0.1"))


def supported(quote: str = QUOTE) -> Verdict:
    return Verdict(claim_id="c1", label="supported", reason="r", evidence_id="c1-e1", quote=quote,
                   citation_verified=True)


async def check(pages: PageServer, path: str, settings: FetchSettings = LOOPBACK, **verdict: Any):
    return await check_page(CLAIM, supported(**verdict), pages.base_url + path, settings)


async def test_a_quote_with_inline_tags_and_typography_is_verified_live(fake_pages: PageServer) -> None:
    fake_pages.pages["/bridge"] = Page(ARTICLE)
    page = await check(fake_pages, "/bridge")
    assert page.outcome == "verified_live" and page.verified and page.sha256 and not page.truncated
    assert "19 march 1932" in (page.excerpt or "")


async def test_a_page_that_changed_is_not_found(fake_pages: PageServer) -> None:
    fake_pages.pages["/bridge"] = Page("<html><body><article><p>This page has moved on to other news, and the "
                                       "story of the harbour crossing is gone.</p></article></body></html>")
    page = await check(fake_pages, "/bridge")
    assert page.outcome == "not_found" and not page.verified


@pytest.mark.parametrize(("page", "reason"), [
    (Page("forbidden", status=403, content_type="text/plain"), "HTTP 403"),
    (Page(ARTICLE, delay=3.0), "did not answer within 2 s"),
    (Page("\x00\x01binary", content_type="application/octet-stream"), "application/octet-stream"),
], ids=["403", "timeout", "binary"])
async def test_pages_that_cannot_be_read_are_fetch_failed(fake_pages: PageServer, page: Page, reason: str) -> None:
    fake_pages.pages["/p"] = page
    result = await check(fake_pages, "/p")
    assert result.outcome == "fetch_failed" and reason in result.reason


async def test_a_redirect_chain_is_followed_and_recorded(fake_pages: PageServer) -> None:
    fake_pages.pages["/a"] = Page("", status=301, headers={"location": "/b"})
    fake_pages.pages["/b"] = Page("", status=302, headers={"location": fake_pages.base_url + "/bridge"})
    fake_pages.pages["/bridge"] = Page(ARTICLE)
    page = await check(fake_pages, "/a")
    assert page.outcome == "verified_live" and page.final_url == fake_pages.base_url + "/bridge"


async def test_too_many_redirects_fail(fake_pages: PageServer) -> None:
    fake_pages.pages["/loop"] = Page("", status=302, headers={"location": "/loop"})
    page = await check(fake_pages, "/loop")
    assert page.outcome == "fetch_failed" and "redirects" in page.reason
    assert fake_pages.hits["/loop"] == LOOPBACK.max_redirects + 1


@pytest.mark.parametrize("target", ["http://127.0.0.2:9/admin", "http://169.254.169.254/latest/meta-data/",
                                    "http://[::1]:9/", "file:///etc/passwd"])
async def test_a_redirect_to_a_refused_address_is_not_followed(fake_pages: PageServer, target: str) -> None:
    fake_pages.pages["/jump"] = Page("", status=302, headers={"location": target})
    page = await check(fake_pages, "/jump")
    assert page.outcome == "fetch_failed"
    assert "is not fetched" in page.reason or "only http and https" in page.reason


async def test_a_redirect_to_127_0_0_1_is_blocked_when_only_the_page_s_address_is_allowed(
        fake_pages: PageServer) -> None:
    with PageServer(host="127.0.0.2") as public:  # stands for a public site: its address alone is allowed
        public.pages["/jump"] = Page("", status=302, headers={"location": fake_pages.base_url + "/bridge"})
        fake_pages.pages["/bridge"] = Page(ARTICLE)
        settings = FetchSettings(timeout=2.0, policy=AddressPolicy.parse("127.0.0.2"))
        page = await check_page(CLAIM, supported(), public.base_url + "/jump", settings)
    assert page.outcome == "fetch_failed" and "127.0.0.1 is a loopback address" in page.reason
    assert public.hits["/jump"] == 1 and fake_pages.hits["/bridge"] == 0


async def test_loopback_is_refused_unless_allowed(fake_pages: PageServer) -> None:
    fake_pages.pages["/bridge"] = Page(ARTICLE)
    page = await check(fake_pages, "/bridge", FetchSettings(timeout=2.0))
    assert page.outcome == "fetch_failed" and "loopback" in page.reason
    assert fake_pages.hits["/bridge"] == 0


async def test_a_30_mb_page_is_read_up_to_the_cap(fake_pages: PageServer) -> None:
    filler = "<p>" + "Harbour news of no interest to this claim. " * 700_000 + "</p>"
    fake_pages.pages["/huge"] = Page(f"<html><body>{filler}<p>{QUOTE}.</p></body></html>")
    page = await check(fake_pages, "/huge", FetchSettings(timeout=10.0, max_bytes=1_000_000,
                                                          policy=LOOPBACK.policy))
    assert page.truncated and page.outcome == "not_found" and "first 1,000,000 bytes" in page.reason


async def test_a_supported_number_missing_from_the_page_is_partial(fake_pages: PageServer) -> None:
    fake_pages.pages["/bridge"] = Page(ARTICLE.replace("1932", "nineteen thirty-two"))
    page = await check(fake_pages, "/bridge", quote="opened to traffic on 19 March")
    assert page.outcome == "partial" and "1932" in page.reason


OPENED = "The Sydney Harbour Bridge opened in 1932."


@pytest.fixture
def bridge_check(real_clients: None, fake_openai: FakeOpenAI, fake_tavily: FakeTavily,
                 fake_pages: PageServer) -> PageServer:
    fake_openai.extractions = [{"claims": [{"claim": OPENED, "source": OPENED}]}]
    fake_openai.judge = lambda claim, evidence, attempt: {
        "label": "supported", "reason": "stated", "evidence_id": next(iter(evidence)),
        "quote": "opened to traffic on 19 March 1932"}
    fake_tavily.results = fake_pages.serve_results({OPENED: [{
        "title": "Bridge", "url": "https://example.org/bridge", "score": 0.9,
        "content": "The Sydney Harbour Bridge opened to traffic on 19 March 1932."}]})
    return fake_pages


def test_a_quote_gone_from_its_page_fails_the_report_unless_snippets_are_allowed(bridge_check: PageServer) -> None:
    bridge_check.pages["/bridge"] = Page("<html><body><article><p>Gone.</p></article></body></html>")
    settings = {"model": "openai:gpt-4.1-mini", "search_backoff": 0.01, "page_allowed_networks": "127.0.0.1"}
    report = veracity.check(OPENED, **settings)
    verdict = report.verdict_for("c1")
    assert verdict is not None and verdict.page is not None and verdict.page.outcome == "not_found"
    assert verdict.shown_label == "supported (citation not verified on the page)"
    assert not report.passed and report.outcome == "incomplete"
    assert [issue.code for issue in report.evaluation.issues] == ["citation_not_on_page"]
    lenient = veracity.check(OPENED, allow_snippet_citations=True, **settings)
    assert lenient.passed and lenient.verdict_for("c1").shown_label.endswith("(citation not verified on the page)")
    unchecked = veracity.check(OPENED, verify_pages=False, **settings)
    assert unchecked.passed and unchecked.verdict_for("c1").page is None


def test_the_audit_trail_lists_both_searches_and_the_page_check(bridge_check: PageServer, tmp_path) -> None:
    from veracity.audit import audit_markdown
    from veracity.evidence.counter import counter_query

    report = veracity.check(OPENED, model="openai:gpt-4.1-mini", search_backoff=0.01,
                            page_allowed_networks="127.0.0.1")
    audit = audit_markdown(report)
    assert (f"- against it (from the template): “{counter_query(OPENED)}” (1 attempt(s), last ok: counter query: "
            "0 item(s))") in audit
    assert "Page check (live, " in audit and "verified_live: the quote is on the page; sha256 " in audit


async def test_the_archive_copy_is_read_when_the_live_page_fails(fake_pages: PageServer) -> None:
    from urllib.parse import quote

    live = fake_pages.base_url + "/gone"
    fake_pages.pages["/gone"] = Page("gone", status=410, content_type="text/plain")
    fake_pages.pages["/archive/" + quote(live, safe="")] = Page(ARTICLE)
    settings = FetchSettings(timeout=2.0, policy=LOOPBACK.policy, archive_url=fake_pages.base_url + "/archive/{url}")
    page = await check_page(CLAIM, supported(), live, settings)
    assert page.outcome == "verified_live" and page.source == "archive" and "archive's copy" in page.reason
    fake_pages.pages.pop("/archive/" + quote(live, safe=""))
    failed = await check_page(CLAIM, supported(), live, settings)
    assert failed.outcome == "fetch_failed" and "HTTP 410" in failed.reason and "archive copy failed" in failed.reason


async def test_snapshots_keep_the_page_as_read_under_its_hash(fake_pages: PageServer, tmp_path) -> None:
    import hashlib

    fake_pages.pages["/bridge"] = Page(ARTICLE)
    settings = FetchSettings(timeout=2.0, policy=LOOPBACK.policy, snapshots=tmp_path / "snapshots")
    page = await check(fake_pages, "/bridge", settings)
    assert page.snapshot == f"{page.sha256}.html"
    kept = (tmp_path / "snapshots" / page.snapshot).read_bytes()
    assert hashlib.sha256(kept).hexdigest() == page.sha256 and kept == ARTICLE.encode()


def test_an_archive_template_needs_the_url_placeholder() -> None:
    with pytest.raises(ValueError, match="must hold"):
        veracity.Context(page_archive_url="https://archive.example/web/")


async def test_verify_rechecks_snapshots_and_live_pages(bridge_check: PageServer, tmp_path) -> None:
    from veracity.audit.verify import verify_report

    snapshots = tmp_path / "snapshots"
    report = await veracity.acheck(OPENED, model="openai:gpt-4.1-mini", search_backoff=0.01,
                                   page_allowed_networks="127.0.0.1", page_snapshots=str(snapshots))
    page = report.verdicts[0].page
    assert page is not None and page.snapshot and (snapshots / page.snapshot).exists()
    loopback = FetchSettings(timeout=2.0, policy=AddressPolicy.parse("127.0.0.1"))
    findings = await verify_report(report, snapshots=snapshots, live=True, settings=loopback)
    assert all(finding.holds for finding in findings)
    assert sum(finding.what.startswith(("snapshot ", "live page ")) for finding in findings) == 2
    (snapshots / page.snapshot).write_bytes(b"<html><body>edited</body></html>")
    bridge_check.pages["/bridge"] = Page("<html><body><p>Story withdrawn.</p></body></html>")
    findings = await verify_report(report, snapshots=snapshots, live=True, settings=loopback)
    failed = [finding.what for finding in findings if not finding.holds]
    assert len(failed) == 2
    assert "does not match its recorded hash" in failed[0] and "not_found" in failed[1]
