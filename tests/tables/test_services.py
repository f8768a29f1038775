import json

import pytest
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError, connection, transaction

from rounds.engine.rules import Rules
from rounds.engine.sidebets import DEFAULT_PAYTABLES
from tables import selectors, services
from tables.errors import TableConfigError, TableConflictError
from tables.models import BetLimit, Table, TableChange, TablePaytable
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db


def _counts():
    return (Table.objects.count(), BetLimit.objects.count(), TablePaytable.objects.count(),
            TableChange.objects.count())


# --- creation ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("profile", "side_bets", "seats", "charlie", "dealing"),
    [
        ("free_bet", ["any_pair", "21+3", "hot3"], None, 6, "ace_peek"),
        ("free_bet_seated", ["21+3", "perfect_pairs"], 7, None, "ace_peek"),
        ("classic", ["21+3", "perfect_pairs"], 7, 10, "eu"),
    ],
)
def test_create_preloads_the_profile_defaults_paytables_and_limits(operator, profile, side_bets, seats, charlie,
                                                                    dealing):
    table = services.table_create(actor=operator, reason="test change", code="AB12", name="Test", profile=profile,
                                  currencies=["EUR", "GBP"])
    assert (table.seats, table.charlie_cards, table.dealing, table.config_version) == (seats, charlie, dealing, 1)
    offered = [row.side_bet for row in selectors.table_paytables(table=table, offered_only=True)]
    assert sorted(offered) == sorted(side_bets)
    for row in selectors.table_paytables(table=table):
        assert row.paytable == DEFAULT_PAYTABLES[row.side_bet]
    expected_types = {"main", "tip", *side_bets} | ({"bet_behind"} if profile != "free_bet" else set())
    limits = selectors.table_bet_limits(table=table)
    assert {(limit.bet_type, limit.currency) for limit in limits} == {
        (bet_type, currency) for bet_type in expected_types for currency in ("EUR", "GBP")
    }
    main = selectors.bet_limit_get(table=table, bet_type="main", currency="EUR")
    assert (main.min, main.max, main.chips) == (100, 500_000, [100, 500, 2500, 10000, 50000])
    change = TableChange.objects.get(table=table)
    assert (change.version, change.actor, change.before) == (1, operator, None)
    assert change.after["limits"]["main"]["EUR"]["max"] == 500_000
    assert change.summary == f"Created {profile} table AB12"


def test_create_writes_the_limits_and_paytables_given_and_its_history_describes_the_rows_stored(operator):
    hot3 = {**DEFAULT_PAYTABLES["hot3"], "777": DEFAULT_PAYTABLES["hot3"]["777"] - 10}
    pairs = {**DEFAULT_PAYTABLES["perfect_pairs"], "mixed": DEFAULT_PAYTABLES["perfect_pairs"]["mixed"] - 1}
    table = services.table_create(
        actor=operator, reason="test change", code="AB12", name="Test", profile="free_bet_seated",
        currencies=["EUR", "SEK"], paytables={"hot3": hot3, "perfect_pairs": pairs},
        limits=[{"bet_type": "main", "currency": "SEK", "min": 2_000, "max": 40_000, "chips": [10_000, 2_000]},
                {"bet_type": "perfect_pairs", "currency": "EUR", "min": 101, "max": 999, "chips": [101]}])
    stored = {(limit.bet_type, limit.currency): (limit.min, limit.max, limit.chips)
              for limit in BetLimit.objects.filter(table=table)}
    assert stored.pop(("main", "SEK")) == (2_000, 40_000, [2_000, 10_000])
    assert stored.pop(("perfect_pairs", "EUR")) == (101, 999, [101])
    defaults = {(bet_type, currency): tuple(services.default_bet_limit(bet_type=bet_type, currency=currency)[key]
                                            for key in ("min", "max", "chips"))
                for bet_type in ("main", "21+3", "perfect_pairs", "bet_behind", "tip") for currency in ("EUR", "SEK")}
    assert stored == {key: value for key, value in defaults.items()
                      if key not in {("main", "SEK"), ("perfect_pairs", "EUR")}}
    paytables = {row.side_bet: (row.offered, row.paytable) for row in TablePaytable.objects.filter(table=table)}
    assert paytables == {"any_pair": (False, DEFAULT_PAYTABLES["any_pair"]), "21+3": (True, DEFAULT_PAYTABLES["21+3"]),
                         "hot3": (False, hot3), "perfect_pairs": (True, pairs)}
    # The history's first entry is the table as stored, read back from the database.
    change = TableChange.objects.get(table=table)
    assert change.after == services.table_document(Table.objects.get(pk=table.pk))


