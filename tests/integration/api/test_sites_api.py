"""POST /v1/sites/explore, GET /v1/sites/explore/{id}, GET /v1/sites/{domain} (issue 21, seed
001 §2.3): queued as the exploration job on the task queue, scopes tasks:write to start and
learnings:read to read, tenant-scoped, the newest WebsiteMem version wins."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from app.contracts import EXPLORE_JOB_FUNC, TaskStatus, WebsiteMem
from app.db import repositories
from tests.integration.api.test_auth_keys import L, R, W, bearer, keyed_app, new_key

MEM = WebsiteMem(
    domain="shop.test",
    start_url="https://shop.test/",
    pages=[{"url": "https://shop.test/", "title": "Shop", "depth": 0}],  # type: ignore[list-item]
    stats={"pages": 1},
)


async def _finish(app: FastAPI, exploration_id: str, title: str = "Shop") -> int:
    """What the job does at its end: claim, store the next version, finish."""
    async with app.state.session_factory() as s:
        row = await repositories.claim_exploration(s, exploration_id=exploration_id, worker_id="w")
        assert row is not None
        mem = MEM.model_copy(update={"pages": [MEM.pages[0].model_copy(update={"title": title})]})
        version = await repositories.save_website_mem(
            s,
            tenant_id=row.tenant_id,
            domain=row.domain,
            exploration_id=row.id,
            start_url=row.url,
            data=mem.model_dump(mode="json"),
        )
        await repositories.finish_exploration(
            s, exploration_id=row.id, status=TaskStatus.succeeded, version=version
        )
        await s.commit()
    return version


def _dispatched(app: FastAPI) -> list[tuple[str, str]]:
    jobs: list[tuple[str, str]] = app.state.dispatcher.jobs
    return jobs


async def test_explore_is_queued_read_back_and_tenant_scoped(db_url: str) -> None:
    async with keyed_app(db_url, allow_private_networks=True) as (app, c):
        writer, learner = await new_key(app, "acme", W), await new_key(app, "acme", L)
        reader, other = await new_key(app, "acme", R), await new_key(app, "globex", W, L)
        body: dict[str, Any] = {"url": "https://shop.test/", "max_depth": 1, "max_pages": 5}
        assert (await c.post("/v1/sites/explore", json=body)).status_code == 401
        denied = await c.post("/v1/sites/explore", json=body, headers=bearer(learner))
        assert denied.status_code == 403
        started = await c.post("/v1/sites/explore", json=body, headers=bearer(writer))
        assert started.status_code == 202, started.text
        out = started.json()
        assert out["status"] == "queued" and out["domain"] == "shop.test"
        assert out["params"]["max_depth"] == 1 and out["params"]["max_elements_per_page"] == 75
        assert started.headers["Location"] == f"/v1/sites/explore/{out['id']}"
        assert _dispatched(app) == [(out["id"], EXPLORE_JOB_FUNC)]

        path = f"/v1/sites/explore/{out['id']}"
        assert (await c.get(path, headers=bearer(reader))).status_code == 403
        queued = await c.get(path, headers=bearer(learner))
        assert queued.json()["status"] == "queued" and queued.json()["result"] is None
        assert (await c.get("/v1/sites/shop.test", headers=bearer(learner))).status_code == 404

        assert await _finish(app, out["id"]) == 1
        done = (await c.get(path, headers=bearer(learner))).json()
        assert done["status"] == "succeeded" and done["version"] == 1
        assert done["result"]["pages"][0]["title"] == "Shop"
        site = await c.get("/v1/sites/SHOP.test", headers=bearer(learner))
        assert site.status_code == 200, site.text
        assert site.json()["version"] == 1 and site.json()["exploration_id"] == out["id"]

        again = await c.post("/v1/sites/explore", json=body, headers=bearer(writer))
        assert await _finish(app, again.json()["id"], title="Shop v2") == 2
        newest = (await c.get("/v1/sites/shop.test", headers=bearer(learner))).json()
        assert (newest["version"], newest["pages"][0]["title"]) == (2, "Shop v2")
        first = (await c.get(path, headers=bearer(learner))).json()
        assert first["result"]["pages"][0]["title"] == "Shop"  # its own version, not the newest

        # another tenant sees neither the job nor the site
        assert (await c.get(path, headers=bearer(other))).status_code == 404
        assert (await c.get("/v1/sites/shop.test", headers=bearer(other))).status_code == 404


async def test_explore_refuses_bad_requests(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        writer = await new_key(app, "acme", W)
        for body, why in (
            ({"url": "ftp://shop.test/"}, "scheme"),
            ({"url": "http://127.0.0.1:9/"}, "private"),  # the URL policy refuses it
            ({"url": "https://shop.test/", "max_depth": 9}, "less than or equal"),
            ({"url": "https://shop.test/", "max_pages": 0}, "greater than or equal"),
            ({"url": "https://shop.test/", "allowed_domains": ["other.test"]}, "allowed domains"),
        ):
            refused = await c.post("/v1/sites/explore", json=body, headers=bearer(writer))
            assert refused.status_code == 422, (body, refused.text)
            assert why in refused.text, refused.text
        assert _dispatched(app) == []
