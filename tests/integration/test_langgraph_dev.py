"""`langgraph dev` serves the graph from langgraph.json, offline: a real server process driven by langgraph-sdk."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.schema import StreamPart

ROOT = Path(__file__).resolve().parents[2]
POLICY = "Returns within 14 days. Return shipping costs 5 dollars."
ANSWER = "You can return it within 30 days. Return shipping costs 5 dollars."
HELD_AND_SUPPORTED = [("unverifiable", "refuted"), ("supported", None)]
"""The 30-day promise leans refuted (no offline refutation is certified at 0.90); the other claim is supported."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`langgraph dev` on a free loopback port, logs outside the repository; stopped by its PID."""
    port = free_port()
    log = tmp_path_factory.mktemp("langgraph-dev") / "server.log"
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true",
           "LANGSMITH_TRACING": "false"}
    env.pop("OPENAI_API_KEY", None)
    env.pop("TAVILY_API_KEY", None)
    command = [str(Path(sys.executable).with_name("langgraph")), "dev", "--port", str(port), "--host", "127.0.0.1",
               "--no-browser", "--no-reload"]
    with log.open("w") as output:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"langgraph dev exited with {process.returncode}:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(url + "/ok", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"langgraph dev did not answer in 120 s:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


async def stream_a_check(url: str, *, subgraphs: bool) -> tuple[list[StreamPart], dict]:
    """A thread, a run streamed with updates and custom (as Studio and SDK clients do), then the thread's state."""
    client = get_client(url=url)
    thread = await client.threads.create()
    parts = [part async for part in client.runs.stream(
        thread["thread_id"], "factcheck", input={"text": ANSWER},
        context={"model": "offline", "source_text": POLICY}, stream_mode=["updates", "custom"],
        stream_subgraphs=subgraphs)]
    state = await client.threads.get_state(thread["thread_id"])
    return parts, state


def verdicts_heard(parts: list[StreamPart]) -> list[tuple[str, tuple[str, str | None]]]:
    """Each `verdict` progress event on a custom stream (`veracity.ProgressEvent`, as JSON), in arrival order."""
    return [(part.data["claim"]["id"], (part.data["verdict"]["label"], part.data["verdict"]["leaning"]))
            for part in parts if part.event.split("|")[0] == "custom" and part.data["kind"] == "verdict"]


def test_a_thread_streams_per_claim_steps_and_ends_with_the_report(dev_server: str) -> None:
    parts, state = asyncio.run(stream_a_check(dev_server, subgraphs=True))
    updates = [(part.event, next(iter(part.data))) for part in parts if part.event.startswith("updates")]
    per_claim = [node for event, node in updates if event.startswith("updates|check_claim:")]
    assert per_claim.count("verdict_gate") == 2  # each claim's branch reports its own steps
    nodes = [node for _event, node in updates]
    assert nodes[0] == "extract_claims" and nodes[-1] == "finalize_report"
    report = state["values"]["report"]
    assert report["mode"] == "offline+source"
    assert [(v["label"], v["leaning"]) for v in report["verdicts"]] == HELD_AND_SUPPORTED
    progress = [part.data for part in parts if part.event.startswith("custom")]
    assert [event["kind"] for event in progress][:2] == ["extracting", "claims"]
    assert sorted(verdicts_heard(parts)) == list(zip(("c1", "c2"), HELD_AND_SUPPORTED, strict=True))  # once each


def test_each_verdict_reaches_the_custom_stream_without_streaming_subgraphs(dev_server: str) -> None:
    """The SDK's default (no `stream_subgraphs`): each claim's verdict still arrives, once, as its branch reaches it."""
    parts, _state = asyncio.run(stream_a_check(dev_server, subgraphs=False))
    assert all("|" not in part.event for part in parts)  # nothing from inside the subgraph was asked for
    assert sorted(verdicts_heard(parts)) == list(zip(("c1", "c2"), HELD_AND_SUPPORTED, strict=True))
    steps = [part.data["kind"] if part.event == "custom" else next(iter(part.data))
             for part in parts if part.event in ("custom", "updates")]
    heard = [position for position, step in enumerate(steps) if step == "verdict"]
    landed = [position for position, step in enumerate(steps) if step == "check_claim"]  # a branch's result
    assert len(heard) == len(landed) == 2
    assert all(verdict < result for verdict, result in zip(heard, landed, strict=True))  # as each branch ends
    assert steps[-2:] == ["evaluate_report", "finalize_report"]  # so all of them before the report


def test_the_http_app_is_mounted_beside_the_graph(dev_server: str) -> None:
    assert httpx.get(dev_server + "/healthz").json()["status"] == "ok"
    found = httpx.post(dev_server + "/assistants/search", json={"graph_id": "factcheck"}, timeout=10)
    assert [a["graph_id"] for a in found.json()] == ["factcheck"]  # the platform's own routes still answer
    invoked = httpx.post(dev_server + "/factcheck/invoke", timeout=60,
                         json={"input": {"text": ANSWER, "source_text": POLICY}})
    assert [(v["label"], v["leaning"]) for v in invoked.json()["output"]["verdicts"]] == HELD_AND_SUPPORTED


def test_studio_shows_the_context_as_editable_fields(dev_server: str) -> None:
    async def schemas() -> dict:
        client = get_client(url=dev_server)
        [assistant] = await client.assistants.search(graph_id="factcheck")
        return await client.assistants.get_schemas(assistant["assistant_id"])

    fields = asyncio.run(schemas())["context_schema"]["properties"]
    assert {"model", "search", "source_text", "max_revisions", "max_results", "judge_prompt"} <= set(fields)
    assert fields["max_revisions"]["default"] == 2 and "description" in fields["model"]
