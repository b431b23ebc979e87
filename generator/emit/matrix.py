"""The support matrix: for every operator, product and tensor, the dtypes the operator accepts.

The data comes from the operators' own validators, built from the same templates as the ``aclnn``
package's, run by :mod:`generator.runtime.support`'s witness search: a dtype is listed exactly when
``aclnn.validate`` accepts a call with that tensor in that dtype on that product. A product the
spec does not list gets no dtypes (a later phase fails there even where the first-phase checks
pass). Views: ``docs/support_matrix.md``, the site's matrix page and ``opgen matrix --format json|md``.
"""

from __future__ import annotations

import json
import types
from contextlib import contextmanager

from generator.escape import markdown as esc
from generator.loader import Catalog, Project
from generator.runtime import support

Matrix = dict[str, support.Table]  # op name -> product -> tensor -> dtypes


@contextmanager
def catalog_installed(catalog: Catalog):
    """The catalogue installed in the runtime for the duration (the previous one restored)."""
    from generator.emit import python as py
    from generator.runtime import rules, values

    saved = {k: v for k, v in vars(values._Tables).items() if not k.startswith("__")}
    saved_private = rules._PRIVATE
    context = py.catalog_context(Project(None, catalog, []))
    values.install_catalog(context["dtypes"], context["formats"], context["products"], context["status_codes"])
    try:
        yield
    finally:
        for key in [k for k in vars(values._Tables) if not k.startswith("__") and k not in saved]:
            delattr(values._Tables, key)
        for key, value in saved.items():
            setattr(values._Tables, key, value)
        rules._PRIVATE = saved_private


def validator_module(info, catalog: Catalog, env, source: str | None = None) -> types.ModuleType:
    """The operator's validator module, rendered from ``templates/python/op.py.j2`` (or given as its
    rendered ``source``) and loaded in memory."""
    if source is None:
        from generator.emit import python as py

        source = env.get_template("python/op.py.j2").render(**py.op_context(info, catalog))
    module = types.ModuleType(f"opgen_validator_{info.spec.snake}")
    exec(compile(source, f"<validator of {info.spec.name}>", "exec"), module.__dict__)  # noqa: S102 - our template's output
    module.rt = _terse_runtime()
    return module


def _terse_runtime() -> types.SimpleNamespace:
    """The runtime as a validator of the matrix sees it: a failed check raises the same AclnnError
    (code, name, check id) without its message, which nobody reads here. The witness search makes
    thousands of calls per op, mostly failing; building the messages was a fifth of its time."""
    from generator import runtime
    from generator.runtime.errors import AclnnError

    def fail(info, seen, detail=""):
        return AclnnError(info.code, info.name, info.id, info.id)

    return types.SimpleNamespace(**{**vars(runtime), "fail": fail})


def op_table(info, catalog: Catalog, module: types.ModuleType) -> support.Table:
    """Product tag (every catalogue product) -> tensor -> accepted dtypes of one op; the catalogue
    must be installed (``catalog_installed``)."""
    dtypes = [d.name for d in catalog.dtypes.dtypes]
    table = support.support_table(info.spec, module, info.spec.products, dtypes, info.exprs)
    return {tag: table.get(tag, {}) for tag in catalog.product_tags}


def build(project: Project, env) -> Matrix:
    """Operator name -> product tag -> tensor parameter -> accepted dtypes (catalogue order)."""
    out: Matrix = {}
    with catalog_installed(project.catalog):
        for info in project.ops:
            out[info.spec.name] = op_table(info, project.catalog, validator_module(info, project.catalog, env))
    return out


def row(info, table: support.Table) -> dict:
    """What the matrix views need from one op (plain JSON data): its table and its tensors."""
    spec = info.spec
    return {
        "name": spec.name,
        "main_input": support.main_input(spec),
        "tensors": [[t, spec.param(t).role == "output"] for t in support.tensor_params(spec)],
        "table": {tag: {t: list(d) for t, d in cells.items()} for tag, cells in table.items()},
        "summary_zh": spec.summary.zh,
        "summary_en": spec.summary.en or spec.summary.zh,
    }


def rows(project: Project, matrix: Matrix) -> list[dict]:
    infos = {info.spec.name: info for info in project.ops}
    return [row(infos[name], table) for name, table in matrix.items()]


def main_input(project: Project, name: str) -> str:
    return support.main_input(project.op(name).spec)


def as_json(project: Project, matrix: Matrix) -> str:
    """``opgen matrix --format json``: {op: {"main_input": name, "products": {tag: {tensor: [dtypes]}}}}."""
    return rows_json(rows(project, matrix))


def rows_json(op_rows: list[dict]) -> str:
    data = {r["name"]: {"main_input": r["main_input"], "products": r["table"]} for r in op_rows}
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def anchor(text: str) -> str:
    """The id a Markdown renderer gives a heading (lower case, spaces to '-', punctuation dropped)."""
    kept = "".join(ch for ch in str(text).strip().lower() if ch.isalnum() or ch in "-_ ")
    return kept.replace(" ", "-")


def _dtypes(dtypes) -> str:
    return ", ".join(dtypes) if dtypes else "—"


