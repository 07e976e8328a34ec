"""A LangGraph agent that fact-checks its draft answer with veracity's MCP tools before it answers.

The tools come from `veracity mcp` (started over stdio by langchain-mcp-adapters) or, with ``--url``,
from a running `veracity serve` at ``/mcp`` (its token in VERACITY_MCP_TOKEN). The agent calls
`check_text` on its draft against the return policy and reads the structured result: each claim's
label, quote and the corrected claim the judge proposes.

With no ``--model`` the agent's chat model is scripted: it drafts a promise the policy does not make,
checks it, and answers with the judge's correction. The check itself runs offline.

    python examples/mcp_agent.py
    python examples/mcp_agent.py --url http://127.0.0.1:8000/mcp
    python examples/mcp_agent.py --model openai:gpt-4.1-mini
"""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.sessions import Connection

from veracity.testing import ScriptedChatModel

RETURN_POLICY = (
    "The customer may return a package within 14 days of the delivery date. "
    "After that period, returns are not accepted."
)
QUESTION = "How long do I have to return my package?"
DRAFT = "You can return the package within 30 days of the delivery date."
SYSTEM_PROMPT = (
    "You answer questions about our return policy. Before you answer, check your draft with the check_text tool, "
    f"passing the policy as source_text. Answer only with what the check supports. Policy: {RETURN_POLICY}"
)

STDIO: Connection = {"transport": "stdio", "command": "veracity", "args": ["mcp", "--model", "offline"]}


def over_http(url: str, token: str | None) -> Connection:
    """The connection to `veracity serve`'s MCP endpoint at `url`, with its bearer token."""
    return {"transport": "streamable_http", "url": url,
            "headers": {"Authorization": f"Bearer {token}"} if token else None}


async def fact_checked_answer(question: str, model: BaseChatModel | str, connection: Connection) -> list[BaseMessage]:
    """Ask the agent `question`; it checks its draft with veracity's tools. Returns the conversation."""
    client = MultiServerMCPClient({"veracity": connection})
    tools = await client.get_tools()
    agent = create_agent(model, tools, system_prompt=SYSTEM_PROMPT)
    state = await agent.ainvoke({"messages": [("user", question)]})
    return list(state["messages"])


def checked(conversation: list[BaseMessage]) -> dict[str, Any]:
    """The structured result of the agent's last `check_text` call (the tool message's artifact)."""
    message = next(m for m in reversed(conversation) if isinstance(m, ToolMessage) and m.name == "check_text")
    return dict(message.artifact["structured_content"])


def scripted_model() -> ScriptedChatModel:
    """A stand-in for a chat model: it checks its draft, then answers with what the check found."""

    def respond(messages: list[BaseMessage]) -> AIMessage:
        last = messages[-1]
        if not isinstance(last, ToolMessage):
            call = {"name": "check_text", "args": {"text": DRAFT, "source_text": RETURN_POLICY}, "id": "check-1",
                    "type": "tool_call"}
            return AIMessage(content="", tool_calls=[call])
        result = last.artifact["structured_content"]
        if result["passed"]:
            return AIMessage(content=DRAFT)
        wrong = [claim for claim in result["claims"] if claim["label"] != "supported"]
        fixed = [claim["corrected_claim"] or claim["quote"] for claim in wrong]
        return AIMessage(content=" ".join(filter(None, fixed)) or "I cannot confirm that; please see the policy.")

    return ScriptedChatModel(responder=respond)


def main(argv: list[str] | None = None) -> int:
    """Ask the agent the question and print what its check found and what it answered."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("question", nargs="?", default=QUESTION)
    parser.add_argument("--url", help="a running `veracity serve`'s MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    parser.add_argument("--model", help="the agent's chat model, e.g. openai:gpt-4.1-mini (default: scripted)")
    args = parser.parse_args(argv)
    connection = over_http(args.url, os.environ.get("VERACITY_MCP_TOKEN")) if args.url else STDIO
    conversation = asyncio.run(fact_checked_answer(args.question, args.model or scripted_model(), connection))
    result = checked(conversation)
    print(f"check: {result['outcome']} ({result['summary']['claims']} claim(s))")
    for claim in result["claims"]:
        print(f"  {claim['shown_label']}: {claim['text']} (evidence: {claim['quote']!r})")
    print(f"agent: {conversation[-1].text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
