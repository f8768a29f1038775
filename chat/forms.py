from __future__ import annotations

from datetime import timedelta

from django import forms
from django.contrib.auth import get_user_model

from casino.fields import WholeNumberField
from chat.selectors import WINDOW_MAX_MINUTES, RoundWindow, round_window
from players.models import REASON_MAX_LENGTH
from rounds import selectors as round_selectors
from tables.models import Table

WINDOW_DEFAULT_MINUTES = 5


class ChatLogForm(forms.Form):
    """Support's filters: a table, a player, or both; around a game number (its table's chat from its opening
    to its settlement, with minutes either side)."""

    table = forms.CharField(label="Table code", required=False, max_length=16)
    player = forms.CharField(label="Player (user name)", required=False, max_length=150)
    game = forms.CharField(label="Around game number", required=False, max_length=40)
    window = WholeNumberField(label="Minutes either side of the game (5 if empty)", required=False, min_value=0,
                              max_value=WINDOW_MAX_MINUTES,
                              widget=forms.NumberInput(attrs={"placeholder": str(WINDOW_DEFAULT_MINUTES)}))

    def clean_table(self) -> Table | None:
        code = self.cleaned_data["table"].strip()
        if not code:
            return None
        table = Table.objects.filter(code=code).first()
        if table is None:
            raise forms.ValidationError(f"No table {code}.")
        return table

    def clean_player(self):
        name = self.cleaned_data["player"].strip()
        if not name:
            return None
        player = get_user_model().objects.filter(username=name).first()
        if player is None:
            raise forms.ValidationError(f"Nobody has the user name {name}.")
        return player

    def clean(self):
        cleaned = super().clean()
        number = (cleaned.get("game") or "").strip()
        cleaned["around"] = None
        if number and "window" not in self.errors:
            round = round_selectors.round_by_game_number(game_number=number)
            if round is None:
                self.add_error("game", f"No game {number}.")
                return cleaned
            minutes = cleaned.get("window")
            cleaned["around"] = round_window(round=round, window=timedelta(
                minutes=WINDOW_DEFAULT_MINUTES if minutes is None else minutes))
            if cleaned.get("table") is None:
                cleaned["table"] = round.table  # a game's chat is its table's
        return cleaned

    @property
    def around(self) -> RoundWindow | None:
        return self.cleaned_data.get("around") if self.is_bound and not self.errors else None

    def query(self) -> dict[str, str]:
        """The filters as the query string they came from, for the paging links and the way back."""
        return {name: self.data[name] for name in self.fields if self.data.get(name)}


class DisableFromMessageForm(forms.Form):
    reason = forms.CharField(label="Why (the player is told)", max_length=REASON_MAX_LENGTH)
    back = forms.CharField(required=False, max_length=1000, widget=forms.HiddenInput)
