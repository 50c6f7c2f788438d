"""Importing a python model's file so that its modules stay its own.

Each import of a model file makes a package of its own,
``conch_python_model_<n>``, whose ``__path__`` is the model's version
directory and then its model directory (the folders Triton's stub puts on
``sys.path``). The model file runs as the submodule
``conch_python_model_<n>.model``, so ``from . import helper`` finds the
helper.py beside it. A plain ``import helper`` in the model's own code
(the model file and every module loaded from its folders) is answered from
the same package: those modules see an ``__import__`` of their own. Two
models that each bring a helper.py thus never see each other's, nothing of
theirs enters ``sys.modules`` under a bare name, and ``sys.path`` is left
as it is.

A bare name is the model's own when a module or regular package of that
name lies in its folders, unless it is a standard-library module or
``triton_python_backend_utils``; a folder without ``__init__.py`` counts
only when no module of that name exists elsewhere (as on ``sys.path``).

Code outside the model that imports a bare name for it (``pickle`` loading
an object whose class lives in helper.py, ``importlib.import_module``) goes
through ``sys.modules`` and the regular finders. So a model's own module of
a name that exists nowhere else is also lent to ``sys.modules`` under the
bare name, by each import of it in the model's code and, last on
``sys.meta_path``, when such code is on the calling stack; it stays there
until another model lends its own or the model is forgotten. Only that
third-party lookup can meet another model's module; the model's own
imports never do.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import itertools
import os
import sys
import threading
from types import ModuleType
from typing import Any, Optional, Sequence

__all__ = ["PREFIX", "import_model_file", "package_name", "forget_package"]

PREFIX = "conch_python_model_"

_NEVER_LOCAL = frozenset(sys.stdlib_module_names) | {"triton_python_backend_utils"}
_SUFFIXES = tuple(
    importlib.machinery.SOURCE_SUFFIXES
    + importlib.machinery.EXTENSION_SUFFIXES
    + importlib.machinery.BYTECODE_SUFFIXES
)

_numbers = itertools.count()
_lock = threading.Lock()
_packages: dict = {}  # package name -> _ModelPackage


class _Loader(importlib.machinery.SourceFileLoader):
    """Runs a source file of a model with the model's builtins."""

    def __init__(self, fullname: str, path: str, model_builtins: dict) -> None:
        super().__init__(fullname, path)
        self._builtins = model_builtins

    def exec_module(self, module: ModuleType) -> None:
        module.__dict__["__builtins__"] = self._builtins
        super().exec_module(module)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the submodules of the model packages, loaded by _Loader; leaves
    every other name to the finders after it."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]],
                  target: Optional[ModuleType] = None) -> Any:
        if path is None or not fullname.startswith(PREFIX):
            return None
        package = _packages.get(fullname.partition(".")[0])
        if package is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and type(spec.loader) is importlib.machinery.SourceFileLoader:
            spec.loader = _Loader(fullname, spec.origin, package.builtins)
        return spec


class _ModelPackage:
    """One import of a model file: its package module and its __import__."""

    def __init__(self, name: str, directories: Sequence[str]) -> None:
        self.name = name
        self.directories = tuple(directories)
        self._own: dict = {}  # top-level name -> whether the model brings it
        self._lend: dict = {}  # top-level name -> whether it exists nowhere else
        self.builtins = dict(builtins.__dict__)
        self.builtins["__import__"] = self._import
        module = ModuleType(name, f"The modules of python model import {name}.")
        module.__path__ = list(self.directories)
        module.__package__ = name
        module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        module.__spec__.submodule_search_locations = module.__path__
        self.module = module

    def _import(self, name: str, globals: Any = None, locals: Any = None,
                fromlist: Any = (), level: int = 0) -> ModuleType:
        if level == 0 and name and self._brings(name.partition(".")[0]):
            return self._import_own(name, fromlist)
        return builtins.__import__(name, globals, locals, fromlist, level)

    def _brings(self, top: str) -> bool:
        known = self._own.get(top)
        if known is None:
            known = self._own[top] = self._find(top)
        return known

    def _lendable(self, top: str) -> bool:
        """Whether the bare name `top` exists nowhere but here."""
        known = self._lend.get(top)
        if known is None:
            known = self._lend[top] = importlib.machinery.PathFinder.find_spec(top) is None
        return known

    def lend(self, name: str, module: ModuleType) -> None:
        if self._lendable(name.partition(".")[0]):
            sys.modules[name] = module

    def _find(self, top: str) -> bool:
        if not top.isidentifier() or top in _NEVER_LOCAL:
            return False
        for directory in self.directories:
            if any(os.path.isfile(os.path.join(directory, top + s)) for s in _SUFFIXES):
                return True
            folder = os.path.join(directory, top)
            if os.path.isfile(os.path.join(folder, "__init__.py")):
                return True
            if os.path.isdir(folder):
                # A namespace package yields to a module found elsewhere.
                spec = importlib.machinery.PathFinder.find_spec(top)
                return spec is None or spec.origin is None
        return False

    def _import_own(self, name: str, fromlist: Any) -> ModuleType:
        module = importlib.import_module(f"{self.name}.{name}")
        self.lend(name, module)
        if not fromlist:
            # `import a.b` binds `a`.
            top = name.partition(".")[0]
            module = importlib.import_module(f"{self.name}.{top}")
            self.lend(top, module)
            return module
        if hasattr(module, "__path__"):
            for item in fromlist:
                if item == "*" or hasattr(module, item):
                    continue
                sub = f"{module.__name__}.{item}"
                try:
                    importlib.import_module(sub)
                except ModuleNotFoundError as e:
                    if e.name != sub:
                        raise
        return module


