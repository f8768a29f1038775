"""Wallet pages: a player's own account and cashier, and the staff view of any player's wallet."""

import csv
import uuid

from django.contrib import messages
from django.http import Http404, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _

from accounts.permissions import permission_required
from casino.api_errors import DomainError
from casino.formatting import major
from casino.formatting import money as money_text
from casino.idempotency import IdempotencyConflict
from casino.query_params import date_param
from casino.reader_language import in_reader_language
from casino.review_token import CHANGED, review_matches, review_token
from casino.untrusted import InputError, optional_whole_number_parse
from wallet import selectors, services
from wallet.currencies import CURRENCIES, money_format
from wallet.errors import InsufficientFunds, WalletError
from wallet.forms import CashierConfirmForm, CashierForm
from wallet.keys import client_key
from wallet.models import TransactionKind


def _selected_account(request, *, player, accounts):
    """The account named by ?account= (404 unless it is this player's), else the player's first one."""
    raw = request.GET.get("account")
    if raw is None:
        return accounts[0] if accounts else None
    account = selectors.player_account_get(player=player, account_id=raw)
    if account is None:
        raise Http404("No such account")
    return account


def _cursor(request) -> int | None:
    return optional_whole_number_parse(request.GET.get("before"), field="before")


def _history_filter(request) -> tuple[selectors.HistoryFilter, dict[str, str]]:
    """?from=&to= (UTC days, both included) and ?type= (a transaction kind, repeatable); ValueError otherwise.
    Returns the filter and the query values that keep it (for the older-entries link and the CSV)."""
    since, until = date_param(request.GET.get("from"), "from"), date_param(request.GET.get("to"), "to")
    if since and until and since > until:
        raise ValueError("from must be on or before to")
    kinds = tuple(dict.fromkeys(kind for kind in request.GET.getlist("type") if kind))
    unknown = [kind for kind in kinds if kind not in TransactionKind.values]
    if unknown:
        raise ValueError(f"type must be one of {', '.join(TransactionKind.values)}, not {unknown[0][:30]!r}")
    kept = {"from": since.isoformat() if since else "", "to": until.isoformat() if until else ""}
    return selectors.HistoryFilter(since=since, until=until, kinds=kinds), {k: v for k, v in kept.items() if v}


def _wallet_page(request, *, player, page_url: str, csv_url: str, staff_view: bool):
    accounts = selectors.player_accounts(player=player)
    account = _selected_account(request, player=player, accounts=accounts)
    try:
        before = _cursor(request)
        filter, kept = _history_filter(request)
    except (InputError, ValueError) as error:
        return HttpResponseBadRequest(getattr(error, "message", str(error)), content_type="text/plain")
    page = selectors.account_history(account=account, before=before, filter=filter) if account else None
    keep = [*kept.items(), *(("type", kind) for kind in filter.kinds)]
    older_url = None
    if page and page.next_before:
        older_url = f"{page_url}?{urlencode([('account', account.pk), *keep, ('before', page.next_before)])}"
    context = {
        "player": player, "accounts": accounts, "account": account, "page": page, "older_url": older_url,
        "page_url": page_url,
        "csv_url": f"{csv_url}?{urlencode([('account', account.pk), *keep])}" if account else None,
        "staff_view": staff_view, "first_page": before is None, "filter": filter,
        "kinds": TransactionKind.choices,
        "totals": selectors.account_history_totals(account=account, filter=filter) if account else None,
    }
    if request.htmx and before is not None:
        return render(request, "wallet/_history_rows.html", context)
    return render(request, "wallet/wallet.html", context)


def _history_csv(request, *, player):
    accounts = selectors.player_accounts(player=player)
    account = _selected_account(request, player=player, accounts=accounts)
    if account is None:
        raise Http404("No account")
    try:
        filter, _kept = _history_filter(request)
    except ValueError as error:
        return HttpResponseBadRequest(getattr(error, "message", str(error)), content_type="text/plain")

    class Echo:
        def write(self, value):
            return value

    writer = csv.writer(Echo())

    def amount(value):
        return "" if value is None else money_format(value, account.currency, with_code=False, grouping=False)

    def rows():
        yield writer.writerow(["date", "type", "game", "game number", "currency", "bet", "payout", "amount",
                               "balance after", "entry", "transaction", "explanation"])
        for row in selectors.account_history_iter(account=account, filter=filter):
            yield writer.writerow([
                row.created_at.isoformat(), row.kind_label, row.game or (f"table {row.table_code}" if row.table_code else ""),
                row.round_number, row.currency,
                amount(row.bet_amount), amount(row.payout), amount(row.amount), amount(row.balance_after),
                row.entry_id, row.transaction_id, row.explanation,
            ])

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    filename = f"wallet-{player.pk}-{account.get_kind_display().lower().replace(' ', '-')}-{account.currency}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@permission_required("play")
@in_reader_language
def wallet_home(request):
    return _wallet_page(request, player=request.user, page_url=reverse("wallet_home"),
                        csv_url=reverse("wallet_history_csv"), staff_view=False)


@permission_required("play")
def history_csv(request):
    return _history_csv(request, player=request.user)


def _player_or_404(user_id: int):
    player = selectors.player_get(user_id=user_id)
    if player is None:
        raise Http404("No such player")
    return player


