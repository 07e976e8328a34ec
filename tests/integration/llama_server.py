"""Serve a GGUF model on 127.0.0.1 with llama.cpp's OpenAI-compatible server (the `xllamacpp` wheel).

Run as a child process by the `local_model` fixture: ``python tests/llm/llama_server.py MODEL.gguf``.
It prints ``READY <base url>`` once the model is loaded, then serves until its standard input
closes, so it never outlives the test session that started it. llama.cpp's own log goes to
standard error.
"""

from __future__ import annotations

import argparse
import sys


def main() -> None:
    """Load the model, announce the address, and serve until stdin closes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="path of the .gguf file")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: any free port)")
    parser.add_argument("--ctx", type=int, default=4096, help="context window in tokens (default 4096)")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    args = parser.parse_args()

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    server = xllamacpp.Server(params)
    print(f"READY {server.listening_address}", flush=True)
    sys.stdin.read()  # returns when the parent closes the pipe or exits


if __name__ == "__main__":
    main()
