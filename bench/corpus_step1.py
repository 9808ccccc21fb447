"""Step 1 over a ``Corpus`` of 1,000 documents and 20 MB, next to the same text as one ``Source``.

The same real text (``bench.corpus``), quotes and machine, two ways, both through the plugin's real
step 1 (``pytest_citecheck._locate.citations.locate_all``: validation, search, closest passage for a
quote that is not there, size checks), each with a fresh ``Source`` or ``Corpus`` so the normalised
form is built inside the timing:

- **single source**: every section in one ``Source``; each citation names the section its quote was
  drawn from (the figure ``bench/step1.py`` measures, through the same code path as the corpus);
- **corpus**: the sections grouped, in order, into 1,000 documents; each citation names its
  document and section. A share of them is misattributed on purpose (another section of the same
  document, or another document), so the search past the cited place is timed too.

Not part of ``python -m bench --quick`` (building 20 MB twice takes a while); the full run includes
it, and ``python -m bench.corpus_step1`` runs it alone.
"""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.common import Row, secs, spread
from bench.corpus import build_corpus, letters_and_digits, make_quotes


@dataclass
class CorpusSizes:
    corpus_characters: int
    documents: int
    quotes: int
    runs: int


# Seven runs: one run in five or so on a shared 2-CPU machine is slowed by a neighbour (a run 25% slower
# than the others), and a median of five is moved by two such runs.
FULL = CorpusSizes(20_000_000, 1_000, 1_000, 7)
# Per quote, a Corpus against one source of the same text: the same cost, give or take.
CORPUS_GOAL = 1.25
SMALL = CorpusSizes(150_000, 20, 60, 1)  # for the harness's own test (tests/project/test_bench_corpus.py)


@dataclass
class Case:
    """The inputs of one measurement: the documents, and the citations each way with what step 1 must find."""

    documents: dict[str, dict[str, str]]  # document id -> section id -> text
    single_citations: list[dict[str, Any]]
    corpus_citations: list[dict[str, Any]]
    # citation id -> (status, document, section) step 1 must report over the corpus; for found-elsewhere
    # the place is None: any place that holds the quote will do (real text repeats across files)
    expected: dict[str, tuple[str, str | None, str | None]]
    characters: int


