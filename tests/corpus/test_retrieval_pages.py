"""Retrieval on the shared corpus: a question answered on a known page finds that page in the top 5.

Each pair was written by reading the page (PyMuPDF `page.get_text()`), then asking what a reader
of that document would ask, in their own words rather than the page's sentences. Pages are
1-based physical page indices, as everywhere in the corpus; a pair lists several pages when the
answer is given on each of them. The questions were not adjusted to what the search returns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from app.core.config import Settings
from app.retrieval.filters import SearchFilters
from app.retrieval.pipeline import ContextBundle, RetrievalParams, retrieve_context
from app.retrieval.search import SearchMode
from tests.helpers.corpus import IngestedCorpus

pytestmark = pytest.mark.corpus

TOP_K = 5
COLLECTION = "docs"

TRACEMONKEY = "tracemonkey.pdf"
FEDERAL_REGISTER = "federal-register-2020-17221.pdf"
R_INTRO = "R-intro.pdf"
LIBTASN1 = "libtasn1.pdf"
NIST = "test_3842_NIST_SP800-223.pdf"
QWEN2 = "test_4751_Qwen2_tech_report.pdf"
CREATIVITY = "creativity-in-ml_thoma.pdf"
MULTICOLUMN = "multicolumn.pdf"


@dataclass(frozen=True)
class PagePair:
    """A question and the physical pages of one document where its answer is written."""

    name: str
    document: str
    question: str
    pages: tuple[int, ...]


PAIRS = [
    # tracemonkey.pdf: PLDI'09 paper, 2 columns.
    PagePair(
        "tracemonkey-hotness-threshold",
        TRACEMONKEY,
        "How many times does a loop have to run before TraceMonkey starts recording a trace?",
        # Page 2 (the walk-through: "after 2 crossings"), 5 ("2 in the current
        # implementation") and 9 ("on the second iteration") all say it.
        (2, 5, 9),
    ),
    PagePair(
        "tracemonkey-blacklisting",
        TRACEMONKEY,
        "When does the VM stop trying to record traces at a spot where recording keeps failing?",
        (6,),
    ),
    PagePair(
        "tracemonkey-integer-oracle",
        TRACEMONKEY,
        "What is the oracle for, when deciding whether to treat a number as an integer on trace?",
        (5,),
    ),
    PagePair(
        "tracemonkey-preemption-cost",
        TRACEMONKEY,
        "How much slower do programs get from checking the preemption flag on every loop edge?",
        (9,),
    ),
    PagePair(
        "tracemonkey-fuzzing",
        TRACEMONKEY,
        "How did the authors use a random program generator to find bugs in the tracer?",
        (10,),
    ),
    PagePair(
        "tracemonkey-recursion-no-speedup",
        TRACEMONKEY,
        "Why do benchmarks like access-binary-trees get no speedup from tracing?",
        (11,),
    ),
    PagePair(
        "tracemonkey-cycles-per-bytecode",
        TRACEMONKEY,
        "On average how many CPU cycles does one bytecode cost in the interpreter compared "
        "with native trace code?",
        (12,),
    ),
    # federal-register-2020-17221.pdf: FAA proposed rule, 3 columns; pages 7-13 are figures.
    PagePair(
        "fedreg-ethiopian-fatalities",
        FEDERAL_REGISTER,
        "How many people died in the Ethiopian Airlines 737 MAX crash?",
        (2,),
    ),
    PagePair(
        "fedreg-mcas-activations",
        FEDERAL_REGISTER,
        "With the updated flight control software, how often can MCAS trigger during one "
        "high angle of attack event?",
        (3,),
    ),
    PagePair(
        "fedreg-aoa-disagree-threshold",
        FEDERAL_REGISTER,
        "How far apart do the two angle of attack sensors have to read before the pilots get "
        "an AOA DISAGREE alert?",
        (3,),
    ),
    PagePair(
        "fedreg-trim-wiring",
        FEDERAL_REGISTER,
        "Why must the stabilizer trim wires be rerouted on the 737 MAX?",
        # Page 2 gives the reason in a sentence (wire separation standards), page 4 in full.
        (2, 4),
    ),
    PagePair(
        "fedreg-affected-fleet",
        FEDERAL_REGISTER,
        "How many airplanes on the U.S. register would this airworthiness directive cover?",
        (5,),
    ),
    PagePair(
        "fedreg-aoa-test-cost",
        FEDERAL_REGISTER,
        "What does the FAA estimate the angle of attack sensor test costs per airplane?",
        (6,),
    ),
    PagePair(
        "fedreg-pilatus-landing-gear",
        FEDERAL_REGISTER,
        "What landing gear problem on the Pilatus PC-12 led the FAA to propose another directive?",
        (15,),
    ),
    # R-intro.pdf: texinfo manual; physical page = printed page + 6.
    PagePair(
        "rintro-workspace-files",
        R_INTRO,
        "Where does R keep my saved objects and command history between sessions?",
        # Page 12 (data permanency) and page 99 (the startup options) both name the files.
        (12, 99),
    ),
    PagePair(
        "rintro-na-vs-nan",
        R_INTRO,
        "What is the difference between NA and NaN and how do I test for each one?",
        (17,),
    ),
    PagePair(
        "rintro-group-means",
        R_INTRO,
        "How can I compute the mean income for each state when the states are a factor?",
        (23, 24),
    ),
    PagePair(
        "rintro-array-recycling",
        R_INTRO,
        "What happens when the data vector I give to array() is shorter than the dimensions need?",
        (28,),
    ),
    PagePair(
        "rintro-attach-assignment",
        R_INTRO,
        "After attaching a data frame, does assigning to one of its variables change the "
        "data frame itself?",
        (37,),
    ),
    PagePair(
        "rintro-lexical-scope",
        R_INTRO,
        "How does R find the value of a free variable inside a function, and how is that "
        "different from S-Plus?",
        (55, 56),
    ),
    # libtasn1.pdf: texinfo manual; physical page = printed page + 3.
    PagePair(
        "libtasn1-thread-safety",
        LIBTASN1,
        "Can I use libtasn1 from several threads at the same time?",
        (4,),
    ),
    PagePair(
        "libtasn1-comment-syntax",
        LIBTASN1,
        "How do I write comments in an ASN.1 definitions file for this parser?",
        (5,),
    ),
    PagePair(
        "libtasn1-unsupported-features",
        LIBTASN1,
        "Which parts of ASN.1 does the library's parser not support?",
        (6,),
    ),
    PagePair(
        "libtasn1-decode-cli",
        LIBTASN1,
        "Which command line tool turns a DER encoded file back into a readable structure?",
        (10,),
    ),
    PagePair(
        "libtasn1-delete-optional",
        LIBTASN1,
        "How do I remove an OPTIONAL field from a structure when setting element values?",
        (14,),
    ),
    PagePair(
        "libtasn1-bit-string-length",
        LIBTASN1,
        "When writing a BIT STRING value, is the length given in bytes or in bits?",
        (15,),
    ),
    # test_3842_NIST_SP800-223.pdf: NIST SP 800-223; physical page = printed page + 8.
    PagePair(
        "nist-four-zones",
        NIST,
        "Which functional zones does the reference architecture divide an HPC system into?",
        (10,),
    ),
    PagePair(
        "nist-storage-retention",
        NIST,
        "For how long is data kept on campaign storage compared with archival storage?",
        (13,),
    ),
    PagePair(
        "nist-data-transfer-nodes",
        NIST,
        "Why are data transfer nodes usually protected with a Science DMZ design rather than "
        "a firewall?",
        (14,),
    ),
    PagePair(
        "nist-node-sanitization",
        NIST,
        "What should be done to a compute node between jobs so the next user cannot see "
        "leftover data?",
        (23,),
    ),
    PagePair(
        "nist-malware-scanning",
        NIST,
        "Why is scanning HPC storage for malware hard, and what can be done instead?",
        (24,),
    ),
    PagePair(
        "nist-diskless-boot",
        NIST,
        "How do diskless cluster nodes get their operating system when they start up?",
        (32,),
    ),
    # test_4751_Qwen2_tech_report.pdf: arXiv report with tables.
    PagePair(
        "qwen2-72b-layers-kv-heads",
        QWEN2,
        "How many layers and key-value heads does the 72B Qwen2 model have?",
        (5,),
    ),
    PagePair(
        "qwen2-expert-initialization",
        QWEN2,
        "How were the experts of the mixture-of-experts model initialized from a dense model?",
        (5,),
    ),
    PagePair(
        "qwen2-12t-dataset",
        QWEN2,
        "Why didn't they train the big models on the 12 trillion token dataset?",
        (6,),
    ),
    PagePair(
        "qwen2-long-context",
        QWEN2,
        "How was the context window extended during pre-training, and what RoPE base was used?",
        (6,),
    ),
    PagePair(
        "qwen2-sft-settings",
        QWEN2,
        "How many epochs and what learning rate were used for supervised fine-tuning?",
        (8,),
    ),
    PagePair(
        "qwen2-decontamination",
        QWEN2,
        "How did they filter training data that overlaps with the evaluation benchmarks?",
        (19,),
    ),
    # creativity-in-ml_thoma.pdf: 2-column paper.
    PagePair(
        "creativity-cnn-inputs",
        CREATIVITY,
        "Why is a plain fully connected network impractical for images, and what do "
        "convolutional networks do about it?",
        (2,),
    ),
    PagePair(
        "creativity-aikon",
        CREATIVITY,
        "How does the AIKON robot turn a photograph into a portrait sketch?",
        (3,),
    ),
    PagePair(
        # Neither "Figure" (the paper writes "Fig. 4") nor "Thoma" (the first page and the
        # file name only) is in the passage: neither makes it no_matches.
        "creativity-figure-by-author",
        CREATIVITY,
        "Which painter's style does Thoma's paper transfer onto a photograph in Figure 4?",
        (3,),
    ),
    PagePair(
        "creativity-eliza-secretary",
        CREATIVITY,
        "What happened when Weizenbaum's secretary was talking to ELIZA?",
        (4,),
    ),
    # multicolumn.pdf: two columns of lorem ipsum, then a table of EU countries.
    PagePair(
        "multicolumn-finland",
        MULTICOLUMN,
        "What is the capital of Finland and how many people live there?",
        (3,),
    ),
    PagePair(
        "multicolumn-belgium-languages",
        MULTICOLUMN,
        "Which official languages does Belgium have?",
        (3,),
    ),
]


KNOWN_MISSES = {
    "libtasn1-bit-string-length": (
        "ranking: the write-side rule (p15) is one line of a chunk of several types' rules, "
        "mostly escaped bytes ($\\backslash$x01): 2nd by its words, past the 40th nearest "
        "and 23rd fused (p15's best, 17th); the read side and asn1_bit_der (pp16-20) lead"
    ),
}
"""Pairs that miss, with why (measured when they were written; both modes miss them alike).
Strict: a pair that starts passing fails here, so its entry is removed and it counts again."""


PAGE_CASES = [
    pytest.param(
        pair,
        id=pair.name,
        marks=[pytest.mark.xfail(reason=KNOWN_MISSES[pair.name], strict=True)]
        if pair.name in KNOWN_MISSES
        else [],
    )
    for pair in PAIRS
]
"""One case per pair, named after it, the known misses marked as expected."""


def default_params(settings: Settings, mode: SearchMode | None = None) -> RetrievalParams:
    """Returns the service's default retrieval parameters, top 5, over the corpus collection."""
    return RetrievalParams(
        top_k=TOP_K,
        overfetch=settings.search_overfetch,
        mode=mode or settings.search_mode,
        filters=SearchFilters(collection=COLLECTION, exclude_flags=settings.excluded_flags),
        min_similarity=settings.min_similarity,
        token_budget=settings.context_token_budget,
    )


