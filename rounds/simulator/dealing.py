"""The studio's shoe and cards: a new shoe (with its burn), every card recorded as the system asks for it, and
the dealer's hand to its end (or one card too many, a planned malfunction)."""

from __future__ import annotations

from rounds.engine.cards import Shoe
from rounds.simulator.table_base import DEALER, DEALING, RoundPlay, TableBase
from rounds.simulator.transport import Refused


class DealingSteps(TableBase):
    """The shoe, the deal and the dealer's hand."""

    def shoe_new(self) -> None:
        """A freshly shuffled shoe with its cut card; the table's new-shoe burn shows a card and burns its value."""
        self.table.refresh_from_db()
        burn = bool(self.table.new_shoe_burn)
        self.shoe = Shoe.shuffled(self.table.decks, rng=self.rng, burn=burn)
        self.cut_round = None
        self.transport.shoe_start(studio=self.studio, table=self.table,
                                  burn_card=str(self.shoe.cards[0]) if burn else "")
        self.count("shoes")
        if burn:
            self.count("cards burned", self.shoe.position - 1)

    def draw(self) -> str:
        assert self.shoe is not None
        return str(self.shoe.draw())

    def card(self, play: RoundPlay) -> str:
        assert self.shoe is not None
        try:
            result = self.transport.card(studio=self.studio, round=play.ref, card=self.draw(), now=self.now())
        except Refused:
            self.shoe.position -= 1  # the card was not dealt: it stays on top of the shoe
            raise
        self.count("cards")
        if result["target"] == "dealer":
            play.dealer.append(result["card"])
        self.pace("card")
        return result["state"]

    def deal(self, play: RoundPlay) -> str:
        if self.maybe_malfunction(play, DEALING):
            return "voided"
        state = self.state_of(play.ref)
        while state in ("betting_closed", "dealing"):
            self.step(play)
            state = self.card(play)
        return state

    def dealer(self, play: RoundPlay, *, until: str) -> str:
        if play.planned.malfunction == DEALER:
            return self.dealer_overdraw(play)
        while True:
            self.step(play)
            if until == "dealer_complete" and self.dealer_done(play):
                return "dealer"
            try:
                return self.transport.dealer_complete(studio=self.studio, round=play.ref, now=self.now())["state"]
            except Refused as error:
                if error.code != "dealer_incomplete":
                    raise
            state = self.card(play)
            if state != "dealer":
                return state

    def dealer_overdraw(self, play: RoundPlay) -> str:
        """The planned malfunction at the dealer: the dealer draws as the rules say, then one card too many. The
        card is recorded as a fact and the system voids the round; if no card may be recorded at all (no live
        hand), the system voids it directly."""
        while not self.dealer_done(play):
            self.step(play)
            state = self.card(play)
            if state != "dealer":
                return state
        try:
            state = self.card(play)
        except Refused as error:
            self.refused("extra dealer card", error)
            state = "dealer"
        if state == "voided":
            play.planned.malfunction = None
            self.count("malfunction voids (dealer drew on 17+)")
            return state
        self.maybe_malfunction(play, DEALER)
        return self.state_of(play.ref)

    def dealer_done(self, play: RoundPlay) -> bool:
        """Whether the dealer's hand is complete (what dealer_complete would check), without completing it."""
        from rounds import selectors
        from rounds.engine.dealer import dealer_needs_card
        from rounds.engine.hands import hand_total
        from rounds.engine_adapter import dealer_outlook
        from rounds.models import Round

        record = selectors.round_record_load(Round.objects.get(pk=play.ref.id))
        dealer = record.dealer_cards
        any_live, needs_second = dealer_outlook(record)
        return not (dealer_needs_card(record.rules, dealer, any_live_hand=any_live, needs_second=needs_second)
                    or (len(dealer) > 2 and hand_total(dealer) < 17))
