"""fieldmethods: every dataclass of the package behaves as the dataclass ``dataclasses`` would have made.

The package's dataclasses are declared ``repr=False, eq=False`` over a shared base (start-up: dataclasses
compiles these methods per class). For each, a twin is made with ``dataclasses`` itself (same fields, same
field options, ``repr`` and ``eq`` generated), and ``repr``, ``==``, ``!=`` and ``hash`` are compared on
instances of the real class.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from typing import Any

import pytest

import cudnn_doctor
from cudnn_doctor.fieldmethods import FieldEq, FieldRepr, FieldValue


def _package_dataclasses() -> list[type]:
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(cudnn_doctor.__path__, "cudnn_doctor."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and obj.__module__ == module.__name__:
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]


CLASSES = _package_dataclasses()


def _twin(cls: type) -> Any:
    """The class as dataclasses would make it: repr generated, eq generated unless identity is meant."""
    annotations: dict[str, str] = {}
    body: dict[str, Any] = {"__annotations__": annotations, "__qualname__": cls.__qualname__, "__module__": cls.__module__}
    for f in dataclasses.fields(cls):
        annotations[f.name] = "object"
        body[f.name] = dataclasses.field(default=None, repr=f.repr, compare=f.compare, hash=f.hash)
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    return dataclasses.dataclass(eq=issubclass(cls, FieldEq), frozen=params.frozen)(type(cls.__name__, (), body))


def _equal(twin: Any, a: Any, b: Any) -> bool:
    """``a == b`` by the twin's methods (identity where it has no __eq__ of its own)."""
    got = twin.__eq__(a, b)
    return a is b if got is NotImplemented else bool(got)


def _instance(cls: type, values: dict[str, Any]) -> Any:
    obj = object.__new__(cls)
    for f in dataclasses.fields(cls):
        object.__setattr__(obj, f.name, values[f.name])
    return obj


# the classes compared by identity (``eq=False`` before fieldmethods): the knowledge records, which are many,
# built once and never compared by value. Any other class is compared by value, so a class given FieldRepr by
# mistake (identity where its fields were compared) fails here, not silently.
IDENTITY = {
    f"cudnn_doctor.model.{name}"
    for name in ("Reference", "DeadEnd", "Workaround", "Case", "Example", "GraphEdge", "Cause", "DifferentialEntry",
                 "Context", "Signature", "Occurrence")
}


def test_the_package_has_its_dataclasses() -> None:
    names = {c.__qualname__ for c in CLASSES}
    assert {"Signature", "Finding", "Frame", "Source", "Probe", "Diagnosis"} <= names
    assert len(CLASSES) >= 40


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__.removeprefix('cudnn_doctor.')}.{c.__qualname__}")
def test_each_dataclass_is_declared_over_one_base(cls: type) -> None:
    """repr and eq come from the base (else dataclasses compiles them at import); the base says what
    equality means and must agree with frozen: a value is frozen, a mutable record unhashable."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert not params.repr and not params.eq, "declare it @dataclass(..., repr=False, eq=False) over a fieldmethods base"
    assert issubclass(cls, FieldRepr)
    assert issubclass(cls, FieldEq) == (f"{cls.__module__}.{cls.__qualname__}" not in IDENTITY), "compared by identity?"
    if issubclass(cls, FieldValue):
        assert params.frozen, "FieldValue is for frozen classes (a mutable value's hash would change)"
    elif issubclass(cls, FieldEq):
        assert not params.frozen, "a frozen class compared by value is a FieldValue (hashable)"
    for name in ("__repr__", "__eq__", "__hash__"):
        assert name not in cls.__dict__, f"{name} is the base's"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__.removeprefix('cudnn_doctor.')}.{c.__qualname__}")
def test_each_dataclass_behaves_as_dataclasses_would_make_it(cls: type) -> None:
    twin = _twin(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    values = {name: (f"v{i}", i, (i, None)) for i, name in enumerate(names)}
    a, b = _instance(cls, values), _instance(cls, dict(values))
    assert repr(a) == twin.__repr__(a)
    assert (a == b) == _equal(twin, a, b) and (a != b) == (not _equal(twin, a, b))
    assert a.__eq__(object()) is twin.__eq__(a, object())
    for name in names:  # each field changed alone: equal unless the field is not compared
        other = _instance(cls, {**values, name: "changed"})
        assert (a == other) == _equal(twin, a, other), name
        assert repr(other) == twin.__repr__(other)
    if issubclass(cls, FieldValue):
        assert hash(a) == twin.__hash__(a) == hash(b)
    elif issubclass(cls, FieldEq):
        assert cls.__hash__ is None and twin.__hash__ is None
    else:
        assert a != b and a == a and hash(a) == object.__hash__(a)


@dataclasses.dataclass(repr=False, eq=False)
class _Options(FieldEq):
    shown: int
    hidden: int = dataclasses.field(default=0, repr=False)
    ignored: int = dataclasses.field(default=0, compare=False)
    items: list[Any] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class _Value(FieldValue):
    key: int
    unhashed: int = dataclasses.field(default=0, hash=False)
    note: str = dataclasses.field(default="", compare=False)


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class _One(FieldValue):
    only: str


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class _Empty(FieldValue):
    pass


@pytest.mark.parametrize("cls", [_Options, _Value, _One, _Empty])
def test_field_options_are_honoured(cls: type) -> None:
    twin = _twin(cls)
    fields = [f.name for f in dataclasses.fields(cls)]
    a = _instance(cls, {n: i for i, n in enumerate(fields)})
    for name in fields:
        b = _instance(cls, {**{n: i for i, n in enumerate(fields)}, name: 99})
        assert repr(b) == twin.__repr__(b)
        assert (a == b) == _equal(twin, a, b), name
        if issubclass(cls, FieldValue):
            assert hash(b) == twin.__hash__(b), name
    assert repr(_Options(1, 2, 3)) == "_Options(shown=1, ignored=3, items=[])"
    assert _Options(1, 2, 3) == _Options(1, 2, 4) != _Options(1, 5, 3)
    assert hash(_Value(1, 2, "a")) == hash(_Value(1, 3, "b")) == hash((1,)) and _Value(1, 2) != _Value(1, 3)
    assert hash(_One("x")) == hash(("x",)) and hash(_Empty()) == hash(())


def test_a_record_that_holds_itself_reprs_as_dataclasses_do() -> None:
    rec, made = _Options(1), _twin(_Options)(shown=1, hidden=0, ignored=0, items=[])
    rec.items.append(rec)
    made.items.append(made)
    assert repr(rec) == "_Options(shown=1, ignored=0, items=[...])" == repr(made)
