"""GET /v1/domains, GET /v1/domains/{domain}, DELETE /v1/domains/{domain}/learnings (issue 21):
scope `learnings:read` to read, tenant-scoped, a site can be forgotten."""

from __future__ import annotations

from datetime import UTC, datetime

from app.db import repositories
from tests.integration.api.test_auth_keys import A, L, R, W, bearer, keyed_app, new_key


async def _learn(app, tenant: str, domain: str = "shop.test") -> None:  # type: ignore[no-untyped-def]
    async with app.state.session_factory() as s:
        await repositories.put_domain_learning(
            s, tenant_id=tenant, domain=domain, key="bot_protected", value=True, task_id="t1"
        )
        await repositories.put_domain_learning(
            s,
            tenant_id=tenant,
            domain=domain,
            key="url_templates",
            value=[{"pattern": "/p/{}"}],
            task_id="t2",
        )
        now = datetime(2026, 11, 1, tzinfo=UTC)
        await repositories.record_site_dead_end(
            s,
            tenant_id=tenant,
            domain=domain,
            key="k" * 64,
            page=f"{domain}/",
            url=f"https://{domain}/",
            cause="network",
            description="navigate failed",
            signature="navigate",
            target=None,
            task_id="t1",
            seen=now,
            expires_at=now,
        )
        await s.commit()


async def test_domains_need_learnings_read_and_stay_in_their_tenant(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        learner, reader = await new_key(app, "acme", L), await new_key(app, "acme", R)
        writer, other = await new_key(app, "acme", W), await new_key(app, "globex", L, W)
        admin = await new_key(app, "acme", A)
        await _learn(app, "acme")
        assert (await c.get("/v1/domains")).status_code == 401
        assert (await c.get("/v1/domains", headers=bearer(reader))).status_code == 403
        listed = await c.get("/v1/domains", headers=bearer(learner))
        assert listed.status_code == 200, listed.text
        (row,) = listed.json()["domains"]
        assert (row["domain"], row["learnings"], row["dead_ends"]) == ("shop.test", 2, 1)
        assert (await c.get("/v1/domains", headers=bearer(admin))).status_code == 200

        one = await c.get("/v1/domains/SHOP.test", headers=bearer(learner))
        assert one.status_code == 200, one.text
        body = one.json()
        learned = {r["key"]: r for r in body["learnings"]}
        assert learned["bot_protected"]["value"] is True
        assert learned["bot_protected"]["task_ids"] == ["t1"]
        assert learned["url_templates"]["value"] == [{"pattern": "/p/{}"}]
        (dead,) = body["dead_ends"]
        assert (dead["cause"], dead["count"], dead["first_task_id"]) == ("network", 1, "t1")
        assert dead["expires_at"] is not None

        assert (await c.get("/v1/domains", headers=bearer(other))).json() == {"domains": []}
        foreign = await c.get("/v1/domains/shop.test", headers=bearer(other))
        assert foreign.status_code == 404
        gone = await c.delete("/v1/domains/shop.test/learnings", headers=bearer(other))
        assert gone.json()["removed"] == 0  # another tenant forgets nothing of acme's

        denied = await c.delete("/v1/domains/shop.test/learnings", headers=bearer(learner))
        assert denied.status_code == 403
        forgot = await c.delete("/v1/domains/shop.test/learnings", headers=bearer(writer))
        assert forgot.status_code == 200 and forgot.json()["removed"] == 3
        after = await c.get("/v1/domains/shop.test", headers=bearer(learner))
        assert after.status_code == 404
        bad = await c.get("/v1/domains/a%2Fb", headers=bearer(learner))
        assert bad.status_code in (404, 422)
