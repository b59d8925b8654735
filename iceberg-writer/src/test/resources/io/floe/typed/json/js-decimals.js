// Writes "hex bits of a double, JSON.stringify of it" for numbers with up to three decimals and
// integers, below and around 2^31, and their neighbours: node js-decimals.js > js-decimals.txt
const buf = new DataView(new ArrayBuffer(8));
const out = [];
function emit(d) { buf.setFloat64(0, d); out.push(buf.getBigUint64(0).toString(16).padStart(16,'0') + ' ' + JSON.stringify(d)); }
let seed = 12345;
function next() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
const limit = 2 ** 31;
for (let i = 0; i < 6000; i++) {
  const scale = 10 ** (i % 4);
  const magnitude = 10 ** Math.floor(next() * 10);
  let d = Math.round(next() * magnitude * scale) / scale;
  if (i % 2) d = -d;
  if (i % 11 == 0) d = (limit - Math.floor(next() * 1000)) / scale;
  emit(d);
  // the doubles next to it, which read back only with more digits
  buf.setFloat64(0, d);
  const bits = buf.getBigUint64(0);
  buf.setBigUint64(0, bits + 1n);
  emit(buf.getFloat64(0));
}
for (const d of [limit, -limit, limit - 0.001, limit - 0.5, 0.001, 0.0005, 0.999, 1e9 + 0.125]) emit(d);
console.log(out.join('\n'));
