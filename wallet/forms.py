from django import forms
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from casino.fields import WholeNumberField
from wallet.currencies import CURRENCIES, currency_get, money_format, money_parse
from wallet.errors import WalletError

OPERATIONS = [("deposit", _("Deposit")), ("withdraw", _("Withdraw"))]


def currency_choices() -> list[tuple[str, str]]:
    """"EUR – Euro"; on a page in another language with that language's name of the currency (Babel's CLDR)."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    if language == settings.LANGUAGE_CODE:
        return [(code, f"{code} – {c.name}") for code, c in CURRENCIES.items()]
    from babel.numbers import get_currency_name

    from casino.locale_formats import babel_locale

    return [(code, f"{code} – {get_currency_name(code, locale=babel_locale(language))}") for code in CURRENCIES]


class AmountForm(forms.Form):
    """Base of the forms where a person types money: `currency` and `amount` in major units, read back exactly
    into `amount_minor`; a subclass may refuse amounts out of its range with `amount_error`."""

    def amount_error(self, data: dict, minor: int) -> str | None:
        return None

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            minor = money_parse(data["amount"], data["currency"])
        except WalletError as exc:
            self.add_error("amount", exc.message)
            return data
        error = self.amount_error(data, minor)
        if error:
            self.add_error("amount", error)
        data["amount_minor"] = minor
        return data


class CashierForm(AmountForm):
    """Step one: what the player asks for, in major units as they think of money."""

    operation = forms.ChoiceField(choices=OPERATIONS, widget=forms.RadioSelect, initial="deposit",
                                  label=_("Operation"))
    currency = forms.ChoiceField(choices=currency_choices, initial="EUR", label=_("Currency"))
    amount = forms.CharField(max_length=24, label=_("Amount"), help_text=_("In the currency's usual units, e.g. 25.00"),
                             widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}))
    # Generated when the form is first rendered and carried to the confirmation, so a double submit moves once.
    idempotency_key = forms.CharField(max_length=200, widget=forms.HiddenInput)

    def amount_error(self, data: dict, minor: int) -> str | None:
        limits = currency_get(data["currency"])
        if limits.cashier_min <= minor <= limits.cashier_max:
            return None
        from casino.formatting import money as money_text

        words = {"low": money_text(limits.cashier_min, data["currency"]),
                 "high": money_text(limits.cashier_max, data["currency"])}
        if data["operation"] == "deposit":
            return str(_("Each deposit must be between %(low)s and %(high)s.")) % words
        return str(_("Each withdraw must be between %(low)s and %(high)s.")) % words


class CashierConfirmForm(forms.Form):
    """Step two: the reviewed request, exactly as it will be sent to the ledger."""

    operation = forms.ChoiceField(choices=OPERATIONS)
    currency = forms.ChoiceField(choices=[(code, code) for code in CURRENCIES])
    amount_minor = WholeNumberField(min_value=1)
    idempotency_key = forms.CharField(max_length=200)


class GoldenChipGrantForm(AmountForm):
    """Staff grant promotional Golden Chips: the amount in major units, and why (kept in the ledger)."""

    currency = forms.ChoiceField(choices=[(code, code) for code in CURRENCIES], initial="EUR")
    amount = forms.CharField(max_length=24, label="Golden Chips", help_text="In the currency's usual units, e.g. 25.00",
                             widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}))
    reason = forms.CharField(max_length=500, label="Reason", help_text="Shown to the player in their Golden Chips history and kept in the "
                                                                       "staff activity record")
    # Generated with the page, so a double submit grants once.
    idempotency_key = forms.CharField(max_length=200, widget=forms.HiddenInput)

    def amount_error(self, data: dict, minor: int) -> str | None:
        # A typo of a few zeros should not reach the ledger: one grant is at most what one deposit may be.
        if minor <= 0:
            return "Enter an amount of Golden Chips above zero."
        limit = currency_get(data["currency"]).cashier_max
        return f"One grant is at most {money_format(limit, data['currency'])}." if minor > limit else None


class GoldenChipGrantConfirmForm(forms.Form):
    """Step two of a grant: the reviewed amount in minor units, exactly as the ledger will receive it. The cap is
    checked again, since a hidden field can be edited between the steps."""

    currency = forms.ChoiceField(choices=[(code, code) for code in CURRENCIES])
    amount_minor = WholeNumberField(min_value=1)
    reason = forms.CharField(max_length=500)
    idempotency_key = forms.CharField(max_length=200)

    def clean(self):
        data = super().clean()
        if not self.errors:
            limit = currency_get(data["currency"]).cashier_max
            if data["amount_minor"] > limit:
                self.add_error("amount_minor", f"One grant is at most {money_format(limit, data['currency'])}.")
        return data
