"""The viewer's domain page (issue 21): what runs learned about a site, when, from which runs;
only for keys with `learnings:read`, only the key's tenant, page text escaped."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from app.auth import Scope
from app.db import repositories
from app.db.migrate import upgrade_async
from app.db.repo_keys import create_api_key
from app.main import create_app
from tests.integration.api.conftest import RecordingDispatcher, make_settings

NAME = '<script>alert("x")</script> Accept all'


async def test_the_domain_page_shows_learnings_and_dead_ends_with_their_runs(
    sqlite_url: str,
) -> None:
    await upgrade_async(sqlite_url)
    app = create_app(
        make_settings(sqlite_url, api_keys_required=True), dispatcher=RecordingDispatcher()
    )
    async with app.router.lifespan_context(app):
        async with app.state.session_factory() as s:
            keys = [
                (await create_api_key(s, tenant_id=t, name=t, scopes=sc))[1]
                for t, sc in (
                    ("alice", (Scope.learnings_read,)),
                    ("alice", (Scope.tasks_read,)),
                    ("bob", (Scope.learnings_read,)),
                )
            ]
            await repositories.put_domain_learning(
                s,
                tenant_id="alice",
                domain="shop.test",
                key="popups",
                value=[{"kind": "consent", "name": NAME}],
                task_id="a" * 32,
            )
            now = datetime(2026, 11, 1, tzinfo=UTC)
            await repositories.record_site_dead_end(
                s,
                tenant_id="alice",
                domain="shop.test",
                key="k" * 64,
                page="shop.test/cart",
                url="https://shop.test/cart",
                cause="policy_block",
                description="click Pay failed",
                signature="click pay",
                target=None,
                task_id="b" * 32,
                seen=now,
                expires_at=None,
            )
            await s.commit()
        learner, reader, other = keys
        transport = httpx.ASGITransport(app=app)
        for key, status in ((learner, 200), (reader, 403), (other, 404)):
            async with httpx.AsyncClient(transport=transport, base_url="http://v.test") as c:
                assert (await c.post("/login", data={"key": key, "next": "/"})).status_code in (
                    200,
                    303,
                )
                page = await c.get("/domains/shop.test")
                assert page.status_code == status, (key, page.text[:300])
                if status != 200:
                    continue
                html = page.text
                assert "<code>popups</code>" in html and "1×" in html
                assert f'href="/runs/{"a" * 32}"' in html and f'href="/runs/{"b" * 32}"' in html
                assert "click Pay failed" in html and "policy_block" in html and "lasts" in html
                assert "<script>alert" not in html and "&lt;script&gt;" in html
                listing = await c.get("/domains")
                assert 'href="/domains/shop.test"' in listing.text
