"""The two kinds of model the generated ones derive from: what is sent, and what comes back."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RequestModel(BaseModel):
    """A body sent to the service. An unknown field is refused here, at once: it can only be a
    typo, which the service would refuse after a round trip."""

    model_config = ConfigDict(extra="forbid")


class ResponseModel(BaseModel):
    """A body the service sent. Fields this version does not know are kept (as attributes and
    in `model_extra`), so a newer service adding one does not break an older client."""

    model_config = ConfigDict(extra="allow")
