"""The unit-test guard really blocks network sockets."""

import socket

import pytest
from pytest_socket import SocketBlockedError


def test_inet_sockets_are_blocked():
    with pytest.raises(SocketBlockedError):
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)


async def test_asyncio_still_runs():
    import asyncio

    assert await asyncio.sleep(0, result=42) == 42
