"""Step 1 of the check, with no model: where is each quote in the source?

One room, from the ground up:

- ``normalize``: the normalisation contract (``docs/matching.md``), the form both sides of a match
  are compared in;
- ``offsets``: the map from a normalised passage back to the original text's offsets;
- ``display``: the words a reader sees of a Markdown or reStructuredText section (its inline markup
  taken out, with the map back), which the word index holds beside the section as written;
- ``word_index``: ``WordIndex``, every section of a source normalised once, in blocks, with the
  blocks each word occurs in;
- ``locator``: ``QuoteLocator``, a quote's exact match or its closest passage in one source;
- ``finders``: where the search looks, in one ``Source`` or across the documents of a ``Corpus``;
- ``citations``: step 1 for each citation (validate, locate, size; ``Assembly`` for several sections);
- ``retrieval``: ``check_retrieval``, step 1 for the chunks a retriever returned.

Internal: import from ``pytest_citecheck``, not from here.
"""
