"""``opgen lint --deep``: prove, in seconds, that a spec works before anything is generated.

For each op of a loaded (already linted) project:

1. **Kernel contract** (``kernel:``): ``generator.kernels.<module>`` imports and defines ``<function>``,
   whose signature accepts exactly what the binding passes: one keyword per non-output parameter
   (``snake_case(name)``), ``product`` when ``product_aware``, one keyword per ``kernel.formats`` entry;
   every parameter it requires is among them. A module-level ``cost`` (the cost contract) must accept the
   same keywords.
2. **The op module** is rendered from the templates in memory (exactly what ``opgen generate`` writes,
   before formatting) and executed as a throw-away module: specs are data, and the rendered code is the
   generator's own (every spec string escaped); nothing is written.
3. **The example** validates (as descriptors and as NumPy arrays), runs on the numpy backend and matches
   ``example.expected`` within ``example.tolerance``.
4. **Check cases**: every enforced check has cases; its ``trigger`` fails with exactly that check (or
   its ``shadowed_by``) and status code, its ``boundary`` passes.

Every failure is a located :class:`Diagnostic` (``FILE:LINE:COL: field.path: message``) saying what
happened instead (which check fired, with the values it saw). A spec without ``kernel:`` skips steps 1
and 3's run (it says so).
"""

from __future__ import annotations

import contextlib
import inspect
import sys
import traceback
import types
from dataclasses import dataclass, field

from generator.diagnostics import Diagnostic, did_you_mean, display_path
from generator.loader import OpInfo, Project, _dotted
from generator.model import OpSpec, snake_case


@dataclass
class DeepReport:
    """What ``--deep`` found for one op: problems (located) and what was proven or skipped."""

    op: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def deep_check(project: Project) -> list[DeepReport]:
    """Run every deep check on every op of ``project``."""
    from generator.emit import python as py
    from generator.generate import environment

    env = environment()
    reports = []
    with _catalog_installed(py.catalog_context(project)):
        for info in project.ops:
            reports.append(_Deep(info, project, env).run())
    return reports


@contextlib.contextmanager
def _catalog_installed(catalog: dict):
    """The runtime's tables for this project's catalogue (restored to the aclnn package's afterwards)."""
    from generator import runtime as rt

    rt.install_catalog(catalog["dtypes"], catalog["formats"], catalog["products"], catalog["status_codes"])
    try:
        yield
    finally:
        package = sys.modules.get("aclnn")
        previous = getattr(package, "CATALOG", None)
        if previous is not None:
            rt.install_catalog(previous["dtypes"], previous["formats"], previous["products"], previous["status_codes"])


def render_module(info: OpInfo, project: Project, env=None) -> types.ModuleType:
    """The op's ``aclnn.ops.<snake>`` module, rendered in memory and executed (nothing is written).

    The runtime must hold the project's catalogue (``aclnn`` installs the repository's on import).
    """
    from generator.emit import python as py

    if env is None:
        from generator.generate import environment

        env = environment()
    source = env.get_template("python/op.py.j2").render(**py.op_context(info, project.catalog))
    module = types.ModuleType(f"_opgen_deep_{info.spec.snake}")
    module.__file__ = f"<aclnn.ops.{info.spec.snake} rendered by opgen lint --deep>"
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # the generator's own code (spec text escaped)
    return module


def kernel_keywords(spec: OpSpec) -> list[tuple[str, tuple, str]]:
    """The keywords the binding passes to the kernel: (keyword, spec path that asks for it, what it is)."""
    out = [
        (snake_case(p.name), ("params", i, "name"), f"parameter '{p.name}'")
        for i, p in enumerate(spec.params)
        if p.role != "output"
    ]
    if spec.kernel is not None and spec.kernel.product_aware:
        out.append(("product", ("kernel", "product_aware"), "product_aware"))
    for key, name in (spec.kernel.formats if spec.kernel else {}).items():
        out.append((key, ("kernel", "formats", key), f"the format of '{name}'"))
    return out


