#!/usr/bin/env node
// Writes avro.json, protobuf.json and json-schema.json in this folder: payloads of real serializers
// (avsc, protobufjs, Confluent's JavaScript serializers, JSON.stringify, and with generate_python.py
// Python's avro, protobuf and json) plus hand-built cases of writers not available here (Go).
// Fixed inputs: rerunning gives identical files. See README.md for how to run it.
'use strict';

const fs = require('fs');
const path = require('path');
const childProcess = require('child_process');
const avsc = require('avsc');
const protobuf = require('protobufjs');
const descriptor = require('protobufjs/ext/descriptor');
const bufbuild = require('@bufbuild/protobuf');
const wkt = require('@bufbuild/protobuf/wkt');
const sr = require('@confluentinc/schemaregistry');

const DIR = __dirname;
const SCHEMA_ID = 1; // the id the in-memory registry client gives the first schema it registers
const read = (name) => fs.readFileSync(path.join(DIR, name), 'utf8');
const hex = (bytes) => Buffer.from(bytes).toString('hex');
const version = (pkg) => {
  const main = require.resolve(pkg);
  const root = main.slice(0, main.lastIndexOf('node_modules/' + pkg) + 'node_modules/'.length + pkg.length);
  return JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
};
const AVSC = 'avsc ' + version('avsc');
const PROTOBUFJS = 'protobufjs ' + version('protobufjs');
const CONFLUENT = '@confluentinc/schemaregistry ' + version('@confluentinc/schemaregistry');
const NODE = 'Node.js ' + process.versions.node.split('.')[0] + ' JSON.stringify';
const HAND = 'hand-built';

function fixture(name, writer, status, description, bytes, extra) {
  return Object.assign({ name, writer, handBuilt: writer === HAND, status, description }, extra || {},
    { hex: hex(bytes) });
}

function prefix(id, indexes) {
  const out = [0, (id >>> 24) & 0xff, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff];
  return indexes === undefined ? out : out.concat(indexes);
}

const withPrefix = (pre, payload) => Buffer.concat([Buffer.from(pre), Buffer.from(payload)]);

// The order every writer writes (a JavaScript number where the format has a long).
const ORDER = {
  id: 1001, customer: 'Ada Lovelace', total: 1234.5, ratio: 0.25, quantities: [3, 1, 2],
  counts: { widgets: 2, gadgets: 1 }, note: 'leave at the door', blob: Buffer.from([0xca, 0xfe]),
  // Avro logical types as their underlying types (avsc has no decimal): 1234.50 unscaled 123450,
  // 2024-01-31T09:15:30.120Z in milliseconds, 2024-01-31 in days
  amount: Buffer.from([0x01, 0xe2, 0x3a]), placed: 1706692530120, day: 19753,
  ref: '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b',
};

// ---------------------------------------------------------------------------------------------- Avro

