import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.factories import BetFactory

pytestmark = pytest.mark.django_db

MODELS = ["account", "ledgertransaction", "entry", "bet", "betresolution"]


@pytest.fixture
def admin_client(client_for, player):
    BetFactory(player=player)
    return client_for(get_user_model().objects.create_superuser("root", "root@example.test", "pw"))


@pytest.mark.parametrize("model", MODELS)
def test_the_ledger_admin_reads_but_never_writes(admin_client, model):
    assert admin_client.get(reverse(f"admin:wallet_{model}_changelist")).status_code == 200
    assert admin_client.get(reverse(f"admin:wallet_{model}_add")).status_code == 403


def test_a_transaction_page_shows_its_entries_read_only(admin_client, player):
    from wallet.models import LedgerTransaction

    txn = LedgerTransaction.objects.filter(kind="bet").get()
    page = admin_client.get(reverse("admin:wallet_ledgertransaction_change", args=[txn.pk]))
    body = page.content.decode()
    assert page.status_code == 200 and "-1000" in body  # the stake leaving the player, in minor units
    assert 'name="_save"' not in body
