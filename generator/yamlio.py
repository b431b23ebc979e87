"""YAML loading with source positions, using a strict YAML 1.2-style core schema.

PyYAML's default (YAML 1.1) resolver turns ``910_93`` into the integer 91093 and ``no`` into
False; product tags and names must survive verbatim, so this loader only recognises
``true``/``false``, ``null``/``~``, plain decimal integers and plain floats. Every mapping key and
sequence item records where it came from so that model errors can name a line and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


@dataclass
class Located:
    """Parsed YAML data plus a map from field path to its source position."""

    data: object
    positions: dict[PathKey, Loc]

    def locate(self, path: PathKey) -> Loc:
        """Position of ``path``, or of its closest located ancestor."""
        path = tuple(path)
        while path:
            if path in self.positions:
                return self.positions[path]
            path = path[:-1]
        return self.positions.get((), (1, 1))


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
