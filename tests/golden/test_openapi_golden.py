"""Golden file of the web app's OpenAPI schema: every route, parameter, model and description as served at
``/openapi.json`` (issue 42, step 0: a redesign of the package layout must not change the API).

The schema is compared as canonical JSON with sorted keys (``data/openapi.json``); ``info.version`` (the
installed nardy's version) is normalised to ``"<version>"``.
"""

from __future__ import annotations

import pytest

from tests.golden.golden import check_json

pytest.importorskip("httpx")


def test_openapi_schema_is_unchanged():
    from nardy.web.app import create_app
    from nardy.web.storage import Storage

    app = create_app(storage=Storage("sqlite://"), allow_seeds=True)
    schema = app.openapi()
    assert schema["info"]["title"] == "nardy" and "/api/games" in schema["paths"]
    schema = dict(schema, info=dict(schema["info"], version="<version>"))
    check_json("openapi.json", schema, sort_keys=True)
