"""Escaping and literal helpers, one module per output target.

Specs, imported docs and catalogues are untrusted data: no string from them may become code in a
generated file. Every emitter turns such strings into target text only through these helpers:

* :mod:`generator.escape.python`: Python string literals, docstrings and comments;
* :mod:`generator.escape.cpp`: C++ comments, string literals and character data;
* :mod:`generator.escape.markdown`: Markdown prose, table cells, HTML text and attributes, formulas.

A template never pastes a spec string raw: it uses one of these (as a Jinja filter or in a view).
"""
