import html
import re

import pytest
from django.urls import reverse

from tables import services
from tables.models import BetLimit, Table, TableChange, TablePaytable, TableRtpRun
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def table(roles):
    return TableFactory(code="FB01", name="Free Bet One", profile="free_bet")


def _read_pages(code):
    return [reverse("tables_list"), reverse("table_detail", args=[code]), reverse("table_history", args=[code]),
            reverse("table_strategy", args=[code])]


def _config_pages(code):
    return [reverse("table_new"), reverse("table_edit", args=[code]), reverse("table_limits", args=[code]),
            reverse("table_paytable", args=[code, "hot3"])]


def _pages(code):
    return _read_pages(code) + _config_pages(code)


@pytest.mark.parametrize(("persona", "status"), [("operator", 200), ("support", 403), ("player", 403),
                                                 ("player2", 403)])
def test_the_configuration_pages_are_for_operators_only(client_for, personas, table, persona, status):
    client = client_for(personas[persona])
    for url in _config_pages(table.code):
        response = client.get(url)
        assert response.status_code == status, url
        if status == 403:
            assert "configure tables, bet limits and paytables" in response.content.decode()


@pytest.fixture
def read_pages(table, operator):
    """Every page that shows a table without changing it, a simulation's page included."""
    run = services.rtp_run_start(actor=operator, table=table, hands=1000)
    return [*_read_pages(table.code), reverse("table_rtp_run", args=[table.code, run.pk])]


def test_support_reads_every_table_without_a_way_to_change_it(client_for, support, operator, table, read_pages):
    """Support answers players about limits, paytables and rules: they read what operators configure."""
    client = client_for(support)
    for url in read_pages:
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        for action in ("table_new", "table_edit", "table_limits", "table_state", "table_rtp_start"):
            target = reverse(action, args=[] if action == "table_new" else [table.code])
            assert f'href="{target}"' not in body and f'action="{target}"' not in body, (url, action)
        assert reverse("table_paytable", args=[table.code, "hot3"]) not in body, url
    detail = client.get(read_pages[1]).content.decode()
    assert "Free Bet One" in detail and "Bet limits" in detail and "Side bets and their RTP" in detail
    operator_detail = client_for(operator).get(read_pages[1]).content.decode()
    assert f'href="{reverse("table_edit", args=[table.code])}"' in operator_detail
    assert f'action="{reverse("table_state", args=[table.code])}"' in operator_detail


def test_players_read_no_table_page(client_for, player, read_pages):
    for url in read_pages:
        response = client_for(player).get(url)
        assert response.status_code == 403 and "read every table, round and player" in response.content.decode()


def test_anonymous_visitors_are_sent_to_log_in(client, table):
    for url in _pages(table.code):
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith(reverse("login")), url


def test_a_guessed_code_or_side_bet_is_a_404(client_for, operator, table):
    client = client_for(operator)
    for url in _pages("NOPE99"):
        if url in (reverse("tables_list"), reverse("table_new")):
            continue
        assert client.get(url).status_code == 404, url
    assert client.get(reverse("table_paytable", args=["FB01", "lucky_ladies"])).status_code == 404
    assert client.get(reverse("table_rtp_run", args=["FB01", 999])).status_code == 404


@pytest.mark.parametrize("persona", ["support", "player"])
def test_writes_by_other_roles_are_refused_and_change_nothing(client_for, personas, table, persona):
    client = client_for(personas[persona])
    posts = [
        (reverse("table_new"), {"code": "XX01", "name": "x", "profile": "classic"}),
        (reverse("table_edit", args=["FB01"]), {"name": "hacked"}),
        (reverse("table_limits", args=["FB01"]), {}),
        (reverse("table_paytable", args=["FB01", "hot3"]), {"777": "1000"}),
        (reverse("table_state", args=["FB01"]), {"state": "open"}),
        (reverse("table_rtp_start", args=["FB01"]), {"hands": "100000"}),
    ]
    for url, data in posts:
        assert client.post(url, data).status_code == 403, url
    assert Table.objects.get().config_version == 1
    assert (Table.objects.count(), TableRtpRun.objects.count()) == (1, 0)


def test_navigation_shows_tables_to_operators_and_support(client_for, personas):
    for persona, shown in (("operator", True), ("support", True), ("player", False)):
        body = client_for(personas[persona]).get(reverse("home")).content.decode()
        assert (f'href="{reverse("tables_list")}"' in body) is shown, persona


