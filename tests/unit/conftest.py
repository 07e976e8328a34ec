"""Unit tests never touch the network: sockets are disabled (Unix sockets stay allowed for asyncio)."""

from __future__ import annotations

import pytest
from pytest_socket import disable_socket, enable_socket


@pytest.fixture(autouse=True)
def _sockets_disabled():
    disable_socket(allow_unix_socket=True)
    yield
    enable_socket()
