"""Factories that go through the real services: a ledger row made any other way would break its invariants."""

import uuid

import factory
from django.contrib.auth import get_user_model

from wallet import services


def new_key() -> str:
    return str(uuid.uuid4())


class PlayerFactory(factory.django.DjangoModelFactory):
    """A user in the player role (through accounts.services, like any sign-up)."""

    class Meta:
        model = get_user_model()

    username = factory.Sequence(lambda n: f"wallet_player_{n}")

    @classmethod
    def _create(cls, model_class, *args, username, **kwargs):
        from accounts.services import user_create

        return user_create(username=username, password="pw-" + username, role="player")


class DepositFactory(factory.Factory):
    """A cashier deposit; returns the LedgerTransaction."""

    class Meta:
        model = dict

    player = factory.SubFactory(PlayerFactory)
    currency = "EUR"
    amount = 100_00
    idempotency_key = factory.LazyFunction(new_key)

    @classmethod
    def _create(cls, model_class, **kwargs):
        return services.deposit(**kwargs)


class BetFactory(factory.Factory):
    """One cash bet held through bet_hold (funded by a deposit of the stake first); returns the Bet."""

    class Meta:
        model = dict

    player = factory.SubFactory(PlayerFactory)
    amount = 10_00
    currency = "EUR"
    kind = "main"
    reference = factory.Sequence(lambda n: f"G-{n:06d}")
    fund = True

    @classmethod
    def _create(cls, model_class, *, player, amount, currency, kind, reference, fund):
        if fund:
            services.deposit(player=player, currency=currency, amount=max(amount, 100_00), idempotency_key=new_key())
        spec = services.BetHoldSpec(amount=amount, currency=currency, kind=kind, reference=reference)
        return services.bet_hold(player=player, holds=[spec], idempotency_key=new_key())[0]