# --- create and edit --------------------------------------------------------------------------------------

def _form_values(client, url, *, reason: str = "Test: the operator's reason") -> dict:
    """What a browser would post back from the page's form, unchanged (checkboxes only when checked), with the
    reason for the change typed in."""
    body = client.get(url).content.decode()
    form = body[body.index('<form method="post"'):]
    form = form[:form.index("</form>")]
    values: dict = {}
    for tag in re.findall(r"<(?:input|select)[^>]*>", form):
        name = re.search(r'name="([^"]+)"', tag)
        if not name or name.group(1) == "csrfmiddlewaretoken":
            continue
        if 'type="checkbox"' in tag:
            if "checked" in tag:
                values.setdefault(name.group(1), []).append(re.search(r'value="([^"]*)"', tag).group(1)
                                                            if 'value="' in tag else "on")
            continue
        if tag.startswith("<select"):
            rest = form[form.index(tag):]
            selected = re.search(r'<option value="([^"]*)"[^>]*selected', rest[:rest.index("</select>")])
            values[name.group(1)] = selected.group(1) if selected else ""
            continue
        value = re.search(r'value="([^"]*)"', tag)
        values[name.group(1)] = value.group(1) if value else ""
    if "reason" in values:
        values["reason"] = reason
    return values


@pytest.mark.parametrize("profile", ["free_bet", "free_bet_seated", "classic"])
def test_operator_creates_a_table_of_each_profile(client_for, operator, profile):
    client = client_for(operator)
    values = _form_values(client, reverse("table_new") + f"?profile={profile}")
    assert values["profile"] == profile
    values.update({"code": "NEW1", "name": f"New {profile}", "currencies": "EUR, usd"})
    response = client.post(reverse("table_new"), values)
    assert response.status_code == 302 and response.url == reverse("table_detail", args=["NEW1"])
    table = Table.objects.get(code="NEW1")
    assert (table.profile, table.currencies, table.state) == (profile, ["EUR", "USD"], "closed")
    assert TableChange.objects.get(table=table).actor == operator
    assert TablePaytable.objects.filter(table=table, offered=True).count() == (3 if profile == "free_bet" else 2)
    detail = client.get(response.url).content.decode()
    assert "Table NEW1 created" in detail


def test_the_create_form_shows_errors_beside_fields_and_writes_nothing(client_for, operator, table):
    client = client_for(operator)
    values = _form_values(client, reverse("table_new") + "?profile=classic")
    values.update({"code": "FB01", "name": "Duplicate", "currencies": "EUR"})
    response = client.post(reverse("table_new"), values)
    assert response.status_code == 200
    assert "There is already a table with code FB01" in response.content.decode()
    values.update({"code": "NEW2", "currencies": "EUR, DOGE", "seats": "9"})
    body = client.post(reverse("table_new"), values).content.decode()
    assert "Ensure this value is less than or equal to 7" in body
    values["seats"] = "7"
    body = client.post(reverse("table_new"), values).content.decode()
    assert "&#x27;DOGE&#x27; is not a currency tables accept" in body
    assert list(Table.objects.values_list("code", flat=True)) == ["FB01"]


def test_choosing_a_profile_fetches_its_fields_as_a_fragment(client_for, operator):
    client = client_for(operator)
    classic = client.get(reverse("table_new"), {"profile": "classic"}, **HTMX).content.decode()
    assert classic.startswith('<div id="profile-fields">') and "<html" not in classic
    assert 'name="dealing"' in classic and 'name="seats"' in classic and 'name="golden_chips"' in classic
    free_bet = client.get(reverse("table_new"), {"profile": "free_bet"}, **HTMX).content.decode()
    assert 'name="dealing"' not in free_bet and 'name="seats"' not in free_bet
    assert "Common draw" in free_bet
    page = client.get(reverse("table_new")).content.decode()
    assert 'hx-get="/tables/new/"' in page and "<html" in page


def test_operator_edits_settings_and_a_stale_form_is_refused(client_for, operator, table):
    client = client_for(operator)
    url = reverse("table_edit", args=["FB01"])
    values = _form_values(client, url)
    assert values["version"] == "1" and "seats" not in values
    values.update({"decks": "6", "charlie_cards": ""})
    response = client.post(url, values)
    assert response.status_code == 302
    table.refresh_from_db()
    assert (table.decks, table.charlie_cards, table.config_version) == (6, None, 2)
    values["decks"] = "4"  # the same, now stale, form posted again
    body = client.post(url, values).content.decode()
    assert "was changed by someone else" in body
    assert Table.objects.get(pk=table.pk).decks == 6


