"""Every refusal of the responsible-gambling rules, each with a stable code the API and the pages show."""

from rest_framework import status

from casino.api_errors import DomainError


class ResponsibleError(DomainError):
    code = "responsible_invalid"


class LimitReached(ResponsibleError):
    """A deposit, bet or session that would pass one of the player's limits; nothing moved."""

    code = "limit_reached"
    http_status = status.HTTP_409_CONFLICT


class DepositLimitRequired(ResponsibleError):
    code = "deposit_limit_required"
    http_status = status.HTTP_409_CONFLICT


class Excluded(ResponsibleError):
    """A time-out, self-exclusion or national register entry is in force."""

    code = "excluded"
    http_status = status.HTTP_409_CONFLICT


class RealityCheckDue(ResponsibleError):
    code = "reality_check_due"
    http_status = status.HTTP_409_CONFLICT


class PromotionRefused(ResponsibleError):
    """A promotional credit the player's jurisdiction does not allow now; nothing moved."""

    code = "promotion_refused"
    http_status = status.HTTP_409_CONFLICT


class JurisdictionRuleError(ResponsibleError):
    """A jurisdiction rule an operator may not set (out of range, unknown, or below the regulator's floor);
    `field` names the rule so the page puts the message beside it. Nothing was saved."""

    code = "jurisdiction_rule_invalid"

    def __init__(self, message: str, *, field: str = ""):
        super().__init__(message)
        self.field = field


class RegisterUnavailable(ResponsibleError):
    """The national register did not answer: refused, as an unchecked deposit may not go through."""

    code = "register_unavailable"
    http_status = status.HTTP_503_SERVICE_UNAVAILABLE
