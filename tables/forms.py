"""Page forms. They only parse what people type; the rules live in services (whose validators they call so that a
mistake is shown beside the field it concerns)."""

from __future__ import annotations

from django import forms
from django.urls import reverse

from casino.fields import WholeNumberField
from rounds.engine.sidebets import DEFAULT_PAYTABLES
from tables import services
from tables.currencies import AmountError, major_to_minor, minor_to_major
from tables.errors import TableConfigError
from tables.labels import LINE_LABELS
from tables.models import (
    CLASSIC_DEALINGS,
    MAX_SEATS,
    BetType,
    DisconnectPolicy,
    Profile,
    SideBet,
    Table,
    TimeoutRule,
)

CHARLIE_CHOICES = [("", "No Charlie rule"), *((str(n), f"{n} cards win") for n in range(5, 11))]


FIELDS_BY_PROFILE = {
    Profile.FREE_BET: {"dealing", "seats", "bet_behind", "multi_seat", "golden_chips", "deal_now_players",
                       "multiple_bets"},
    Profile.FREE_BET_SEATED: {"dealing", "golden_chips", "multiple_bets"},
    Profile.CLASSIC: set(),
}


def _attach(form: forms.Form, error: TableConfigError, prefix: str = "") -> None:
    field = f"{prefix}{error.field}" if error.field else None
    form.add_error(field if field in form.fields else None, error.message)


def reason_field(label: str = "Reason for this change") -> forms.CharField:
    """The service decides whether a reason is required (tables.services.reason_clean); its error is shown here."""
    return forms.CharField(
        label=label, required=False, max_length=services.REASON_MAX_LENGTH,
        help_text="Operators and support read it in the table's history and the staff-activity record; players do "
                  "not.",
        widget=forms.TextInput(attrs={"required": True, "maxlength": services.REASON_MAX_LENGTH}),
    )