def test_bad_settings_are_shown_and_not_saved(client_for, operator, table):
    client = client_for(operator)
    url = reverse("table_edit", args=["FB01"])
    values = _form_values(client, url) | {"decks": "0", "betting_seconds": "abc"}
    body = client.post(url, values).content.decode()
    assert "Ensure this value is greater than or equal to 1" in body and "Enter a whole number" in body
    assert Table.objects.get(pk=table.pk).config_version == 1


# --- limits -----------------------------------------------------------------------------------------------

def test_operator_edits_limits_in_major_units(client_for, operator, table):
    client = client_for(operator)
    url = reverse("table_limits", args=["FB01"])
    values = _form_values(client, url)
    assert values["main__EUR__min"] == "1.00" and values["main__EUR__chips"] == "1.00, 5.00, 25.00, 100.00, 500.00"
    values.update({"main__EUR__min": "2", "main__EUR__max": "2500.50", "main__EUR__chips": "2, 10, 50.50"})
    review = client.post(url, values).content.decode()
    assert client.post(url, _review_form_values(review) | {"step": "confirm"}).status_code == 302
    main = BetLimit.objects.get(table=table, bet_type="main", currency="EUR")
    assert (main.min, main.max, main.chips) == (200, 250_050, [200, 1000, 5050])


def _review_form_values(body: str) -> dict:
    form = body[body.index('<form method="post"'):]
    form = form[:form.index("</form>")]
    # As a browser posts them: the values unescaped (a reason with an apostrophe is the reason reviewed).
    return {name: html.unescape(value)
            for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form)
            if name != "csrfmiddlewaretoken"}


def test_saving_limits_shows_what_changes_and_who_reads_the_reason_before_anything_is_saved(
        client_for, operator, table):
    """Limits went live on the first post, with no review of what they change; now the first post only reviews."""
    client = client_for(operator)
    url = reverse("table_limits", args=["FB01"])
    values = _form_values(client, url, reason="VIP evening") | {"main__EUR__max": "2500", "main__EUR__chips": "1, 5"}
    response = client.post(url, values)
    assert response.status_code == 200
    body = response.content.decode()
    assert "data-review" in body and "not saved yet" in body
    assert "Main bet in EUR: maximum 5,000.00 EUR became 2,500.00 EUR; chips 1.00, 5.00, 25.00, 100.00, 500.00 " \
           "EUR became 1.00, 5.00 EUR." in body
    assert "VIP evening" in body and "Who will see the reason: operators and support" in body and "Players do not" in body
    assert BetLimit.objects.get(table=table, bet_type="main", currency="EUR").max == 500_000
    assert TableChange.objects.filter(table=table).count() == 1
    # "Change the values" brings the form back with what was typed, still unsaved.
    again = client.post(url, _review_form_values(body) | {"step": "edit"}).content.decode()
    assert 'value="2500"' in again and "data-review" not in again
    assert TableChange.objects.filter(table=table).count() == 1
    # The confirmation posts the same values back and saves them, with the reason.
    response = client.post(url, _review_form_values(body) | {"step": "confirm"})
    assert response.status_code == 302
    main = BetLimit.objects.get(table=table, bet_type="main", currency="EUR")
    assert (main.max, main.chips) == (250_000, [100, 500])
    assert TableChange.objects.filter(table=table).latest("version").reason == "VIP evening"