@permission_required("view_backoffice")
def players(request):
    query = request.GET.get("q", "").strip()[:150]
    return render(request, "wallet/players.html",
                  {"query": query, "players": selectors.players_search(query=query)})


@permission_required("view_backoffice")
def player_wallet(request, user_id: int):
    player = _player_or_404(user_id)
    return _wallet_page(request, player=player, page_url=reverse("wallet_player", args=[player.pk]),
                        csv_url=reverse("wallet_player_history_csv", args=[player.pk]), staff_view=True)


@permission_required("view_backoffice")
def player_history_csv(request, user_id: int):
    return _history_csv(request, player=_player_or_404(user_id))


def _cashier_form_page(request, form, *, status=200, error=None):
    limits = [(c.code, money_text(c.cashier_min, c.code), money_text(c.cashier_max, c.code))
              for c in CURRENCIES.values()]
    return render(request, "wallet/cashier.html",
                  {"form": form, "limits": limits, "error": error,
                   "balances": selectors.player_accounts(player=request.user)}, status=status)


def _short_of_cash(balance: int, currency: str) -> str:
    return _("You have %(balance)s in cash, so you can withdraw at most that. Nothing was withdrawn.") % {
        "balance": money_text(balance, currency)}


CASHIER_REVIEW = "cashier"


def _cashier_reviewed(data) -> dict:
    return {"operation": data["operation"], "currency": data["currency"], "amount": data["amount_minor"],
            "key": data["idempotency_key"]}


def _cashier_review(request, data, *, balance: int, error: str = ""):
    """The amount as it will move, read back, with the token of exactly this review."""
    return render(request, "wallet/cashier_confirm.html", {
        "operation": data["operation"], "currency": data["currency"], "amount_minor": data["amount_minor"],
        "amount": money_text(data["amount_minor"], data["currency"]), "balance": balance,
        "idempotency_key": data["idempotency_key"], "amount_text": data.get("amount", ""), "error": error,
        "review": review_token(user=request.user, action=CASHIER_REVIEW, reviewed=_cashier_reviewed(data)),
    }, status=409 if error else 200)


@permission_required("play")
@in_reader_language
def cashier(request):
    """Two steps: the form, then a confirmation that carries the idempotency key made with the form."""
    if request.method != "POST":
        return _cashier_form_page(request, CashierForm(initial={"idempotency_key": str(uuid.uuid4())}))
    if request.POST.get("step") != "confirm":
        form = CashierForm(request.POST)
        if not form.is_valid():
            return _cashier_form_page(request, form, status=400)
        data = form.cleaned_data
        balance = selectors.player_balance(player=request.user, currency=data["currency"])
        if data["operation"] == "withdraw" and data["amount_minor"] > balance:
            # Said at review, in the player's words; the ledger would refuse it at confirm anyway.
            form.add_error("amount", _short_of_cash(balance, data["currency"]))
            return _cashier_form_page(request, form, status=400)
        return _cashier_review(request, data, balance=balance)
    confirm = CashierConfirmForm(request.POST)
    if not confirm.is_valid():
        return HttpResponseBadRequest("The confirmation was incomplete; start again from the cashier.",
                                      content_type="text/plain")
    data = confirm.cleaned_data
    if not review_matches(token=request.POST.get("review"), user=request.user, action=CASHIER_REVIEW,
                          reviewed=_cashier_reviewed(data)):
        balance = selectors.player_balance(player=request.user, currency=data["currency"])
        return _cashier_review(request, data, balance=balance, error=CHANGED)
    service = services.deposit if data["operation"] == "deposit" else services.withdraw
    try:
        txn = service(player=request.user, currency=data["currency"], amount=data["amount_minor"],
                      actor=request.user, idempotency_key=client_key(
                          user=request.user, operation=data["operation"], key=data["idempotency_key"]))
    except (WalletError, IdempotencyConflict, DomainError) as exc:
        # Back to the form with a fresh key: nothing moved, so the next attempt is a new request. (DomainError:
        # the refusals of settings.WALLET_DEPOSIT_CHECKS, such as a deposit limit.)
        form = CashierForm(initial={
            "operation": data["operation"], "currency": data["currency"], "idempotency_key": str(uuid.uuid4()),
            "amount": major(data["amount_minor"], data["currency"]),  # as the reader types it back
        })
        message = exc.message
        if isinstance(exc, InsufficientFunds):  # the balance fell between review and confirm
            message = _short_of_cash(selectors.player_balance(player=request.user, currency=data["currency"]),
                                     data["currency"])
        return _cashier_form_page(request, form, status=exc.http_status, error=message)
    amount = {"amount": money_text(data["amount_minor"], data["currency"])}
    deposit = data["operation"] == "deposit"
    if txn.replayed:
        messages.info(request, (
            _("That request was already carried out (deposited %(amount)s); nothing moved twice.") if deposit
            else _("That request was already carried out (withdrew %(amount)s); nothing moved twice.")) % amount)
    else:
        messages.success(request, (_("Deposited %(amount)s.") if deposit else _("Withdrew %(amount)s.")) % amount)
    account = txn.entries.filter(account__player=request.user).values_list("account_id", flat=True).first()
    return redirect(f"{reverse('wallet_home')}?{urlencode({'account': account})}")
