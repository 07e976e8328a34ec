"""A persistent cache of chat-model answers and web searches, so an identical second check costs nothing.

One SQLite file (LangGraph's `SqliteCache`, which keeps each entry's expiry) holds both kinds:
model answers through LangChain's cache interface (`ModelCallCache`, keyed by the model's
settings and the exact prompt), web searches through a wrapper around the search backend
(`CachedSearch`, keyed by backend, endpoint, query and limit, kept 7 days by default). Each
cached call notes a hit or a miss (`veracity.cache_outcomes`), which the trace records per call. Entries
are plain JSON of known shapes (`serializer.py`, `entries.py`), each bound to its key by a keyed
digest (`binding.py`): an entry of any other encoding or shape, or whose digest does not hold
(edited, forged, or copied from another key), is never used, only logged, dropped and treated
as a miss.

Why not a node-level `CachePolicy`: a LangGraph node cache is keyed on the node's input state
only, not on the run's context (model, backend, result limit), and it replays the node's whole
output, including its trace records and claim ids from the run that filled it. Caching the
calls themselves keeps every key exact and every trace true to the run that reads it.
"""

from veracity.cache.model_calls import ModelCallCache
from veracity.cache.searches import CachedSearch
from veracity.cache.store import CACHE_ENV, CacheStats, CacheStore, default_cache_path, open_store
from veracity.cache_outcomes import CacheOutcome, observe_cache

__all__ = [
    "CACHE_ENV",
    "CacheOutcome",
    "CacheStats",
    "CacheStore",
    "CachedSearch",
    "ModelCallCache",
    "default_cache_path",
    "observe_cache",
    "open_store",
]
