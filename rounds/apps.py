from django.apps import AppConfig


class RoundsConfig(AppConfig):
    name = "rounds"
    verbose_name = "Game rounds"

    def ready(self):
        # The wallet's audit knows nothing of rounds: rounds adds its check of the money it holds.
        from rounds.stranded_money import stranded_money_check
        from wallet.audit import STRANDED_MONEY, audit_check_register

        audit_check_register(name="rounds_stranded_money", group=STRANDED_MONEY, check=stranded_money_check)