function avroZigZag(n) {
  const out = [];
  let v = (BigInt(n) << 1n) ^ (BigInt(n) < 0n ? -1n : 0n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return out;
}

const avroString = (s) => Buffer.concat([Buffer.from(avroZigZag(Buffer.byteLength(s))), Buffer.from(s)]);

// Fields of the order before and after the array, as any writer encodes them, for hand-built cases.
function avroHead(type, value) {
  return type.fields.slice(0, 4).reduce(
    (acc, f) => Buffer.concat([acc, f.type.toBuffer(value[f.name])]), Buffer.alloc(0));
}

function avroTail(type, value, from) {
  return type.fields.slice(from).reduce(
    (acc, f) => Buffer.concat([acc, f.type.toBuffer(value[f.name])]), Buffer.alloc(0));
}

async function avroFixtures() {
  const text = read('order.avsc');
  const type = avsc.Type.forSchema(JSON.parse(text));
  const out = [];
  const expect = { customer: ORDER.customer, id: '1001' };
  out.push(fixture('avsc-canonical', AVSC, 'ok', 'avsc Type.toBuffer of the order, no wire prefix',
    type.toBuffer(ORDER), { wire: false, expect }));

  const client = new sr.MockClient();
  await client.register('orders-value', { schemaType: 'AVRO', schema: text });
  const serializer = new sr.AvroSerializer(client, sr.SerdeType.VALUE, { useLatestVersion: true });
  out.push(fixture('confluent-js-serializer', CONFLUENT, 'ok',
    'Confluent JavaScript AvroSerializer (in-memory registry client, schema id 1), wire prefix included',
    await serializer.serialize('orders', ORDER), { wire: true, expect }));
  out.push(fixture('avsc-unicode-and-empty', AVSC, 'ok',
    'non-ASCII customer, empty array, empty map, null note, empty bytes',
    type.toBuffer(Object.assign({}, ORDER, {
      customer: 'Zoë Ångström 😀', quantities: [], counts: {}, note: null, blob: Buffer.alloc(0),
    })), { wire: false, expect: { customer: 'Zoë Ångström 😀' } }));
  out.push(fixture('avsc-map-insertion-order', AVSC, 'ok',
    'map keys in insertion order z, a, m (not sorted): Floe keeps map order',
    type.toBuffer(Object.assign({}, ORDER, { counts: { z: 1, a: -2, m: 3 } })), { wire: false }));
  out.push(fixture('avsc-extremes', AVSC, 'ok',
    'long 2^52 (the largest avsc writes from a JavaScript number), negative zero double, canonical NaN float, large ints',
    type.toBuffer(Object.assign({}, ORDER, {
      id: 2 ** 52, total: -0, ratio: NaN, quantities: [2147483647, -2147483648, 0],
    })), { wire: false }));

  const multiBlock = Buffer.concat([
    avroHead(type, ORDER),
    // Go writers (hamba/avro with a block length) write arrays in blocks with a negative count and
    // the byte size of the block: [-2, size][3, 1] [-1, size][2] [0]
    Buffer.from(avroZigZag(-2)), Buffer.from(avroZigZag(2)), Buffer.from(avroZigZag(3)), Buffer.from(avroZigZag(1)),
    Buffer.from(avroZigZag(-1)), Buffer.from(avroZigZag(1)), Buffer.from(avroZigZag(2)),
    Buffer.from([0]),
    avroTail(type, ORDER, 5),
  ]);
  out.push(fixture('go-multi-block-array', HAND, 'inexact',
    'array of 3 ints in two blocks with negative counts and byte sizes, as Go writers with a block length write it',
    multiBlock, { wire: false, expect }));

  const longVarint = Buffer.concat([
    Buffer.from([0xd2, 0x8f, 0x80, 0x80, 0x00]), // 1001 zig-zag (2002) padded to 5 bytes
    type.toBuffer(ORDER).subarray(2),
  ]);
  out.push(fixture('non-minimal-varint', HAND, 'inexact',
    'the long id 1001 as a 5-byte varint (d2 8f 80 80 00) instead of 2 bytes', longVarint,
    { wire: false, expect }));

  const duplicateKeys = Buffer.concat([
    avroHead(type, ORDER), type.fields[4].type.toBuffer(ORDER.quantities),
    Buffer.from(avroZigZag(3)), avroString('a'), Buffer.from(avroZigZag(1)), avroString('b'),
    Buffer.from(avroZigZag(2)), avroString('a'), Buffer.from(avroZigZag(3)), Buffer.from([0]),
    avroTail(type, ORDER, 6),
  ]);
  out.push(fixture('map-duplicate-keys', HAND, 'inexact',
    'map {a: 1, b: 2, a: 3}: a key twice (Avro does not forbid it; readers keep the last)',
    duplicateKeys, { wire: false }));

  const nan = type.toBuffer(ORDER);
  const ratioAt = avroHead(type, ORDER).length - 4;
  nan.writeUInt32LE(0x7fc00001, ratioAt);
  out.push(fixture('float-nan-payload', HAND, 'inexact',
    'float ratio NaN with payload bits 7fc00001 (Java and avsc write 7fc00000)', nan, { wire: false }));

  out.push(fixture('decimal-sign-padded', HAND, 'inexact',
    'decimal 1234.50 as 4 bytes 00 01 e2 3a (a leading sign byte more than needed), as fixed-width writers do',
    type.toBuffer(Object.assign({}, ORDER, { amount: Buffer.from([0x00, 0x01, 0xe2, 0x3a]) })), { wire: false }));
  const badUtf8 = Buffer.concat([
    Buffer.from(avroZigZag(ORDER.id)), Buffer.from(avroZigZag(3)), Buffer.from([0x41, 0xc3, 0x28]),
    avroTail(type, ORDER, 2),
  ]);
  out.push(fixture('invalid-utf8-string', HAND, 'inexact',
    'customer bytes 41 c3 28: not valid UTF-8 (Avro does not check), stored as replacement characters',
    badUtf8, { wire: false }));
  return out;
}

// ------------------------------------------------------------------------------------------ Protobuf

// protobufjs's descriptor export leaves nested type names relative and marks every field unpacked:
// make the names absolute and drop the packed option (proto3 repeated scalars are packed).
function fileDescriptorSet(text, name) {
  const root = protobuf.parse(text, { keepCase: true }).root;
  const set = root.toDescriptor('proto3');
  const file = set.file[0];
  file.name = name;
  const fix = (message, scope) => {
    const own = scope + '.' + message.name;
    for (const f of message.field) {
      const entry = message.nestedType.find((t) => t.options && t.options.mapEntry && t.name === f.typeName);
      if (entry) {
        // protoc names a map's entry type after the field: counts -> CountsEntry
        entry.name = f.name.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('') + 'Entry';
        f.typeName = entry.name;
      }
    }
    const nested = new Set(message.nestedType.map((t) => t.name).concat(message.enumType.map((t) => t.name)));
    for (const f of message.field) {
      if (f.options) f.options = null;
      if (f.typeName && !f.typeName.startsWith('.')) {
        f.typeName = (nested.has(f.typeName) ? own : scope) + '.' + f.typeName;
      }
    }
    message.nestedType.forEach((t) => fix(t, own));
  };
  file.messageType.forEach((m) => fix(m, '.' + file.package));
  return Buffer.from(descriptor.FileDescriptorSet.encode(set).finish());
}

function protoVarint(n) {
  const out = [];
  let v = BigInt.asUintN(64, BigInt(n));
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return Buffer.from(out);
}

const tag = (field, wireType) => protoVarint((field << 3) | wireType);
const lengthDelimited = (field, bytes) => Buffer.concat([tag(field, 2), protoVarint(bytes.length), Buffer.from(bytes)]);

async function protobufFixtures(descriptorSet) {
  const text = read('order.proto');
  const root = protobuf.parse(text, { keepCase: true }).root;
  const Order = root.lookupType('floe.fixtures.Order');
  const v2 = protobuf.parse(read('order_v2.proto'), { keepCase: true }).root.lookupType('floe.fixtures.Order');
  const order = { id: 1001, customer: ORDER.customer, total: ORDER.total, ratio: ORDER.ratio,
    quantities: ORDER.quantities, counts: ORDER.counts, note: ORDER.note, status: 1 };
  const expect = { customer: ORDER.customer, id: '1001', status: 'PAID' };
  const out = [];
  const canonical = Buffer.from(Order.encode(Order.fromObject(order)).finish());
  out.push(fixture('protobufjs-canonical', PROTOBUFJS, 'ok', 'protobufjs Type.encode of the order, no wire prefix',
    canonical, { wire: false, expect }));
  out.push(fixture('protobufjs-defaults-from-object', PROTOBUFJS, 'ok',
    'protobufjs Type.fromObject with zero id, empty customer, NEW status: fromObject leaves defaults unset, nothing written for them',
    Order.encode(Order.fromObject({ id: 0, customer: '', status: 0, total: 2 })).finish(), { wire: false }));
  out.push(fixture('protobufjs-plain-object-defaults', PROTOBUFJS, 'ok',
    'protobufjs Type.encode of a plain object with id 0, customer "", total 0 set: protobufjs 8 skips proto3 defaults even when set',
    Order.encode({ id: 0, customer: '', total: 0, quantities: [7] }).finish(), { wire: false, expect: { customer: '' } }));
  out.push(fixture('protobufjs-edge-values', PROTOBUFJS, 'ok',
    'negative and extreme int32s (10-byte varints), map entries with an empty key and zero values, enum number 5 not in the enum, NaN ratio, -0 total',
    Order.encode(Order.fromObject({ id: -1, customer: 'Zoë 😀', total: -0, ratio: NaN,
      quantities: [-1, 0, 2147483647, -2147483648], counts: { '': 0, zero: 0, neg: -5 }, status: 5 })).finish(),
    { wire: false, expect: { customer: 'Zoë 😀', id: '-1' } }));
  out.push(fixture('protobufjs-unknown-fields', PROTOBUFJS, 'inexact',
    'written with order_v2.proto (channel = 9, priority = 10), read with order.proto: unknown fields',
    v2.encode(v2.fromObject(Object.assign({ channel: 'web', priority: -3 }, order))).finish(),
    { wire: false, writerSchema: 'order_v2.proto', expect }));

  const registry = bufbuild.createFileRegistry(bufbuild.fromBinary(wkt.FileDescriptorSetSchema, descriptorSet));
  const client = new sr.MockClient();
  await client.register('orders-value', { schemaType: 'PROTOBUF', schema: text });
  const serializer = new sr.ProtobufSerializer(client, sr.SerdeType.VALUE, { useLatestVersion: true });
  serializer.registry = bufbuild.createRegistry(registry);
  const msg = bufbuild.create(registry.getMessage('floe.fixtures.Order'), {
    id: 1001n, customer: ORDER.customer, total: ORDER.total, ratio: ORDER.ratio, quantities: ORDER.quantities,
    counts: { widgets: 2n, gadgets: 1n }, note: ORDER.note, status: 1,
  });
  out.push(fixture('confluent-js-serializer', CONFLUENT, 'ok',
    'Confluent JavaScript ProtobufSerializer (in-memory registry client, schema id 1; @bufbuild/protobuf ' +
    'toBinary), first message: wire prefix 00 00000001 00', await serializer.serialize('orders', msg),
    { wire: true, expect }));
  out.push(fixture('confluent-js-serializer-edge-values', CONFLUENT, 'ok',
    'Confluent JavaScript ProtobufSerializer of negative int32s, map entries with an empty key and zero values, enum number 5, NaN ratio',
    await serializer.serialize('orders', bufbuild.create(registry.getMessage('floe.fixtures.Order'), {
      id: -1n, customer: 'Zoë 😀', ratio: NaN, quantities: [-1, 0, 2147483647, -2147483648],
      counts: { '': 0n, zero: 0n, neg: -5n }, status: 5,
    })), { wire: true, expect: { customer: 'Zoë 😀', id: '-1' } }));
  const refund = bufbuild.create(registry.getMessage('floe.fixtures.Refund'), { orderId: 1001n, reason: 'late' });
  out.push(fixture('confluent-js-serializer-second-message', CONFLUENT, 'ok',
    'Confluent JavaScript ProtobufSerializer of the second message Refund: message indexes [1] as 02 02',
    await serializer.serialize('orders', refund), { wire: true, expect: { reason: 'late' } }));

  out.push(fixture('wire-prefix-count-one', HAND, 'ok',
    'first message with the message indexes written 02 00 (count 1, index 0) as some non-Confluent clients do, kept as the message path [0]; payload canonical',
    withPrefix(prefix(SCHEMA_ID, [0x02, 0x00]), canonical), { wire: true, expect }));
  out.push(fixture('proto3-explicit-defaults', HAND, 'inexact',
    'proto3 implicit-presence fields written with their defaults (id 0 as 08 00, customer "" as 12 00), as writers that emit every set field do',
    Buffer.concat([tag(1, 0), protoVarint(0), lengthDelimited(2, Buffer.alloc(0)), tag(8, 0), protoVarint(1)]),
    { wire: false, expect: { id: '0', customer: '', status: 'PAID' } }));
  out.push(fixture('unpacked-repeated', HAND, 'inexact',
    'repeated int32 quantities written unpacked (one tag per element), as proto2-era writers do',
    Buffer.concat([tag(1, 0), protoVarint(1001), lengthDelimited(2, Buffer.from(ORDER.customer)),
      tag(5, 0), protoVarint(3), tag(5, 0), protoVarint(1), tag(5, 0), protoVarint(2)]),
    { wire: false, expect: { customer: ORDER.customer } }));
  out.push(fixture('fields-out-of-order', HAND, 'inexact',
    'customer (2) before id (1): valid Protobuf, not field-number order',
    Buffer.concat([lengthDelimited(2, Buffer.from(ORDER.customer)), tag(1, 0), protoVarint(1001)]),
    { wire: false, expect: { customer: ORDER.customer, id: '1001' } }));
  out.push(fixture('non-minimal-varint', HAND, 'inexact',
    'id 1001 as a 4-byte varint e9 87 80 00',
    Buffer.concat([tag(1, 0), Buffer.from([0xe9, 0x87, 0x80, 0x00]), lengthDelimited(2, Buffer.from('Ada'))]),
    { wire: false, expect: { customer: 'Ada', id: '1001' } }));
  const nanFloat = Buffer.alloc(4);
  nanFloat.writeUInt32LE(0x7fc00001);
  out.push(fixture('float-nan-payload', HAND, 'inexact', 'float ratio NaN with payload bits 7fc00001',
    Buffer.concat([tag(4, 5), nanFloat]), { wire: false }));
  out.push(fixture('invalid-utf8-string', HAND, 'undecodable',
    'proto3 string customer with bytes 41 c3 28, not valid UTF-8 (proto3 parsers reject it)',
    lengthDelimited(2, Buffer.from([0x41, 0xc3, 0x28])), { wire: false }));
  return out;
}

// ------------------------------------------------------------------------------------- JSON Schema

async function jsonFixtures() {
  const text = read('order.schema.json');
  const created = new Date(Date.UTC(2024, 0, 31, 9, 15, 30, 120)).toISOString();
  const order = { id: 1001, customer: ORDER.customer, total: ORDER.total, tags: ['fragile', 'gift'],
    counts: ORDER.counts, created, note: ORDER.note };
  const expect = { customer: ORDER.customer, id: '1001' };
  const json = (value) => Buffer.from(JSON.stringify(value), 'utf8');
  const out = [];
  out.push(fixture('json-stringify-canonical', NODE, 'ok',
    'JSON.stringify of the order, properties in the schema order, date-time from toISOString', json(order),
    { wire: false, expect }));
  const client = new sr.MockClient();
  await client.register('orders-value', { schemaType: 'JSON', schema: text });
  const serializer = new sr.JsonSerializer(client, sr.SerdeType.VALUE, { useLatestVersion: true });
  out.push(fixture('confluent-js-serializer', CONFLUENT, 'ok',
    'Confluent JavaScript JsonSerializer (in-memory registry client, schema id 1), wire prefix included',
    await serializer.serialize('orders', order), { wire: true, expect }));
  out.push(fixture('json-stringify-number-forms', NODE, 'ok',
    'JavaScript number forms: 2^53, 1e-7, -0 written as 0',
    json({ id: 9007199254740992, total: 1e-7, counts: { small: -0 } }),
    { wire: false }));
  out.push(fixture('json-stringify-double-forms', NODE, 'ok',
    'JSON.stringify of 1e-6 (written 0.000001) and the most negative safe integer',
    json({ id: -9007199254740991, total: 1e-6, tags: [], counts: { a: 0 } }), { wire: false }));
  for (const [i, total] of [1e-7, 5e-324, 1.7976931348623157e308, 123456789012345680000, 0.1 + 0.2].entries()) {
    out.push(fixture('json-stringify-double-' + i, NODE, 'ok', 'JSON.stringify of the double ' + JSON.stringify(total),
      json({ total }), { wire: false }));
  }
  out.push(fixture('json-stringify-big-total', NODE, 'ok', 'total 1e+21 as JSON.stringify writes it',
    json({ id: 1, total: 1e21 }), { wire: false }));
  out.push(fixture('json-stringify-unicode', NODE, 'ok',
    'non-ASCII and astral characters written as UTF-8, quotes and backslashes escaped',
    json({ customer: 'Zoë "Z" \\ 😀 <b>&' }), { wire: false, expect: { customer: 'Zoë "Z" \\ 😀 <b>&' } }));
  out.push(fixture('json-stringify-property-order', NODE, 'inexact',
    'JSON.stringify of an object built in another order than the schema (customer before id)',
    json({ customer: ORDER.customer, id: 1001 }), { wire: false, expect }));
  out.push(fixture('json-stringify-control-character', NODE, 'inexact',
    'JSON.stringify escapes U+001F as \\u001f (lower-case hex); Floe\'s canonical form is Jackson\'s \\u001F',
    json({ customer: 'a\u001fb' }), { wire: false, expect: { customer: 'a\u001fb' } }));
  out.push(fixture('json-stringify-lone-surrogate', NODE, 'inexact',
    'JSON.stringify of a string with an unpaired surrogate writes \\ud800; storage keeps UTF-8, so it becomes ?',
    json({ customer: 'a\ud800b' }), { wire: false }));
  out.push(fixture('go-html-escapes', HAND, 'inexact',
    'Go encoding/json: <, >, & escaped as \\u003c \\u003e \\u0026 (HTML-safe by default)',
    Buffer.from('{"id":1001,"customer":"\\u003cAda\\u003e \\u0026 Co"}'), { wire: false, expect: { customer: '<Ada> & Co' } }));
  out.push(fixture('go-struct-field-order', HAND, 'inexact',
    'Go encoding/json writes struct fields in declaration order (here note, total, id, customer), not the schema\'s',
    Buffer.from('{"note":"leave at the door","total":1234.5,"id":1001,"customer":"Ada Lovelace"}'),
    { wire: false, expect }));
  out.push(fixture('go-map-sorted-keys-and-float', HAND, 'ok',
    'Go encoding/json: map keys sorted, float64 1e+21 written as 1e+21 (same as JavaScript)',
    Buffer.from('{"id":1,"total":1e+21,"counts":{"a":1,"b":2}}'), { wire: false }));
  out.push(fixture('invalid-utf8', HAND, 'undecodable', 'customer bytes 41 c3 28: not valid UTF-8, not JSON',
    Buffer.concat([Buffer.from('{"customer":"'), Buffer.from([0x41, 0xc3, 0x28]), Buffer.from('"}')]), { wire: false }));
  return out;
}

// ---------------------------------------------------------------------------------------- Python

function pythonFixtures(descriptorSet) {
  const python = process.env.PYTHON || '/usr/bin/python3';
  const result = childProcess.spawnSync(python, [path.join(DIR, 'generate_python.py')], {
    input: descriptorSet.toString('base64'), encoding: 'utf8',
  });
  if (result.status !== 0) {
    process.stderr.write('Python fixtures skipped: ' + (result.stderr || result.error) + '\n');
    return { avro: [], protobuf: [], json: [] };
  }
  if (result.stderr) process.stderr.write(result.stderr);
  return JSON.parse(result.stdout);
}

function writeFile(name, format, schemas, fixtures) {
  const doc = { format, schema: schemas[0], schemaId: SCHEMA_ID, fixtures };
  fs.writeFileSync(path.join(DIR, name), JSON.stringify(doc, null, 2) + '\n');
  const counts = {};
  fixtures.forEach((f) => { counts[f.status] = (counts[f.status] || 0) + 1; });
  console.log(name + ': ' + fixtures.length + ' fixtures ' + JSON.stringify(counts));
}

(async () => {
  const descriptorSet = fileDescriptorSet(read('order.proto'), 'order.proto');
  const py = pythonFixtures(descriptorSet);
  writeFile('avro.json', 'avro', ['order.avsc'], (await avroFixtures()).concat(py.avro));
  writeFile('protobuf.json', 'protobuf', ['order.proto'], (await protobufFixtures(descriptorSet)).concat(py.protobuf));
  writeFile('json-schema.json', 'json-schema', ['order.schema.json'], (await jsonFixtures()).concat(py.json));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
