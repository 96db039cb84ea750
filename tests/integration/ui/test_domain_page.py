"""The viewer's domain page (issue 21): what runs learned about a site, when, from which runs;
only for keys with `learnings:read`, only the key's tenant, page text escaped."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from app.auth import Scope
from app.contracts import (
    ElementEffect,
    ElementRecord,
    PageRecord,
    PageTemplate,
    SectionOutline,
    SkippedElement,
    TaskStatus,
    WebsiteMem,
)
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
            await repositories.put_domain_learning(  # issue 34: a fact's run, page, users
                s,
                tenant_id="alice",
                domain="shop.test",
                key="facts",
                value=[
                    {
                        "key": "delivery",
                        "value": NAME,
                        "url": "https://shop.test/terms",
                        "task_id": "c" * 32,
                        "used_by": ["d" * 32],
                    }
                ],
                task_id="c" * 32,
            )
            route = await repositories.save_route(
                s,
                tenant_id="alice",
                domain="shop.test",
                intent_key="i" * 64,
                task_id="e" * 32,
                intent="open the {} kettle",
                instruction="open the Aurora kettle",
                slots=[2],
                start="shop.test/",
                steps=[{"action": "click"}],
            )
            for fell_back in (True, False):
                await repositories.count_route_replay(
                    s, tenant_id="alice", route_id=route.id, fell_back=fell_back, succeeded=True
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
                routes = html.split('id="routes"', 1)[1].split("</table>", 1)[0]
                assert "open the {} kettle" in routes and f'href="/runs/{"e" * 32}"' in routes
                assert "<td>2</td>\n    <td>1</td>\n    <td>2</td>" in routes  # replayed...
                facts = html.split('id="facts"', 1)[1].split("</table>", 1)[0]
                assert "https://shop.test/terms" in facts and "&lt;script&gt;" in facts
                assert f'href="/runs/{"c" * 32}"' in facts and f'href="/runs/{"d" * 32}"' in facts
                listing = await c.get("/domains")
                assert 'href="/domains/shop.test"' in listing.text
                assert 'href="/domains/shop.test/site"' in html


async def test_the_site_page_shows_the_website_mem_and_the_exploration(sqlite_url: str) -> None:
    await upgrade_async(sqlite_url)
    app = create_app(
        make_settings(sqlite_url, api_keys_required=True), dispatcher=RecordingDispatcher()
    )
    mem = WebsiteMem(
        domain="shop.test",
        start_url="https://shop.test/",
        pages=[
            PageRecord(url="https://shop.test/", title="Shop home", depth=0),
            PageRecord(
                url="https://shop.test/p/3",
                title=NAME,
                depth=1,
                template="/p/{}",
                sections=[SectionOutline(title="Reviews", kind="region")],
            ),
        ],
        templates=[PageTemplate(pattern="/p/{}", signature="s", kind="item", urls=["a", "b"])],
        elements=[
            ElementRecord(
                page="https://shop.test/",
                label='button "Menu"',
                effect=ElementEffect.reveals,
                revealed=['link "Teapots"', 'link "Mugs"'],
            )
        ],
        skipped=[SkippedElement(page="https://shop.test/", label='link "Log out"', reason="auth")],
        stats={"pages": 2},
    )
    async with app.router.lifespan_context(app):
        async with app.state.session_factory() as s:
            learner, other = [
                (await create_api_key(s, tenant_id=t, name=t, scopes=(Scope.learnings_read,)))[1]
                for t in ("alice", "bob")
            ]
            done = await repositories.create_exploration(
                s, tenant_id="alice", domain="shop.test", url="https://shop.test/", params={}
            )
            await repositories.claim_exploration(s, exploration_id=done.id, worker_id="w")
            version = await repositories.save_website_mem(
                s,
                tenant_id="alice",
                domain="shop.test",
                exploration_id=done.id,
                start_url="https://shop.test/",
                data=mem.model_dump(mode="json"),
            )
            await repositories.finish_exploration(
                s, exploration_id=done.id, status=TaskStatus.succeeded, version=version
            )
            await s.commit()
            newer = await repositories.create_exploration(
                s, tenant_id="alice", domain="shop.test", url="https://shop.test/", params={}
            )
            await s.commit()
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://v.test") as c:
            await c.post("/login", data={"key": learner, "next": "/"})
            page = await c.get("/domains/shop.test/site")
            assert page.status_code == 200, page.text[:300]
            html = page.text
            assert f"<code>{newer.id}</code>" in html and "queued" in html  # the newest one
            assert "WebsiteMem v1" in html and "Shop home" in html and "Reviews" in html
            assert "<code>/p/{}</code>" in html and "<td>item</td><td>2</td>" in html
            assert "reveals" in html and "link &#34;Teapots&#34;, link &#34;Mugs&#34;" in html
            assert "auth" in html and "link &#34;Log out&#34;" in html
            assert "<script>alert" not in html and "&lt;script&gt;" in html
            assert 'href="/domains/shop.test"' in html
            assert (await c.get("/domains/unknown.test/site")).status_code == 404
        async with httpx.AsyncClient(transport=transport, base_url="http://v.test") as c:
            await c.post("/login", data={"key": other, "next": "/"})
            assert (await c.get("/domains/shop.test/site")).status_code == 404  # another tenant
