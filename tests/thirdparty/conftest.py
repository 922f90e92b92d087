from __future__ import annotations

import pytest

from thirdparty.warned import IGNORED


def pytest_configure(config: pytest.Config) -> None:
    # After the configuration's "error", so these take precedence in every test.
    for message in IGNORED:
        config.addinivalue_line("filterwarnings", f"ignore:{message}")
