"""Every factory of the suite, in one place. Each goes through the product's own services (accounts, tables,
wallet, rounds), never around them: a row made any other way could break an invariant the services keep (a
ledger transaction that does not balance, a table without its history, a user without a role)."""

import uuid

import factory
from django.contrib.auth import get_user_model

from accounts.services import user_create
from rounds import services as round_services
from rounds.models import Round
from tables import services as table_services
from tables.models import Table
from wallet import services as wallet


def new_key() -> str:
    """A fresh idempotency key."""
    return str(uuid.uuid4())


# --- users --------------------------------------------------------------------------------------------------

class UserFactory(factory.django.DjangoModelFactory):
    """A user in a role (through accounts.services.user_create, like any sign-up or staff account).

    The password is always "pw-" + username, so a browser test can log in with it."""

    class Meta:
        model = get_user_model()

    username = factory.Sequence(lambda n: f"user_{n}")
    role = "player"
    email = ""

    @classmethod
    def _create(cls, model_class, *args, username, role, email, **kwargs):
        return user_create(username=username, password="pw-" + username, role=role, email=email, **kwargs)


class PlayerFactory(UserFactory):
    """A user in the player role, with no money."""

    username = factory.Sequence(lambda n: f"player_{n}")
    role = "player"


class FundedPlayerFactory(PlayerFactory):
    """A player with a cashier deposit (`cash`, minor units; 1,000.00 unless told) and optional Golden Chips."""

    @classmethod
    def _create(cls, model_class, *args, cash: int = 1_000_00, golden_chips: int = 0, currency: str = "EUR",
                **kwargs):
        user = super()._create(model_class, *args, **kwargs)
        if cash:
            wallet.deposit(player=user, currency=currency, amount=cash, idempotency_key=new_key())
        if golden_chips:
            staff = get_user_model().objects.filter(is_superuser=True).first() or UserFactory(
                username=f"chips_{user.username}", role="operator")
            wallet.golden_chips_grant(player=user, currency=currency, amount=golden_chips, staff=staff,
                                      reason="test grant", idempotency_key=new_key())
        return user


# --- tables -------------------------------------------------------------------------------------------------

class TableFactory(factory.Factory):
    """A table made the way the product makes it: through table_create, with its defaults and history."""

    class Meta:
        model = Table

    code = factory.Sequence(lambda n: f"T{n:04d}")
    name = factory.Sequence(lambda n: f"Table {n}")
    profile = "free_bet"
    currencies = factory.LazyFunction(lambda: ["EUR"])

    @classmethod
    def _create(cls, model_class, **kwargs):
        return table_services.table_create(actor=kwargs.pop("actor", None), **kwargs)


# Long timers, so that only a test that means to (by calling a service with a later `now`) sees one run out.
QUIET_TIMERS = {"betting_seconds": 120, "decision_seconds": 60}

# The features a round test expects a table of each profile to have.
PROFILE_OPTIONS = {
    "free_bet": {},
    "free_bet_seated": {"bet_behind": True},
    "classic": {"bet_behind": True, "multi_seat": True, "deal_now": True, "auto_confirm": True, "golden_chips": True},
}


class RoundTableFactory(TableFactory):
    """An open table of a profile with every feature of it on and quiet timers, ready for rounds; `dealing`
    picks a classic table's dealing."""

    code = factory.Sequence(lambda n: f"R{n:04d}")
    name = factory.Sequence(lambda n: f"Rounds table {n}")

    @classmethod
    def _create(cls, model_class, *, profile, **kwargs):
        options = {**PROFILE_OPTIONS[profile], **QUIET_TIMERS, "state": "open", **kwargs}
        return super()._create(model_class, profile=profile, **options)


# --- rounds -------------------------------------------------------------------------------------------------

class RoundFactory(factory.Factory):
    """A round with betting open at a (new) table."""

    class Meta:
        model = Round

    table = factory.SubFactory(RoundTableFactory)

    @classmethod
    def _create(cls, model_class, *, table, **kwargs):
        return round_services.round_open(table=table, **kwargs)


# --- wallet -------------------------------------------------------------------------------------------------

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
        return wallet.deposit(**kwargs)


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
            wallet.deposit(player=player, currency=currency, amount=max(amount, 100_00), idempotency_key=new_key())
        spec = wallet.BetHoldSpec(amount=amount, currency=currency, kind=kind, reference=reference)
        return wallet.bet_hold(player=player, holds=[spec], idempotency_key=new_key())[0]
