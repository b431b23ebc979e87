"""YAML loading with source positions, using a strict YAML 1.2-style core schema and hard bounds.

PyYAML's default (YAML 1.1) resolver turns ``910_93`` into the integer 91093 and ``no`` into
False; product tags and names must survive verbatim, so this loader only recognises
``true``/``false``, ``null``/``~``/empty, plain decimal integers (``010`` is ten) and plain floats
(``1.5``, ``1e3``, ``.inf``, ``.nan``); every other plain scalar is text.

The document is built straight from libyaml's event stream (PyYAML's C parser), without PyYAML's
node graph and constructors: that is most of the cost of loading a spec. Positions (where each
mapping key and sequence item came from, so that model errors can name a line and column) are only
needed to report an error, so :class:`Located` computes them on first use by reading the events
again with their marks.

Specs are untrusted input, so the builder refuses, with one located error and before doing any
real work, what would exhaust the machine:

* a file larger than ``MAX_BYTES``;
* nesting deeper than ``MAX_DEPTH`` (flow or block; libyaml itself does not recurse);
* aliases that expand the document beyond ``MAX_NODES`` nodes (an "alias bomb"), an alias to a
  node that contains it (``x: &a [*a]``), an undefined alias or an anchor defined twice;
* an integer with more than ``MAX_INT_DIGITS`` digits.

Mapping keys must be scalars and are always text (``910: x`` has the key ``"910"``); a key may
appear once per mapping. Explicit tags are limited to the core ones (``!!str``, ``!!int``,
``!!float``, ``!!bool``, ``!!null``, ``!!seq``, ``!!map``).
"""

from __future__ import annotations

import re

import yaml

Loc = tuple[int, int]  # (line, col), 1-based
PathKey = tuple  # tuple of str | int

MAX_BYTES = 8 * 2**20
MAX_DEPTH = 64
MAX_NODES = 500_000
MAX_INT_DIGITS = 1000

try:  # libyaml (PyYAML's wheels ship it); the pure-Python parser yields the same events, slower
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - depends on the PyYAML build
    _Parser = None

_INT = re.compile(r"[-+]?[0-9]+\Z")
_FLOAT = re.compile(
    r"(?:[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf)|\.(?:nan|NaN))\Z"
)
_SPECIAL = {"true": True, "false": False, "null": None, "~": None, "": None}
_NUMERIC_START = frozenset("-+0123456789.")
_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_CORE + name for name in ("str", "int", "float", "bool", "null")}


class YamlSyntaxError(Exception):
    def __init__(self, message: str, line: int, col: int):
        super().__init__(message)
        self.message, self.line, self.col = message, line, col


class Located:
    """Parsed YAML data plus a map from field path to its source position.

    ``positions`` is computed on first use (by ``load_positions``) when not given.
    """

    def __init__(self, data: object, positions: dict[PathKey, Loc] | None = None, load_positions=None):
        self.data = data
        self._positions = positions
        self._load_positions = load_positions

    @property
    def positions(self) -> dict[PathKey, Loc]:
        if self._positions is None:
            self._positions = self._load_positions() if self._load_positions else {}
            self._load_positions = None
        return self._positions

    def locate(self, path: PathKey) -> Loc:
        """Position of ``path``, or of its closest located ancestor."""
        positions = self.positions
        path = tuple(path)
        while path:
            if path in positions:
                return positions[path]
            path = path[:-1]
        return positions.get((), (1, 1))


def _at(mark) -> Loc:
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _error(message: str, mark) -> YamlSyntaxError:
    return YamlSyntaxError(message, *_at(mark))


def _plain(value: str, mark):
    """The value of an untagged plain scalar under the strict core schema."""
    if value in _SPECIAL:
        return _SPECIAL[value]
    if value[0] in _NUMERIC_START:
        if _INT.match(value):
            digits = len(value) - (value[0] in "+-")
            if digits > MAX_INT_DIGITS:
                raise _error(f"integer with {digits} digits (at most {MAX_INT_DIGITS})", mark)
            return int(value, 10)
        if _FLOAT.match(value):
            lowered = value.lower()
            if lowered.endswith(".inf"):
                return float("-inf") if value[0] == "-" else float("inf")
            if lowered == ".nan":
                return float("nan")
            return float(value)
    return value


def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


def _tagged(tag: str, value: str, mark):
    """A scalar with an explicit core tag (``!!str 5``, ``!!int "5"``)."""
    if tag == _CORE + "str":
        return value
    if tag not in _SCALAR_TAGS:
        raise _error(f"unsupported tag '{_tag_name(tag)}'", mark)
    resolved = _plain(value, mark) if value else None
    kind = tag[len(_CORE) :]
    expected = {"int": int, "float": (float, int), "bool": bool, "null": type(None)}[kind]
    if isinstance(resolved, bool) and kind != "bool" or not isinstance(resolved, expected):
        raise _error(f"{value!r} is not a valid !!{kind}", mark)
    return float(resolved) if kind == "float" else resolved


def _events(text: str):
    """libyaml's events for ``text`` (``get_event`` callable and a cleanup callable)."""
    if _Parser is not None:
        parser = _Parser(text)
        return parser.get_event, parser.dispose
    loader = yaml.SafeLoader(text)  # pragma: no cover - pure-Python PyYAML
    return loader.get_event, loader.dispose