def test_a_review_without_a_change_or_a_reason_says_so_and_saves_nothing(client_for, operator, table):
    client = client_for(operator)
    url = reverse("table_limits", args=["FB01"])
    body = client.post(url, _form_values(client, url)).content.decode()
    assert "Nothing to save: these are the values in force" in body and "data-review" not in body
    body = client.post(url, _form_values(client, url, reason="") | {"main__EUR__max": "2500"}).content.decode()
    assert "Give a reason" in body and "data-review" not in body
    assert TableChange.objects.filter(table=table).count() == 1


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"main__EUR__min": "6000"}, "the minimum is above the maximum: 6,000.00 EUR against 5,000.00 EUR"),
        ({"main__EUR__min": "1.001"}, "is not exact"),
        ({"main__EUR__max": "lots"}, "&#x27;lots&#x27; is not an amount"),
        ({"hot3__EUR__chips": "1, 1000"}, "chip 1,000.00 EUR is outside the limits"),
        ({"main__EUR__min": "1.01", "main__EUR__chips": "5"}, "1.01 EUR: main and Bet Behind amounts must end in"),
        # Every problem of the row, in major units with the currency.
        ({"main__EUR__min": "1.01", "main__EUR__chips": "5, 10000"},
         "chip 10,000.00 EUR is outside the limits 1.01-5,000.00 EUR; 1.01 EUR: main and Bet Behind"),
    ],
)
def test_bad_limits_are_shown_and_not_saved(client_for, operator, table, changes, message):
    client = client_for(operator)
    url = reverse("table_limits", args=["FB01"])
    response = client.post(url, _form_values(client, url) | changes)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert Table.objects.get(pk=table.pk).config_version == 1


# --- paytables and live RTP -----------------------------------------------------------------------------------

def test_paytable_editor_shows_the_rtp_live_as_a_fragment(client_for, operator, roles):
    TableFactory(code="LB01", profile="classic")
    client = client_for(operator)
    url = reverse("table_paytable", args=["LB01", "perfect_pairs"])
    page = client.get(url).content.decode()
    assert 'hx-trigger="input changed delay:300ms"' in page and "95.9036 %" in page
    fragment = client.get(url, {"perfect": "30", "coloured": "12", "mixed": "6"}, **HTMX).content.decode()
    assert fragment.startswith('<div id="paytable-rtp" class="rtp-live too-high"')
    assert "104.3373 %" in fragment and "cannot be saved" in fragment
    fragment = client.get(url, {"perfect": "25", "coloured": "10", "mixed": "5"}, **HTMX).content.decode()
    assert "88.1928 %" in fragment and "cannot be saved" not in fragment
    fragment = client.get(url, {"perfect": "25", "coloured": "x"}, **HTMX).content.decode()
    assert "Enter a whole number" in fragment
    assert TableChange.objects.count() == 1  # previews write nothing


def test_a_paytable_at_or_above_100_percent_cannot_be_saved(client_for, operator, roles):
    table = TableFactory(code="LB01", profile="classic")
    client = client_for(operator)
    url = reverse("table_paytable", args=["LB01", "perfect_pairs"])
    values = _form_values(client, url) | {"perfect": "30", "coloured": "12", "mixed": "6"}
    response = client.post(url, values)
    assert response.status_code == 200
    body = response.content.decode()
    assert "returns 104.3373 % to players with 8 decks" in body
    assert "Enter a whole number" not in body  # only what is wrong: every line is a whole number
    no_reason = client.post(url, values | {"perfect": "20", "reason": ""}).content.decode()
    assert "RTP with 8 decks: <strong data-rtp>87.4699 %" in no_reason and "Enter a whole number" not in no_reason
    assert TablePaytable.objects.get(table=table, side_bet="perfect_pairs").paytable["perfect"] == 25
    values["perfect"] = "20"
    review = client.post(url, values)
    assert review.status_code == 200
    body = review.content.decode()
    # The first post reviews: the pays that change, the RTP after, who reads the reason; nothing is saved.
    assert "data-review" in body and "Perfect Pairs paytable: Perfect pair pays 25 to 1 → 20 to 1." in body
    assert "returns 87.4699 % to players with 8 decks (now 95.9036 %)" in body
    assert "Who will see the reason: operators and support" in body
    assert TablePaytable.objects.get(table=table, side_bet="perfect_pairs").paytable["perfect"] == 25
    response = client.post(url, _review_form_values(body) | {"step": "confirm"})
    assert response.status_code == 302
    assert TablePaytable.objects.get(table=table, side_bet="perfect_pairs").paytable["perfect"] == 20
    assert "RTP 87.4699 %" in client.get(response.url).content.decode()


# --- detail, state, history, strategy ---------------------------------------------------------------------

def test_detail_shows_configuration_limits_paytables_rtps_and_history(client_for, operator, table):
    body = client_for(operator).get(reverse("table_detail", args=["FB01"])).content.decode()
    for text in ("Free Bet One", "unlimited (common draw)", "500.00", "1.00, 5.00, 25.00, 100.00, 500.00",
                 "95.9036 %", "96.2961 %", "94.5951 %", "92.5301 %", "98.4283 %", "Not simulated yet",
                 "Created Free Bet Blackjack (common draw) table FB01", reverse("table_strategy", args=["FB01"])):
        assert text in body, text


