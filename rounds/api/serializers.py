"""The rounds API's request and response shapes (they name the OpenAPI schema's components)."""

from __future__ import annotations

from rest_framework import serializers

from rounds import services
from rounds.models import CardTarget, RoundState


class BetViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    hand = serializers.IntegerField()
    amount = serializers.IntegerField(help_text="minor units")
    funding = serializers.CharField()


class HandViewSerializer(serializers.Serializer):
    cards = serializers.ListField(child=serializers.CharField())
    total = serializers.IntegerField()
    soft = serializers.BooleanField()
    stake = serializers.IntegerField()
    golden = serializers.IntegerField()
    double = serializers.IntegerField()
    free = serializers.IntegerField()
    bust = serializers.BooleanField()
    blackjack = serializers.BooleanField()


class DecisionOfferSerializer(serializers.Serializer):
    hand = serializers.IntegerField()
    actions = serializers.ListField(child=serializers.CharField())
    double = serializers.CharField(allow_null=True, help_text='"free", "paid" or null')
    split = serializers.CharField(allow_null=True, help_text='"free", "paid" or null')
    double_cost = serializers.IntegerField()
    split_cost = serializers.IntegerField()
    double_funded = serializers.BooleanField(
        help_text="whether doubling now is played as offered: a free double always; a paid one only when your cash "
                  "covers double_cost now (at a Golden Chip position too: it is paid in cash). False: the rules' "
                  "fallback (a hit) would apply")
    split_funded = serializers.BooleanField(
        help_text="the same for splitting; an unfunded paid split is played as a hit (under 11) or a stand")
    timeout_action = serializers.CharField()


class SpotViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    behind = serializers.BooleanField()
    currency = serializers.CharField()
    player = serializers.IntegerField()
    mine = serializers.BooleanField()
    voided = serializers.BooleanField()
    status = serializers.CharField()
    insurance = serializers.BooleanField(allow_null=True)
    confirmed = serializers.BooleanField()
    deal_now = serializers.BooleanField(help_text="the seat's player pressed Deal Now (the seat takes no more Bet "
                                        "Behind)")
    bets = BetViewSerializer(many=True)
    hands = HandViewSerializer(many=True)
    decision = DecisionOfferSerializer(allow_null=True, help_text="what you may decide now, if it is your turn")


class CardsViewSerializer(serializers.Serializer):
    dealer = serializers.ListField(child=serializers.CharField(), help_text='"??" is the face-down hole card')
    player = serializers.ListField(child=serializers.CharField(), help_text="common draw: the shared two cards")
    stream = serializers.ListField(child=serializers.CharField(), help_text="common draw: the shared stream")
    seats = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


class ShoeNewsSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="the shoe's number at its table")
    cut_card = serializers.BooleanField(help_text="the cut card came out in this round: the next round is the last")
    last_round = serializers.BooleanField(help_text="this round is the last of its shoe")
    new_shoe = serializers.BooleanField(help_text="a new shoe started with this round or since it")
    message = serializers.CharField(allow_blank=True, help_text="the one sentence to show; empty: nothing to say")


class PauseNoticeSerializer(serializers.Serializer):
    since = serializers.DateTimeField()
    message = serializers.CharField(help_text="for players, in plain words (rounds.table_now)")


class RoundViewSerializer(serializers.Serializer):
    game_number = serializers.CharField()
    table = serializers.CharField()
    profile = serializers.CharField()
    rules = serializers.CharField()
    common_draw = serializers.BooleanField()
    state = serializers.ChoiceField(choices=RoundState.choices)
    deadline = serializers.DateTimeField(allow_null=True, help_text="when the running timer ends")
    turn_seat = serializers.IntegerField(allow_null=True)
    opened_at = serializers.DateTimeField()
    settled_at = serializers.DateTimeField(allow_null=True)
    voided_at = serializers.DateTimeField(allow_null=True)
    void_reason = serializers.CharField(allow_blank=True)
    cards = CardsViewSerializer()
    spots = SpotViewSerializer(many=True)
    seats_taken = serializers.ListField(child=serializers.IntegerField(), help_text="seats with a player on them")
    settlement = serializers.DictField(allow_null=True)
    shoe = ShoeNewsSerializer(help_text="the shoe's life: the cut card, the shoe's last round, a new shoe")
    paused = PauseNoticeSerializer(allow_null=True, help_text="while the table is paused for a problem: since "
                                   "when, and the message for players; null otherwise")
    confirmation = serializers.ChoiceField(
        choices=["by_hand", "automatic", "not_needed"], allow_null=True,
        help_text="by_hand: show Confirm (unconfirmed bets go back when betting closes); automatic: no Confirm, the "
                  "bets are confirmed when betting time ends; not_needed: bets stand at the close; null for staff")


