"""Loopback fakes of the OpenAI Chat Completions API shared by the fault benchmarks.

`LoopbackServer` answers POSTs on 127.0.0.1 from a function; `good_model_reply` is what a
well-behaved model answers to veracity's extraction and judge prompts, and `completion` wraps it
as a chat-completions response (as tool-call arguments when tools were asked for).
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EXTRACTION_MARKER = "Text to split into claims"
"""Text in the extraction prompt that tells the fake model which step is asking."""
TEXT_LINE = re.compile(r"Text to split into claims[^\n]*\n(.*)", re.DOTALL)
CLAIM_LINE = re.compile(r"^Claim: (.*)$", re.MULTILINE)
EVIDENCE_ITEM = re.compile(r"^<<<evidence (c\d+-e\d+) (\w+)>>>[^\n]*\n(.*?)\n<<<end of evidence \1 \2>>>",
                           re.MULTILINE | re.DOTALL)


class QuietHTTPServer(ThreadingHTTPServer):
    """A threaded HTTP server that does not print a traceback when a client drops its connection."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Print what went wrong, unless the client simply went away."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 whose POSTs are answered by `answer(path, body, handler)`."""

    def __init__(self, answer: Callable[[str, Any, BaseHTTPRequestHandler], None]) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.answer(self.path, json.loads(raw or b"null"), self)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.answer = answer
        self.httpd = QuietHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def url(self) -> str:
        """The server's root URL."""
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, *, declared: int | None = None) -> None:
    """Write a response; `declared` > len(body) makes it a truncated one (the connection then closes)."""
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(declared if declared is not None else len(body)))
    if status == 429:
        handler.send_header("Retry-After", "0")
    handler.end_headers()
    handler.wfile.write(body)
    if declared is not None:
        handler.close_connection = True


def prompt_of(body: dict[str, Any]) -> str:
    """The whole prompt text of a chat-completions request."""
    parts = []
    for message in body.get("messages", []):
        content = message.get("content") or ""
        parts.append("".join(p.get("text", "") for p in content if isinstance(p, dict))
                     if isinstance(content, list) else str(content))
    return "\n".join(parts)


def good_model_reply(prompt: str) -> dict[str, Any]:
    """What a well-behaved model answers: claims for an extraction prompt, a cited verdict for a judge one."""
    if EXTRACTION_MARKER in prompt:
        match = TEXT_LINE.search(prompt)
        text = match.group(1) if match else prompt
        sentences = re.findall(r"[A-Z][^.]*\.", text)
        return {"claims": [{"claim": s, "source": s} for s in sentences if s in text]}
    claim = CLAIM_LINE.search(prompt)
    items = EVIDENCE_ITEM.findall(prompt)
    if claim is None or not items:
        return {"label": "unverifiable", "reason": "no evidence", "evidence_id": None, "quote": None}
    evidence_id, _, text = items[0]
    quote = claim.group(1) if claim.group(1) in text else text.strip().split("\n")[0][:80]
    return {"label": "supported", "reason": "the evidence states it", "evidence_id": evidence_id, "quote": quote}


def completion(body: dict[str, Any], content: str | None) -> bytes:
    """A chat-completions response carrying `content` (as tool-call arguments when tools were asked for)."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    finish = "stop"
    if body.get("tools") and "response_format" not in body:
        function = {"name": body["tools"][0]["function"]["name"], "arguments": content or ""}
        message.update(content=None, tool_calls=[{"id": "call_1", "type": "function", "function": function}])
        finish = "tool_calls"
    return json.dumps({
        "id": "chatcmpl-fault", "object": "chat.completion", "created": 1_700_000_000, "model": body.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }).encode()