def test_state_buttons_open_pause_and_close(client_for, operator, table):
    client = client_for(operator)
    url = reverse("table_state", args=["FB01"])
    assert client.post(url, {"state": "open", "version": "1"}).status_code == 302
    assert Table.objects.get().state == "open"
    client.post(url, {"state": "paused", "version": "1", "reason": "camera reset"})  # stale
    assert Table.objects.get().state == "open"
    client.post(url, {"state": "exploded", "version": "2"})
    assert Table.objects.get().state == "open"
    assert client.get(url).status_code == 405


def test_history_pages_by_version_and_loads_older_entries_as_a_fragment(client_for, operator, table):
    for index in range(30):
        services.table_update(actor=operator, reason="test change", table=table, betting_seconds=10 + index)
    client = client_for(operator)
    url = reverse("table_history", args=["FB01"])
    page = client.get(url).content.decode()
    assert "Betting time changed from 38 s to 39 s." in page and "Created Free Bet" not in page
    assert f'hx-get="{url}?before=7"' in page
    older = client.get(url, {"before": "7"}, **HTMX).content.decode()
    assert "<html" not in older and "Created Free Bet Blackjack (common draw) table FB01" in older
    assert "Betting time changed from 13 s to 14 s." in older
    assert "hx-get" not in older
    assert client.get(url, {"before": "junk"}).status_code == 200


def test_history_says_each_change_in_plain_sentences_with_money_in_its_currency(client_for, operator, table):
    """Was `limits.main.EUR.chips: [100, 500, ...] → [...]` and `side_bets: [...]`: dotted keys and minor units."""
    services.bet_limits_set(actor=operator, reason="higher stakes", table=table, limits=[
        {"bet_type": "main", "currency": "EUR", "min": 200, "max": 400_000, "chips": [200, 1000, 5000]}])
    services.table_update(actor=operator, reason="faster", table=table, decks=6, deal_now=True)
    page = client_for(operator).get(reverse("table_history", args=["FB01"])).content.decode()
    assert "Main bet in EUR: minimum 1.00 EUR became 2.00 EUR; maximum 5,000.00 EUR became 4,000.00 EUR; chips" in page
    assert "became 2.00, 10.00, 50.00 EUR." in page
    assert "Decks changed from 8 to 6." in page and "Deal Now switched on." in page
    summary = page[page.index("<tbody>"):page.index("</tbody>")].split("<details>")[0]
    assert "limits.main" not in page.split("<details>")[0] and "[100" not in summary and "deal_now" not in summary
    detail = client_for(operator).get(reverse("table_detail", args=["FB01"])).content.decode()
    assert "Decks changed from 8 to 6." in detail and "deal_now" not in detail.split('id="history-heading"')[1]


@pytest.mark.parametrize(("profile", "expected"), [("free_bet", "FD"), ("free_bet_seated", "FP"), ("classic", "Ds")])
def test_strategy_chart_shows_hard_soft_and_pairs(client_for, operator, roles, profile, expected):
    TableFactory(code="ST01", profile=profile)
    body = client_for(operator).get(reverse("table_strategy", args=["ST01"])).content.decode()
    for caption in ("Hard totals", "Soft totals", "Pairs"):
        assert f"<caption>{caption}</caption>" in body
    assert f'class="act act-{expected}"' in body
    assert ("free hand of a free split" in body) == (profile != "classic")


def test_starting_a_simulation_returns_the_progress_fragment(client_for, operator, table):
    client = client_for(operator)
    response = client.post(reverse("table_rtp_start", args=["FB01"]), {"hands": "100000"}, **HTMX)
    run = TableRtpRun.objects.get()
    body = response.content.decode()
    assert (run.hands, run.config_version, run.state, run.requested_by) == (100_000, 1, "queued", operator)
    assert f'hx-get="{reverse("table_rtp_run", args=["FB01", run.pk])}"' in body and "<progress" in body
    assert response.status_code == 200
    poll = client.get(reverse("table_rtp_run", args=["FB01", run.pk]), **HTMX)
    assert poll.status_code == 200 and "Waiting for a worker" in poll.content.decode()
    assert client.get(reverse("table_rtp_run", args=["FB01", run.pk])).status_code == 200
    bad = client.post(reverse("table_rtp_start", args=["FB01"]), {"hands": "7"}, **HTMX)
    assert "Select a valid choice" in bad.content.decode() and TableRtpRun.objects.count() == 1


