"""The blackjack rules engine: pure Python, no Django.

cards (Card, shoes, card-record checks), rules (profiles and table flags), hands (values, one hand's state),
play (decision points, legal actions, timeouts, balance fallbacks, common draw, Bet Behind), dealer (peek and
drawing rule), bets (a player's stakes and their checks), settle (minor-unit settlement of a position),
sidebets (side-bet classification), script and replay (round scripts), errors (EngineError).
"""