def retrieve(corpus: IngestedCorpus, question: str, params: RetrievalParams) -> ContextBundle:
    """Returns what retrieve_context gives for `question`, in its own transaction."""
    runtime = corpus.runtime
    with runtime.sessions.begin() as session:
        return retrieve_context(question, params, session=session, embedder=runtime.embedder)


def finds_page(bundle: ContextBundle, pair: PagePair) -> bool:
    """Returns whether a returned chunk is from the pair's document and overlaps its pages."""
    return any(
        chunk.document_filename == pair.document
        and any(chunk.page_start <= page <= chunk.page_end for page in pair.pages)
        for chunk in bundle.chunks
    )


def test_the_pairs_cover_enough_questions_and_documents() -> None:
    assert len(PAIRS) >= 30
    assert len({pair.name for pair in PAIRS}) == len(PAIRS)
    assert set(KNOWN_MISSES) <= {pair.name for pair in PAIRS}
    assert {pair.document for pair in PAIRS} == {
        TRACEMONKEY, FEDERAL_REGISTER, R_INTRO, LIBTASN1, NIST, QWEN2, CREATIVITY, MULTICOLUMN
    }  # fmt: skip


@pytest.mark.parametrize("pair", PAGE_CASES)
def test_answer_page_is_in_the_top_5(ingested_docs: IngestedCorpus, pair: PagePair) -> None:
    assert pair.document in ingested_docs.documents, ingested_docs.refused
    bundle = retrieve(ingested_docs, pair.question, default_params(ingested_docs.runtime.settings))
    found = [(c.document_filename, c.page_start, c.page_end) for c in bundle.chunks]
    assert finds_page(bundle, pair), f"wanted {pair.document} p{pair.pages}, got {found}"