# --- admin ------------------------------------------------------------------------------------------------

def test_admin_saves_go_through_the_services_and_into_history(client_for, operator, table):
    client = client_for(operator)
    url = reverse("admin:tables_table_change", args=[table.pk])
    page = client.get(url)
    assert page.status_code == 200
    data = {
        "name": "Renamed in admin", "state": "paused", "dealing": "ace_peek", "decks": "8", "charlie_cards": "6",
        "dealer_22_push": "on", "timeout_rule": "hit_11_or_less", "betting_seconds": "15",
        "decision_seconds": "10", "currencies": '["EUR"]', "seats": "", "reason": "Renamed for the launch", "disconnect_policy": "void_while_betting",
        "non_live_deadline": "86400", "deal_now_players": "7",
    }
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    table.refresh_from_db()
    assert (table.name, table.state, table.config_version) == ("Renamed in admin", "paused", 3)
    actors = list(TableChange.objects.filter(table=table).order_by("version").values_list("actor", flat=True))
    assert actors == [None, operator.pk, operator.pk]
    data["decks"] = "12"
    assert client.post(url, data).status_code == 200
    assert Table.objects.get(pk=table.pk).config_version == 3


def test_admin_paytable_over_100_percent_is_refused(client_for, operator, table):
    client = client_for(operator)
    row = TablePaytable.objects.get(table=table, side_bet="any_pair")
    url = reverse("admin:tables_tablepaytable_change", args=[row.pk])
    response = client.post(url, {"offered": "on", "paytable": '{"suited_pair": 30, "pair": 12}', "reason": "x"})
    assert response.status_code == 200 and "a paytable must return less than 100 %" in response.content.decode()
    response = client.post(url, {"paytable": '{"suited_pair": 20, "pair": 8}', "reason": "promotion"})
    assert response.status_code == 302
    row.refresh_from_db()
    assert (row.paytable, row.offered) == ({"suited_pair": 20, "pair": 8}, False)
    assert TableChange.objects.filter(table=table).count() == 3


def test_admin_history_is_read_only_and_support_cannot_change_tables(client_for, operator, support, table):
    change = TableChange.objects.get(table=table)
    operator_client = client_for(operator)
    view = operator_client.get(reverse("admin:tables_tablechange_change", args=[change.pk]))
    assert view.status_code == 200 and 'name="_save"' not in view.content.decode()
    assert operator_client.post(reverse("admin:tables_tablechange_change", args=[change.pk]),
                                {"summary": "x"}).status_code == 403
    assert operator_client.get(reverse("admin:tables_tablechange_add")).status_code == 403
    assert operator_client.get(reverse("admin:tables_table_delete", args=[table.pk])).status_code == 403
    support_client = client_for(support)
    assert support_client.get(reverse("admin:tables_table_change", args=[table.pk])).status_code == 200
    assert support_client.post(reverse("admin:tables_table_change", args=[table.pk]),
                               {"name": "support was here"}).status_code == 403
    assert Table.objects.get(pk=table.pk).name == "Free Bet One"


def test_admin_creates_a_table_through_the_service(client_for, operator):
    client = client_for(operator)
    data = {
        "code": "AD01", "name": "Admin made", "profile": "classic", "state": "closed", "dealing": "eu",
        "decks": "8", "charlie_cards": "10", "double_after_split": "on", "timeout_rule": "stand", "seats": "7",
        "bet_behind": "on", "betting_seconds": "15", "decision_seconds": "10", "currencies": '["EUR"]',
        "reason": "New studio table",
        "disconnect_policy": "non_live", "non_live_deadline": "86400", "deal_now_players": "7",
    }
    bad = client.post(reverse("admin:tables_table_add"), data | {"dealing": "ace_peek"})
    assert bad.status_code == 200 and "A classic table deals eu" in bad.content.decode()
    response = client.post(reverse("admin:tables_table_add"), data)
    assert response.status_code == 302
    table = Table.objects.get(code="AD01")
    assert TableChange.objects.get(table=table).actor == operator
    assert TablePaytable.objects.filter(table=table).count() == 4
    assert BetLimit.objects.filter(table=table, bet_type="bet_behind").exists()