def test_create_scales_default_limits_to_the_currency(roles):
    table = TableFactory(currencies=["JPY", "SEK"])
    jpy = selectors.bet_limit_get(table=table, bet_type="main", currency="JPY")
    sek = selectors.bet_limit_get(table=table, bet_type="main", currency="SEK")
    assert (jpy.min, jpy.max) == (100, 500_000)  # 1 EUR ~ 100 JPY, and the yen has no minor unit
    assert (sek.min, sek.max) == (1_000, 5_000_000)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"code": "fb01"}, "2-8 capital letters"),
        ({"code": "TOOLONGCODE"}, "2-8 capital letters"),
        ({"profile": "baccarat"}, "Unknown profile"),
        ({"currencies": []}, "at least one currency"),
        ({"currencies": ["EUR", "XXX"]}, "'XXX' is not a currency"),
        ({"name": "  "}, "needs a name"),
        ({"seats": 7}, "common draw"),
        ({"bet_behind": True}, "Bet behind needs seats"),
        ({"dealing": "eu"}, "peek under an ace"),
        ({"golden_chips": True}, "classic tables only"),
        ({"decks": 9}, "Decks must be a whole number from 1 to 8"),
        ({"decks": True}, "Decks must be a whole number"),
        ({"charlie_cards": 4}, "Charlie cards"),
        ({"betting_seconds": 2}, "Betting time"),
        ({"decision_seconds": 600}, "Decision time"),
        ({"timeout_rule": "double"}, "Timeout rule"),
        ({"side_bets": ["lucky_ladies"]}, "Unknown side bet"),
        ({"state": "broken"}, "State must be one of"),
        ({"dealer_22_push": "yes"}, "dealer_22_push must be true or false"),
        ({"shoe_colour": "red"}, "Unknown table setting 'shoe_colour'"),
        ({"paytables": {"hot3": {"777": 100, "suited_21": 20, "21": 4, "20": 2, "19": 9}}}, "100 %"),
        ({"limits": [{"bet_type": "main", "currency": "EUR", "min": 500, "max": 100, "chips": [100]}]},
         "minimum is above the maximum"),
    ],
)
def test_create_refuses_bad_settings_and_writes_nothing(roles, options, message):
    arguments = {"actor": None, "code": "FB01", "name": "Free Bet", "profile": "free_bet", "currencies": ["EUR"],
                 **options}
    with pytest.raises(TableConfigError, match=message):
        services.table_create(**arguments)
    assert _counts() == (0, 0, 0, 0)


def test_classic_dealing_choices_are_checked(roles):
    with pytest.raises(TableConfigError, match="classic table deals"):
        TableFactory(profile="classic", dealing="ace_peek")
    table = TableFactory(profile="classic", dealing="us_peek_before")
    assert services.table_rules(table).name == "classic_us_peek_before"


def test_a_code_is_used_once(roles):
    TableFactory(code="FB01")
    with pytest.raises(TableConfigError, match="already a table with code FB01"):
        TableFactory(code="FB01")
    assert Table.objects.count() == 1


def test_people_without_configure_tables_cannot_write(support, player):
    for actor in (support, player):
        with pytest.raises(PermissionDenied, match="configure tables"):
            services.table_create(actor=actor, reason="test change", code="FB01", name="x", profile="free_bet", currencies=["EUR"])
    table = TableFactory()
    with pytest.raises(PermissionDenied):
        services.table_update(actor=support, reason="test change", table=table, decks=6)
    with pytest.raises(PermissionDenied):
        services.paytable_set(actor=player, reason="test change", table=table, side_bet="hot3", paytable=DEFAULT_PAYTABLES["hot3"])
    assert Table.objects.get().config_version == 1


