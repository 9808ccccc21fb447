"""A fast reader of the YAML a cassette holds: ``yaml.safe_load``, built from the parser's events.

Replay reads every recording a test uses, and PyYAML builds its objects node by node in Python:
for a cassette of 2,000 interactions that was a third of what replay added per citation. The files
we write are mappings, lists and scalars, with no anchors, tags or merge keys, so ``safe_load``
builds them straight from the C parser's events, resolving and constructing each plain scalar with
PyYAML's own safe resolver and constructors. Anything else (an anchor, a tag, a ``<<`` merge key,
several documents, a syntax error) is handed to ``yaml.load`` with the safe loader, which gives the
same result or its own error. yaml is imported lazily.

An alias (``*name``) is refused (``YamlAliasError``), on either path: we never write one, and each
can stand for a whole tree, so a file of a few kilobytes (a "billion laughs") would build into
gigabytes when the checks read it. So is a file git left conflicted (``ConflictMarkerError``), before
the parser would report its markers as a syntax error at some line and column.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._recording.damage import CassetteFormatError

_STR_TAG = "tag:yaml.org,2002:str"


def yaml_module() -> Any:
    import yaml

    return yaml


class YamlAliasError(ValueError):
    """The file uses a YAML alias, which pytest-citecheck never writes."""

    def __init__(self) -> None:
        super().__init__(
            "the file uses a YAML alias (*name), which pytest-citecheck never writes: an alias can stand for a "
            "whole tree, so a small file could build into gigabytes (a 'billion laughs' file)"
        )


# A line git writes around the two sides of a conflict it could not merge (and diff3's base marker).
_CONFLICT_MARKER = r"^(?:<{7}|\|{7}|>{7})(?: .*)?$|^={7}$"


class ConflictMarkerError(ValueError):
    """The file holds a line git writes around a conflict it could not merge: said so, at its line,
    rather than in the YAML parser's words (``while scanning a simple key``); ``remedy``: how to resolve it."""

    remedy = (
        "keep one side: delete the lines from '<<<<<<<' to '=======' or from '=======' to '>>>>>>>', and the "
        "marker lines; or delete the file and re-record with --citecheck-record-mode=rewrite"
    )

    def __init__(self, line: int, marker: str) -> None:
        from pytest_citecheck._text import visible

        super().__init__(
            f"it holds a merge-conflict marker (line {line}: {visible(marker[:60])!r}): a git merge, rebase or "
            "stash left it unresolved"
        )


def safe_load(text: str) -> Any:
    """``yaml.safe_load(text)``, built from PyYAML's parser events when the file is plain data; a file
    with an alias is refused (``YamlAliasError``), and so is one git left conflicted (``ConflictMarkerError``:
    no line of a file we write starts with a marker, and the caller's fast reader takes only those)."""
    import re

    marker = re.search(_CONFLICT_MARKER, text, re.MULTILINE)
    if marker is not None:
        raise ConflictMarkerError(text.count("\n", 0, marker.start()) + 1, marker.group())
    yaml = yaml_module()
    safe_loader = getattr(yaml, "CSafeLoader", None)
    if safe_loader is not None:
        try:
            return _EventBuilder(safe_loader(text), yaml).build()
        except _Alias:
            raise YamlAliasError from None
        except (_NotPlainData, yaml.YAMLError, TypeError):
            pass
    loader = safe_loader or yaml.SafeLoader
    # Only a file the builder does not take gets here (a tag, a merge key, a syntax error): its events
    # are read once more to find an alias before anything is built from them.
    if any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(text, Loader=loader)):
        raise YamlAliasError
    return yaml.load(text, Loader=loader)


def yaml_error(error: BaseException) -> CassetteFormatError | None:
    """PyYAML's error (``MarkedYAMLError``) on one line, its problem and where first, then its context;
    None for any other error. PyYAML says it in three lines that start with the context ("while parsing
    a flow sequence"), and a run's summary shows a cause's first line only."""
    problem, mark, context = (getattr(error, name, None) for name in ("problem", "problem_mark", "context"))
    line, column = getattr(mark, "line", None), getattr(mark, "column", None)
    if not (isinstance(problem, str) and type(line) is int and type(column) is int):
        return None
    said = f"it is not valid YAML: {' '.join(problem.split())} at line {line + 1}, column {column + 1}"
    return CassetteFormatError(
        said + (f" ({' '.join(context.split())})" if isinstance(context, str) and context.strip() else "")
    )


class _NotPlainData(Exception):
    """The file holds YAML that only PyYAML's full constructor builds the same way."""


class _Alias(_NotPlainData):
    """The file holds an alias: refused, not built."""


class _EventBuilder:
    """Builds plain data from a loader's events; raises ``_NotPlainData`` at anything else."""

    def __init__(self, loader: Any, yaml: Any) -> None:
        self.loader, self.events = loader, yaml.events
        self.scalar_node, self.constructors = yaml.ScalarNode, loader.yaml_constructors
        # One entry per open collection: [the container, the pending key, whether a key is pending].
        self.stack: list[list[Any]] = []
        self.documents = 0
        self.root: Any = None
        self.skipped = (self.events.StreamStartEvent, self.events.DocumentEndEvent)

    def build(self) -> Any:
        try:
            while True:
                event = self.loader.get_event()
                if isinstance(event, self.events.StreamEndEvent):
                    return self.root
                self._take(event)
        finally:
            self.loader.dispose()

    def _take(self, event: Any) -> None:
        events = self.events
        kind = type(event)
        if kind is events.ScalarEvent:
            self._place(self._scalar(event))
        elif kind is events.MappingStartEvent or kind is events.SequenceStartEvent:
            if event.anchor is not None or not event.implicit:
                raise _NotPlainData
            self.stack.append([{} if kind is events.MappingStartEvent else [], None, False])
        elif kind is events.MappingEndEvent or kind is events.SequenceEndEvent:
            self._place(self.stack.pop()[0])
        elif kind is events.DocumentStartEvent:
            self.documents += 1
            if self.documents > 1:
                raise _NotPlainData  # several documents: PyYAML's own error says so
        elif kind is events.AliasEvent:
            raise _Alias
        elif kind not in self.skipped:
            raise _NotPlainData

    def _scalar(self, event: Any) -> Any:
        if event.anchor is not None:
            raise _NotPlainData
        value = event.value
        if event.style == "" and event.implicit[0]:  # plain: may be an int, a bool, null...
            tag = self.loader.resolve(self.scalar_node, value, (True, False))
            if tag == _STR_TAG:
                return value
            if tag not in self.constructors:
                raise _NotPlainData  # a ``<<`` merge key
            return self.constructors[tag](self.loader, self.scalar_node(tag, value))
        if not (event.implicit[1] or event.tag in (None, "!", _STR_TAG)):
            raise _NotPlainData  # an explicit tag: !!binary, !!python/..., a custom one
        return value

    def _place(self, value: Any) -> None:
        if not self.stack:
            self.root = value
            return
        top = self.stack[-1]
        container = top[0]
        if type(container) is list:
            container.append(value)
        elif top[2]:
            container[top[1]] = value
            top[1], top[2] = None, False
        else:
            top[1], top[2] = value, True
