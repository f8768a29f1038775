"""Template filters that name a round's codes (rounds.labels, tables.labels): `{% load round_words %}`."""

from django import template
from django.utils.translation import gettext

from rounds import labels
from tables import labels as table_labels

register = template.Library()

register.filter("void_kind_text", labels.void_kind_text)
register.filter("void_reason_text", labels.void_reason_text)
register.filter("spot_void_reason", labels.spot_void_reason_text)
register.filter("action_label", labels.action_label)
register.filter("bet_label", labels.bet_label)
register.filter("staff_name", labels.staff_name)
register.filter("result_label", labels.result_label)
register.filter("note_label", labels.note_label)
register.filter("round_state_label", labels.round_state_label)
register.filter("actor_kind_label", labels.actor_kind_label)
register.filter("feature_label", table_labels.feature_label)
register.filter("dealing_label", table_labels.dealing_label)
register.filter("rules_label", table_labels.rules_label)
register.filter("line_label", table_labels.line_label)
register.filter("bet_type_label", table_labels.bet_type_label)


@register.filter
def target_label(row) -> str:
    """A card record's destination: "the dealer", "seat 3", "the players' shared cards", "extra card S2"."""
    target = row["target"]
    if target == "seat":
        return gettext("seat %(seat)s") % {"seat": row["seat"]}
    if target == "stream":
        return gettext("extra card S%(number)s") % {"number": row["sequence"]}
    return str(labels.TARGET_LABELS.get(target, target))
