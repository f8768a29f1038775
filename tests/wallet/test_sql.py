"""The array literals the ledger statements send to PostgreSQL must round-trip any text and any integer."""

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from wallet.sql import pg_array

pytestmark = pytest.mark.django_db

# PostgreSQL text cannot hold NUL; everything else must survive, quotes, backslashes and braces included.
TEXT = st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.one_of(st.none(), TEXT), max_size=8))
def test_text_arrays_round_trip(values):
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::text[]", [pg_array(values)])
        assert cursor.fetchone()[0] == values


@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.integers(min_value=-(2**63), max_value=2**63 - 1)), max_size=8))
def test_bigint_arrays_round_trip(values):
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::bigint[]", [pg_array(values)])
        assert cursor.fetchone()[0] == values
