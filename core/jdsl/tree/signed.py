"""The base of the leaves that call a model with a signature (``predict``, ``react``): the
``signature`` field, checked when the node is made, and its parsed form."""

from __future__ import annotations

from pydantic import field_validator

from jdsl.signature import Signature
from jdsl.tree.base import Node

__all__ = ["SignedLeaf"]


class SignedLeaf(Node):
    """A leaf with a ``signature`` (``"ticket -> urgency"``): Predict and React.

    Attributes:
        signature: the signature text; one that does not parse is refused when the node is
            made (``SignatureError``).
    """

    signature: str

    leaf = True

    @field_validator("signature")
    @classmethod
    def _parses(cls, text: str) -> str:
        Signature.parse(text)
        return text

    @property
    def parsed(self) -> Signature:
        return Signature.parse(self.signature)

    @property
    def arrow(self) -> str:
        """``"inputs -> outputs"``: the signature's names, for labels."""
        sig = self.parsed
        return f"{', '.join(sig.input_names)} -> {', '.join(sig.output_names)}"
