"""Support's chat log: a table's or a player's messages with their times, around a game number, and disabling
a player's chat from one of their messages (with a reason the player is told)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponseBadRequest, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from accounts.permissions import has_role_permission, permission_required
from accounts.staffaudit import origin_from_request
from casino.query_params import cursor_param
from chat import selectors, services
from chat.errors import ChatRequestError
from chat.forms import ChatLogForm, DisableFromMessageForm
from chat.models import ChatAuthor
from players import selectors as player_selectors
from players.errors import PlayerRequestError


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
