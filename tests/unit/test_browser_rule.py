"""The browser tests' rule: without chromium they skip, except under CI, where they fail."""

from __future__ import annotations

import pytest

from tests.helpers.browser import chromium_path


def test_without_chromium_a_browser_test_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        chromium_path()


def test_under_ci_without_chromium_a_browser_test_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI runs every browser test"):
        chromium_path()
