"""The player's and support's forms. Amounts are typed in major units in the reader's language and checked by
the currency registry; the services check everything again."""

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from casino.money import CURRENCIES
from responsible.jurisdictions import RULE_FIELDS
from responsible.models import ExclusionEndRule, PromotionRule

PERIODS = [("day", _("per day")), ("week", _("per week")), ("month", _("per month"))]
TIME_OUTS = [(1, _("24 hours")), (7, _("one week")), (30, _("30 days")), (42, _("six weeks"))]
SELF_EXCLUSIONS = [("183", _("six months")), ("365", _("one year")), ("1826", _("five years")),
                   ("", _("until further notice"))]
REALITY_CHECKS = [("", _("No reality checks")), *[(str(m), format_lazy(_("Every {minutes} minutes"), minutes=m))
                                                  for m in (15, 30, 45, 60, 90, 120)]]


def _currencies():
    return [(code, code) for code in sorted(CURRENCIES)]


class MoneyLimitForm(forms.Form):
    kind = forms.ChoiceField(label=_("Limit"), choices=[("deposit", _("Deposit limit")), ("loss", _("Loss limit"))])
    period = forms.ChoiceField(label=_("Period"), choices=PERIODS)
    currency = forms.ChoiceField(label=_("Currency"), choices=_currencies)
    amount = forms.CharField(label=_("Amount (empty: no limit)"), required=False, max_length=32)


class SessionLimitForm(forms.Form):
    minutes = forms.IntegerField(label=_("Minutes per session (empty: no limit)"), required=False, min_value=10,
                                 max_value=24 * 60)


class RealityCheckForm(forms.Form):
    interval = forms.ChoiceField(label=_("Reality check"), choices=REALITY_CHECKS, required=False)


class _OwnIds(forms.Form):
    """The page shows several forms with a `confirm` or `days` field: each gets ids of its own, so every label
    names its own box."""

    id_prefix = ""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", f"{self.id_prefix}_%s")
        super().__init__(*args, **kwargs)


class TimeOutForm(_OwnIds):
    id_prefix = "time_out"
    days = forms.TypedChoiceField(label=_("Take a break for"), choices=TIME_OUTS, coerce=int)
    confirm = forms.BooleanField(label=_("I understand I cannot play, bet or deposit until it ends."))


class SelfExclusionForm(_OwnIds):
    id_prefix = "self_exclusion"
    # Six months unless the player chooses otherwise: an indefinite exclusion is never the default.
    days = forms.ChoiceField(label=_("Exclude myself for"), choices=SELF_EXCLUSIONS, required=False, initial="183")
    confirm = forms.BooleanField(label=_("I understand this cannot be undone or shortened."))


class ExclusionEndForm(_OwnIds):
    id_prefix = "exclusion_end"
    confirm = forms.BooleanField(label=_("I ask for my self-exclusion to end. I understand it stays in force until "
                                         "the time shown."))


class ExclusionEndWithdrawForm(forms.Form):
    """Nothing to fill in: withdrawing a waiting end only tightens, so it applies at once."""


class SupportExclusionEndForm(forms.Form):
    action = forms.ChoiceField(choices=[("request", "Ask to end the self-exclusion"),
                                        ("withdraw", "Withdraw the waiting end")])
    reason = forms.CharField(label="Reason (the player's written request: date and reference)",
                             widget=forms.Textarea(attrs={"rows": 2}), max_length=2000)


YES_NO = [("yes", "Yes"), ("no", "No")]


class JurisdictionRulesForm(forms.Form):
    """The rules of one jurisdiction as an operator types them; the service checks every one of them."""

    cooling_off_hours = forms.IntegerField(label="Cooling-off before a raised or removed limit applies (hours)")
    deposit_limit_required = forms.TypedChoiceField(label="Deposit limit required before the first deposit",
                                                    choices=YES_NO, coerce=lambda v: v == "yes")
    time_zone = forms.CharField(label="Time zone of days, weeks and months (IANA name)", max_length=64)
    # Short words that fit the select at phone width; the labels say what they are about.
    promotions = forms.ChoiceField(label="Promotional credit", choices=[
        (PromotionRule.ANY, "At any time"), (PromotionRule.FIRST_OCCASION_ONLY, "First occasion only"),
        (PromotionRule.NONE, "None")])
    exclusion_end = forms.ChoiceField(label="An indefinite self-exclusion ends", choices=[
        (ExclusionEndRule.NEVER, "Never on request"), (ExclusionEndRule.ON_REQUEST, "On request")])
    exclusion_end_min_days = forms.IntegerField(label="Minimum time excluded before it can end (days)")
    exclusion_end_cooling_off_hours = forms.IntegerField(label="Cooling-off after a request to end it (hours)")
    version = forms.IntegerField(widget=forms.HiddenInput)
    reason = forms.CharField(label="Reason", widget=forms.Textarea(attrs={"rows": 2}), max_length=2000)

    RULES = RULE_FIELDS

    @classmethod
    def initial_for(cls, jurisdiction) -> dict:
        initial = {name: getattr(jurisdiction, name) for name in cls.RULES}
        initial["deposit_limit_required"] = "yes" if jurisdiction.deposit_limit_required else "no"
        return {**initial, "version": jurisdiction.version}

    def rules(self) -> dict:
        return {name: self.cleaned_data[name] for name in self.RULES}


class RegisterAddForm(forms.Form):
    identity = forms.CharField(label="User name", max_length=150)
    days = forms.IntegerField(label="Days (empty: indefinitely)", required=False, min_value=1, max_value=36500)
    reason = forms.CharField(label="Reason", widget=forms.Textarea(attrs={"rows": 2}), max_length=2000)


class ReasonForm(forms.Form):
    reason = forms.CharField(label="Reason", widget=forms.Textarea(attrs={"rows": 2}), max_length=2000)


class JurisdictionForm(forms.Form):
    code = forms.ChoiceField(label="Jurisdiction")
    reason = forms.CharField(label="Reason", widget=forms.Textarea(attrs={"rows": 2}), max_length=2000)

    def __init__(self, *args, choices, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["code"].choices = choices
