"""Staff CRUD. Every save goes through the services, so admin edits are validated like page edits and recorded in
the table's history; nothing can be deleted (a table is closed, not deleted) and history is read-only."""

from django import forms
from django.contrib import admin

from accounts.permissions import has_role_permission
from accounts.read_only_admin import BackOfficeReadableAdmin, ReadOnlyAdmin
from accounts.staffaudit import origin_from_request
from rounds.services import table_state_change
from tables import services
from tables.errors import TableConfigError
from tables.models import BetLimit, Table, TableChange, TablePaytable, TableRtpRun

TABLE_SETTING_FIELDS = [field for field in services.SETTING_FIELDS if field != "side_bets"]


class RoleAdmin(BackOfficeReadableAdmin):
    """Operators configure; anyone who may read the back office may look."""

    def has_add_permission(self, request):
        return has_role_permission(request.user, "configure_tables")

    def has_change_permission(self, request, obj=None):
        return has_role_permission(request.user, "configure_tables")

    def has_delete_permission(self, request, obj=None):
        return False

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        # The admin wraps saves in a transaction; our services each open their own durable one.
        return self._changeform_view(request, object_id, form_url, extra_context)


def _reason_field() -> forms.CharField:
    # Required here, not left to the service: the admin saves after the form is accepted, too late for an error.
    return forms.CharField(max_length=services.REASON_MAX_LENGTH, help_text=(
        "Why you make this change: kept with the table's history and in the staff-activity record."))


def _raise_as_form_error(error: TableConfigError, form: forms.ModelForm) -> None:
    if error.field and error.field in form.fields:
        raise forms.ValidationError({error.field: error.message})
    raise forms.ValidationError(error.message)


class TableAdminForm(forms.ModelForm):
    reason = _reason_field()

    class Meta:
        model = Table
        fields = ["code", "name", "profile", "state", *[f for f in TABLE_SETTING_FIELDS if f != "name"]]

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        profile = self.instance.profile if self.instance.pk else cleaned.get("profile")
        base = (services.table_document(self.instance) if self.instance.pk else services.profile_defaults(profile))
        values = {name: base[name] for name in services.SETTING_FIELDS if name in base}
        values.update({name: cleaned[name] for name in TABLE_SETTING_FIELDS if name in cleaned})
        values.setdefault("side_bets", base.get("side_bets", []))
        try:
            services.table_settings_validate(profile=profile, values=values)
        except TableConfigError as error:
            _raise_as_form_error(error, self)
        return cleaned


@admin.register(Table)
class TableAdmin(RoleAdmin):
    form = TableAdminForm
    list_display = ["code", "name", "profile", "state", "config_version", "updated_at"]
    list_filter = ["profile", "state"]
    search_fields = ["code", "name"]
    readonly_fields = ["config_version", "created_at", "updated_at"]

    def get_readonly_fields(self, request, obj=None):
        fixed = ["code", "profile"] if obj is not None else []
        return [*fixed, *self.readonly_fields]

    def save_model(self, request, obj, form, change):
        data = {name: form.cleaned_data[name] for name in TABLE_SETTING_FIELDS if name in form.cleaned_data}
        who = {"actor": request.user, "reason": form.cleaned_data["reason"], "origin": origin_from_request(request)}
        if change:
            table = Table.objects.get(pk=obj.pk)
            changed_settings = {name: value for name, value in data.items() if getattr(table, name) != value}
            if changed_settings:
                table = services.table_update(table=table, **who, **changed_settings)
            if form.cleaned_data["state"] != table.state:
                # Through the rounds owner, like the page and the API: closing voids the round in play.
                table = table_state_change(table=table, state=form.cleaned_data["state"], **who)
        else:
            table = services.table_create(
                code=form.cleaned_data["code"], profile=form.cleaned_data["profile"],
                state=form.cleaned_data["state"], **who, **data,
            )
        # The admin goes on to log and redirect with `obj`; make it the row the services wrote.
        obj.pk = table.pk
        obj.refresh_from_db()


