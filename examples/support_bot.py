"""A support bot whose answers must stay within the return policy, guarded by veracity.

The bot is a one-node LangGraph agent. Its answer is checked against the policy text before
the customer sees it; with ``--policy rewrite`` an answer that promises more than the policy
allows goes back to the bot once, with the unsupported phrases quoted.

With no ``--model`` the bot is scripted: it first answers warmly with a promise the policy
does not make, then, asked to rewrite, sticks to the policy. The check itself runs offline.

    python examples/support_bot.py
    python examples/support_bot.py --policy annotate
    python examples/support_bot.py --model openai:gpt-4.1-mini "Can I return my blender after 20 days?"
"""

from __future__ import annotations

import argparse

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import START, MessagesState, StateGraph

from veracity.agents import POLICIES, Guard
from veracity.testing import ScriptedChatModel

RETURN_POLICY = (
    "The customer may return a package within 14 days of the delivery date. "
    "After that period, returns are not accepted."
)
QUESTION = "My package arrived 20 days ago and I don't like it. Can I still send it back?"
SCRIPTED_REPLIES = (
    "I'm so sorry to hear that! Even though it has been more than 14 days since delivery, "
    "don't worry, we'll find some solution for you.",
    "I'm sorry for the trouble. You can return the package within 14 days of the delivery date. "
    "After that, returns are not accepted.",
)


def scripted_bot() -> ScriptedChatModel:
    """A stand-in for a chat model: a warm promise first, a faithful answer when asked again."""
    replies = list(SCRIPTED_REPLIES)
    return ScriptedChatModel(responder=lambda messages: replies.pop(0) if len(replies) > 1 else replies[0])


def support_agent(model: BaseChatModel):
    """A one-node LangGraph agent that answers with the policy in its system prompt."""
    system = SystemMessage(f"You are a friendly support agent. Our return policy: {RETURN_POLICY}")

    def answer(state: MessagesState) -> dict:
        return {"messages": [model.invoke([system, *state["messages"]])]}

    graph = StateGraph(MessagesState)
    graph.add_node("answer", answer)
    graph.add_edge(START, "answer")
    return graph.compile()


def main(argv: list[str] | None = None) -> int:
    """Ask the bot a question and print what the guard did."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("question", nargs="?", default=QUESTION)
    parser.add_argument("--model", default=None,
                        help="the bot's chat model, e.g. openai:gpt-4.1-mini (default: scripted)")
    parser.add_argument("--policy", choices=POLICIES, default="rewrite",
                        help="what the guard does with a failing answer")
    args = parser.parse_args(argv)

    if args.model:
        from langchain.chat_models import init_chat_model

        model = init_chat_model(args.model)
    else:
        model = scripted_bot()
    guard = Guard(support_agent(model), policy=args.policy, model="offline", source_text=RETURN_POLICY)
    result = guard.invoke({"messages": [HumanMessage(args.question)]})
    print(f"customer: {args.question}")
    if result.original != result.answer:
        print(f"bot (first answer, not shown to the customer): {result.original}")
    print(f"guard: {result.action}")
    print(f"bot: {result.answer}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