class _Alias(importlib.abc.Loader):
    """Gives a model's module already loaded as the module of a bare name."""

    def __init__(self, module: ModuleType) -> None:
        self._module = module
        self._spec = module.__spec__

    def create_module(self, spec: Any) -> ModuleType:
        return self._module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self._spec  # the import system set the alias's


class _Fallback(importlib.abc.MetaPathFinder):
    """Last on sys.meta_path: a bare name nothing else found, imported on
    behalf of a model's code (see the module's documentation)."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]],
                  target: Optional[ModuleType] = None) -> Any:
        if path is not None or fullname.startswith(PREFIX):
            return None
        package = _calling_package()
        if package is None or not package._brings(fullname):
            return None
        module = importlib.import_module(f"{package.name}.{fullname}")
        return importlib.util.spec_from_loader(fullname, _Alias(module))


def _calling_package() -> Optional[_ModelPackage]:
    """The package of the model whose code is nearest on the calling stack."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if isinstance(name, str) and name.startswith(PREFIX):
            return _packages.get(name.partition(".")[0])
        frame = frame.f_back
    return None


_FINDER = _Finder()
_FALLBACK = _Fallback()


def _install_finder() -> None:
    if not any(f is _FINDER for f in sys.meta_path):
        sys.meta_path.insert(0, _FINDER)
    if not any(f is _FALLBACK for f in sys.meta_path):
        sys.meta_path.append(_FALLBACK)


def import_model_file(path: str, directories: Sequence[str]) -> ModuleType:
    """Runs the model file `path` as the submodule of a new model package
    over `directories` (the version directory, then the model directory).
    Forget the package with `forget_package` once its model is gone. Raises
    what the file raises; the package is then forgotten already."""
    with _lock:
        _install_finder()
        package = _ModelPackage(f"{PREFIX}{next(_numbers)}", directories)
        _packages[package.name] = package
        sys.modules[package.name] = package.module
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"{package.name}.{stem}"
    try:
        spec = importlib.util.spec_from_file_location(
            name, path, loader=_Loader(name, path, package.builtins)
        )
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import '{path}'")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        setattr(package.module, stem, module)
        spec.loader.exec_module(module)
    except BaseException:
        forget_package(package.name)
        raise
    return module


def package_name(module: ModuleType) -> str:
    """The model package of a module `import_model_file` returned."""
    return module.__name__.partition(".")[0]


def forget_package(name: str) -> None:
    """Drops the model package `name` and every module imported into it from
    sys.modules, so that loading and unloading a model again and again keeps
    nothing alive. The modules themselves live on while referenced."""
    _packages.pop(name, None)
    prefix = name + "."

    def ours(key: str, module: Any) -> bool:
        # Its own names, and the bare names it lent its modules under.
        if key == name or key.startswith(prefix):
            return True
        own = getattr(module, "__name__", None)
        return isinstance(own, str) and own.startswith(prefix) and own != key

    # A copy taken in one step: building a list item by item allocates, a
    # garbage collection there can run finalizers, and another thread's
    # import then changes sys.modules under the iteration.
    for key, module in sys.modules.copy().items():
        if ours(key, module) and sys.modules.get(key) is module:
            del sys.modules[key]
