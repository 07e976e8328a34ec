"""Page verification without the network: which addresses are fetched, and how a quote is found on a page."""

from __future__ import annotations

import ipaddress

import pytest

from veracity.pages.addresses import AddressPolicy, AddressRefused
from veracity.pages.match import quote_on_page, words_in_order

QUOTE = "The bridge was opened to traffic on 19 March 1932 after eight years of work"


@pytest.mark.parametrize("address", ["127.0.0.1", "10.1.2.3", "172.16.0.9", "192.168.1.1", "169.254.169.254",
                                     "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00:ec2::254", "::ffff:127.0.0.1",
                                     "224.0.0.1"])
def test_non_public_addresses_are_refused(address: str) -> None:
    assert AddressPolicy().refusal(ipaddress.ip_address(address)) is not None


def test_public_addresses_pass_and_allowed_networks_open_a_door() -> None:
    assert AddressPolicy().refusal(ipaddress.ip_address("93.184.216.34")) is None
    assert AddressPolicy().refusal(ipaddress.ip_address("2606:2800:220:1::1")) is None
    policy = AddressPolicy.parse("127.0.0.1, 10.0.0.0/8")
    assert policy.refusal(ipaddress.ip_address("127.0.0.1")) is None
    assert policy.refusal(ipaddress.ip_address("10.200.0.1")) is None
    assert "link-local" in (policy.refusal(ipaddress.ip_address("169.254.169.254")) or "")
    with pytest.raises(ValueError, match="not an address"):
        AddressPolicy.parse("localhost")


async def test_a_literal_address_is_checked_without_resolving() -> None:
    with pytest.raises(AddressRefused, match="loopback"):
        await AddressPolicy().checked_address("[::1]", 80)
    assert await AddressPolicy.parse("127.0.0.1").checked_address("127.0.0.1", 80) == "127.0.0.1"


def test_tags_entities_dashes_curly_quotes_and_nbsp_do_not_hide_a_quote() -> None:
    page = ("<p>The bridge was <b>opened</b> to traffic on 19&nbsp;March\u00a01932 after eight years "
            "of work \u2013 the \u201clargest\u201d arch.</p>")
    assert quote_on_page(QUOTE, page) == ("verified_live", 1.0)
    assert quote_on_page('eight years of work - the "largest" arch', page)[0] == "verified_live"


def test_a_snippet_that_elided_words_is_a_fragment_and_a_reworded_one_partial() -> None:
    page = "The bridge was opened to traffic on 19 March 1932, after almost eight full years of hard work by many."
    assert quote_on_page(QUOTE, page)[0] == "verified_fragment"
    reworded = "The bridge opened on 19 March 1932; building it took most of a decade of work."
    outcome, share = quote_on_page(QUOTE, reworded)
    assert outcome == "partial" and 0.5 <= share < 0.8
    assert quote_on_page(QUOTE, "A page about something else entirely, with a bridge in it.")[0] == "not_found"


def test_words_must_come_in_order_within_a_short_stretch() -> None:
    quote = "a b c d e".split()
    assert words_in_order(quote, "x a b c d e y".split()) == 1.0
    assert words_in_order(quote, "e d c b a".split()) == pytest.approx(0.2)
    far_apart = ["a", "b"] + ["z"] * 50 + ["c", "d", "e"]
    assert words_in_order(quote, far_apart) == pytest.approx(0.6)  # "c d e" together; "a b" are too far off
