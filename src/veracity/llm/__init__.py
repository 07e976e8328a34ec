"""Calling a chat model: made from settings, asked for a structured answer, its answer capped.

`models` makes a chat model from a 'provider:model' string; `calls` asks it for a structured
answer, and `stalls` limits how long the call may take (a model that stalls is waited for once per
check); `caps` bounds how many tokens that answer may take, `request_schema` how long its fields may
be, and `response_limit` how many bytes its HTTP response may carry. `probe` finds a dead endpoint
before the first call.
"""
