"""The constraint-planning family (PDoctor's tasks).

Before any module of the family is imported, ``native.choose`` decides whether the mypyc-compiled
build of the hot modules (``scripts/compile``) or the pure-Python reference is used.
"""

from . import native as _native

_native.choose()
