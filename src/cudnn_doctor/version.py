"""The package version, in a module that imports nothing, so that any layer can name it without importing
the package's ``__init__`` (whose lazy attributes reach the whole pipeline)."""

__version__ = "0.1.0"
