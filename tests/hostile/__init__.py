"""Hostile-input tests: spec, doc and catalogue text is untrusted data in every generated target.

``strings`` holds the hostile texts (a fixed list and a hypothesis strategy); ``trees`` writes a
throw-away specs tree (catalogue + one op) with a mutation applied, for lint/generate round trips.
"""
