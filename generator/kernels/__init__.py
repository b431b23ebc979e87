"""Hand-written, vectorised NumPy reference kernels: one module per operator, named by its spec."""
