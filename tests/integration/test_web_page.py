"""The web page end to end: headless Chromium (Debian's) against a live uvicorn server on loopback.

Needs chromium and chromedriver (Debian packages chromium and chromium-driver; `make test`
installs them when it runs as root with apt-get, and says so when it cannot, in which case
these tests are skipped). The screenshot is written to
``test-artifacts/web-page.png`` in the repository (git-ignored).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.integration.test_server import serving
from veracity.server.app import create_app

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SYDNEY = ("The Sydney Opera House was designed by a Danish architect and opened in 1973. It has over 2,000 rooms "
          "and was funded entirely by the federal government.")

pytestmark = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                reason="needs Debian's chromium and chromium-driver (see `make test`)")


@pytest.fixture()
def browser(tmp_path: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,900"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"download.default_directory": str(tmp_path / "downloads")})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_the_sydney_paragraph_renders_its_verdicts(browser, tmp_path: Path) -> None:
    # tests/conftest.py gives every test a fresh knowledge base, seeded with the demo corpus on first use
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    downloads = tmp_path / "downloads"
    with serving(create_app(model="offline", search="kb", api_key="")) as url:
        browser.get(url + "/")
        browser.find_element(By.ID, "text").send_keys(SYDNEY)
        Select(browser.find_element(By.ID, "mode")).select_by_value("offline")
        browser.find_element(By.ID, "check").click()
        WebDriverWait(browser, 90).until(lambda b: b.find_element(By.ID, "status").text in {"done"}
                                         or b.find_element(By.ID, "status").text.startswith("error"))
        assert browser.find_element(By.ID, "status").text == "done"
        rows = browser.find_elements(By.CSS_SELECTOR, "#verdicts tbody tr")
        labels = {row.find_elements(By.TAG_NAME, "td")[1].text: row.find_element(By.CLASS_NAME, "label").text
                  for row in rows}
        assert len(labels) == 4
        # every label carries its calibrated confidence; a refutation the judge is not sure enough of leans
        assert re.fullmatch(r"supported, 0\.\d\d", labels["The Sydney Opera House opened in 1973."])
        assert re.fullmatch(r"refuted, 0\.\d\d", labels["The Sydney Opera House has over 2,000 rooms."])  # computed
        assert re.fullmatch(r"(refuted|unverifiable, leans refuted), 0\.\d\d",
                            labels["The Sydney Opera House was funded entirely by the federal government."])
        refuted = next(r for r in rows if r.find_element(By.CLASS_NAME, "label").text.startswith("refuted"))
        assert "refuted" in refuted.find_element(By.CLASS_NAME, "label").get_attribute("class")
        assert "“" in refuted.find_elements(By.TAG_NAME, "td")[2].text  # the quote is shown
        assert browser.find_element(By.ID, "scores").text.startswith("4 claim(s): ")
        ARTIFACTS.mkdir(exist_ok=True)
        assert browser.save_screenshot(str(ARTIFACTS / "web-page.png"))
        browser.find_element(By.ID, "download-json").click()
        browser.find_element(By.ID, "download-md").click()
        saved = downloads / "veracity-report.json", downloads / "veracity-report.md"
        WebDriverWait(browser, 10).until(  # written in full: present, not empty, no partial download left
            lambda _b: all(path.exists() and path.stat().st_size > 0 for path in saved)
            and not list(downloads.glob("*.crdownload"))
        )
        report = json.loads(saved[0].read_text())
        rooms = next(v for v in report["verdicts"] if v["computation"])
        assert rooms["label"] == "refuted" and rooms["confidence"] > 0.9
        rooms_row = r"\| refuted, 0\.\d\d \| The Sydney Opera House has over 2,000 rooms\. \|"
        assert re.search(rooms_row, saved[1].read_text())


def test_an_empty_text_is_refused_in_the_page(browser) -> None:
    from selenium.webdriver.common.by import By

    with serving(create_app(model="offline", api_key="")) as url:
        browser.get(url + "/")
        browser.find_element(By.ID, "check").click()
        assert browser.find_element(By.ID, "status").text == "Paste a text to check first."


class OneWebResult:
    """A web evidence backend (named 'web', as Tavily's is) with one result whose page lives at `url`."""

    name = "web"

    def __init__(self, url: str) -> None:
        self.url = url

    async def search(self, query: str, *, limit: int) -> list:
        from veracity.contracts import SearchHit

        return [SearchHit(title="Bridge news", url=self.url, text="The Sydney Harbour Bridge opened in 1932.")]


def test_a_verdict_its_page_does_not_confirm_is_labelled_so(browser, fake_pages) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.fakes import claims_reply, verdict_reply
    from tests.integration.conftest import Page
    from veracity.testing import ScriptedChatModel, prompt_text

    claim = "The Sydney Harbour Bridge opened in 1932."
    fake_pages.pages["/bridge"] = Page("<html><body><article><p>This story has been taken down.</p></article>"
                                       "</body></html>")
    model = ScriptedChatModel(responder=lambda messages: (
        claims_reply((claim, claim)) if "Text to split" in prompt_text(messages)
        else verdict_reply("supported", "c1-e1", "The Sydney Harbour Bridge opened in 1932")))
    app = create_app(model=model, backend=OneWebResult(fake_pages.base_url + "/bridge"), api_key="",
                     page_allowed_networks="127.0.0.1")
    with serving(app) as url:
        browser.get(url + "/")
        browser.find_element(By.ID, "text").send_keys(claim)
        browser.find_element(By.ID, "check").click()
        WebDriverWait(browser, 60).until(lambda b: b.find_element(By.ID, "status").text in {"done"}
                                         or b.find_element(By.ID, "status").text.startswith("error"))
        [row] = browser.find_elements(By.CSS_SELECTOR, "#verdicts tbody tr")
        assert row.find_element(By.CLASS_NAME, "label").text == "supported (citation not verified on the page)"
        assert "page: not found" in row.find_elements(By.TAG_NAME, "td")[2].text
        assert fake_pages.hits["/bridge"] == 1


def test_skipped_statements_are_listed_with_their_reasons(browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    text = ("Thanks for reaching out! The Eiffel Tower was completed in 1889. Is the museum open on Sundays? "
            "Paris is the most beautiful city in Europe. The Lakers will win the championship.")
    with serving(create_app(model="offline", search="kb", api_key="")) as url:
        browser.get(url + "/")
        browser.find_element(By.ID, "text").send_keys(text)
        Select(browser.find_element(By.ID, "mode")).select_by_value("offline")
        browser.find_element(By.ID, "check").click()
        WebDriverWait(browser, 90).until(lambda b: b.find_element(By.ID, "status").text in {"done"}
                                         or b.find_element(By.ID, "status").text.startswith("error"))
        assert browser.find_element(By.ID, "status").text == "done"
        assert len(browser.find_elements(By.CSS_SELECTOR, "#verdicts tbody tr")) == 1
        items = browser.find_elements(By.CSS_SELECTOR, "#skipped li")
        assert browser.find_element(By.ID, "skipped").is_displayed()
        assert [(item.get_attribute("data-reason"), item.text) for item in items] == [
            ("courtesy", "“Thanks for reaching out” — courtesy: courtesy, not a claim"),
            ("question", "“Is the museum open on Sundays” — question: a question, not a statement"),
            ("opinion", "“Paris is the most beautiful city in Europe” — opinion: an opinion or value judgement, "
                        "not a checkable fact"),
            ("prediction", "“The Lakers will win the championship” — prediction: a prediction about the future, "
                           "not yet checkable"),
        ]


def checked_against_source(browser, text: str, source: str):
    """Check `text` against `source` offline in the page; the one verdict row."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    with serving(create_app(model="offline", api_key="")) as url:
        browser.get(url + "/")
        browser.find_element(By.ID, "text").send_keys(text)
        browser.find_element(By.ID, "source").send_keys(source)
        Select(browser.find_element(By.ID, "mode")).select_by_value("offline")
        browser.find_element(By.ID, "check").click()
        WebDriverWait(browser, 90).until(lambda b: b.find_element(By.ID, "status").text in {"done"}
                                         or b.find_element(By.ID, "status").text.startswith("error"))
        assert browser.find_element(By.ID, "status").text == "done"
        [row] = browser.find_elements(By.CSS_SELECTOR, "#verdicts tbody tr")
        return row


def test_a_held_back_verdict_shows_its_closest_quote_beside_its_lean(browser) -> None:
    from selenium.webdriver.common.by import By

    row = checked_against_source(browser, "You can return the package within 30 days.",
                                 "The customer may return a package within 14 days of the delivery date.")
    assert re.fullmatch(r"unverifiable, leans refuted, 0\.\d\d", row.find_element(By.CLASS_NAME, "label").text)
    closest = row.find_element(By.CSS_SELECTOR, "blockquote.closest").text
    assert closest.startswith("closest: “") and "14 days" in closest, closest


def test_the_differing_words_are_marked_and_the_correction_shown(browser) -> None:
    from selenium.webdriver.common.by import By

    row = checked_against_source(browser, "The capital of Provence is Lyon.", "The capital of Provence is Marseille.")
    assert [mark.text for mark in row.find_elements(By.CSS_SELECTOR, "blockquote mark")] == ["Marseille"]
    assert row.find_element(By.CSS_SELECTOR, "small.difference").text == \
        "by the source: The capital of Provence is Marseille."
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "web-page-difference.png"))


def test_the_page_shows_each_confidence_as_the_command_line_does(browser, monkeypatch) -> None:
    """0.9388 reads "0.93" on the page as on the command line (the page showed "0.94"); 0.935 and 0.925 too."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    import veracity.server.app
    from tests.unit.test_confidence_text import SHOWN, TEXT, report

    async def fixed(_self, _text, on_progress=None, **_settings):
        written = report()
        for claim, verdict in zip(written.claims, written.verdicts, strict=True):
            if on_progress is not None:
                from veracity.progress import ProgressEvent

                on_progress(ProgressEvent(kind="verdict", claim=claim, verdict=verdict))
        return written

    monkeypatch.setattr(veracity.server.app.Checker, "acheck", fixed)
    with serving(create_app(model="offline", api_key="")) as url:
        browser.get(url + "/")
        browser.find_element(By.ID, "text").send_keys(TEXT)
        browser.find_element(By.ID, "check").click()
        WebDriverWait(browser, 30).until(lambda b: b.find_element(By.ID, "status").text in {"done"}
                                         or b.find_element(By.ID, "status").text.startswith("error"))
        rows = browser.find_elements(By.CSS_SELECTOR, "#verdicts tbody tr")
        assert [row.find_element(By.CLASS_NAME, "label").text for row in rows] == list(SHOWN.values())
