"""The command line: `veracity check`, `batch`, `verify`, `ingest`, `kb`, `eval`, `serve` and `cache`."""

from __future__ import annotations

import click

from veracity.cli.batch import batch_command
from veracity.cli.cache import cache_group
from veracity.cli.check import check_command
from veracity.cli.eval import eval_command
from veracity.cli.knowledge_base import ingest_command, kb_group
from veracity.cli.serve import serve_command
from veracity.cli.verify import verify_command

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="veracity")
def main() -> None:
    """veracity: catch factual errors in text.

    Splits text into atomic claims, finds evidence for each, and judges every claim
    supported, refuted or unverifiable with a quote checked against the evidence.
    """


main.add_command(check_command, name="check")
main.add_command(batch_command, name="batch")
main.add_command(verify_command, name="verify")
main.add_command(ingest_command, name="ingest")
main.add_command(kb_group, name="kb")
main.add_command(eval_command, name="eval")
main.add_command(serve_command, name="serve")
main.add_command(cache_group, name="cache")