# --- updates, versions and history ----------------------------------------------------------------------

def test_update_bumps_the_version_and_records_who_what_before_and_after(operator):
    table = TableFactory(profile="classic")
    updated = services.table_update(actor=operator, reason="test change", table=table, decks=6, charlie_cards=None)
    assert (updated.decks, updated.charlie_cards, updated.config_version) == (6, None, 2)
    change = TableChange.objects.get(table=table, version=2)
    assert change.actor == operator
    assert (change.before["decks"], change.after["decks"]) == (8, 6)
    assert (change.before["config_version"], change.after["config_version"]) == (1, 2)
    assert change.summary == "charlie_cards: 10 → null; decks: 8 → 6"


def test_an_update_that_changes_nothing_is_not_a_change(operator):
    table = TableFactory()
    same = services.table_update(actor=operator, reason="test change", table=table, decks=8, name=table.name)
    assert same.config_version == 1
    assert TableChange.objects.filter(table=table).count() == 1


def test_a_stale_form_is_refused_and_writes_nothing(operator):
    table = TableFactory()
    services.table_update(actor=operator, reason="test change", table=table, decks=6, expected_version=1)
    with pytest.raises(TableConflictError, match="changed by someone else"):
        services.table_update(actor=operator, reason="test change", table=table, decks=4, expected_version=1)
    table.refresh_from_db()
    assert (table.decks, table.config_version) == (6, 2)


def test_new_side_bets_bet_behind_and_currencies_get_default_limits_and_removed_ones_lose_them(operator):
    table = TableFactory(profile="free_bet_seated", bet_behind=False)
    assert selectors.bet_limit_get(table=table, bet_type="bet_behind", currency="EUR") is None
    table = services.table_update(actor=operator, reason="test change", table=table, bet_behind=True, currencies=["EUR", "USD"],
                                  side_bets=["perfect_pairs", "hot3"])
    kinds = {(limit.bet_type, limit.currency) for limit in selectors.table_bet_limits(table=table)}
    assert kinds == {(bet, cur) for bet in ("main", "perfect_pairs", "hot3", "bet_behind", "tip")
                     for cur in ("EUR", "USD")}
    assert TablePaytable.objects.get(table=table, side_bet="21+3").offered is False
    change = TableChange.objects.get(table=table, version=2)
    assert "21+3" in change.before["limits"] and "21+3" not in change.after["limits"]


def test_decks_cannot_change_to_a_count_where_an_offered_paytable_pays_100_percent(operator):
    table = TableFactory(profile="free_bet")
    # Three cards totalling 21 are likelier with fewer decks: paying only 21 (9 to 1, other lines push) returns
    # 98.90 % with 8 decks, 99.94 % with 2 and 101.38 % with 1.
    services.paytable_set(actor=operator, reason="test change", table=table, side_bet="hot3",
                          paytable={"777": 0, "suited_21": 0, "21": 9, "20": 0, "19": 0})
    with pytest.raises(TableConfigError, match=r"Hot 3 paytable returns 101\.3756 % to players with 1 deck;"):
        services.table_update(actor=operator, reason="test change", table=table, decks=1)
    assert Table.objects.get(pk=table.pk).decks == 8
    assert services.table_update(actor=operator, reason="test change", table=table, decks=2).decks == 2


def test_state_changes_are_versioned_too(operator):
    table = TableFactory()
    table = services.table_state_set(actor=operator, table=table, state="open")
    assert (table.state, table.config_version) == ("open", 2)
    assert selectors.tables_open() == [table]
    with pytest.raises(TableConfigError, match="State must be one of"):
        services.table_state_set(actor=operator, table=table, state="sleeping")
    assert TableChange.objects.get(table=table, version=2).summary == "state: closed → open"


def test_code_profile_and_state_are_not_changed_by_table_update(operator):
    table = TableFactory()
    for field, value in (("code", "NEW1"), ("profile", "classic"), ("state", "open")):
        with pytest.raises(TableConfigError, match=f"table's {field} cannot be changed"):
            services.table_update(actor=operator, reason="test change", table=table, **{field: value})


# --- limits -----------------------------------------------------------------------------------------------