def _build(text: str, with_positions: bool):
    """Build the document from the event stream: (data, positions or None)."""
    if len(text) > MAX_BYTES:
        raise YamlSyntaxError(f"file too large ({len(text)} characters; at most {MAX_BYTES})", 1, 1)
    get, dispose = _events(text)
    positions: dict | None = {} if with_positions else None
    try:
        return _walk(get, positions), positions
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise _error(f"YAML syntax error: {exc.problem or exc.context}", mark) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"YAML error: {exc}", 1, 1) from None
    finally:
        dispose()


_MAP, _SEQ = 0, 1


def _walk(get, positions: dict | None):
    ScalarEvent, MappingStartEvent, SequenceStartEvent = (
        yaml.ScalarEvent,
        yaml.MappingStartEvent,
        yaml.SequenceStartEvent,
    )
    MappingEndEvent, SequenceEndEvent, AliasEvent = yaml.MappingEndEvent, yaml.SequenceEndEvent, yaml.AliasEvent
    DocumentStartEvent, StreamEndEvent = yaml.DocumentStartEvent, yaml.StreamEndEvent

    get()  # StreamStartEvent
    event = get()
    if type(event) is StreamEndEvent:
        if positions is not None:
            positions[()] = (1, 1)
        return {}
    # A frame per open collection: [container, kind, pending key (None: expecting a key),
    # path, anchor, node count at its start, key mark].
    stack: list[list] = []
    anchors: dict[str, tuple | None] = {}
    count = 0
    root = frame = None
    event = get()  # the first node event after DocumentStartEvent
    while True:
        kind = type(event)
        if kind is MappingEndEvent or kind is SequenceEndEvent:
            done = stack.pop()
            if done[4] is not None:
                anchors[done[4]] = (done[0], count - done[5] + 1)
            if not stack:
                break
            event = get()
            continue
        top = stack[-1] if stack else None
        if top is not None and top[1] == _MAP and top[2] is None:
            # A mapping key: a scalar, kept as text.
            if kind is not ScalarEvent:
                if kind is AliasEvent:
                    raise _error("mapping keys must be plain scalars (found an alias)", event.start_mark)
                raise _error("mapping keys must be plain scalars", event.start_mark)
            key = event.value
            if key in top[0]:
                raise _error(f"duplicate key {key!r}", event.start_mark)
            if event.anchor is not None:
                raise _error("anchors on mapping keys are not supported", event.start_mark)
            top[2] = key
            if positions is not None:
                top[6] = event.start_mark
            event = get()
            continue
        # A node: the value of the pending key, a sequence item, or the root.
        if positions is not None:
            if top is None:
                path = ()
            elif top[1] == _MAP:
                path = top[3] + (top[2],)
            else:
                path = top[3] + (len(top[0]),)
            positions[path] = _at(event.start_mark)
        else:
            path = None
        if kind is ScalarEvent:
            count += 1
            tag = event.tag
            if tag is None or tag == "!":
                value = _plain(event.value, event.start_mark) if event.implicit[0] and tag is None else event.value
            else:
                value = _tagged(tag, event.value, event.start_mark)
            if event.anchor is not None:
                _define(anchors, event.anchor, event.start_mark)
                anchors[event.anchor] = (value, 1)
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            count += 1
            tag = event.tag
            if tag is not None and tag != "!" and tag != _CORE + ("map" if kind is MappingStartEvent else "seq"):
                raise _error(f"unsupported tag '{_tag_name(tag)}'", event.start_mark)
            if len(stack) >= MAX_DEPTH:
                raise _error(f"nesting deeper than {MAX_DEPTH} levels", event.start_mark)
            if event.anchor is not None:
                _define(anchors, event.anchor, event.start_mark)
                anchors[event.anchor] = None  # being built: an alias to it now would be recursive
            value = {} if kind is MappingStartEvent else []
            frame = [value, _MAP if kind is MappingStartEvent else _SEQ, None, path, event.anchor, count, None]
        elif kind is AliasEvent:
            name = event.anchor
            if name not in anchors:
                raise _error(f"found undefined alias {name!r}", event.start_mark)
            target = anchors[name]
            if target is None:
                raise _error(f"alias {name!r} refers to a node that contains it (recursive alias)", event.start_mark)
            value, size = target
            count += size
        else:  # pragma: no cover - libyaml yields only the events above inside a document
            raise _error(f"unexpected YAML event {kind.__name__}", event.start_mark)
        if count > MAX_NODES:
            raise _error(f"the document expands to more than {MAX_NODES} nodes", event.start_mark)
        if top is None:
            root = value
        elif top[1] == _MAP:
            top[0][top[2]] = value
            if positions is not None:
                positions[path] = _at(top[6])  # a mapping entry is located at its key
            top[2] = None
        else:
            top[0].append(value)
        if frame is not None:
            stack.append(frame)
            frame = None
        elif top is None:
            break  # a scalar or alias document
        event = get()
    event = get()  # DocumentEndEvent
    event = get()
    if type(event) is DocumentStartEvent:
        raise _error("expected a single document in the stream, but found another document", event.start_mark)
    return root


def _define(anchors: dict, name: str, mark) -> None:
    if name in anchors:
        raise _error(f"anchor {name!r} is defined twice", mark)


def load_yaml(text: str, *, positions: bool = False) -> Located:
    """Parse one YAML document; raise YamlSyntaxError (with a position) on any problem.

    Positions are computed now with ``positions=True``, else on first use.
    """
    if positions:
        data, table = _build(text, True)
        return Located(data, table)
    data, _ = _build(text, False)
    return Located(data, load_positions=lambda: _build(text, True)[1])


class _Dumper(yaml.SafeDumper):
    pass


def _str_representer(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str_representer)


def dump_yaml(data: object) -> str:
    """Dump plain data deterministically (keys in model order, unicode kept)."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
