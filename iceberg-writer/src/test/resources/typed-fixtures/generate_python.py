#!/usr/bin/env python3
"""Python-written fixtures for generate.js: reads order.proto's FileDescriptorSet (base64) on
stdin, prints {"avro": [...], "protobuf": [...], "json": [...]} on stdout. A library that is not
installed (Debian python3-avro, python3-protobuf) is skipped with a line on stderr."""
import base64
import datetime
import decimal
import io
import json
import os
import struct
import sys

DIR = os.path.dirname(os.path.abspath(__file__))
SCHEMA_ID = 1
ORDER = {
    "id": 1001, "customer": "Ada Lovelace", "total": 1234.5, "ratio": 0.25, "quantities": [3, 1, 2],
    "counts": {"widgets": 2, "gadgets": 1}, "note": "leave at the door", "blob": b"\xca\xfe",
}
AVRO_LOGICAL = {
    "amount": decimal.Decimal("1234.50"),
    "placed": datetime.datetime(2024, 1, 31, 9, 15, 30, 120000, tzinfo=datetime.timezone.utc),
    "day": datetime.date(2024, 1, 31), "ref": "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b",
}
EXPECT = {"customer": "Ada Lovelace", "id": "1001"}


def fixture(name, writer, status, description, data, **extra):
    out = {"name": name, "writer": writer, "handBuilt": False, "status": status, "description": description}
    out.update(extra)
    out["hex"] = data.hex()
    return out


def prefix(indexes=b""):
    return b"\x00" + struct.pack(">i", SCHEMA_ID) + indexes


def avro_fixtures():
    try:
        import avro.io
        import avro.schema
    except ImportError as e:
        print("Python avro skipped: %s" % e, file=sys.stderr)
        return []
    from importlib.metadata import version
    writer = "Python avro %s" % version("avro")
    with open(os.path.join(DIR, "order.avsc")) as f:
        schema = avro.schema.parse(f.read())

    def encode(value):
        buf = io.BytesIO()
        avro.io.DatumWriter(schema).write(value, avro.io.BinaryEncoder(buf))
        return buf.getvalue()

    return [
        fixture("python-avro-canonical", writer, "ok",
                "Python avro DatumWriter of the order with decimal, timestamp-millis, date and uuid logical types",
                encode(dict(ORDER, **AVRO_LOGICAL)), wire=False, expect=dict(EXPECT, amount="1234.50")),
        fixture("python-avro-decimal-minus-128", writer, "inexact",
                "decimal -1.28 (unscaled -128): Python avro sizes the bytes by the magnitude and writes ff 80; "
                "Java's BigInteger.toByteArray writes the minimal 80",
                encode(dict(ORDER, **dict(AVRO_LOGICAL, amount=decimal.Decimal("-1.28")))), wire=False,
                expect={"amount": "-1.28"}),
        fixture("python-avro-wire", writer, "ok",
                "Python avro DatumWriter with the wire prefix written by hand (as confluent-kafka-python does)",
                prefix() + encode(dict(ORDER, **AVRO_LOGICAL, note=None, counts={}, quantities=[], customer="Zoë")),
                wire=True, expect={"customer": "Zoë"}),
        fixture("python-avro-nan", writer, "ok", "float ratio NaN: struct.pack('<f') writes 7fc00000 like Java",
                encode(dict(ORDER, **AVRO_LOGICAL, ratio=float("nan"), total=float("-inf"))), wire=False),
    ]


