import factory

from tables import services
from tables.models import Table


class TableFactory(factory.Factory):
    """Tables are made the way the product makes them: through table_create, with defaults and history."""

    class Meta:
        model = Table

    code = factory.Sequence(lambda n: f"T{n:04d}")
    name = factory.Sequence(lambda n: f"Table {n}")
    profile = "free_bet"
    currencies = factory.LazyFunction(lambda: ["EUR"])

    @classmethod
    def _create(cls, model_class, **kwargs):
        return services.table_create(actor=kwargs.pop("actor", None), **kwargs)