def signature_problems(func, keywords: list[tuple[str, tuple, str]], label: str) -> list[tuple[tuple, str]]:
    """(spec path, message) for each keyword ``func`` cannot take and each parameter it needs but never gets."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError) as exc:
        return [(("kernel", "function"), f"{label}: the signature cannot be read ({exc})")]
    by_keyword = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    problems = []
    passed = [key for key, _, _ in keywords]
    for key, path, what in keywords:
        if key in by_keyword or takes_any:
            continue
        if key in params:  # positional-only
            problems.append((path, f"{label} takes '{key}' positionally only; the binding passes it by keyword"))
        else:
            problems.append(
                (
                    path,
                    f"the binding passes {key}= ({what}) but {label} has no parameter '{key}'"
                    f"{did_you_mean(key, by_keyword)}; it takes: {_signature_text(params)}",
                )
            )
    for name, p in params.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty or name in passed:
            continue
        problems.append(
            (
                ("kernel", "function"),
                f"{label} requires '{name}', which the binding never passes{did_you_mean(name, passed)} "
                f"(it passes: {', '.join(passed) or 'nothing'})",
            )
        )
    return problems


def _signature_text(params) -> str:
    return ", ".join(str(p) for p in params.values()) or "no parameters"


class _Deep:
    def __init__(self, info: OpInfo, project: Project, env):
        self.info, self.spec, self.project, self.env = info, info.spec, project, env
        self.report = DeepReport(self.spec.name)
        self.file = display_path(info.path)
        self.module = None

    def error(self, path: tuple, message: str) -> None:
        line, col = self.info.located.locate(path) if self.info.located else (0, 0)
        self.report.diagnostics.append(Diagnostic(self.file, line, col, _dotted(path), message))

    def note(self, text: str) -> None:
        self.report.notes.append(text)

    # -- steps

    def run(self) -> DeepReport:
        kernel_ok = self._kernel() if self.spec.kernel is not None else None
        self.module = self._build()
        if self.module is None:
            return self.report
        self._example(run=kernel_ok is True)
        self._cases()
        if self.spec.kernel is None:
            self.note("no kernel: the run step is skipped (backend='numpy' raises 561003; validators are checked)")
        return self.report

    def _kernel(self) -> bool:
        """Step 1: the kernel module, function and signature (and ``cost``) match the binding's call."""
        import importlib

        kernel = self.spec.kernel
        name = f"generator.kernels.{kernel.module}"
        before = len(self.report.diagnostics)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                self.error(("kernel", "module"), f"no kernel module '{name}' (generator/kernels/{kernel.module}.py)")
            else:
                self.error(("kernel", "module"), f"importing {name} fails: {_exception_text(exc)}")
            return False
        except Exception as exc:  # a broken kernel module: say where
            self.error(("kernel", "module"), f"importing {name} fails: {_exception_text(exc)}")
            return False
        func = getattr(module, kernel.function, None)
        if not callable(func):
            public = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
            self.error(
                ("kernel", "function"),
                f"{name} has no function '{kernel.function}'{did_you_mean(kernel.function, public)}"
                f" (it defines: {', '.join(public) or 'nothing callable'})",
            )
            return False
        keywords = kernel_keywords(self.spec)
        for path, message in signature_problems(func, keywords, f"{kernel.module}.{kernel.function}()"):
            self.error(path, message)
        cost = getattr(module, "cost", None)
        if callable(cost):
            for path, message in signature_problems(cost, keywords, f"{kernel.module}.cost()"):
                self.error(path, f"cost contract: {message}")
        if len(self.report.diagnostics) == before:
            self.note(
                f"kernel {kernel.module}.{kernel.function}() takes the binding's keywords "
                f"({', '.join(k for k, _, _ in keywords)})" + (" and so does cost()" if callable(cost) else "")
            )
            return True
        return False

    def _build(self):
        """Step 2: render the op module and execute it as a throw-away module."""
        try:
            return render_module(self.info, self.project, self.env)
        except Exception as exc:  # a generator bug: the spec is fine, its rendering is not
            self.error((), f"the generated module for {self.spec.name} does not load ({_exception_text(exc)})")
            return None

    def _args(self, overrides: dict | None = None, *, with_data: bool, outputs_missing: bool) -> list:
        from generator.runtime.examples import arguments

        kwargs = arguments(self.spec, self.spec.example, overrides, with_data=with_data)
        absent = self.module.MISSING if outputs_missing else None
        return [kwargs.get(p.name, absent if p.role == "output" else None) for p in self.spec.params]

    def _example(self, *, run: bool) -> None:
        """Step 3: the example validates (descriptors, arrays), runs and matches ``expected``."""
        from generator.runtime import AclnnError

        example = self.spec.example
        for with_data, how in ((False, "as descriptors"), (True, "as NumPy arrays (formats inferred from the rank)")):
            try:
                args = self._args(with_data=with_data, outputs_missing=True)
                self.module.validate(*args, product=example.product)
            except AclnnError as exc:
                self.error(("example",), f"the example {how} fails on product {example.product}: {_verdict(exc)}")
                return
            except Exception as exc:
                self.error(("example",), f"validating the example {how} raised {_exception_text(exc)}")
                return
        if not run:
            if self.spec.kernel is not None:
                self.note("the example validates; not run (the kernel does not match the binding)")
            return
        if not example.expected:
            self.error(("example",), "the example records no 'expected' outputs: its run cannot be checked")
            return
        try:
            args = self._args(with_data=True, outputs_missing=False)
            result = getattr(self.module, self.spec.snake)(*args, product=example.product, backend="numpy")
        except AclnnError as exc:
            crash = exc.__cause__
            if crash is not None and not isinstance(crash, (ValueError, IndexError, AclnnError)):
                # a kernel bug (not a refusal): point at the kernel's source line
                self.error(("kernel", "function"), f"running the example raised {_exception_text(crash)}")
            else:
                self.error(("example",), f"running the example failed: {exc}")
            return
        except Exception as exc:
            self.error(("kernel", "function"), f"running the example raised {_exception_text(exc)}")
            return
        outputs = [p.name for p in self.spec.outputs]
        values = dict(zip(outputs, result if len(outputs) > 1 else (result,)))
        worst = 0.0
        for name, expected in example.expected.items():
            diff = self._compare(name, values.get(name), expected)
            worst = max(worst, diff) if diff is not None else worst
        if not any(d.path.startswith("example") for d in self.report.diagnostics):
            self.note(
                f"the example validates, runs and matches {len(example.expected)} expected output(s) "
                f"(largest |difference| {worst:.3g}; rtol={example.tolerance.rtol}, atol={example.tolerance.atol})"
            )

    def _compare(self, name: str, got, expected) -> float | None:
        import numpy as np

        from generator.runtime.values import normalize_dtype

        path = ("example", "expected", name)
        if got is None:
            self.error(path, f"{name} is not produced (the binding returned None) but 'expected' lists it")
            return None
        got = np.asarray(got)
        if list(got.shape) != list(expected.shape):
            self.error(path, f"{name} has shape {list(got.shape)}, expected {expected.shape}")
            return None
        try:
            got_dtype = normalize_dtype(got.dtype)
        except Exception:
            got_dtype = str(got.dtype)
        if got_dtype != expected.dtype:
            self.error(path + ("dtype",), f"{name} comes back as {got_dtype}, expected {expected.dtype}")
        if expected.data is not None:
            want = np.asarray(expected.data, dtype=np.float64).reshape(expected.shape)
        elif expected.fill is not None:
            want = np.full(expected.shape, expected.fill, dtype=np.float64)
        else:
            self.error(path, f"the expected {name} gives neither 'data' nor 'fill'")
            return None
        values = got.astype(np.float64)
        tol = self.spec.example.tolerance
        close = np.isclose(values, want, rtol=tol.rtol, atol=tol.atol)
        if close.all():
            return float(np.max(np.abs(values - want), initial=0.0))
        excess = np.where(close, -np.inf, np.abs(values - want) - (tol.atol + tol.rtol * np.abs(want)))
        excess = np.where(np.isnan(excess), np.inf, excess)
        index = np.unravel_index(int(np.argmax(excess)), want.shape)
        where = tuple(int(i) for i in index)
        self.error(
            path,
            f"{name}: {int((~close).sum())} of {close.size} values differ beyond rtol={tol.rtol}, atol={tol.atol}; "
            f"worst at index {list(where)}: got {float(values[index])!r}, expected {float(want[index])!r}",
        )
        return None

    def _cases(self) -> None:
        """Step 4: each trigger fails with exactly its check and code; each boundary passes."""
        catalog = self.project.catalog
        spec, example = self.spec, self.spec.example
        triggers = boundaries = 0
        for i, check in enumerate(spec.checks):
            if not check.enforced:
                continue
            base = ("checks", i)
            if check.cases is None:
                self.error(
                    base,
                    f"check '{check.id}' has no cases: add cases: {{trigger: {{...}}}} with the overrides of the "
                    "example that make exactly this check fail",
                )
                continue
            code = catalog.status(check.code)[0]
            expected = check.cases.shadowed_by or check.id
            expected_code = code if expected == check.id else catalog.status(self._check(expected).code)[0]
            product = check.cases.product or example.product
            verdict = self._validate(check.cases.trigger, product)
            where = base + ("cases", "trigger")
            if isinstance(verdict, str):
                self.error(where, f"the trigger of '{check.id}' cannot be run: {verdict}")
            elif verdict is None:
                self.error(
                    where,
                    f"the trigger of '{check.id}' passes every check on product {product}; "
                    f"'{expected}' ({expected_code}) should reject it",
                )
            elif (verdict.check, verdict.code) != (expected, expected_code):
                fired = (
                    f"'{verdict.check}' ({verdict.code})" if verdict.check else f"({verdict.code}) before the checks"
                )
                self.error(
                    where,
                    f"the trigger of '{check.id}' fails {fired} instead of '{expected}' ({expected_code}) "
                    f"on product {product}: {verdict.message}",
                )
            else:
                triggers += 1
            boundary_product = example.product if check.kind == "product_supported" else product
            verdict = self._validate(check.cases.boundary, boundary_product)
            where = base + ("cases", "boundary") if check.cases.boundary else base + ("cases",)
            label = "boundary" if check.cases.boundary else "boundary (the example itself)"
            if isinstance(verdict, str):
                self.error(where, f"the {label} of '{check.id}' cannot be run: {verdict}")
            elif verdict is not None:
                fired = f"check '{verdict.check}'" if verdict.check else "before the checks"
                self.error(
                    where,
                    f"the {label} of '{check.id}' should pass on product {boundary_product} but fails {fired} "
                    f"({verdict.code}): {verdict.message}",
                )
            else:
                boundaries += 1
        self.note(f"{triggers} trigger case(s) fail with exactly their check, {boundaries} boundary case(s) pass")
        self._unsupported_products()

    def _unsupported_products(self) -> None:
        """The example on each product the op does not support is refused (161002, or the spec's own
        product check's code)."""
        catalog = self.project.catalog
        codes = {161002} | {catalog.status(c.code)[0] for c in self.spec.checks if c.kind == "product_supported"}
        for tag in catalog.product_tags:
            if tag in self.spec.products:
                continue
            verdict = self._validate({}, tag)
            if verdict is None or isinstance(verdict, str) or verdict.code not in codes:
                got = "passes" if verdict is None else verdict if isinstance(verdict, str) else _verdict(verdict)
                self.error(
                    ("products",),
                    f"on product {tag}, which the op does not support, the example should be refused with "
                    f"{' or '.join(map(str, sorted(codes)))}; it {got if verdict is None else 'fails: ' + got}",
                )

    def _check(self, check_id: str):
        return next(c for c in self.spec.checks if c.id == check_id)

    def _validate(self, overrides: dict, product: str):
        """None when the call passes, the AclnnError when it fails, a text when it cannot be made."""
        from generator.runtime import AclnnError

        try:
            args = self._args(overrides, with_data=False, outputs_missing=True)
        except Exception as exc:
            return f"its arguments cannot be built ({_exception_text(exc)})"
        try:
            self.module.validate(*args, product=product)
        except AclnnError as exc:
            return exc
        except Exception as exc:
            return f"validate() raised {_exception_text(exc)}"
        return None


def _verdict(exc) -> str:
    return f"check '{exc.check}' ({exc.code}): {exc.message}" if exc.check else f"{exc.code}: {exc.message}"


def _exception_text(exc: BaseException) -> str:
    """``Type: message (file:line in function)`` at the innermost frame of our own code."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/generator/" in f.filename.replace("\\", "/")]
    frame = (ours or frames or [None])[-1]
    where = f" ({display_path_of(frame.filename)}:{frame.lineno} in {frame.name})" if frame else ""
    return f"{type(exc).__name__}: {exc}{where}"


def display_path_of(filename: str) -> str:
    from pathlib import Path

    return display_path(Path(filename)) if not filename.startswith("<") else filename