def test_a_name_the_text_search_keeps_whole_is_found_within_its_document(
    ingested_docs: IngestedCorpus,
) -> None:
    # "x86" is one lexeme to the text search; had only its part "86" been sought, the name
    # would count as missing from the paper and the question find nothing there.
    assert TRACEMONKEY in ingested_docs.documents, ingested_docs.refused
    params = default_params(ingested_docs.runtime.settings)
    document = ingested_docs.documents[TRACEMONKEY].document.id
    within = replace(params, filters=replace(params.filters, document_ids=(document,)))
    question = "In the sieve example, how many x86 instructions does the trace compiler generate?"
    bundle = retrieve(ingested_docs, question, within)
    assert bundle.status == "ok"
    assert any(chunk.page_start <= 3 <= chunk.page_end for chunk in bundle.chunks)


REPEATED_NAMES = {
    "tracemonkey-hotness-threshold",
    "fedreg-aoa-disagree-threshold",
    "rintro-lexical-scope",
    "qwen2-sft-settings",
}
REPEATED = [pair for pair in PAIRS if pair.name in REPEATED_NAMES]
"""A few questions over different documents, asked twice each."""


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_the_same_request_twice_gives_identical_chunks(
    ingested_docs: IngestedCorpus, mode: SearchMode
) -> None:
    params = default_params(ingested_docs.runtime.settings, mode)
    for pair in REPEATED:
        first = retrieve(ingested_docs, pair.question, params)
        second = retrieve(ingested_docs, pair.question, params)
        assert first.status == "ok", pair.name
        # Distances compared exactly: the same text embeds to the same vector, and a ranking
        # tie broken differently would show here as a different order.
        assert [(c.chunk_id, c.distance) for c in first.chunks] == [
            (c.chunk_id, c.distance) for c in second.chunks
        ], pair.name