class OpenRoundSerializer(serializers.Serializer):
    table = serializers.CharField(help_text="the table code, e.g. FB01")


class BetPlaceSerializer(serializers.Serializer):
    currency = serializers.CharField(max_length=3)
    seat = serializers.IntegerField(required=False, allow_null=True, default=None,
                                    help_text="seated tables: the seat (1-7); none on a common draw")
    behind = serializers.BooleanField(required=False, default=False, help_text="a Bet Behind on `seat`")
    bets = serializers.DictField(
        child=serializers.IntegerField(), help_text='stakes in minor units: "main" or "golden_chip", and side bets '
                                                    'by name (any_pair, 21+3, hot3, perfect_pairs)')


def _plain_int(value) -> bool:
    return type(value) is int  # noqa: E721 - a bool is an int to isinstance, and invalid here


def bet_place_data(data) -> dict:
    """BetPlaceSerializer's validated data. The bet path's body, when plain (a currency of letters, whole-number
    stakes, an integer seat or none, a boolean behind), is taken as it is: the serializer would give the same
    data for it and costs more than the rest of the request's Python. Anything else goes through the
    serializer, for its coercions and its error messages."""
    if isinstance(data, dict):
        currency, bets = data.get("currency"), data.get("bets")
        seat, behind = data.get("seat"), data.get("behind", False)
        if (type(currency) is str and 0 < len(currency) <= 3 and currency.isascii() and currency.isalpha()
                and type(bets) is dict and all(_plain_int(v) for v in bets.values())
                and (seat is None or _plain_int(seat)) and type(behind) is bool):
            return {"currency": currency, "seat": seat, "behind": behind, "bets": bets}
    serializer = BetPlaceSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class BetResultSerializer(serializers.Serializer):
    spot = serializers.IntegerField(required=False)
    spots = serializers.ListField(child=serializers.IntegerField(), required=False)
    bets = serializers.ListField(child=serializers.IntegerField())
    replayed = serializers.BooleanField(default=False)


def bet_result_data(result: dict) -> dict:
    """BetResultSerializer(result).data for the services' result (whose values are already integers), built
    directly."""
    out: dict = {}
    if "spot" in result:
        out["spot"] = result["spot"]
    if "spots" in result:
        out["spots"] = list(result["spots"])
    out["bets"] = list(result["bets"])
    out["replayed"] = bool(result.get("replayed", False))
    return out


class CardSerializer(serializers.Serializer):
    card = serializers.CharField(max_length=8, help_text="rank A23456789TJQK + suit shdc, e.g. Ah")
    target = serializers.ChoiceField(choices=CardTarget.values, required=False, allow_null=True, default=None,
                                     help_text="optional check: where the studio believes the card goes")
    seat = serializers.IntegerField(required=False, allow_null=True, default=None)


class CardResultSerializer(serializers.Serializer):
    target = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    card = serializers.CharField()
    state = serializers.CharField()
    malfunction = serializers.CharField(allow_blank=True, help_text="set when the card voided the round")


class DecisionSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=services.PLAYER_ACTIONS)
    seat = serializers.IntegerField(required=False, allow_null=True, default=None)


class DecisionResultSerializer(serializers.Serializer):
    spot = serializers.IntegerField()
    action = serializers.CharField()
    effective = serializers.CharField(help_text="what the rules made of it (free_double, hit after a fallback...)")
    hand = serializers.IntegerField()
    funded = serializers.BooleanField(allow_null=True)
    status = serializers.CharField()
    replayed = serializers.BooleanField(default=False)


class InsuranceSerializer(serializers.Serializer):
    take = serializers.BooleanField()


