"""One redaction helper for addresses in error lines (issue 26, item 7)."""

from __future__ import annotations

import pytest
from jdsl.trace.addresses import redact_address, redact_addresses

SECRET = "s3cr/et pw'\""


@pytest.mark.parametrize(
    ("address", "shown"),
    [
        ("http://user:pw0rd@host:4318/v1", "http://«redacted»@host:4318/v1"),
        (
            "http://host:4318/v1?api_key=k3y&x=1",
            "http://host:4318/v1?api_key=«redacted»&x=«redacted»",
        ),
        ("https://host/#token=k3y", "https://host/#token=«redacted»"),
        (f"tcp://user:{SECRET}@10.0.0.1:8786", "tcp://«redacted»@10.0.0.1:8786"),
        ("inproc://user:pass", "inproc://user:«redacted»"),
        ("user:pass@host:8786", "«redacted»@host:8786"),
        ("tcp://10.0.0.1:8786", "tcp://10.0.0.1:8786"),
        ("tcp://[::1]:8786", "tcp://[::1]:8786"),
        ("http://127.0.0.1:6006", "http://127.0.0.1:6006"),
        ("notanaddress", "notanaddress"),
    ],
)
def test_redact_address_hides_userinfo_query_values_and_non_port_text(address, shown) -> None:
    assert redact_address(address) == shown


def test_redact_addresses_hides_a_known_address_however_it_is_quoted() -> None:
    address = f"tcp://user:{SECRET}@10.0.0.1:8786"
    text = f"cannot reach {address!r} ({address}) [{SECRET}]"
    out = redact_addresses(text, [address])
    assert "s3cr" not in out and "«redacted»@10.0.0.1:8786" in out


@pytest.mark.parametrize(
    "text",
    [
        "error: http://bob:hunter22@h/v1 did not answer",
        "see https://h/x?api_key=hunter22 now",
        "at tcp://bob:hunter22@h:1",
    ],
)
def test_redact_addresses_finds_addresses_it_was_not_told_about(text) -> None:
    assert "hunter22" not in redact_addresses(text)


def test_the_otlp_exporters_own_log_lines_hide_the_endpoints_credentials(caplog) -> None:
    import logging

    pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    from jdsl.trace.otel.export import otlp_http_exporter

    otlp_http_exporter("http://bob:hunter2pw@127.0.0.1:1/?api_key=hunter2key")
    with caplog.at_level(logging.WARNING):
        for name in (
            "opentelemetry.exporter.otlp.common.http",
            "opentelemetry.exporter.otlp.proto.http.trace_exporter",
        ):
            logging.getLogger(name).warning(
                "Transient error %s encountered while exporting to %s",
                "Max retries exceeded with url: /v1/traces?api_key=hunter2key",
                "x",
            )
    assert caplog.records and "hunter2" not in caplog.text
