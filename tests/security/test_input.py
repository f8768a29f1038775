"""The attacks that used to end in a 500, one by one: each is now a 4xx with a message that says what is wrong,
and nothing is written."""

import base64

import pytest
from django.test import Client
from django.urls import reverse

from casino.money import AmountError, parse_major
from casino.untrusted import InputError, date_parse, whole_number_parse
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db

SUPERSCRIPT_TWO = "²"
ARABIC_INDIC_TWELVE = "\u0661\u0662"


def quiet(client):
    client.raise_request_exception = False
    return client


# --- the one parser ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [SUPERSCRIPT_TWO, ARABIC_INDIC_TWELVE, "1" * 5000, "12a", "", " ", "1.0", "+-1",
                                  "9" * 20, True, 1.5, None, [1]])
def test_whole_numbers_take_ascii_digits_only_and_stay_within_a_bigint(text):
    with pytest.raises(InputError) as refused:
        whole_number_parse(text, field="before")
    assert "'before'" in refused.value.message


def test_whole_numbers_within_their_bounds_are_read():
    assert whole_number_parse(" 42 ", field="n") == 42
    assert whole_number_parse(2**63 - 1, field="n") == 2**63 - 1
    with pytest.raises(InputError, match="between 1 and 10"):
        whole_number_parse("11", field="n", minimum=1, maximum=10)


@pytest.mark.parametrize("text", ["9999-12-31", "0001-01-01", "2024-02-30", "٢٠٢٤-٠١-٠١", "2024-1-1", "20240101"])
def test_dates_outside_the_calendar_or_the_systems_years_are_refused(text):
    with pytest.raises(InputError):
        date_parse(text, field="from")


@pytest.mark.parametrize("text", [ARABIC_INDIC_TWELVE, f"1{SUPERSCRIPT_TWO}", "1" * 100, "10000000000.01",
                                  "99999999999"])
def test_amounts_in_major_units_take_ascii_digits_up_to_the_system_maximum(text):
    with pytest.raises(AmountError):
        parse_major(text, "EUR")


# --- query parameters and paths ------------------------------------------------------------------------------

@pytest.mark.parametrize(("who", "url"), [
    ("player", "/me/games/?date=9999-12-31"),
    ("player", "/me/games/?date=0001-01-01"),
    ("player", f"/me/games/?before={SUPERSCRIPT_TWO}"),
    ("operator", "/dashboard/rtp/?to=9999-12-31"),
    ("operator", "/dashboard/rtp/?from=0001-01-01"),
    ("operator", "/dashboard/rtp/?to=0001-01-01"),
    ("player", f"/api/wallet/history/?limit={SUPERSCRIPT_TWO}"),
    ("player", f"/api/wallet/history/?account={'9' * 5000}"),
    ("player", f"/wallet/?before={ARABIC_INDIC_TWELVE}"),
])
def test_bad_numbers_and_dates_in_query_strings_are_400_with_a_message(personas, client_for, who, url):
    response = quiet(client_for(personas[who])).get(url)
    assert response.status_code == 400
    assert b"digits 0-9" in response.content or b"between" in response.content or b"YYYY-MM-DD" in response.content


@pytest.mark.parametrize("url", ["/search/?q=%00", "/tables/%00/", "/rounds/?game_number=a%00b",
                                 "/api/rounds/?table=%00", "/me/games/?x%01=1", "/dashboard/?period=%1b"])
def test_control_characters_in_the_path_or_query_are_refused_before_any_view(personas, client_for, url):
    response = quiet(client_for(personas["operator"])).get(url)
    assert response.status_code == 400
    assert b"control character" in response.content


def test_control_characters_in_a_header_are_refused(client_for, player):
    response = quiet(client_for(player)).get("/api/wallet/balances/", HTTP_X_TRACE="a\x00b")
    assert response.status_code == 400
    assert response.json() == {"code": "invalid_characters",
                               "message": "The X-Trace header contains a control character (such as NUL)."}


def test_a_nul_in_a_basic_auth_user_name_is_400_not_a_database_error(player):
    credentials = base64.b64encode(b"pat\x00player:pw-pat_player").decode()
    response = quiet(Client()).get("/api/wallet/balances/", HTTP_AUTHORIZATION=f"Basic {credentials}")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_characters"


