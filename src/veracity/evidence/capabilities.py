"""What an evidence backend is, declared as data: the steps after a search read this, never a backend's name.

Each backend class states its `Capabilities` (`TavilyBackend.capabilities` and so on); evidence
items carry only their backend's name, which `veracity.resources.capabilities_of` maps
back to the declaration. The search kinds a run can name are here too, defined once for
`Context`, the CLI and the server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

DefaultSearch = Literal["auto", "web", "kb"]
"""A search that can be the default of many checks (a server's, an evaluation's): any kind but 'source',
which comes with each check's own source text."""
SearchKind = Literal[DefaultSearch, "source"]
"""The `search` setting: 'web' (Tavily), 'kb' (the local knowledge base), 'source' (only the source text), or
'auto' to let `veracity.resources.resolve_mode` choose."""
SourceSearch = Literal["auto", "source"]
"""The search settings that agree with a source text: with either, the evidence is that source."""

SEARCH_KINDS: tuple[SearchKind, ...] = get_args(SearchKind)
"""Every search kind, in order (the CLI's and the server's choices)."""
DEFAULT_SEARCHES: tuple[DefaultSearch, ...] = get_args(DefaultSearch)
"""The search kinds a server or an evaluation can take as its default."""


@dataclass(frozen=True)
class Capabilities:
    """What an evidence backend is, as the steps that use its evidence need to know it.

    A backend declares it as its `capabilities` attribute; one that declares nothing is plain
    passages, like the knowledge base's.
    """

    pages_to_fetch: bool = False
    """Its hits are pages of the web, cited by URL: a decisive verdict's cited page is fetched and its quote
    looked for there, and a supported verdict whose pages all come from one site is marked single-source."""
    counter_search: bool = False
    """A second query, worded to find evidence against the claim, brings up other evidence (a search engine
    does; a fixed set of passages does not), so it runs alongside the claim's own."""
    source_text: bool = False
    """Its evidence is the user's source text: the source-mode prompts and rules apply."""


Declarations = Callable[[str], Capabilities]
"""Maps the backend name on an evidence item to what that backend declares (`Resources.capabilities_of`, which
knows the run's bound backend, or `veracity.resources.capabilities_of`)."""