class TableSettingsForm(forms.Form):
    """Create (with code and profile) or edit (with the version the form was loaded at) a table's settings."""

    code = forms.CharField(
        label="Code", max_length=8, help_text="2-8 capital letters or digits; appears in every game number",
        widget=forms.TextInput(attrs={"autocapitalize": "characters", "pattern": "[A-Za-z0-9]{2,8}"}),
    )
    name = forms.CharField(label="Name", max_length=100)
    profile = forms.ChoiceField(label="Profile", choices=Profile.choices)
    dealing = forms.ChoiceField(
        label="Dealing and peek", choices=[(d.value, d.label) for d in CLASSIC_DEALINGS]
    )
    decks = WholeNumberField(label="Decks", min_value=1, max_value=8)
    charlie_cards = forms.TypedChoiceField(
        label="Charlie", choices=CHARLIE_CHOICES, coerce=int, empty_value=None, required=False
    )
    dealer_22_push = forms.BooleanField(label="Dealer 22 pushes", required=False)
    double_after_split = forms.BooleanField(label="Double after split", required=False)
    timeout_rule = forms.ChoiceField(label="When a player does not decide in time", choices=TimeoutRule.choices)
    new_shoe_burn = forms.BooleanField(label="Burn cards at a new shoe", required=False)
    disconnect_policy = forms.ChoiceField(label="When a player disconnects", choices=DisconnectPolicy.choices)
    non_live_deadline = WholeNumberField(
        label="Seconds a non-live continuation waits for the player", min_value=60, max_value=30 * 24 * 3600
    )
    seats = WholeNumberField(label="Seats", min_value=1, max_value=MAX_SEATS)
    bet_behind = forms.BooleanField(label="Bet Behind", required=False)
    multi_seat = forms.BooleanField(label="Multi Seat", required=False)
    deal_now = forms.BooleanField(label="Deal Now", required=False)
    auto_confirm = forms.BooleanField(label="Confirm bets automatically", required=False)
    golden_chips = forms.BooleanField(label="Golden Chips", required=False)
    multiple_bets = forms.BooleanField(label="Multiple Bets (more bets after confirming)", required=False)
    deal_now_players = WholeNumberField(label="Deal Now offered up to this many seated players", min_value=1,
                                        max_value=MAX_SEATS)
    multi_game = forms.BooleanField(label="Playable alongside other tables", required=False)
    betting_seconds = WholeNumberField(label="Betting time (seconds)", min_value=5, max_value=120)
    decision_seconds = WholeNumberField(label="Decision time (seconds)", min_value=3, max_value=60)
    currencies = forms.CharField(label="Currencies", help_text="ISO codes separated by commas, e.g. EUR, GBP")
    side_bets = forms.MultipleChoiceField(
        label="Side bets offered", choices=SideBet.choices, required=False, widget=forms.CheckboxSelectMultiple
    )
    version = WholeNumberField(widget=forms.HiddenInput, required=False)
    reason = reason_field()

    GROUPS = (
        ("Rules", ("dealing", "decks", "charlie_cards", "dealer_22_push", "double_after_split", "timeout_rule",
                   "new_shoe_burn", "disconnect_policy", "non_live_deadline")),
        ("Seats and features", ("seats", "bet_behind", "multi_seat", "deal_now", "auto_confirm", "golden_chips",
                                "multiple_bets", "deal_now_players", "multi_game")),
        ("Timers and currencies", ("betting_seconds", "decision_seconds", "currencies")),
    )

    def __init__(self, *args, profile: str, table: Table | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.profile = profile
        self.table = table
        for name in FIELDS_BY_PROFILE[Profile(profile)]:
            del self.fields[name]
        if table is not None:
            del self.fields["code"]
            del self.fields["profile"]
        else:
            del self.fields["version"]
            # Choosing another profile fetches that profile's fields and defaults (the page still works without).
            self.fields["profile"].widget.attrs.update({
                "hx-get": reverse("table_new"), "hx-target": "#profile-fields", "hx-swap": "outerHTML",
                "hx-trigger": "change",
            })

    @property
    def groups(self):
        return [(legend, [self[name] for name in names if name in self.fields]) for legend, names in self.GROUPS]

    @property
    def common_draw(self) -> bool:
        return self.profile == Profile.FREE_BET

    @staticmethod
    def initial_for(profile: str, table: Table | None = None) -> dict:
        if table is not None:
            document = services.table_document(table)
            values = {name: document[name] for name in services.SETTING_FIELDS}
            values["version"] = table.config_version
        else:
            values = services.profile_defaults(profile)
            values["profile"] = profile
        values["currencies"] = ", ".join(values.get("currencies") or ["EUR"])
        if values.get("charlie_cards") is None:
            values["charlie_cards"] = ""
        return values

    def settings(self) -> dict:
        """The cleaned settings the service should apply (fields this profile does not show are left out)."""
        data = dict(self.cleaned_data)
        for name in ("code", "profile", "version", "reason"):
            data.pop(name, None)
        return data

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        if self.table is not None:
            current = services.table_document(self.table)
            base = {name: current[name] for name in services.SETTING_FIELDS}
        else:
            base = services.profile_defaults(self.profile)
        try:
            services.table_settings_validate(profile=self.profile, values={**base, **self.settings()})
        except TableConfigError as error:
            _attach(self, error)
        return cleaned


def _chip_text(chips: list[int], currency: str) -> str:
    return ", ".join(minor_to_major(chip, currency) for chip in chips)


class LimitsForm(forms.Form):
    """Minimum, maximum and chips of every offered bet type in every accepted currency, in major units."""

    version = WholeNumberField(widget=forms.HiddenInput)
    reason = reason_field()

    def __init__(self, *args, table: Table, limits, **kwargs):
        super().__init__(*args, **kwargs)
        self.table = table
        self.rows: list[dict] = []
        for limit in limits:
            key = f"{limit.bet_type}__{limit.currency}"
            label = f"{BetType(limit.bet_type).label} ({limit.currency})"
            amount = forms.TextInput(attrs={"inputmode": "decimal", "class": "amount"})
            self.fields[f"{key}__min"] = forms.CharField(
                label=f"{label} minimum", initial=minor_to_major(limit.min, limit.currency), widget=amount)
            self.fields[f"{key}__max"] = forms.CharField(
                label=f"{label} maximum", initial=minor_to_major(limit.max, limit.currency), widget=amount)
            self.fields[f"{key}__chips"] = forms.CharField(
                label=f"{label} chips", initial=_chip_text(limit.chips, limit.currency),
                widget=forms.TextInput(attrs={"class": "chips"}))
            self.rows.append({"bet_type": limit.bet_type, "currency": limit.currency, "key": key,
                              "label": BetType(limit.bet_type).label})
        self.fields["version"].initial = table.config_version

    def bound_rows(self):
        for row in self.rows:
            yield {**row, "fields": [self[f"{row['key']}__{part}"] for part in ("min", "max", "chips")]}

    def clean(self):
        cleaned = super().clean()
        self.limits = []
        for row in self.rows:
            key, currency = row["key"], row["currency"]
            amounts = {}
            for part in ("min", "max"):
                text = cleaned.get(f"{key}__{part}")
                if text is None:
                    continue
                try:
                    amounts[part] = major_to_minor(text, currency)
                except AmountError as error:
                    self.add_error(f"{key}__{part}", str(error))
            chips_text = cleaned.get(f"{key}__chips")
            if chips_text is not None:
                try:
                    amounts["chips"] = [major_to_minor(part, currency)
                                        for part in chips_text.replace(";", ",").split(",") if part.strip()]
                except AmountError as error:
                    self.add_error(f"{key}__chips", str(error))
            if len(amounts) != 3:
                continue
            try:
                self.limits.append(services.bet_limit_validate(
                    bet_type=row["bet_type"], currency=currency, **amounts))
            except TableConfigError as error:
                self.add_error(f"{key}__min", error.message)
        return cleaned


class PaytableForm(forms.Form):
    """Pays ("to 1") of each line of one side bet's paytable."""

    version = WholeNumberField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, side_bet: str, paytable: dict[str, int], version: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.side_bet = side_bet
        for line in DEFAULT_PAYTABLES[side_bet]:
            self.fields[line] = WholeNumberField(
                label=f"{LINE_LABELS.get(line, line)} pays (to 1)", min_value=0, max_value=services.PAY_RANGE[1],
                initial=paytable.get(line), widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
            )
        self.fields["version"].initial = version
        # After the lines, so that the page lists the pays first.
        self.fields["reason"] = reason_field()

    def paytable(self) -> dict[str, int]:
        return {line: self.cleaned_data[line] for line in DEFAULT_PAYTABLES[self.side_bet]}


class RtpRunForm(forms.Form):
    HAND_CHOICES = [(n, f"{n:,} hands") for n in (100_000, 1_000_000, 10_000_000, 50_000_000)]

    hands = forms.TypedChoiceField(label="Hands to simulate", choices=HAND_CHOICES, coerce=int,
                                   initial=10_000_000)