def test_a_nul_in_a_posted_form_field_is_refused_and_nothing_is_written(client_for, operator, player):
    before = LedgerTransaction.objects.count()
    response = quiet(client_for(operator)).post(
        reverse("backoffice_player_golden_chips", args=[player.pk]),
        {"currency": "EUR", "amount": "5", "reason": "a\x00b", "idempotency_key": "k-nul"})
    assert response.status_code == 400
    assert LedgerTransaction.objects.count() == before


def test_tabs_and_line_breaks_in_a_query_value_are_not_control_characters_to_refuse(client_for, support):
    assert quiet(client_for(support)).get("/search/", {"q": "pat\tplayer\n"}).status_code in (200, 302, 404)


# --- amounts in JSON and forms -----------------------------------------------------------------------------

@pytest.mark.parametrize("amount", [SUPERSCRIPT_TWO, ARABIC_INDIC_TWELVE, "1" * 5000, "-5", str(10**13)])
def test_the_deposit_api_refuses_amounts_that_are_not_ascii_whole_numbers(client_for, player, amount):
    before = LedgerTransaction.objects.count()
    response = quiet(client_for(player)).post(reverse("api_wallet_deposit"), {"currency": "EUR", "amount": amount},
                                              content_type="application/json", HTTP_IDEMPOTENCY_KEY="k-amount")
    assert response.status_code == 400
    assert response.json()["code"] in ("invalid_amount", "invalid")
    assert response.json()["message"]
    assert LedgerTransaction.objects.count() == before


@pytest.mark.parametrize("amount", [SUPERSCRIPT_TWO, ARABIC_INDIC_TWELVE, "1" * 5000])
def test_the_cashier_confirmation_refuses_non_ascii_minor_amounts(client_for, player, amount):
    before = LedgerTransaction.objects.count()
    response = quiet(client_for(player)).post(reverse("wallet_cashier"), {
        "step": "confirm", "operation": "deposit", "currency": "EUR", "amount_minor": amount,
        "idempotency_key": "k-cashier"})
    assert response.status_code < 500
    assert LedgerTransaction.objects.count() == before


def test_player_settings_refuse_a_volume_in_another_script(client_for, player):
    response = quiet(client_for(player)).put(reverse("api_player_settings"), {
        "sound_on": True, "sound_volume": ARABIC_INDIC_TWELVE, "dealer_voice": True, "video_quality": "auto",
        "hide_others_chat": False}, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["fields"] == {"sound_volume": ["A valid integer is required."]}


# --- the admin's shortcut and the API docs ------------------------------------------------------------------

def test_the_admin_shortcut_answers_404_for_a_model_without_a_table(client_for, operator):
    from django.contrib.contenttypes.models import ContentType

    from accounts.models import BackOffice

    content_type = ContentType.objects.get_for_model(BackOffice, for_concrete_model=False)
    operator.is_staff = True
    operator.save(update_fields=["is_staff"])
    client = quiet(client_for(operator))
    assert client.get(f"/admin/r/{content_type.pk}/1/").status_code == 404
    assert client.get("/admin/r/1/1/").status_code == 404
    assert client.get("/admin/r/999999/1/").status_code == 404


def test_the_api_schema_is_closed_to_anonymous_callers():
    response = quiet(Client()).get(reverse("api-schema"))
    assert response.status_code == 403
    assert b"Authentication credentials were not provided" in response.content
    assert b"/api/wallet/" not in response.content


def test_the_api_docs_send_anonymous_visitors_to_sign_in():
    response = quiet(Client()).get(reverse("api-docs"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")


@pytest.mark.parametrize("who", ["operator", "support", "player"])
def test_signed_in_people_read_the_api_schema_and_docs(personas, client_for, who):
    client = client_for(personas[who])
    assert client.get(reverse("api-schema"), {"format": "json"}).json()["openapi"].startswith("3.")
    docs = client.get(reverse("api-docs"))
    assert docs.status_code == 200 and b"<script" in docs.content
    assert client.get(reverse("api-docs") + "?script").status_code == 200
