"""Load spec files into the model and cross-check them, reporting every problem with a position.

``load_project(specs_dir)`` returns a :class:`Project` (catalogues + operator specs, each op with
its parsed rule expressions) or raises :class:`SpecError` listing every diagnostic of every file.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path

from pydantic import ValidationError

from generator import expr as ex
from generator.diagnostics import Diagnostic, SpecError, did_you_mean, display_path
from generator.files import spec_files
from generator.int_ranges import C_INT_RANGES
from generator.model import (
    MAX_EXAMPLE_ELEMENTS,
    TENSOR_CTYPES,
    DtypeCatalog,
    DtypesFrom,
    ExampleScalar,
    ExampleTensor,
    FormatCatalog,
    HeaderCatalog,
    OpSpec,
    Param,
    ProductCatalog,
    StatusCatalog,
)
from generator.yamlio import MAX_BYTES, Located, YamlSyntaxError, load_yaml

CATALOG_FILES = {
    "products": ("products.yaml", ProductCatalog),
    "dtypes": ("dtypes.yaml", DtypeCatalog),
    "formats": ("formats.yaml", FormatCatalog),
    "status_codes": ("status_codes.yaml", StatusCatalog),
    "headers": ("headers.yaml", HeaderCatalog),
}
OPTIONAL_CATALOG_FILES = ("headers",)  # an absent optional catalogue is empty
SCHEMA_COMMENT = "# yaml-language-server: $schema="


@dataclass
class Catalog:
    """The shared catalogues, with lookups by every accepted spelling."""

    products: ProductCatalog
    dtypes: DtypeCatalog
    formats: FormatCatalog
    status_codes: StatusCatalog
    headers: HeaderCatalog = field(default_factory=HeaderCatalog)

    @cached_property
    def product_tags(self) -> list[str]:
        return [p.tag for p in self.products.products]

    @cached_property
    def dtype_names(self) -> frozenset[str]:
        return frozenset(d.name for d in self.dtypes.dtypes)

    @cached_property
    def format_names(self) -> frozenset[str]:
        return frozenset(f.name for f in self.formats.formats)

    @cached_property
    def status_by_name(self) -> dict[str, int]:
        return {s.name: s.value for s in self.status_codes.status_codes}

    @cached_property
    def status_by_value(self) -> dict[int, str]:
        return {s.value: s.name for s in self.status_codes.status_codes}

    def status(self, ref: int | str) -> tuple[int, str]:
        """(value, name) for a status reference given by value or name (must be known)."""
        if isinstance(ref, int):
            return ref, self.status_by_value[ref]
        return self.status_by_name[ref], ref

    def dtype(self, name: str):
        return next(d for d in self.dtypes.dtypes if d.name == name)

    def format(self, name: str):
        return next(f for f in self.formats.formats if f.name == name)

    def product(self, tag: str):
        return next(p for p in self.products.products if p.tag == tag)


@dataclass
class OpInfo:
    """An operator spec plus what the loader derived from it (parsed expressions, origin)."""

    spec: OpSpec
    path: Path
    exprs: dict[tuple, ex.Node] = field(default_factory=dict)  # (field path) -> parsed node
    located: Located | None = None


@dataclass
class Project:
    root: Path
    catalog: Catalog
    ops: list[OpInfo]

    def op(self, name: str) -> OpInfo:
        for info in self.ops:
            if name in (info.spec.name, info.spec.op, info.spec.snake):
                return info
        raise KeyError(name)


# ---------------------------------------------------------------------------------------------


def _pydantic_diagnostics(exc: ValidationError, located: Located, file: str) -> list[Diagnostic]:
    diags = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        # Drop pydantic's union-branch markers (e.g. 'ExampleTensor', 'list[int]') from the path.
        path = tuple(
            p for p in loc if isinstance(p, int) or (p in _field_names(located, loc) and not p.startswith("Example"))
        )
        line, col = located.locate(path)
        message = err["msg"]
        if err["type"] == "extra_forbidden":
            parent = _parent_fields(path)
            message = f"unknown key '{path[-1]}'{did_you_mean(path[-1], parent)}" if path else message
        elif err["type"] == "missing":
            message = f"missing required key '{path[-1]}'" if path else message
        elif err["type"] == "literal_error":
            got = _value_at(located.data, path)
            message = f"{message}, got {got!r}"
            allowed = err.get("ctx", {}).get("expected", "")
            choices = [c.strip(" '") for c in allowed.replace(" or ", ",").split(",")]
            message += did_you_mean(got, choices)
        message = message.replace("Value error, ", "")
        diags.append(Diagnostic(file, line, col, _dotted(path), message))
    return _dedupe_union(diags)


def _dedupe_union(diags: list[Diagnostic]) -> list[Diagnostic]:
    """A union field produces one error per branch; keep the first per location."""
    seen, result = set(), []
    for d in diags:
        key = (d.line, d.col, d.path)
        if key not in seen:
            seen.add(key)
            result.append(d)
    return result


@cache
def _all_field_names() -> frozenset[str]:
    """Every field name of every model (to tell a real key from pydantic's union-branch labels)."""
    from generator import model

    names: set[str] = set()
    for obj in vars(model).values():
        if isinstance(obj, type) and hasattr(obj, "model_fields"):
            names |= set(obj.model_fields)
    return frozenset(names)


def _field_names(located: Located, loc: tuple) -> set[str]:
    names = set(_all_field_names())
    data = located.data
    for part in loc:  # keys that exist in the data (e.g. example input names) are real path parts
        if isinstance(data, dict):
            names |= set(data)
            data = data.get(part) if part in data else None
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            data = None
    return names


def _parent_fields(path: tuple) -> list[str]:
    from generator import model

    candidates = {
        "": model.OpSpec,
        "params": model.Param,
        "checks": model.Check,
        "tensor": model.TensorSpec,
        "example": model.Example,
        "doc_issues": model.DocIssue,
        "kernel": model.Kernel,
    }
    if len(path) >= 2 and path[-2] == "dtypes":  # tensor.dtypes: {same_as: ...} / {table: ...}
        return list(model.DtypesFrom.model_fields)
    if len(path) >= 3 and path[-3] in ("dtypes", "dtype_tables") and isinstance(path[-2], int):
        return list(model.DtypeRule.model_fields)
    for part in reversed(path[:-1]):
        if isinstance(part, str) and part in candidates:
            return list(candidates[part].model_fields)
    if len(path) == 1:
        return list(model.OpSpec.model_fields)
    return sorted(_all_field_names())


def _value_at(data, path):
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _dotted(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _read(path: Path, file: str) -> Located:
    """Read and parse one YAML file (spec or catalogue); every problem is a located SpecError."""
    import stat

    def fail(line: int, col: int, message: str) -> SpecError:
        return SpecError([Diagnostic(file, line, col, "", message)])

    try:
        st = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise fail(0, 0, f"broken symbolic link (to {os.readlink(path)}, which does not exist)") from None
        raise fail(0, 0, "no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise fail(0, 0, "symbolic link loop") from None
        raise fail(0, 0, f"cannot read file: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise fail(0, 0, "is a folder, not a YAML file")
    if not stat.S_ISREG(st.st_mode):
        raise fail(0, 0, "not a regular file")
    if st.st_size > MAX_BYTES:
        raise fail(0, 0, f"file too large ({st.st_size} bytes; at most {MAX_BYTES})")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise fail(0, 0, f"cannot read file: {exc.strerror}") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raise fail(1, 1, "the file starts with a byte-order mark (U+FEFF); save it as UTF-8 without BOM")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise fail(line, col, f"file is not valid UTF-8 ({exc.reason})") from None
    try:
        located = load_yaml(text)
    except YamlSyntaxError as exc:
        raise fail(exc.line, exc.col, exc.message) from None
    if not isinstance(located.data, dict):
        raise fail(1, 1, "the document must be a mapping of keys to values")
    return located


def _outside(path: Path, root: Path) -> str | None:
    """The target of ``path`` when a symbolic link (the file or a folder on the way from ``root``)
    leads out of ``root``; None otherwise."""
    apath, aroot = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    if not (apath.is_symlink() or any(p.is_symlink() for p in apath.parents if aroot in p.parents)):
        return None
    try:
        target, real_root = apath.resolve(strict=True), aroot.resolve()
    except (OSError, RuntimeError):
        return None  # a loop or a broken link: reading the file reports it
    if target == real_root or real_root in target.parents:
        return None
    return str(target)


def _contained(path: Path, root: Path) -> None:
    """Refuse a spec or catalogue file that is a symbolic link to a file outside the specs folder."""
    target = _outside(path, root)
    if target is not None:
        raise SpecError(
            [
                Diagnostic(
                    display_path(path),
                    0,
                    0,
                    "",
                    f"symbolic link to a file outside the specs folder ({target}); copy the file into the folder",
                )
            ]
        )


def load_catalog(specs_dir: Path) -> Catalog:
    parts, diags = {}, []
    for key, (filename, model_cls) in CATALOG_FILES.items():
        path = specs_dir / "catalog" / filename
        file = display_path(path)
        if not path.exists() and not path.is_symlink():
            if key in OPTIONAL_CATALOG_FILES:
                parts[key] = model_cls()
            else:
                diags.append(Diagnostic(file, 0, 0, "", "catalogue file is missing"))
            continue
        try:
            _contained(path, specs_dir)
            located = _read(path, file)
            parts[key] = model_cls.model_validate(located.data)
        except SpecError as exc:
            diags += exc.diagnostics
        except ValidationError as exc:
            diags += _pydantic_diagnostics(exc, located, file)
    if diags:
        raise SpecError(diags)
    catalog = Catalog(**parts)
    diags += _check_catalog_unique(catalog, specs_dir)
    if diags:
        raise SpecError(diags)
    return catalog


def _check_catalog_unique(catalog: Catalog, specs_dir: Path) -> list[Diagnostic]:
    diags = []
    for key, items, attr in (
        ("products", catalog.products.products, "tag"),
        ("dtypes", catalog.dtypes.dtypes, "name"),
        ("formats", catalog.formats.formats, "name"),
        ("status_codes", catalog.status_codes.status_codes, "name"),
        ("headers", catalog.headers.headers, "file"),
        ("headers", catalog.headers.headers, "guard"),
    ):
        seen = set()
        for i, item in enumerate(items):
            value = getattr(item, attr)
            if value in seen:
                file = display_path(specs_dir / "catalog" / CATALOG_FILES[key][0])
                diags.append(Diagnostic(file, 0, 0, f"{key}[{i}].{attr}", f"duplicate {attr} '{value}'"))
            seen.add(value)
    apis: set[str] = set()
    for i, entry in enumerate(catalog.headers.headers):
        for j, api in enumerate(entry.apis):
            if api in apis:
                file = display_path(specs_dir / "catalog" / CATALOG_FILES["headers"][0])
                diags.append(Diagnostic(file, 0, 0, f"headers[{i}].apis[{j}]", f"'{api}' is listed by two headers"))
            apis.add(api)
    return diags


def load_op(path: Path, catalog: Catalog) -> OpInfo:
    """Load and cross-check one operator spec; raise SpecError with every problem found."""
    file = display_path(path)
    located = _read(path, file)
    try:
        spec = OpSpec.model_validate(located.data)
    except ValidationError as exc:
        raise SpecError(_pydantic_diagnostics(exc, located, file)) from None
    info = OpInfo(spec, path, located=located)
    checker = _CrossChecker(info, catalog, located, file)
    checker.run()
    if checker.diags:
        raise SpecError(checker.diags)
    return info


def load_project(specs_dir: Path, files: list[Path] | None = None) -> Project:
    """Load the catalogue and every op spec of ``specs_dir`` (or only ``files``); SpecError lists
    every problem of every file."""
    catalog = load_catalog(specs_dir)
    diags: list[Diagnostic] = []
    ops: list[OpInfo] = []
    paths = files if files is not None else spec_files(specs_dir)
    if not paths:
        where = display_path(specs_dir)
        raise SpecError([Diagnostic(where, 0, 0, "", "no operator specs (*.yaml outside catalog/) in this folder")])
    for path in paths:
        try:
            _contained(path, specs_dir)
            ops.append(load_op(path, catalog))
        except SpecError as exc:
            diags += exc.diagnostics
    diags += _check_unique_ops(ops)
    if diags:
        raise SpecError(diags)
    return Project(specs_dir, catalog, sorted(ops, key=lambda o: o.spec.name))


UNIQUE_ATTRS = ("name", "snake")


def _check_unique_ops(ops: list[OpInfo]) -> list[Diagnostic]:
    """Two specs may not share a name or a snake name (their outputs would collide); specs that
    name one header are declared together in it."""
    diags, seen = [], {}
    for info in ops:
        for attr in UNIQUE_ATTRS:
            value = getattr(info.spec, attr)
            if (attr, value) in seen:
                line, col = info.located.locate((attr,))
                other = display_path(seen[(attr, value)])
                diags.append(
                    Diagnostic(display_path(info.path), line, col, attr, f"'{value}' is already used by {other}")
                )
            seen[(attr, value)] = info.path
    return diags


# ---------------------------------------------------------------------------------------------


def expr_type(param: Param) -> str:
    """The expression-language type of a parameter."""
    if param.ctype in TENSOR_CTYPES:
        return ex.TENSOR
    return {
        "const aclScalar*": ex.SCALAR,
        "const aclTensorList*": "tensor[]",  # no rule can use it (no attributes); examples: lists of tensors
        "const char*": "str",
        "char*": "str",
        "const aclIntArray*": ex.INTS,
        "const aclBoolArray*": ex.BOOLS,
        "const aclFloatArray*": ex.FLOATS,
        "bool": ex.BOOL,
        "double": ex.FLOAT,
        "float": ex.FLOAT,
    }.get(param.ctype, ex.INT)


class _CrossChecker:
    def __init__(self, info: OpInfo, catalog: Catalog, located: Located, file: str):
        self.info, self.spec, self.catalog = info, info.spec, catalog
        self.located, self.file = located, file
        self.diags: list[Diagnostic] = []
        self.params = {p.name: p for p in self.spec.params}
        self.scope = ex.Scope(
            {p.name: expr_type(p) for p in self.spec.params},
            catalog.dtype_names,
            catalog.format_names,
            products=frozenset(catalog.product_tags),
        )
        # A spec repeats rules (the same `when` on several checks): each text is parsed once for
        # its expected type (nodes are immutable; a text that does not parse is reported every time).
        self._parsed: dict[tuple[str, str | None], ex.Node] = {}

    def error(self, path: tuple, message: str, col_offset: int | None = None) -> None:
        line, col = self.located.locate(path)
        if col_offset is not None:
            value = _value_at(self.located.data, path)
            # Point inside a one-line scalar value: after 'key: ' on the same line.
            key_len = len(str(path[-1])) + 2 if isinstance(path[-1], str) else 2
            if isinstance(value, str):
                col = col + key_len + col_offset
        self.diags.append(Diagnostic(self.file, line, col, _dotted(path), message))

    def run(self) -> None:
        self._check_header()
        self._check_names()
        for i, tag in enumerate(self.spec.products):
            self._product(("products", i), tag)
        for name, rules in self.spec.dtype_tables.items():
            self._dtype_rules(("dtype_tables", name), rules)
        for i, p in enumerate(self.spec.params):
            self._param(("params", i), p)
        if not self.diags:  # every shared dtype table resolves: emitters see full tables
            self.spec = self.info.spec = self.spec.resolved()
        self._kernel()
        for i, d in enumerate(self.spec.defaults):
            self._param_ref(("defaults", i, "param"), d.param)
            self._expr(("defaults", i, "when"), d.when, ex.BOOL)
            self._expr(("defaults", i, "value"), d.value, None)
        seen_ids = set()
        for i, c in enumerate(self.spec.checks):
            if c.id in seen_ids:
                self.error(("checks", i, "id"), f"duplicate check id '{c.id}'")
            seen_ids.add(c.id)
            self._check(("checks", i), c)
        for i, c in enumerate(self.spec.constraints):
            for j, tag in enumerate(c.products or []):
                self._product(("constraints", i, "products", j), tag)
        self._example()
        if not self.diags:  # the example against the checks needs a consistent spec
            self._example_passes_checks()

    def _check_header(self) -> None:
        text = self.info.path.read_text(encoding="utf-8")
        if not text.startswith(SCHEMA_COMMENT):
            self.error((), f"the file must start with '{SCHEMA_COMMENT}...' so editors can check it")
        for entry in self.catalog.headers.headers:  # CANN declares the API in one header (catalog/headers.yaml)
            if self.spec.name in entry.apis and entry.file != self.spec.header:
                self.error(("header",), f"CANN declares {self.spec.name} in '{entry.file}' (catalog/headers.yaml)")

    def _check_names(self) -> None:
        from generator.escape.python import python_local, snake_problem
        from generator.model import snake_case

        expected_snake = snake_case(self.spec.op)
        if self.spec.snake != expected_snake:
            self.error(("snake",), f"snake name of {self.spec.name} should be '{expected_snake}'")
        elif self.info.path.stem != self.spec.snake:
            self.error(("snake",), f"file name '{self.info.path.name}' should be '{self.spec.snake}.yaml'")
        problem = snake_problem(self.spec.snake)
        if problem is not None:
            self.error(("snake",), f"{problem}: the op cannot be named {self.spec.name} in the aclnn package")
        language = {"product", "true", "false", *ex.CONSTANTS}
        python_names: dict[str, str] = {}
        for i, p in enumerate(self.spec.params):
            path = ("params", i, "name")
            if p.name in ex.CPP_KEYWORDS:
                self.error(path, f"'{p.name}' is a C++ keyword; no C parameter can have this name")
            elif p.name in language or p.name in self.catalog.dtype_names or p.name in self.catalog.format_names:
                self.error(path, f"'{p.name}' is a name of the rule language (a dtype, format or constant, or product)")
            elif p.name == "backend":
                self.error(
                    path, "'backend' is an argument of aclnn.run and of the op functions; a parameter cannot use it"
                )
            local = python_local(p.name)
            if local in python_names:
                self.error(
                    path,
                    f"parameters '{python_names[local]}' and '{p.name}' both become the Python argument '{local}'",
                )
            python_names.setdefault(local, p.name)

    def _kernel(self) -> None:
        """``kernel.formats``: keywords the kernel contract leaves free, naming tensor parameters."""
        import keyword

        from generator.model import snake_case

        kernel = self.spec.kernel
        if kernel is None:
            return
        contract = {snake_case(p.name): p.name for p in self.spec.params if p.role != "output"}
        for key, name in kernel.formats.items():
            path = ("kernel", "formats", key)
            if keyword.iskeyword(key) or keyword.issoftkeyword(key):
                self.error(path, f"'{key}' is a Python keyword and cannot be a keyword argument")
            elif key == "product":
                self.error(
                    path, "'product' is the kernel keyword of 'product_aware'; name the format argument otherwise"
                )
            elif key in contract:
                self.error(path, f"'{key}' is already the kernel keyword of parameter '{contract[key]}'")
            p = self._param_ref(path, name)
            if p is not None and p.tensor is None:
                self.error(path, f"'{name}' is {p.ctype}, not a tensor: it has no format to pass")

    def _product(self, path: tuple, tag: str) -> None:
        if tag not in self.catalog.product_tags:
            self.error(path, f"unknown product '{tag}'{did_you_mean(tag, self.catalog.product_tags)}")

    def _dtype(self, path: tuple, name: str) -> None:
        if name not in self.catalog.dtype_names:
            self.error(path, f"unknown dtype '{name}'{did_you_mean(name, self.catalog.dtype_names)}")

    def _format(self, path: tuple, name: str) -> None:
        if name not in self.catalog.format_names:
            self.error(path, f"unknown format '{name}'{did_you_mean(name, self.catalog.format_names)}")

    def _status(self, path: tuple, ref) -> None:
        if isinstance(ref, int) and ref not in self.catalog.status_by_value:
            self.error(path, f"unknown status code {ref}")
        elif isinstance(ref, str) and ref not in self.catalog.status_by_name:
            self.error(path, f"unknown status code '{ref}'{did_you_mean(ref, self.catalog.status_by_name)}")

    def _param_ref(self, path: tuple, name: str) -> Param | None:
        if name not in self.params:
            self.error(path, f"unknown parameter '{name}'{did_you_mean(name, self.params)}")
            return None
        return self.params[name]

    def _expr(self, path: tuple, text: str, expect: str | None) -> ex.Node | None:
        node = self._parsed.get((text, expect))
        if node is None:
            try:
                node = ex.parse(text, self.scope, expect)
            except ex.ExprError as exc:
                self.error(path, f"in expression: {exc.message}", col_offset=exc.col)
                return None
            self._parsed[(text, expect)] = node
        self.info.exprs[path] = node
        return node

    def _dtype_rules(self, path: tuple, rules) -> None:
        """A dtype table (a tensor's own or a shared one): known products and dtypes, every product covered."""
        covered: set[str] = set()
        for i, rule in enumerate(rules):
            tags = self.spec.products if rule.products == "all" else rule.products
            if rule.products != "all":
                for j, tag in enumerate(rule.products):
                    self._product(path + (i, "products", j), tag)
            covered |= set(tags)
            for j, name in enumerate(rule.dtypes):
                self._dtype(path + (i, "dtypes", j), name)
        missing = [t for t in self.spec.products if t not in covered and t in self.catalog.product_tags]
        if missing:
            self.error(path, f"no dtypes given for supported product(s) {', '.join(missing)}")

    def _dtypes_from(self, path: tuple, p: Param, ref: DtypesFrom) -> None:
        """A shared dtype table: the named table or tensor exists, and same_as references end somewhere."""
        if ref.table is not None:
            tables = self.spec.dtype_tables
            if ref.table not in tables:
                hint = did_you_mean(ref.table, tables) if tables else " (the spec has no 'dtype_tables')"
                self.error(path + ("table",), f"unknown dtype table '{ref.table}'{hint}")
            return
        target = self.params.get(ref.same_as)
        tensors = [q.name for q in self.spec.params if q.tensor and q.name != p.name]
        if ref.same_as == p.name:
            self.error(path + ("same_as",), f"'{p.name}' cannot take its dtypes from itself")
        elif target is None:
            self.error(path + ("same_as",), f"unknown parameter '{ref.same_as}'{did_you_mean(ref.same_as, tensors)}")
        elif target.tensor is None:
            self.error(path + ("same_as",), f"'{ref.same_as}' is {target.ctype}, not a tensor: it has no dtype table")
        else:
            try:
                self.spec.dtype_source(p)
            except ValueError as exc:
                self.error(path + ("same_as",), str(exc))
            except KeyError:
                pass  # reported at the parameter whose reference is broken

    def _param(self, path: tuple, p: Param) -> None:
        if p.tensor:
            if isinstance(p.tensor.dtypes, DtypesFrom):
                self._dtypes_from(path + ("tensor", "dtypes"), p, p.tensor.dtypes)
            else:
                self._dtype_rules(path + ("tensor", "dtypes"), p.tensor.dtypes)
            for i, name in enumerate(p.tensor.formats):
                self._format(path + ("tensor", "formats", i), name)
        if p.scalar:
            if p.scalar.castable_to:
                self._dtype(path + ("scalar", "castable_to"), p.scalar.castable_to)
        if p.infer:
            fields = [("shape", ex.INTS), ("dtype", ex.DTYPE), ("format", ex.FORMAT), ("when", ex.BOOL)]
            for name, type_ in fields:
                text = getattr(p.infer, name)
                if not text:
                    continue
                node = self._expr(path + ("infer", name), text, type_)
                outputs = sorted(n for n in ex.names_mentioned(node) if self.params[n].role == "output") if node else []
                if outputs:
                    self.error(
                        path + ("infer", name),
                        f"'infer' may only use inputs and attributes; {', '.join(outputs)} is an output "
                        "(outputs are inferred from the inputs)",
                    )

    def _check(self, path: tuple, c) -> None:
        self._status(path + ("code",), c.code)
        if c.doc_code is not None:
            self._status(path + ("doc_code",), c.doc_code)
        for i, tag in enumerate(c.products or []):
            self._product(path + ("products", i), tag)
        if c.when:
            self._expr(path + ("when",), c.when, ex.BOOL)
        if c.expr is not None:
            self._expr(path + ("expr",), c.expr, ex.BOOL)
        for i, name in enumerate(c.dtypes or []):
            self._dtype(path + ("dtypes", i), name)
        for i, name in enumerate(c.formats or []):
            self._format(path + ("formats", i), name)
        wanted = {
            "not_null": None,
            "dtype_supported": "tensor",
            "dtype_in": "tensor|scalar",
            "dtype_same": "tensor|scalar",
            "dtype_castable": "tensor|scalar",
            "format_supported": "tensor",
            "format_in": "tensor",
            "format_same": "tensor",
            "format_not_private": "tensor",
            "rank_supported": "tensor",
            "rank_in": "tensor",
            "shape_same": "tensor",
            "length_in": "array",
        }.get(c.kind)
        for i, name in enumerate(c.params or []):
            p = self._param_ref(path + ("params", i), name)
            if p is None:
                continue
            kind = expr_type(p)
            if c.kind == "not_null" and p.ctype not in TENSOR_CTYPES and "*" not in p.ctype:
                self.error(path + ("params", i), f"'{name}' is a plain {p.ctype} value and cannot be null")
            if wanted == "tensor" and kind != ex.TENSOR:
                self.error(path + ("params", i), f"a '{c.kind}' check applies to tensors; '{name}' is {p.ctype}")
            if wanted == "tensor|scalar" and kind not in (ex.TENSOR, ex.SCALAR):
                self.error(
                    path + ("params", i), f"a '{c.kind}' check applies to tensors and scalars; '{name}' is {p.ctype}"
                )
            if wanted == "array" and kind not in ex.LISTS:
                self.error(path + ("params", i), f"a '{c.kind}' check applies to arrays; '{name}' is {p.ctype}")
            if c.kind == "rank_supported" and p.tensor and p.tensor.rank is None:
                self.error(path + ("params", i), f"'{name}' declares no rank range for 'rank_supported'")
        if c.cases is not None:
            if c.cases.product is not None:
                self._product(path + ("cases", "product"), c.cases.product)
            if c.cases.shadowed_by is not None:
                self._shadowed_by(path, c)
            for which in ("trigger", "boundary"):
                for name, value in getattr(c.cases, which).items():
                    p = self._param_ref(path + ("cases", which, name), name)
                    if p is not None:
                        self._example_value(path + ("cases", which, name), p, value, allow_null=True)
        if c.kind == "dtype_castable" and c.to is not None:
            if c.to not in self.params and c.to not in self.catalog.dtype_names:
                choices = [*self.params, *self.catalog.dtype_names]
                self.error(path + ("to",), f"'{c.to}' is neither a parameter nor a dtype{did_you_mean(c.to, choices)}")

    def _shadowed_by(self, path: tuple, c) -> None:
        """``shadowed_by`` names an earlier, enforced check with the same status code."""
        target, index = c.cases.shadowed_by, path[1]
        where = path + ("cases", "shadowed_by")
        earlier = {other.id: other for other in self.spec.checks[:index]}
        if target == c.id:
            self.error(where, f"check '{c.id}' cannot be shadowed by itself")
        elif target not in earlier:
            later = any(other.id == target for other in self.spec.checks[index:])
            ids = [other.id for other in self.spec.checks]
            self.error(
                where,
                f"'{target}' is a later check; shadowed_by names a check that runs first"
                if later
                else f"unknown check '{target}'{did_you_mean(target, ids)}",
            )
        elif not earlier[target].enforced:
            self.error(where, f"check '{target}' is not enforced, so it cannot catch this check's trigger first")
        else:
            codes = {self._code(other.code) for other in (c, earlier[target])}
            if len(codes) > 1 and None not in codes:
                self.error(where, f"check '{target}' returns another status code than '{c.id}'")

    def _code(self, ref) -> int | None:
        try:
            return self.catalog.status(ref)[0]
        except KeyError:
            return None

    def _example_passes_checks(self) -> None:
        """The example must pass the enforced checks (else the checks contradict the spec's own example)."""
        from generator.evaluate import Rejected, SpecEvaluator, describe

        catalog = self.catalog
        private = [f.name for f in catalog.formats.formats if f.private]
        evaluator = SpecEvaluator(self.spec, self.info.exprs, catalog.product_tags, private)
        example = self.spec.example
        try:
            values = evaluator.arguments(example)
        except Rejected as exc:
            self.error(("example", "inputs"), f"the example cannot be passed to the op: {exc}")
            return
        verdict = evaluator.first_failure(values, example.product)
        if verdict is None or verdict.index is None:
            return  # the implicit product check: reported by _example
        seen = "; ".join(f"{name}: {describe(value)}" for name, value in verdict.seen.items())
        self.error(
            ("checks", verdict.index),
            f"check '{verdict.check_id}' rejects the spec's own example (product {example.product}"
            + (f"; {seen}" if seen else "")
            + "): the rule contradicts the example",
        )

    def _example(self) -> None:
        example = self.spec.example
        base = ("example",)
        self._product(base + ("product",), example.product)
        if example.product not in self.spec.products:
            self.error(base + ("product",), f"the example's product '{example.product}' is not supported by the op")
        for name, value in example.inputs.items():
            p = self._param_ref(base + ("inputs", name), name)
            if p is None:
                continue
            self._example_value(base + ("inputs", name), p, value)
        for p in self.spec.params:
            if p.role != "output" and p.name not in example.inputs:
                self.error(base + ("inputs",), f"the example gives no value for input '{p.name}'")
        for name, value in example.expected.items():
            p = self._param_ref(base + ("expected", name), name)
            if p is not None and p.role != "output":
                self.error(base + ("expected", name), f"'{name}' is not an output")
            self._dtype(base + ("expected", name, "dtype"), value.dtype)
            self._example_tensor(base + ("expected", name), value)
        for name, value in example.inputs.items():
            if isinstance(value, ExampleTensor):
                self._example_tensor(base + ("inputs", name), value)
            elif isinstance(value, ExampleScalar):
                self._example_dtype(base + ("inputs", name, "dtype"), value.dtype)

    def _example_tensor(self, path: tuple, value) -> None:
        """The example runs (tests, docs, C++ samples): bounded size, a dtype both NumPy and C++ hold."""
        if value.numel > MAX_EXAMPLE_ELEMENTS:
            self.error(
                path + ("shape",),
                f"shape {value.shape} holds {value.numel} elements; an example holds at most {MAX_EXAMPLE_ELEMENTS}",
            )
        self._example_dtype(path + ("dtype",), value.dtype)

    def _example_dtype(self, path: tuple, name: str) -> None:
        if name not in self.catalog.dtype_names:
            return  # reported as unknown
        entry = self.catalog.dtype(name)
        if entry.kind not in ("float", "int", "uint", "bool") or entry.c_host is None or entry.numpy is None:
            self.error(
                path,
                f"the example cannot use dtype {name}: examples run in NumPy and in C++ samples, which hold "
                "real (non-complex, non-float8) dtypes with a 'numpy' and a 'c_host' type only",
            )

    def _example_value(self, path: tuple, p: Param, value, allow_null: bool = False) -> None:
        kind = expr_type(p)
        if value is None:
            if not p.nullable and not allow_null:
                self.error(path, f"'{p.name}' is not nullable")
            return
        if kind == ex.TENSOR:
            if not isinstance(value, ExampleTensor):
                self.error(path, f"'{p.name}' is a tensor: give shape, dtype and data")
                return
            self._dtype(path + ("dtype",), value.dtype)
            self._format(path + ("format",), value.format)
        elif kind == ex.SCALAR:
            if not isinstance(value, ExampleScalar):
                self.error(path, f"'{p.name}' is an aclScalar: give value and dtype")
                return
            self._dtype(path + ("dtype",), value.dtype)
        elif kind == "tensor[]":
            if not isinstance(value, list) or not all(isinstance(v, ExampleTensor) for v in value):
                self.error(path, f"'{p.name}' is an aclTensorList: give a list of tensors")
                return
            for i, item in enumerate(value):
                self._dtype(path + (i, "dtype"), item.dtype)
                self._format(path + (i, "format"), item.format)
        elif kind == "str":
            if not isinstance(value, str):
                self.error(path, f"'{p.name}' is a string ({p.ctype}): give a string")
        elif kind in ex.LISTS:
            if not isinstance(value, list) or any(isinstance(v, ExampleTensor) for v in value):
                self.error(path, f"'{p.name}' is an array: give a list")
            elif kind == ex.INTS and any(isinstance(v, bool) or not -(2**63) <= v < 2**63 for v in value):
                self.error(path, f"'{p.name}' is an int array: give int64 integers")
            elif kind == ex.BOOLS and not all(isinstance(v, bool) for v in value):
                self.error(path, f"'{p.name}' is a bool array: give true or false")
        elif kind == ex.BOOL and not isinstance(value, bool):
            self.error(path, f"'{p.name}' is a bool: give true or false")
        elif kind == ex.FLOAT and (isinstance(value, bool) or not isinstance(value, (int, float))):
            self.error(path, f"'{p.name}' is a {p.ctype}: give a number")
        elif kind == ex.INT and (not isinstance(value, int) or isinstance(value, bool)):
            self.error(path, f"'{p.name}' is an integer: give an int")
        elif kind == ex.INT:
            low, high = C_INT_RANGES.get(p.ctype, C_INT_RANGES["int64_t"])
            if not low <= value <= high:
                self.error(path, f"{value} does not fit '{p.name}' ({p.ctype}: {low}..{high})")
