"""Factories for rounds, made the way the product makes them: tables through tables.services, players through
accounts.services with a cashier deposit, rounds through rounds.services. Later issues reuse these."""

import uuid

import factory
from django.contrib.auth import get_user_model

from rounds import services
from rounds.models import Round
from tables import services as table_services
from tables.models import Table
from wallet import services as wallet


def new_key() -> str:
    return str(uuid.uuid4())


# Long timers, so that only a test that means to (by calling a service with a later `now`) sees one run out.
QUIET_TIMERS = {"betting_seconds": 120, "decision_seconds": 60}

PROFILE_OPTIONS = {
    "free_bet": {},
    "free_bet_seated": {"bet_behind": True},
    "classic": {"bet_behind": True, "multi_seat": True, "deal_now": True, "golden_chips": True},
}


class RoundTableFactory(factory.Factory):
    """An open table of a profile, through table_create; `dealing` picks a classic table's dealing."""

    class Meta:
        model = Table

    code = factory.Sequence(lambda n: f"R{n:04d}")
    name = factory.Sequence(lambda n: f"Rounds table {n}")
    profile = "free_bet"
    currencies = factory.LazyFunction(lambda: ["EUR"])

    @classmethod
    def _create(cls, model_class, *, profile, **kwargs):
        options = {**PROFILE_OPTIONS[profile], **QUIET_TIMERS, "state": "open", **kwargs}
        return table_services.table_create(actor=options.pop("actor", None), profile=profile, **options)


class FundedPlayerFactory(factory.django.DjangoModelFactory):
    """A user in the player role with a cashier deposit (`cash`, minor units) and optional Golden Chips."""

    class Meta:
        model = get_user_model()

    username = factory.Sequence(lambda n: f"round_player_{n}")

    @classmethod
    def _create(cls, model_class, *args, username, cash: int = 1_000_00, golden_chips: int = 0,
                currency: str = "EUR", **kwargs):
        from accounts.services import user_create

        user = user_create(username=username, password="pw-" + username, role="player")
        if cash:
            wallet.deposit(player=user, currency=currency, amount=cash, idempotency_key=new_key())
        if golden_chips:
            staff = get_user_model().objects.filter(is_superuser=True).first() or user_create(
                username=f"chips_{username}", password="pw", role="operator")
            wallet.golden_chips_grant(player=user, currency=currency, amount=golden_chips, staff=staff,
                                      reason="test grant", idempotency_key=new_key())
        return user


class RoundFactory(factory.Factory):
    """A round with betting open at a (new) table."""

    class Meta:
        model = Round

    table = factory.SubFactory(RoundTableFactory)

    @classmethod
    def _create(cls, model_class, *, table, **kwargs):
        return services.round_open(table=table, **kwargs)