def protobuf_fixtures(descriptor_set):
    try:
        import google.protobuf
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    except ImportError as e:
        print("Python protobuf skipped: %s" % e, file=sys.stderr)
        return []
    writer = "Python protobuf %s (%s)" % (google.protobuf.__version__, _implementation())
    files = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set)
    pool = descriptor_pool.DescriptorPool()
    for f in files.file:
        pool.Add(f)
    order_type = pool.FindMessageTypeByName("floe.fixtures.Order")
    if hasattr(message_factory, "GetMessageClass"):
        order_class = message_factory.GetMessageClass(order_type)
    else:
        order_class = message_factory.MessageFactory(pool).GetPrototype(order_type)
    order = order_class(id=1001, customer="Ada Lovelace", total=1234.5, ratio=0.25, quantities=[3, 1, 2],
                        note="leave at the door", status=1)
    order.counts["widgets"] = 2
    order.counts["gadgets"] = 1
    defaults = order_class(id=0, customer="", total=0.0)
    defaults.note = ""
    edge = order_class(id=-1, customer="Zoë 😀", ratio=float("nan"), quantities=[-1, 0, 2147483647, -2147483648])
    edge.counts[""] = 0
    edge.counts["neg"] = -5
    return [
        fixture("python-protobuf-edge-values", writer, "ok",
                "negative and extreme int32s, map entries with an empty key and a zero value (deterministic), NaN ratio",
                edge.SerializeToString(deterministic=True), wire=False, expect={"customer": "Zoë 😀", "id": "-1"}),
        fixture("python-protobuf-canonical", writer, "ok",
                "Python protobuf SerializeToString(deterministic=True) of the order (map keys sorted; without "
                "deterministic the C++ implementation writes map entries in hash order, different run to run)",
                order.SerializeToString(deterministic=True), wire=False, expect=dict(EXPECT, status="PAID")),
        fixture("python-protobuf-wire", writer, "ok",
                "Python protobuf with the wire prefix written by hand, first message as 00 (as confluent-kafka-python does)",
                prefix(b"\x00") + order.SerializeToString(deterministic=True), wire=True, expect=EXPECT),
        fixture("python-protobuf-explicit-presence", writer, "ok",
                "implicit-presence fields set to defaults are not written; the proto3 optional note set to \"\" is",
                defaults.SerializeToString(), wire=False, expect={"note": ""}),
    ]


def _implementation():
    try:
        from google.protobuf.internal import api_implementation
        return api_implementation.Type()
    except ImportError:
        return "unknown"


def json_fixtures():
    writer = "Python %d.%d json" % sys.version_info[:2]
    order = {"id": 1001, "customer": "Ada Lovelace", "total": 1234.5, "tags": ["fragile", "gift"],
             "counts": {"widgets": 2, "gadgets": 1}, "created": "2024-01-31T09:15:30.120Z",
             "note": "leave at the door"}
    compact = json.dumps(order, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return [
        fixture("python-json-compact", writer, "ok",
                "json.dumps with separators=(',', ':') and ensure_ascii=False: same as JSON.stringify",
                compact, wire=False, expect=EXPECT),
        fixture("python-json-big-integer", writer, "ok",
                "an integer beyond 2^53 (Python ints are exact; JavaScript cannot write it)",
                json.dumps({"id": 9007199254740993, "total": 0.1}, separators=(",", ":")).encode(), wire=False,
                expect={"id": "9007199254740993"}),
        fixture("python-json-default", writer, "inexact",
                "json.dumps with defaults: a space after ':' and ',', non-ASCII as \\u escapes",
                json.dumps(dict(order, customer="Zoë Ångström")).encode("utf-8"), wire=False,
                expect={"customer": "Zoë Ångström"}),
        fixture("python-json-float-forms", writer, "inexact",
                "json.dumps writes the float 3.0 as 3.0 (JavaScript writes 3)",
                json.dumps({"id": 1, "total": 3.0}, separators=(",", ":")).encode("utf-8"), wire=False),
        fixture("python-json-exponent-forms", writer, "inexact",
                "json.dumps writes 1e-7 as 1e-07 and 1e16 as 1e+16 (JavaScript: 1e-7, 10000000000000000)",
                json.dumps({"id": 1, "total": 1e-7, "counts": {"big": 1e16}}, separators=(",", ":")).encode(),
                wire=False),
        fixture("python-json-isoformat", writer, "inexact",
                "datetime.isoformat() gives +00:00 and no milliseconds, not toISOString's form",
                json.dumps({"id": 1, "created": datetime.datetime(2024, 1, 31, 9, 15, 30, tzinfo=datetime.timezone.utc).isoformat()}, separators=(",", ":")).encode(),
                wire=False),
    ]


def main():
    descriptor_set = base64.b64decode(sys.stdin.read())
    print(json.dumps({"avro": avro_fixtures(), "protobuf": protobuf_fixtures(descriptor_set),
                      "json": json_fixtures()}))


if __name__ == "__main__":
    main()
