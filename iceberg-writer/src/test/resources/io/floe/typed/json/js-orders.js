// node js-orders.js > js-orders.jsonl: random values of JsonFixtures.ORDER as JSON.stringify writes
// them. Left out as not canonical: null properties (null struct fields are written as absent) and
// the control characters JSON.stringify escapes with hex letters (\u000b, \u001f: Jackson writes
// upper case).
const pick = (a) => a[Math.floor(Math.random() * a.length)];
const maybe = (f) => (Math.random() < 0.25 ? undefined : f());
const chars = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\t', '\b', '\f', '\r', '\u0001', '\u007f', 'é', 'ß',
  '日', '😀', '\u2028', '<', '&', "'", '\u00a0', '\ufeff', '0'];
const str = () => Array.from({ length: Math.floor(Math.random() * 8) }, () => pick(chars)).join('');
const bits = new DataView(new ArrayBuffer(8));
const dbl = () => {
  switch (Math.floor(Math.random() * 4)) {
    case 0: return Math.round(Math.random() * 1e6) / 100 - 5000;
    case 1: return (Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 80 - 40);
    case 2: return Math.floor(Math.random() * 1e4);
    default:
      bits.setUint32(0, Math.floor(Math.random() * 2 ** 32)); bits.setUint32(4, Math.floor(Math.random() * 2 ** 32));
      const d = bits.getFloat64(0);
      return isFinite(d) ? d : 0.5;
  }
};
const int = () => pick([0, -1, 7, Math.floor((Math.random() - 0.5) * 2 ** 53), Number.MAX_SAFE_INTEGER]);
const date = () => new Date(Math.floor((Math.random() - 0.3) * 1e13));
const text = () => pick([1, 'two', true, [], {}, { k: [1.5, 'x', { z: null }] }, -0.25, str()]);
const node = (depth) => ({ label: maybe(str), children: depth > 0 ? maybe(() => [node(depth - 1), node(depth - 1)]) : undefined });
const order = () => ({
  id: maybe(int), name: maybe(str), score: maybe(dbl), active: maybe(() => Math.random() < 0.5),
  born: maybe(() => date().toISOString().substring(0, 10)), seen: maybe(() => date().toISOString()),
  status: maybe(() => pick(['NEW', 'DONE'])), nickname: maybe(str), rank: maybe(int),
  address: maybe(() => ({ city: maybe(str), zip: maybe(str) })), previous: maybe(() => ({ line: maybe(str) })),
  customer: maybe(() => ({ email: maybe(str), vip: maybe(() => Math.random() < 0.5) })),
  tags: maybe(() => Array.from({ length: Math.floor(Math.random() * 4) }, () => pick([str(), null]))),
  scores: maybe(() => Object.fromEntries(Array.from({ length: Math.floor(Math.random() * 4) }, () => [str(), pick([dbl(), null])]))),
  lines: maybe(() => Array.from({ length: Math.floor(Math.random() * 3) }, () => ({ sku: maybe(str), qty: maybe(int) }))),
  extra: maybe(() => pick([str(), int()])), anything: maybe(text), kind: maybe(() => 'order'),
  mixed: maybe(() => pick([str(), dbl()])), tree: maybe(() => node(2)),
});
for (let i = 0; i < 300; i++) console.log(JSON.stringify(order()));
