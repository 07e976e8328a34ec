"""Build the difference reader's WordNet tables: `src/veracity/offline/assets/lexicon/wordnet.json.gz`.

Reads the Princeton WordNet 3.0 database files as Debian installs them (no network, no NLTK):

    apt-get install wordnet-base          # puts data.noun, index.noun, noun.exc, ... in /usr/share/wordnet
    .venv/bin/python training/build_lexicon.py [--wordnet /usr/share/wordnet] [--out PATH]

The output is deterministic (sorted keys, no whitespace, gzip with mtime 0), so rebuilding from the
same WordNet files gives the same bytes. What the file holds (synset ids are dense integers, numbered
in the order noun, verb, adjective, adverb and by database offset within each):

- `synsets`: how many synsets there are; `synset_pos`: one character per synset id (n, v, a, s, r).
- `lemmas`: part of speech (n, v, a, r; satellites `s` are folded into `a`) -> lemma (lower case,
  words joined by a space) -> synset ids in WordNet's sense order (the first is the most frequent).
- `hypernyms`: a list indexed by synset id of its direct hypernyms, instance hypernyms included
  ("lyon" -> city).
- `antonyms`: lemma -> lemmas, both directions: WordNet's (lexical) antonym pointers, plus the
  indirect antonyms of adjectives (a head adjective's antonym is the antonym of its satellites' lemmas).
- `antonym_synsets`: [a, b] synset id pairs (a < b) joined by an antonym pointer between any of their
  lemmas, plus each satellite synset paired with its head's antonym synsets.
- `derived`: lemma -> lemmas, both directions: derivationally related forms (`+`) and pertainyms
  (`\\`: adjective -> noun it pertains to, adverb -> adjective it is derived from).
- `exceptions`: part of speech -> inflected form -> base forms (noun.exc, verb.exc, adj.exc, adv.exc).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "src/veracity/offline/assets/lexicon/wordnet.json.gz"
FILE_POS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}


def lemma_text(word: str) -> str:
    """WordNet's spelling of a lemma, as the tables keep it: lower case, spaces for underscores, no marker."""
    if word.endswith(")") and "(" in word:  # adjective position markers: (a), (p), (ip)
        word = word[: word.index("(")]
    return word.replace("_", " ").lower()


def read_synsets(wordnet: Path) -> tuple[dict[tuple[str, int], int], list[str], list[dict[str, object]]]:
    """Every synset of data.{noun,verb,adj,adv}: (file pos, offset) -> dense id, pos per id, parsed records."""
    ids: dict[tuple[str, int], int] = {}
    kinds: list[str] = []
    records: list[dict[str, object]] = []
    for name, file_pos in FILE_POS.items():
        for line in (wordnet / f"data.{name}").read_text(encoding="latin-1").splitlines():
            if not line or line.startswith(" "):
                continue  # the licence header
            fields = line.split(" | ", 1)[0].split()
            offset, ss_type, word_count = int(fields[0]), fields[2], int(fields[3], 16)
            words = [lemma_text(fields[4 + 2 * i]) for i in range(word_count)]
            at = 4 + 2 * word_count
            pointer_count = int(fields[at])
            pointers = []
            for i in range(pointer_count):
                symbol, target, target_pos, source_target = fields[at + 1 + 4 * i : at + 5 + 4 * i]
                pointers.append((symbol, int(target), "a" if target_pos == "s" else target_pos, source_target))
            ids[(file_pos, offset)] = len(kinds)
            kinds.append(ss_type)
            records.append({"words": words, "pointers": pointers})
    return ids, kinds, records


def read_lemmas(wordnet: Path, ids: dict[tuple[str, int], int]) -> dict[str, dict[str, list[int]]]:
    """index.{noun,...}: pos -> lemma -> synset ids in sense order."""
    lemmas: dict[str, dict[str, list[int]]] = {}
    for name, file_pos in FILE_POS.items():
        table: dict[str, list[int]] = {}
        for line in (wordnet / f"index.{name}").read_text(encoding="latin-1").splitlines():
            if not line or line.startswith(" "):
                continue
            fields = line.split()
            synset_count, pointer_count = int(fields[2]), int(fields[3])
            offsets = fields[6 + pointer_count : 6 + pointer_count + synset_count]
            table[lemma_text(fields[0])] = [ids[(file_pos, int(offset))] for offset in offsets]
        lemmas[file_pos] = table
    return lemmas