def _limit(**overrides):
    return {"bet_type": "main", "currency": "EUR", "min": 200, "max": 100_000, "chips": [200, 1000, 5000],
            **overrides}


def test_limits_are_set_versioned_and_recorded(operator):
    table = TableFactory()
    table = services.bet_limits_set(actor=operator, reason="test change", table=table, limits=[_limit(chips=[5000, 200, 1000])])
    main = selectors.bet_limit_get(table=table, bet_type="main", currency="EUR")
    assert (main.min, main.max, main.chips, table.config_version) == (200, 100_000, [200, 1000, 5000], 2)
    change = TableChange.objects.get(table=table, version=2)
    assert change.summary == ("limits.main.EUR.chips: [100, 500, 2500, 10000, 50000] → [200, 1000, 5000]; "
                              "limits.main.EUR.max: 500000 → 100000; limits.main.EUR.min: 100 → 200")


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        (_limit(min=300, max=200, chips=[300]), "minimum is above the maximum: 3.00 EUR against 2.00 EUR"),
        (_limit(chips=[100, 1000]), "chip 1.00 EUR is outside the limits 2.00-1,000.00 EUR"),
        (_limit(chips=[]), "at least one chip"),
        (_limit(min=0), "minimum must be between 0.01 EUR and"),
        (_limit(max=1.5), "maximum must be a whole number"),
        (_limit(min=201, chips=[1000]), "2.01 EUR: main and Bet Behind amounts must end in an even"),
        (_limit(bet_type="bet_behind"), "does not offer Bet Behind"),
        (_limit(currency="GBP"), "does not accept GBP"),
        (_limit(currency="ZZZ"), "'ZZZ' is not a currency"),
        (_limit(bet_type="jackpot"), "Unknown bet type"),
        ({"bet_type": "main", "currency": "EUR"}, "missing min, max, chips"),
    ],
)
def test_bad_limits_are_refused_and_nothing_changes(operator, limit, message):
    table = TableFactory()
    before = services.table_document(table)
    with pytest.raises(TableConfigError, match=message):
        services.bet_limits_set(actor=operator, reason="test change", table=table, limits=[limit])
    assert services.table_document(Table.objects.get(pk=table.pk)) == before


def test_side_bet_amounts_may_be_odd(operator):
    table = TableFactory()
    services.bet_limits_set(actor=operator, reason="test change", table=table,
                            limits=[_limit(bet_type="hot3", min=101, max=999, chips=[101, 555])])
    assert selectors.bet_limit_get(table=table, bet_type="hot3", currency="EUR").chips == [101, 555]


# --- paytables --------------------------------------------------------------------------------------------

def test_a_paytable_returning_more_than_100_percent_is_refused_naming_its_rtp(operator):
    table = TableFactory(profile="classic")
    with pytest.raises(TableConfigError, match=r"returns 104\.3373 % to players with 8 decks") as refused:
        services.paytable_set(actor=operator, reason="test change", table=table, side_bet="perfect_pairs",
                              paytable={"perfect": 30, "coloured": 12, "mixed": 6})
    assert refused.value.code == "rtp_too_high"
    assert TablePaytable.objects.get(table=table, side_bet="perfect_pairs").paytable == {
        "perfect": 25, "coloured": 12, "mixed": 6}
    assert Table.objects.get(pk=table.pk).config_version == 1


def test_a_paytable_change_is_versioned_and_recorded(operator):
    table = TableFactory()
    row = services.paytable_set(actor=operator, reason="test change", table=table, side_bet="any_pair",
                                paytable={"suited_pair": 20, "pair": 8})
    assert row.paytable == {"suited_pair": 20, "pair": 8}
    change = TableChange.objects.get(table=table, version=2)
    assert change.summary == "paytables.any_pair.suited_pair: 25 → 20"


@pytest.mark.parametrize(
    ("paytable", "message"),
    [
        ({"suited_pair": 25}, "needs a pay for 'pair'"),
        ({"suited_pair": 25, "pair": 8, "mixed": 1}, "has no paytable line 'mixed'"),
        ({"suited_pair": 25, "pair": -1}, "whole number from 0 to 10000"),
        ({"suited_pair": 25, "pair": "8"}, "whole number from 0 to 10000"),
        ("25/8", "must map each line"),
    ],
)
def test_malformed_paytables_are_refused(operator, paytable, message):
    table = TableFactory()
    with pytest.raises(TableConfigError, match=message):
        services.paytable_set(actor=operator, reason="test change", table=table, side_bet="any_pair", paytable=paytable)
    assert TableChange.objects.filter(table=table).count() == 1


