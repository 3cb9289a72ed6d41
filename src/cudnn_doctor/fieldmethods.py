"""``__repr__``, ``__eq__`` and ``__hash__`` for the package's dataclasses, shared instead of generated.

``dataclasses`` writes the source of these methods for every class and compiles it at import: for the ~40
dataclasses a pasted traceback loads, ~8 ms of a ~95 ms start-up (bench/README.md, seventh round). The bases
below give the same results from the class's fields, through one ``operator.attrgetter`` per class made on
first use. A class is declared ``@dataclass(..., repr=False, eq=False)`` over one of them:

=================  ===============================================================================
``FieldRepr``      ``repr`` as dataclasses writes it; equality and hash by identity (``eq=False``)
``FieldEq``        also ``==`` as a tuple of the compared fields, same class only; unhashable (mutable)
``FieldValue``     also ``hash`` of that tuple (``frozen=True``): a value, as a frozen dataclass is
=================  ===============================================================================

Each honours a field's ``repr``, ``compare`` and ``hash`` options. tests/test_fieldmethods.py checks every
dataclass of the package against the methods ``dataclasses`` would have generated for it.

Equality is that of tuples, as dataclasses documents it and as Python 3.10-3.12 generate it: Python 3.13's
generated ``__eq__`` compares field by field, which differs only for a field holding the same NaN object on
both sides (equal as a tuple member, unequal alone); no field of the package is meant to hold a NaN.
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from reprlib import recursive_repr

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    _Getter = Callable[[Any], tuple[Any, ...]]

# per class: (names shown by repr, getter of the compared fields, getter of the hashed fields)
_SPECS: dict[type, tuple[tuple[str, ...], _Getter, _Getter]] = {}


def _getter(names: tuple[str, ...]) -> _Getter:
    """A function giving the named attributes as a tuple (attrgetter gives a bare value for one name)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _spec(cls: type) -> tuple[tuple[str, ...], _Getter, _Getter]:
    got = _SPECS.get(cls)
    if got is None:
        fields = dataclasses.fields(cls)
        shown = tuple(f.name for f in fields if f.repr)
        compared = tuple(f.name for f in fields if f.compare)
        hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
        got = _SPECS[cls] = (shown, _getter(compared), _getter(hashed))
    return got


class FieldRepr:
    """``ClassName(field=value!r, ...)`` over the fields with ``repr=True``, as dataclasses writes it."""

    __slots__ = ()

    @recursive_repr()
    def __repr__(self) -> str:
        cls = self.__class__
        shown = _spec(cls)[0]
        return f"{cls.__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in shown)})"


class FieldEq(FieldRepr):
    """Equal when of the same class and equal as the tuple of their compared fields; unhashable."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            compared = _spec(self.__class__)[1]
            return compared(self) == compared(other)  # type: ignore[no-any-return]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as a dataclass with eq and not frozen


class FieldValue(FieldEq):
    """A frozen value: ``FieldEq``'s equality and the hash of the same tuple."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(_spec(self.__class__)[2](self))
