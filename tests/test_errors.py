from __future__ import annotations

import pytest

import semantix
from semantix import errors


def test_hierarchy_matches_the_documented_tree() -> None:
    assert issubclass(errors.SemanticAssertionError, AssertionError)
    assert issubclass(errors.SemanticAssertionError, errors.SemantixError)
    for configuration in (
        errors.JudgeUnavailableError,
        errors.UnknownModelError,
        errors.ModelNotFoundError,
    ):
        assert issubclass(configuration, errors.ConfigurationError)
        assert not issubclass(configuration, AssertionError)
    assert issubclass(errors.ConfigurationError, ValueError)
    assert issubclass(errors.JudgeUnavailableError, ImportError)
    assert issubclass(errors.JudgeTimeoutError, errors.JudgeError)
    assert not issubclass(errors.JudgeError, AssertionError)
    for store_error in (errors.VerdictNotRecordedError, errors.CorruptVerdictError):
        assert issubclass(store_error, errors.VerdictStoreError)


def test_every_error_is_documented_in_the_module_docstring() -> None:
    assert errors.__doc__ is not None
    for name in errors.__all__:
        assert name in errors.__doc__, name


def test_errors_are_exported_and_read_as_semantix() -> None:
    for name in errors.__all__:
        cls = getattr(semantix, name)
        assert cls is getattr(errors, name)
        assert cls.__module__ in {"semantix", "semantix.errors"}
    assert repr(semantix.JudgeError("x")) == "JudgeError('x')"


def test_judge_unavailable_can_be_caught_as_import_error() -> None:
    with pytest.raises(ImportError):
        raise errors.JudgeUnavailableError("pip install 'semantix-judge[onnx]'")
