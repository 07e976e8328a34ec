"""`BoundedMemory`: least recently used forgotten first, nothing kept at size 0, safe across threads."""

from __future__ import annotations

import threading

from veracity.bounded_memory import BoundedMemory


def test_the_least_recently_used_is_forgotten_first() -> None:
    memory: BoundedMemory[str, int] = BoundedMemory(2)
    memory.put("a", 1)
    memory.put("b", 2)
    assert memory.get("a") == 1  # reading makes "a" the most recent
    memory.put("c", 3)
    assert memory.get_many(["a", "b", "c"]) == [1, None, 3]
    memory.put_many([("b", 4), ("a", 5)])  # writing an existing key refreshes it too
    assert memory.get_many(["a", "b", "c"]) == [5, 4, None] and len(memory) == 2
    memory.clear()
    assert len(memory) == 0 and memory.get("a") is None
    assert memory.hits == 5  # "a" once, then "a" and "c", then "a" and "b": each ask that found its value


def test_size_zero_remembers_nothing() -> None:
    memory: BoundedMemory[str, int] = BoundedMemory(0)
    memory.put("a", 1)
    assert memory.get("a") is None and len(memory) == 0


def test_threads_writing_at_once_never_exceed_the_size() -> None:
    memory: BoundedMemory[int, int] = BoundedMemory(100)

    def writer(offset: int) -> None:
        for key in range(offset, offset + 1000):
            memory.put(key, key)
            memory.get(key - 1)

    threads = [threading.Thread(target=writer, args=(n * 1000,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(memory) == 100
    found = memory.get_many(list(range(4000)))
    assert all(value is None or value == key for key, value in enumerate(found))
    assert sum(value is not None for value in found) == 100
