"""The version, alone in a module: submodules (the cache key, the JSON report, ``--version``) read it
without importing the package ``__init__`` (whose lazy names reach the pipeline). pyproject.toml reads it
too (hatch's dynamic version)."""

__version__ = "0.1.0"
