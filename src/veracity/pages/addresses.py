"""Which network addresses a page fetch may connect to: the guard against server-side request forgery.

A cited URL comes from a search engine, that is from the open web, so it may name an address
inside the network veracity runs in (a metadata service, an admin console on 10.x, the
machine itself). Only globally routable addresses are fetched, unless the configuration
allows a network explicitly (tests allow loopback this way). A host name is resolved first and
every address it resolves to must be allowed; the fetch then connects to the address that was
checked, so a second, different DNS answer cannot slip past.

An IPv6 address that carries an IPv4 address (IPv4-mapped and -compatible, SIIT, NAT64, 6to4,
Teredo) is judged by the IPv4 address it carries too: ``[::127.0.0.1]`` is loopback.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass

from veracity.setting_rules import parse_networks

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_LOW_32_BITS = (ipaddress.IPv6Network("::/96"), ipaddress.IPv6Network("::ffff:0:0:0/96"),
                ipaddress.IPv6Network("64:ff9b::/96"))
"""IPv4-compatible, IPv4-translated (SIIT) and well-known NAT64 addresses: the IPv4 address is the last 32 bits."""
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")
"""Local-use NAT64 (its IPv4 address may sit at several places): never public."""


class AddressRefused(Exception):
    """The URL's host is, or resolves to, an address the policy does not allow; the message says which."""


@dataclass(frozen=True)
class AddressPolicy:
    """Globally routable addresses only, plus the networks in `allowed`."""

    allowed: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, text: str | None) -> AddressPolicy:
        """A policy from comma-separated addresses or networks, e.g. ``"127.0.0.1,10.0.0.0/8"``.

        Read as `Context.page_allowed_networks` is checked (`veracity.setting_rules.parse_networks`).
        """
        return cls(parse_networks(text))

    def refusal(self, address: IPAddress) -> str | None:
        """Why `address` may not be fetched, or None when it may."""
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if self._allows(address):
            return None
        kind = _non_public_kind(address)
        if kind is not None:
            return f"{address} is {kind} address"
        for inner in embedded_ipv4(address):
            inner_kind = None if self._allows(inner) else _non_public_kind(inner)
            if inner_kind is not None:
                return f"{address} carries {inner}, {inner_kind} address"
        return None

    def _allows(self, address: IPAddress) -> bool:
        return any(address in network for network in self.allowed if network.version == address.version)

    async def checked_address(self, host: str, port: int) -> str:
        """The address to connect to for `host`: every address it resolves to must be allowed."""
        try:
            literal: IPAddress | None = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None:
            addresses = [literal]
        else:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except socket.gaierror as exc:
                raise AddressRefused(f"cannot resolve {host}: {exc.strerror or exc}") from exc
            addresses = list(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos))
        for address in addresses:
            problem = self.refusal(address)
            if problem:
                raise AddressRefused(f"{host} is not fetched: {problem}")
        if not addresses:
            raise AddressRefused(f"{host} resolves to no address")
        return str(addresses[0])


def embedded_ipv4(address: IPAddress) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address carries (none for an IPv4 address or a plain IPv6 one)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return ()
    if address.ipv4_mapped is not None:
        return (address.ipv4_mapped,)
    if address.sixtofour is not None:
        return (address.sixtofour,)
    if address.teredo is not None:
        return address.teredo
    if any(address in network for network in _LOW_32_BITS) and int(address) > 1:  # :: and ::1 are IPv6's own
        return (ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF),)
    return ()


def _non_public_kind(address: IPAddress) -> str | None:
    """What kind of non-public address `address` is ("a loopback", ...), or None when it is public."""
    if address.is_global and not address.is_multicast and address not in _LOCAL_NAT64:
        return None
    return ("a loopback" if address.is_loopback else "a link-local (cloud metadata)" if address.is_link_local
            else "a private" if address.is_private else "an unspecified" if address.is_unspecified
            else "a multicast" if address.is_multicast else "a non-public")
