from django import forms
from django.utils.translation import gettext_lazy as _

from casino.fields import WholeNumberField
from players.models import LANGUAGE_CHOICES, NOTE_MAX_LENGTH, REASON_MAX_LENGTH, VideoQuality
from wallet.forms import AmountForm


class SettingsForm(forms.Form):
    sound_on = forms.BooleanField(required=False, label=_("Sound on"))
    sound_volume = WholeNumberField(min_value=0, max_value=100, label=_("Game sound volume (0-100)"),
                                      widget=forms.NumberInput(attrs={"type": "range", "min": 0, "max": 100}))
    dealer_voice = forms.BooleanField(required=False, label=_("Hear the dealer's voice"))
    voice_volume = WholeNumberField(min_value=0, max_value=100, required=False,
                                    label=_("Dealer's voice volume (0-100)"),
                                    widget=forms.NumberInput(attrs={"type": "range", "min": 0, "max": 100}))
    video_quality = forms.ChoiceField(choices=VideoQuality.choices, label=_("Video quality"),
                                      widget=forms.RadioSelect)
    hide_others_chat = forms.BooleanField(required=False, label=_("Hide other players' chat messages"))
    auto_confirm_bets = forms.BooleanField(
        required=False, label=_("Confirm my bets automatically when betting time ends"),
        help_text=_("At tables that offer it. Switched off, you confirm your bets yourself; bets you have not "
                    "confirmed when betting closes are returned to you."))
    language = forms.ChoiceField(choices=LANGUAGE_CHOICES, required=False, label=_("Language"),
                                 widget=forms.RadioSelect,
                                 help_text=_("Your pages, statements and the game's help are written in it."))


class TipForm(AmountForm):
    currency = forms.ChoiceField(label=_("Currency"))
    amount = forms.CharField(max_length=24, label=_("Tip amount"),
                             widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}))
    idempotency_key = forms.CharField(max_length=200, widget=forms.HiddenInput)

    def __init__(self, *args, currencies: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["currency"].choices = [(code, code) for code in currencies]


class NoteForm(forms.Form):
    body = forms.CharField(max_length=NOTE_MAX_LENGTH, label=_("New note"), widget=forms.Textarea(attrs={"rows": 3}))


class ChatForm(forms.Form):
    action = forms.ChoiceField(choices=[("disable", "Disable chat"), ("enable", "Enable chat")])
    reason = forms.CharField(max_length=REASON_MAX_LENGTH, required=False, label=_("Reason"))

    def clean(self):
        data = super().clean()
        if data.get("action") == "disable" and not (data.get("reason") or "").strip():
            self.add_error("reason", "Say why the chat is disabled: the player will be told.")
        return data