def markdown(project: Project, matrix: Matrix, ext: str = ".md") -> str:
    """``docs/support_matrix.md``: main input per op x product, then one table per op (every tensor)."""
    catalog = project.catalog
    return markdown_from(catalog, [md_view(catalog, r, ext) for r in rows(project, matrix)], ext)


def md_view(catalog: Catalog, r: dict, ext: str = ".md") -> dict:
    """One op's lines of ``docs/support_matrix.md`` (from its ``row``): its line of the first table
    and its own table."""
    products = catalog.products.products
    name, table, main = r["name"], r["table"], r["main_input"]
    cells = " | ".join(_dtypes(table[p.tag].get(main, ())) for p in products)
    line = (
        f"| [{esc.md_cell(name)}](zh/{name}{ext}) ([en](en/{name}{ext})) · [{esc.md_cell('所有张量 / all tensors')}]"
        f"(#{anchor(name)}) | {esc.md_cell(main)} | {cells} |"
    )
    section = ["", f"## {esc.md_inline(name)}", ""]
    section.append("| 张量 / Tensor | " + " | ".join(esc.md_cell(p.zh) for p in products) + " |")
    section.append("| --- |" + " --- |" * len(products))
    for tensor, output in r["tensors"]:
        role = "输出 / output" if output else "输入 / input"
        cells = " | ".join(_dtypes(table[p.tag].get(tensor, ())) for p in products)
        section.append(f"| {esc.md_cell(tensor)}（{role}） | {cells} |")
    return {"line": line, "section": section}


def markdown_from(catalog: Catalog, views: list[dict], ext: str = ".md") -> str:
    """``markdown`` from the ops' ``md_view``\\ s (in op order)."""
    products = catalog.products.products
    head = "| 算子 / Operator | 主输入 / Main input | " + " | ".join(esc.md_cell(p.zh) for p in products) + " |"
    rule = "| --- | --- |" + " --- |" * len(products)
    lines = [
        "# 支持矩阵 / Support matrix",
        "",
        f"[索引 / Index](README{ext})",
        "",
        "每格列出算子在该产品上接受的数据类型，取自算子的参数校验（`aclnn.validate`接受的调用）；“—”表示该产品不支持此算子。"
        "第一张表为各算子的主输入（第一个输入张量），每个算子的全部张量见其下的分表。",
        "",
        "Each cell lists the dtypes the operator accepts on the product, as its parameter checks decide (calls "
        '`aclnn.validate` accepts); "—" means the product does not support the operator. The first table shows each '
        "operator's main input (its first input tensor); every tensor of an operator is in its own table below.",
        "",
        head,
        rule,
    ]
    lines += [view["line"] for view in views]
    for view in views:
        lines += view["section"]
    lines += ["", "产品 / Products:", ""]
    for p in products:
        english = f" / {esc.md_inline(p.en)}" if p.en != p.zh else ""
        lines.append(f"- `{esc.html_text(p.tag)}`: {esc.md_inline(p.zh)}{english}")
    return "\n".join(lines) + "\n"


def site_context(project: Project, matrix: Matrix, env) -> dict:
    """Escaped pieces for the site's matrix page."""
    catalog = project.catalog
    return site_context_from(catalog, [site_view(env, catalog, r) for r in rows(project, matrix)])


def site_view(env, catalog: Catalog, r: dict) -> dict:
    """One op's part of the site's matrix page (from its ``row``): its ``<tbody>`` and the dtypes
    it lists (for the page's filter)."""
    name, table, main = r["name"], r["table"], r["main_input"]
    tensors = []
    for tensor, output in r["tensors"]:
        tensors.append(
            {
                "name": esc.html_text(tensor),
                "output": output,
                "main": tensor == main,
                "cells": [
                    {
                        "tag": esc.html_attr(p.tag),
                        "dtypes": [esc.html_text(d) for d in table[p.tag].get(tensor, ())],
                    }
                    for p in catalog.products.products
                ],
            }
        )
    op = {
        "name": esc.html_text(name),
        "id": esc.html_attr(anchor(name)),
        "zh": esc.html_attr(esc.url(f"zh/{name}.html")),
        "en": esc.html_attr(esc.url(f"en/{name}.html")),
        "summary_zh": esc.html_text(r["summary_zh"]),
        "summary_en": esc.html_text(r["summary_en"]),
        "tensors": tensors,
    }
    used = sorted({d for cells in table.values() for ds in cells.values() for d in ds})
    return {"tbody": env.get_template("docs/site/matrix_op.html.j2").render(op=op), "dtypes": used}


def site_context_from(catalog: Catalog, views: list[dict]) -> dict:
    """``site_context`` from the ops' ``site_view``\\ s (in op order)."""
    products = [
        {"tag": esc.html_attr(p.tag), "zh": esc.html_text(p.zh), "en": esc.html_text(p.en)}
        for p in catalog.products.products
    ]
    used = {d for view in views for d in view["dtypes"]}
    dtypes = [esc.html_text(d.name) for d in catalog.dtypes.dtypes if d.name in used]
    return {"products": products, "dtypes": dtypes, "tbodies": [view["tbody"] for view in views]}
