"""Third-party code vendored unchanged except for import paths, each with its licence.

* ``latex2mathml`` 3.81.1 (MIT, Ronie Martinez): LaTeX -> MathML for the static docs site. Vendored
  because it is not in the package registry the project installs from; imports rewritten to relative.
"""