class BetLimitAdminForm(forms.ModelForm):
    reason = _reason_field()

    class Meta:
        model = BetLimit
        fields = ["table", "bet_type", "currency", "min", "max", "chips"]

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        # On a change the key fields are read-only, so they come from the instance.
        table = cleaned.get("table") or self.instance.table
        bet_type = cleaned.get("bet_type") or self.instance.bet_type
        currency = cleaned.get("currency") or self.instance.currency
        try:
            services.bet_limit_validate(
                bet_type=bet_type, currency=currency, min=cleaned["min"], max=cleaned["max"], chips=cleaned["chips"],
            )
        except TableConfigError as error:
            _raise_as_form_error(error, self)
        if bet_type not in services.table_bet_types(table):
            raise forms.ValidationError(f"Table {table.code} does not offer {bet_type}")
        if currency not in table.currencies:
            raise forms.ValidationError(f"Table {table.code} does not accept {currency}")
        return cleaned

    def validate_unique(self):
        # A limit for an existing (table, bet type, currency) replaces it through the service.
        pass


@admin.register(BetLimit)
class BetLimitAdmin(RoleAdmin):
    form = BetLimitAdminForm
    list_display = ["table", "bet_type", "currency", "min", "max", "chips"]
    list_filter = ["bet_type", "currency", "table"]

    def get_readonly_fields(self, request, obj=None):
        return ["table", "bet_type", "currency"] if obj is not None else []

    def save_model(self, request, obj, form, change):
        table = obj.table
        services.bet_limits_set(actor=request.user, table=table, limits=[{
            "bet_type": obj.bet_type, "currency": obj.currency, "min": obj.min, "max": obj.max,
            "chips": obj.chips,
        }], reason=form.cleaned_data["reason"], origin=origin_from_request(request))
        saved = BetLimit.objects.get(table=table, bet_type=obj.bet_type, currency=obj.currency)
        obj.pk = saved.pk
        obj.refresh_from_db()


class TablePaytableAdminForm(forms.ModelForm):
    reason = _reason_field()

    class Meta:
        model = TablePaytable
        fields = ["offered", "paytable"]

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            services.paytable_validate(side_bet=self.instance.side_bet, paytable=cleaned["paytable"],
                                       decks=self.instance.table.decks)
        except TableConfigError as error:
            raise forms.ValidationError({"paytable": error.message}) from None
        return cleaned


@admin.register(TablePaytable)
class TablePaytableAdmin(RoleAdmin):
    form = TablePaytableAdminForm
    list_display = ["table", "side_bet", "offered", "paytable"]
    list_filter = ["side_bet", "offered"]
    readonly_fields = ["table", "side_bet"]

    def has_add_permission(self, request):
        # Every table has a row per side bet from its creation.
        return False

    def save_model(self, request, obj, form, change):
        table = Table.objects.get(pk=obj.table_id)
        current = TablePaytable.objects.get(pk=obj.pk)
        who = {"actor": request.user, "reason": form.cleaned_data["reason"], "origin": origin_from_request(request)}
        if current.paytable != form.cleaned_data["paytable"]:
            services.paytable_set(table=table, side_bet=obj.side_bet, paytable=form.cleaned_data["paytable"], **who)
        if current.offered != form.cleaned_data["offered"]:
            offered = set(services.table_document(table)["side_bets"])
            offered ^= {obj.side_bet}
            services.table_update(table=Table.objects.get(pk=table.pk), side_bets=offered, **who)
        obj.refresh_from_db()


@admin.register(TableChange)
class TableChangeAdmin(ReadOnlyAdmin):
    list_display = ["table", "version", "at", "actor", "summary"]
    list_filter = ["table"]
    readonly_fields = ["table", "version", "at", "actor", "summary", "reason", "before", "after"]


@admin.register(TableRtpRun)
class TableRtpRunAdmin(ReadOnlyAdmin):
    list_display = ["table", "config_version", "hands", "state", "estimate", "standard_error", "requested_at"]
    list_filter = ["state", "table"]
    readonly_fields = ["table", "config_version", "rules", "hands", "seed", "state", "hands_done", "estimate",
                       "standard_error", "error", "requested_by", "requested_at", "started_at", "finished_at"]
