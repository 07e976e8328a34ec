"""What proof costs in wall time: page verification and the counter-evidence search, under the latency simulator.

The scenarios, chat model and delays are those of `benchmarks/latency.py` (seeded). The search
backend is named ``web`` here, so the graph treats its results as web evidence: for the claim it
answers the scenario's hits after the scenario's search delay; for the counter-evidence query
it answers nothing after a delay drawn from the same range. Each hit's URL points at a web
server on loopback that serves the hit's text as an article after a seeded delay
(``--page-min``..``--page-max``, default 0.15-0.45 s, the search's range).

Two runs per repetition, alternating, in one process:

* **plain**: ``counter_search=False, verify_pages=False`` (a web verdict on the snippet alone);
* **proof**: both on (loopback allowed for the page fetch).

The table gives medians and the ratio proof / plain; the target is <= 1.3 at 10 claims, since
the counter search runs beside the claim's own and the page fetches of all claims run at once.
Every proof run must end with all claims supported and every page ``verified_live``.

Run it (from the repository root)::

    .venv/bin/python benchmarks/proof_latency.py
    .venv/bin/python benchmarks/proof_latency.py --sizes 1,4,10 --reps 5 --seed 7
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import latency  # noqa: E402  (the simulator shared with benchmarks/latency.py)

import veracity  # noqa: E402
from veracity.contracts import SearchHit  # noqa: E402


class Pages:
    """A loopback web server: path -> (body, delay)."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[str, float]] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                body, delay = pages.get(self.path, ("missing", 0.0))
                time.sleep(delay)
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"


class WebSearch:
    """The scenario's search, as web evidence: the claim's hits (on loopback pages) or, for the counter query, none."""

    name = "web"

    def __init__(self, scenario: latency.Scenario, pages: Pages, rng: random.Random, args: argparse.Namespace):
        self.claims = {}
        self.counter_delay = {}
        for k, spec in enumerate(scenario.claims):
            hits = []
            for j, hit in enumerate(spec.hits):
                path = f"/{k}/{j}"
                pages.pages[path] = (f"<html><body><article><h1>{hit.title}</h1><p>{hit.text}</p></article>"
                                     f"</body></html>", round(rng.uniform(args.page_min, args.page_max), 4))
                hits.append(SearchHit(title=hit.title, url=pages.base + path, text=hit.text, score=hit.score))
            self.claims[spec.text] = (spec.search_delay, hits)
            self.counter_delay[spec.text] = round(rng.uniform(args.search_min, args.search_max), 4)

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """The hits for the claim, or nothing for its counter query, each after its delay."""
        if query in self.claims:
            delay, hits = self.claims[query]
            await asyncio.sleep(delay)
            return hits[:limit]
        claim = next(text for text in self.claims if text.rstrip(".") in query)
        await asyncio.sleep(self.counter_delay[claim])
        return []


async def one_run(scenario: latency.Scenario, pages: Pages, args: argparse.Namespace, rep: int, proof: bool) -> float:
    """Wall time of one check of the scenario, plain or with proof; aborts on a wrong result."""
    rng = random.Random(f"veracity-proof:{args.seed}:{len(scenario.claims)}:{rep}")
    backend = WebSearch(scenario, pages, rng, args)
    settings: dict[str, Any] = ({"page_allowed_networks": "127.0.0.1"} if proof
                                else {"counter_search": False, "verify_pages": False})
    start = time.perf_counter()
    report = await veracity.acheck(scenario.text, model=latency.make_model(scenario), backend=backend,
                                   search_backoff=0.01, **settings)
    wall = time.perf_counter() - start
    n = len(scenario.claims)
    if report.summary.supported != n or (proof and not all(v.page and v.page.outcome == "verified_live"
                                                           for v in report.verdicts)):
        raise SystemExit(f"run went wrong: {report.summary} {[v.page for v in report.verdicts][:2]}")
    return wall


async def main_async(args: argparse.Namespace) -> int:
    """Run every size, print the table; 1 when the 10-claim ratio misses the target."""
    pages = Pages()
    warm = latency.make_scenario(args.seed, 2, -1, args)  # imports and first connections, not timed
    await one_run(warm, pages, args, -1, proof=True)
    print("| N | plain wall (s) | proof wall (s) | proof / plain | extra per claim (ms) |\n|---:|---:|---:|---:|---:|")
    missed = False
    for n in (int(size) for size in args.sizes.split(",")):
        plain, proof = [], []
        for rep in range(args.reps):
            scenario = latency.make_scenario(args.seed, n, rep, args)
            plain.append(await one_run(scenario, pages, args, rep, proof=False))
            proof.append(await one_run(scenario, pages, args, rep, proof=True))
        p, q = statistics.median(plain), statistics.median(proof)
        ratios = [b / a for a, b in zip(plain, proof, strict=True)]
        ratio = statistics.median(ratios)
        print(f"| {n} | {p:.3f} | {q:.3f} | {ratio:.2f} | {(q - p) / n * 1000:.0f} |", flush=True)
        missed |= n == 10 and ratio > 1.3
    return 1 if missed else 0


def main() -> None:
    """Parse the simulator's arguments plus the page delays, and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1,4,10")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--ttft", type=float, default=0.25)
    parser.add_argument("--token-delay", type=float, default=0.004)
    parser.add_argument("--search-min", type=float, default=0.15)
    parser.add_argument("--search-max", type=float, default=0.45)
    parser.add_argument("--reason-min", type=int, default=8)
    parser.add_argument("--reason-max", type=int, default=60)
    parser.add_argument("--page-min", type=float, default=0.15)
    parser.add_argument("--page-max", type=float, default=0.45)
    sys.exit(asyncio.run(main_async(parser.parse_args())))


if __name__ == "__main__":
    main()
