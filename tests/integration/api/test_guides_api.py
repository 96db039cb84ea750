"""POST/GET/DELETE /v1/guides (issue 21, operator guidance): `admin` writes, `learnings:read`
reads, every guide stays in its tenant, and the worker's store hands a site's guides (and the
tenant's guides for every site) to the run."""

from __future__ import annotations

from app.db import session_factory
from tests.integration.api.test_auth_keys import A, L, W, bearer, keyed_app, new_key
from workers.adapters.memory_store import DbMemoryStore

GUIDE = {"domain": "Shop.Test", "title": "Ordering", "body": "## Basket\nIt is in the footer."}


async def test_guides_need_admin_to_write_and_stay_in_their_tenant(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        admin, learner = await new_key(app, "acme", A), await new_key(app, "acme", L)
        writer, other = await new_key(app, "acme", W), await new_key(app, "globex", A)
        assert (await c.post("/v1/guides", json=GUIDE, headers=bearer(writer))).status_code == 403
        made = await c.post("/v1/guides", json=GUIDE, headers=bearer(admin))
        assert made.status_code == 201, made.text
        guide = made.json()
        assert (guide["domain"], guide["title"]) == ("shop.test", "Ordering")
        every = {"title": "House rules", "body": "Buy as a guest."}
        assert (await c.post("/v1/guides", json=every, headers=bearer(admin))).status_code == 201

        listed = await c.get("/v1/guides?domain=shop.test", headers=bearer(learner))
        assert [g["title"] for g in listed.json()["guides"]] == ["Ordering"]
        everything = await c.get("/v1/guides", headers=bearer(learner))
        assert [g["title"] for g in everything.json()["guides"]] == ["Ordering", "House rules"]
        one = await c.get(f"/v1/guides/{guide['id']}", headers=bearer(learner))
        assert one.json()["body"] == GUIDE["body"]

        assert (await c.get("/v1/guides", headers=bearer(other))).json() == {"guides": []}
        foreign = await c.get(f"/v1/guides/{guide['id']}", headers=bearer(other))
        assert foreign.status_code == 404
        gone = await c.delete(f"/v1/guides/{guide['id']}", headers=bearer(other))
        assert gone.status_code == 404

        store = DbMemoryStore(session_factory(app.state.engine), task_id="t", tenant_id="acme")
        seen = await store.load_guides("SHOP.test")
        assert [(g.title, g.domain) for g in seen] == [
            ("Ordering", "shop.test"),
            ("House rules", ""),
        ]
        assert [g.title for g in await store.load_guides("bank.test")] == ["House rules"]

        deleted = await c.delete(f"/v1/guides/{guide['id']}", headers=bearer(admin))
        assert deleted.status_code == 204
        assert [g.title for g in await store.load_guides("shop.test")] == ["House rules"]


async def test_a_guide_with_a_bad_domain_or_no_body_is_refused(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        admin = await new_key(app, "acme", A)
        for body in ({**GUIDE, "domain": "shop test/"}, {**GUIDE, "body": ""}, {"title": "x"}):
            refused = await c.post("/v1/guides", json=body, headers=bearer(admin))
            assert refused.status_code == 422, body
