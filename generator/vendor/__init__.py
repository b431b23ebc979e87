"""Third-party code vendored unchanged except for import paths and the changes listed, each with its licence.

* ``latex2mathml`` 3.81.1 (MIT, Ronie Martinez): LaTeX -> MathML for the static docs site. Vendored
  because it is not in the package registry the project installs from; imports rewritten to relative;
  ``converter`` has its own three-replacement ``unescape`` instead of ``xml.sax.saxutils.unescape``
  (the same result; that module imports ``urllib.request``, 8 ms of every docs render's start-up).
"""
