"""Golden file of the web app's OpenAPI schema: every route, parameter, model and description as served at
``/openapi.json`` (issue 42, step 0: a redesign of the package layout must not change the API).

The schema is compared as canonical JSON with sorted keys (``data/openapi.json``); ``info.version`` (the
installed nardy's version) is normalised to ``"<version>"``. FastAPI and pydantic write the schema: another
version of them may write it differently, so the versions it was written with are kept beside it
(``data/openapi-versions.json``, not compared) and named when the schema differs.
"""

from __future__ import annotations

import json
from importlib.metadata import version

import pytest

from tests.golden.golden import DATA, check_json, dump_json, updating

pytest.importorskip("httpx")


def test_openapi_schema_is_unchanged():
    from nardy.web.app import create_app
    from nardy.web.store.storage import Storage

    app = create_app(storage=Storage("sqlite://"), allow_seeds=True)
    schema = app.openapi()
    assert schema["info"]["title"] == "nardy" and "/api/games" in schema["paths"]
    schema = dict(schema, info=dict(schema["info"], version="<version>"))
    now = {name: version(name) for name in ("fastapi", "pydantic", "starlette")}
    kept = DATA / "openapi-versions.json"
    if updating():
        kept.write_text(dump_json(now), encoding="utf-8")
    try:
        check_json("openapi.json", schema, sort_keys=True)
        return
    except pytest.fail.Exception as e:
        failure = str(e)
    was = json.loads(kept.read_text(encoding="utf-8")) if kept.exists() else None
    note = f"\n(the golden schema was written with {was}; this environment has {now})" if was != now else ""
    pytest.fail(failure + note, pytrace=False)
