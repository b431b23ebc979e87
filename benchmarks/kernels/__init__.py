"""One benchmark module per reference kernel (see benchmarks/_harness.py)."""