class InsuranceResultSerializer(serializers.Serializer):
    spots = serializers.ListField(child=serializers.IntegerField())
    insurance = serializers.BooleanField()
    bets = serializers.ListField(child=serializers.IntegerField())
    replayed = serializers.BooleanField(default=False)


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class ShoeSerializer(serializers.Serializer):
    burn_card = serializers.CharField(required=False, allow_blank=True, default="", max_length=8)


class TableStateSerializer(serializers.Serializer):
    code = serializers.CharField()
    state = serializers.CharField()


class RoundSummarySerializer(serializers.Serializer):
    game_number = serializers.CharField()
    table = serializers.CharField(source="table.code")
    state = serializers.CharField()
    opened_at = serializers.DateTimeField()
    settled_at = serializers.DateTimeField(allow_null=True)
    voided_at = serializers.DateTimeField(allow_null=True)


class PlayerRoundSerializer(RoundSummarySerializer):
    staked = serializers.DictField(child=serializers.IntegerField(), help_text="currency -> stakes, minor units")
    returned = serializers.DictField(child=serializers.IntegerField(), help_text="currency -> paid back so far")
    net = serializers.DictField(source="spot_nets", allow_null=True,
                                help_text="the settled result of your spots, by label")


class StatsSituationSerializer(serializers.Serializer):
    history = serializers.ListField(child=serializers.CharField(), help_text="the choices that led here")
    players = serializers.IntegerField()
    counts = serializers.DictField(child=serializers.IntegerField())
    shares = serializers.DictField(child=serializers.FloatField())


class StatsSerializer(serializers.Serializer):
    game_number = serializers.CharField()
    step = serializers.IntegerField(help_text="stream cards dealt so far")
    still_deciding = serializers.IntegerField()
    situations = StatsSituationSerializer(many=True)


class ReplaySerializer(serializers.Serializer):
    game_number = serializers.CharField()
    state = serializers.CharField()
    matches = serializers.BooleanField()
    differences = serializers.ListField(child=serializers.CharField())
    error = serializers.CharField(allow_blank=True)
    scripts = serializers.ListField(child=serializers.DictField(), help_text="round-script.md objects")
    results = serializers.ListField(child=serializers.DictField())
    bet_returns = serializers.DictField(child=serializers.ListField(child=serializers.IntegerField()))
    wallet_returns = serializers.DictField(child=serializers.ListField(child=serializers.IntegerField()))


class RecordSerializer(serializers.Serializer):
    round = RoundSummarySerializer()
    spots = serializers.ListField(child=serializers.DictField())
    cards = serializers.ListField(child=serializers.DictField())
    bets = serializers.ListField(child=serializers.DictField())
    decisions = serializers.ListField(child=serializers.DictField())
    transactions = serializers.ListField(child=serializers.DictField())
    events = serializers.ListField(child=serializers.DictField())


class UndoSerializer(serializers.Serializer):
    all = serializers.BooleanField(required=False, default=False,
                                   help_text="true: take back every unconfirmed bet (holding UNDO)")


class UndoResultSerializer(serializers.Serializer):
    returned = serializers.ListField(child=serializers.IntegerField(), help_text="the round bets given back")
    spots_voided = serializers.ListField(child=serializers.IntegerField(),
                                         help_text="spots left without a bet (their seats are free again)")
    replayed = serializers.BooleanField(default=False)


class ConfirmResultSerializer(serializers.Serializer):
    confirmed = serializers.ListField(child=serializers.IntegerField(), help_text="the bets confirmed now")
    multiple_bets = serializers.BooleanField(help_text="whether the table takes more bets after confirming")


class SeatMoveSerializer(serializers.Serializer):
    from_seat = serializers.IntegerField(help_text="the seat you are on")
    to_seat = serializers.IntegerField(help_text="a free seat")


class SeatMoveResultSerializer(serializers.Serializer):
    spot = serializers.IntegerField()
    seat = serializers.IntegerField()
    replayed = serializers.BooleanField(default=False)


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(help_text="the seat you give up")


class SeatGiveUpResultSerializer(serializers.Serializer):
    spot = serializers.IntegerField()
    seat = serializers.IntegerField()
    returned = serializers.ListField(child=serializers.IntegerField(), help_text="the round bets given back")
    replayed = serializers.BooleanField(default=False)
