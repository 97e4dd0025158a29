"""Every public face of semantix exports exactly what it holds (httpx's
tests/test_exported_members.py is the model): the modules behind the faces are private
(``_name.py``) and may move without a deprecation."""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

import semantix

#: The public modules: the package, its subpackages and the few public top-level modules.
PUBLIC = [
    "semantix",
    *sorted(
        info.name
        for info in pkgutil.walk_packages(semantix.__path__, "semantix.")
        if not any(part.startswith("_") for part in info.name.split(".")[1:])
    ),
]


def defined_here(module: types.ModuleType) -> set[str]:
    """The public names a module holds that are semantix's own: for a package face, every one
    (a face only re-exports); for a public module of its own (``semantix.errors``,
    ``semantix.unittest``, ...), the functions and classes it defines."""
    face = hasattr(module, "__path__")
    names = set()
    for name, value in vars(module).items():
        if name.startswith("_") or name == "TYPE_CHECKING" or isinstance(value, types.ModuleType):
            continue
        origin = getattr(value, "__module__", None)
        if origin is not None and not origin.startswith("semantix"):
            continue  # a name from the standard library or typing, used by the module
        if face or origin == module.__name__:
            names.add(name)
    return names


def test_the_public_faces_are_few() -> None:
    assert set(PUBLIC) == {
        "semantix",
        "semantix.agents",
        "semantix.calibration",
        "semantix.checks",
        "semantix.cli",
        "semantix.composite",
        "semantix.datasets",
        "semantix.errors",
        "semantix.intents",
        "semantix.judges",
        "semantix.models",
        "semantix.outputs",
        "semantix.pipeline",
        "semantix.pytest",
        "semantix.relations",
        "semantix.report",
        "semantix.runs",
        "semantix.snapshots",
        "semantix.testing",
        "semantix.unittest",
        "semantix.verdicts",
    }


@pytest.mark.parametrize("name", PUBLIC)
def test_all_lists_every_public_name_once_and_each_resolves(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(getattr(module, "__all__", []))
    assert len(exported) == len(set(exported)), f"{name}.__all__ names something twice"
    assert sorted(defined_here(module) - set(exported)) == [], f"{name} holds names not in __all__"
    for exported_name in exported:
        assert getattr(module, exported_name) is not None or exported_name.isupper()