def build_case(sizes: CorpusSizes, *, seed: int = 12) -> Case:
    corpus = build_corpus(sizes.corpus_characters)
    ids = list(corpus.sections)
    assert len(ids) >= sizes.documents, "fewer sections than documents: ask for more text"
    documents: dict[str, dict[str, str]] = {}
    document_of: dict[str, str] = {}
    for number in range(sizes.documents):  # consecutive sections, as even a share each as can be
        chunk = ids[number * len(ids) // sizes.documents : (number + 1) * len(ids) // sizes.documents]
        name = f"doc-{number + 1:04d}.txt"
        documents[name] = {section: corpus.sections[section] for section in chunk}
        document_of.update(dict.fromkeys(chunk, name))
    rng = random.Random(seed)
    names = list(documents)
    single: list[dict[str, Any]] = []
    cited: list[dict[str, Any]] = []
    expected: dict[str, tuple[str, str | None, str | None]] = {}
    for quote in make_quotes(corpus, sizes.quotes, seed=seed):
        claim = f"claim {quote.id}"
        # A share of the real quotes is dropped: a claim-only citation names its section, no quote.
        kind = "section-only" if quote.kind == "found" and rng.random() < 0.05 else quote.kind
        if kind == "section-only":
            assert quote.section is not None
            document = document_of[quote.section]
            single.append({"id": quote.id, "claim": claim, "quote": None, "section": quote.section})
            cited.append({**single[-1], "document": document})
            expected[quote.id] = ("section-only", document, quote.section)
        elif kind == "missing":
            # A fabricated quote still names a document: the closest passage is looked for in it too.
            document = rng.choice(names)
            single.append({"id": quote.id, "claim": claim, "quote": quote.quote})
            cited.append({**single[-1], "document": document})
            expected[quote.id] = ("missing", None, None)
        else:
            assert quote.section is not None
            document, section = document_of[quote.section], quote.section
            single.append({"id": quote.id, "claim": claim, "quote": quote.quote, "section": section})
            cite_document, cite_section, status = document, section, "found"
            draw = rng.random()
            others = [other for other in documents[document] if other != section]
            if draw < 0.10 and others:  # another section of the same document
                cite_section, status = rng.choice(others), "found-elsewhere"
            elif draw < 0.15:  # another document altogether
                cite_document = rng.choice([name for name in names if name != document])
                cite_section, status = next(iter(documents[cite_document])), "found-elsewhere"
            cited.append(
                {
                    "id": quote.id,
                    "claim": claim,
                    "quote": quote.quote,
                    "document": cite_document,
                    "section": cite_section,
                }
            )
            if status == "found-elsewhere" and letters_and_digits(quote.quote) in letters_and_digits(
                documents[cite_document][cite_section]
            ):
                # The cited place holds the quote's letters too (real text repeats): whether it holds
                # the quote by the matching contract, letters alone cannot say. Found there, or found
                # elsewhere in a passage with the quote's letters: either is right.
                expected[quote.id] = ("found-or-elsewhere", cite_document, cite_section)
            elif status == "found-elsewhere":
                expected[quote.id] = (status, None, None)
            else:
                expected[quote.id] = (status, document, section)
    return Case(documents, single, cited, expected, corpus.characters)


def locate_over_source(case: Case) -> list[Any]:
    from pytest_citecheck import Source
    from pytest_citecheck._citations.adapt import adapt_citations
    from pytest_citecheck._locate.citations import locate_all
    from pytest_citecheck._options import Settings

    sections = {section: text for document in case.documents.values() for section, text in document.items()}
    return locate_all(adapt_citations(case.single_citations), Source(sections=sections), Settings())


def locate_over_corpus(case: Case) -> list[Any]:
    from pytest_citecheck import Corpus, Source
    from pytest_citecheck._citations.adapt import adapt_citations
    from pytest_citecheck._locate.citations import locate_all
    from pytest_citecheck._options import Settings

    corpus = Corpus({name: Source(sections=sections) for name, sections in case.documents.items()})
    return locate_all(adapt_citations(case.corpus_citations), corpus, Settings())


def agreement(case: Case, located: list[Any]) -> list[str]:
    """The citations step 1 placed elsewhere than the case says it must (empty when all agree).

    A found-elsewhere quote may be in any place that holds it; there, the located passage must have
    the quote's letters and digits (the independent check of ``bench.corpus``).
    """
    wrong = []
    for citation, item in zip(case.corpus_citations, located):
        document = getattr(item, "document", None)
        status, want_document, want_section = case.expected[citation["id"]]
        got = (item.status.value, document, item.section)
        if status == "found-or-elsewhere" and got == ("found", want_document, want_section):
            ok = True
        elif status == "found-or-elsewhere" or (status == "found-elsewhere" and want_document is None):
            ok = item.status.value == "found-elsewhere" and document is not None and item.section is not None
            if ok:
                start, end = item.span
                passage = case.documents[document][item.section][start:end]
                ok = letters_and_digits(passage) == letters_and_digits(citation["quote"])
        else:
            ok = got == (status, want_document, want_section)
        if not ok:
            wrong.append(f"{citation['id']}: {got} != {case.expected[citation['id']]}")
    return wrong


@dataclass(frozen=True)
class Interleaved:
    """CPU seconds of two actions timed in turn: each one's median, and each run's ratio (second / first)."""

    first: float
    second: float
    ratios: list[float]


def interleaved_cpu(first: Callable[[], object], second: Callable[[], object], runs: int) -> Interleaved:
    """The median CPU seconds of each action, the two timed in turn so that a change in the machine's
    load hits both alike; the garbage of the previous call is collected before each, outside the timing
    (both build and drop tens of megabytes, and which side would pay for the other's is chance). Each
    run's own ratio is kept too: how far they spread shows how much the machine moved the figure."""
    timings: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for action, taken in zip((first, second), timings):
            gc.collect()
            started = time.process_time()
            action()
            taken.append(time.process_time() - started)
    ratios = [second_taken / first_taken for first_taken, second_taken in zip(*timings)]
    return Interleaved(statistics.median(timings[0]), statistics.median(timings[1]), ratios)


def run(sizes: CorpusSizes = FULL, log: Any = print) -> list[Row]:
    case = build_case(sizes)
    kinds: dict[str, int] = {}
    for status, _, _ in case.expected.values():
        kinds[status] = kinds.get(status, 0) + 1
    log(
        f"corpus step 1: {case.characters:,} characters in {len(case.documents):,} documents; "
        f"{len(case.corpus_citations)} citations {kinds}"
    )
    wrong = agreement(case, locate_over_corpus(case))
    timed = interleaved_cpu(lambda: locate_over_source(case), lambda: locate_over_corpus(case), sizes.runs)
    single, corpus = timed.first, timed.second
    log(
        f"corpus step 1: corpus {secs(corpus)}, single source {secs(single)} (CPU, medians of {sizes.runs}); "
        f"each run: {', '.join(f'{ratio:.2f}x' for ratio in timed.ratios)}"
    )
    ratio = corpus / single
    return [
        Row(
            f"Step 1 over a Corpus: {len(case.corpus_citations):,} citations naming their document, "
            f"{len(case.documents):,} documents, {case.characters / 1e6:.1f} MB (built fresh)",
            f"{secs(corpus)} CPU",
            f"the same text as one Source: {secs(single)} CPU; {spread(timed.ratios, 'x')}",
            f"{ratio:,.2f}x the single source",
            f"≤ {CORPUS_GOAL}x the single source",
            ratio <= CORPUS_GOAL,
        ),
        Row(
            "Step 1 over a Corpus finds each quote where it is (found, found-elsewhere, missing, section-only)",
            f"{len(case.corpus_citations) - len(wrong)}/{len(case.corpus_citations)} agree",
            "; ".join(wrong[:3]),
            "",
            "all agree",
            not wrong,
        ),
    ]


if __name__ == "__main__":
    import warnings

    from bench.run import table

    warnings.simplefilter("ignore")
    print(table(run()), end="")
