"""Issue 41.7: a warning raised from the project's own code (its packages, the tests' modules)
fails the test that raised it (pyproject.toml's ``filterwarnings``, tests/conftest.py), while a
warning from inside a third-party library stays a warning."""

from __future__ import annotations

import warnings

import pytest


@pytest.mark.parametrize(
    "module", ["services.gateway.api", "okeycore.melds", "okeyplatform.auth", "okeytools.cli", "okey.v1.x", "stacks"]
)
def test_a_warning_from_the_projects_code_is_an_error(module: str) -> None:
    with pytest.raises(DeprecationWarning):
        warnings.warn_explicit("old call", DeprecationWarning, f"{module}.py", 1, module=module)


def test_a_warning_raised_in_a_test_module_is_an_error() -> None:
    with pytest.raises(DeprecationWarning):
        warnings.warn("old call", DeprecationWarning, stacklevel=1)


@pytest.mark.parametrize("module", ["websockets.sync.client", "okeyish", "servicesx", "hypothesis.strategies"])
def test_a_warning_from_a_third_party_library_is_left_a_warning(module: str) -> None:
    with warnings.catch_warnings(record=True) as seen:  # the configured filters, recorded instead of shown
        warnings.warn_explicit("their business", DeprecationWarning, f"{module}.py", 1, module=module)
    assert len(seen) == 1