def read_exceptions(wordnet: Path) -> dict[str, dict[str, list[str]]]:
    """{noun,verb,adj,adv}.exc: pos -> inflected form -> base forms."""
    exceptions: dict[str, dict[str, list[str]]] = {}
    for name, file_pos in FILE_POS.items():
        table: dict[str, list[str]] = {}
        for line in (wordnet / f"{name}.exc").read_text(encoding="latin-1").splitlines():
            fields = line.split()
            if len(fields) >= 2:
                table.setdefault(lemma_text(fields[0]), []).extend(lemma_text(base) for base in fields[1:])
        exceptions[file_pos] = table
    return exceptions


def build(wordnet: Path) -> dict[str, object]:
    """All the tables, as the JSON object that is shipped."""
    ids, kinds, records = read_synsets(wordnet)
    lemmas = read_lemmas(wordnet, ids)
    hypernyms: list[list[int]] = [[] for _ in kinds]
    antonyms: dict[str, set[str]] = defaultdict(set)
    antonym_synsets: set[tuple[int, int]] = set()
    derived: dict[str, set[str]] = defaultdict(set)
    satellites: dict[int, list[int]] = defaultdict(list)  # head adjective synset -> its satellites

    for synset, record in enumerate(records):
        words = record["words"]
        assert isinstance(words, list)
        pointers = record["pointers"]
        assert isinstance(pointers, list)
        for symbol, offset, target_pos, source_target in pointers:
            target = ids[(target_pos, offset)]
            if symbol in ("@", "@i"):
                hypernyms[synset].append(target)
            elif symbol == "&" and kinds[synset] == "a":
                satellites[synset].append(target)
            elif symbol in ("!", "+", "\\"):
                source_number, target_number = int(source_target[:2], 16), int(source_target[2:], 16)
                target_words = records[target]["words"]
                assert isinstance(target_words, list)
                sources = [words[source_number - 1]] if source_number else words
                targets = [target_words[target_number - 1]] if target_number else target_words
                pairs = antonyms if symbol == "!" else derived
                for source_word in sources:
                    for target_word in targets:
                        if source_word != target_word:
                            pairs[source_word].add(target_word)
                            pairs[target_word].add(source_word)
                if symbol == "!":
                    antonym_synsets.add((min(synset, target), max(synset, target)))

    # Indirect antonyms: a head adjective's (direct) antonyms also oppose the lemmas of its satellites.
    direct = {word: set(others) for word, others in antonyms.items()}
    opposite_synsets: dict[int, set[int]] = defaultdict(set)
    for a, b in antonym_synsets:
        opposite_synsets[a].add(b)
        opposite_synsets[b].add(a)
    for head, cluster in satellites.items():
        head_words = records[head]["words"]
        assert isinstance(head_words, list)
        opposites = {word for head_word in head_words for word in direct.get(head_word, ())}
        for satellite in cluster:
            satellite_words = records[satellite]["words"]
            assert isinstance(satellite_words, list)
            for word in satellite_words:
                for opposite in opposites:
                    if word != opposite:
                        antonyms[word].add(opposite)
                        antonyms[opposite].add(word)
            for opposite_synset in opposite_synsets.get(head, ()):
                antonym_synsets.add((min(satellite, opposite_synset), max(satellite, opposite_synset)))

    return {
        "source": "Princeton WordNet 3.0 (Debian wordnet-base), built by training/build_lexicon.py",
        "synsets": len(kinds),
        "synset_pos": "".join(kinds),
        "lemmas": lemmas,
        "hypernyms": hypernyms,
        "antonyms": {word: sorted(others) for word, others in antonyms.items()},
        "antonym_synsets": sorted([a, b] for a, b in antonym_synsets),
        "derived": {word: sorted(others) for word, others in derived.items()},
        "exceptions": read_exceptions(wordnet),
    }


def write(tables: dict[str, object], out: Path) -> int:
    """Write the tables as deterministic gzipped JSON; returns the compressed size in bytes."""
    text = json.dumps(tables, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as handle:
        handle.write(text.encode("utf-8"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(buffer.getvalue())
    print(f"{len(text.encode('utf-8')):,} bytes of JSON")
    return len(buffer.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"), help="WordNet 3.0 dict folder")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write wordnet.json.gz")
    args = parser.parse_args()
    started = time.perf_counter()
    tables = build(args.wordnet)
    size = write(tables, args.out)
    lemmas = tables["lemmas"]
    assert isinstance(lemmas, dict)
    print(
        f"{tables['synsets']:,} synsets, {sum(len(t) for t in lemmas.values()):,} lemma entries, "
        f"{len(tables['antonym_synsets']):,} antonym synset pairs; "  # type: ignore[arg-type]
        f"wrote {args.out} ({size:,} bytes) in {time.perf_counter() - started:.1f} s"
    )


if __name__ == "__main__":
    main()