# --- history is immutable --------------------------------------------------------------------------------

def test_history_rows_cannot_be_updated_or_deleted(roles):
    table = TableFactory()
    change = TableChange.objects.get(table=table)
    change.summary = "rewritten"
    with pytest.raises(TypeError, match="immutable"):
        change.save()
    with pytest.raises(TypeError, match="immutable"):
        change.delete()
    with pytest.raises(TypeError, match="immutable"):
        TableChange.objects.filter(table=table).update(summary="rewritten")
    with pytest.raises(TypeError, match="immutable"):
        TableChange.objects.filter(table=table).delete()


def test_even_raw_sql_cannot_rewrite_history(roles):
    table = TableFactory()
    for sql in ("UPDATE tables_tablechange SET summary = 'x'", "DELETE FROM tables_tablechange"):
        with pytest.raises(DatabaseError, match="table history is immutable"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(sql)
    assert TableChange.objects.get(table=table).summary == "Created free_bet table " + table.code


# --- what rounds use --------------------------------------------------------------------------------------

def test_rules_follow_the_table_flags(operator):
    table = TableFactory(profile="classic", dealing="us_peek_after", decks=6, charlie_cards=None,
                         double_after_split=False, dealer_22_push=True, seats=5, multi_seat=True)
    rules = services.table_rules(table)
    assert (rules.name, rules.decks, rules.charlie, rules.double_after_split, rules.dealer_22_push,
            rules.max_seats, rules.multi_seat) == ("classic_us_peek_after", 6, None, False, True, 5, True)
    assert rules.side_bets == ("21+3", "perfect_pairs")


def test_snapshot_is_json_and_keeps_describing_the_version_a_round_opened_with(operator):
    table = TableFactory(profile="free_bet", currencies=["EUR"])
    opened = services.table_config_snapshot(table)
    stored = json.loads(json.dumps(opened))  # what a round stores
    services.table_update(actor=operator, reason="test change", table=table, decks=6, side_bets=["hot3"])
    services.bet_limits_set(actor=operator, reason="test change", table=table, limits=[_limit(min=1000, chips=[1000])])
    services.paytable_set(actor=operator, reason="test change", table=table, side_bet="hot3",
                          paytable={"777": 90, "suited_21": 20, "21": 4, "20": 2, "19": 1})
    now = services.table_config_snapshot(table)

    assert stored == opened
    assert (stored["version"], now["version"]) == (1, 4)
    old_rules, new_rules = Rules.from_dict(stored["rules"]), Rules.from_dict(now["rules"])
    assert (old_rules.decks, new_rules.decks) == (8, 6)
    assert old_rules.side_bets == ("any_pair", "21+3", "hot3") and new_rules.side_bets == ("hot3",)
    assert old_rules.paytable("hot3")["777"] == 100 and new_rules.paytable("hot3")["777"] == 90
    assert stored["limits"]["main"]["EUR"] == {"min": 100, "max": 500_000, "chips": [100, 500, 2500, 10000, 50000]}
    assert now["limits"]["main"]["EUR"] == {"min": 1000, "max": 100_000, "chips": [1000]}
    assert set(stored["paytables"]) == {"any_pair", "21+3", "hot3"} and set(now["paytables"]) == {"hot3"}
    assert stored["common_draw"] is True and stored["seats"] is None
    assert stored["timers"] == {"betting_seconds": 15, "decision_seconds": 10}
    # The history of version 1 holds the same configuration the round stored.
    first = TableChange.objects.get(table=table, version=1).after
    assert first["limits"] == stored["limits"]


def test_the_snapshot_a_round_takes_at_open_costs_four_queries(roles, django_assert_num_queries):
    table = TableFactory(profile="classic", currencies=["EUR", "GBP", "USD"])
    with django_assert_num_queries(4):
        services.table_config_snapshot(table)
