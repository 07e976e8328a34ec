"""Calling a chat model: made from settings, asked for a structured answer, its answer capped.

`models` makes a chat model from a 'provider:model' string; `calls` asks it for a structured
answer within a time limit; `caps` bounds how many tokens that answer may take, `request_schema`
how long its fields may be, and `response_limit` how many bytes its HTTP response may carry.
"""
