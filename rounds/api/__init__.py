"""The rounds API: the studio drives rounds, game clients bet and decide, staff void, reverse and look up.

Who may call what: studio endpoints need `configure_tables` (operators run the tables), voids and reversals
`void_rounds`, game-client endpoints `play`, records and replays `view_backoffice`. Every refusal is a JSON body
{"code", "message"}. Bets, decisions and insurance answers take an `Idempotency-Key` header: a retried
request returns the first result and holds nothing twice.

    serializers   request and response shapes (the OpenAPI components)
    studio        table pause/resume/close, shoes, betting close, cards, the dealer's hand
    moves         undo, confirming bets, Multi Seat seat changes
    client        bets, Deal Now, leaving, insurance, decisions, my rounds; round and table watching
    staff         the round list (and opening a round), voids, reversals, records, replays
"""

from rounds.api.client import (
    BetsApi,
    BetsDoubleApi,
    BetsRepeatApi,
    ConfirmApi,
    ContinuationApi,
    ContinuationDecisionApi,
    ContinuationReconnectApi,
    DecisionApi,
    InsuranceApi,
    LeaveApi,
    MyRoundsApi,
    RoundApi,
    StatsApi,
    TableCurrentRoundApi,
)
from rounds.api.moves import BetsConfirmApi, BetsUndoApi, SeatGiveUpApi, SeatMoveApi
from rounds.api.staff import RecordApi, ReplayApi, ReverseApi, RoundListApi, VoidApi
from rounds.api.studio import (
    CardApi,
    CloseBettingApi,
    CutCardApi,
    DealerCompleteApi,
    TableCloseApi,
    TablePauseApi,
    TableResumeApi,
    TableShoeApi,
)

__all__ = [
    "BetsApi", "BetsConfirmApi", "BetsDoubleApi", "BetsUndoApi", "SeatGiveUpApi", "SeatMoveApi", "BetsRepeatApi", "CardApi", "CloseBettingApi", "ConfirmApi", "ContinuationApi", "CutCardApi",
    "ContinuationDecisionApi", "ContinuationReconnectApi", "DealerCompleteApi",
    "DecisionApi", "InsuranceApi", "LeaveApi", "MyRoundsApi", "RecordApi", "ReplayApi", "ReverseApi", "RoundApi",
    "RoundListApi", "StatsApi", "TableCloseApi", "TableCurrentRoundApi", "TablePauseApi", "TableResumeApi",
    "TableShoeApi", "VoidApi",
]
