"""Support's chat log: a table's or a player's messages with their times, around a game number, and disabling
a player's chat from one of their messages (with a reason the player is told). And the chat on the player's
table page."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponseBadRequest, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.permissions import has_role_permission, permission_required
from accounts.staffaudit import origin_from_request
from casino.api_errors import DomainError
from casino.query_params import cursor_param
from casino.reader_language import in_reader_language
from chat import selectors, services
from chat.errors import ChatRequestError
from chat.forms import ChatLogForm, DisableFromMessageForm
from chat.models import ChatAuthor
from players import selectors as player_selectors
from players.errors import PlayerRequestError
from rounds.presence import NotAtTable, SessionReplaced, require_presence
from tables.models import Table


def _log_url(query: str) -> str:
    # Re-encoded from its parsed form: the way back is a query string of the log, never another address.
    clean = QueryDict(query).urlencode() if query else ""
    return reverse("chat_log") + (f"?{clean}" if clean else "")


@require_GET
@permission_required("view_backoffice")
def chat_log(request):
    try:
        before = cursor_param(request, "before")
    except ValueError as error:
        return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")
    form = ChatLogForm({k: v for k, v in request.GET.items() if k != "before"} or None)
    if form.is_bound and not form.is_valid():
        return render(request, "chat/log.html", {"form": form, "page": None}, status=400)
    data = form.cleaned_data if form.is_bound else {}
    around = form.around
    page = selectors.chat_log(table=data.get("table"), player=data.get("player"), before=before,
                              limit=selectors.LOG_PAGE,
                              since=around.since if around else None, until=around.until if around else None)
    query = form.query() if form.is_bound else {}
    disabled = player_selectors.players_chat_disabled(
        player_ids={m.author_id for m in page.messages if m.author_kind == ChatAuthor.PLAYER})
    return render(request, "chat/log.html", {
        "form": form, "page": page, "around": around, "filtered": bool(query), "table": data.get("table"),
        "player": data.get("player"), "disabled": disabled, "first_page": before is None,
        "can_moderate": has_role_permission(request.user, "lookup_players"),
        "back": urlencode(query | ({"before": before} if before else {})),
        "older_url": reverse("chat_log") + "?" + urlencode(query | {"before": page.next_before})
        if page.next_before else None,
    })


@require_POST
@permission_required("lookup_players")
def chat_message_disable_chat(request, message_id: int):
    form = DisableFromMessageForm(request.POST)
    back = _log_url(request.POST.get("back", "")[:1000])
    if not form.is_valid():
        messages.error(request, "Say why the chat is disabled: the player will be told.")
        return redirect(back)
    try:
        message = services.chat_disable_from_message(message_id=message_id, staff=request.user,
                                                     reason=form.cleaned_data["reason"],
                                                     origin=origin_from_request(request))
    except (ChatRequestError, PlayerRequestError) as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Chat disabled for {message.author.get_username()}; they are told why when "
                                  "they write.")
    return redirect(back)


# --- the player's table page: its chat ----------------------------------------------------------------------

def _player_chat(request, table: Table, *, error: str = "", status: int = 200, part: str = ""):
    try:
        require_presence(request, table)
    except SessionReplaced:
        shown, away = [], _("You joined table %(code)s from another device or browser, so its chat is there "
                            "now, not here.") % {"code": table.code}
    except NotAtTable:
        # The refusal's own words are for game clients (they name the API); the page says it plainly.
        shown, away = [], _("Join table %(code)s to read and write in its chat: you are not at it.") % {
            "code": table.code}
    else:
        shown, away = selectors.chat_for_player(player=request.user, table=table), ""
    context = {"table": table, "chat_messages": shown, "away": away, "error": error,
               "profile": player_selectors.player_profile(player=request.user)}
    if part == "messages":
        return render(request, "chat/_player_messages.html", context, status=status)
    template = "chat/_player_chat.html" if request.htmx else "chat/player_chat.html"
    return render(request, template, context, status=status)


@require_http_methods(["GET", "POST"])
@permission_required("play")
@in_reader_language
def player_table_chat(request, code: str):
    """The chat of a table the player sits at, for the web page (game clients use the API): the messages
    (polled), and writing one. A refusal is answered 400 or 409 with the form, so htmx shows why."""
    table = Table.objects.filter(code=code[:32]).first()
    if table is None:
        raise Http404(f"No table {code[:20]}")
    if request.method == "GET":
        return _player_chat(request, table, part=request.GET.get("part", ""))
    try:
        services.chat_body_check(request.POST.get("body", ""))  # bad input is a 400 wherever the player is
        require_presence(request, table)
        services.chat_post(player=request.user, table=table, body=request.POST.get("body", ""))
    except DomainError as refusal:  # chat's, players' and the play gate's refusals alike
        return _player_chat(request, table, error=refusal.message,
                            status=400 if refusal.http_status == 400 else 409)
    if request.htmx:
        return _player_chat(request, table)
    return redirect("player_table_chat", code=table.code)
