"""The main pages in Chromium with the Content-Security-Policy in force: no page may cause a CSP violation
(an inline script or style, htmx's injected indicator style, an eval)."""

import pytest
from django.db import connections

from tests.backoffice.scenarios import settle_classic
from tests.helpers import browser_sign_in

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation",
    (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
"""


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1100, "height": 900})
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.console_messages_seen = []
    page.on("console", lambda message: page.console_messages_seen.append(message.text))
    yield page
    context.close()
    connections.close_all()


def sign_in(page, live_server, username):
    # Through the real pages, the second factor included for staff: a page reached before it is its enrolment.
    browser_sign_in(page, live_server.url, username)
    page.wait_for_load_state("networkidle")


def visit_all(page, live_server, paths):
    problems = []
    for path in paths:
        response = page.goto(f"{live_server.url}{path}")
        assert response.status == 200, path
        assert "/verify/" not in page.url and "/login/" not in page.url, f"{path} sent to {page.url}"
        assert "script-src 'self';" in response.headers["content-security-policy"] + ";"
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)  # htmx's polling fragments load after the page
        problems += [f"{path}: {v}" for v in page.evaluate("window.__cspViolations")]
        problems += [f"{path}: htmx injected a style element"
                     for _ in range(page.evaluate("[...document.querySelectorAll('style')]"
                                                  ".filter((s) => s.textContent.includes('htmx-indicator')).length"))]
    problems += [text for text in page.console_messages_seen if "Content Security Policy" in text]
    return problems


@pytest.mark.browser
def test_staff_pages_run_under_the_csp_without_violations(live_server, page, operator, play, classic_table, funded):
    alice = funded(username="alice_csp", cash=100_00)
    round = settle_classic(play, classic_table, alice)
    sign_in(page, live_server, "olivia_operator")
    paths = ["/", "/dashboard/", "/dashboard/rtp/",
             f"/support/players/{alice.pk}/", f"/support/rounds/{round.game_number}/", "/tables/",
             f"/tables/{classic_table.code}/", f"/tables/{classic_table.code}/limits/",
             f"/tables/{classic_table.code}/history/", "/wallet/players/", "/ops/worker/", "/api/docs/"]
    assert visit_all(page, live_server, paths) == []


@pytest.mark.browser
def test_player_pages_run_under_the_csp_without_violations(live_server, page, play, classic_table, funded):
    alice = funded(username="alice_csp", cash=100_00)
    round = settle_classic(play, classic_table, alice)
    sign_in(page, live_server, "alice_csp")
    paths = ["/", "/me/games/", f"/me/games/{round.game_number}/", "/me/tables/", f"/me/tables/{classic_table.code}/",
             "/me/settings/", "/wallet/", "/wallet/cashier/"]
    assert visit_all(page, live_server, paths) == []
