"""Step 1's inputs, built at bench time from real documents already on this machine.

Nothing here is committed data: the corpus is read from the RFCs the repository already holds
(``examples/rfc7519``, ``tests/data``), the Debian licence texts, ``/usr/share/doc`` and, wherever Python runs, the standard library's sources,
in a fixed order, until it reaches the size asked for. Each document is cut into sections of a few
kilobytes on paragraph breaks (like an RFC's numbered sections), with dotted numeric ids
``"<document>.<section>"`` so the cookbook's numeric order applies. Quotes are drawn with a fixed
seed: found ones are spans of real text (with their line breaks, sometimes with curly quotes),
missing ones are real spans with one word changed, and section-only ones name a section.
"""

from __future__ import annotations

import hashlib
import random
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path

SECTION_TARGET = 2_500  # characters: RFC 7519's sections run from about 500 to 3,000
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_WORD = re.compile(r"\S+")
# Found quotes avoid characters whose normalisation differs between matchers (dashes, hyphens,
# non-ASCII), so the cookbook's rule and ours must agree on every answer.
_PLAIN_WORD = re.compile(r"[A-Za-z0-9.,;:()'\"]+")


def _candidate_files() -> list[Path]:
    repository = Path(__file__).resolve().parent.parent
    roots: list[tuple[Path, str]] = [
        (repository / "examples" / "rfc7519", "rfc*.txt"),
        (repository / "tests" / "data", "rfc*.txt"),
        (Path("/usr/share/common-licenses"), "*"),
        (Path("/usr/share/doc"), "**/*"),
        (Path(sysconfig.get_paths()["stdlib"]), "*.py"),
        (Path(sysconfig.get_paths()["stdlib"]), "**/*.py"),
    ]
    files: list[Path] = []
    for root, pattern in roots:
        if root.is_dir():
            files.extend(
                sorted(
                    p
                    for p in root.glob(pattern)
                    if p.is_file()
                    and not p.is_symlink()
                    and p.suffix not in {".gz", ".xz", ".bz2", ".html", ".htm", ".png", ".svg"}
                )
            )
    return files


@dataclass
class Corpus:
    sections: dict[str, str]
    documents: list[str]  # the files read, in order

    @property
    def characters(self) -> int:
        return sum(len(text) for text in self.sections.values())

    @property
    def bytes(self) -> int:
        return sum(len(text.encode()) for text in self.sections.values())


def build_corpus(target_characters: int) -> Corpus:
    """About ``target_characters`` of real text, split into sections."""
    sections: dict[str, str] = {}
    documents: list[str] = []
    seen: set[bytes] = set()
    total = 0
    for path in _candidate_files():
        if total >= target_characters:
            break
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        if len(raw) < 2_000 or b"\x00" in raw:
            continue
        digest = hashlib.sha256(raw).digest()
        if digest in seen:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        seen.add(digest)
        documents.append(str(path))
        doc_number = len(documents)
        section_number, current = 0, ""
        for paragraph in _PARAGRAPH.split(text):
            current = f"{current}\n\n{paragraph}" if current else paragraph
            if len(current) >= SECTION_TARGET:
                section_number += 1
                sections[f"{doc_number}.{section_number}"] = current
                total += len(current)
                current = ""
        if current.strip():
            section_number += 1
            sections[f"{doc_number}.{section_number}"] = current
            total += len(current)
    return Corpus(sections, documents)


@dataclass(frozen=True)
class Quote:
    id: str
    kind: str  # "found", "missing" or "section-only"
    quote: str | None
    section: str | None  # for section-only: the section named; for found: where it was drawn from


def _plain_span(rng: random.Random, text: str, words: int) -> str | None:
    """A span of ``words`` consecutive plain words of ``text``, with the text's own whitespace."""
    found = list(_WORD.finditer(text))
    if len(found) < words + 2:
        return None
    for _ in range(20):
        first = rng.randrange(0, len(found) - words)
        chosen = found[first : first + words]
        if all(_PLAIN_WORD.fullmatch(m.group()) for m in chosen):
            span = text[chosen[0].start() : chosen[-1].end()]
            if len(span) >= 40:
                return span
    return None


def _curl(rng: random.Random, quote: str) -> str:
    """An LLM's quote often comes back with typographic quotes; the match must not care."""
    if '"' in quote and rng.random() < 0.5:
        return quote.replace('"', "\u201c", 1).replace('"', "\u201d", 1)
    return quote


def make_quotes(
    corpus: Corpus, count: int, *, seed: int = 6, found: float = 0.75, missing: float = 0.15
) -> list[Quote]:
    """``count`` quotes: ``found`` of them in the corpus, ``missing`` not, the rest section-only."""
    from bench.step1 import cookbook_normalize

    rng = random.Random(seed)
    ids = list(corpus.sections)
    normalized = [cookbook_normalize(text) for text in corpus.sections.values()]
    vocabulary = ["never", "optional", "forbidden", "undefined", "seventeen", "purple", "octopus", "mandatory"]
    kinds = ["found"] * round(count * found) + ["missing"] * round(count * missing)
    kinds += ["section-only"] * (count - len(kinds))
    rng.shuffle(kinds)
    quotes: list[Quote] = []
    for number, kind in enumerate(kinds):
        section = rng.choice(ids)
        if kind == "section-only":
            quotes.append(Quote(f"q{number}", kind, None, section))
            continue
        span = None
        while span is None:
            section = rng.choice(ids)
            span = _plain_span(rng, corpus.sections[section], rng.randint(8, 30))
        if kind == "found":
            quotes.append(Quote(f"q{number}", kind, _curl(rng, span), section))
            continue
        while True:
            words = span.split(" ")
            position = rng.randrange(len(words))
            words[position] = rng.choice(vocabulary)
            altered = " ".join(words)
            needle = cookbook_normalize(altered)
            if not any(needle in text for text in normalized):
                break
            span = None
            while span is None:
                span = _plain_span(rng, corpus.sections[rng.choice(ids)], rng.randint(8, 30))
        quotes.append(Quote(f"q{number}", kind, altered, None))
    return quotes
