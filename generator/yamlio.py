"""YAML loading with source positions, using a strict YAML 1.2-style core schema.

PyYAML's default (YAML 1.1) resolver turns ``910_93`` into the integer 91093 and ``no`` into
False; product tags and names must survive verbatim, so this loader only recognises
``true``/``false``, ``null``/``~``, plain decimal integers and plain floats. Every mapping key and
sequence item records where it came from so that model errors can name a line and column.
"""

from __future__ import annotations

import re

import yaml

Loc = tuple[int, int]  # (line, col), 1-based
PathKey = tuple  # tuple of str | int


# libyaml's parser when available (about 20x faster); same resolver and constructor either way.
_Base = getattr(yaml, "CSafeLoader", None) if yaml.__with_libyaml__ else None


class _StrictLoader(_Base or yaml.SafeLoader):  # type: ignore[misc, valid-type]
    pass


# Replace the implicit resolvers with a YAML 1.2 core subset.
_StrictLoader.yaml_implicit_resolvers = {}
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|)$"), ["~", "n", ""])
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf)|\.(?:nan|NaN))$"),
    list("-+0123456789."),
)


class Located:
    """Parsed YAML data plus a map from field path to its source position.

    Positions are only needed to report errors, so a cached parse loads them on first use.
    """

    def __init__(self, data: object, positions: dict[PathKey, Loc] | None = None, load_positions=None):
        self.data = data
        self._positions = positions
        self._load_positions = load_positions

    @property
    def positions(self) -> dict[PathKey, Loc]:
        if self._positions is None:
            self._positions = self._load_positions() if self._load_positions else {}
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


class YamlSyntaxError(Exception):
    def __init__(self, message: str, line: int, col: int):
        super().__init__(message)
        self.message, self.line, self.col = message, line, col


def _convert(node, path: PathKey, positions: dict, constructor) -> object:
    positions[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        result: dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise YamlSyntaxError("mapping keys must be plain scalars", *_loc(key_node))
            key = constructor.construct_object(key_node)
            if not isinstance(key, str):
                key = key_node.value  # keep numeric-looking keys (e.g. product tag 910) as text
            if key in result:
                raise YamlSyntaxError(f"duplicate key {key!r}", *_loc(key_node))
            result[key] = _convert(value_node, path + (key,), positions, constructor)
            positions[path + (key,)] = _loc(key_node)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, path + (i,), positions, constructor) for i, item in enumerate(node.value)]
    return constructor.construct_object(node)


def _loc(node) -> Loc:
    return node.start_mark.line + 1, node.start_mark.column + 1


_CACHE_VERSION = b"opgen-yaml-2"


def _cache_dir():
    import os
    from pathlib import Path

    if os.environ.get("OPGEN_NO_CACHE"):
        return None
    root = os.environ.get("OPGEN_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "aclnn-opgen"
    )
    return Path(root) / "yaml"


def load_yaml_cached(data: bytes) -> Located:
    """``load_yaml`` with a content-addressed cache of the parse (YAML parsing dominates the load
    time of large specs). Set OPGEN_NO_CACHE=1 to bypass it, OPGEN_CACHE_DIR to move it."""
    import hashlib
    import json

    folder = _cache_dir()
    text = data.decode("utf-8")
    if folder is None:
        return load_yaml(text)
    key = hashlib.sha256(_CACHE_VERSION + data).hexdigest()
    data_path, pos_path = folder / f"{key}.json", folder / f"{key}.pos.json"

    def positions() -> dict:
        try:
            return {tuple(p): (line, col) for p, line, col in json.loads(pos_path.read_text(encoding="utf-8"))}
        except (OSError, ValueError, TypeError):
            return load_yaml(text).positions

    try:
        return Located(json.loads(data_path.read_text(encoding="utf-8")), load_positions=positions)
    except (OSError, ValueError):
        pass
    located = load_yaml(text)
    try:
        from generator.writer import write_if_changed

        table = [[list(p), line, col] for p, (line, col) in located.positions.items()]
        write_if_changed(pos_path, json.dumps(table, ensure_ascii=False))
        write_if_changed(data_path, json.dumps(located.data, ensure_ascii=False))
    except (OSError, TypeError, ValueError):
        pass  # an unwritable cache only costs time
    return located


def load_yaml(text: str) -> Located:
    """Parse one YAML document; raise YamlSyntaxError (with a position) on any syntax problem."""
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise YamlSyntaxError(f"YAML syntax error: {exc.problem or exc.context}", line, col) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"YAML error: {exc}", 1, 1) from None
    finally:
        loader.dispose()
    if node is None:
        return Located({}, {(): (1, 1)})
    positions: dict = {}
    try:
        data = _convert(node, (), positions, loader)
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        raise YamlSyntaxError(f"YAML error: {exc.problem}", mark.line + 1, mark.column + 1) from None
    return Located(data, positions)


class _Dumper(yaml.SafeDumper):
    pass


def _str_representer(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str_representer)


def dump_yaml(data: object) -> str:
    """Dump plain data deterministically (keys in model order, unicode kept)."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
